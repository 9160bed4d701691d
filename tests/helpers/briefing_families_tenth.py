"""The tenth held-out set: post-incident reports and executive summaries, labelled from facts.

Written without seeing the checker's rules. Each family's `make(c)` yields (text, truthful) pairs
whose truth is computed from the context's facts: the fresh evidence (`c.ev`), the run record
(`c.run`), the graph's relationships (`c.edges`) and the account fields of the run's actions
(`c.account_done`). Style: Impact / Scope / Timeline / Actions taken / Residual risk / Next steps
sections, before-and-after comparisons, passive voice, long sentences joining two or three claims,
numbers as words, digits, percentages and fractions.

A conditional or a quotation claims nothing of its own; a sentence is truthful when every claim it
makes holds, false when one does not. Where the facts do not decide a claim (a bare "contained" on a
run that ended graph_only, a path claim on the account), the instance is skipped or the claim is
qualified ("in the graph").
"""

from __future__ import annotations

from collections.abc import Iterator

from tests.helpers.briefing_families import Context, Family, both, paths_at_start, reaches, words

__all__ = ["TENTH"]

Groups = Iterator[list[tuple[str, bool]]]  # a claim with its negation, or one sentence
Pairs = Groups


# -- facts ---------------------------------------------------------------------------------------


def _state(c: Context) -> str | None:
    return str(c.run.state.value if hasattr(c.run.state, "value") else c.run.state) if c.run else None


def _graph_only(c: Context) -> bool:
    return _state(c) == "graph_only"


def _contained(c: Context) -> bool:
    """Contained in the graph (a fresh no_path); a graph_only run is never asked about bare "contained"."""
    return c.ev.containment_state == "contained" and c.ev.path_count == 0


def _acts(c: Context) -> list:
    return [a for a in (c.run.actions if c.run else []) if a.status == "applied" and a.verified]


def _blocked_by_run(c: Context) -> set[str]:
    return {a.route_id for a in _acts(c) if a.operation == "block_route"}


def _revoked(c: Context) -> bool:
    return any(a.operation.startswith("revoke") and a.applied is True and a.api_verified is True for a in _acts(c))


def _applied_in_aws(c: Context) -> bool:
    return any(a.aws is not None and a.aws.applied_in_aws is True for a in _acts(c))


def _aws(c: Context) -> bool:
    return any(a.aws is not None for a in (c.run.actions if c.run else []))


def _score_before(c: Context) -> int | None:
    if c.run is None:
        return None
    step = next((s for s in c.run.steps if s.kind == "investigate"), None)
    return int(step.data["risk_score"]) if step is not None and "risk_score" in step.data else None


def _assets_now(c: Context) -> list[str]:
    return list(c.ev.assets)


def _assets_cut(c: Context) -> list[str]:
    return sorted(x for x in c.ev.cut_off_entities if c.ev.adjacent.get(x) == "DataAsset")


def _cap_reached(c: Context) -> bool:
    return _state(c) == "stopped" and "action cap" in (c.run.reason if c.run else "")


def _sensitivity(c: Context, asset: str) -> str | None:
    if asset in c.ev.critical_assets:
        return "critical"
    if asset in c.ev.high_assets:
        return "high"
    return None


# -- wording helpers ----------------------------------------------------------------------------


def ref(c: Context, eid: str, i: int) -> str:
    """The entity by graph id, plain name, ARN or a different case, in turn."""
    forms = [eid]
    name = c.names.get(eid, "")
    if name and name != eid and list(c.names.values()).count(name) == 1:
        forms.append(name)
    arn = c.arns.get(eid, "")
    if arn and list(c.arns.values()).count(arn) == 1:
        forms.append(arn)
    if ":" not in eid and eid.upper() != eid:
        forms.append(eid.upper())
    elif name and name.upper() != name and list(c.names.values()).count(name) == 1:
        forms.append(name.upper())
    return forms[i % len(forms)]


def user_ref(c: Context, i: int) -> str:
    """The AWS user of the account claims: plain name, ARN, graph id, capitalised."""
    uid = c.ev.entity_id
    arn = c.arns.get(uid, "")
    forms = [c.user, arn, uid, c.user.capitalize()] if arn else [c.user]
    return forms[i % len(forms)]


def paths_word(n: int) -> str:
    return "path" if n == 1 else "paths"


def hops_word(n: int) -> str:
    return "hop" if n == 1 else "hops"


def cap_first(s: str) -> str:
    return s[:1].upper() + s[1:]


def other(n: int, bound: int | None = None) -> int:
    """A different number, plausible beside n."""
    if n == 0:
        return 1
    if bound is not None and n + 1 > bound:
        return n - 1
    return n + 1


# -- families -----------------------------------------------------------------------------------


def impact(c: Context) -> Pairs:
    """Impact / Residual risk sections on whether the exposure is closed."""
    a, e = c.ev.alert_id, ref(c, c.ev.entity_id, 1)
    if _graph_only(c):
        yield both(
            "## Impact\nThe exposure was closed in the graph only, whereas on the AWS account the key was never switched off.",
            "## Impact\nThe incident has been contained on the AWS account as well as in the graph.",
            True,
        )
        yield both(
            f"## Residual risk\n{c.user}'s credentials still work on the account, since the block was not applied in AWS.",
            f"## Residual risk\nNone remains: {c.user}'s key was disabled in AWS and the paths were severed in the graph.",
            True,
        )
        return
    if c.ev.entity_label == "Identity" and _aws(c):
        e = c.user
    s = _contained(c)
    asset = (_assets_now(c) or _assets_cut(c) or [""])[0]
    yield both(
        f"## Impact\nAccess from {e} to high or critical data has been contained.",
        f"## Impact\n{e} is still exposed, with at least one qualifying path to high or critical data left open.",
        s,
    )
    if asset:
        yield both(
            f"### Executive summary\nAlert {a} was contained by the containment run, and no qualifying path to "
            f"{ref(c, asset, 0)} is left.",
            f"### Executive summary\nAlert {a} remains open, while {ref(c, asset, 1)} is still reachable from {e}.",
            s,
        )
    yield both(
        f"It has been confirmed by a fresh query that no qualifying path remains from {e}.",
        f"Qualifying paths from {e} are still being returned by the fresh query.",
        s,
    )


def status_rows(c: Context) -> Pairs:
    """Status tables and emoji or checkbox status lines."""
    a, e = c.ev.alert_id, ref(c, c.ev.entity_id, 0)
    if _aws(c):
        key_off = c.account_done("key")
        yield both(
            f"| Alert | Graph | AWS account |\n|---|---|---|\n| {a} | contained | key {'disabled' if key_off else 'still active'} |",
            f"| Alert | Graph | AWS account |\n|---|---|---|\n| {a} | contained | key {'still active' if key_off else 'disabled'} |",
            True,
        )
        yield both(
            f"✅ {a}: blocked in the graph; ⚠️ not applied in AWS",
            f"✅ {a}: blocked in the graph and applied on the AWS account",
            not _applied_in_aws(c),
        )
        if not _graph_only(c):
            yield both(f"- [x] {a} contained", f"❌ {a} not contained", _contained(c))
        return
    s = _contained(c)
    yield both(
        f"| Alert | Entity | Status |\n|---|---|---|\n| {a} | {e} | Contained |",
        f"| Alert | Entity | Status |\n|---|---|---|\n| {a} | {e} | Exposed |",
        s,
    )
    yield both(f"✅ {a} — contained", f"🔴 {a} — still exposed", s)
    if c.run is not None:
        yield both(
            f"- [x] Containment run finished with state `{_state(c)}`",
            f"- [x] Containment run finished with state `{'stopped' if _state(c) == 'completed' else 'completed'}`",
            True,
        )


def run_verdict(c: Context) -> Pairs:
    """Timeline entries about the run and how it ended."""
    a = c.ev.alert_id
    st = _state(c)
    if st is None:
        yield both(
            f"No containment run has been carried out for {a} so far.",
            f"A containment run has already been completed for {a}.",
            True,
        )
        yield both(
            "## Timeline\nThe alert was raised and investigated, while no response action has been taken yet.",
            "## Timeline\nThe alert was raised, investigated and then contained by an automated run.",
            True,
        )
        return
    yield both(
        f"**Timeline.** The containment run for {a} ended with the verdict `completed`, resting on a fresh query that found no path.",
        f"**Timeline.** The containment run for {a} did not end with the verdict `completed`.",
        st == "completed",
    )
    yield both(
        "The run was stopped before the alert could be contained.",
        "The run was not stopped by the controller.",
        st == "stopped",
    )
    yield both(
        "The run ended graph_only: the block was planned in the graph and was not applied in AWS.",
        "The run did not end graph_only.",
        st == "graph_only",
    )
    if st == "stopped":
        yield both(
            f"The run was halted because its action cap of {words(c.run.max_actions)} was reached.",
            "The action cap was not what halted the run; it ran out of routes to block instead.",
            _cap_reached(c),
        )


def run_actions(c: Context) -> Pairs:
    """Actions taken: how many verified actions, out of what cap, by which decider."""
    if c.run is None:
        yield both(
            "Actions taken: none so far, as the alert has not yet been handed to a containment run.",
            "Actions taken: one route was blocked by the rules decider.",
            True,
        )
        return
    n, cap = len(_acts(c)), c.run.max_actions
    verb = "was" if n == 1 else "were"
    yield both(
        f"Actions taken: {words(n)} verified {'action' if n == 1 else 'actions'} {verb} recorded, against a cap of {cap}.",
        f"Actions taken: {words(other(n, cap))} verified {'action' if other(n, cap) == 1 else 'actions'} "
        f"{'was' if other(n, cap) == 1 else 'were'} recorded, against a cap of {cap}.",
        True,
    )
    yield both(
        f"{n} of the {cap} permitted actions {'was' if n == 1 else 'were'} used by the run.",
        f"{other(n, cap)} of the {cap} permitted actions {'was' if other(n, cap) == 1 else 'were'} used by the run.",
        True,
    )
    yield both(
        "No action at all was taken by the run.",
        "At least one action was taken and verified during the run.",
        n == 0,
    )
    yield both(
        f"The run was driven by the {c.run.decider} decider, as recorded in the audit.",
        f"The run was driven by the {'gemini' if c.run.decider != 'gemini' else 'rules'} decider.",
        True,
    )


def routes(c: Context) -> Pairs:
    """Route statuses: prose, passive, strikethrough, a table row, coordination."""
    rs = list(c.ev.routes)
    by_run = _blocked_by_run(c)
    for i, r in enumerate(rs[:3]):
        blocked = r.status == "blocked"
        rid = r.route_id
        if i % 3 == 0:
            yield both(f"Route {rid} has been blocked.", f"Route {rid} was left active.", blocked)
        elif i % 3 == 1:
            yield both(
                f"| Route | Status |\n|---|---|\n| {rid} | blocked |",
                f"| Route | Status |\n|---|---|\n| {rid} | active |",
                blocked,
            )
        else:
            yield both(f"{rid}: ~~active~~ **blocked**", f"{rid}: still **active**", blocked)
        if c.run is not None and i < 2:
            yield both(
                f"{rid} was blocked by this containment run, as the audit shows.",
                f"{rid} was not blocked by this containment run.",
                rid in by_run,
            )
    if len(rs) >= 2:
        x, y = rs[0], rs[1]
        both_b = x.status == "blocked" and y.status == "blocked"
        neither = x.status != "blocked" and y.status != "blocked"
        yield [
            (f"Both {x.route_id} and {y.route_id} have been blocked.", both_b),
            (f"Neither {x.route_id} nor {y.route_id} has been blocked.", neither),
        ]
    if c.ev.path_count > 0:
        carried = any(r.paths_carried > 0 for r in rs)
        n = c.ev.path_count
        if n == 1:
            yield both(
                "The one open path passes through no session route, so a route block cannot sever it.",
                "The one open path is carried by a session route that could be blocked.",
                not carried,
            )
        else:
            yield both(
                f"None of the {words(n)} open paths passes through a session route, so a route block cannot sever them.",
                f"At least one of the {words(n)} open paths is carried by a session route that could be blocked.",
                not carried,
            )


def count_percent(c: Context) -> Pairs:
    """Scope: severed paths as percentages and fractions."""
    start, now = paths_at_start(c), c.ev.path_count
    if start == 0:
        return
    where = " in the graph" if _graph_only(c) else ""
    cut = start - now
    pct = round(100 * cut / start)
    wrong = 100 if pct != 100 else 50
    yield both(
        f"Scope: {pct}% of the {words(start)} qualifying {paths_word(start)} found at the outset {'has' if start == 1 else 'have'} been severed{where}.",
        f"Scope: {wrong}% of the {words(start)} qualifying {paths_word(start)} found at the outset {'has' if start == 1 else 'have'} been severed{where}.",
        True,
    )
    if start == 1:
        yield both(
            f"The single path found at the outset is still open{where}.",
            f"The single path found at the outset has been closed{where}.",
            now == 1,
        )
    else:
        verb = "remains" if now == 1 else "remain"
        o = other(now, start)
        yield both(
            f"{cap_first(words(now))} of the {words(start)} original paths {verb} open{where}.",
            f"{cap_first(words(o))} of the {words(start)} original paths {'remains' if o == 1 else 'remain'} open{where}.",
            True,
        )
    yield both(
        f"More than half of the qualifying paths found at the start are still open{where}.",
        f"At most half of the qualifying paths found at the start are still open{where}.",
        now * 2 > start,
    )
    if c.run is not None:
        yield both(
            f"The number of qualifying paths went from {start} to {now} over the course of the run{where}.",
            f"The number of qualifying paths went from {start} to {other(now, start)} over the course of the run{where}.",
            True,
        )


def before_after(c: Context) -> Pairs:
    """Before/after tables and sentences comparing the evidence before and after the run."""
    start, now = paths_at_start(c), c.ev.path_count
    where = " (graph)" if _graph_only(c) else ""
    if c.run is None:
        yield both(
            f"| Measure | Current |\n|---|---|\n| Qualifying paths | {now} |",
            f"| Measure | Current |\n|---|---|\n| Qualifying paths | {other(now)} |",
            True,
        )
        yield both(
            f"| Measure | Current |\n|---|---|\n| Assets in reach (high or critical) | {len(c.ev.assets)} |",
            f"| Measure | Current |\n|---|---|\n| Assets in reach (high or critical) | {other(len(c.ev.assets))} |",
            True,
        )
        return
    yield both(
        f"| Measure | Before the run | After the run |\n|---|---|---|\n| Qualifying paths{where} | {start} | {now} |",
        f"| Measure | Before the run | After the run |\n|---|---|---|\n| Qualifying paths{where} | {start} | {other(now, start)} |",
        True,
    )
    yield both(
        f"Whereas {words(start)} qualifying {paths_word(start)} {'was' if start == 1 else 'were'} open before the run, "
        f"{words(now)} {'is' if now == 1 else 'are'} open after it{where and ' in the graph'}.",
        f"Whereas {words(start)} qualifying {paths_word(start)} {'was' if start == 1 else 'were'} open before the run, "
        f"{words(other(now, start))} {'is' if other(now, start) == 1 else 'are'} open after it{where and ' in the graph'}.",
        True,
    )
    yield both(
        f"The run changed nothing: {'the same path is' if start == 1 else f'the same {words(start)} paths are'} open as before.",
        "Fewer qualifying paths are open after the run than before it.",
        start == now,
    )


def hops(c: Context) -> Pairs:
    """Path lengths in words and digits, per asset and overall."""
    live = c.ev.paths
    e = ref(c, c.ev.entity_id, 0)
    if not live:
        where = " in the graph" if _graph_only(c) else ""
        for k in (4, 6):
            yield both(
                f"Not a single path of {words(k)} hops or fewer remains open from {e}{where}.",
                f"A {k}-hop path from {e} is still open{where}.",
                True,
            )
        return
    lengths = [p.hops for p in live]
    short, long_ = min(lengths), max(lengths)
    yield both(
        f"The shortest qualifying path spans {words(short)} {hops_word(short)}.",
        f"The shortest qualifying path spans {words(other(short))} {hops_word(other(short))}.",
        True,
    )
    if long_ > 1:
        yield both(
            f"Every open path is {long_} hops or shorter, while the longest runs to exactly {long_}.",
            f"Every open path is {long_ - 1} {hops_word(long_ - 1)} or shorter.",
            True,
        )
    seen: set[str] = set()
    for i, p in enumerate(live):
        asset = p.nodes[-1]
        if asset in seen:
            continue
        seen.add(asset)
        counts = {q.hops for q in live if q.nodes[-1] == asset}
        wrong = next(h for h in (p.hops + 1, p.hops + 2, p.hops - 1) if h not in counts and h > 0)
        yield both(
            f"A {words(p.hops)}-hop path leads from {ref(c, c.ev.entity_id, i)} to {ref(c, asset, i + 1)}.",
            f"A {words(wrong)}-hop path leads from {ref(c, c.ev.entity_id, i)} to {ref(c, asset, i + 1)}.",
            True,
        )
        if len(seen) >= 2:
            break


def score(c: Context) -> Pairs:
    """The risk score and band now, in ranges, words, and before/after the run."""
    s, sev, a = c.ev.risk_score, c.ev.severity, c.ev.alert_id
    bands = ["low", "medium", "high", "critical"]
    wrong_sev = bands[(bands.index(sev) + 1) % 4] if sev in bands else "critical"
    yield both(
        f"{a} is currently scored {s} ({sev}) under demo-rules-v1.",
        f"{a} is currently scored {s + 15} ({sev}) under demo-rules-v1.",
        True,
    )
    lo = (s // 10) * 10
    yield both(
        f"The risk score sits between {lo} and {lo + 10}.",
        f"The risk score sits between {lo + 20} and {lo + 30}.",
        True,
    )
    yield both(
        f"The alert is rated {sev}, with a score of {words(s)} out of a hundred.",
        f"The alert is rated {wrong_sev}, with a score of {words(s)} out of a hundred.",
        True,
    )
    before = _score_before(c)
    if before is not None:
        yield both(
            f"The risk score went from {before} before the run to {s} after it.",
            f"The risk score went from {before} before the run to {s + 10 if s == before else before} after it.",
            True,
        )
        yield both(
            "The score was left unchanged by the containment run.",
            "The score was lowered by the containment run.",
            before == s,
        )


_LINK = {
    "CAN_ASSUME": ("{a} is able to assume {b} directly", "{b} cannot be assumed by {a}"),
    "CAN_READ": ("{b} is readable by {a}", "{a} has no working read access to {b}"),
    "RUNS_AS": ("{a} runs as {b}", "{a} does not run as {b}"),
    "HAS_SESSION": ("{a} can use the session {b}", "{a} cannot use the session {b}"),
    "CAN_ACCESS": ("{a} gives access to {b}", "{a} does not give access to {b}"),
}


def link(c: Context) -> Pairs:
    """Relationships between two named entities, including denied, blocked and reversed ones."""
    from tests.helpers.briefing_families import pairs

    out = 0
    for rel in ("CAN_ASSUME", "CAN_READ", "HAS_SESSION", "RUNS_AS", "CAN_ACCESS"):
        for j, (x, y) in enumerate(pairs(c, rel)[:3]):
            if not c.edge(x, rel, y) and rel not in ("CAN_ASSUME", "CAN_READ"):
                continue  # a reversed pair reads as nonsense for sessions and workloads
            if out >= 5:
                return
            pos, neg = _LINK[rel]
            kw = {"a": ref(c, x, j), "b": ref(c, y, j + 1)}
            yield both(cap_first(pos.format(**kw)) + ".", cap_first(neg.format(**kw)) + ".", c.edge_works(x, rel, y))
            props = c.edge(x, rel, y)
            if props and "permission" in props[0] and len(props) == 1:
                denied = props[0]["permission"] == "deny"
                yield both(
                    f"The grant from {kw['a']} to {kw['b']} is explicitly denied.",
                    f"The grant from {kw['a']} to {kw['b']} is allowed.",
                    denied,
                )
            out += 1


def through(c: Context) -> Pairs:
    """Which entities the open paths run through."""
    live = c.live
    where = " in the graph" if _graph_only(c) else ""
    mids = sorted({n for p in live for n in p[1:-1]})
    cut = sorted(x for x in c.ev.cut_off_entities if x != c.ev.entity_id)
    if not live:
        for i, x in enumerate(cut[:3]):
            yield both(
                f"{ref(c, x, i)} no longer lies on any qualifying path{where}.",
                f"{ref(c, x, i)} still lies on a qualifying path{where}.",
                True,
            )
        return
    for i, x in enumerate((mids[:3] + cut[:2])[:4]):
        on = [p for p in live if x in p]
        n = len(live)
        yield both(
            f"Every remaining path runs through {ref(c, x, i)}.",
            f"At least one remaining path avoids {ref(c, x, i)}.",
            len(on) == n,
        )
        if n == 1:
            yield both(
                f"The only open path passes via {ref(c, x, i + 1)}.",
                f"The only open path does not pass via {ref(c, x, i + 1)}.",
                len(on) == 1,
            )
        elif n == 2:
            yield [
                (f"Both open paths run through {ref(c, x, i + 1)}.", len(on) == 2),
                (f"Only one of the two open paths runs through {ref(c, x, i + 1)}.", len(on) == 1),
            ]
        else:
            yield both(
                f"{cap_first(words(len(on)))} of the {words(n)} open paths {'passes' if len(on) == 1 else 'pass'} via {ref(c, x, i + 1)}.",
                f"{cap_first(words(other(len(on), n)))} of the {words(n)} open paths "
                f"{'passes' if other(len(on), n) == 1 else 'pass'} via {ref(c, x, i + 1)}.",
                True,
            )


def names(c: Context) -> Pairs:
    """Reach and sensitivity claims naming entities by plain name, ARN, graph id or another case."""
    ent = c.ev.entity_id
    where = " in the graph" if _graph_only(c) else ""
    for i, asset in enumerate(_assets_now(c)[:3]):
        yield both(
            f"Scope: {ref(c, ent, i + 1)} can still reach {ref(c, asset, i + 1)}.",
            f"Scope: {ref(c, ent, i + 1)} can no longer reach {ref(c, asset, i + 1)}.",
            reaches(c, ent, asset),
        )
        sens = _sensitivity(c, asset)
        if sens:
            yield both(
                f"{ref(c, asset, i)} is classified {sens}, as well as being within reach of {ref(c, ent, i)}.",
                f"{ref(c, asset, i)} is classified {'high' if sens == 'critical' else 'critical'}.",
                True,
            )
    for i, asset in enumerate(_assets_cut(c)[:2]):
        yield both(
            f"{ref(c, asset, i + 1)} can no longer be reached from {ref(c, ent, i + 2)}{where}.",
            f"{ref(c, asset, i + 1)} is still reachable from {ref(c, ent, i + 2)}{where}.",
            not reaches(c, ent, asset),
        )
    if c.ev.critical_assets:
        crit = c.ev.critical_assets
        yield both(
            f"The critical data in scope is {', '.join(ref(c, x, 1) for x in crit)}, and nothing else.",
            f"No critical asset is in scope for {ref(c, ent, 1)}.",
            True,
        )


def modal(c: Context) -> Pairs:
    """Next steps: recommendations and conditionals, true only through the claims they assert."""
    a = c.ev.alert_id
    rs = list(c.ev.routes)
    blocked = [r for r in rs if r.status == "blocked"]
    # a pure conditional: no claim of its own
    if blocked:
        yield [
            (f"If {blocked[0].route_id} were released, whatever it used to cut would have to be checked again.", True)
        ]
    else:
        yield [
            (f"Should {a} be reopened, a fresh query would be needed before it could be called contained again.", True)
        ]
    for r in rs[:2]:
        if r.status == "active":
            yield both(
                f"Next steps: {r.route_id}, which is still active, may need to be blocked.",
                f"Next steps: {r.route_id}, which has already been blocked, might be released once the case closes.",
                True,
            )
        else:
            yield both(
                f"Next steps: {r.route_id}, which has already been blocked, might be released once the case closes.",
                f"Next steps: {r.route_id}, which is still active, may need to be blocked.",
                True,
            )
    for r in [r for r in rs if r.status == "active" and r.paths_carried > 0][:1]:
        pc = r.paths_carried
        yield both(
            f"Were the action cap raised, the run could go on to block {r.route_id}, which still carries "
            f"{words(pc)} qualifying {paths_word(pc)}.",
            f"Were the action cap raised, the run could go on to block {r.route_id}, which still carries "
            f"{words(other(pc))} qualifying {paths_word(other(pc))}.",
            True,
        )
    s, sev = c.ev.risk_score, c.ev.severity
    yield both(
        f"The alert should be handled as {sev} priority, since it currently scores {s}.",
        f"The alert should be handled as {sev} priority, since it currently scores {s + 20}.",
        True,
    )
    if not _graph_only(c):
        yield both(
            "Since the alert is already contained, no further route needs to be blocked.",
            "Because qualifying paths remain open, further action will be needed.",
            _contained(c),
        )
    else:
        yield both(
            "Because the change was not applied in AWS, the key should still be deactivated on the account.",
            "Because the key was already deactivated in AWS, nothing further is needed on the account.",
            True,
        )


def quotation(c: Context) -> Pairs:
    """Third parties quoted (no claim), and the briefing's own claims beside the quotes."""
    a, e = c.ev.alert_id, ref(c, c.ev.entity_id, 1)
    n = c.ev.path_count
    if sum(map(ord, c.key)) % 2:
        yield [
            (
                '> "Everything is locked down and every session was revoked," the on-call engineer wrote in the ticket.',
                True,
            )
        ]
    else:
        asset0 = (c.ev.assets or _assets_cut(c) or [c.ev.entity_id])[0]
        yield [
            (
                f'The phishing message read: "Your access to {ref(c, asset0, 0)} has been suspended, click here to restore it."',
                True,
            )
        ]
    if not _graph_only(c):
        yield both(
            f'The ticket was updated to "contained", and this report confirms that {a} is contained.',
            f'The ticket still says "open", and this report confirms that {a} is not contained.',
            _contained(c),
        )
    where = " in the graph" if _graph_only(c) else ""
    yield both(
        f'The requester wrote "I think it is fixed"; the evidence shows {words(n)} qualifying {paths_word(n)} open{where}.',
        f'The requester wrote "I think it is fixed"; the evidence shows {words(other(n))} qualifying '
        f"{paths_word(other(n))} open{where}.",
        True,
    )
    asset = (_assets_now(c) or _assets_cut(c) or [""])[0]
    if asset:
        r = reaches(c, c.ev.entity_id, asset)
        yield both(
            f'According to the attacker\'s note, "{asset} has been copied"; the graph shows that {e} can still reach {ref(c, asset, 1)}{where}.',
            f'According to the attacker\'s note, "{asset} has been copied"; the graph shows that {e} can no longer reach {ref(c, asset, 1)}{where}.',
            r,
        )
    if c.ev.entity_label == "Identity":
        ent = c.ev.entity_id
        k = sum(
            1 for x, t, _, p in c.edges if x == ent and t == "HAS_SESSION" and p.get("status", "active") == "active"
        )
        o = other(k)
        yield both(
            f'The user insisted "I only ever used one session", whereas the graph shows {ref(c, ent, 0)} with '
            f"{words(k)} active session {'route' if k == 1 else 'routes'}.",
            f'The user insisted "I only ever used one session", whereas the graph shows {ref(c, ent, 0)} with '
            f"{words(o)} active session {'route' if o == 1 else 'routes'}.",
            True,
        )
    if _aws(c):
        key = c.account_done("key")
        yield both(
            f'The key\'s owner said "I already rotated it"; BlastShield records that the key was '
            f"{'deactivated' if key else 'not deactivated'} in AWS by the run.",
            f'The key\'s owner said "I already rotated it"; BlastShield records that the key was '
            f"{'not deactivated' if key else 'deactivated'} in AWS by the run.",
            True,
        )


def account(c: Context) -> Pairs:
    """Claims about the AWS account: keys disabled, policies attached, sessions revoked, not applied in AWS."""
    a = c.ev.alert_id
    if not _aws(c):
        if c.run is not None:
            yield both(
                f"The run for {a} made no change on any AWS account.",
                f"The run for {a} disabled {ref(c, c.ev.entity_id, 0)}'s credentials in AWS.",
                not c.account_done("credential"),
            )
        return
    key = c.account_done("key")
    pol = c.account_done("policy")
    rev = _revoked(c)
    u = [user_ref(c, i) for i in range(4)]
    yield both(
        f"Actions taken: {u[0]}'s access key was deactivated on the AWS account and verified by reading it back.",
        f"{u[0]}'s access key has not been disabled in AWS, since the block exists in the graph only.",
        key,
    )
    yield both(
        f"A deny-all inline policy was attached to {u[1]} on the account.",
        f"No deny-all policy was attached to {u[1]}.",
        pol,
    )
    yield both(
        f"The active sessions of {u[2]} were revoked in AWS as well.",
        f"Sessions already issued to {u[2]} were not revoked and stay valid until they expire.",
        rev,
    )
    yield both(
        "The change was not applied in AWS.",
        "The change was applied in AWS and confirmed by the API.",
        not _applied_in_aws(c),
    )
    yield both(
        f"| Control | Graph | AWS account |\n|---|---|---|\n| {u[3]}'s access key | blocked | {'inactive' if key else 'active'} |",
        f"| Control | Graph | AWS account |\n|---|---|---|\n| {u[3]}'s access key | blocked | {'active' if key else 'inactive'} |",
        True,
    )
    yield both(
        "The key can still be used against AWS APIs, whereas the graph shows the route blocked.",
        "The key can no longer be used against AWS APIs, and the graph shows the route blocked as well.",
        not key,
    )


def compound(c: Context) -> Pairs:
    """One long sentence joining three claims (the run, the open paths, the band): false when any one is."""
    st = _state(c)
    n, sev = c.ev.path_count, c.ev.severity
    where = " in the graph" if _graph_only(c) else ""
    bands = ["low", "medium", "high", "critical"]
    wrong_sev = bands[(bands.index(sev) + 2) % 4] if sev in bands else "critical"
    if st is None:
        run_t, run_f = "no containment run has been started", "a containment run has already completed"
    else:
        wrong_st = "completed" if st != "completed" else "stopped"
        run_t, run_f = f"the containment run ended `{st}`", f"the containment run ended `{wrong_st}`"
    o = other(n)
    path_t = f"{words(n)} qualifying {paths_word(n)} {'remains' if n == 1 else 'remain'} open{where}"
    path_f = f"{words(o)} qualifying {paths_word(o)} {'remains' if o == 1 else 'remain'} open{where}"
    sev_t, sev_f = f"the alert is now rated {sev}", f"the alert is now rated {wrong_sev}"
    forms = [
        "**Status.** {R}, {p}, while {s}.",
        "**Overall:** {r}; {p}, whereas {s}.",
        "In summary, {r}, {p}, and {s}.",
    ]
    for k, form in enumerate(forms):
        claims = [(run_t, run_f), (path_t, path_f), (sev_t, sev_f)]
        true_text = form.format(r=claims[0][0], R=cap_first(claims[0][0]), p=claims[1][0], s=claims[2][0])
        wrong = [x[0] for x in claims]
        wrong[k] = claims[k][1]
        false_text = form.format(r=wrong[0], R=cap_first(wrong[0]), p=wrong[1], s=wrong[2])
        yield [(true_text, True), (false_text, False)]


KEEP = 2  # claims (each with its negation) kept per family and context, rotating over the contexts


def _thinned(make, keep: int = KEEP):
    """At most `keep` groups per context, starting at an offset fixed by the context's key, so that every
    variant of a family appears over the contexts."""

    def thin(c: Context) -> Iterator[tuple[str, bool]]:
        groups = [g for g in make(c) if g]
        if len(groups) > keep:
            start = sum(map(ord, c.key)) % len(groups)
            chosen = sorted((start + k) % len(groups) for k in range(keep))
            groups = [groups[k] for k in chosen]
        for g in groups:
            yield from g

    return thin


def _family(name: str, kind: str, make, keep: int = KEEP) -> Family:
    return Family(name, kind, _thinned(make, keep))


TENTH: list[Family] = [
    _family("h10.impact", "state", impact),
    _family("h10.status-rows", "state", status_rows),
    _family("h10.run-verdict", "run", run_verdict),
    _family("h10.run-actions", "run", run_actions, keep=1),
    _family("h10.routes", "route", routes),
    _family("h10.count-percent", "count", count_percent, keep=1),
    _family("h10.before-after", "count", before_after),
    _family("h10.hops", "hops", hops),
    _family("h10.score", "score", score),
    _family("h10.link", "link", link),
    _family("h10.through", "through", through),
    _family("h10.names", "name", names),
    _family("h10.modal", "modal", modal),
    _family("h10.quotation", "quotation", quotation),
    _family("h10.account", "account", account, keep=4),
    _family("h10.compound", "run", compound, keep=1),
]
