"""The fourth round's corpus: template families x wording x structure x format x entities, labelled from facts.

Each template family writes one kind of claim in one way (a copula, a contraction, a status
marker, a before/after table, a quotation, a range...). A family is instantiated over every
context: the four seed scenarios as seeded and after a rules run, BH-CONTAINMENT-4001 after a run
capped at one action (stopped, one path left), and an AWS account (a user whose access key reads a
critical bucket, on a moto server) contained once in the graph only and once on the account.

Every sentence states a claim (`Spec`) whose truth is computed here from facts, never from the
checker: the fresh investigation's paths and state, the routes' statuses, the run record's state
and its actions' account fields, and the graph's relationships as exported (`export_document`).
A sentence is truthful when it states a true claim, or the negation of a false one, or no claim
at all (a condition, a plan, a quotation of someone else's words).

The families are split in two by name (`HELD_OUT`), fixed before any measurement: the checker is
tuned on the other part only. `measure` reports per family recall on false sentences, the false
flag rate on truthful ones and, apart, the sentences judged `unverified`.

`python -m tests.helpers.briefing_families` is run by the test module's `__main__` helper: see
tests/integration/brief/test_briefing_families.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from blastshield_core.brief.checker import CheckOutcome, EvidenceSummary
from blastshield_core.results import RunRecord

__all__ = [
    "FAMILIES",
    "HELD_OUT",
    "SECOND",
    "THIRD",
    "Context",
    "Family",
    "Score",
    "Sentence",
    "generate",
    "measure",
    "words",
]

_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
_TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}
PER_FAMILY_CONTEXT = 6  # at most this many instances of a family per context


def words(n: int) -> str:
    if 0 <= n < len(_WORDS):
        return _WORDS[n]
    tens, unit = divmod(n, 10)
    return _TENS[tens] + (f"-{_WORDS[unit]}" if unit else "") if tens in _TENS else str(n)


@dataclass
class Context:
    """One alert in one state, with the facts the labels are computed from."""

    key: str
    ev: EvidenceSummary
    run: RunRecord | None
    edges: list[tuple[str, str, str, dict[str, Any]]]  # (source, type, target, properties), the whole graph
    names: dict[str, str]  # entity id -> plain name
    arns: dict[str, str] = field(default_factory=dict)  # entity id -> ARN (AWS entities)
    user: str = ""  # the principal whose credentials the account claims are about

    # -- facts -----------------------------------------------------------------------
    @property
    def live(self) -> list[list[str]]:
        return [p.nodes for p in self.ev.paths]

    def route_status(self, route: str) -> str:
        return next(r.status for r in self.ev.routes if r.route_id == route)

    def edge(self, a: str, rel: str, b: str) -> list[dict[str, Any]]:
        return [props for s, t, d, props in self.edges if (s, t, d) == (a, rel, b)]

    def edge_works(self, a: str, rel: str, b: str) -> bool:
        return any(
            p.get("permission", "allow") != "deny" and p.get("status", "active") != "blocked"
            for p in self.edge(a, rel, b)
        )

    def account_done(self, kind: str) -> bool:
        """A change of this kind (credential, key, policy) applied and verified on the account by the run."""
        if self.run is None:
            return False
        plans = {"key": {"deactivate_access_key"}, "policy": {"deny_all_inline_policy"}}
        wanted = plans.get(kind, {"deactivate_access_key", "deny_all_inline_policy"})
        return any(
            a.aws is not None
            and a.aws.get("applied_in_aws") is True
            and a.applied is True
            and a.api_verified is True
            and (a.aws.get("plan") or {}).get("kind") in wanted
            for a in self.run.actions
        )

    def neighbourhood(self) -> list[str]:
        ids = {n for p in self.live for n in p} | set(self.ev.cut_off_entities) | {e.id for e in self.ev.blast_radius}
        return sorted(ids)


@dataclass(frozen=True)
class Sentence:
    family: str
    held_out: bool
    context: str
    text: str
    truthful: bool


# A template yields (text, truthful) pairs for one context.
Template = Callable[[Context], Iterable[tuple[str, bool]]]


@dataclass(frozen=True)
class Family:
    name: str
    kind: str
    make: Template


def _both(text_true_claim: str, text_negated: str, truth: bool) -> list[tuple[str, bool]]:
    """A claim and its negation: the first is truthful when the claim holds, the second when it does not."""
    return [(text_true_claim, truth), (text_negated, not truth)]


# -- whole-alert state ------------------------------------------------------------------------


def _state_copula(c: Context):
    contained = c.ev.containment_state == "contained"
    yield from _both("The alert is contained.", "The alert is not contained.", contained)
    yield from _both(f"{c.ev.alert_id} has been contained.", f"{c.ev.alert_id} remains exposed.", contained)


def _state_contraction(c: Context):
    contained = c.ev.containment_state == "contained"
    e = c.ev.entity_id
    yield from _both(
        f"{e} can't reach high or critical data anymore.", f"{e} can still reach critical data.", contained
    )
    yield from _both("The exposure's over.", "The alert isn't contained yet.", contained)
    yield from _both(f"It's contained: {e} has no path left.", f"{e} hasn't been cut off.", contained)


def _state_marker(c: Context):
    contained = c.ev.containment_state == "contained"
    yield from _both("✅ Contained", "❌ Contained", contained)
    yield from _both("- [x] Contained", "Status: ~~contained~~ **exposed**", contained)
    yield from _both("Status: ~~exposed~~ **contained**", "🔴 Exposed", contained)


def _state_quoted(c: Context):
    contained = c.ev.containment_state == "contained"
    yield from _both(
        'The fresh query\'s verdict is "contained".', 'The fresh query\'s verdict is "not contained".', contained
    )
    yield from _both("Overall status: “contained”.", "Overall status: “exposed”.", contained)


def _state_table(c: Context):
    contained = c.ev.containment_state == "contained"
    row = "| Alert | Status |\n|---|---|\n| {a} | {v} |"
    yield from _both(row.format(a=c.ev.alert_id, v="contained"), row.format(a=c.ev.alert_id, v="exposed"), contained)
    kv = "| Item | Value |\n|---|---|\n| Containment | {v} |"
    yield from _both(kv.format(v="achieved"), kv.format(v="pending"), contained)


def _state_heading(c: Context):
    contained = c.ev.containment_state == "contained"
    yield from _both("## Verdict\nContained.", "## Verdict\nNot contained.", contained)
    yield from _both("### Containment\nAchieved.", "### Containment\nPending.", contained)


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
        yield from _both(f"{r.route_id} is blocked.", f"{r.route_id} is still active.", r.status == "blocked")


def _route_before_after(c: Context):
    for r in c.ev.routes:
        head = "| Route | Before | After |\n|---|---|---|\n"
        yield from _both(
            head + f"| {r.route_id} | active | blocked |",
            head + f"| {r.route_id} | blocked | active |",
            r.status == "blocked",
        )


def _route_strike(c: Context):
    for r in c.ev.routes:
        yield from _both(
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
        yield from _both(f"- [x] {r.route_id} blocked", f"- [x] {r.route_id} still active", r.status == "blocked")
        yield f"- [ ] block {r.route_id}", True


# -- the account ------------------------------------------------------------------------------


def _account_disabled(c: Context):
    done = c.account_done("credential")
    yield from _both(
        f"{c.user}'s credentials were disabled in AWS.", f"{c.user}'s credentials were not disabled in AWS.", done
    )
    yield from _both("The containment was applied on the AWS account.", "The containment was not applied in AWS.", done)


def _account_key(c: Context):
    done = c.account_done("key")
    yield from _both(
        f"{c.user}'s access key is now inactive on the account.",
        f"{c.user}'s access key still works on the account.",
        done,
    )
    yield from _both(
        f"The access key of {c.user} was deactivated in IAM.",
        f"The access key of {c.user} isn't deactivated in AWS.",
        done,
    )


def _account_graph_only(c: Context):
    done = c.account_done("credential")
    yield from _both(
        "The block took effect on the AWS account itself.",
        "The block was applied in the graph only; nothing changed in AWS.",
        done,
    )


def _account_lockout(c: Context):
    done = c.account_done("credential")
    yield from _both(
        f"{c.user} is locked out of the AWS account.", f"{c.user} isn't locked out of the AWS account.", done
    )


def _account_policy(c: Context):
    done = c.account_done("policy")
    yield from _both(
        f"A deny-all policy was attached to {c.user} in AWS.",
        f"No deny-all policy was attached to {c.user} in AWS.",
        done,
    )


def _account_marker(c: Context):
    done = c.account_done("credential")
    yield from _both("✅ Credentials disabled in AWS", "❌ Credentials disabled in AWS", done)


# -- the run ----------------------------------------------------------------------------------


def _run_done(c: Context):
    if c.run is None:
        return
    done = c.run.state.value == "completed"
    yield from _both("The run completed.", "The run did not complete.", done)
    yield from _both(f"The containment run for {c.ev.alert_id} succeeded.", "The run has not succeeded.", done)


def _run_marker(c: Context):
    if c.run is None:
        return
    done = c.run.state.value == "completed"
    yield from _both("✅ Run completed", "❌ Run completed", done)
    yield from _both("- [x] Run completed", "Run: ~~completed~~ **stopped**", done)


# -- numbers ----------------------------------------------------------------------------------


def _count_digits(c: Context):
    n = c.ev.path_count
    for k in sorted({n, n + 1, max(n - 1, 0), n + 2}):
        yield f"{k} qualifying paths remain.", k == n


def _count_words(c: Context):
    n = c.ev.path_count
    for k in sorted({n, n + 1, max(n - 1, 0), n + 2}):
        yield f"{words(k).capitalize()} qualifying paths remain open.", k == n


def _paths_at_start(c: Context) -> int:
    """The alert's qualifying paths before the run (those now live when there is no run)."""
    if c.run is None:
        return c.ev.path_count
    start = next((s for s in c.run.steps if s.kind == "investigate"), None)
    return int(start.data["paths"]) if start is not None else c.ev.path_count


def _count_of(c: Context):
    live, total = c.ev.path_count, _paths_at_start(c)
    if total < 2:
        return
    for k, m in {(live, total), (live + 1, total), (live, total + 1), (max(live - 1, 0), total)}:
        yield f"{words(k).capitalize()} of its {words(m)} qualifying paths remain open.", (k, m) == (live, total)


def _count_percent(c: Context):
    live, total = c.ev.path_count, _paths_at_start(c)
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


def _pairs(c: Context, rel: str) -> list[tuple[str, str]]:
    """Pairs of the neighbourhood with a relationship of `rel` (any status), and reversed pairs without one."""
    near = set(c.neighbourhood())
    found = [(s, d) for s, t, d, _ in c.edges if t == rel and s in near and d in near]
    reversed_ = [(d, s) for s, d in found if not c.edge(d, rel, s)]
    return sorted(set(found))[:4] + sorted(set(reversed_))[:2]


def _reaches(c: Context, a: str, b: str) -> bool:
    return any(a in p and b in p and p.index(a) < p.index(b) for p in c.live)


def _link_direct(c: Context):
    for a, b in _pairs(c, "CAN_ASSUME"):
        works = c.edge_works(a, "CAN_ASSUME", b)
        yield from _both(f"{a} can assume {b} directly.", f"{a} cannot assume {b}.", works)


def _link_contraction(c: Context):
    for a, b in _pairs(c, "CAN_READ"):
        works = c.edge_works(a, "CAN_READ", b) or _reaches(c, a, b)
        yield from _both(f"{a} reads {b}.", f"{a} can't read {b}.", works)


def _link_state(c: Context):
    for rel in ("CAN_ASSUME", "CAN_READ"):
        for a, b in _pairs(c, rel)[:3]:
            props = c.edge(a, rel, b)
            if not props:
                continue
            denied = any(p.get("permission") == "deny" for p in props)
            yield from _both(f"The grant from {a} to {b} is denied.", f"The grant from {a} to {b} is allowed.", denied)


def _link_on_way(c: Context):
    for rel, verb in (("CAN_ASSUME", "assumes"), ("RUNS_AS", "runs as")):
        for a, b in _pairs(c, rel)[:3]:
            step = any(p[i] == a and p[i + 1] == b for p in c.live for i in range(len(p) - 1))
            yield f"{a} {verb} {b} on the way.", step


def _on_paths(c: Context) -> list[str]:
    ids = sorted({n for p in c.live for n in p[1:-1]}) + sorted(set(c.ev.cut_off_entities))[:2]
    return ids[:5]


def _through_all(c: Context):
    n = len(c.live)
    for z in _on_paths(c):
        holding = sum(z in p for p in c.live)
        yield f"All qualifying paths go through {z}.", n > 0 and holding == n
        if n == 2:
            yield f"Both paths run through {z}.", holding == 2


def _through_some(c: Context):
    for z in _on_paths(c):
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
    for i in _on_paths(c) + _named(c)[:2]:
        yield f"{i.upper()} is on a qualifying path.", i in on_path


def _name_arn(c: Context):
    on_path = {n for p in c.live for n in p}
    for arn, i in sorted(c.ev.arns.items())[:4]:  # an ARN names the entity the graph gives it to
        yield f"{arn} is on a qualifying path.", i in on_path


# -- the second held-out set (written after the first held-out measurement and the changes it led to) ------


def _h2_state_passive(c: Context):
    contained = c.ev.containment_state == "contained"
    e = c.ev.entity_id
    yield from _both(
        f"Access from {e} was fully cut off by the run.", f"Access from {e} has not been cut off.", contained
    )
    yield from _both(f"{e}'s exposure has ended.", f"{e}'s exposure is ongoing.", contained)


def _h2_state_list_verdict(c: Context):
    contained = c.ev.containment_state == "contained"
    yield from _both("- Verdict: **contained**", "- Verdict: **not contained**", contained)
    yield from _both("**Outcome:** exposure closed", "**Outcome:** exposure remains", contained)


def _h2_route_either(c: Context):
    for a, b in itertools.combinations([r.route_id for r in c.ev.routes], 2):
        yield f"Either {a} or {b} is still active.", "active" in (c.route_status(a), c.route_status(b))
        yield f"{a} and {b} are both blocked now.", c.route_status(a) == c.route_status(b) == "blocked"


def _h2_route_emoji_list(c: Context):
    for r in c.ev.routes:
        yield from _both(f"- {r.route_id}: ✅ blocked", f"- {r.route_id}: ❌ blocked", r.status == "blocked")


def _h2_account_plain(c: Context):
    done = c.account_done("key")
    yield from _both(
        f"BlastShield deactivated {c.user}'s access key on the AWS account.",
        f"BlastShield did not deactivate {c.user}'s access key on the AWS account.",
        done,
    )
    yield from _both(
        "The user's AWS credentials no longer work.", "The user's AWS credentials still work.", c.account_done("any")
    )


def _h2_run_prose(c: Context):
    if c.run is None:
        return
    done = c.run.state.value == "completed"
    yield from _both("The containment run ended as completed.", "The containment run ended as stopped.", done)


def _h2_count_phrases(c: Context):
    n = c.ev.path_count
    for k in sorted({n, n + 1, max(n - 1, 0)}):
        yield f"There are {words(k)} qualifying paths left.", k == n
        yield f"Exactly {words(k)} qualifying paths are still open.", k == n


def _h2_link_allowed(c: Context):
    for a, b in _pairs(c, "CAN_ASSUME"):
        works = c.edge_works(a, "CAN_ASSUME", b)
        yield from _both(f"{a} is allowed to assume {b}.", f"{a} is not allowed to assume {b}.", works)


def _h2_through_every(c: Context):
    n = len(c.live)
    for z in _on_paths(c):
        holding = sum(z in p for p in c.live)
        yield f"Every remaining path passes {z}.", n > 0 and holding == n
        yield f"Each qualifying path goes via {z}.", n > 0 and holding == n


def _h2_name_lower(c: Context):
    on_path = {n for p in c.live for n in p}
    for i in [a for a in c.ev.assets] + sorted(set(c.ev.cut_off_entities) & set(c.names))[:2]:
        name = c.names.get(i, "")
        if name and name != i:
            yield f"{name.lower()} is still reachable.", i in on_path


def _h2_quote_reported(c: Context):
    yield 'According to the user, "nothing was compromised and the account is safe".', True
    yield f'The ticket for {c.ev.entity_id} says the account "is secure now".', True


def _h2_score_fraction(c: Context):
    s = c.ev.risk_score
    for v in sorted({s, s + 10, max(s - 5, 0)}):
        yield f"The score works out to {v} out of 100.", v == s


# -- the third held-out set (written after the second set's measurement and the changes it led to) ---------


def _h3_state_colloquial(c: Context):
    contained = c.ev.containment_state == "contained"
    e = c.ev.entity_id
    yield from _both(f"{e} is locked down now.", f"{e} is still wide open.", contained)
    yield from _both("The incident is closed.", "The incident is still open.", contained)


def _h3_table_kv(c: Context):
    n = c.ev.path_count
    for k in sorted({n, n + 1}):
        yield f"| Metric | Value |\n|---|---|\n| Remaining paths | {k} |", k == n
    contained = c.ev.containment_state == "contained"
    yield from _both(
        "| Check | Result |\n|---|---|\n| Contained | yes |",
        "| Check | Result |\n|---|---|\n| Contained | no |",
        contained,
    )


def _h3_route_past(c: Context):
    for r in c.ev.routes:
        yield from _both(f"The run blocked {r.route_id}.", f"{r.route_id} was left open.", r.status == "blocked")


def _h3_route_heading(c: Context):
    for r in c.ev.routes:
        yield from _both(f"### {r.route_id}\nBlocked.", f"### {r.route_id}\nActive.", r.status == "blocked")


def _h3_account_iam(c: Context):
    done = c.account_done("key")
    yield from _both(
        f"IAM now reports {c.user}'s access key as Inactive.",
        f"IAM still reports {c.user}'s access key as Active.",
        done,
    )


def _h3_account_revocation(c: Context):
    revoked = c.run is not None and any(
        a.operation == "revoke_role_sessions" and a.applied is True and (a.aws or {}).get("applied_in_aws") is True
        for a in c.run.actions
    )
    yield from _both(
        f"The sessions of {c.user} were revoked in AWS.", f"The sessions of {c.user} were not revoked in AWS.", revoked
    )


def _h3_run_dash(c: Context):
    if c.run is None:
        return
    done = c.run.state.value == "completed"
    yield from _both("Final run status — completed", "Final run status — stopped", done)


def _h3_count_remaining(c: Context):
    n = c.ev.path_count
    for k in sorted({n, n + 1, max(n - 1, 0)}):
        yield f"{words(k).capitalize()} paths still reach high or critical data.", k == n


def _h3_link_reads(c: Context):
    for a, b in _pairs(c, "CAN_READ"):
        works = c.edge_works(a, "CAN_READ", b) or _reaches(c, a, b)
        yield from _both(f"{a} has read access to {b}.", f"{a} has no read access to {b}.", works)


def _h3_through_sits(c: Context):
    n = len(c.live)
    for z in _on_paths(c):
        yield f"{z} sits on every qualifying path.", n > 0 and all(z in p for p in c.live)


def _h3_name_title(c: Context):
    on_path = {n for p in c.live for n in p}
    for i in [a for a in c.ev.assets] + sorted(set(c.ev.cut_off_entities) & set(c.names))[:2]:
        name = c.names.get(i, "")
        if name and name != i:
            yield f"{name.title()} remains exposed.", i in on_path


def _h3_quote_speaker(c: Context):
    yield '> "Everything is contained," the contractor insisted.', True
    yield f'> "{c.ev.entity_id} can no longer reach anything," the user claimed.', True


def _h3_score_percent(c: Context):
    s = c.ev.risk_score
    for v in sorted({s, s + 15}):
        yield f"Risk: {v}%.", v == s


def _h3_hops_phrase(c: Context):
    if not c.ev.paths:
        return
    shortest = min(p.hops for p in c.ev.paths)
    for n in sorted({shortest, shortest + 1}):
        yield f"The shortest route to a critical asset takes {n} hops.", n == shortest


# -- the fourth held-out set (written after the third set's measurement and changes; no change after it) --


def _h4_state_summary(c: Context):
    contained = c.ev.containment_state == "contained"
    e = c.ev.entity_id
    yield from _both(
        f"Summary: {e} no longer has a route to sensitive data.",
        f"Summary: {e} still has a route to sensitive data.",
        contained,
    )
    yield from _both(
        f"As of the fresh query, nothing reaches high or critical data from {e}.",
        f"As of the fresh query, {e} still reaches high or critical data.",
        contained,
    )


def _h4_route_status_words(c: Context):
    for r in c.ev.routes:
        yield from _both(f"{r.route_id} is disabled.", f"{r.route_id} is enabled.", r.status == "blocked")


def _h4_route_table_lock(c: Context):
    head = "| Route | Status |\n|---|---|\n"
    for r in c.ev.routes:
        yield from _both(
            head + f"| {r.route_id} | 🔒 blocked |", head + f"| {r.route_id} | 🔓 open |", r.status == "blocked"
        )


def _h4_account_keyword(c: Context):
    done = c.account_done("key")
    yield from _both(f"AWS access key for {c.user}: disabled", f"AWS access key for {c.user}: still enabled", done)


def _h4_account_sign_in(c: Context):
    done = c.account_done("credential")
    yield from _both(f"{c.user} can no longer sign in to AWS.", f"{c.user} can still sign in to AWS.", done)


def _h4_run_sentence(c: Context):
    if c.run is None:
        return
    state = c.run.state.value
    yield "This run ended with the alert contained.", state == "completed"
    yield "This run stopped short of containment.", state == "stopped"


def _h4_count_total(c: Context):
    n = c.ev.path_count
    for k in sorted({n, n + 1, max(n - 1, 0)}):
        yield f"In total, {k} qualifying paths are still open.", k == n


def _h4_link_able(c: Context):
    for a, b in _pairs(c, "CAN_ASSUME"):
        works = c.edge_works(a, "CAN_ASSUME", b)
        yield from _both(f"{a} is able to assume {b} directly.", f"{a} is unable to assume {b}.", works)


def _h4_through_routes(c: Context):
    n = len(c.live)
    for r in c.ev.routes:
        holding = sum(
            r.status == "active" and any(p[i] == r.source and p[i + 1] == r.target for i in range(len(p) - 1))
            for p in c.live
        )
        yield f"Every qualifying path uses {r.route_id}.", n > 0 and holding == n
        yield f"No qualifying path uses {r.route_id}.", holding == 0


def _h4_name_data(c: Context):
    on_path = {n for p in c.live for n in p}
    for i in [a for a in c.ev.assets] + sorted(set(c.ev.cut_off_entities) & set(c.names))[:2]:
        name = c.names.get(i, "")
        if name and name != i:
            yield f"Data in the {name} is still exposed.", i in on_path


def _h4_quote_title(c: Context):
    false_claim = "exposed" if c.ev.containment_state == "contained" else "contained"
    yield f'Earlier, the ticket read "{false_claim}".', True
    yield f'The analyst\'s note says "{false_claim} as of this morning", which predates the run.', True


def _h4_score_points(c: Context):
    s = c.ev.risk_score
    for v in sorted({s, s + 20, max(s - 15, 0)}):
        yield f"It scores {v} points out of a possible 100.", v == s


def _h4_hops_longest(c: Context):
    if not c.ev.paths:
        return
    longest = max(p.hops for p in c.ev.paths)
    for n in sorted({longest, longest + 1, max(longest - 1, 1)}):
        yield f"The longest qualifying path has {n} hops.", n == longest


# -- the fifth held-out set (written after the fourth set's measurement and changes; no change after it) ---


def _h5_state_bottom_line(c: Context):
    contained = c.ev.containment_state == "contained"
    a = c.ev.alert_id
    yield from _both(f"Bottom line: {a} is safe now.", f"Bottom line: {a} is not safe yet.", contained)


def _h5_state_route_left(c: Context):
    contained = c.ev.containment_state == "contained"
    e = c.ev.entity_id
    yield from _both(
        f"No route to critical data is left for {e}.", f"{e} keeps a working route to critical data.", contained
    )


def _h5_route_revoked(c: Context):
    for r in c.ev.routes:
        yield from _both(
            f"{r.route_id} has been revoked.", f"{r.route_id} has not been revoked.", r.status == "blocked"
        )


def _h5_route_dash(c: Context):
    for r in c.ev.routes:
        yield from _both(f"- {r.route_id} — blocked", f"- {r.route_id} — open", r.status == "blocked")


def _h5_account_went_through(c: Context):
    done = c.account_done("key")
    yield from _both(
        "The access key deactivation went through in AWS.", "The access key deactivation never reached AWS.", done
    )


def _h5_account_bullet(c: Context):
    done = c.account_done("key")
    yield from _both(f"- AWS: key disabled for {c.user}", f"- AWS: nothing changed for {c.user}", done)


def _h5_run_outcome(c: Context):
    if c.run is None:
        return
    state = c.run.state.value
    yield "Outcome of the run: completed.", state == "completed"
    yield "Outcome of the run: stopped.", state == "stopped"


def _h5_count_remaining_key(c: Context):
    n = c.ev.path_count
    for k in sorted({n, n + 1, max(n - 1, 0)}):
        yield f"Paths remaining: {words(k)}.", k == n


def _h5_link_grant(c: Context):
    for a, b in _pairs(c, "CAN_ASSUME"):
        works = c.edge_works(a, "CAN_ASSUME", b)
        yield from _both(f"{a} holds a grant to assume {b}.", f"{a} holds no grant to assume {b}.", works)


def _h5_through_crosses(c: Context):
    n = len(c.live)
    for z in _on_paths(c):
        holding = sum(z in p for p in c.live)
        yield f"Every path to critical data crosses {z}.", n > 0 and holding == n
        yield f"{z} is on none of the qualifying paths.", holding == 0


def _h5_name_quoted(c: Context):
    on_path = {n for p in c.live for n in p}
    for i in [a for a in c.ev.assets] + sorted(set(c.ev.cut_off_entities) & set(c.names))[:2]:
        name = c.names.get(i, "")
        if name and name != i:
            yield f'The asset "{name}" is still reachable.', i in on_path


def _h5_quote_insisted(c: Context):
    yield 'The user insisted: "my sessions were all revoked".', True
    yield f'A message to {c.ev.entity_id} claimed "your access is blocked until further notice".', True


def _h5_score_level(c: Context):
    s = c.ev.risk_score
    for v in sorted({s, s + 12, max(s - 8, 0)}):
        yield f"Risk level {v} of 100.", v == s


def _h5_hops_away(c: Context):
    critical = [p.hops for p in c.ev.paths if p.nodes[-1] in c.ev.critical_assets]
    if not critical:
        return
    nearest = min(critical)
    for n in sorted({nearest, nearest + 1, max(nearest - 1, 1)}):
        yield f"The nearest critical asset is {n} hops away.", n == nearest


FIFTH_HELD_OUT: tuple[Family, ...] = (
    Family("h5.state.bottom_line", "state", _h5_state_bottom_line),
    Family("h5.state.route_left", "state", _h5_state_route_left),
    Family("h5.route.revoked", "route", _h5_route_revoked),
    Family("h5.route.dash", "route", _h5_route_dash),
    Family("h5.account.went_through", "account", _h5_account_went_through),
    Family("h5.account.bullet", "account", _h5_account_bullet),
    Family("h5.run.outcome", "run", _h5_run_outcome),
    Family("h5.count.remaining_key", "count", _h5_count_remaining_key),
    Family("h5.link.grant", "link", _h5_link_grant),
    Family("h5.through.crosses", "through", _h5_through_crosses),
    Family("h5.name.quoted", "name", _h5_name_quoted),
    Family("h5.quote.insisted", "quotation", _h5_quote_insisted),
    Family("h5.score.level", "score", _h5_score_level),
    Family("h5.hops.away", "hops", _h5_hops_away),
)

FOURTH_HELD_OUT: tuple[Family, ...] = (
    Family("h4.state.summary", "state", _h4_state_summary),
    Family("h4.route.status_words", "route", _h4_route_status_words),
    Family("h4.route.table_lock", "route", _h4_route_table_lock),
    Family("h4.account.keyword", "account", _h4_account_keyword),
    Family("h4.account.sign_in", "account", _h4_account_sign_in),
    Family("h4.run.sentence", "run", _h4_run_sentence),
    Family("h4.count.total", "count", _h4_count_total),
    Family("h4.link.able", "link", _h4_link_able),
    Family("h4.through.routes", "through", _h4_through_routes),
    Family("h4.name.data", "name", _h4_name_data),
    Family("h4.quote.title", "quotation", _h4_quote_title),
    Family("h4.score.points", "score", _h4_score_points),
    Family("h4.hops.longest", "hops", _h4_hops_longest),
)

THIRD_HELD_OUT: tuple[Family, ...] = (
    Family("h3.state.colloquial", "state", _h3_state_colloquial),
    Family("h3.state.table_kv", "state", _h3_table_kv),
    Family("h3.route.past", "route", _h3_route_past),
    Family("h3.route.heading", "route", _h3_route_heading),
    Family("h3.account.iam", "account", _h3_account_iam),
    Family("h3.account.revocation", "account", _h3_account_revocation),
    Family("h3.run.dash", "run", _h3_run_dash),
    Family("h3.count.remaining", "count", _h3_count_remaining),
    Family("h3.link.reads", "link", _h3_link_reads),
    Family("h3.through.sits", "through", _h3_through_sits),
    Family("h3.name.title", "name", _h3_name_title),
    Family("h3.quote.speaker", "quotation", _h3_quote_speaker),
    Family("h3.score.percent", "score", _h3_score_percent),
    Family("h3.hops.phrase", "hops", _h3_hops_phrase),
)

SECOND_HELD_OUT: tuple[Family, ...] = (
    Family("h2.state.passive", "state", _h2_state_passive),
    Family("h2.state.list_verdict", "state", _h2_state_list_verdict),
    Family("h2.route.either", "route", _h2_route_either),
    Family("h2.route.emoji_list", "route", _h2_route_emoji_list),
    Family("h2.account.plain", "account", _h2_account_plain),
    Family("h2.run.prose", "run", _h2_run_prose),
    Family("h2.count.phrases", "count", _h2_count_phrases),
    Family("h2.link.allowed", "link", _h2_link_allowed),
    Family("h2.through.every", "through", _h2_through_every),
    Family("h2.name.lower", "name", _h2_name_lower),
    Family("h2.quote.reported", "quotation", _h2_quote_reported),
    Family("h2.score.fraction", "score", _h2_score_fraction),
)

FAMILIES: tuple[Family, ...] = (
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
HELD_OUT = frozenset(
    f.name
    for kind in dict.fromkeys(f.kind for f in FAMILIES)
    for i, f in enumerate(x for x in FAMILIES if x.kind == kind)
    if i % 2 == 1
)
FAMILIES = FAMILIES + SECOND_HELD_OUT + THIRD_HELD_OUT + FOURTH_HELD_OUT + FIFTH_HELD_OUT
SECOND = frozenset(f.name for f in SECOND_HELD_OUT)
THIRD = frozenset(f.name for f in THIRD_HELD_OUT)
FOURTH = frozenset(f.name for f in FOURTH_HELD_OUT)
FIFTH = frozenset(f.name for f in FIFTH_HELD_OUT)
HELD_OUT = HELD_OUT | SECOND | THIRD | FOURTH | FIFTH


# Formats a one-line sentence is written in (its claim is the same): prose, list items, emphasis, a callout.
FORMATS = ("{s}", "- {s}", "1. {s}", "**{s}**", "* {s}", "Note: {s}")


def _formatted(text: str, n: int) -> str:
    if "\n" in text or text.lstrip().startswith(
        ("|", "#", "-", "*", ">", "✅", "❌", "🔴", "Status", "Overall", "Run:")
    ):
        return text
    return FORMATS[n % len(FORMATS)].format(s=text)


def generate(contexts: list[Context]) -> list[Sentence]:
    """Every family over every context, at most PER_FAMILY_CONTEXT claims (each with its negation) per context,
    each sentence in one of the formats in turn."""
    out: list[Sentence] = []
    for family in FAMILIES:
        n = 0
        for c in contexts:
            for text, ok in list(family.make(c))[: PER_FAMILY_CONTEXT * 2]:
                out.append(Sentence(family.name, family.name in HELD_OUT, c.key, _formatted(text, n), ok))
                n += 1
    return out


@dataclass
class Score:
    false_total: int = 0
    caught: int = 0
    false_unverified: int = 0
    true_total: int = 0
    false_flags: int = 0
    true_unverified: int = 0

    @property
    def recall(self) -> float:
        return self.caught / self.false_total if self.false_total else 1.0

    @property
    def false_flag_rate(self) -> float:
        return self.false_flags / self.true_total if self.true_total else 0.0


def measure(
    sentences: list[Sentence], check: Callable[[Sentence], CheckOutcome]
) -> tuple[dict[str, Score], list[tuple[Sentence, CheckOutcome]]]:
    """Scores by family (and "all"), and the sentences judged wrongly (a missed false one, a flagged truthful one)."""
    scores: dict[str, Score] = {}
    wrong: list[tuple[Sentence, CheckOutcome]] = []
    for s in sentences:
        outcome = check(s)
        flagged, unverified = bool(outcome.flags), bool(outcome.unverified) and not outcome.flags
        for key in (s.family, "all"):
            sc = scores.setdefault(key, Score())
            if s.truthful:
                sc.true_total += 1
                sc.false_flags += flagged
                sc.true_unverified += unverified
            else:
                sc.false_total += 1
                sc.caught += flagged
                sc.false_unverified += unverified
        if flagged == s.truthful:
            wrong.append((s, outcome))
    return scores, wrong


def table(scores: dict[str, Score]) -> str:
    """The per-family table quoted in docs/briefings.md and BENCHMARKS.md."""
    rows = [
        "| family | false flagged (recall) | false unverified | truthful flagged (false flags) | truthful unverified |",
        "|---|---|---|---|---|",
    ]
    for name in [*sorted(k for k in scores if k != "all"), "all"]:
        sc = scores[name]
        rows.append(
            f"| {name} | {sc.recall:.1%} ({sc.caught}/{sc.false_total}) | {sc.false_unverified} |"
            f" {sc.false_flag_rate:.1%} ({sc.false_flags}/{sc.true_total}) | {sc.true_unverified} |"
        )
    return "\n".join(rows)
