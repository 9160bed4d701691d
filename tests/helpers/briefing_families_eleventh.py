"""The eleventh held-out set: question-and-answer and colleague-chat phrasing, labelled from facts.

Written without seeing the checker's rules (blastshield_core/brief/) or any earlier family set. Every
label is computed from the Context's facts: the fresh evidence (paths, routes, score, cut-off entities),
the run record (state, reason, actions and their account fields) and the exported graph's relationships.

Conventions this set keeps, so that the labels are consistent:
- a hedged claim ("I think X", "I believe X", "probably X") claims X;
- a quotation of a colleague, a user, a ticket or an attacker claims nothing; the writer's own reply
  to it ("that's right", "no, ...") is the claim;
- a question claims nothing; its answer is the claim ("Is X blocked? Yes." claims X is blocked);
- a conditional claims only what it asserts (a what-if count is a claim about the dry run; a plan
  "if ..., we should ..." claims nothing);
- on the AWS graph-only run, "contained" alone is never written (the graph has no path while the key
  still works on the account): only "in the graph" and "on the account / in AWS" claims are made there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from tests.helpers.briefing_families import Context, Family, both, paths_at_start, words

__all__ = ["ELEVENTH"]

Pair = tuple[str, bool]

# -- facts shared by the families -------------------------------------------------------------------


def _known(c: Context) -> set[str]:
    return set(c.ev.names.values()) | {c.ev.entity_id}


def _name(c: Context, i: str) -> str:
    return c.names.get(i, i)


def _aws(c: Context) -> bool:
    return c.key.startswith("aws/")


def _graph_only(c: Context) -> bool:
    return c.run is not None and c.run.state == "graph_only"


def _exposed(c: Context) -> bool:
    return c.ev.path_count > 0


def _entity(c: Context) -> str:
    return c.ev.entity_id


def _short_entity(c: Context) -> str:
    """How an analyst names the alert's entity: the plain name for AWS ids, else the graph id."""
    return _name(c, _entity(c)) if _aws(c) else _entity(c)


def _assets_in_play(c: Context) -> list[str]:
    """High/critical assets reached now, or (contained) those the run cut off."""
    if c.ev.assets:
        return list(c.ev.assets)
    readable = {d for s, t, d, _ in c.edges if t == "CAN_READ"}
    known = _known(c)
    cut = [x for x in c.ev.cut_off_entities if x in readable and x in known]
    return cut


def _blocked_by_run(c: Context) -> list[str]:
    if c.run is None:
        return []
    return [a.route_id for a in c.run.actions if a.status == "applied" and a.operation == "block_route"]


def _revoked(c: Context) -> bool:
    if c.run is None:
        return False
    return any(a.operation != "block_route" and a.status == "applied" for a in c.run.actions)


def _start_score(c: Context) -> int | None:
    if c.run is None:
        return None
    step = next((s for s in c.run.steps if s.kind == "investigate"), None)
    if step is None or "risk_score" not in step.data:
        return None
    return int(step.data["risk_score"])


def _shortest_to(c: Context, asset: str) -> int | None:
    hops = [p.index(asset) for p in c.live if asset in p]
    return min(hops) if hops else None


def _band(score: int) -> str:
    return "low" if score < 30 else "medium" if score < 60 else "high" if score < 80 else "critical"


def _key_id(c: Context) -> str:
    if c.run is None:
        return ""
    for a in c.run.actions:
        if a.aws is not None and a.aws.plan.target is not None:
            target = a.aws.plan.target
            key = target.get("access_key_id", "") if isinstance(target, dict) else getattr(target, "access_key_id", "")
            if key:
                return str(key)
    return ""


def _user_arn(c: Context) -> str:
    return c.arns.get(_entity(c), "")


def _bucket(c: Context) -> str:
    return next((i for i in _known(c) if ":bucket:" in i), "")


def _plural(n: int, word: str) -> str:
    return f"{words(n)} {word}" + ("" if n == 1 else "s")


# -- state -----------------------------------------------------------------------------------------


def state_qa(c: Context) -> Iterator[Pair]:
    if _graph_only(c):
        # only the graph-side and account-side claims, never a bare "contained"
        bucket = _bucket(c)
        yield from both(
            f"Is there still a qualifying path from alice to {_name(c, bucket)} in the graph? No, the graph shows none.",
            f"Is there still a qualifying path from alice to {_name(c, bucket)} in the graph? Yes, one is still open.",
            not _exposed(c),
        )
        yield from both(
            "Is alice contained on the AWS account itself? No: the key was blocked in the graph only.",
            "Is alice contained on the AWS account itself? Yes, the key is disabled there too.",
            not c.account_done("key"),
        )
        return
    a, e = c.ev.alert_id, _exposed(c)
    assets = _assets_in_play(c)
    yield from both(
        f"Is {a} still exposed? Yes, a qualifying path is still open.",
        f"Is {a} still exposed? No, it's contained now.",
        e,
    )
    yield from both(
        f"I think {a} is contained.",
        f"I don't think {a} is contained yet.",
        not e,
    )
    if assets:
        ent, asset = _short_entity(c), assets[0]
        yield from both(
            f"Can {ent} still get to {asset}? Short answer: yes.",
            f"Can {ent} still get to {asset}? Short answer: no, not any more.",
            any(ent == p[0] and asset in p for p in c.live) or (_aws(c) and bool(c.live)),
        )
    yield from both(
        f"Status check on {a if _aws(c) else a.upper()}: exposed, paths still open.",
        f"Status check on {a if _aws(c) else a.upper()}: contained, no open paths.",
        e,
    )


def state_correction(c: Context) -> Iterator[Pair]:
    if _graph_only(c):
        yield from both(
            "Marco says alice is fully contained in AWS. He's wrong: the access key still works on the account.",
            "Marco says the access key still works on the account. He's wrong: alice is fully contained in AWS.",
            not c.account_done("key"),
        )
        return
    a, e = c.ev.alert_id, _exposed(c)
    yield from both(
        f"Priya says {a} is contained. She's wrong, it's still exposed.",
        f"Priya says {a} is still exposed. She's wrong, it's contained.",
        e,
    )
    yield from both(
        f"Correction to my earlier message: {a} is not contained; the fresh query still finds a qualifying path.",
        f"Correction to my earlier message: {a} is contained; the fresh query finds no qualifying path.",
        e,
    )
    if c.run is not None:
        yield from both(
            f"You wrote that the run left {a} exposed. That's right, paths remain after it.",
            f"You wrote that the run left {a} exposed. That's not right, nothing remains after it.",
            e,
        )


# -- run -------------------------------------------------------------------------------------------


def run_qa(c: Context) -> Iterator[Pair]:
    a = c.ev.alert_id
    if c.run is None:
        yield from both(
            f"Has anyone run containment on {a} yet? No, there's no run for it.",
            f"Has anyone run containment on {a} yet? Yes, a rules run already went through.",
            True,
        )
        yield from both(
            f"No containment run has been made for {a} so far, so nothing has been blocked by us.",
            f"The containment run on {a} completed earlier today.",
            True,
        )
        return
    r, s = c.run, c.run.state
    yield from both(
        f"Did the latest run on {a} complete? Yes, it ended completed.",
        f"Did the latest run on {a} complete? No, it did not end completed.",
        s == "completed",
    )
    yield from both(
        f"The run on {a} was stopped before it could contain the alert.",
        f"The run on {a} was not stopped.",
        s == "stopped",
    )
    capped = s == "stopped" and "cap" in r.reason
    if capped or len(r.actions) < r.max_actions:
        yield from both(
            f"Did the run hit its action cap? Yes, it stopped at the cap of {words(r.max_actions)}.",
            "Did the run hit its action cap? No, the cap was never reached.",
            capped,
        )
    yield from both(
        f"Which decider ran the containment of {a}? The {r.decider} decider.",
        f"Which decider ran the containment of {a}? The {'gemini' if r.decider != 'gemini' else 'rules'} decider.",
        True,
    )
    if _aws(c):
        yield from both(
            f"I believe the run on {a} ended graph_only: blocked in the graph, not on the account.",
            f"I believe the run on {a} did not end graph_only.",
            s == "graph_only",
        )


def run_statusline(c: Context) -> Iterator[Pair]:
    a = c.ev.alert_id
    if c.run is None:
        yield from both(f"⏳ {a}: no containment run yet", f"✅ {a}: contained by the rules run", True)
        yield from both(
            f"| alert | run state |\n|---|---|\n| {a} | none yet |",
            f"| alert | run state |\n|---|---|\n| {a} | completed |",
            True,
        )
        return
    s = c.run.state
    others = [x for x in ("completed", "stopped", "graph_only") if x != s]
    yield from both(f"✅ Completed: {a}", f"❌ Not completed: {a}", s == "completed")
    yield (f"| alert | run state |\n|---|---|\n| {a} | {s} |", True)
    yield (f"| alert | run state |\n|---|---|\n| {a} | {others[0]} |", False)
    if s == "stopped":
        capped = "cap" in c.run.reason
        yield from both(
            f"## Latest run on {a}\nStopped at the action cap with a path still open.",
            f"## Latest run on {a}\nStopped without reaching the action cap.",
            capped,
        )
    else:
        yield from both(
            f"🟢 {a}: run ended {s}, no qualifying path left in the graph",
            f"🔴 {a}: run ended {s}, qualifying paths still open in the graph",
            not _exposed(c),
        )
    yield from both(
        f"- [x] {a}: fresh re-query after the run shows no qualifying path",
        f"- [x] {a}: fresh re-query after the run still shows qualifying paths",
        not _exposed(c),
    )


# -- account ---------------------------------------------------------------------------------------


def account_qa(c: Context) -> Iterator[Pair]:
    if not _aws(c):
        if c.run is None:
            return
        a = c.ev.alert_id
        yield from both(
            f"Were any access keys disabled in AWS for {a}? No, nothing was changed on an AWS account.",
            f"Were any access keys disabled in AWS for {a}? Yes, one key was set Inactive.",
            not c.account_done("key"),
        )
        return
    key_done, pol_done = c.account_done("key"), c.account_done("policy")
    arn, key = _user_arn(c), _key_id(c)
    yield from both(
        "Was alice's access key deactivated in AWS? Yes, it reads back Inactive.",
        "Was alice's access key deactivated in AWS? No, it is still active on the account.",
        key_done,
    )
    yield from both(
        f"The key change on {arn} was applied in AWS and verified through the API.",
        "Heads up: this was not applied in AWS; the key is blocked in the graph only.",
        key_done,
    )
    yield from both(
        "No deny-all policy was attached to alice.",
        f"A deny-all inline policy was attached to {arn}.",
        not pol_done,
    )
    yield from both(
        "Have alice's existing sessions been revoked? No, not yet.",
        "Have alice's existing sessions been revoked? Yes, they were revoked on the account.",
        not _revoked(c),
    )
    if key:
        yield from both(
            f"I think {key} is Inactive on the account now.",
            f"I think {key} is still Active on the account.",
            key_done,
        )
    yield from both(
        'Sam: "we disabled alice\'s key in AWS." Me: correct, it was disabled and the API confirms it.',
        'Sam: "we disabled alice\'s key in AWS." Me: not quite, it was only blocked in the graph.',
        key_done,
    )


# -- route -----------------------------------------------------------------------------------------


def route_status(c: Context) -> Iterator[Pair]:
    routes = sorted(c.ev.routes, key=lambda r: (-r.paths_carried, r.route_id))[:2]
    run_blocked = set(_blocked_by_run(c))
    for r in routes:
        rid = r.route_id if _aws(c) else r.route_id.upper()
        blocked = r.status == "blocked"
        if _graph_only(c):
            yield from both(
                f"Is {rid} blocked in the graph? Yes.",
                f"Is {rid} blocked in the graph? No, it's active.",
                blocked,
            )
            continue
        yield from both(f"Is {rid} blocked? Yes.", f"Is {rid} blocked? No, still active.", blocked)
        yield from both(
            f"| route | status |\n|---|---|\n| `{r.route_id}` | {'blocked' if blocked else 'active'} |",
            f"| route | status |\n|---|---|\n| `{r.route_id}` | {'active' if blocked else 'blocked'} |",
            True,
        )
        if r.route_id in run_blocked or not blocked:
            yield (f"{r.route_id}: ~~active~~ **blocked**", blocked)
    active = [r.route_id for r in c.ev.routes if r.status == "active" and r.type == "HAS_SESSION"]
    blocked_ = [r.route_id for r in c.ev.routes if r.status == "blocked" and r.type == "HAS_SESSION"]
    pair = sorted(r.route_id for r in c.ev.routes if r.type == "HAS_SESSION")[:2]
    if len(pair) == 2 and not _aws(c):
        x, y = pair
        yield (f"Neither {x} nor {y} has been blocked.", x in active and y in active)
        yield (f"Both {x} and {y} are blocked now.", x in blocked_ and y in blocked_)
    if c.run is not None and not _aws(c):
        listed = sorted(run_blocked)
        wrong = sorted(set(listed) | {r.route_id for r in c.ev.routes if r.route_id not in run_blocked})[:3]
        if listed:
            yield (f"Which routes did the run block? {', '.join(listed)}.", True)
        else:
            yield ("Which routes did the run block? None, it blocked nothing.", True)
        if wrong and set(wrong) != set(listed):
            yield (f"Which routes did the run block? {', '.join(wrong)}.", False)


# -- count -----------------------------------------------------------------------------------------


def count_paths(c: Context) -> Iterator[Pair]:
    a, n = c.ev.alert_id, c.ev.path_count
    yield from both(
        f"How many qualifying paths does {a} have right now? {words(n).capitalize()}.",
        f"How many qualifying paths does {a} have right now? {words(n + 1).capitalize()}.",
        True,
    )
    yield from both(
        f"{n} path{'s' if n != 1 else ''} left in the graph for {a}, per the fresh query.",
        f"{n + 2} paths left in the graph for {a}, per the fresh query.",
        True,
    )
    if c.run is not None:
        start = paths_at_start(c)
        cut = start - n
        if start:
            wrong = cut + 1 if cut + 1 <= start else cut - 1
            yield from both(
                f"In the graph, the run cut {words(cut)} of the {words(start)} paths it started with.",
                f"In the graph, the run cut {words(wrong)} of the {words(start)} paths it started with.",
                True,
            )
            pct = round(100 * cut / start)
            wrong_pct = 100 if pct != 100 else 50
            yield from both(
                f"Roughly {pct}% of the starting paths are gone from the graph.",
                f"Roughly {wrong_pct}% of the starting paths are gone from the graph.",
                True,
            )
        yield from both(
            f"Did the run cut any paths in the graph at all? {'Yes' if cut else 'No'}.",
            f"Did the run cut any paths in the graph at all? {'No' if cut else 'Yes'}.",
            True,
        )
    assets = c.ev.assets
    if assets:
        k = len(assets)
        yield from both(
            f"I count {_plural(k, 'high or critical asset')} within reach.",
            f"I count {_plural(k + 1, 'high or critical asset')} within reach.",
            True,
        )


# -- hops ------------------------------------------------------------------------------------------


def hops_shortest(c: Context) -> Iterator[Pair]:
    ent = _short_entity(c)
    if not c.live:
        # "there is none" is a claim of containment (false while paths are open on the AWS account); a length is
        # the graph's
        yield (
            "Q: how long is the shortest open path now? A: there is none, no qualifying path within six hops.",
            c.contained,
        )
        yield ("Q: how long is the shortest open path now? A: still four hops.", False)
        return
    for asset in c.ev.assets[:3]:
        h = _shortest_to(c, asset)
        if h is None:
            continue
        yield from both(
            f"How far is {asset} from {ent}? {_plural(h, 'hop').capitalize()} on the shortest path.",
            f"How far is {asset} from {ent}? {_plural(h + 1, 'hop').capitalize()} on the shortest path.",
            True,
        )
        if h == 1:
            yield (f"{ent} is a single hop away from {asset}.", True)
        else:
            yield (f"{ent} is a single hop away from {asset}.", False)
    shortest = min(len(p) - 1 for p in c.live)
    yield from both(
        f"I'd put the shortest path at between {shortest} and {shortest + 1} hops.",
        f"I'd put the shortest path at between {shortest + 1} and {shortest + 2} hops.",
        True,
    )


# -- score -----------------------------------------------------------------------------------------


def score_qa(c: Context) -> Iterator[Pair]:
    if _graph_only(c):  # the graph's score and the account's differ there
        return
    a, sc, sev = c.ev.alert_id, c.ev.risk_score, c.ev.severity
    wrong = sc + 15 if sc + 15 <= 100 else sc - 15
    yield from both(
        f"What's {a}'s risk score? {sc}, {sev}.",
        f"What's {a}'s risk score? {wrong}, {_band(wrong)}.",
        True,
    )
    yield from both(
        f"Is {a} rated critical? No, it's {sev}.",
        f"Is {a} rated critical? Yes, critical.",
        sev != "critical",
    )
    lo = (sc // 10) * 10
    yield from both(
        f"The score sits somewhere between {lo} and {lo + 10}, I think.",
        f"The score sits somewhere between {lo + 20} and {lo + 30}, I think.",
        True,
    )
    start = _start_score(c)
    if start is not None:
        if start != sc:
            yield (f"Did the score move after the run? Yes, from {start} down to {sc}.", True)
            yield (f"Did the score move after the run? No, it stayed at {start}.", False)
        else:
            yield (f"Did the score move after the run? No, it stayed at {start}.", True)
            yield (f"Did the score move after the run? Yes, it dropped from {start} to {max(start - 20, 0)}.", False)
    fired = {f.rule for f in c.ev.factors}
    for rule in ("E3-multiple-paths", "E1-critical-reach"):
        yield from both(f"Did {rule} fire? Yes.", f"Did {rule} fire? No.", rule in fired)


# -- link ------------------------------------------------------------------------------------------

_VERB = {
    "HAS_SESSION": "use the session",
    "CAN_ACCESS": "reach the workload",
    "RUNS_AS": "run as",
    "CAN_ASSUME": "assume",
    "CAN_READ": "read",
}


def link_direct(c: Context) -> Iterator[Pair]:
    known = _known(c)
    edges = [
        (s, t, d)
        for s, t, d, _ in c.edges
        if s in known and d in known and t in _VERB and not (_aws(c) and t == "HAS_SESSION")
    ]
    # denied or blocked grants first, then working ones, then reversed pairs without a relationship
    edges.sort(key=lambda e: (c.edge_works(*e), e))
    picked = edges[:2] + [e for e in edges if c.edge_works(*e)][:2]
    rev = [(d, t, s) for s, t, d in edges if t in ("CAN_ASSUME", "RUNS_AS") and not c.edge(d, t, s)][:1]
    seen: set[tuple[str, str, str]] = set()
    for s, t, d in picked + rev:
        if (s, t, d) in seen:
            continue
        seen.add((s, t, d))
        works = c.edge_works(s, t, d)
        sn = _name(c, s) if _aws(c) else s
        dn = _name(c, d) if _aws(c) else d
        verb = _VERB[t]
        yield from both(
            f"Can {sn} {verb} {dn} directly? Yes.",
            f"Can {sn} {verb} {dn} directly? No, that one is denied, blocked or not there.",
            works,
        )
    # three entities: a workload, the role it runs as, what that role assumes
    for w, _, r in [e for e in edges if e[1] == "RUNS_AS"][:1]:
        for _r2, _, x in [e for e in edges if e[1] == "CAN_ASSUME" and e[0] == r][:2]:
            ok = c.edge_works(w, "RUNS_AS", r) and c.edge_works(r, "CAN_ASSUME", x)
            yield (f"{w} runs as {r}, which can assume {x}.", ok)


# -- through ---------------------------------------------------------------------------------------


def through_paths(c: Context) -> Iterator[Pair]:
    known = _known(c)
    live = c.live
    ent = _short_entity(c)
    if _graph_only(c):
        return
    if live:
        interior = sorted({n for p in live for n in p[1:-1]} & known)
        for z in interior[:3]:
            every = all(z in p for p in live)
            zn = _name(c, z) if _aws(c) else z
            yield from both(
                f"Does every open path from {ent} go through {zn}? Yes.",
                f"Does every open path from {ent} go through {zn}? No, at least one avoids it.",
                every,
            )
        if len(live) == 2:
            z = min({n for n in live[0][1:-1]} & known)
            yield (f"Both open paths run through {z}.", all(z in p for p in live))
            end = live[0][-1]
            yield (f"Both open paths end at {end}, as far as I can tell.", all(p[-1] == end for p in live))
        asset = c.ev.assets[0]
        for z in sorted(set(c.ev.cut_off_entities) & known)[:2]:
            yield from both(
                f"Is {z} still on a path to {asset}? No, it's been cut off.",
                f"Is {z} still on a path to {asset}? Yes, it's part of an open path.",
                not any(z in p for p in live),
            )
        for p in live[:2]:
            if len(p) >= 4:
                z1, asset_ = p[2], p[-1]
                yield (f"{ent} reaches {asset_} by way of {z1}.", True)
                # a node of another path, or none: the three-entity claim is false unless some path has it
                off = sorted(x for x in known if not any(x in q for q in live))
                if off:
                    z2 = off[len(p) % len(off)]
                    yield (
                        f"{ent} reaches {asset_} by way of {z2}.",
                        any(z2 in q and asset_ in q and q.index(z2) < q.index(asset_) for q in live),
                    )
    else:
        readable = {d for _, t, d, _ in c.edges if t == "CAN_READ"}
        cut = sorted(set(c.ev.cut_off_entities) & known - readable)
        for z in cut[:3]:
            if z == _entity(c):
                continue
            zn = _name(c, z) if _aws(c) else z
            yield from both(
                f"Does any open path still pass through {zn}? No.",
                f"Does any open path still pass through {zn}? Yes.",
                True,
            )


# -- name ------------------------------------------------------------------------------------------


def name_resolve(c: Context) -> Iterator[Pair]:
    ent = _entity(c)
    if _aws(c):
        arn = _user_arn(c)
        bucket = _bucket(c)
        barn = c.arns.get(bucket, "")
        yield from both(
            f"In the graph, can {arn} still reach {barn}? No.",
            f"In the graph, can {arn} still reach {barn}? Yes.",
            not c.live,
        )
        yield from both(
            f"Did the run block the access key of {arn} in the graph? Yes.",
            f"Did the run block the access key of {arn} in the graph? No.",
            bool(_blocked_by_run(c)),
        )
        yield from both(
            "ALICE's key to CROWN-JEWELS is blocked in the graph.",
            "ALICE's key to CROWN-JEWELS is still open in the graph.",
            not c.live,
        )
        return
    assets = _assets_in_play(c)
    for asset in assets[:2]:
        plain = _name(c, asset)
        if asset in c.ev.critical_assets or not c.ev.critical_assets:
            yield (
                f"Q: which critical asset is still in reach? A: the {plain} ({asset}).",
                asset in c.ev.critical_assets,
            )
            yield (
                "Q: which critical asset is still in reach? A: none, nothing critical is in reach any more.",
                not c.ev.critical_assets,
            )
        r = any(p[0] == ent and asset in p for p in c.live)
        yield from both(
            f"{asset.upper()} is reachable from {ent.upper()}.",
            f"{asset.upper()} is not reachable from {ent.upper()}.",
            r,
        )
        yield from both(
            f"Can the {_name(c, ent)} entity still reach the {plain}? Yes.",
            f"Can the {_name(c, ent)} entity still reach the {plain}? No.",
            r,
        )


# -- quotation -------------------------------------------------------------------------------------


def quotation_colleague(c: Context) -> Iterator[Pair]:
    a = c.ev.alert_id
    assets = _assets_in_play(c)
    asset = _name(c, assets[0]) if assets else "the data"
    # a quotation alone claims nothing, whatever it says
    yield (f'The phishing mail said: "access to {asset} has been revoked, click here to restore it."', True)
    if _graph_only(c):
        yield from both(
            'Ticket text: "all keys disabled." For the record, the key is still Active in AWS.',
            'Ticket text: "the key still works." For the record, the key is Inactive in AWS.',
            not c.account_done("key"),
        )
        yield ('> "alice is contained everywhere"\n\nThat is what the requester wrote in the ticket.', True)
        return
    e = _exposed(c)
    yield from both(
        f'> "Everything around {a} is locked down."\n\nThat quote is from the user, and it is wrong: {a} is still exposed.',
        f'> "Everything around {a} is locked down."\n\nThat quote is from the user, and it is right: {a} is contained.',
        e,
    )
    yield from both(
        f'Dana wrote "{a} is contained" in the channel; that was accurate.',
        f'Dana wrote "{a} is contained" in the channel; that was not accurate.',
        not e,
    )
    routes = [r for r in c.ev.routes if r.type == "HAS_SESSION"][:1]
    for r in routes:
        yield from both(
            f'The user told us "I never used that session". Regardless, {r.route_id} is {r.status}.',
            f'The user told us "I never used that session". Regardless, {r.route_id} is {"active" if r.status == "blocked" else "blocked"}.',
            True,
        )


# -- modal -----------------------------------------------------------------------------------------


def modal_whatif(c: Context) -> Iterator[Pair]:
    a, n = c.ev.alert_id, c.ev.path_count
    if _graph_only(c):
        yield ("If the respond profile is configured later, we should run the key deactivation again.", True)
        yield ("The key could no longer be used in AWS after the run.", c.account_done("key"))
        yield ("The key could still be used in AWS after the run.", not c.account_done("key"))
        return
    carrying = [r for r in c.ev.routes if r.status == "active" and r.paths_carried > 0]
    for r in carrying[:2]:
        rem = n - r.paths_carried
        yield from both(
            f"If we blocked {r.route_id}, {words(rem)} qualifying path{'s' if rem != 1 else ''} would remain.",
            f"If we blocked {r.route_id}, {words(rem + 1)} qualifying path{'s' if rem + 1 != 1 else ''} would remain.",
            True,
        )
        yield from both(
            f"Would blocking {r.route_id} alone contain {a}? Yes.",
            f"Would blocking {r.route_id} alone contain {a}? No, something would stay open.",
            rem == 0,
        )
    if n and not carrying:
        yield from both(
            f"Could a session-route block contain {a}? No, none of its paths carries an active session route.",
            f"Could a session-route block contain {a}? Yes, blocking one session route would do it.",
            True,
        )
    if not _aws(c):
        yield (f"If a fresh query finds no qualifying path, a run on {a} would count as completed.", True)
    if c.run is not None:
        yield (
            f"A fresh query has found no qualifying path, so the run on {a} counts as completed.",
            n == 0 and c.run.state == "completed",
        )
    assets = c.ev.assets
    if assets:
        ent = _short_entity(c)
        yield from both(
            f"{ent} could still reach {assets[-1]} if nobody acts.",
            f"{ent} could no longer reach {assets[-1]} even if nobody acts.",
            True,
        )


# -- account, as status lines and tables -------------------------------------------------------------


def account_status(c: Context) -> Iterator[Pair]:
    if not _aws(c):
        return
    key_done, pol_done = c.account_done("key"), c.account_done("policy")
    account = _entity(c).split(":")[0]
    yield from both(
        f"## AWS account {account}\nalice's access key: Inactive (applied and verified)",
        f"## AWS account {account}\nalice's access key: still Active (not applied in AWS)",
        key_done,
    )
    yield from both(
        f"| principal | key status in AWS |\n|---|---|\n| alice | {'Inactive' if key_done else 'Active'} |",
        f"| principal | key status in AWS |\n|---|---|\n| alice | {'Active' if key_done else 'Inactive'} |",
        True,
    )
    yield from both(
        "⚠️ Not applied in AWS: the block on alice's key exists in the graph only.",
        "✅ Applied in AWS: alice's key was deactivated on the account.",
        not key_done,
    )
    yield from both(
        "Is alice locked out of the account entirely? No, only the one access key was targeted and no deny-all policy was attached.",
        "Is alice locked out of the account entirely? Yes, a deny-all policy now locks her out.",
        not pol_done,
    )
    yield from both(
        "Q: which call did BlastShield send to AWS? A: iam:UpdateAccessKey, and AWS accepted it.",
        "Q: which call did BlastShield send to AWS? A: none, nothing was sent to the account.",
        key_done,
    )
    yield from both(
        "Sessions alice already obtained with the key keep working until they expire; nobody revoked them.",
        "alice's already-issued sessions were cut off as well.",
        not _revoked(c),
    )


# -- through, as arrow chains ------------------------------------------------------------------------


def _on_live(c: Context, chain: list[str]) -> bool:
    k = len(chain)
    return any(p[i : i + k] == chain for p in c.live for i in range(len(p) - k + 1))


def through_chain(c: Context) -> Iterator[Pair]:
    if _graph_only(c):
        return
    known = _known(c)
    ent = _entity(c)
    linked = [(s, d) for s, t, d, _ in c.edges if s in known and d in known]
    chains: list[list[str]] = []
    for s1, d1 in linked:
        if s1 != ent:
            continue
        for s2, d2 in linked:
            if s2 == d1 and d2 != s1:
                chains.append([s1, d1, d2])
    chains.sort(key=lambda ch: (not _on_live(c, ch), ch))
    open_ = [ch for ch in chains if _on_live(c, ch)][:2]
    shut = [ch for ch in chains if not _on_live(c, ch)][:2]
    show = (lambda i: _name(c, i)) if _aws(c) else (lambda i: i)
    for ch in open_ + shut:
        arrow = " → ".join(show(i) for i in ch)
        on = _on_live(c, ch)
        yield from both(
            f"Is {arrow} still part of an open qualifying path? Yes.",
            f"Is {arrow} still part of an open qualifying path? No, it isn't on any.",
            on,
        )
    carrying = [r.route_id for r in c.ev.routes if r.paths_carried > 0]
    routes = sorted(r.route_id for r in c.ev.routes if r.type == "HAS_SESSION")[:2]
    if len(routes) == 2 and not _aws(c):
        x, y = routes
        yield from both(
            f"Either {x} or {y} still carries an open path, I'm fairly sure.",
            f"I'm fairly sure neither {x} nor {y} carries an open path any more.",
            x in carrying or y in carrying,
        )


def _thinned(make: Callable[[Context], Iterable[Pair]]) -> Callable[[Context], Iterator[Pair]]:
    """Every other claim with its negation (chunks of two), alternating by context, so that each context
    gets a different half of a family's wordings and the set stays a few hundred sentences; a context with
    a single claim keeps it."""

    def thin(c: Context) -> Iterator[Pair]:
        items = list(make(c))
        offset = sum(map(ord, c.key)) % 2
        for i in range(0, len(items), 2):
            if len(items) <= 2 or (i // 2 + offset) % 2 == 0:
                yield from items[i : i + 2]

    return thin


ELEVENTH: list[Family] = [
    Family("h11.state.qa", "state", _thinned(state_qa)),
    Family("h11.state.correction", "state", _thinned(state_correction)),
    Family("h11.run.qa", "run", _thinned(run_qa)),
    Family("h11.run.statusline", "run", _thinned(run_statusline)),
    Family("h11.account.qa", "account", account_qa),
    Family("h11.account.status", "account", account_status),
    Family("h11.route.status", "route", _thinned(route_status)),
    Family("h11.count.paths", "count", _thinned(count_paths)),
    Family("h11.hops.shortest", "hops", _thinned(hops_shortest)),
    Family("h11.score.qa", "score", _thinned(score_qa)),
    Family("h11.link.direct", "link", _thinned(link_direct)),
    Family("h11.through.paths", "through", _thinned(through_paths)),
    Family("h11.through.chain", "through", _thinned(through_chain)),
    Family("h11.name.resolve", "name", _thinned(name_resolve)),
    Family("h11.quotation.colleague", "quotation", _thinned(quotation_colleague)),
    Family("h11.modal.whatif", "modal", _thinned(modal_whatif)),
]
