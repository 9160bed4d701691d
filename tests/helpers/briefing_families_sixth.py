"""Held-out set 6 of the briefing corpus: sixteen template families written without seeing the checker.

Every family writes the claims an analyst or a model would put in an incident briefing, in its own
wording, and labels each sentence from the context's facts alone: the fresh investigation
(`c.ev`: paths, routes, assets, score, cut-off entities), the run record (`c.run`: state, reason,
actions and their account outcomes), and the graph's relationships (`c.edges`). Nothing is labelled
by hand and the checker is never consulted.

A sentence is truthful when it states a true claim, the negation of a false one, or no claim at all
(a third party's words, a recommendation, a rule stated conditionally). An instance the facts do
not decide is skipped: a bare "contained" on a run that ended graph-only (contained in the graph,
not on the account), reach claims about an AWS principal without saying graph or account, and
"credentials still work" after a key was deactivated (sessions issued before keep working).
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Iterator

from tests.helpers.briefing_families import Context, Family, both, on_paths, pairs, paths_at_start, words

__all__ = ["SIXTH"]

Pair = tuple[str, bool]


# -- facts ---------------------------------------------------------------------------------------


def _pick(c: Context, pool: list, k: int, salt: str = "") -> list:
    """k items of pool, starting at a place fixed by the context and the family (wording varies by context)."""
    if not pool:
        return []
    start = zlib.crc32((c.key + salt).encode()) % len(pool)
    return [pool[(start + i) % len(pool)] for i in range(min(k, len(pool)))]


def _aws(c: Context) -> bool:
    return c.ev.entity_id in c.arns


def _contained(c: Context) -> bool:
    """No qualifying path in the graph, from a fresh query."""
    return c.ev.path_count == 0 and str(c.ev.status) == "no_path"


def _state(c: Context) -> str:
    return str(c.run.state) if c.run is not None else ""


def _graph_only(c: Context) -> bool:
    return _state(c) == "graph_only"


def _asset(c: Context) -> str:
    """The sensitive asset the alert is about: a live path's end, or a data asset cut off by the run."""
    if c.live:
        return c.live[0][-1]
    cut = [e for e in c.ev.cut_off_entities if c.ev.adjacent.get(e) == "DataAsset"]
    return cut[0] if cut else ""


def _name(c: Context, i: str) -> str:
    return c.names.get(i) or i


def _case(c: Context, i: str) -> str:
    """The same entity in a different case."""
    if _aws(c) and i == c.ev.entity_id:
        return c.user.capitalize()
    if ":" in i:
        return _name(c, i).upper()
    return i.upper() if len(i) < 18 else i.title()


def _ref(c: Context, i: str, style: int) -> str:
    """An entity by graph id (0), plain name (1), another case (2) or ARN (3, where it has its own)."""
    style %= 4
    if style == 1:
        return _name(c, i)
    if style == 2:
        return _case(c, i)
    if style == 3 and i in c.arns and list(c.arns.values()).count(c.arns[i]) == 1:
        return c.arns[i]
    if style == 3 and _aws(c) and i == c.ev.entity_id:
        return c.arns[i]
    return i


def _who(c: Context, style: int = 0) -> str:
    return (
        _ref(c, c.ev.entity_id, style) if not _aws(c) else (c.user, c.user, "Alice", c.arns[c.ev.entity_id])[style % 4]
    )


def _n(n: int, style: int) -> str:
    return words(n) if style % 2 == 0 else str(n)


def _paths(n: int, style: int = 0, noun: str = "path") -> str:
    return f"{_n(n, style)} {noun}{'' if n == 1 else 's'}"


def _hops(n: int, style: int = 0) -> str:
    return f"{_n(n, style)} hop{'' if n == 1 else 's'}"


def _wrong(n: int, low: int = 0) -> int:
    """A count that is not n (one more, or one less where that stays sensible)."""
    return n + 1 if n <= low + 1 or n % 2 == 0 else n - 1


def _routes_on_paths(c: Context) -> list[str]:
    return [r.route_id for r in c.ev.routes if _left_if_blocked(c, [r.route_id]) < c.ev.path_count]


def _edge_of(c: Context, route: str) -> tuple[str, str]:
    r = next(r for r in c.ev.routes if r.route_id == route)
    return r.source, r.target


def _left_if_blocked(c: Context, routes: list[str]) -> int:
    """Live paths that would remain with these routes blocked (a path using a route's relationship is cut)."""
    cut = {_edge_of(c, r) for r in routes}
    return sum(1 for p in c.live if not any((a, b) in cut for a, b in itertools.pairwise(p)))


def _actions(c: Context) -> list:
    return list(c.run.actions) if c.run is not None else []


def _blocked_by_run(c: Context) -> list[str]:
    return [a.route_id for a in _actions(c) if a.status == "applied" and a.operation == "block_route"]


def _key_id(c: Context) -> str:
    for a in _actions(c):
        if a.aws is not None and a.aws.plan.target is not None and a.aws.plan.target.access_key_id:
            return a.aws.plan.target.access_key_id
    return ""


def _sessions_revoked(c: Context) -> bool:
    return any(
        a.operation == "revoke_role_sessions" and a.aws is not None and a.aws.applied and a.aws.api_verified
        for a in _actions(c)
    )


def _on_account(c: Context) -> bool:
    """Any change made and verified on an AWS account by the run."""
    return c.account_done("any")


def _path_back(c: Context, route: str) -> bool:
    """Whether a qualifying path (at most 6 relationships, every one working) from the alert's entity to its
    asset would exist with this route active again."""
    released = {(s, d) for s, t, d, p in c.edges if p.get("route_id") == route}
    goal = _asset(c)

    def works(s: str, t: str, d: str) -> bool:
        return c.edge_works(s, t, d) or (
            (s, d) in released and all(p.get("permission", "allow") != "deny" for p in c.edge(s, t, d))
        )

    out: dict[str, list[tuple[str, str]]] = {}
    for s, t, d, _ in c.edges:
        out.setdefault(s, []).append((str(t), d))

    def walk(node: str, seen: list[str]) -> bool:
        if node == goal:
            return True
        if len(seen) > 6:
            return False
        return any(d not in seen and works(node, t, d) and walk(d, [*seen, d]) for t, d in out.get(node, []))

    return walk(c.ev.entity_id, [c.ev.entity_id])


# -- 1. the overall verdict in prose --------------------------------------------------------------


def verdict(c: Context) -> Iterator[Pair]:
    a = _asset(c)
    if _aws(c):
        bucket = _ref(c, a, 1)
        pool = [
            (
                f"In the graph, {c.user} no longer has any qualifying path to {bucket}.",
                f"In the graph, {c.user} still has a qualifying path to {bucket}.",
            ),
            (
                f"Graph-wise, {c.arns[c.ev.entity_id]} is cut off from {c.arns.get(a, a)}.",
                f"Graph-wise, {c.arns[c.ev.entity_id]} can still get to {c.arns.get(a, a)}.",
            ),
        ]
        for yes, no in _pick(c, pool, 2, "verdict"):
            yield from both(yes, no, _contained(c))
        if not _graph_only(c):  # a completed run on the account: containment in plain words is decided
            yield from both(
                f"{c.user.capitalize()} has been contained.",
                f"{c.user.capitalize()} has not been contained yet.",
                _contained(c),
            )
        return
    pool = [
        (
            "Containment is confirmed: a fresh query finds no qualifying path from {e} to high or critical data.",
            "{e} is still exposed: the fresh query keeps returning qualifying paths.",
        ),
        ("{e}'s access to {a} has been cut off.", "{e} can still get to {a}."),
        (
            "The exposure is over; nothing {e} holds leads to {a} anymore.",
            "The exposure isn't over: {e} retains a working path to {a}.",
        ),
        (
            "We have shut down every path from {e} to sensitive data.",
            "Not every path from {e} to sensitive data has been shut down.",
        ),
        ("There are no longer any open paths from {e} to {a}.", "At least one path from {e} to {a} is still open."),
        ("{e} is no longer exposed.", "{e} hasn't been contained yet."),
        ("The incident is contained.", "The incident remains uncontained."),
        ("{e} has lost access to {a}.", "{e} hasn't lost access to {a}."),
        ("{e} can't get to {a} anymore.", "{e} can still get to {a}; nothing has cut it off."),
    ]
    for i, (yes, no) in enumerate(_pick(c, pool, 2 if c.run is not None else 1, "verdict")):
        e, aa = _who(c, i), _ref(c, a, i + 1)
        yield from both(yes.format(e=e, a=aa), no.format(e=e, a=aa), _contained(c))


# -- 2. the verdict as a status line, checkbox, heading, table ------------------------------------


def status_lines(c: Context) -> Iterator[Pair]:
    ok = _contained(c)
    alert, e = c.ev.alert_id, _who(c)
    if _aws(c):
        aws_pool = [
            (
                f"✅ Contained in the graph: no qualifying path left for {c.user}",
                f"❌ The graph still shows a qualifying path for {c.user}",
            ),
            (
                f"- [x] Graph re-query returned no_path for {c.user}",
                f"- [ ] Graph re-query returned no_path for {c.user}",
            ),
        ]
        for yes, no in _pick(c, aws_pool, 1, "status"):
            yield from both(yes, no, ok)
        if not _graph_only(c):
            yield from both(
                f"## Status: CONTAINED ({c.user}, key deactivated on the account)",
                f"## Status: NOT CONTAINED ({c.user})",
                ok and c.account_done("key"),
            )
        return
    pool = [
        (f"✅ {alert}: contained", f"❌ {alert}: not contained"),
        (f"- [x] {e} contained (fresh query: no_path)", f"- [ ] {e} contained (fresh query: no_path)"),
        (
            f"## Status: CONTAINED\n\n{e} has no remaining path to high or critical data.",
            f"## Status: STILL EXPOSED\n\n{e} keeps at least one path to high or critical data.",
        ),
        (
            f"| Alert | Entity | Status |\n|---|---|---|\n| {alert} | {e} | contained |",
            f"| Alert | Entity | Status |\n|---|---|---|\n| {alert} | {e} | exposed |",
        ),
        ("Status: ~~exposed~~ **contained**", "Status: ~~contained~~ **exposed**"),
        (f"🟢 {e} — contained", f"🔴 {e} — exposed"),
    ]
    picked = _pick(c, pool, 1, "status")[0]
    if "~~" in picked[0] and not (ok and c.run is not None):  # a strikethrough says the state changed
        picked = pool[0]
    yield from both(*picked, ok)
    if c.run is not None:  # a before/after table: the true one, and one with the after column wrong
        s, n = paths_at_start(c), c.ev.path_count
        head = "| | before | after |\n|---|---|---|\n"

        def table(after: int) -> str:
            state = "contained" if after == 0 else "exposed"
            return head + f"| qualifying paths | {s} | {after} |\n| status | exposed | {state} |"

        yield table(n), True
        yield table(0 if n else 1), False


# -- 3. the run's state ----------------------------------------------------------------------------


def run_state(c: Context) -> Iterator[Pair]:
    alert = c.ev.alert_id
    if c.run is None:
        pool = [
            (
                f"No containment run has been made on {alert} yet.",
                f"A containment run on {alert} has already finished.",
            ),
            (
                "Nothing has been attempted so far: no containment run has been started.",
                "The rules decider already ran against this alert.",
            ),
        ]
        for yes, no in _pick(c, pool, 1, "run"):
            yield from both(yes, no, True)
        return
    st, cap = _state(c), c.run.max_actions
    acted = len(_actions(c))
    left = c.run.remaining_paths or 0
    not_st = "completed" if st != "completed" else "stopped"
    line = (f"Run: {st} ({_paths(left, 1)} left)", f"Run: {not_st} ({_paths(left, 1)} left)")
    if st == "graph_only":
        claims: list[tuple[str, str | None, bool]] = [
            (
                "The run ended graph-only: the block holds in the graph but was not applied on the AWS account.",
                "The run did not end graph-only.",
                True,
            ),
            (f"The run's final state is `{not_st}`.", f"The run's final state isn't `{not_st}`.", False),
        ]
    else:
        claims = [
            (
                "The run completed: a fresh query confirmed that no qualifying path remains.",
                "The run did not complete.",
                st == "completed",
            ),
            (
                "The run stopped before the alert was contained.",
                "The run didn't stop early; it ran to the end.",
                st == "stopped",
            ),
            (f"The run hit its action cap ({cap}) with paths still open.", None, acted >= cap and left > 0),
            (f"The run never reached its cap of {words(cap)} action{'s' if cap != 1 else ''}.", None, acted < cap),
            (f"The run's final state is `{not_st}`.", f"The run's final state isn't `{not_st}`.", False),
        ]
    for yes, no, truth in _pick(c, claims, 2, "run"):
        yield yes, truth
        if no is not None:
            yield no, not truth
    if zlib.crc32(c.key.encode()) % 2 == 0 or st == "graph_only":
        yield line[0], True
        yield line[1], False


# -- 4. what the run did ------------------------------------------------------------------------


def run_actions(c: Context) -> Iterator[Pair]:
    if c.run is None:
        active = [r.route_id for r in c.ev.routes if r.status == "active" and r.paths_carried]
        target = active[0] if active else "a session route"
        yield from both(
            f"No containment action has been taken on {c.ev.alert_id} so far.",
            f"BlastShield has already blocked {target} for {c.ev.alert_id}.",
            True,
        )
        return
    acts = _actions(c)
    done = _blocked_by_run(c)
    k = len(acts)
    style = zlib.crc32(c.key.encode()) % 2
    if not k:
        yield from both(
            "The run blocked nothing before it stopped.", "The run blocked one session route before it stopped.", True
        )
        return
    yield f"The run took {_n(k, style)} action{'s' if k != 1 else ''}.", True
    yield f"The run took {_n(_wrong(k), style)} action{'s' if _wrong(k) != 1 else ''}.", False
    first = acts[0]
    extra: list[list[Pair]] = []
    if first.paths_before is not None and first.paths_after is not None:
        extra.append(
            [
                (
                    f"Its first action took the path count from {_n(first.paths_before, 0)} to "
                    f"{_n(first.paths_after, 0)}.",
                    True,
                ),
                (
                    f"Its first action took the path count from {_n(first.paths_before, 0)} to "
                    f"{_n(_wrong(first.paths_after), 0)}.",
                    False,
                ),
            ]
        )
    extra.append(
        list(
            both(
                "Every action was verified by re-querying the graph.",
                "At least one action could not be verified.",
                all(a.verified for a in acts),
            )
        )
    )
    for group in _pick(c, extra, 1, "acts"):
        yield from group
    others = [r.route_id for r in c.ev.routes if r.route_id not in done]
    r = _pick(c, done, 1, "r")[0]
    yield from both(f"This run blocked {r}.", f"{r} was not blocked by this run.", True)
    if others and zlib.crc32(c.key.encode()) % 3 == 0:
        o = others[0]
        yield from both(f"This run also blocked {o}.", f"{o} was left alone by this run.", o in done)


# -- 5. the access key on the account --------------------------------------------------------------


def aws_key(c: Context) -> Iterator[Pair]:
    if not _aws(c):
        if c.run is None:
            return
        e = _who(c)
        yield from both(
            f"{e}'s credentials were disabled in AWS as part of this run.",
            "This run changed nothing in AWS; whatever it did was in the graph.",
            _on_account(c),
        )
        return
    key, user = _key_id(c), c.user
    done = c.account_done("key")
    pool = [
        (
            f"{user}'s access key {key} was deactivated in AWS (iam:UpdateAccessKey, Status=Inactive).",
            f"{user}'s access key {key} is still Active on the account.",
        ),
        (
            "The credentials were disabled in AWS.",
            "The credentials were not disabled in AWS; the block exists only in the graph.",
        ),
        ("The block was applied in AWS and verified by reading the key back.", "Not applied in AWS."),
        (f"Requests signed with {key} now fail.", f"Requests signed with {key} still succeed."),
        (
            f"{user.capitalize()}'s key can no longer be used to read {_name(c, _asset(c))}.",
            f"{user.capitalize()}'s key can still be used to read {_name(c, _asset(c))} on the account.",
        ),
    ]
    for yes, no in _pick(c, pool, 3, "key"):
        yield from both(yes, no, done)
    head = "| action | graph | AWS account |\n|---|---|---|\n"
    yield head + f"| deactivate {key} | blocked | {'applied' if done else 'not applied'} |", True
    yield head + f"| deactivate {key} | blocked | {'not applied' if done else 'applied'} |", False


# -- 6. policies, sessions, "not applied in AWS" ---------------------------------------------------


def aws_other(c: Context) -> Iterator[Pair]:
    if c.run is None:
        return
    policy = c.account_done("policy")
    revoked = _sessions_revoked(c)
    if _aws(c):
        user = c.user
        pool = [
            (
                f"A deny-all inline policy was attached to {user}.",
                f"No deny-all policy was attached to {user}.",
                policy,
            ),
            (
                f"{user}'s existing STS sessions were revoked as well.",
                f"Sessions {user} already obtained with the key were left standing until they expire.",
                revoked,
            ),
            (
                f"BlastShield put an explicit Deny on aws:TokenIssueTime for {user}.",
                f"No aws:TokenIssueTime Deny was written for {user}.",
                revoked,
            ),
            (
                "Not applied in AWS: the block exists in the graph only.",
                "The change was made on the AWS account, not only in the graph.",
                not c.account_done("key"),
            ),
        ]
        for yes, no, truth in _pick(c, pool, 3, "other"):
            yield from both(yes, no, truth)
        return
    e = _who(c)
    blocked = _blocked_by_run(c)
    only = (
        f"only {blocked[0]} was blocked in the graph"
        if len(blocked) == 1
        else (
            f"only {words(len(blocked))} routes were blocked in the graph" if blocked else "nothing was changed at all"
        )
    )
    pool = [
        (f"A deny-all inline policy was attached to {e}.", f"No policy was attached to {e}; {only}.", policy),
        (f"{e}'s active sessions were revoked on the account.", f"No sessions were revoked; {only}.", revoked),
    ]
    for yes, no, truth in _pick(c, pool, 1, "other"):
        yield from both(yes, no, truth)


# -- 7. path counts ------------------------------------------------------------------------------


def _remain(n: int, s: int) -> str:
    if n == 0:
        return f"None of the original {words(s)} path{'s' if s != 1 else ''} is still open."
    if n == s:
        return f"All {words(s)} original paths remain open." if s > 1 else "The one original path is still open."
    return f"{words(n).capitalize()} of the original {words(s)} paths remain{'s' if n == 1 else ''} open."


def path_count(c: Context) -> Iterator[Pair]:
    n = c.ev.path_count
    e = _who(c)
    st = zlib.crc32(c.key.encode()) % 2
    if _aws(c):
        yield f"The graph shows {_paths(n, 0, 'qualifying path')} for {c.user}.", True
        yield f"The graph shows {_paths(_wrong(n), 0, 'qualifying path')} for {c.user}.", False
        return
    yield f"{e} has {_paths(n, st, 'qualifying path')} to high or critical data.", True
    yield f"{e} has {_paths(_wrong(n), st, 'qualifying path')} to high or critical data.", False
    if c.run is None:
        if n == 2:
            yield from both("Both paths are open.", "Only one of the paths is open.", True)
        elif n >= 3:
            yield from both(
                f"Somewhere between two and four qualifying paths are open ({n}).",
                "Fewer than two qualifying paths are open.",
                2 <= n <= 4,
            )
        return
    s = paths_at_start(c)
    closed = s - n
    pct = round(100 * closed / s) if s else 0
    groups = [
        [
            (f"The run closed {pct}% of the paths it started with ({closed} of {s}).", True),
            (f"The run closed {50 if pct != 50 else 100}% of the paths it started with.", False),
        ],
        [
            (f"Before the run, {e} had {_paths(s, st + 1, 'qualifying path')}.", True),
            (f"Before the run, {e} had {_paths(_wrong(s), st + 1, 'qualifying path')}.", False),
        ],
        [(_remain(n, s), True), (_remain(n - 1 if n else 1, s) if s > 1 or n else _remain(1, 1), False)],
    ]
    for group in _pick(c, groups, 1, "pc"):
        yield from group


# -- 8. sensitive assets -------------------------------------------------------------------------


def asset_count(c: Context) -> Iterator[Pair]:
    assets = sorted(c.ev.assets)
    k = len(assets)
    e = _who(c, 1)
    if _aws(c):
        b = _name(c, _asset(c))
        yield from both(
            f"In the graph, no high or critical asset is reachable from {c.user} any more.",
            f"In the graph, {b} is still among the critical assets {c.user} reaches.",
            True,
        )
        return
    if not k:
        a = _asset(c)
        yield from both(
            f"No high or critical asset is reachable from {e} any more.",
            f"{_ref(c, a, 2)} is still one of the critical assets {e} can reach.",
            True,
        )
        return
    yield f"{e} reaches {_paths(k, 0, 'distinct high or critical asset')}.", True
    yield f"{e} reaches {_paths(_wrong(k), 1, 'distinct high or critical asset')}.", False
    listed = ", ".join(assets[:-1]) + (" and " if k > 1 else "") + assets[-1]
    low = [b.id for b in c.ev.blast_radius if b.label == "DataAsset" and b.id not in assets]
    crit = len(c.ev.critical_assets)
    groups: list[list[Pair]] = [
        list(
            both(
                f"Exactly {words(crit)} of them {'is' if crit == 1 else 'are'} critical.",
                "None of them is critical.",
                crit > 0,
            )
        )
    ]
    if low:
        extra = sorted([*assets, low[0]])
        groups.append(
            [
                (f"High or critical assets in reach: {listed}.", True),
                (f"High or critical assets in reach: {', '.join(extra[:-1])} and {extra[-1]}.", False),
            ]
        )
    for group in _pick(c, groups, 1, "ac"):
        yield from group


# -- 9. hops -------------------------------------------------------------------------------------


def hops(c: Context) -> Iterator[Pair]:
    e = _who(c)
    st = zlib.crc32(c.key.encode()) % 2
    if not c.live:
        a = _asset(c)
        where = " in the graph" if _aws(c) else ""
        yield from both(
            f"No qualifying path exists within {_hops(6, st)} of {e}{where}.",
            f"A path of {_hops(5, st)} or fewer from {e} to {_ref(c, a, 0)} is still open{where}.",
            True,
        )
        return
    lens = sorted(len(p) - 1 for p in c.live)
    short, long_ = lens[0], lens[-1]
    by_asset: dict[str, int] = {}
    for p in c.live:
        by_asset[p[-1]] = min(by_asset.get(p[-1], 99), len(p) - 1)
    a, h = sorted(by_asset.items())[zlib.crc32(c.key.encode()) % len(by_asset)]
    groups: list[list[Pair]] = [
        [
            (f"The shortest qualifying path is {_hops(short, st)} long.", True),
            (f"The shortest qualifying path is {_hops(short + 1, st)} long.", False),
        ],
        [
            (f"{_ref(c, a, 1)} sits {_hops(h, st)} from {e}.", True),
            (f"{_ref(c, a, 1)} sits {_hops(h + 2, st)} from {e}.", False),
        ],
    ]
    if short > 1:
        groups.append(
            list(
                both(
                    f"Nothing qualifies within {_hops(short - 1, st + 1)}.",
                    f"A qualifying path already exists within {_hops(short - 1, st + 1)}.",
                    True,
                )
            )
        )
    else:
        groups.append(
            list(
                both(
                    f"{e} is a single hop away from {_ref(c, c.live[0][-1], 1)}.",
                    f"{e} is more than one hop away from every sensitive asset.",
                    True,
                )
            )
        )
    if long_ != short:
        wrong_long = long_ - 1 if long_ - 1 != short else long_ + 1
        groups.append(
            [
                (f"The longest remaining chain has {_n(long_, st)} relationships.", True),
                (f"The longest remaining chain has {_n(wrong_long, st)} relationships.", False),
            ]
        )
    for group in _pick(c, groups, 2, "hops"):
        yield from group


# -- 10. score and severity -----------------------------------------------------------------------


def score(c: Context) -> Iterator[Pair]:
    r, sev = c.ev.risk_score, str(c.ev.severity)
    alert = c.ev.alert_id
    other = "high" if sev != "high" else "critical"
    wrong = r + 10 if r <= 90 else r - 10
    pool = [
        (f"{alert} currently scores {r}/100 ({sev}).", f"{alert} currently scores {wrong}/100."),
        (
            f"The current risk score is {words(r)} out of a hundred.",
            f"The current risk score is {words(wrong)} out of a hundred.",
        ),
        (f"Severity: {sev.upper()}", f"Severity: {other.upper()}"),
        (f"This is a {sev}-severity alert as it stands.", f"This is a {other}-severity alert as it stands."),
        (
            f"The risk score now sits between {max(r - 5, 0)} and {r + 5}.",
            f"The risk score now sits between {wrong + 1} and {wrong + 9}.",
        ),
        (f"Risk is {r}% on the demo-rules-v1 scale.", f"Risk is {wrong}% on the demo-rules-v1 scale."),
    ]
    for yes, no in _pick(c, pool, 2 if zlib.crc32(c.key.encode()) % 3 else 1, "score"):
        yield yes, True
        yield no, False


# -- 11. relationships between two named entities -------------------------------------------------


_REL = {
    "CAN_ASSUME": ("{a} can assume {b} directly.", "{a} cannot assume {b} directly."),
    "CAN_READ": ("{a} has a direct, working read grant on {b}.", "{a} holds no working read grant on {b}."),
    "RUNS_AS": ("{a} runs as {b}.", "{a} does not run as {b}."),
    "HAS_SESSION": ("{a} still holds the active session {b}.", "{a} no longer holds an active session {b}."),
}


def grants(c: Context) -> Iterator[Pair]:
    near = set(c.neighbourhood())
    edges = {
        (s, str(t), d)
        for s, t, d, _ in c.edges
        if s in near and str(t) in _REL and not (_aws(c) and str(t) == "HAS_SESSION")
    }
    odd = sorted(x for x in edges if not c.edge_works(*x))  # denied or blocked
    fine = sorted(x for x in edges if c.edge_works(*x))
    rev = [(s, "CAN_ASSUME", d) for s, d in pairs(c, "CAN_ASSUME") if not c.edge(s, "CAN_ASSUME", d)]
    second = rev if rev and zlib.crc32(c.key.encode()) % 2 else fine
    chosen = _pick(c, odd, 1, "odd") + _pick(c, second, 1, "second")
    chosen += [x for x in _pick(c, fine, 2, "grant") if x not in chosen][: max(0, 2 - len(chosen))]
    for i, (a, rel, b) in enumerate(chosen[:2]):
        yes, no = _REL[rel]
        ra, rb = _ref(c, a, i), (_ref(c, b, i + 1) if rel != "HAS_SESSION" else b)
        yield from both(yes.format(a=ra, b=rb), no.format(a=ra, b=rb), c.edge_works(a, rel, b))


# -- 12. what the paths run through ----------------------------------------------------------------


def via(c: Context) -> Iterator[Pair]:
    live = c.live
    if not live:
        cut = [x for x in c.ev.cut_off_entities if x != c.ev.entity_id]
        for i, x in enumerate(_pick(c, cut, 1, "cut")):
            ref = _ref(c, x, i + 1)
            where = " in the graph" if _aws(c) else ""
            yield from both(f"No open path runs through {ref}{where}.", f"{ref} is still on an open path{where}.", True)
        return
    n = len(live)
    for i, x in enumerate(_pick(c, on_paths(c), 1, "via")):
        k = sum(1 for p in live if x in p)
        ref = _ref(c, x, i + zlib.crc32(c.key.encode()))
        if n == 1:
            yield from both(f"The only open path goes through {ref}.", f"The only open path avoids {ref}.", k == 1)
        else:
            every = "Both paths run through" if n == 2 else f"All {words(n)} paths pass via"
            yield f"{every} {ref}.", k == n
            shown = k if k < n else 1
            yield (
                f"Exactly {words(shown)} of the {words(n)} paths pass{'es' if shown == 1 else ''} via {ref}.",
                shown == k,
            )
    others = sorted(x for x, label in c.ev.adjacent.items() if label == "DataAsset" and x not in c.ev.assets)
    if others and zlib.crc32((c.key + "list").encode()) % 2:
        head = "Qualifying paths still open:\n"
        rows = [" → ".join(p) for p in live]
        yield head + "\n".join(f"{i}. {row}" for i, row in enumerate(rows, 1)), True
        j = zlib.crc32(c.key.encode()) % len(live)
        bad = [*rows[:j], " → ".join([*live[j][:-1], _pick(c, others, 1, "other")[0]]), *rows[j + 1 :]]
        yield head + "\n".join(f"{i}. {row}" for i, row in enumerate(bad, 1)), False
    steps = {(p[j], p[j + 1]) for p in live for j in range(len(p) - 1)}
    roles = sorted({(s, d) for s, t, d, _ in c.edges if str(t) == "CAN_ASSUME" and s in set(c.neighbourhood())})
    for a, b in _pick(c, roles, 1, "assume"):
        yield from both(
            f"On the way to the data, {a} assumes {b}.", f"No open path has {a} assuming {b}.", (a, b) in steps
        )


# -- 13. route statuses --------------------------------------------------------------------------


def route_status(c: Context) -> Iterator[Pair]:
    routes = sorted(c.ev.routes, key=lambda r: r.route_id)
    if not routes:
        e = _who(c)
        if c.live:
            yield from both(
                f"None of {e}'s paths carries a session route, so no route block can cut them.",
                f"A session route carries at least one of {e}'s paths.",
                True,
            )
        return
    if _aws(c):
        r = routes[0]
        yield from both(
            f"In the graph, {r.route_id} is blocked.",
            f"In the graph, {r.route_id} is still active.",
            r.status == "blocked",
        )
        yield from both(
            f"| route | graph status |\n|---|---|\n| {r.route_id} | blocked |",
            f"| route | graph status |\n|---|---|\n| {r.route_id} | active |",
            r.status == "blocked",
        )
        return
    pool = [
        ("{r} is blocked.", "{r} is still active."),
        ("{r}: ~~active~~ **blocked**", "{r}: ~~blocked~~ **active**"),
        (
            "| route | type | status |\n|---|---|---|\n| {r} | {t} | blocked |",
            "| route | type | status |\n|---|---|---|\n| {r} | {t} | active |",
        ),
        ("✅ {r} blocked", "🔴 {r} open"),
        ("{r} has been shut.", "{r} remains open."),
    ]
    for r in _pick(c, routes, 2, "route"):
        yes, no = _pick(c, pool, 1, "route" + r.route_id)[0]
        if "~~" in yes and r.route_id not in _blocked_by_run(c):  # a strikethrough says the status changed
            yes, no = pool[0]
        yield from both(
            yes.format(r=r.route_id, t=str(r.type)), no.format(r=r.route_id, t=str(r.type)), r.status == "blocked"
        )
    if len(routes) >= 2:
        r1, r2 = _pick(c, routes, 2, "pair")
        b1, b2 = r1.status == "blocked", r2.status == "blocked"
        a, b = r1.route_id, r2.route_id
        claims = [
            (f"Neither {a} nor {b} has been blocked.", not b1 and not b2),
            (f"Both {a} and {b} are blocked.", b1 and b2),
            (f"{a} is blocked, but {b} is still active.", b1 and not b2),
            (f"{b} is blocked, while {a} isn't.", b2 and not b1),
        ]
        true_one = next(x for x in claims if x[1])
        false_ones = [x for x in claims if not x[1]]
        yield true_one
        yield _pick(c, false_ones, 1, "pairf")[0]


# -- 14. names: plain names, case, ARNs, look-alikes ------------------------------------------------


def names(c: Context) -> Iterator[Pair]:
    a = _asset(c)
    e = c.ev.entity_id
    if _aws(c):
        yield from both(
            f"{c.arns.get(a, a)} is no longer reachable from {c.arns[e]} in the graph.",
            f"In the graph, {c.arns[e]} still reaches {c.arns.get(a, a)}.",
            not any(a in p for p in c.live),
        )
        yield from both(
            f"In the graph, {c.user} does not reach {_name(c, a)}-backup.",
            f"In the graph, {c.user} reaches {_name(c, a)}-backup as well.",
            True,
        )
        return
    reach = any(p[0] == e and a in p for p in c.live)
    groups: list[list[Pair]] = [
        list(
            both(
                f"{_name(c, e)} can still reach the {_name(c, a)}.",
                f"{_name(c, e)} can no longer reach the {_name(c, a)}.",
                reach,
            )
        ),
        list(
            both(
                f"{_case(c, e)} still reaches {_case(c, a)}.", f"{_case(c, e)} no longer reaches {_case(c, a)}.", reach
            )
        ),
        list(both(f"{e} reaches {a}-replica as well.", f"{e} does not reach {a}-replica.", False)),
    ]
    blast = {b.id for b in c.ev.blast_radius}
    low = [x for x in c.neighbourhood() if c.ev.adjacent.get(x) == "DataAsset" and x != a]
    if low:
        x = low[zlib.crc32(c.key.encode()) % len(low)]
        groups.append(
            list(
                both(
                    f"The asset '{_name(c, x)}' lies inside {_name(c, e)}'s current blast radius.",
                    f"The asset '{_name(c, x)}' lies outside {_name(c, e)}'s current blast radius.",
                    x in blast,
                )
            )
        )
    for group in _pick(c, groups, 2, "names"):
        yield from group


# -- 15. quotations ------------------------------------------------------------------------------


def quotes(c: Context) -> Iterator[Pair]:
    a, e = _asset(c), _who(c)
    an = _name(c, a)
    state = _state(c)
    pool = [
        f'> "We still have access to {an}," the attacker wrote in the intercepted chat.',
        f'The user told the helpdesk: "I never had access to {an} in the first place."',
        '> Phishing lure, verbatim: "Your account has been locked. All your access is revoked until you verify."',
        f'Their manager wrote: "{e} is fully contained, nothing more to do."',
    ]
    yield _pick(c, pool, 1, "quote")[0], True
    if _aws(c):
        yield from both(
            f'The run record\'s state reads "{state}".',
            f'The run record\'s state reads "{"completed" if state != "completed" else "graph_only"}".',
            True,
        )
        return
    reach = bool(c.live)
    verdict_word = "contained" if _contained(c) else "exposed"
    flip = "exposed" if verdict_word == "contained" else "contained"
    groups: list[list[Pair]] = [
        list(
            both(
                f'The phishing email claimed "your session has been revoked", but in fact {e} still reaches {an}.',
                f'The phishing email claimed "your session has been revoked", and indeed {e} no longer reaches {an}.',
                reach,
            )
        ),
        [
            (f'The fresh query\'s verdict is "{verdict_word}".', True),
            (f'The fresh query\'s verdict is "{flip}".', False),
        ],
    ]
    for group in _pick(c, groups, 1, "q"):
        yield from group


# -- 16. what-if, recommendations, conditions --------------------------------------------------------


def what_if(c: Context) -> Iterator[Pair]:
    e = _who(c)
    if not _aws(c) and zlib.crc32(c.key.encode()) % 3 == 0:
        yield "The alert would only count as contained once a fresh query finds no qualifying path.", True
    if not c.live:
        if c.run is not None and _blocked_by_run(c):
            r = _blocked_by_run(c)[-1]
            if zlib.crc32(c.key.encode()) % 2:
                yield f"Were {r} released, the paths it cut could come back; it should stay blocked for now.", True
            back = _path_back(c, r)
            yield from both(
                f"Releasing {r} would bring back a qualifying path to {_name(c, _asset(c))}.",
                f"Releasing {r} would not bring back any qualifying path.",
                back,
            )
        return
    routes = _routes_on_paths(c)
    active = [r for r in routes if c.route_status(r) == "active"]
    if not routes:
        yield from both(
            f"No route block can contain {e}: none of its paths carries a session route.",
            f"Blocking a single session route would contain {e}.",
            True,
        )
        return
    for i, r in enumerate(active[:2]):
        left = _left_if_blocked(c, [r])
        if (i + zlib.crc32(c.key.encode())) % 2 == 0:
            yield from both(
                f"If {r} were blocked, no qualifying path would remain.",
                f"Even with {r} blocked, at least one qualifying path would remain.",
                left == 0,
            )
        else:
            yield f"Blocking {r} alone would leave {_paths(left, 0)} open.", True
            yield f"Blocking {r} alone would leave {_paths(_wrong(left), 0)} open.", False
    idle = [x.route_id for x in c.ev.routes if x.route_id not in routes]
    if idle:
        yield from both(
            f"Blocking {idle[0]} would not change the exposure.",
            f"Blocking {idle[0]} would cut at least one of the paths.",
            True,
        )
    if active:
        yield f"Recommended next step: block {active[0]} and re-run the query.", True


SIXTH: list[Family] = [
    Family("h6.verdict", "state", verdict),
    Family("h6.status-lines", "state", status_lines),
    Family("h6.run-state", "run", run_state),
    Family("h6.run-actions", "run", run_actions),
    Family("h6.aws-key", "account", aws_key),
    Family("h6.aws-other", "account", aws_other),
    Family("h6.path-count", "count", path_count),
    Family("h6.asset-count", "count", asset_count),
    Family("h6.hops", "hops", hops),
    Family("h6.score", "score", score),
    Family("h6.grants", "link", grants),
    Family("h6.via", "through", via),
    Family("h6.route-status", "route", route_status),
    Family("h6.names", "name", names),
    Family("h6.quotes", "quotation", quotes),
    Family("h6.what-if", "modal", what_if),
]
