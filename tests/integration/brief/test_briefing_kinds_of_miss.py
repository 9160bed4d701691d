"""The kinds of miss and false flag the fourth round's hand-written batch showed, one sentence each, as regression
cases on the seed scenarios (exposed, and after a rules run capped at one action: stopped, one path left)."""

from __future__ import annotations

import uuid

import pytest

from blastshield_core.brief.checker import FlagKind, check_text_outcome
from blastshield_core.graph.seeds import seed
from blastshield_core.interfaces.service import build_services
from blastshield_core.respond.decide import RulesDecider

C4001, IAM = "BH-CONTAINMENT-4001", "BH-IAM-2001"
F, T = FlagKind.FALSE_CONTAINMENT, None


@pytest.fixture(scope="module")
def evidence(embedded_store):
    view = embedded_store.for_graph(f"round4_hand_{uuid.uuid4().hex[:8]}")
    seed(view)
    services = build_services(view, view.settings.model_copy(update={"gemini_api_key": None}))
    exposed = {a: services.briefer.evidence(a) for a in (C4001, IAM, "BH-WORKLOAD-3001")}
    run = services.controller.run(C4001, RulesDecider(), 1, True)
    capped = services.briefer.evidence(C4001, run.run_id)
    yield exposed, capped, services.tools
    for name in (view.settings.graph, view.settings.audit_graph):
        if view.graph_exists(name):
            view.command("GRAPH.DELETE", name)


# (alert, state, text, expected flag kind or None for truthful)
CASES = [
    # a what-if about blocking routes is decided from the live paths and the routes they pass (`measures.py`)
    (C4001, "exposed", "Even with route-c11-primary blocked, at least one qualifying path would remain.", T),
    (C4001, "exposed", "Blocking route-c11-primary alone would leave one path open.", T),
    (C4001, "exposed", "Blocking route-c11-primary alone would leave no path open.", F),
    (C4001, "exposed", "Neither route-c11-primary nor route-c11-alternate has been blocked.", T),
    (C4001, "exposed", "Neither route-c11-primary nor route-c11-stale has been blocked.", FlagKind.FALSE_EXPOSURE),
    (C4001, "exposed", "contractor_11 can't reach payments-vault anymore.", F),
    (C4001, "exposed", "contractor_11 can still reach payments-vault.", T),
    (C4001, "exposed", "It would count as contained only after a fresh query finds no path.", T),
    (C4001, "capped", "✅ Contained (cap reached)", F),
    (C4001, "capped", "❌ Contained (cap reached)", T),
    (C4001, "capped", "route-c11-primary: ~~active~~ **blocked**", T),
    (C4001, "capped", "route-c11-alternate: ~~active~~ **blocked**", F),
    (C4001, "capped", 'The fresh query\'s verdict is "contained".', F),
    (C4001, "capped", "The run completed.", F),
    (C4001, "capped", "| Route | Before | After |\n|---|---|---|\n| route-c11-alternate | active | blocked |", F),
    (C4001, "capped", "| Route | Before | After |\n|---|---|---|\n| route-c11-primary | active | blocked |", T),
    (C4001, "exposed", "console-role can assume ops-role directly.", FlagKind.WRONG_RELATIONSHIP),
    (C4001, "exposed", "console-role can assume payments-reader directly.", T),
    (C4001, "exposed", "Both paths run through bastion-01.", FlagKind.WRONG_RELATIONSHIP),
    (C4001, "exposed", "Both paths run through contractor_11.", T),
    (C4001, "exposed", "admin-console assumes ops-role on the way.", FlagKind.WRONG_RELATIONSHIP),
    (C4001, "exposed", "console-role assumes payments-reader on the way.", T),
    (C4001, "exposed", "The Payments vault is reachable from contractor_11.", T),
    (C4001, "exposed", "PAYMENTS-VAULT is still reachable.", T),
    (IAM, "exposed", "analytics-poweruser can read secrets-vault.", FlagKind.WRONG_RELATIONSHIP),
    (IAM, "exposed", "The grant from analytics-poweruser to secrets-vault is denied.", T),
    # what the run did on the account, negated on its object, and placed in the graph alone (account.py)
    (C4001, "capped", "This run changed nothing in AWS; whatever it did was in the graph.", T),
    (C4001, "capped", "The run deactivated contractor_11's access key in AWS.", F),
    # a held grant is a claim about that relationship (links.py), read with its adjectives
    (IAM, "exposed", "analytics-poweruser holds a direct, working read grant on finance-ledger.", T),
    (
        IAM,
        "exposed",
        "analytics-poweruser holds a direct, working read grant on secrets-vault.",
        FlagKind.WRONG_RELATIONSHIP,
    ),
    (C4001, "exposed", "The phishing email said:\n> Your sessions have been revoked and your access is blocked.", T),
    (C4001, "exposed", "The risk score is between 55 and 65.", T),
    (C4001, "exposed", "The risk score is between 70 and 80.", FlagKind.WRONG_SCORE),
    (C4001, "exposed", "One of its two qualifying paths remains open.", FlagKind.WRONG_COUNT),
    (C4001, "capped", "One of its two qualifying paths remains open.", T),
    (C4001, "exposed", "The shortest path is three hops long.", FlagKind.WRONG_COUNT),
    # known words in orders the grammar misread (docs/briefings.md, "Reading the known words in new orders")
    (C4001, "exposed", "❌ BH-CONTAINMENT-4001: not contained", T),
    (C4001, "capped", "❌ BH-CONTAINMENT-4001: not contained", T),
    (C4001, "exposed", "contractor_11 has lost access to payments-vault.", F),
    (C4001, "capped", "- route-c11-primary — blocked", T),
    (C4001, "capped", "- route-c11-alternate — blocked", F),
    (C4001, "capped", "Outcome of the run: stopped.", T),
    (C4001, "capped", "Paths remaining: one.", T),
    (C4001, "capped", "Paths remaining: two.", FlagKind.WRONG_COUNT),
    (C4001, "exposed", "The exposure is not over: contractor_11 retains a working path to payments-vault.", T),
    # the run's own facts (brief/runfacts.py): the number of actions is read, no longer unverified
    (C4001, "capped", "The run took 1 action.", T),
    (C4001, "capped", "The run took 3 actions.", FlagKind.WRONG_COUNT),
    (C4001, "capped", "Its first action took the path count from two to two.", FlagKind.WRONG_COUNT),
]

# Truthful sentences whose reading leaves a structural word unread: no flag, and listed as unverified.
UNREAD = [
    (C4001, "capped", "Not every path from contractor_11 to sensitive data has been shut down."),
    (C4001, "capped", "Containment took 2 tries."),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[1]}:{c[2][:50]}")
def test_kind_of_miss(evidence, case):
    """A false sentence gets its flag; a truthful one none."""
    exposed, capped, tools = evidence
    alert, state, text, kind = case
    ev = capped if state == "capped" else exposed[alert]
    outcome = check_text_outcome(text, ev, tools)
    if kind is None:
        assert outcome.flags == [], outcome.flags
    else:
        assert kind in {f.kind for f in outcome.flags}, outcome


def test_unverified_is_neither_flag_nor_clean(evidence):
    """A clause with state words the grammar cannot read is listed as unverified, not flagged."""
    exposed, _, tools = evidence
    outcome = check_text_outcome("Remediation theatre, arguably.", exposed[C4001], tools)
    assert (outcome.flags, outcome.unverified) == ([], ["Remediation theatre, arguably."])


@pytest.mark.parametrize("case", UNREAD, ids=lambda c: f"{c[1]}:{c[2][:50]}")
def test_a_reading_that_leaves_a_structural_word_unread_is_unverified(evidence, case):
    """A counterfactual, a scope, a quantity, a held grant or a number the reading did not use: not judged."""
    exposed, capped, tools = evidence
    alert, state, text = case
    outcome = check_text_outcome(text, capped if state == "capped" else exposed[alert], tools)
    assert outcome.flags == [] and outcome.unverified, outcome
