"""The thirteenth held-out set (h13.*): on-call handover and incident-timeline wording, written blind.

Written without reading the briefing checker, its documentation or any earlier family module, only
from the facts the product records (tests/helpers/briefing_families.py's Context, the seed scenarios,
the run records). Every label is computed from the Context: the fresh evidence (`c.ev`: paths, routes,
containment state, score, cut-off entities), the run record (`c.run`: state, actions and their account
fields), the graph's relationships (`c.edges`) and names (`c.names`, `c.arns`). Nothing is hand-labelled.

Style: what a tired on-call analyst writes at a shift change: timestamped timeline lines
("09:14 UTC - route-x blocked"), "for the next shift:" notes, a remediation checklist, terse verbless
fragments ("key: inactive; sessions: not revoked", "paths 3 -> 1"), comparisons with the start of the
incident, lower-case ids, names, ARNs and upper-case ids, emoji status lines, markdown tables.

Conventions (kept by every family):
- A hedged claim ("probably X", "I think X", "looks like X") claims X.
- A quotation of a third party (a user, a manager, a phishing mail) claims nothing; the writer's own
  words around it do.
- A question claims nothing; its answer does ("Q: is X blocked? A: no" claims X is not blocked).
- A checklist item "[x] X" claims X was done; "[ ] X" claims X was not done (yet).
- A plan ("next: block R", "todo: ...") claims nothing of its own.
- A conditional or hypothetical ("if R were blocked, N paths would remain") claims only the
  counterfactual it states, computed from the current qualifying paths.
- A run that ended `graph_only` is never called contained on the account: claims about it say
  "in the graph" or "in AWS" explicitly, and a bare "contained" is not written for it.
- Account claims (key deactivated, deny-all policy attached, sessions revoked, "not applied in AWS")
  are written only for the AWS contexts, and decided by the run's actions (`account_done`, the
  actions' `aws.applied_in_aws`, and the revocation operations).
"""

from __future__ import annotations

from collections.abc import Iterable

from tests.helpers.briefing_families import Context, Family, both, on_paths, pairs, paths_at_start, reaches, words

__all__ = ["THIRTEENTH"]

Pair = tuple[str, bool]


# -- facts ---------------------------------------------------------------------------------------
def _ts(i: int) -> str:
    return f"{9 + (i // 4) % 9:02d}:{(7 + 13 * i) % 60:02d} UTC"


def _state(c: Context) -> str:
    return str(getattr(c.ev.containment_state, "value", c.ev.containment_state))


def _run_state(c: Context) -> str | None:
    if c.run is None:
        return None
    return str(getattr(c.run.state, "value", c.run.state))


def _graph_only(c: Context) -> bool:
    return _run_state(c) == "graph_only"


def _is_aws(c: Context) -> bool:
    return bool(c.arns)


def _run_blocked(c: Context) -> list[str]:
    """Routes this run blocked (applied route blocks)."""
    if c.run is None:
        return []
    return [a.route_id for a in c.run.actions if a.operation == "block_route" and a.status == "applied"]


def _revoked(c: Context) -> bool:
    if c.run is None:
        return False
    return any(a.operation.startswith("revoke") and a.status == "applied" for a in c.run.actions)


def _applied_in_aws(c: Context) -> bool:
    if c.run is None:
        return False
    return any(a.aws is not None and a.aws.applied_in_aws is True for a in c.run.actions)


def _start_data(c: Context) -> dict:
    if c.run is None:
        return {}
    step = next((s for s in c.run.steps if s.kind == "investigate"), None)
    return dict(step.data) if step is not None else {}


def _start_score(c: Context) -> int:
    return int(_start_data(c).get("risk_score", c.ev.risk_score))


def _start_band(c: Context) -> str:
    return str(_start_data(c).get("severity", c.ev.severity))


def _band(score: int) -> str:
    return "low" if score < 30 else "medium" if score < 60 else "high" if score < 80 else "critical"


def _route_edge(c: Context, route: str) -> tuple[str, str]:
    r = next(r for r in c.ev.routes if r.route_id == route)
    return r.source, r.target


def _uses(path: list[str], a: str, b: str) -> bool:
    return any(path[i] == a and path[i + 1] == b for i in range(len(path) - 1))


def _remaining_without(c: Context, a: str, b: str) -> int:
    return sum(1 for p in c.live if not _uses(p, a, b))


def _routes_tracked(c: Context) -> list[tuple[str, str]]:
    """(route, status) for routes still active or blocked by this run; routes blocked before it are left out."""
    mine = set(_run_blocked(c))
    out = []
    for r in c.ev.routes:
        status = str(r.status)
        if status == "active" or r.route_id in mine:
            out.append((r.route_id, status))
    return out


def _ref(c: Context, ident: str, n: int) -> str:
    """An entity by its graph id, its plain name, its ARN or its id in another case, in turn."""
    choice = n % 4
    if choice == 1 and c.names.get(ident) and c.names[ident] != ident:
        return c.names[ident]
    if choice == 2 and ident in c.arns and ident.endswith(("bucket:crown-jewels", "user:alice")):
        return c.arns[ident]
    if choice == 3:
        return ident.upper() if n % 8 == 3 else ident.capitalize()
    return ident


def _alert(c: Context, n: int = 0) -> str:
    a = c.ev.alert_id
    return a.lower() if n % 3 == 1 and a.startswith("BH-") else a


def _num(n: int, i: int) -> str:
    return words(n) if i % 2 else str(n)


def _interleave(*groups: Iterable[Pair]) -> list[Pair]:
    lists = [list(g) for g in groups]
    out: list[Pair] = []
    i = 0
    while any(i < len(g) for g in lists):
        for g in lists:
            if i < len(g):
                out.append(g[i])
        i += 1
    return out


# -- selection -----------------------------------------------------------------------------------
# A family builds "units": a claim with its negation (`both`), or a single sentence that claims nothing
# of its own (a plan, a quotation). Each context keeps a few units, chosen from a start that depends on
# the context, so that contexts of the same shape show different wordings.
Unit = list[Pair]


def _pick(c: Context, units: list[Unit], k: int) -> list[Pair]:
    units = [u for u in units if u]
    if not units:
        return []
    start = sum(map(ord, c.key)) % len(units)
    chosen = [units[(start + i) % len(units)] for i in range(min(k, len(units)))]
    return [pair for u in chosen for pair in u]


def _family(name: str, kind: str, k: int, build) -> Family:
    return Family(name, kind, lambda c: _pick(c, build(c), k))


def _where(c: Context) -> str:
    """ " in the graph" for the AWS contexts, where the graph and the account may differ."""
    return " in the graph" if _is_aws(c) else ""


# -- families ------------------------------------------------------------------------------------
def timeline_routes(c: Context) -> list[Unit]:
    """Timestamped timeline lines about routes, and neither/nor and both over two routes."""
    out: list[Unit] = []
    tracked = _routes_tracked(c)
    for i, (r, status) in enumerate(tracked[:4]):
        t = _ts(i)
        blocked = status == "blocked"
        if _is_aws(c):
            out.append(both(f"{t} - {r} blocked in the graph", f"{t} - {r} still open in the graph", blocked))
        elif i % 2 == 0:
            out.append(both(f"{t} - {r} blocked", f"{t} - {r} still active, nobody has touched it", blocked))
        else:
            out.append(both(f"{t}: {r} -> blocked.", f"{t}: {r} remains open (not blocked).", blocked))
    if len(tracked) >= 2 and not _is_aws(c):
        (r1, s1), (r2, s2) = tracked[0], tracked[1]
        none_blocked = s1 != "blocked" and s2 != "blocked"
        all_blocked = s1 == "blocked" and s2 == "blocked"
        out.append([(f"{_ts(5)} - neither {r1} nor {r2} has been blocked yet", none_blocked)])
        out.append([(f"{_ts(6)} - both {r1} and {r2} are blocked now", all_blocked)])
    return out


def checklist(c: Context) -> list[Unit]:
    """A remediation checklist: "[x] X" claims X was done, "[ ] X" claims it was not done yet."""
    out: list[Unit] = []
    no_path = str(c.ev.status) == "no_path"
    if _is_aws(c):
        u = c.user
        out.append(
            both(
                f"[x] deactivate {u}'s access key in AWS",
                f"[ ] deactivate {u}'s access key in AWS",
                c.account_done("key"),
            )
        )
        out.append(
            both(
                f"[x] attach the deny-all inline policy to {u}",
                f"[ ] attach deny-all inline policy to {u}",
                c.account_done("policy"),
            )
        )
        out.append(
            both(f"[x] revoke {u}'s already-issued sessions", f"[ ] revoke sessions {u} already obtained", _revoked(c))
        )
        out.append(
            both(
                "[x] fresh query: no qualifying path in the graph",
                "[ ] fresh query: no qualifying path in the graph",
                no_path,
            )
        )
        out.append([(f"[ ] next: confirm with {u}'s team before any release", True)])  # a plan
        return out
    for i, (r, status) in enumerate(_routes_tracked(c)[:3]):
        done = status == "blocked"
        if i % 2 == 0:
            out.append(both(f"[x] block {r}", f"[ ] block {r}", done))
        else:
            out.append(both(f"- [x] {r} blocked", f"- [ ] {r} blocked", done))
    a = _alert(c, 1)
    out.append(
        both(f"[x] re-query {a}: no qualifying path left", f"[ ] re-query {a}: no qualifying path left", no_path)
    )
    out.append([(f"[ ] next: write the post-incident note for {_alert(c)}", True)])  # a plan: claims nothing
    return out


def handover(c: Context) -> list[Unit]:
    """Shift-change notes about the containment state."""
    out: list[Unit] = []
    a = _alert(c)
    n = c.ev.path_count
    if _graph_only(c):
        key = c.account_done("key")
        out.append(
            both(
                f"for the next shift: {c.user} is contained in the graph only; the key still works in AWS",
                f"for the next shift: {c.user} is contained on the account too, the key is dead in AWS",
                not key,
            )
        )
        out.append(
            both(
                f"handover - {c.user}: no qualifying path in the graph, but nothing applied in AWS",
                f"handover - {c.user}: change applied in AWS as well as in the graph",
                not _applied_in_aws(c),
            )
        )
        return out
    if _is_aws(c):
        a = c.user
    contained = _state(c) == "contained"
    out.append(
        both(
            f"for the next shift: {a} is contained, nothing left open",
            f"for the next shift: {a} is NOT contained, keep it open",
            contained,
        )
    )
    out.append(
        both(
            f"shift change, {_alert(c, 1)}: done, no qualifying paths remain",
            f"shift change, {_alert(c, 1)}: still exposed, do not close",
            contained,
        )
    )
    if n:
        out.append(
            both(
                f"next shift pls watch {a.lower()} - {_num(n, 1)} open path(s), still exposed",
                f"next shift can ignore {a.lower()}, it's been contained",
                not contained,
            )
        )
    else:
        out.append(
            both(
                f"handing over {a} as contained (fresh query came back empty)",
                f"handing over {a} as still exposed",
                contained,
            )
        )
    return out


def verdict(c: Context) -> list[Unit]:
    """The run's verdict in terse and full form, against the other states."""
    out: list[Unit] = []
    a = _alert(c)
    st = _run_state(c)
    if st is None:
        out.append(both(f"run on {a}: none yet", f"run on {a}: completed", True))
        out.append(
            both(f"no containment run has been started for {a}", f"the containment run on {a} stopped at the cap", True)
        )
        out.append(both(f"{a}: nothing blocked by us so far (no run)", f"{a}: run finished, verdict contained", True))
        return out
    assert c.run is not None
    out.append(both(f"{a} - containment run stopped", f"{a} - containment run did not stop", st == "stopped"))
    out.append(
        both(
            f"verdict for {a}: completed (fresh no_path, all actions verified)",
            f"the run on {a} has not completed",
            st == "completed",
        )
    )
    out.append([(f"run on {a}: none yet", False)])
    if st == "stopped":
        capped = "action cap" in c.run.reason
        out.append(
            both(f"the run hit its action cap ({c.run.max_actions})", "the cap was not what stopped the run", capped)
        )
    k = len(c.run.actions)
    out.append(both(f"run took {_num(k, k)} action(s)", f"run took {_num(k + 1, k)} action(s)", True))
    if _is_aws(c):
        out.append(
            both(
                "verdict: graph_only - blocked in the graph, not applied in AWS",
                "verdict is not graph_only; the change reached AWS",
                st == "graph_only",
            )
        )
    return out


def delta(c: Context) -> list[Unit]:
    """Path counts compared with the start: 'paths 3 -> 1', in digits and words, and two pages of one alert."""
    out: list[Unit] = []
    s, n = paths_at_start(c), c.ev.path_count
    wrong = n + 1 if n == 0 or n + 1 != s else n + 2
    w = _where(c)
    a = _alert(c, 1)
    if c.run is None:
        out.append(both(f"paths: {n} (unchanged since the page)", f"paths: {wrong} (unchanged since the page)", True))
        out.append(
            both(
                f"no change since the first page: still {_num(n, n)} path(s)",
                f"{_num(1, 1)} path(s) fewer than at the start",
                True,
            )
        )
        out.append(both(f"open paths now: {_num(n, 0)}", f"open paths now: {_num(wrong, 1)}", True))
        return out
    out.append(both(f"paths {s} -> {n}{w}", f"paths {s} -> {wrong}{w}", True))
    out.append(
        both(
            f"qualifying paths{w} went from {words(s)} to {words(n)}",
            f"qualifying paths{w} went from {words(s)} to {words(wrong)}",
            True,
        )
    )
    if s == n:
        out.append(
            both(f"same path count as at the start ({s})", f"{_num(1, s)} path(s) fewer than at the start", True)
        )
    else:
        out.append(
            both(
                f"{_num(s - n, s)} path(s) fewer than at the start{w}",
                f"same path count as at the start ({s}){w}",
                True,
            )
        )
    if s and s != n:
        pct = round(100 * (s - n) / s)
        out.append(both(f"paths down {pct}% since the start{w}", f"paths down {pct // 2}% since the start{w}", True))
    out.append(
        both(
            f"{_ts(0)} first page on {a}: {s} path(s). {_ts(9)} same alert re-checked: {n}{w}.",
            f"{_ts(0)} first page on {a}: {s} path(s). {_ts(9)} same alert re-checked: {wrong}{w}.",
            True,
        )
    )
    return out


def hops(c: Context) -> list[Unit]:
    """Hop counts of the open paths: shortest, longest, per asset."""
    out: list[Unit] = []
    if not c.ev.paths:
        return out
    hs = [p.hops for p in c.ev.paths]
    lo, hi = min(hs), max(hs)
    out.append(both(f"shortest path: {lo} hop(s)", f"shortest path: {lo + 1} hops", True))
    out.append(both(f"longest open chain is {words(hi)} hops", f"longest open chain is {words(hi + 2)} hops", True))
    for i, asset in enumerate(c.ev.assets[:3]):
        h = min(p.hops for p in c.ev.paths if p.nodes[-1] == asset)
        ref = _ref(c, asset, i)
        ent = _ref(c, c.ev.entity_id, i + 1)
        if i % 2:
            out.append(both(f"{ref}: {words(h)} hop(s) from {ent}", f"{ref}: {words(h + 1)} hops from {ent}", True))
        else:
            out.append(
                both(
                    f"{ref} is {h} hop(s) away from {ent} at the shortest",
                    f"{ref} is only {h - 1 if h > 1 else h + 2} hop(s) away from {ent}",
                    True,
                )
            )
    if len(hs) >= 2:
        short = sum(1 for h in hs if h <= 2)
        out.append(
            both(
                f"{_num(short, 1)} of the {len(hs)} open paths are 2 hops or shorter",
                f"{_num(short + 1, 1)} of the {len(hs)} open paths are 2 hops or shorter",
                True,
            )
        )
    return out


def scores(c: Context) -> list[Unit]:
    """Score and band, now and compared with the start."""
    out: list[Unit] = []
    if _graph_only(c):
        return out  # what the score means on a graph-only run is not decided here
    s, b = c.ev.risk_score, str(c.ev.severity)
    s0, b0 = _start_score(c), _start_band(c)
    a = _alert(c, 1)
    other = s + 10 if s <= 90 else s - 10
    out.append(both(f"{a} risk {s}/100 ({b})", f"{a} risk {other}/100 ({_band(other)})", True))
    other_band = "high" if b != "high" else "medium"
    out.append(both(f"band: {b}", f"band: {other_band}", True))
    out.append(both(f"score {words(s)}", f"score {words(other)}", True))
    if s0 != s:
        out.append(both(f"score {s0} -> {s}", f"score {s0} -> {other}", True))
        out.append(both(f"risk dropped from {b0} to {b}", f"risk still {b0} like at the start", b0 != b))
    else:
        out.append(both(f"score unchanged since the first page ({s0})", f"score moved from {s0} to {other}", True))
    return out


def aws_fragments(c: Context) -> list[Unit]:
    """Terse account fragments for the AWS contexts."""
    if not _is_aws(c):
        return []
    out: list[Unit] = []
    u = c.user
    arn = next((v for k, v in c.arns.items() if k.endswith(f":user:{u}")), u)
    key, pol, rev = c.account_done("key"), c.account_done("policy"), _revoked(c)
    out.append(
        both(f"{u} key: inactive in AWS; sessions: not revoked", f"{u} key: still active in AWS", key and not rev)
    )
    out.append(
        both(f"{arn}: UpdateAccessKey sent, read back Inactive", f"{arn}: no call made to AWS, key untouched", key)
    )
    out.append(both("not applied in AWS", "applied in AWS and verified", not _applied_in_aws(c)))
    out.append(both(f"deny-all policy on {u}: attached", f"deny-all policy on {u}: none attached", pol))
    out.append(both(f"sessions {u} already has: revoked", f"sessions {u} already has: left standing", rev))
    out.append(both(f"creds for {u} disabled on the account", f"creds for {u} still work on the account", key))
    return out


def grants(c: Context) -> list[Unit]:
    """Relationships between two named entities, including denied and missing ones."""
    out: list[Unit] = []
    verbs = {
        "CAN_ASSUME": ("{a} can assume {b} directly", "{a} can't assume {b} directly"),
        "CAN_READ": ("{a} can read {b} directly", "{a} has no working read grant on {b}"),
        "RUNS_AS": ("{a} runs as {b}", "{a} does not run as {b}"),
    }
    n = 0
    for rel, (pos, neg) in verbs.items():
        for a, b in pairs(c, rel)[:4]:
            found = bool(c.edge(a, rel, b))
            if rel != "CAN_ASSUME" and not found:
                continue  # a reversed read or runs-as pair: nonsense, not written
            works = c.edge_works(a, rel, b)
            if rel == "RUNS_AS" and found and not works:
                continue  # a blocked RUNS_AS: whether it still "runs as" is not decided
            ra, rb = _ref(c, a, n), _ref(c, b, n + 2)
            out.append(both(pos.format(a=ra, b=rb), neg.format(a=ra, b=rb), works))
            n += 1
    return out


def via(c: Context) -> list[Unit]:
    """Which entities the open paths run through."""
    out: list[Unit] = []
    if _graph_only(c):
        return out
    live = c.live
    total = len(live)
    for i, x in enumerate(on_paths(c)):
        k = sum(1 for p in live if x in p)
        ref = _ref(c, x, i)
        if total >= 2 and i % 3 == 0:
            every = "both open paths go" if total == 2 else f"all {_num(total, i)} open paths go"
            out.append(both(f"{every} via {ref}", f"not every open path goes via {ref}", k == total))
        elif i % 3 == 1:
            out.append(both(f"{ref} still sits on an open path", f"{ref}: off every open path now", k > 0))
        elif total >= 3:
            pct, wrong = (
                round(100 * k / total),
                round(100 * (k + 1) / total) if k < total else round(100 * (k - 1) / total),
            )
            out.append(
                both(f"{ref}: carries {pct}% of the open paths", f"{ref}: carries {wrong}% of the open paths", True)
            )
        elif total:
            out.append(
                both(
                    f"{ref} - on {_num(k, i)} of {total} open path(s)",
                    f"{ref} - on {_num(k + 1, i)} of {total} open path(s)",
                    True,
                )
            )
        else:
            out.append(both(f"{ref}: on no open path", f"{ref}: still on an open path", k == 0))
    return out


def quotes(c: Context) -> list[Unit]:
    """Quotations of third parties (claiming nothing) and the writer's own claim next to them."""
    out: list[Unit] = []
    a = c.user if _is_aws(c) else _alert(c)
    w = _where(c)
    if not _graph_only(c):
        contained = _state(c) == "contained"
        out.append([(f'> user on the bridge call: "I already logged out, {a} should be contained by now"', True)])
        out.append(
            both(
                f'the manager says "it\'s fine"; the graph says {a} is {"contained" if contained else "exposed"}',
                f'the manager says "it\'s fine"; the graph says {a} is {"exposed" if contained else "contained"}',
                True,
            )
        )
    for r, status in _routes_tracked(c)[:2]:
        other = "active" if status == "blocked" else "blocked"
        out.append([(f'> phishing mail text: "your session {r} has been blocked, sign in again here"', True)])
        out.append(
            both(
                f'{c.user} claims "{r} was never used". For the record: {r} is {status}{w} now.',
                f'{c.user} claims "{r} was never used". For the record: {r} is {other}{w} now.',
                True,
            )
        )
    if _is_aws(c):
        key = c.account_done("key")
        out.append([(f'> ticket from {c.user}\'s team: "please do not disable the key, prod depends on it"', True)])
        out.append(
            both(
                f'Despite the ticket ("keep the key"), {c.user}\'s key was set Inactive in AWS.',
                f'As the ticket asked ("keep the key"), {c.user}\'s key was left Active in AWS.',
                key,
            )
        )
    return out


def whatif(c: Context) -> list[Unit]:
    """Conditionals and hypotheticals: each claims only the counterfactual it states."""
    out: list[Unit] = []
    live = c.live
    if not live:
        if not _graph_only(c):
            a = c.user if _is_aws(c) else _alert(c)
            out.append([(f"if a fresh query finds a path again, {a} goes back to exposed", True)])  # a condition only
            out.append([(f"should anything reopen on {a}, page the IAM team", True)])
        return out
    for i, (r, status) in enumerate(_routes_tracked(c)):
        if status != "active":
            continue
        src, dst = _route_edge(c, r)
        left = _remaining_without(c, src, dst)
        out.append(
            both(
                f"if {r} were blocked, {_num(left, i)} path(s) would remain",
                f"if {r} were blocked, {_num(left + 1, i)} path(s) would remain",
                True,
            )
        )
        out.append(
            both(
                f"blocking {r} alone would contain {_alert(c)}",
                f"blocking {r} alone would not be enough",
                left == 0,
            )
        )
    seen: set[tuple[str, str]] = set()
    for p in live:
        for j in range(len(p) - 1):
            a, b = p[j], p[j + 1]
            if any(r.source == a and r.target == b for r in c.ev.routes):
                continue
            seen.add((a, b))
    for i, (a, b) in enumerate(sorted(seen)[:3]):
        left = _remaining_without(c, a, b)
        ra, rb = _ref(c, a, i), _ref(c, b, i + 1)
        out.append(
            both(
                f"hypothetically, cutting {ra} -> {rb} would leave {_num(left, i)} of {len(live)} path(s)",
                f"hypothetically, cutting {ra} -> {rb} would leave {_num(left + 1, i)} of {len(live)} path(s)",
                True,
            )
        )
    return out


def hedges(c: Context) -> list[Unit]:
    """Hedged claims (claim X), questions with answers (the answer claims), plans (claim nothing)."""
    out: list[Unit] = []
    a = c.user if _is_aws(c) else _alert(c, 1)
    w = _where(c)
    if not _graph_only(c):
        contained = _state(c) == "contained"
        out.append(both(f"{a} is probably contained by now", f"{a} is probably still exposed", contained))
        out.append(both(f"Q: is {a} contained? A: yes", f"Q: is {a} contained? A: no, not yet", contained))
        n = c.ev.path_count
        out.append(
            both(
                f"prob {_num(n, 1)} path(s) still open, need to double-check",
                f"prob {_num(n + 2, 1)} path(s) still open, need to double-check",
                True,
            )
        )
    else:
        key = c.account_done("key")
        out.append(
            both(
                f"I think {c.user}'s key is still live in AWS", f"I think {c.user}'s key is already off in AWS", not key
            )
        )
        out.append(
            both(
                "Q: did the change reach AWS? A: no, graph only",
                "Q: did the change reach AWS? A: yes",
                not _applied_in_aws(c),
            )
        )
    for i, (r, status) in enumerate(_routes_tracked(c)[:2]):
        blocked = status == "blocked"
        if i % 2 == 0:
            out.append(both(f"looks like {r} is blocked{w} already", f"looks like {r} is still open{w}", blocked))
        else:
            out.append(both(f"is {r} blocked{w}? yes", f"is {r} blocked{w}? no", blocked))
        if not blocked:
            out.append([(f"next: block {r}", True)])  # a plan
    return out


def names(c: Context) -> list[Unit]:
    """Qualifying reach to assets, naming entities by id, plain name, ARN or another case."""
    out: list[Unit] = []
    ent = c.ev.entity_id
    w = _where(c)
    gone = [x for x in c.ev.cut_off_entities if c.ev.adjacent.get(x) == "DataAsset" or x in c.ev.critical_assets]
    cands = [(x, True) for x in list(c.ev.assets)[:3]] + [(x, False) for x in gone[:3]]
    for i, (x, ok) in enumerate(cands):
        rx, re_ = _ref(c, x, i + 1), _ref(c, ent, i + 2)
        if i % 2:
            out.append(
                both(
                    f"{rx} still reachable from {re_} over a qualifying path{w}",
                    f"{rx}: no qualifying path from {re_} anymore{w}",
                    ok,
                )
            )
        else:
            out.append(both(f"{re_} -> {rx}: open{w}", f"{re_} -> {rx}: cut{w}", ok))
    mids = [x for x in on_paths(c) if x not in gone and x != ent][:3]
    for i, x in enumerate(mids):
        ok = reaches(c, ent, x)
        out.append(
            both(
                f"{_ref(c, x, i + 3)} is still on {_ref(c, ent, i)}'s path to sensitive data{w}",
                f"{_ref(c, x, i + 3)} no longer on {_ref(c, ent, i)}'s path to sensitive data{w}",
                ok,
            )
        )
    return out


def table_rows(c: Context) -> list[Unit]:
    """Before/after route tables (a status table when there is no run), one row per sentence."""
    out: list[Unit] = []
    mine = set(_run_blocked(c))
    for r in c.ev.routes[:4]:
        now = str(r.status)
        flip = "active" if now == "blocked" else "blocked"
        if _is_aws(c):
            head = "| route | before | after |\n|---|---|---|\n"
            if _graph_only(c):
                out.append(
                    both(
                        f"{head}| {r.route_id} | active | blocked in graph only |",
                        f"{head}| {r.route_id} | active | disabled in AWS |",
                        True,
                    )
                )
            else:
                out.append(
                    both(
                        f"{head}| {r.route_id} | active | disabled in AWS |",
                        f"{head}| {r.route_id} | active | still active in AWS |",
                        c.account_done("key"),
                    )
                )
        elif c.run is None:
            head = "| route | status |\n|---|---|\n"
            out.append(both(f"{head}| {r.route_id} | {now} |", f"{head}| {r.route_id} | {flip} |", True))
        else:
            head = "| route | before | after |\n|---|---|---|\n"
            before = "active" if r.route_id in mine else now
            out.append(
                both(f"{head}| {r.route_id} | {before} | {now} |", f"{head}| {r.route_id} | {before} | {flip} |", True)
            )
    if not c.ev.routes:
        s, n = paths_at_start(c), c.ev.path_count
        h = "| metric | start | now |\n|---|---|---|\n"
        out.append(both(f"{h}| qualifying paths | {s} | {n} |", f"{h}| qualifying paths | {s} | {n + 1} |", True))
        out.append(
            both(
                f"{h}| risk score | {_start_score(c)} | {c.ev.risk_score} |",
                f"{h}| risk score | {_start_score(c)} | {c.ev.risk_score - 15} |",
                True,
            )
        )
    return out


def status_lines(c: Context) -> list[Unit]:
    """Headings and emoji status lines."""
    out: list[Unit] = []
    st = _run_state(c)
    if _graph_only(c):
        out.append(
            both(
                f"### {_ts(1)} {c.user}\n⚠️ graph only: blocked in the graph, key still Active in AWS",
                f"### {_ts(1)} {c.user}\n✅ contained in AWS: key Inactive",
                not c.account_done("key"),
            )
        )
        out.append(both(f"⚠️ {c.user}: not applied in AWS", f"✅ {c.user}: applied in AWS", not _applied_in_aws(c)))
        return out
    a = c.user if _is_aws(c) else _alert(c)
    contained = _state(c) == "contained"
    out.append(both(f"### {_ts(2)} {a}\n✅ contained", f"### {_ts(2)} {a}\n🔴 still exposed", contained))
    out.append(both(f"❌ {a}: not contained", f"✅ {a}: contained", not contained))
    if st == "stopped":
        out.append(
            both(f"🟡 {a}: run stopped, {c.ev.path_count} path(s) open", f"✅ {a}: contained (cap reached)", True)
        )
    elif st is None:
        out.append(both(f"⏳ {a}: no run yet", f"✅ {a}: run finished", True))
    else:
        out.append(both(f"✅ {a}: run completed", f"🟡 {a}: run stopped", st == "completed"))
    return out


THIRTEENTH: list[Family] = [
    _family("h13.timeline_routes", "route", 2, timeline_routes),
    _family("h13.checklist", "account", 2, checklist),
    _family("h13.handover", "state", 2, handover),
    _family("h13.verdict", "run", 2, verdict),
    _family("h13.delta", "count", 2, delta),
    _family("h13.hops", "hops", 2, hops),
    _family("h13.scores", "score", 2, scores),
    _family("h13.aws_fragments", "account", 5, aws_fragments),
    _family("h13.grants", "link", 2, grants),
    _family("h13.via", "through", 3, via),
    _family("h13.quotes", "quotation", 2, quotes),
    _family("h13.whatif", "modal", 2, whatif),
    _family("h13.hedges", "modal", 2, hedges),
    _family("h13.names", "name", 2, names),
    _family("h13.table_rows", "route", 2, table_rows),
    _family("h13.status_lines", "state", 2, status_lines),
]
