"""The seventh held-out set: template families written without seeing the checker's rules.

Written from the product's documentation (README, docs/aws-live.md, docs/internals.md outside its
briefing section), the scenarios and the facts each Context carries. Every label is computed from
those facts (the fresh evidence, the run record and its actions' account fields, the graph's edges),
never written by hand. A sentence is truthful when it states a true claim, the negation of a false
one, or no claim at all (a plan, a condition, a quotation of someone else's words).

Families skip an instance when the facts do not decide it: on a run contained in the graph only
("graph_only"), plain "contained"/"reaches" claims are left out (the graph and the account disagree),
and claims about the account are made only where the run acted (or declined to act) on an account.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from tests.helpers.briefing_families import Context, Family, both, paths_at_start, words

__all__ = ["SEVENTH"]

Pair = tuple[str, bool]


# -- facts -------------------------------------------------------------------------------------
def _state(c: Context) -> str | None:
    if c.run is None:
        return None
    return str(getattr(c.run.state, "value", c.run.state))


def _graph_only(c: Context) -> bool:
    return _state(c) == "graph_only"


def _aws(c: Context) -> bool:
    return c.run is not None and any(a.aws is not None for a in c.run.actions)


def _contained(c: Context) -> bool:
    """No qualifying path on a fresh query, and no run that ended otherwise than completed."""
    return c.ev.path_count == 0 and (c.run is None or _state(c) == "completed")


def _cap_hit(c: Context) -> bool:
    return _state(c) == "stopped" and "cap" in (c.run.reason if c.run else "")


def _label(c: Context, eid: str) -> str:
    return str(c.ev.adjacent.get(eid, "")) or ("Identity" if eid == c.ev.entity_id else "")


def _assets(c: Context) -> list[str]:
    """The high/critical assets the alert reaches now or reached on paths a block cut off."""
    cut = {e for e in c.ev.cut_off_entities if _label(c, e) == "DataAsset"}
    return sorted(set(c.ev.assets) | cut)


def _hops_to(c: Context, asset: str) -> int | None:
    lengths = [len(p) - 1 for p in c.live if p[-1] == asset]
    return min(lengths) if lengths else None


def _route_edge(c: Context, route: str) -> tuple[str, str] | None:
    r = next((r for r in c.ev.routes if r.route_id == route), None)
    return (r.source, r.target) if r is not None else None


def _uses(path: list[str], edge: tuple[str, str]) -> bool:
    return any((a, b) == edge for a, b in itertools.pairwise(path))


def _unique_names(c: Context) -> dict[str, str]:
    seen: dict[str, int] = {}
    for name in c.names.values():
        seen[name.lower()] = seen.get(name.lower(), 0) + 1
    return {i: n for i, n in c.names.items() if seen[n.lower()] == 1 and n.lower() != i.lower()}


def _alias(c: Context, eid: str, n: int) -> str:
    """The entity by graph id, plain name, upper-case id or ARN, in turn."""
    plain = _unique_names(c).get(eid)
    arn = c.arns.get(eid) if c.arns.get(eid, "").startswith("arn:aws:s3") else None
    forms = [eid, plain or eid, eid.upper() if not eid.startswith("1") else eid, arn or plain or eid]
    return forms[n % len(forms)]


def _n_paths(n: int, digits: bool = False) -> str:
    num = str(n) if digits else words(n)
    return f"{num} qualifying path" + ("" if n == 1 else "s")


def _other(n: int, k: int = 1) -> int:
    return n + k if n - k < 0 or k % 2 else n - k


# -- families ----------------------------------------------------------------------------------
def _state_prose(c: Context) -> Iterator[Pair]:
    if _graph_only(c):
        return
    ok = _contained(c)
    ent = c.ev.entity_id
    yield from both(
        f"{ent} has been contained: a fresh query found no qualifying path.",
        f"{ent} isn't contained yet, since qualifying paths are still open.",
        ok,
    )
    if not _aws(c):
        yield ("We've successfully contained this alert and nothing critical is reachable any more.", ok)
    else:
        yield ("At this point the alert can't be called contained.", not ok)
    for i, asset in enumerate(_assets(c)[:1] if not _aws(c) else []):
        reach = any(p[-1] == asset for p in c.live)
        yield from both(
            f"{_alias(c, ent, i)} can still get to {_alias(c, asset, i + 1)}.",
            f"{_alias(c, ent, i)} can't reach {_alias(c, asset, i + 1)} anymore.",
            reach,
        )


_VERDICTS = {
    "completed": "completed",
    "stopped": "stopped without containing the alert",
    "graph_only": "ended graph_only, planned in the graph but not applied on the account",
    "failed": "failed",
}


def _run_verdict(c: Context) -> Iterator[Pair]:
    st = _state(c)
    if st is None:
        yield ("No containment run has been made on this alert yet.", True)
        yield ("The containment run for this alert has completed.", False)
        if len(c.key) % 2 == 0:
            yield ("Containment was attempted earlier but stopped at its action cap.", False)
        return
    others = [s for s in ("completed", "stopped", "graph_only") if s != st]
    yield (f"## Verdict: {st}", True)
    yield (f"The containment run {_VERDICTS[st]}.", True)
    yield (f"The containment run {_VERDICTS[others[len(c.key) % 2]]}.", False)
    yield from both(
        "The run stopped because it reached its action cap.",
        "The action cap was not what ended the run.",
        _cap_hit(c),
    )


def _run_actions(c: Context) -> Iterator[Pair]:
    if c.run is None:
        return
    done = [a.route_id for a in c.run.actions if a.status == "applied"]
    k = len(c.run.actions)
    yield (f"The run took {words(k)} action{'s' if k != 1 else ''} in total.", True)
    yield (f"In total the run took {_other(k)} action{'s' if _other(k) != 1 else ''}.", False)
    for r in sorted(r.route_id for r in c.ev.routes)[:2]:
        if _graph_only(c) and r in done:
            yield (f"The run blocked {r} in the graph.", True)
            continue
        yield from both(f"The run blocked `{r}`.", f"`{r}` was not touched by the run.", r in done)
    if c.run.decider and not c.run.actions:
        cap = c.run.max_actions
        yield (f"Decider: {c.run.decider}, with a cap of {words(cap)} action{'s' if cap != 1 else ''}.", True)


def _count_remaining(c: Context) -> Iterator[Pair]:
    if _graph_only(c):
        return
    n = c.ev.path_count
    wrong = _other(n)
    if n == 0:
        yield ("No qualifying path remains.", True)
        yield ("One qualifying path is still open.", False)
    else:
        verb = "remains" if n == 1 else "remain"
        yield (f"{_n_paths(n).capitalize()} {verb} open.", True)
        yield (f"{_n_paths(wrong).capitalize()} {'remains' if wrong == 1 else 'remain'} open.", False)
    for k, truth in ((n, True), (_other(n, 2), False)):
        are = "is" if k == 1 else "are"
        yield (
            f"There {are} {k} open path{'s' if k != 1 else ''} left from {c.ev.entity_id} to high or critical data.",
            truth,
        )


def _count_ratio(c: Context) -> Iterator[Pair]:
    if c.run is None or _graph_only(c):
        return
    start, now = paths_at_start(c), c.ev.path_count
    if start == 0:
        return
    cut = start - now
    pct = round(100 * cut / start)
    wrong_cut = cut - 1 if cut > 0 else cut + 1
    if start > 1:
        yield (f"The run cut {words(cut)} of the {words(start)} paths it started with.", True)
        yield (f"The run cut {words(wrong_cut)} of the {words(start)} paths it started with.", False)
    yield (f"{pct}% of the original paths were closed.", True)
    wrong_pct = 100 - pct if pct != 50 else 0
    if wrong_pct == pct:
        wrong_pct = 50
    yield (f"{wrong_pct}% of the original paths were closed.", False)
    lo = max(0, pct - 10)
    lo = min(lo, 80)
    yield (f"Between {lo} and {lo + 20} percent of the starting paths were severed.", True)
    flo = 60 if pct < 50 else 10
    yield (f"Between {flo} and {flo + 20} percent of the starting paths were severed.", False)


def _hops(c: Context) -> Iterator[Pair]:
    if not c.live:
        return
    h = min(len(p) - 1 for p in c.live)
    wrong = h + 1 if h < 3 else h - 1
    yield (f"The shortest qualifying path is {words(h)} hop{'s' if h != 1 else ''} long.", True)
    yield (f"The shortest qualifying path is {wrong} hop{'s' if wrong != 1 else ''} long.", False)
    for i, asset in enumerate(_assets(c)[len(c.key) % 2 :][:1]):
        d = _hops_to(c, asset)
        if d is None:
            continue
        w = d + 2 if d < 3 else d - 1
        yield (f"{_alias(c, asset, i + 1)} sits {words(d)} hop{'s' if d != 1 else ''} from {c.ev.entity_id}.", True)
        yield (f"{_alias(c, asset, i + 1)} is only {w} hop{'s' if w != 1 else ''} away from {c.ev.entity_id}.", False)


_BANDS = [(0, 29, "low"), (30, 59, "medium"), (60, 79, "high"), (80, 100, "critical")]


def _band(score: int) -> str:
    return next(b for lo, hi, b in _BANDS if lo <= score <= hi)


def _score(c: Context) -> Iterator[Pair]:
    if _graph_only(c):
        return
    s = int(c.ev.risk_score)
    band = str(c.ev.severity)
    wrong = s + 15 if s <= 70 else s - 25
    yield (f"Current risk score: {s}/100 ({band}).", True)
    yield (f"Current risk score: {wrong}/100 ({_band(wrong)}).", False)
    other_band = next(b for _, _, b in _BANDS if b != band and b != _band(s))
    if len(c.key) % 2:
        yield (f"The alert currently rates as {band} severity.", True)
        yield (f"The alert does not currently rate as {band} severity.", False)
    else:
        yield (f"Right now this is a {band}-severity alert.", True)
        yield (f"Right now this is a {other_band}-severity alert.", False)
    if len(c.key) % 2:
        return
    lo = s - s % 10
    yield (f"The current score is somewhere between {lo} and {lo + 10}.", True)
    flo = lo + 30 if lo + 40 <= 100 else lo - 40
    yield (f"The current score is somewhere between {flo} and {flo + 10}.", False)


def _route_rows(c: Context) -> Iterator[Pair]:
    if _graph_only(c):
        return
    routes = sorted(c.ev.routes, key=lambda r: r.route_id)
    for r in routes[:2]:
        blocked = r.status == "blocked"
        st, other = ("blocked", "active") if blocked else ("active", "blocked")
        yield (f"| route | status |\n|---|---|\n| {r.route_id} | {st} |", True)
        yield (f"| route | status |\n|---|---|\n| {r.route_id} | {other} |", False)
    for r in routes[-2:]:
        blocked = r.status == "blocked"
        yield (f"`{r.route_id}`: ~~active~~ **blocked**", blocked)
        yield (f"- [x] {r.route_id} blocked", blocked)
    active = [r.route_id for r in routes if r.status == "active"]
    blocked_ = [r.route_id for r in routes if r.status == "blocked"]
    if len(active) >= 2:
        yield (f"Neither {active[0]} nor {active[1]} has been blocked.", True)
    if len(blocked_) >= 2:
        yield (f"Neither {blocked_[0]} nor {blocked_[1]} has been blocked.", False)
    if active and blocked_:
        yield (f"Both {active[0]} and {blocked_[0]} are blocked now.", False)


_LINK = {
    "CAN_ASSUME": ("{a} can assume {b} directly.", "{a} is not able to assume {b}."),
    "CAN_READ": ("{a} is allowed to read {b} directly.", "{a} has no direct, working read grant on {b}."),
    "RUNS_AS": ("{a} runs as {b}.", "{a} doesn't run as {b}."),
}


def _links(c: Context) -> Iterator[Pair]:
    if _aws(c):
        return
    for rel, (pos, neg) in _LINK.items():
        for i, (a, b) in enumerate(pairs_(c, rel)[:2]):
            ok = c.edge_works(a, rel, b)
            yield (pos.format(a=a, b=b), ok) if i % 2 == 0 else (neg.format(a=a, b=b), not ok)


_KINDS = {
    "CAN_ASSUME": ("IAMRole", "IAMRole"),
    "CAN_READ": ("IAMRole", "DataAsset"),
    "RUNS_AS": ("Workload", "IAMRole"),
}


def pairs_(c: Context, rel: str) -> list[tuple[str, str]]:
    """Pairs of entities near the alert, of the kinds `rel` joins: a broken relationship of `rel` (denied or
    blocked) if any, a working one, and a pair of the right kinds with no relationship at all."""
    near = set(c.neighbourhood()) | set(c.ev.adjacent) | {c.ev.entity_id}
    found = sorted({(s, d) for s, t, d, _ in c.edges if t == rel and s in near and d in near})
    src, dst = _KINDS[rel]
    none = sorted(
        (a, b)
        for a in near
        for b in near
        if a != b and _label(c, a) == src and _label(c, b) == dst and not c.edge(a, rel, b)
    )
    works = [p for p in found if c.edge_works(p[0], rel, p[1])]
    broken = [p for p in found if not c.edge_works(p[0], rel, p[1])]
    return (broken[:1] + works[:1] + none[:1])[:2] if broken else works[:1] + none[:1]


def _through(c: Context) -> Iterator[Pair]:
    live = c.live
    if not live or _graph_only(c):
        return
    inner = sorted({n for p in live for n in p[1:-1]})
    extra = sorted(n for n in c.ev.cut_off_entities if n not in inner)[:1]
    anywhere = {n for p in live for n in p}
    adj = sorted(n for n in c.ev.adjacent if n not in anywhere and n not in extra)[:1]
    n = len(live)
    for i, z in enumerate((inner[:2] + extra + adj)[:3]):
        every = all(z in p for p in live)
        none = all(z not in p for p in live)
        if n == 1:
            yield (f"The open path goes through {_alias(c, z, i)}.", every)
        elif n == 2:
            yield (f"Both paths run through {_alias(c, z, i)}.", every)
        else:
            yield (f"All {words(n)} remaining paths pass through {_alias(c, z, i)}.", every)
        if every or none:
            yield (f"None of the open paths touches {_alias(c, z, i + 1)}.", none)
        else:
            yield (f"Some, but not all, of the open paths run through {_alias(c, z, i + 1)}.", True)


def _name_reach(c: Context) -> Iterator[Pair]:
    if _graph_only(c) or _aws(c):
        return
    ent = c.ev.entity_id
    templates = [
        ("{e} still has a qualifying path to {t}.", True),
        ("A qualifying path from {e} still leads to {t}.", True),
        ("{t} remains reachable from {e}.", True),
        ("{e} no longer reaches {t}.", False),
    ]
    for i, t in enumerate(_assets(c)[:2]):
        tmpl, positive = templates[i % 4]
        ok = reaches(c, ent, t)
        yield (tmpl.format(e=_alias(c, ent, i), t=_alias(c, t, i + 1)), ok if positive else not ok)
        yield (templates[3][0].format(e=_alias(c, ent, i + 2), t=_alias(c, t, i)), not ok)
    inner = sorted({n for p in c.live for n in p[1:-1]})
    cut = sorted(n for n in c.ev.cut_off_entities if _label(c, n) in ("IAMRole", "Workload") and n not in inner)
    assets = _assets(c)
    for i, m in enumerate((inner[:1] + cut[:1] + inner[1:2])[:2]):
        for a in assets[:1]:
            ok = any(ent in p and m in p and a in p and p.index(ent) < p.index(m) < p.index(a) for p in c.live)
            yield (
                f"On the way to {_alias(c, a, i)}, {_alias(c, ent, i + 1)} passes through {_alias(c, m, i + 1)}.",
                ok,
            )


def reaches(c: Context, a: str, b: str) -> bool:
    return any(a in p and b in p and p.index(a) < p.index(b) for p in c.live)


def _account(c: Context) -> Iterator[Pair]:
    if not _aws(c) or c.run is None:
        return
    user = c.user
    key_done = c.account_done("key")
    policy_done = c.account_done("policy")
    revoked = any(
        a.operation in ("revoke_role_sessions", "revoke_user_sessions") and a.api_verified is True
        for a in c.run.actions
    )
    not_applied = any(a.aws is not None and not a.aws.applied_in_aws for a in c.run.actions)
    key_id = next(
        (a.aws.plan.calls[0].params.get("AccessKeyId", "") for a in c.run.actions if a.aws and a.aws.plan.calls), ""
    )
    yield from both(
        f"{user}'s access key was deactivated in AWS.",
        f"{user}'s access key has not been deactivated on the AWS account.",
        key_done,
    )
    if key_id:
        yield (f"✅ AWS: access key {key_id} set to Inactive (verified)", key_done)
    yield from both(
        f"A deny-all inline policy was attached to {user}.",
        f"No deny-all policy was put on {user}.",
        policy_done,
    )
    yield (f"{user}'s active sessions were revoked on the account.", revoked)
    yield from both(
        f"The block was not applied in AWS, so {user}'s credentials still work there.",
        f"The block was applied in AWS and {user}'s key no longer works.",
        not_applied,
    )
    yield (
        "| action | applied in AWS |\n|---|---|\n| deactivate access key | " + ("yes" if key_done else "no") + " |",
        True,
    )
    yield (
        "| action | applied in AWS |\n|---|---|\n| deactivate access key | " + ("no" if key_done else "yes") + " |",
        False,
    )


def _modal(c: Context) -> Iterator[Pair]:
    n = c.ev.path_count
    if _state(c) != "completed":
        yield ("The run would count as completed only after a fresh query finds no qualifying path.", True)
    if not _graph_only(c) and n == 0:
        yield ("If anything reappears we'll contain it again; for now no qualifying path is open.", True)
        yield ("If anything reappears we'll contain it again; for now one qualifying path is open.", False)
    elif not _graph_only(c):
        yield (
            f"Should the analyst approve, we'll block the next route; for now {_n_paths(n, True)} "
            f"{'is' if n == 1 else 'are'} open.",
            True,
        )
        m = _other(n)
        yield (
            f"Should the analyst approve, we'll block the next route; for now {_n_paths(m, True)} "
            f"{'is' if m == 1 else 'are'} open.",
            False,
        )
    live = c.live
    for r in sorted(c.ev.routes, key=lambda r: r.route_id)[:3]:
        if r.status != "active" or not live:
            continue
        edge = _route_edge(c, r.route_id)
        if edge is None:
            continue
        cuts_all = all(_uses(p, edge) for p in live)
        yield from both(
            f"Blocking {r.route_id} alone would cut every remaining path.",
            f"Even with {r.route_id} blocked, at least one qualifying path would remain.",
            cuts_all,
        )
    if live and len(c.key) % 2:
        yield (f"If {c.ev.entity_id}'s sessions were revoked, the paths might still stay open.", True)


def _quotation(c: Context) -> Iterator[Pair]:
    if len(c.key) % 2:
        quote = '"Your account has been fully secured and contained, no action needed."'
        yield (f"> {quote} — the phishing email sent to the on-call team", True)
    else:
        yield ('The user told the helpdesk: "I have never had access to any production data."', True)
    if not _graph_only(c):
        n = c.ev.path_count
        if n == 0:
            yield ('The ticket says "paths are still open", but in fact no qualifying path remains.', True)
            yield ('The ticket says "paths are still open", and indeed two qualifying paths are still open.', False)
        else:
            are = "is" if n == 1 else "are"
            yield (
                f'The vendor\'s ticket says "all routes are blocked", but {_n_paths(n)} {are} in fact still open.',
                True,
            )
            yield ('The vendor\'s ticket says "some routes are open", but in fact no qualifying path remains.', False)
        yield from both(
            'The fresh query\'s verdict is "contained".',
            'The fresh query\'s verdict is "not contained".',
            _contained(c),
        )


def _status_lines(c: Context) -> Iterator[Pair]:
    st = _state(c)
    if _graph_only(c):
        yield ("🟠 Planned in the graph only — not applied in AWS", True)
        yield ("✅ Contained on the AWS account", c.account_done("key") or c.account_done("policy"))
        yield ("- [x] Credentials disabled in AWS", c.account_done("key") or c.account_done("policy"))
        return
    ok = _contained(c)
    n = c.ev.path_count
    yield ("✅ Contained", ok)
    yield (f"❌ Not contained — {n} path{'s' if n != 1 else ''} open", not ok)
    yield ("- [x] All qualifying paths severed", ok)
    if st is not None:
        yield ("⚠️ Stopped (action cap reached)", _cap_hit(c))
        if _cap_hit(c):
            yield ("✅ Contained (cap reached)", False)
    if _aws(c):
        yield ("🟠 Planned in the graph only — not applied in AWS", False)


SEVENTH: list[Family] = [
    Family("h7.state.prose", "state", _state_prose),
    Family("h7.state.status-lines", "state", _status_lines),
    Family("h7.run.verdict", "run", _run_verdict),
    Family("h7.run.actions", "run", _run_actions),
    Family("h7.count.remaining", "count", _count_remaining),
    Family("h7.count.ratio", "count", _count_ratio),
    Family("h7.hops.shortest", "hops", _hops),
    Family("h7.score.current", "score", _score),
    Family("h7.route.rows", "route", _route_rows),
    Family("h7.link.grants", "link", _links),
    Family("h7.through.paths", "through", _through),
    Family("h7.name.reach", "name", _name_reach),
    Family("h7.account.effects", "account", _account),
    Family("h7.modal.hypotheticals", "modal", _modal),
    Family("h7.quotation.third-party", "quotation", _quotation),
]
