"""Ninth held-out set of briefing sentences: template families written without seeing the checker.

Style: what a human SOC analyst writes in a ticket or a chat channel: terse status lines, table rows,
checkboxes, questions answered in the next clause, corrections ("earlier I said X; actually Y"),
comparisons with the start of the run, and statements about single entities, routes, keys and roles.

Every label is computed from the Context's facts (the fresh evidence, the run record and its actions'
account fields, the graph's relationships as exported); nothing is hand-labelled. A sentence is truthful
when every claim in it holds (or it claims nothing: a quotation, a question); false when any claim fails.
Claims whose truth the facts do not decide are not written (in particular, on a run that ended graph-only,
"contained" and path counts are always qualified as "in the graph" or "on the account").
"""

from __future__ import annotations

from collections.abc import Iterable

from tests.helpers.briefing_families import Context, Family, both, pairs, paths_at_start, reaches, words

Pairs = list[tuple[str, bool]]

# ---------------------------------------------------------------------------------------------------
# facts shared by the families


def _n(n: int, i: int = 0) -> str:
    """A number in words or digits, alternating with i."""
    return words(n) if i % 2 == 0 else str(n)


def _pl(n: int, one: str, many: str | None = None, i: int = 0) -> str:
    return f"{_n(n, i)} {one if n == 1 else (many or one + 's')}"


def _cap(s: str) -> str:
    """Capitalise a sentence's first word, unless it is an identifier (kept as written)."""
    first = s.split(" ", 1)[0]
    if any(ch in first for ch in "-_:.0123456789"):
        return s
    return s[:1].upper() + s[1:]


def _pick(c: Context, items: Pairs, k: int) -> Pairs:
    """k of the (claim, counterpart) pairs in items: the first, then the others from an offset that depends
    on the context."""
    groups = [items[i : i + 2] for i in range(0, len(items), 2)]
    if len(groups) <= k:
        return items
    rest = len(groups) - 1
    start = sum(map(ord, c.key)) % rest
    chosen = [0, *sorted(1 + (start + j) % rest for j in range(k - 1))]
    return [x for i in chosen for x in groups[i]]


def _acts(c: Context) -> list:
    return list(c.run.actions) if c.run is not None else []


def _aws_acts(c: Context) -> list:
    return [a for a in _acts(c) if a.aws is not None]


def _on_account(c: Context) -> bool:
    """The alert is about an AWS principal whose credentials a run acted on (in the graph or on the account)."""
    return bool(_aws_acts(c))


def _graph_only(c: Context) -> bool:
    return c.run is not None and c.run.state == "graph_only"


def _contained(c: Context) -> bool:
    return c.ev.containment_state == "contained"


def _who(c: Context) -> str:
    """The alert's entity as an analyst names it: the user's name for an AWS user, else its id."""
    return c.user if _on_account(c) else c.ev.entity_id


def _label(c: Context, node: str) -> str:
    return dict(c.ev.adjacent).get(node, "")


def _start(c: Context) -> dict:
    """The run's initial investigation (paths, risk_score, severity), or the evidence now when there is no run."""
    if c.run is not None:
        step = next((s for s in c.run.steps if s.kind == "investigate"), None)
        if step is not None:
            return dict(step.data)
    return {"paths": c.ev.path_count, "risk_score": c.ev.risk_score, "severity": c.ev.severity}


def _band(score: int) -> str:
    return "low" if score < 30 else "medium" if score < 60 else "high" if score < 80 else "critical"


def _key_id(c: Context) -> str:
    for a in _aws_acts(c):
        t = a.aws.plan.target
        if t is not None and t.access_key_id:
            return t.access_key_id
    return ""


def _key_done(c: Context) -> bool:
    return c.account_done("key")


def _policy_done(c: Context) -> bool:
    return c.account_done("policy")


def _revoked(c: Context) -> bool:
    """A session revocation applied and verified on the account by the run."""
    return any(
        a.operation in ("revoke_role_sessions", "revoke_user_sessions")
        and a.aws is not None
        and a.aws.applied
        and a.aws.api_verified
        for a in _acts(c)
    )


def _not_applied(c: Context) -> bool:
    """Some account action of the run was made in the graph only ("not applied in AWS")."""
    return any(a.aws.applied_in_aws is False or not a.aws.applied for a in _aws_acts(c))


def _left_standing(c: Context) -> bool:
    """The run's plan leaves credentials the key already issued working until they expire, and nothing revoked them."""
    return any(a.aws.plan.leaves_standing for a in _aws_acts(c)) and not _revoked(c)


def _route_ends(c: Context, rid: str) -> tuple[str, str] | None:
    for r in c.ev.routes:
        if r.route_id == rid:
            return r.source, r.target
    for s, _t, d, p in c.edges:
        if p.get("route_id") == rid:
            return s, d
    return None


def _uses(path: list[str], ends: tuple[str, str] | None) -> bool:
    return ends is not None and any(path[i] == ends[0] and path[i + 1] == ends[1] for i in range(len(path) - 1))


def _left_without(c: Context, rids: Iterable[str]) -> list[list[str]]:
    ends = [_route_ends(c, r) for r in rids]
    return [p for p in c.live if not any(_uses(p, e) for e in ends)]


def _edge_status(c: Context, rid: str) -> str:
    for _s, _t, _d, p in c.edges:
        if p.get("route_id") == rid:
            return str(p.get("status", "active"))
    return ""


def _blocked_by_run(c: Context) -> list[str]:
    return [a.route_id for a in _acts(c) if a.operation == "block_route" and a.status == "applied"]


def _near_routes(c: Context) -> list[str]:
    """Routes into the alert's entity (or into a workload running as it): near the paths, but on none of them."""
    e = c.ev.entity_id
    into = {e} | {s for s, t, d, _ in c.edges if t == "RUNS_AS" and d == e}
    out = sorted({p["route_id"] for s, t, d, p in c.edges if d in into and p.get("route_id")})
    return [r for r in out if not any(_uses(p, _route_ends(c, r)) for p in c.live)]


def _assets_then(c: Context) -> list[str]:
    """High/critical assets reached now, and the assets on paths the evidence says were cut off."""
    now = list(c.ev.assets)
    cut = [x for x in c.ev.cut_off_entities if _label(c, x) == "DataAsset" and x not in now]
    return now + sorted(cut)


def _shortest_to(c: Context, asset: str) -> int | None:
    hops = [p.index(asset) for p in c.live if asset in p]
    return min(hops) if hops else None


def _name(c: Context, node: str) -> str:
    return c.names.get(node, node)


def _g(c: Context) -> str:
    """ " in the graph" where a claim about paths needs it (a run applied in the graph only)."""
    return " in the graph" if _graph_only(c) else ""


def _rels_on_live(c: Context) -> list[tuple[str, str, str, str]]:
    """(a, rel, b, asset) for consecutive nodes on the live paths."""
    out = []
    for p, path in zip(c.live, c.ev.paths, strict=True):
        for i, rel in enumerate(path.relationships):
            out.append((p[i], rel, p[i + 1], p[-1]))
    return out


# ---------------------------------------------------------------------------------------------------
# state


def state_ticket(c: Context) -> Pairs:
    a, e = c.ev.alert_id, _who(c)
    out: Pairs = []
    if _graph_only(c):
        k = _key_id(c)
        out += both(
            f"Ticket {a}: contained in the graph only; {e}'s key is still active in AWS.",
            f"Ticket {a}: contained in the graph and on the AWS account.",
            not _key_done(c),
        )
        out += both(
            f"Earlier I said {e} was contained on the account; actually the block only exists in the graph.",
            f"Earlier I said the block was graph-only; correction: key {k} was deactivated on the account too.",
            not _key_done(c),
        )
        out += both(
            f"✅ {e}: blocked in the graph · ❌ not applied on the AWS account",
            f"✅ {e}: blocked in the graph · ✅ applied on the AWS account",
            _not_applied(c) and _contained(c),
        )
        return out
    cont = _contained(c)
    out += both(
        f"Ticket {a}: status contained, no qualifying path left.",
        f"Ticket {a}: status open, {e} is still exposed.",
        cont,
    )
    out += both(f"✅ {a} contained", f"❌ {a} not contained yet", cont)
    out += both(f"- [x] {e} contained", f"- [x] {e} still exposed", cont)
    if c.run is not None and paths_at_start(c) > 0:
        out += both("Status: ~~exposed~~ **contained**", "Status: ~~contained~~ **still exposed**", cont)
        out += both(
            f"Earlier I said {a} was contained; actually {e} is still exposed.",
            f"Earlier I wrote that {e} was still exposed; correction: {e} is contained now.",
            not cont,
        )
        out += both(
            f"At the start of the run {e} was exposed; now it's contained.",
            f"{_cap(e)} was exposed when the run started and still is.",
            cont,
        )
    elif c.run is None:
        out += both(
            f"{_cap(e)} stays exposed until someone runs containment on {a}.",
            f"{_cap(e)} is no longer exposed.",
            not cont,
        )
    return out


def state_table(c: Context) -> Pairs:
    a, e = c.ev.alert_id, _who(c)
    ps, pn = paths_at_start(c), c.ev.path_count
    out: Pairs = []
    if _on_account(c):
        k = _key_id(c)
        done = _key_done(c)
        out += both(
            f"| scope | {e}'s key {k} |\n|---|---|\n| AWS account | deactivated |",
            f"| scope | {e}'s key {k} |\n|---|---|\n| AWS account | still active |",
            done,
        )
        out += both(
            f"| where | qualifying paths |\n|---|---|\n| graph | {pn} |",
            f"| where | qualifying paths |\n|---|---|\n| graph | {pn + 1} |",
            True,
        )
        out += both(
            "### Verdict\nCompleted: the key is off on the account and the fresh query finds no path.",
            "### Verdict\nGraph-only: blocked in the graph, not applied in AWS.",
            c.run is not None and c.run.state == "completed" and done and pn == 0,
        )
        out += both(
            f"| | start of run | now |\n|---|---|---|\n| qualifying paths in the graph | {ps} | {pn} |",
            f"| | start of run | now |\n|---|---|---|\n| qualifying paths in the graph | {ps} | {ps} |",
            ps != pn,
        )
        return out
    cont = _contained(c)
    out += both(
        f"## Containment status\nContained: a fresh query finds no qualifying path from {e}.",
        f"## Containment status\nExposed: {e} still has qualifying paths.",
        cont,
    )
    out += both(
        f"| alert | entity | status |\n|---|---|---|\n| {a} | {e} | contained |",
        f"| alert | entity | status |\n|---|---|---|\n| {a} | {e} | exposed |",
        cont,
    )
    if c.run is not None:
        wrong = pn + 1 if pn + 1 != ps else pn + 2
        out.append((f"| | start of run | now |\n|---|---|---|\n| qualifying paths | {ps} | {pn} |", True))
        out.append((f"| | start of run | now |\n|---|---|---|\n| qualifying paths | {ps} | {wrong} |", False))
        out += both(
            f"| check | before | after |\n|---|---|---|\n| {e} exposed | yes | no |",
            f"| check | before | after |\n|---|---|---|\n| {e} exposed | yes | yes |",
            ps > 0 and pn == 0,
        )
    else:
        out += both(
            f"### {a}\nOpen. {_cap(_pl(pn, 'qualifying path'))}, no run yet.",
            f"### {a}\nClosed. No qualifying path left.",
            pn > 0,
        )
    return out


# ---------------------------------------------------------------------------------------------------
# run


def run_audit(c: Context) -> Pairs:
    a = c.ev.alert_id
    out: Pairs = []
    if c.run is None:
        out += both(f"No containment run on {a} yet.", f"The containment run on {a} has finished.", True)
        out += both(f"Run: none started for {a}", f"Run: completed for {a}", True)
        out += both(
            f"No BlastShield run has blocked anything for {a} so far.",
            f"A BlastShield run has already blocked a route for {a}.",
            True,
        )
        return out
    r = c.run
    st, cap, verified = r.state, r.max_actions, [x for x in r.actions if x.verified]
    if st == "graph_only":
        out += both(
            "The run ended graph_only, not completed.",
            "The run ended completed, not graph-only.",
            True,
        )
    elif st == "completed":
        out += both(
            f"The run on {a} completed.",
            f"The run on {a} stopped before completing.",
            True,
        )
    elif st == "stopped":
        out += both(
            f"The run on {a} stopped with {_pl(c.ev.path_count, 'path')} still open.",
            f"The run on {a} completed with no path left.",
            c.ev.path_count > 0,
        )
        capped = "cap" in r.reason
        out += both(
            f"It stopped because it hit its cap of {_pl(cap, 'action')}.",
            "It stopped before reaching its action cap.",
            capped and len(r.actions) == cap,
        )
    n = len(verified)
    out.append((f"{_cap(_pl(n, 'verified action'))} in this run.", True))
    out.append((f"{_cap(_pl(n + 1, 'verified action'))} in this run.", False))
    out += both(
        "The run used the rules decider.",
        "The run used the Gemini decider.",
        r.decider == "rules",
    )
    other = "stopped" if st != "stopped" else "completed"
    head = "| run | decider | cap | actions | state |\n|---|---|---|---|---|\n"
    row = f"| {r.run_id} | {r.decider} | {cap} | {len(r.actions)} |"
    out.append((f"{head}{row} {st} |", True))
    out.append((f"{head}{row} {other} |", False))
    return out


def run_chat(c: Context) -> Pairs:
    a, e = c.ev.alert_id, _who(c)
    out: Pairs = []
    if c.run is None:
        out += both(
            f"has anyone run containment on {a}? not yet.",
            f"has anyone run containment on {a}? yes, it already completed.",
            True,
        )
        out += both(
            f"q: did a run block anything for {e}? a: no, no run so far.",
            f"q: did a run block anything for {e}? a: yes, one route.",
            True,
        )
        return out
    r = c.run
    ps, pn = paths_at_start(c), c.ev.path_count
    n = len(r.actions)
    g = _g(c)
    out.append((f"how many paths did we start with? {_n(ps)}; {_n(pn, 1)} left now{g}.", True))
    out.append((f"how many paths did we start with? {_n(ps)}; {_n(ps if ps != pn else pn + 1, 1)} left now{g}.", False))
    if r.state == "completed":
        out += both(
            f"did the run finish? yes, completed after {_pl(n, 'verified action')}.",
            "did the run finish? no, it stopped at the cap.",
            all(x.verified for x in r.actions),
        )
    elif r.state == "stopped":
        out += both(
            f"did the run finish? no, it stopped with {_pl(pn, 'path')} still open.",
            "did the run finish? yes, it completed and nothing is left open.",
            pn > 0,
        )
    elif r.state == "graph_only":
        out += both(
            "did the run finish? it ended graph-only: blocked in the graph, not in AWS.",
            "did the run finish? yes, it completed and the change is live in AWS.",
            _not_applied(c),
        )
    if n and not _graph_only(c):
        out += both(
            "any action rejected? no, the one action was verified."
            if n == 1
            else f"any action rejected? no, all {_n(n)} verified.",
            "any action rejected? yes, at least one failed verification.",
            all(x.verified for x in r.actions),
        )
    else:
        out += both(
            "any action taken? none at all, the run blocked nothing.",
            "any action taken? yes, the run blocked a route.",
            n == 0,
        )
    if r.state == "stopped" and pn > 0:
        out += both(
            f"earlier I said the run completed; actually it stopped with {_pl(pn, 'path', i=1)} still open.",
            "earlier I said the run stopped; correction: it completed.",
            True,
        )
    elif r.state == "completed" and n:
        out += both(
            "earlier I said the run stopped at the cap; correction: it completed.",
            "earlier I said the run completed; actually it stopped at the cap.",
            True,
        )
    return out


# ---------------------------------------------------------------------------------------------------
# routes


def route_status(c: Context) -> Pairs:
    out: Pairs = []
    mine = _blocked_by_run(c)
    for i, r in enumerate(sorted(c.ev.routes, key=lambda r: r.route_id)[:4]):
        rid, blocked = r.route_id, r.status == "blocked"
        if _on_account(c):
            out += both(
                f"Key route {rid} is blocked in the graph.", f"Key route {rid} is still open in the graph.", blocked
            )
            continue
        form = i % 4
        if form == 0:
            out += both(f"{rid} is blocked.", f"{rid} is still open.", blocked)
        elif form == 1:
            out += both(
                f"| route | status |\n|---|---|\n| {rid} | blocked |",
                f"| route | status |\n|---|---|\n| {rid} | active |",
                blocked,
            )
        elif form == 2:
            out += both(f"{rid.upper()}: BLOCKED", f"{rid.upper()}: ACTIVE", blocked)
        else:
            out += both(f"Is {rid} still open? No, it's blocked now.", f"Is {rid} still open? Yes.", blocked)
        if c.run is not None:
            if rid in mine:
                out += both(f"{rid} ~~active~~ **blocked** by this run", f"{rid} ~~blocked~~ **active**", blocked)
            elif blocked:
                out += both(
                    f"{rid} was already blocked before the run; the run did not touch it.",
                    f"The run blocked {rid}.",
                    True,
                )
        pc, k = c.ev.path_count, r.paths_carried
        if k and pc:
            if pc == 1:
                yes = f"{rid} carries the only qualifying path."
            elif k == pc:
                yes = f"{rid} carries all {_n(pc, i)} qualifying paths."
            else:
                yes = f"{rid} carries {_n(k, i)} of the {_n(pc)} qualifying paths."
            out += both(yes, f"{rid} carries none of the qualifying paths.", True)
    if not c.ev.routes and c.live:
        out += both(
            f"None of the {_n(c.ev.path_count)} paths uses a session route.",
            f"Every one of the {_n(c.ev.path_count)} paths uses a session route.",
            True,
        )
        for nr in _near_routes(c)[:1]:
            out += both(f"{nr} is not on any of the paths.", f"The paths run over {nr}.", True)
            out += both(f"{nr} is still active.", f"{nr} is blocked.", _edge_status(c, nr) != "blocked")
    return out


# ---------------------------------------------------------------------------------------------------
# counts


def count_paths(c: Context) -> Pairs:
    out: Pairs = []
    ps, pn, g = paths_at_start(c), c.ev.path_count, _g(c)
    if c.run is not None and ps > 1:
        pct = round(100 * (ps - pn) / ps)
        wrong_pct = 100 - pct if 100 - pct != pct else pct // 2
        out.append((f"{pct}% of the paths we started with are closed{g}.", True))
        out.append((f"{wrong_pct}% of the paths we started with are closed{g}.", False))
    if pn == 0:
        out += both(f"No qualifying path remains{g}.", f"One qualifying path remains{g}.", True)
    else:
        out.append((f"{_cap(_pl(pn, 'qualifying path'))} {'remains' if pn == 1 else 'remain'}{g}.", True))
        out.append((f"{_cap(_pl(pn + 1, 'qualifying path', i=1))} remain{g}.", False))
    if c.run is not None and ps > 0:
        cut = ps - pn
        if ps == 1:
            out += both(
                f"The one path we started with was cut{g}.", f"The one path we started with is still open{g}.", cut == 1
            )
        else:

            def cut_text(k: int) -> str:
                if k == ps:
                    return (
                        f"Both starting paths were cut{g}." if ps == 2 else f"All {_n(ps)} starting paths were cut{g}."
                    )
                if k == 0:
                    return f"None of the {_n(ps)} starting paths was cut{g}."
                return f"{_cap(_n(k))} of the {_n(ps)} starting paths {'was' if k == 1 else 'were'} cut{g}."

            out.append((cut_text(cut), True))
            out.append((cut_text(cut + 1 if cut + 1 <= ps else cut - 1), False))
        out.append((f"Paths{g}: {ps} at the start -> {pn} now", True))
        out.append((f"Paths{g}: {ps} at the start -> {ps + 1} now", False))
    if not _graph_only(c):
        lo = max(pn - 1, 0)
        out += both(
            f"Somewhere between {lo} and {pn + 2} paths are open.",
            f"Somewhere between {pn + 1} and {pn + 3} paths are open.",
            True,
        )
        m = len(c.ev.assets)
        if m == 0:
            out += both(
                "No high or critical asset is still reachable.",
                "At least one high or critical asset is still reachable.",
                True,
            )
        else:
            out.append((f"{_cap(_pl(m, 'high or critical asset'))} still reachable.", True))
            out.append((f"{_cap(_pl(m + 2, 'high or critical asset', i=1))} still reachable.", False))
        if pn >= 2:
            for asset in c.ev.assets[:2]:
                k = sum(1 for p in c.live if p[-1] == asset)
                if 0 < k < pn:
                    out.append((f"{_cap(_n(k))} of its {_n(pn)} paths {'ends' if k == 1 else 'end'} at {asset}.", True))
                    out.append((f"All {_n(pn)} of its paths end at {asset}.", False))
    return out


# ---------------------------------------------------------------------------------------------------
# hops


def hops_short(c: Context) -> Pairs:
    out: Pairs = []
    e, g = _who(c), _g(c)
    if not c.live:
        out += both(
            f"No qualifying path from {e} within six hops{g}.",
            f"A {_n(4)}-hop qualifying path from {e} is still open{g}.",
            True,
        )
        out += both(
            f"Nothing left within 6 hops{g}; the query came back no_path.",
            f"A 5-hop path is left{g}.",
            True,
        )
        return out
    hs = [len(p) - 1 for p in c.live]
    lo, hi = min(hs), max(hs)
    out.append((f"Shortest path: {lo} {'hop' if lo == 1 else 'hops'}.", True))
    out.append((f"Shortest path: {lo + 1} hops.", False))
    if lo > 1:
        out += both(
            f"Nothing within {_n(lo - 1)} {'hop' if lo - 1 == 1 else 'hops'}; the first path shows up at {_n(lo)}.",
            f"There is a path within {_n(lo - 1)} {'hop' if lo - 1 == 1 else 'hops'}.",
            True,
        )
    if hi != lo:
        out.append((f"The longest of the paths is {_n(hi)} hops.", True))
        out.append((f"The longest of the paths is {_n(hi + 1)} hops.", False))
    for i, asset in enumerate(c.ev.assets[:3]):
        h = _shortest_to(c, asset)
        if h is None:
            continue
        out.append((f"{asset} sits {_pl(h, 'hop', i=i)} from {e}.", True))
        out.append((f"{asset} sits {_pl(h + 2, 'hop', i=i)} from {e}.", False))
    if c.run is not None and c.run.state == "stopped" and c.live and c.run.actions:
        out += both(
            f"The path left after the block is {_n(lo)} hops long.",
            f"The path left after the block is {_n(lo - 1)} hops long.",
            True,
        )
    return out


# ---------------------------------------------------------------------------------------------------
# score

_RULE_WORDS = {
    "E1-critical-reach": "Reaching a critical asset",
    "E1-high-reach": "Reaching a high asset",
    "E3-multiple-paths": "Having more than one path",
    "E4-breadth": "Breadth (three or more high or critical assets)",
    "S-off_hours_login": "The off-hours login signal",
    "S-wildcard_policy": "The wildcard policy signal",
    "S-internet_exposed": "The internet exposure signal",
    "S-impossible_travel": "The impossible travel signal",
}


def score_band(c: Context) -> Pairs:
    out: Pairs = []
    st = _start(c)
    s0, sev0 = int(st.get("risk_score", c.ev.risk_score)), str(st.get("severity", c.ev.severity))
    if _graph_only(c):
        out.append((f"At the start of the run the alert scored {s0} ({sev0}).", True))
        out.append((f"At the start of the run the alert scored {s0 + 20} ({_band(s0 + 20)}).", False))
        out += both(
            f"Start-of-run severity: {sev0}.",
            f"Start-of-run severity: {_band(s0 + 35)}.",
            sev0 != _band(s0 + 35),
        )
        return out
    s, sev = c.ev.risk_score, c.ev.severity
    out.append((f"Risk score {s}/100, {sev}.", True))
    out.append((f"Risk score {s + 10}/100, {_band(s + 10)}.", False))
    alt = next(b for b in ("critical", "high", "medium", "low") if b != sev)
    out += both(f"Severity: {sev}", f"Severity: {alt}", True)
    out += both(
        f"The score is somewhere between {max(s - 5, 0)} and {s + 5}.",
        f"The score is somewhere between {s + 6} and {s + 16}.",
        True,
    )
    if c.run is not None:
        if s != s0:
            out.append((f"Score went from {s0} ({sev0}) at the start of the run to {s} ({sev}) now.", True))
            out.append((f"Score unchanged at {s0} since the start of the run.", False))
        else:
            out.append((f"Score unchanged at {s} since the start of the run.", True))
            out.append((f"Score dropped from {s0} to {max(s0 - 25, 0)} during the run.", False))
    present = {f.rule: f.points for f in c.ev.factors}
    for rule in ("E1-critical-reach", "E3-multiple-paths"):
        words_ = _RULE_WORDS[rule]
        if rule in present:
            out += both(
                f"{words_} adds {present[rule]} points.",
                f"{words_} adds no points now.",
                True,
            )
        elif c.run is not None:
            out += both(
                f"{words_} adds no points now.",
                f"{words_} still adds points to the score.",
                True,
            )
    return out


# ---------------------------------------------------------------------------------------------------
# account


def account_keys(c: Context) -> Pairs:
    out: Pairs = []
    e = _who(c)
    if not _on_account(c):
        if c.run is None:
            out += both(
                f"No action has been taken on any AWS account for {c.ev.alert_id}.",
                f"A deny-all policy has been attached to {e} on the AWS account.",
                not _policy_done(c),
            )
        elif c.run.actions:
            out += both(
                "Route blocks were made in the graph only; no AWS account was changed.",
                f"{_cap(e)}'s access keys were disabled in AWS as part of this run.",
                not _key_done(c),
            )
        else:
            out += both(
                "Nothing was changed in AWS or in the graph by this run.",
                f"This run attached a deny-all policy to {e} in AWS.",
                not _policy_done(c) and not c.run.actions,
            )
        return out
    k, done = _key_id(c), _key_done(c)
    arn = c.arns.get(c.ev.entity_id, "")
    out += both(
        f"{_cap(e)}'s access key {k} was deactivated in AWS.",
        f"{_cap(e)}'s access key {k} was not deactivated in AWS.",
        done,
    )
    out += both(f"Key {k}: Inactive on the account.", f"Key {k}: still Active on the account.", done)
    out += both(
        f"A deny-all inline policy was attached to {arn or e}.",
        f"No deny-all inline policy was attached to {arn or e}.",
        _policy_done(c),
    )
    out += both(
        f"{_cap(e)}'s existing sessions were revoked.",
        f"Sessions {e} already obtained with the key were not revoked; they keep working until they expire.",
        not _left_standing(c),
    )
    out += both("Not applied in AWS.", "Applied in AWS and verified through the API.", _not_applied(c))
    api = any(a.aws.api_verified for a in _aws_acts(c))
    out += both(
        "The change was verified through the AWS API.",
        "Nothing was verified through the AWS API.",
        api,
    )
    out += both(
        "The key was deactivated, not deleted.",
        "The key was neither deactivated nor deleted; it is still active.",
        done,
    )
    return out


def account_checklist(c: Context) -> Pairs:
    out: Pairs = []
    e = _who(c)
    if not _on_account(c):
        if c.run is not None and c.run.actions:
            out += both(
                "- [x] Routes blocked in the graph (no AWS account involved)",
                f"- [x] {e}'s credentials disabled in AWS",
                not _key_done(c),
            )
        return out
    k, done = _key_id(c), _key_done(c)
    note = " ".join(a.aws.note for a in _aws_acts(c))
    out += both(f"- [x] Access key {k} deactivated in AWS", f"- [x] Access key {k} still active in AWS", done)
    out += both(
        f"❌ Sessions already issued to {e} not revoked (they run until expiry)",
        f"✅ Sessions already issued to {e} revoked",
        _left_standing(c),
    )
    out += both("🔴 Not applied in AWS", "🟢 Applied in AWS", _not_applied(c))
    out += both(
        f"| action | graph | AWS account |\n|---|---|---|\n| deactivate {e}'s key | blocked | deactivated |",
        f"| action | graph | AWS account |\n|---|---|---|\n| deactivate {e}'s key | blocked | not applied |",
        done,
    )
    out += both(
        "Earlier I said the key was disabled in AWS; actually it is still active there.",
        "Earlier I said the key was still active in AWS; correction: it has been disabled there.",
        not done,
    )
    out += both(
        "No respond profile was configured, so nothing was written to the account.",
        "A respond profile was configured and the key was changed on the account.",
        "no respond profile" in note and not done,
    )
    out += both("Deny-all policy attached: no", "Deny-all policy attached: yes", not _policy_done(c))
    return out


# ---------------------------------------------------------------------------------------------------
# links between named entities

_LINK = {
    "CAN_ASSUME": ("{a} can assume {b} directly.", "{a} cannot assume {b} directly."),
    "CAN_READ": ("{a} has read access to {b}.", "{a} has no read access to {b}."),
    "RUNS_AS": ("{a} runs as {b}.", "{a} does not run as {b}."),
    "HAS_SESSION": ("{a} can still use session {b}.", "{a} cannot use session {b}."),
    "CAN_ACCESS": ("Session {a} gives access to {b}.", "Session {a} gives no access to {b}."),
}


def link_pairs(c: Context) -> Pairs:
    out: Pairs = []
    seen = 0
    for rel in ("CAN_ASSUME", "CAN_READ", "HAS_SESSION", "RUNS_AS", "CAN_ACCESS"):
        for a, b in pairs(c, rel):
            if not c.edge(a, rel, b) and rel != "CAN_ASSUME":
                continue  # a reversed pair reads as nonsense for the other relationships
            yes, no = _LINK[rel]
            works = c.edge_works(a, rel, b)
            yes_t, no_t = yes.format(a=a, b=b), no.format(a=a, b=b)
            if rel == "HAS_SESSION" and _graph_only(c):
                yes_t, no_t = yes_t[:-1] + " in the graph.", no_t[:-1] + " in the graph."
            out += both(yes_t, no_t, works)
            seen += 1
            denied = any(p.get("permission") == "deny" for p in c.edge(a, rel, b))
            if denied:
                out += both(
                    f"The grant from {a} to {b} is denied.",
                    f"The grant from {a} to {b} is allowed and in use.",
                    True,
                )
            if seen >= 5:
                return out
    return out


# ---------------------------------------------------------------------------------------------------
# through


def through_paths(c: Context) -> Pairs:
    out: Pairs = []
    live = c.live
    g = _g(c)
    if not live:
        for z in sorted(set(c.ev.cut_off_entities) - {c.ev.entity_id})[:3]:
            out += both(
                f"No open path through {z} remains{g}.",
                f"A path through {z} is still open{g}.",
                True,
            )
        return out
    n = len(live)
    quant = {1: "The only path", 2: "Both paths", 3: "All three paths"}.get(n, f"All {n} paths")
    mids = sorted({x for p in live for x in p[1:-1]})
    off = [b.id for b in c.ev.blast_radius if not any(b.id in p for p in live)]
    for z in mids[:3] + off[:1]:
        every = all(z in p for p in live)
        some = any(z in p for p in live)
        verb = "goes" if n == 1 else "go"
        neg = f"The only path does not go through {z}." if n == 1 else f"Not every path goes through {z}."
        out += both(f"{quant} {verb} through {z}.", neg, every)
        if n > 1 and some and not every:
            k = sum(z in p for p in live)
            out.append((f"Only {_n(k)} of the {_n(n)} paths {'passes' if k == 1 else 'pass'} through {z}.", True))
            out.append((f"None of the {_n(n)} paths passes through {z}.", False))
    seen = set()
    for a, rel, b, asset in _rels_on_live(c):
        if rel != "CAN_ASSUME" or (a, b) in seen:
            continue
        seen.add((a, b))
        out += both(
            f"On the way to {asset}, {a} assumes {b}.",
            f"{a} does not assume {b} on the way to {asset}.",
            True,
        )
        other = next(
            (x for x in c.ev.assets if x != asset and not any(p[-1] == x and _uses(p, (a, b)) for p in live)), None
        )
        if other:
            out += both(
                f"On the way to {other}, {a} assumes {b}.",
                f"The path to {other} does not need {a} to assume {b}.",
                any(p[-1] == other and _uses(p, (a, b)) for p in live),
            )
    return out


# ---------------------------------------------------------------------------------------------------
# names


def name_forms(c: Context) -> Pairs:
    out: Pairs = []
    e = c.ev.entity_id
    en = _name(c, e)
    if _on_account(c):
        bucket = next((x for x in _assets_then(c)), "")
        barn = c.arns.get(bucket, "")
        uarn = c.arns.get(e, "")
        out += both(
            f"{_name(c, bucket)} ({barn}) is no longer reachable from {en} in the graph.",
            f"{_name(c, bucket)} ({barn}) is still reachable from {en} in the graph.",
            not reaches(c, e, bucket),
        )
        out += both(
            f"{uarn} still holds an active access key on the account.",
            f"{uarn} no longer holds an active access key on the account.",
            not _key_done(c),
        )
        for r in c.ev.routes[:1]:
            out += both(
                f"{r.route_id.upper()} is blocked in the graph.",
                f"{r.route_id.upper()} is open in the graph.",
                r.status == "blocked",
            )
        out += both(
            f"On the account, {en} can still read {barn} with the key.",
            f"On the account, {en} can no longer read {barn} with the key.",
            not _key_done(c),
        )
        return out
    for i, asset in enumerate(_assets_then(c)[:3]):
        r = reaches(c, e, asset)
        an = _name(c, asset)
        if i % 3 == 0:
            out += both(f"The {an} is still reachable from {en}.", f"{en} can no longer reach the {an}.", r)
        elif i % 3 == 1:
            out += both(
                f"{asset.upper()}: reachable from {e.upper()}", f"{asset.upper()}: not reachable from {e.upper()}", r
            )
        else:
            out += both(f"{an} ({asset}) is within reach of {en}.", f"{an} ({asset}) is out of reach of {en}.", r)
    for r in c.ev.routes[:4]:
        if r.type != "HAS_SESSION":
            continue
        sess = _name(c, r.target)
        out += both(
            f"The route into the {sess} session is blocked."
            if "session" not in sess.lower()
            else f"The route into the {sess} is blocked.",
            f"The route into the {sess} session is open."
            if "session" not in sess.lower()
            else f"The route into the {sess} is open.",
            r.status == "blocked",
        )
    return out


# ---------------------------------------------------------------------------------------------------
# quotation

_LURES = [
    '"All of your sessions have been revoked. Sign in at the link below to restore access."',
    '"Your access key was disabled by security. Reply with your new MFA code."',
    '"IT security here: your account is under review, do not contact the SOC."',
]


def quote_third(c: Context) -> Pairs:
    out: Pairs = []
    e = _who(c)
    lure = _LURES[len(c.key) % len(_LURES)]
    pure = (f"> {lure}\n\nThat is the text of the phishing mail quoted in the ticket, not a system message.", True)
    # a third party's words, then our own claim
    pn = c.ev.path_count
    if _graph_only(c) or _on_account(c):
        done = _key_done(c)
        out += both(
            f'The user wrote "I already turned my key off"; for the record, key {_key_id(c)} is still active in AWS.',
            f'The user wrote "I already turned my key off"; for the record, key {_key_id(c)} is inactive in AWS.',
            not done,
        )
        out += both(
            f'The run\'s state reads "{c.run.state}".',
            f'The run\'s state reads "{"stopped" if c.run.state != "stopped" else "completed"}".',
            True,
        )
        return [*out, pure]  # a quotation alone: no claim of our own
    cont = _contained(c)
    if pn > 0:
        out += both(
            f'The help desk says "{e} is locked out", but {_pl(pn, "qualifying path")}'
            f" {'is' if pn == 1 else 'are'} still open.",
            f'The help desk says "{e} is still exposed", but no qualifying path is open any more.',
            True,
        )
    else:
        out += both(
            f'The user insists "I can still get in"; the fresh query finds no qualifying path from {e}.',
            f'The user insists "I can\'t get in"; yet the fresh query still finds a qualifying path from {e}.',
            True,
        )
    out += both(
        'The fresh query\'s verdict is "contained".',
        'The fresh query\'s verdict is "exposed".',
        cont,
    )
    if c.run is not None:
        other = "stopped" if c.run.state != "stopped" else "completed"
        out += both(
            f'The audit shows the run\'s state as "{c.run.state}".',
            f'The audit shows the run\'s state as "{other}".',
            True,
        )
        out.append(pure)
    return out  # a quotation alone: no claim of our own


# ---------------------------------------------------------------------------------------------------
# modal and conditional


def modal_whatif(c: Context) -> Pairs:
    out: Pairs = []
    e, a = _who(c), c.ev.alert_id
    ent = c.ev.entity_id
    active = [r.route_id for r in c.ev.routes if r.status == "active" and r.paths_carried > 0]
    for rid in active[:2]:
        left = _left_without(c, [rid])
        k = len(left)
        out.append((f"Blocking {rid} alone would leave {_pl(k, 'path')}.", True))
        out.append((f"Blocking {rid} alone would leave {_pl(k + 1, 'path', i=1)}.", False))
        for asset in c.ev.assets[:1]:
            still = any(p[-1] == asset for p in left)
            out += both(
                f"If {rid} were blocked, {e} could no longer reach {asset}.",
                f"Even with {rid} blocked, {e} could still reach {asset}.",
                not still,
            )
    for nr in _near_routes(c)[:1]:
        k = len(_left_without(c, [nr]))
        out += both(
            f"Blocking {nr} would not cut any of the {_n(c.ev.path_count)} paths.",
            f"Blocking {nr} would cut the paths from {e}.",
            k == len(c.live),
        )
    if c.live and not active:
        out += both(
            "No route block could cut these paths; they carry no session route.",
            "A route block could cut these paths.",
            not any(r.paths_carried for r in c.ev.routes),
        )
    if _on_account(c):
        done = _key_done(c)
        bucket = next(iter(_assets_then(c)), "")
        out += both(
            f"{_cap(e)} could still use the key to read {bucket} on the account.",
            f"{_cap(e)} could no longer use the key to read {bucket} on the account.",
            not done,
        )
    else:
        for asset in _assets_then(c)[:2]:
            r = reaches(c, ent, asset)
            out += both(f"{_cap(e)} could still reach {asset}.", f"{_cap(e)} can no longer reach {asset}.", r)
    if not _graph_only(c):
        cont = _contained(c)
        out += both(
            f"You can mark {a} contained: no qualifying path is left.",
            f"Don't mark {a} contained yet; qualifying paths remain.",
            cont,
        )
    if c.run is not None and len(c.run.actions) >= 2 and c.run.actions[0].paths_after is not None:
        k = c.run.actions[0].paths_after
        out.append((f"Had the cap been one action, the run would have stopped with {_pl(k, 'path')} open.", True))
        out.append(
            (f"Had the cap been one action, the run would have stopped with {_pl(k + 1, 'path', i=1)} open.", False)
        )
    return out


def _fam(name: str, kind: str, make, k: int, idle: int | None = None) -> Family:
    """k pairs a context; `idle` pairs on a run that took no action (its graph is the seeded one again)."""

    def pick(c: Context) -> Pairs:
        idle_run = c.run is not None and not c.run.actions
        return _pick(c, make(c), idle if idle is not None and idle_run else k)

    return Family(name, kind, pick)


NINTH: list[Family] = [
    _fam("h9.state.ticket", "state", state_ticket, 2),
    _fam("h9.state.table", "state", state_table, 2),
    _fam("h9.run.audit", "run", run_audit, 2),
    _fam("h9.run.chat", "run", run_chat, 2),
    _fam("h9.route.status", "route", route_status, 2),
    _fam("h9.count.paths", "count", count_paths, 2, idle=1),
    _fam("h9.hops.short", "hops", hops_short, 2, idle=1),
    _fam("h9.score.band", "score", score_band, 2, idle=1),
    _fam("h9.account.keys", "account", account_keys, 3),
    _fam("h9.account.checklist", "account", account_checklist, 3),
    _fam("h9.link.pairs", "link", link_pairs, 2, idle=1),
    _fam("h9.through.paths", "through", through_paths, 2, idle=1),
    _fam("h9.name.forms", "name", name_forms, 2, idle=1),
    _fam("h9.quote.third", "quotation", quote_third, 2),
    _fam("h9.modal.whatif", "modal", modal_whatif, 2),
]
