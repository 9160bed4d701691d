"""How a sentence's parts bear on quantities, distances and states (blastshield_core/brief/clauses.py, numbers.py,
measures.py), held against the real seeded graph with sentences of no corpus: truthful controls, negations and
conditionals beside the false claims. The contexts are those of test_briefing_measures.py: the seed scenarios as
seeded; BH-CONTAINMENT-4001 after a rules run capped at one action (two paths at the start, the 5-hop path through
route-c11-alternate left); BH-1042 after a rules run (its one path cut); BH-IAM-2001 after a rules run (three paths
at the start and now: 1, 2 and 2 hops)."""

from __future__ import annotations

import pytest

from blastshield_core.brief.checker import check_text_outcome
from tests.integration.brief.test_briefing_measures import (
    C4001,
    CLOSED,
    COUNT,
    DEV,
    IAM,
    OPEN,
    SCORE,
    SEVERITY,
    UNREAD,
    WORK,
    T,
    assert_judged,
    evidence,  # noqa: F401 (the fixture)
)

QUESTIONS = [
    # a yes/no question asks: it states no value, unless the next sentence answers yes; a wh-question presumes
    (IAM, "exposed", "Is this alert rated low?", T),
    (IAM, "exposed", "Is the risk score 20? Not at all.", T),
    (IAM, "exposed", "Is the risk score 20? Yes.", SCORE),
    (IAM, "exposed", "Why is the alert rated low?", SEVERITY),
    (DEV, "exposed", "Did E3-multiple-paths fire?", T),
    (DEV, "exposed", "Did E3-multiple-paths fire? Yes.", SCORE),
    (DEV, "exposed", "Did E2-long-path fire? Yes, for five points.", T),
]
NEGATED_SUBJECTS = [
    # "not a single / not one path": none; a length after the noun keeps the negation in reach of the predicate
    (DEV, "after", "Not one qualifying path of five hops or fewer is still open from developer_07.", T),
    (DEV, "exposed", "Not one qualifying path of five hops or fewer is still open from developer_07.", CLOSED),
    (DEV, "exposed", "Not one qualifying path of three hops or fewer is still open from developer_07.", T),
    (DEV, "after", "Not a single qualifying path is left.", T),
    (IAM, "exposed", "Not a single qualifying path is left.", COUNT),
]
LENGTHS = [
    # a bound on every live path's length; a path of N hops from A to B, with its verb
    (IAM, "exposed", "All of the live paths are two hops or shorter.", T),
    (IAM, "exposed", "Every live path is 2 hops long.", COUNT),
    (DEV, "exposed", "None of the open paths is shorter than 5 hops.", T),
    (C4001, "exposed", "No live path is longer than four hops.", COUNT),
    (IAM, "exposed", "My estimate puts the shortest path between one and two hops.", T),
    (IAM, "exposed", "The shortest live path is between 2 and 4 hops.", COUNT),
    (C4001, "capped", "The shortest open path is still five hops.", T),
    (DEV, "after", "The shortest open path is still five hops.", COUNT),  # none is left
    (DEV, "after", "The shortest path was five hops.", T),  # history
    (WORK, "exposed", "A two-hop path runs from public-api-gw to orders-db.", T),
    (WORK, "exposed", "A five-hop path runs from public-api-gw to orders-db.", COUNT),
]
SHARES = [
    # "gone" after a copula closes the share; a bound before a share bounds it
    (C4001, "capped", "Half of the paths the run began with are gone.", T),
    (C4001, "capped", "A quarter of the original paths are gone now.", COUNT),
    (C4001, "capped", "At least half of the original paths are still open.", T),
    (IAM, "after", "At most a third of the starting paths are still open.", COUNT),
]
THEN_AND_NOW = [
    # a time inside the subject says which paths; a comparison with then, and a change that ends now, are of now
    (DEV, "exposed", "The one path seen before the run has been severed.", CLOSED),
    (DEV, "after", "The one path seen before the run has been severed.", T),
    (C4001, "capped", "Fewer paths remain open after the run than before it.", T),
    (IAM, "after", "Fewer paths remain open after the run than before it.", COUNT),
    (IAM, "after", "As many paths are open now as at the start.", T),
    (C4001, "exposed", "Fewer paths remain open now than at the start.", UNREAD),  # no run: no start to compare
    (C4001, "capped", "While two paths were open before the run, just one is left now.", T),
    (C4001, "capped", "While two paths were open before the run, two are left now.", COUNT),
    (DEV, "after", "The risk score went from 35 before the run to 10 after it.", T),
    (DEV, "after", "The risk score went from 35 before the run to 30 after it.", SCORE),
]
TABLE = "| Measure | At the start | Now |\n|---|---|---|\n"
BEFORE_AFTER = [
    # a table with a "before" and an "after" column: each row the change it records (the start and now)
    (C4001, "capped", TABLE + "| Open paths | 2 | 1 |", T),
    (C4001, "capped", TABLE + "| Open paths | 2 | 2 |", COUNT),
    (C4001, "capped", TABLE + "| Open paths | 4 | 1 |", COUNT),  # the run started with two
    (DEV, "after", TABLE + "| Score | 35 | 10 |", T),
    (DEV, "after", TABLE + "| Score | 35 | 25 |", SCORE),
]
SUBORDINATE = [
    # an opening "because / since / whereas" clause is a claim of its own ("if" is a condition); a relative clause
    # on an entity is a claim about it, whatever the main clause's mood; a concession leaves the main clause a claim
    (IAM, "exposed", "Because the exposure has ended, the ticket can be closed.", CLOSED),
    (DEV, "after", "Because the exposure has ended, the ticket can be closed.", T),
    (IAM, "exposed", "If the exposure has ended, the ticket can be closed.", T),
    (C4001, "exposed", "Later, route-c11-primary, which is still active, should be blocked.", T),
    (C4001, "capped", "Later, route-c11-primary, which is still active, should be blocked.", OPEN),
    (DEV, "exposed", "route-dev07-build, which has been blocked, may be released later.", CLOSED),
    (DEV, "exposed", "developer_07 could still reach customer-db even if nobody intervenes.", T),
    (DEV, "after", "developer_07 could still reach customer-db even if nobody intervenes.", OPEN),
    (DEV, "after", "Even if someone intervenes, developer_07 could still reach customer-db.", T),
]
VALUES_AND_RUNS = [
    # a severity said of an asset is its class, held against the assets the live paths reach; a run's end with the state it ended in is no containment
    (DEV, "exposed", "customer-db is classified critical and still in reach.", T),
    (DEV, "exposed", "customer-db is rated high.", SEVERITY),  # a critical asset
    (DEV, "after", "customer-db is rated critical.", T),  # no live path classes it, but the graph's asset does
    (DEV, "exposed", "customer-db is not rated high.", T),
    (IAM, "exposed", "Two data assets in reach (high or critical).", T),
    (IAM, "exposed", "Three data assets in reach (high or critical).", COUNT),  # the blast radius holds three
    (DEV, "exposed", "The alert is classified critical.", SEVERITY),
    (C4001, "capped", "The rules run finished `stopped`; one path is still open.", T),
    (C4001, "capped", "The run for BH-CONTAINMENT-4001 did not finish with the verdict completed.", T),
    (DEV, "after", "The run for BH-1042 did not end the exposure.", OPEN),
    (DEV, "after", "The containment run for BH-1042 ended with the verdict completed.", T),
    (DEV, "after", "The containment run for BH-1042 did not end with the verdict completed.", OPEN),
    (IAM, "exposed", "A containment run has already finished.", CLOSED),  # no run: the exposure did not end
]
CASES = BEFORE_AFTER + VALUES_AND_RUNS + QUESTIONS + NEGATED_SUBJECTS + LENGTHS + SHARES + THEN_AND_NOW + SUBORDINATE


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}/{c[1]}:{c[2][:60]}")
def test_each_part_of_a_sentence_is_read_for_what_it_states(evidence, case):  # noqa: F811
    """A false claim gets its flag, a truthful one none; a clause the evidence cannot decide is unverified (held
    without the gate's learned vocabulary, as in test_briefing_measures.py)."""
    found, tools = evidence
    alert, state, text, expected = case
    assert_judged(check_text_outcome(text, found[(alert, state)], tools, vocabulary=None), expected)
