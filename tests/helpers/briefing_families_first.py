"""The fourth round's first families: the tuning part and the first held-out set (tests/helpers/briefing_families.py).

Every second family of each claim kind is held out (`FIRST_HELD_OUT`), fixed before the first measurement.
"""

from __future__ import annotations

import itertools

from tests.helpers.briefing_families import Context, Family, both, on_paths, pairs, paths_at_start, reaches, words

__all__ = ["FIRST_FAMILIES", "FIRST_HELD_OUT", "READER_TUNING"]


# -- whole-alert state ------------------------------------------------------------------------


def _state_copula(c: Context):
    contained = c.contained  # said of neither the graph nor the account
    yield from both("The alert is contained.", "The alert is not contained.", contained)
    yield from both(f"{c.ev.alert_id} has been contained.", f"{c.ev.alert_id} remains exposed.", contained)


def _state_contraction(c: Context):
    contained = c.contained  # said of neither the graph nor the account
    e = c.ev.entity_id
    yield from both(f"{e} can't reach high or critical data anymore.", f"{e} can still reach critical data.", contained)
    yield from both("The exposure's over.", "The alert isn't contained yet.", contained)
    yield from both(f"It's contained: {e} has no path left.", f"{e} hasn't been cut off.", contained)


def _state_marker(c: Context):
    contained = c.contained  # said of neither the graph nor the account
    yield from both("✅ Contained", "❌ Contained", contained)
    yield from both("- [x] Contained", "Status: ~~contained~~ **exposed**", contained)
    yield from both("Status: ~~exposed~~ **contained**", "🔴 Exposed", contained)


def _state_quoted(c: Context):
    contained = c.ev.containment_state == "contained"  # the fresh query's verdict: the graph's
    yield from both(
        'The fresh query\'s verdict is "contained".', 'The fresh query\'s verdict is "not contained".', contained
    )
    yield from both("Overall status: “contained”.", "Overall status: “exposed”.", c.contained)


def _state_table(c: Context):
    contained = c.contained  # said of neither the graph nor the account
    row = "| Alert | Status |\n|---|---|\n| {a} | {v} |"
    yield from both(row.format(a=c.ev.alert_id, v="contained"), row.format(a=c.ev.alert_id, v="exposed"), contained)
    kv = "| Item | Value |\n|---|---|\n| Containment | {v} |"
    yield from both(kv.format(v="achieved"), kv.format(v="pending"), contained)


def _state_heading(c: Context):
    contained = c.contained  # said of neither the graph nor the account
    yield from both("## Verdict\nContained.", "## Verdict\nNot contained.", contained)
    yield from both("### Containment\nAchieved.", "### Containment\nPending.", contained)


def _quote_block(c: Context):
    false_claim = "exposed" if c.ev.containment_state == "contained" else "contained"
    yield f"The phishing email said:\n> Your access has been fully revoked and the account is {false_claim}.", True
    yield f"The attacker's message read:\n\n> All sessions are blocked; nothing is {false_claim} anymore.", True


def _quote_inline(c: Context):
    false_claim = "exposed" if c.ev.containment_state == "contained" else "contained"
    yield f'The lure claimed "your account is {false_claim}" to get the user to sign in again.', True
    yield f"The attacker wrote “all access was revoked” in the ticket for {c.ev.entity_id}.", True


def _modal_condition(c: Context):
    for r in c.ev.routes[:2]:
        yield f"If {r.route_id} were blocked, the alert could be contained.", True
    yield "The alert would count as contained only after a fresh query finds no path.", True


def _modal_plan(c: Context):
    for r in c.ev.routes[:2]:
        yield f"Next step: block {r.route_id} to contain the alert.", True
    yield "Once every route is blocked, the exposure should end.", True


# -- routes -----------------------------------------------------------------------------------


def _route_copula(c: Context):
    for r in c.ev.routes:
        yield from both(f"{r.route_id} is blocked.", f"{r.route_id} is still active.", r.status == "blocked")


def _route_before_after(c: Context):
    for r in c.ev.routes:
        head = "| Route | Before | After |\n|---|---|---|\n"
        yield from both(
            head + f"| {r.route_id} | active | blocked |",
            head + f"| {r.route_id} | blocked | active |",
            r.status == "blocked",
        )


def _route_strike(c: Context):
    for r in c.ev.routes:
        yield from both(
            f"{r.route_id}: ~~active~~ **blocked**", f"{r.route_id}: ~~blocked~~ **active**", r.status == "blocked"
        )


def _route_coordination(c: Context):
    for a, b in itertools.combinations([r.route_id for r in c.ev.routes], 2):
        both_active = c.route_status(a) == "active" and c.route_status(b) == "active"
        both_blocked = c.route_status(a) == "blocked" and c.route_status(b) == "blocked"
        yield f"Neither {a} nor {b} has been blocked.", both_active
        yield f"Both {a} and {b} have been blocked.", both_blocked


def _route_checkbox(c: Context):
    for r in c.ev.routes:
        yield from both(f"- [x] {r.route_id} blocked", f"- [x] {r.route_id} still active", r.status == "blocked")
        yield f"- [ ] block {r.route_id}", r.status != "blocked"  # still to do: the route is not blocked yet


# -- the account ------------------------------------------------------------------------------


def _account_disabled(c: Context):
    done = c.account_done("credential")
    yield from both(
        f"{c.user}'s credentials were disabled in AWS.", f"{c.user}'s credentials were not disabled in AWS.", done
    )
    yield from both("The containment was applied on the AWS account.", "The containment was not applied in AWS.", done)


def _account_key(c: Context):
    done = c.account_done("key")
    yield from both(
        f"{c.user}'s access key is now inactive on the account.",
        f"{c.user}'s access key still works on the account.",
        done,
    )
    yield from both(
        f"The access key of {c.user} was deactivated in IAM.",
        f"The access key of {c.user} isn't deactivated in AWS.",
        done,
    )


def _account_graph_only(c: Context):
    done = c.account_done("credential")
    yield from both(
        "The block took effect on the AWS account itself.",
        "The block was applied in the graph only; nothing changed in AWS.",
        done,
    )


def _account_lockout(c: Context):
    done = c.account_done("credential")
    yield from both(
        f"{c.user} is locked out of the AWS account.", f"{c.user} isn't locked out of the AWS account.", done
    )


def _account_policy(c: Context):
    done = c.account_done("policy")
    yield from both(
        f"A deny-all policy was attached to {c.user} in AWS.",
        f"No deny-all policy was attached to {c.user} in AWS.",
        done,
    )


def _account_marker(c: Context):
    done = c.account_done("credential")
    yield from both("✅ Credentials disabled in AWS", "❌ Credentials disabled in AWS", done)


# -- the run ----------------------------------------------------------------------------------


def _run_done(c: Context):
    if c.run is None:
        return
    done = c.run.state.value == "completed"
    yield from both("The run completed.", "The run did not complete.", done)
    yield from both(f"The containment run for {c.ev.alert_id} succeeded.", "The run has not succeeded.", done)


def _run_marker(c: Context):
    if c.run is None:
        return
    done = c.run.state.value == "completed"
    yield from both("✅ Run completed", "❌ Run completed", done)
    yield "- [x] Run completed", done
    yield "Run: ~~completed~~ **stopped**", c.run.state.value == "stopped"  # a graph_only run did not stop


# -- numbers ----------------------------------------------------------------------------------


def _count_digits(c: Context):
    n = c.ev.path_count
    for k in sorted({n, n + 1, max(n - 1, 0), n + 2}):
        yield f"{k} qualifying paths remain.", c.remaining(k)


def _count_words(c: Context):
    n = c.ev.path_count
    for k in sorted({n, n + 1, max(n - 1, 0), n + 2}):
        yield f"{words(k).capitalize()} qualifying paths remain open.", c.remaining(k)


def _count_of(c: Context):
    live, total = c.ev.path_count, paths_at_start(c)
    if total < 2:
        return
    for k, m in {(live, total), (live + 1, total), (live, total + 1), (max(live - 1, 0), total)}:
        yield f"{words(k).capitalize()} of its {words(m)} qualifying paths remain open.", (k, m) == (live, total)


def _count_percent(c: Context):
    live, total = c.ev.path_count, paths_at_start(c)
    if total == 0:
        return
    share = round(100 * (total - live) / total)
    for pct in sorted({share, (share + 50) % 150, 100 - share if share != 50 else 25}):
        yield f"{pct}% of the qualifying paths have been cut.", pct == share


def _hops_digits(c: Context):
    if not c.ev.paths:
        return
    shortest = min(p.hops for p in c.ev.paths)
    for n in sorted({shortest, shortest + 1, max(shortest - 1, 1)}):
        yield f"The shortest qualifying path is {n} hops long.", n == shortest


def _hops_words(c: Context):
    if not c.ev.paths:
        return
    shortest = min(p.hops for p in c.ev.paths)
    for n in sorted({shortest, shortest + 2, max(shortest - 1, 1)}):
        yield f"The shortest path takes {words(n)} hops.", n == shortest


def _score_words(c: Context):
    s = c.ev.risk_score
    for v in sorted({s, s + 5, max(s - 10, 0)}):
        yield f"The risk score is {words(v)}.", v == s


def _score_range(c: Context):
    s = c.ev.risk_score
    for lo, hi in ((s - 5, s + 5), (s + 5, s + 15), (s - 20, s - 10)):
        yield f"The risk score is between {lo} and {hi}.", lo <= s <= hi


# -- between named entities -------------------------------------------------------------------


def _link_direct(c: Context):
    for a, b in pairs(c, "CAN_ASSUME"):
        works = c.edge_works(a, "CAN_ASSUME", b)
        yield from both(f"{a} can assume {b} directly.", f"{a} cannot assume {b}.", works)


def _link_contraction(c: Context):
    for a, b in pairs(c, "CAN_READ"):
        works = c.edge_works(a, "CAN_READ", b) or reaches(c, a, b)
        yield from both(f"{a} reads {b}.", f"{a} can't read {b}.", works)


def _link_state(c: Context):
    for rel in ("CAN_ASSUME", "CAN_READ"):
        for a, b in pairs(c, rel)[:3]:
            props = c.edge(a, rel, b)
            if not props:
                continue
            denied = any(p.get("permission") == "deny" for p in props)
            yield from both(f"The grant from {a} to {b} is denied.", f"The grant from {a} to {b} is allowed.", denied)


def _link_on_way(c: Context):
    for rel, verb in (("CAN_ASSUME", "assumes"), ("RUNS_AS", "runs as")):
        for a, b in pairs(c, rel)[:3]:
            step = any(p[i] == a and p[i + 1] == b for p in c.live for i in range(len(p) - 1))
            yield f"{a} {verb} {b} on the way.", step


def _through_all(c: Context):
    n = len(c.live)
    for z in on_paths(c):
        holding = sum(z in p for p in c.live)
        yield f"All qualifying paths go through {z}.", n > 0 and holding == n
        if n == 2:
            yield f"Both paths run through {z}.", holding == 2


def _through_some(c: Context):
    for z in on_paths(c):
        holding = sum(z in p for p in c.live)
        yield f"No qualifying path goes through {z}.", holding == 0
        yield f"At least one qualifying path runs through {z}.", holding >= 1


# -- names ------------------------------------------------------------------------------------


def _named(c: Context) -> list[str]:
    ids = [e.id for e in c.ev.blast_radius][:4] + sorted(set(c.ev.cut_off_entities))[:2]
    return [i for i in ids if c.names.get(i) and c.names[i] != i]


def _name_plain(c: Context):
    blast = {e.id for e in c.ev.blast_radius}
    for i in _named(c):
        yield f"The {c.names[i]} is in the blast radius.", i in blast


def _name_case(c: Context):
    on_path = {n for p in c.live for n in p}
    for i in on_paths(c) + _named(c)[:2]:
        yield f"{i.upper()} is on a qualifying path.", i in on_path


def _name_arn(c: Context):
    on_path = {n for p in c.live for n in p}
    for arn, i in sorted(c.ev.arns.items())[:4]:  # an ARN names the entity the graph gives it to
        yield f"{arn} is on a qualifying path.", i in on_path


FIRST_FAMILIES: tuple[Family, ...] = (
    Family("state.copula", "state", _state_copula),
    Family("state.contraction", "state", _state_contraction),
    Family("state.marker", "state", _state_marker),
    Family("state.quoted", "state", _state_quoted),
    Family("state.table", "state", _state_table),
    Family("state.heading", "state", _state_heading),
    Family("quote.block", "quotation", _quote_block),
    Family("quote.inline", "quotation", _quote_inline),
    Family("modal.condition", "modal", _modal_condition),
    Family("modal.plan", "modal", _modal_plan),
    Family("route.copula", "route", _route_copula),
    Family("route.before_after", "route", _route_before_after),
    Family("route.strike", "route", _route_strike),
    Family("route.coordination", "route", _route_coordination),
    Family("route.checkbox", "route", _route_checkbox),
    Family("account.disabled", "account", _account_disabled),
    Family("account.key", "account", _account_key),
    Family("account.graph_only", "account", _account_graph_only),
    Family("account.lockout", "account", _account_lockout),
    Family("account.policy", "account", _account_policy),
    Family("account.marker", "account", _account_marker),
    Family("run.done", "run", _run_done),
    Family("run.marker", "run", _run_marker),
    Family("count.digits", "count", _count_digits),
    Family("count.words", "count", _count_words),
    Family("count.of", "count", _count_of),
    Family("count.percent", "count", _count_percent),
    Family("hops.digits", "hops", _hops_digits),
    Family("hops.words", "hops", _hops_words),
    Family("score.words", "score", _score_words),
    Family("score.range", "score", _score_range),
    Family("link.direct", "link", _link_direct),
    Family("link.contraction", "link", _link_contraction),
    Family("link.state", "link", _link_state),
    Family("link.on_way", "link", _link_on_way),
    Family("through.all", "through", _through_all),
    Family("through.some", "through", _through_some),
    Family("name.plain", "name", _name_plain),
    Family("name.case", "name", _name_case),
    Family("name.arn", "name", _name_arn),
)
# Fixed before the first measurement: every second family of each kind is held out.
FIRST_HELD_OUT = frozenset(
    f.name
    for kind in dict.fromkeys(f.kind for f in FIRST_FAMILIES)
    for i, f in enumerate(x for x in FIRST_FAMILIES if x.kind == kind)
    if i % 2 == 1
)


# -- tuning families for the readers per fact of the account and of named entities (eighth round) -----------
# Written with the readers (docs/briefings.md, "Eighth round"); in the tuning part, never held out.


def _graph_only(c: Context) -> bool:
    return c.run is not None and c.run.state.value == "graph_only"


def _account_negated(c: Context):
    key, policy = c.account_done("key"), c.account_done("policy")
    yield f"No access key of {c.user} was deactivated on the AWS account.", not key
    yield f"AWS: deny-all policy attached to {c.user}", policy
    yield "The run changed nothing on the AWS account.", not (key or policy)
    yield f"The key block never made it to AWS, so {c.user}'s key still works there.", not key


def _account_column(c: Context):
    key = c.account_done("key")
    for cell, truth in (("✅", key), ("❌", not key)):
        yield f"| change | applied on the account |\n|---|---|\n| access key deactivation | {cell} |", truth


def _link_adjectives(c: Context):
    for a, b in pairs(c, "CAN_READ")[:3]:
        yield f"{a} holds a direct, working read grant on {b}.", c.edge_works(a, "CAN_READ", b)
    for a, b in pairs(c, "CAN_ASSUME")[:3]:
        yield f"{a} has no working grant to assume {b}.", not c.edge_works(a, "CAN_ASSUME", b)


def _link_reach(c: Context):
    if _graph_only(c):
        return  # the graph and the account disagree on a run planned in the graph only
    e = c.ev.entity_id
    cut = {n for n in c.ev.cut_off_entities if c.ev.adjacent.get(n) == "DataAsset"}
    targets = sorted(set(c.ev.assets) | cut)
    for t in targets[:3]:
        yield f"{e} can still get to {t}.", reaches(c, e, t)
        yield f"{t} is out of reach for {e}.", not reaches(c, e, t)


def _link_via(c: Context):
    if _graph_only(c):
        return
    e = c.ev.entity_id
    for p in c.live[:2]:
        x = p[-1]
        for m in [*p[1:-1][:2], *sorted(set(c.ev.cut_off_entities) - set(p))[:1]]:
            truth = any(e in q and m in q and x in q and q.index(e) < q.index(m) < q.index(x) for q in c.live)
            yield f"On its way to {x}, {e} passes through {m}.", truth


def _through_the(c: Context):
    n = len(c.live)
    for z in on_paths(c)[:4]:
        holding = sum(z in p for p in c.live)
        if n == 1:
            yield f"The open path goes through {z}.", holding == 1
        elif n > 1:
            yield f"Not every open path passes through {z}.", holding < n


READER_TUNING: tuple[Family, ...] = (
    Family("account.negated", "account", _account_negated),
    Family("account.column", "account", _account_column),
    Family("link.adjectives", "link", _link_adjectives),
    Family("link.reach", "link", _link_reach),
    Family("link.via", "link", _link_via),
    Family("through.the", "through", _through_the),
)
