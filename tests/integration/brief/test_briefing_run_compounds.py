"""The run read where it shares a sentence with other claims, in status lines keyed by the alert, in a table of alerts,
and in someone else's words (blastshield_core/brief/runfacts.py, runclaims.py, runtables.py, reported.py), on the seed
scenarios against a real FalkorDB: sentences of no corpus, with truthful controls, negations and conditionals."""

from __future__ import annotations

import pytest

from blastshield_core.brief.checker import FlagKind, check_text_outcome
from tests.integration.brief.test_briefing_run_facts import C4001, DEV, WORKLOAD, runs  # noqa: F401 (the fixture)

FC, FE, COUNT = FlagKind.FALSE_CONTAINMENT, FlagKind.FALSE_EXPOSURE, FlagKind.WRONG_COUNT
T = None

# (context, text, expected: a flag kind, or T for truthful: no flag and nothing unverified)
CASES = [
    # a run clause joined to a count of open paths by a bare comma: each read as what it is
    ("capped", "Overall, the response run halted, one qualifying path is still open.", T),
    ("capped", "Overall, the response run halted, two qualifying paths are still open.", COUNT),
    ("capped", "Overall, the response run completed, one qualifying path is still open.", FC),
    ("done", "All told, the response run finished as completed, and no qualifying path is left.", T),
    ("done", "All told, the response run finished as stopped, and no qualifying path is left.", FE),
    # "did not end / finish": the base form after its auxiliary
    ("capped", f"The response run on {C4001} did not finish as completed.", T),
    ("done", f"The response run on {DEV} did not finish as completed.", FE),
    # a subordinate clause of time keeps its modal; the main clause is still the claim
    ("capped", "The run was halted before anyone could review the last route.", T),
    ("done", "The run was halted before anyone could review the last route.", FE),
    ("capped", "If the run had been halted before anyone could review it, we would know.", T),  # a condition
    # a status line keyed by the alert's id
    ("capped", f"🛑 Halted: {C4001}", T),
    ("done", f"🛑 Halted: {DEV}", FE),
    ("capped", f"✅ Completed: {C4001}", FC),
    ("done", f"❌ Not completed: {DEV}", FE),
    ("none", f"✅ Completed: {WORKLOAD}", FC),  # no run at all
    # a share of the cap in the passive; a lower bound on the actions
    ("capped", "One of the one allowed actions was spent by the run.", T),
    ("capped", "Zero of the one allowed actions were spent by the run.", COUNT),
    ("done", "At least one action has been applied by the run.", T),
    ("none", "At least one action has been applied by the run.", FC),
    # no run, said by what would have been done
    ("none", "Actions applied: none yet.", T),
    ("none", "The exposure was resolved by an automatic run.", FC),
    ("done", "The alert has not been passed to a response run yet.", FE),
    ("none", "The alert has not been passed to a response run yet.", T),
    ("none", "| alert | run status |\n|---|---|\n| " + WORKLOAD + " | none yet |", T),
    ("done", "| alert | run status |\n|---|---|\n| " + DEV + " | none yet |", FE),
    # what it had left to act on
    ("done", "The run had nothing left to block.", FE),
    ("capped", "The run had nothing left to block.", FC),
    # someone else's words are theirs; the writer's answer to them is the claim
    ("capped", f"Sam says {C4001} is contained. That is wrong: it is still exposed.", T),
    ("capped", f"Sam says {C4001} is still exposed. That is wrong: it is contained.", FC),
    ("done", f"They told us {DEV} is exposed. In fact it is contained.", T),
    ("capped", f"We wrote that {C4001} is contained.", FC),  # the writer's own words are the claim
    # the paths open before the run and after it (capped: two at the start, one left; done: one at the start, none left)
    ("capped", "Two qualifying paths were open before the run.", T),
    ("done", "Two qualifying paths were open before the run.", COUNT),
    ("capped", "At the start of the run, two qualifying paths were open.", T),
    ("capped", "Whereas two qualifying paths were open before the run, one is still open after it.", T),
    ("capped", "Whereas two qualifying paths were open before the run, two are still open after it.", COUNT),
    ("done", "Whereas one qualifying path was open before the run, one remains open after the run.", COUNT),
    # what the run changed: nothing, said of the paths (not of an account)
    ("done", "The run changed nothing: the same path is open as before.", COUNT),
    ("capped", "The response run made no difference.", COUNT),
    ("capped", "The run changed nothing on the AWS account.", T),
    # a correction of an earlier message claims what follows its colon, now
    ("done", f"Follow-up to my previous note: {DEV} is contained; no qualifying path is left.", T),
    ("done", f"Follow-up to my previous note: {DEV} is still exposed.", FE),
    ("capped", f"Clarification of our last message: {C4001} is contained.", FC),
    ("done", f"2. Update on my first reply: {DEV} is exposed.", FE),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}:{c[1][:50]}")
def test_run_in_compounds_and_labels(runs, case):  # noqa: F811 (the fixture)
    contexts, tools = runs
    context, text, expected = case
    outcome = check_text_outcome(text, contexts[context], tools)
    if expected is T:
        assert (outcome.flags, outcome.unverified) == ([], []), outcome
    else:
        assert expected in {f.kind for f in outcome.flags}, outcome
