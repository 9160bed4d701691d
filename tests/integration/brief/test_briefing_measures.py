"""Quantities, distances and what-ifs (blastshield_core/brief/measures.py, numbers.py), each reader held against
the real seeded graph with sentences of its own: truthful controls, negations and conditionals beside the false
claims. Contexts: the seed scenarios as seeded, BH-CONTAINMENT-4001 after a rules run capped at one action
(stopped: two paths at the start, the one through route-c11-alternate left), BH-1042 after a rules run
(completed: its one path cut) and BH-IAM-2001 after a rules run (stopped: three paths, no route to block)."""

from __future__ import annotations

import uuid

import pytest

from blastshield_core.brief.checker import CheckOutcome, FlagKind, check_text_outcome
from blastshield_core.graph.seeds import seed
from blastshield_core.interfaces.service import build_services
from blastshield_core.respond.decide import RulesDecider

C4001, IAM, WORK, DEV = "BH-CONTAINMENT-4001", "BH-IAM-2001", "BH-WORKLOAD-3001", "BH-1042"
COUNT, SCORE, SEVERITY = FlagKind.WRONG_COUNT, FlagKind.WRONG_SCORE, FlagKind.WRONG_SEVERITY
CLOSED, OPEN, LINK = FlagKind.FALSE_CONTAINMENT, FlagKind.FALSE_EXPOSURE, FlagKind.WRONG_RELATIONSHIP
T, UNREAD = None, "unverified"


@pytest.fixture(scope="module")
def evidence(embedded_store):
    views, out = [], {}
    for name in ("seeded", "capped", "runs"):
        view = embedded_store.for_graph(f"measures_{name}_{uuid.uuid4().hex[:8]}")
        views.append(view)
        seed(view)
        services = build_services(view, view.settings.model_copy(update={"gemini_api_key": None}))
        if name == "seeded":
            out |= {(a, "exposed"): services.briefer.evidence(a) for a in (C4001, IAM, WORK, DEV)}
        elif name == "capped":
            run = services.controller.run(C4001, RulesDecider(), 1, True)
            out[(C4001, "capped")] = services.briefer.evidence(C4001, run.run_id)
        else:
            for alert in (DEV, IAM):
                run = services.controller.run(alert, RulesDecider(), 3, True)
                out[(alert, "after")] = services.briefer.evidence(alert, run.run_id)
        tools = services.tools
    assert out[(C4001, "capped")].run.paths_at_start == 2 and out[(C4001, "capped")].path_count == 1
    assert out[(DEV, "after")].path_count == 0 and out[(IAM, "after")].path_count == 3
    yield out, tools
    for view in views:
        for graph in (view.settings.graph, view.settings.audit_graph):
            if view.graph_exists(graph):
                view.command("GRAPH.DELETE", graph)


def assert_judged(outcome: CheckOutcome, expected: FlagKind | str | None) -> None:
    """`expected` among the outcome's flags; none for a truthful sentence (None); none and unverified (UNREAD)."""
    kinds = {f.kind for f in outcome.flags}
    if expected is None:
        assert kinds == set(), outcome
    elif expected == UNREAD:
        assert kinds == set() and outcome.unverified, outcome
    else:
        assert expected in kinds, outcome


# (alert, state, text, the flag expected, None for a truthful sentence, or "unverified")
SHARES = [
    # a share of the paths the run started with, whatever the verb's place; a percent range of them, never a score
    (C4001, "capped", "The containment run severed one of the two paths it began with.", T),
    (C4001, "capped", "The containment run severed two of the two paths it began with.", COUNT),
    (IAM, "after", "The run cut 0 of the 3 paths it started with.", T),
    (IAM, "after", "The run cut 1 of the 3 paths it started with.", COUNT),
    (DEV, "after", "The run cut zero of the one path it started with.", COUNT),
    (C4001, "capped", "Somewhere from 40 to 60% of the paths the run started with have been cut.", T),
    (C4001, "capped", "Roughly 70-90% of the paths the run started with have been cut.", COUNT),
    (C4001, "capped", "Between 40 and 60 percent of the original paths are still open.", T),
    (C4001, "capped", "Between 0 and 20 percent of the original paths are still open.", COUNT),
    (C4001, "capped", "The score sits between 40 and 50.", T),
    (C4001, "capped", "The score sits between 60 and 70.", SCORE),
    (DEV, "after", "The score now falls between -15 and 5.", SCORE),
    (DEV, "after", "The score now falls between 5 and 15.", T),
    (IAM, "exposed", "Its risk score remains above 60.", T),
    (IAM, "exposed", "Its risk score remains below 60.", SCORE),
    (IAM, "exposed", "Its risk score is no higher than 50.", SCORE),
    (C4001, "capped", "Half of the starting paths have been severed.", T),
    (C4001, "capped", "A quarter of the starting paths have been severed.", COUNT),
    (C4001, "capped", "The run severed 1 path out of 2.", T),
    (C4001, "capped", "The run severed 2 paths out of 2.", COUNT),
    # a change: where it started and where it is now
    (C4001, "capped", "The qualifying paths went from two to one.", T),
    (C4001, "capped", "The qualifying paths went from three to one.", COUNT),
    (C4001, "capped", "The path count has dropped from 2 to 0.", COUNT),
    (C4001, "capped", "Its risk score fell from 60 to 45.", T),  # a value that fell, not a path that closed
    (C4001, "capped", "Its risk score fell from 60 to 50.", SCORE),
    (C4001, "capped", "Severity has dropped from high to medium.", T),
    (C4001, "capped", "Severity has dropped from high to low.", SEVERITY),
    # how many of the paths are open, without their total: a count of the live paths
    (C4001, "exposed", "Only one of the paths is open.", COUNT),
    (C4001, "capped", "Only one of the paths is open.", T),
    (IAM, "exposed", "Exactly two of the qualifying paths remain live.", COUNT),
    (DEV, "after", "None of the paths is still open.", T),
    # a share of the paths through an entity is not a share of the live paths (the links reader's)
    (C4001, "exposed", "Half of the paths run through bastion-01.", T),
    (C4001, "exposed", "About 50% of the paths pass through admin-console.", T),
    # a range of the live paths is two bounds, not a count of its upper end
    (IAM, "exposed", "Anywhere between two and five qualifying paths are open.", T),
    (IAM, "exposed", "Anywhere between four and six qualifying paths are open.", COUNT),
]
DISTANCES = [
    (WORK, "exposed", "orders-db lies two hops from public-api-gw.", T),
    (WORK, "exposed", "orders-db lies three hops from public-api-gw.", COUNT),
    (WORK, "exposed", "Exactly four hops separate public-api-gw from payments-db.", T),
    (WORK, "exposed", "Exactly two hops separate public-api-gw from payments-db.", COUNT),
    (WORK, "exposed", "payments-db is not within three hops of public-api-gw.", T),
    (WORK, "exposed", "payments-db is not within five hops of public-api-gw.", COUNT),
    (IAM, "exposed", "The closest critical asset sits a single hop away.", T),
    (IAM, "exposed", "The closest critical asset sits three hops away.", COUNT),
    (IAM, "exposed", "Every sensitive asset is within two hops of analytics-poweruser.", T),
    (IAM, "exposed", "Every sensitive asset is within one hop of analytics-poweruser.", COUNT),
    (C4001, "exposed", "It takes four hops to get from contractor_11 to payments-vault.", T),
    (C4001, "exposed", "It takes five hops to get from contractor_11 to payments-vault.", COUNT),
    (C4001, "exposed", "contractor_11 gets to payments-vault in 5 hops.", T),  # the path through the console
    (C4001, "exposed", "The route from contractor_11 to payments-vault covers 6 hops.", COUNT),
    (C4001, "exposed", "payments-vault is five hops from contractor_11 along the SSO path.", T),  # one of the paths
    (C4001, "exposed", "payments-vault is six hops from contractor_11 along the SSO path.", COUNT),
    (DEV, "after", "developer_07 was five hops from customer-db.", T),  # history, not a claim about now
    (DEV, "exposed", "An open path of 5 hops or fewer runs from developer_07 to customer-db.", T),
    (DEV, "exposed", "There is a path of 4 hops or fewer from developer_07 to customer-db.", COUNT),
    (DEV, "exposed", "No path of 4 hops or fewer leads to customer-db.", T),  # a bound on the length: 5 hops
    (DEV, "exposed", "No path of 5 hops or fewer leads to customer-db.", CLOSED),
    (C4001, "exposed", "A 5-hop chain to payments-vault is open.", T),
    (C4001, "exposed", "A 3-hop chain to payments-vault is open.", COUNT),
    (C4001, "capped", "The remaining chain is five hops long.", T),
    (C4001, "capped", "The remaining chain is four hops long.", COUNT),
    # no live path: false between the alert's entity and its asset, not known between two other entities
    (DEV, "after", "customer-db sits five hops from developer_07.", OPEN),
    (C4001, "exposed", "bastion-01 is two hops from admin-console.", UNREAD),
    # a conditional distance is no claim
    (C4001, "exposed", "If the block were lifted, payments-vault would be 9 hops from contractor_11.", T),
]
NEGATED = [
    (IAM, "exposed", "This alert is no longer rated high.", SEVERITY),
    (IAM, "exposed", "This alert is not rated critical.", T),
    (IAM, "exposed", "The risk score is no longer 65.", SCORE),
    (IAM, "exposed", "The risk score is not 70.", T),
    # an asset's sensitivity, held against the asset (customer-db critical, customer-pii high), not the alert's
    # severity (both alerts are rated high)
    (DEV, "exposed", "customer-db is not high.", T),
    (WORK, "exposed", "customer-pii is not high.", SEVERITY),
]
ONE_PATH = [
    (C4001, "capped", "The only remaining path runs via admin-console.", T),
    (C4001, "capped", "The only remaining path runs via ops-role.", LINK),
    (C4001, "capped", "The last open path no longer goes through bastion-01.", T),
    (C4001, "exposed", "The open path goes through contractor_11.", T),  # every live path holds it
    (C4001, "exposed", "The open path goes through admin-console.", LINK),  # one of the two does not
]
WHAT_IFS = [
    (C4001, "exposed", "Blocking route-c11-primary would not be enough.", T),
    (C4001, "exposed", "Blocking route-c11-primary would be enough.", CLOSED),
    (
        C4001,
        "exposed",
        "With route-c11-primary and route-c11-alternate both blocked, no qualifying path would remain.",
        T,
    ),
    (C4001, "exposed", "With route-c11-primary blocked, no qualifying path would remain.", CLOSED),
    (C4001, "exposed", "Only blocking both route-c11-primary and route-c11-alternate ends the exposure.", T),
    (C4001, "exposed", "Only blocking both route-c11-primary and route-c11-stale ends the exposure.", CLOSED),
    (C4001, "exposed", "Blocking route-c11-stale would make no difference.", T),
    (C4001, "exposed", "Blocking route-c11-alternate would cut a path.", T),
    (C4001, "exposed", "Blocking route-c11-stale would cut a path.", COUNT),
    (C4001, "capped", "Blocking route-c11-alternate would cut the one remaining path.", T),
    (C4001, "capped", "Even after blocking route-c11-alternate, a qualifying path would survive.", OPEN),
    (C4001, "exposed", "Blocking any single session route would contain contractor_11.", CLOSED),
    (C4001, "capped", "Blocking any single session route would contain contractor_11.", T),
    (IAM, "exposed", "Blocking any single session route would contain analytics-poweruser.", CLOSED),
    (C4001, "exposed", "If we block route-c11-alternate, one path stays open.", T),
    (C4001, "exposed", "Once route-c11-alternate is blocked, the exposure ends.", CLOSED),
    (C4001, "exposed", "Blocking route-c11-alternate leaves one path open.", T),
    (C4001, "exposed", "Blocking route-c11-alternate cut the path.", CLOSED),  # a record: it is still active
    (C4001, "exposed", "Blocking route-c11-primary would close the path through bastion-01.", T),  # one path
    (C4001, "exposed", "If route-c11-primary were blocked, every path would be closed.", CLOSED),
    (C4001, "exposed", "With route-c11-stale already blocked, two paths remain.", T),  # the route is the setting
    (C4001, "capped", "With route-c11-primary already blocked, one path remains.", T),
    (C4001, "exposed", "With route-c11-primary already blocked, one path remains.", CLOSED),
    (C4001, "exposed", "Even with route-c11-alternate blocked, not a single path would remain.", CLOSED),
    (C4001, "exposed", "Even with route-c11-alternate blocked, not every path would be closed.", T),
    (C4001, "capped", "When route-c11-primary was blocked, one path remained.", T),  # a record of the run
    # other modals and conditionals stay no claim; what a release would bring back is not in the evidence
    (C4001, "exposed", "If the analyst approves, we would block route-c11-primary.", T),
    (C4001, "exposed", "Releasing route-c11-stale would reopen a path.", UNREAD),
]
LISTS = [
    # the assets the live paths reach, listed: the list is the class's whole set ("include": part of it)
    (IAM, "exposed", "Sensitive assets within reach: hr-records & finance-ledger.", T),
    (IAM, "exposed", "Sensitive assets within reach: hr-records, finance-ledger and secrets-vault.", COUNT),
    (IAM, "exposed", "The critical assets still reachable are finance-ledger and hr-records.", COUNT),
    (IAM, "exposed", "The high or critical assets at risk include hr-records.", T),
    (DEV, "after", "Assets still in reach: customer-db.", COUNT),
]
START = [
    # the paths the run started with: history, held against the run's record (no run: nothing to hold it to)
    (DEV, "after", "Before the run, developer_07 faced two qualifying paths.", COUNT),
    (DEV, "after", "Before the run, developer_07 faced one qualifying path.", T),
    (C4001, "capped", "This containment run began with 2 open paths.", T),
    (C4001, "capped", "This containment run began with 4 open paths.", COUNT),
    (C4001, "exposed", "Before the run, contractor_11 faced two qualifying paths.", UNREAD),
]
FOR_NOW = [
    (DEV, "after", "Once the analyst signs off we will close the ticket; for now no qualifying path remains.", T),
    (DEV, "after", "Once the analyst signs off we will close the ticket; for now two qualifying paths remain.", COUNT),
    (DEV, "after", "Once the analyst signs off we'll close the ticket; for now two qualifying paths remain.", COUNT),
    (DEV, "after", "If anything comes back we will act again.", T),
]
# a share restated as a percentage in parentheses; a range whose low end is zero; where a path ends; "assuming"
# as the step of assuming a role between two entities, a condition elsewhere; "you can mark" acts on the alert
RESTATED = [
    (C4001, "capped", "The run severed one of the two paths it began with (50%).", T),
    (C4001, "capped", "The run severed one of the two paths it began with (100%).", COUNT),
    (IAM, "after", "The run severed zero of the 3 starting paths (0%).", T),
    (IAM, "after", "The run cut 0 of the 3 paths it started with (0 percent).", T),
    (IAM, "after", "The run cut 1 of the 3 paths it started with (33%).", COUNT),
    (DEV, "exposed", "Anywhere from zero to four paths are still open.", T),
    (DEV, "after", "Somewhere between 0 and 2 qualifying paths are left.", T),
    (IAM, "exposed", "Between 0 and 1 paths are still open.", COUNT),
    (IAM, "exposed", "Zero paths are still open.", CLOSED),
    (WORK, "exposed", "One of its three paths ends at customer-pii.", UNREAD),
    (WORK, "exposed", "Every path ends in customer-pii and the exposure has ended.", CLOSED),
    (DEV, "exposed", "The open path has deploy-role assuming prod-admin-role.", T),
    (DEV, "exposed", "None of the open paths has deploy-role assuming prod-admin-role.", LINK),
    (DEV, "exposed", "Assuming the block on deploy-role holds, no path would remain.", T),
    (DEV, "after", "You can now mark BH-1042 contained.", T),
    # a length written as a label, a path left, a bound on one path's length
    (DEV, "exposed", "Shortest path: 5 hops.", T),
    (DEV, "exposed", "Longest path = 7 hops.", COUNT),
    (IAM, "exposed", "Shortest qualifying path: 1 hop.", T),
    (IAM, "exposed", "Shortest qualifying path: 2 hops.", COUNT),
    (DEV, "exposed", "A 5-hop path is still open.", T),
    (DEV, "exposed", "A 3-hop path remains.", COUNT),
    (DEV, "after", "A 5-hop chain is left.", COUNT),
    (C4001, "capped", "The path still open after the cap spans five hops.", T),
    (C4001, "capped", "The path left after the cap is three hops long.", COUNT),
    (DEV, "exposed", "At least one live path is shorter than 6 hops.", T),
    (DEV, "exposed", "At least one live path is longer than 5 hops.", COUNT),
    (DEV, "exposed", "No open path is shorter than five hops.", T),
    (DEV, "exposed", "If a 3-hop path is left, we will block it.", T),
    (C4001, "exposed", "There is still a live path within four hops.", T),
    (C4001, "exposed", "There is an open path of three hops or fewer.", COUNT),
    (DEV, "after", "There remains a path within six hops.", COUNT),
    (C4001, "exposed", "If there is a path within three hops, block it.", T),
    # the paths a route carries are not a share of the live paths; what a scoring rule counts is not a state
    (C4001, "exposed", "route-c11-primary carries one of the two qualifying paths.", T),
    (C4001, "exposed", "One of the two qualifying paths is still open.", COUNT),
    (DEV, "after", "Reaching a critical asset earns no points any more.", T),
    (DEV, "after", "Reaching customer-db is still possible.", OPEN),
    # what the reach rule adds to this alert's score (fired or not); a rule that did not fire, said without "now"
    (DEV, "after", "Reaching a critical asset still adds points to the score.", SCORE),
    (DEV, "exposed", "Reaching a critical asset still contributes to the score.", T),
    (DEV, "exposed", "Reaching a critical asset adds 20 points.", T),
    (DEV, "exposed", "Reaching a critical asset adds 25 points.", SCORE),
    (DEV, "exposed", "Reaching a critical asset no longer adds points.", SCORE),
    (C4001, "capped", "Reaching a high-sensitivity asset adds 10 points.", UNREAD),
    (C4001, "capped", "Reaching a high-sensitivity asset currently adds 10 points.", SCORE),
    (DEV, "exposed", "The E2-long-path rule fired as well, for 5 points.", T),
    (DEV, "exposed", "The E2-medium-path rule also applied, adding 10 points.", SCORE),
    (DEV, "exposed", "E2-long-path fired, adding 15 points.", SCORE),
    (DEV, "exposed", "E3-multiple-paths did not fire.", T),
    (DEV, "after", "E1-critical-reach no longer fires.", T),
    (DEV, "after", "If E1-critical-reach still fired, the score would be higher.", T),
    (DEV, "after", "Note: reaching a critical asset still adds points.", SCORE),
    # a run that stopped "with" paths left ended there: no claim that the exposure ended
    (IAM, "after", "No, it halted with the three paths still open.", T),
    (IAM, "after", "It stopped with the exposure closed.", CLOSED),
    # "could still" / "could no longer": a present ability, unless the line states a condition
    (C4001, "capped", "contractor_11 could still get to payments-vault.", T),
    (DEV, "after", "developer_07 could still get to customer-db.", OPEN),
    (DEV, "exposed", "developer_07 could no longer get to customer-db.", CLOSED),
    (DEV, "after", "Were the block lifted, developer_07 could still get to customer-db.", T),
    (DEV, "after", "Without the block in place, developer_07 could still get to customer-db.", T),
]
CASES = RESTATED + SHARES + DISTANCES + NEGATED + ONE_PATH + WHAT_IFS + LISTS + START + FOR_NOW


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}/{c[1]}:{c[2][:60]}")
def test_each_reader_judges_its_fact(evidence, case):
    """A false claim gets its flag, a truthful one none; a clause the evidence cannot decide is unverified.

    The readers are held without the gate's learned vocabulary (`known_words.py`, relearned from the corpora):
    whether a word is known is the gate's question, tested in test_briefing_families.py."""
    found, tools = evidence
    alert, state, text, expected = case
    assert_judged(check_text_outcome(text, found[(alert, state)], tools, vocabulary=None), expected)


def test_a_what_if_is_judged_from_the_routes_the_live_paths_pass(evidence):
    """The evidence says which route each live path passes: the flag quotes it."""
    found, tools = evidence
    outcome = check_text_outcome(
        "Blocking route-c11-primary alone would cut every remaining path.", found[(C4001, "exposed")], tools
    )
    assert [f.kind for f in outcome.flags] == [CLOSED], outcome
    assert "route-c11-primary (active) carries 1" in outcome.flags[0].evidence
    assert "route-c11-alternate (active) carries 1" in outcome.flags[0].evidence
