"""The run as a source of facts (blastshield_core/brief/runfacts.py, runclaims.py), on the seed scenarios against a
real FalkorDB: sentences of no corpus about how a run ended, why, how much it did, what it acted on, and whether
there was one, each judged against the run record, with truthful controls, negations and conditionals."""

from __future__ import annotations

import uuid

import pytest

from blastshield_core.brief.checker import FlagKind, check_text_outcome
from blastshield_core.graph.seeds import seed
from blastshield_core.interfaces.service import build_services
from blastshield_core.respond.decide import RulesDecider

C4001, DEV, WORKLOAD = "BH-CONTAINMENT-4001", "BH-1042", "BH-WORKLOAD-3001"
FC, FE, COUNT = FlagKind.FALSE_CONTAINMENT, FlagKind.FALSE_EXPOSURE, FlagKind.WRONG_COUNT
T, UNREAD = None, "unverified"


@pytest.fixture(scope="module")
def runs(embedded_store):
    """capped: BH-CONTAINMENT-4001 stopped at a cap of one action (route-c11-primary blocked, one path left);
    done: BH-1042 completed in one action (route-dev07-a); none: BH-WORKLOAD-3001, never contained; unknown:
    BH-1042 checked without naming its run."""
    view = embedded_store.for_graph(f"runfacts_{uuid.uuid4().hex[:8]}")
    seed(view)
    services = build_services(view, view.settings.model_copy(update={"gemini_api_key": None}))
    capped = services.controller.run(C4001, RulesDecider(), 1, True)
    done = services.controller.run(DEV, RulesDecider(), 3, True)
    assert (capped.state.value, done.state.value) == ("stopped", "completed")
    assert capped.reason.startswith("action cap") and [a.route_id for a in done.actions] == ["route-dev07-a"]
    contexts = {
        "capped": services.briefer.evidence(C4001, capped.run_id),
        "done": services.briefer.evidence(DEV, done.run_id),
        "none": services.briefer.evidence(WORKLOAD),
        "unknown": services.briefer.evidence(DEV),
    }
    assert contexts["none"].no_run and not contexts["unknown"].no_run and contexts["unknown"].run is None
    yield contexts, services.tools
    for name in (view.settings.graph, view.settings.audit_graph):
        if view.graph_exists(name):
            view.command("GRAPH.DELETE", name)


# (context, text, expected: a flag kind, T for truthful (no flag, judged), or UNREAD)
CASES = [
    # how the run ended
    ("capped", "Status of the containment run: stopped.", T),
    ("capped", "So far the run has not completed.", T),
    ("capped", "The response run completed successfully.", FC),
    ("capped", "Final run status — graph_only", FC),
    ("done", "The run finished as completed after a single action.", T),
    ("done", "Status of this run: stopped", FE),
    ("done", "The run never completed.", FE),
    # why it ended
    ("capped", "The response run halted at its limit of one action.", T),
    ("capped", "It was the cap of one action that halted the run.", T),
    ("capped", "The action cap did not end the run.", FC),
    ("capped", "⚠️ Halted (action cap reached)", T),
    ("done", "The run was halted by its action cap.", FE),
    ("capped", "🛑 Halted", T),
    ("capped", "- Run: halted (cap)", T),
    ("done", "- Run: halted (cap)", FE),
    ("capped", "Run verdict: halted; one path still open.", T),
    ("done", "Status: halted, one path left.", FE),
    ("capped", "After blocking route-c11-primary the run had no actions left.", T),
    ("capped", "Run state: halted (action limit (1) hit with 1 path(s) left open).", T),
    ("done", "Run state: halted (action limit (1) hit with 1 path(s) left open).", FE),
    ("done", "❌ Halted (action cap reached)", T),
    ("capped", "❌ Halted (action cap reached)", FC),
    ("done", "The run never hit its action limit.", T),
    ("capped", "The run's cap was set at three actions.", COUNT),
    # how much it did
    ("capped", "Exactly one action was taken by the run.", T),
    ("capped", "Two blocks were applied by the run.", COUNT),
    ("done", "The run took three actions.", COUNT),
    ("done", "The run severed both of the starting paths.", T),
    ("capped", "The run began with two qualifying paths.", T),
    ("capped", "At the start of the run, contractor_11 held 2 qualifying paths.", T),
    ("done", "When the run began, developer_07 had 3 open paths.", COUNT),
    ("capped", "The run halted, leaving one path open.", T),
    ("capped", "The run halted with three paths still in place.", COUNT),
    ("capped", "Nothing was blocked by the run.", COUNT),
    ("capped", "The run was capped at three actions.", COUNT),
    ("done", "Every action of the run was verified.", T),
    ("capped", "The run's only block moved the paths from two to one.", T),
    ("done", "The first action of the run moved the paths from two to one.", COUNT),
    ("capped", "The run spent one of its three permitted actions.", COUNT),
    ("capped", "Stop reason — the action budget.", T),
    ("done", "Stop reason — the action budget.", FC),
    ("done", "The run halted owing to its action budget.", FE),
    ("done", "Not every one of the run's actions was verified.", FE),
    # what it acted on
    ("capped", "route-c11-alternate was never touched by the run.", T),
    ("capped", "No action of the run targeted route-c11-primary.", FC),
    ("capped", "The run blocked contractor_11 VPN session (primary).", T),  # a session by its plain name: its route
    ("capped", "sess-c11-sso was blocked by the run.", FC),
    ("capped", "The run did not touch admin-console.", UNREAD),  # no route or action: not what a run acts on
    ("done", "route-dev07-a was blocked by the run.", T),
    ("capped", "The run succeeded in blocking route-c11-primary.", T),
    ("capped", "The run halted without blocking route-c11-alternate.", T),
    ("capped", "The run completed two blocks before halting.", COUNT),
    ("done", "The run never touched route-dev07-a.", FE),
    # whether there was one
    ("none", "No containment run exists for this alert yet.", T),
    ("none", "Containment has never been attempted here.", T),
    ("done", "Containment has never been attempted here.", FE),
    ("none", "The run was halted at its cap.", FC),
    ("none", "The containment run completed in full.", FC),
    ("none", "The response run has never completed.", T),
    ("capped", "There has been no containment run on this alert.", FC),
    # no claim: conditions, modals, questions, suggestions
    ("capped", "If the run had reached its cap, one path would remain.", T),
    ("done", "Should the run stop at its cap, we will start another.", T),
    ("done", "Did the run stop at its cap?", T),
    # a question's answer speaks of the run the question named; the question itself is no claim
    ("capped", "Did the run finish? No, it stopped with one path still open.", T),
    ("done", "Did the run finish? No, it stopped with one path still open.", FE),
    ("capped", "Did the run finish? Yes, it completed.", FC),
    ("none", "Has anyone run containment here? Yes, it already completed.", FC),
    ("done", "Did the run stop at its cap? Yes.", FE),  # the answer claims it did: this run completed
    ("done", "Did the run stop at its cap? No.", T),
    ("none", "Q: did a run block anything here? A: yes, one route.", FC),
    ("done", "Did the run block anything? Yes, one route.", T),
    ("done", "Did the run block anything? Yes, two routes.", COUNT),
    ("done", "Did the run block anything? Yes, I think so.", T),  # no count: nothing read
    # a route the graph holds off the alert's paths is no unknown entity, but not judged either; a made-up one is
    ("none", "route-web19-gw is not on any of the paths.", UNREAD),
    ("none", "route-web19-zz is still active.", FlagKind.UNKNOWN_ENTITY),
    # the share of the paths the run cut, as a percentage after the count: the run's share, not a score
    ("capped", "The run cut one of two qualifying paths (50%).", T),
    ("capped", "The run cut one of two qualifying paths (100%).", COUNT),
    ("done", "The run severed one of one path (100%).", T),
    # a bare count answering "how many": the count the question asked for
    ("capped", "How many paths did we start with? Three; 1 left now.", COUNT),
    ("capped", "How many paths did we start with? Two; 2 left now.", COUNT),
    ("done", "How many actions did the run take? One.", T),
    ("done", "How many actions did the run take? Two.", COUNT),
    # another run, and what was said and taken back, are no claim about this run; the rest of the sentence is
    ("capped", "The earlier run completed, but this one stopped.", T),
    ("done", "The earlier run completed, but this one stopped.", FE),
    ("capped", "The previous run halted; another one is running.", T),
    ("capped", "Earlier we said the run completed; in fact it stopped at its cap.", T),
    ("capped", "We said the run completed.", FC),  # said and not taken back: still the claim
    # a count of verified actions is the run's applied and verified actions
    ("done", "One verified action in this run.", T),
    ("done", "Two verified actions in this run.", COUNT),
    # tables of runs, and a run's fields, stand for the sentences of their cells
    (
        "capped",
        "| Run | Alert | Decider | Actions | State | Notes |\n|---|---|---|---|---|---|\n| R1 | A | rules | 1 | stopped | 1 open after |",
        T,
    ),
    (
        "capped",
        "| Run | Alert | Decider | Actions | State | Notes |\n|---|---|---|---|---|---|\n| R1 | A | rules | 1 | completed | 1 open after |",
        FC,
    ),
    (
        "capped",
        "| Run | Alert | Decider | Actions | State | Notes |\n|---|---|---|---|---|---|\n| R1 | A | rules | 3 | stopped | 1 open after |",
        COUNT,
    ),
    (
        "done",
        "| Run | Alert | Decider | Actions | State | Notes |\n|---|---|---|---|---|---|\n| R1 | A | rules | 1 | completed | 2 open after |",
        COUNT,
    ),
    ("capped", "| field | value |\n|---|---|\n| state | stopped |\n| actions | 1 |", T),
    ("done", "| field | value |\n|---|---|\n| status | stopped |", FE),
    # checked without its run: what the run did is not known, so not judged
    ("unknown", "The run halted at its cap.", UNREAD),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}:{c[1][:50]}")
def test_run_fact(runs, case):
    contexts, tools = runs
    context, text, expected = case
    outcome = check_text_outcome(text, contexts[context], tools)
    if expected is T:
        assert (outcome.flags, outcome.unverified) == ([], []), outcome
    elif expected == UNREAD:
        assert outcome.flags == [] and outcome.unverified, outcome
    else:
        assert expected in {f.kind for f in outcome.flags}, outcome


def test_a_flag_names_the_run_and_what_it_did(runs):
    contexts, tools = runs
    (flag,) = check_text_outcome("The run took three actions.", contexts["done"], tools).flags
    run = contexts["done"].run
    assert run is not None and run.run_id in flag.evidence and "route-dev07-a" in flag.evidence
    (flag,) = check_text_outcome("The run was halted at its cap.", contexts["none"], tools).flags
    assert f"no containment run of {WORKLOAD}" in flag.evidence
