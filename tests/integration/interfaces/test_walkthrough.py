"""The walkthrough's core: query parameters, outcomes decided from records, samples and reset on a real graph."""

from __future__ import annotations

from blastshield_core.interfaces.walkthrough import (
    CONTAINMENT_ALERT,
    STEPS,
    PageQuery,
    RunSeen,
    SeenLog,
    check_sample_briefings,
    reset_demo,
)
from blastshield_core.respond.decide import RulesDecider
from blastshield_core.results import RunState, Status


def _run(services, cap: int):
    session = services.controller.start(CONTAINMENT_ALERT, "rules", cap, True)
    while not session.run.state.terminal:
        session.advance(RulesDecider())
    return session.run


def test_page_query_keeps_valid_values_and_drops_the_rest():
    """Valid ?alert/?depth/?decider/?cap values are kept typed; out-of-range or hostile ones are ignored."""
    good = PageQuery.from_params({"alert": "BH-1042", "depth": "5", "decider": "analyst", "cap": ["9", "2"]})
    assert good == PageQuery(alert="BH-1042", depth=5, decider="analyst", cap=2)
    bad = PageQuery.from_params({"alert": "x') DETACH DELETE n //", "depth": "7", "decider": "claude", "cap": "0"})
    assert bad == PageQuery()
    assert [s.query.as_params() for s in STEPS if s.page != "here"] == [
        {"alert": "BH-1042", "depth": "4"},
        {"alert": "BH-CONTAINMENT-4001", "depth": "6"},
        {"alert": "BH-CONTAINMENT-4001", "decider": "rules", "cap": "1"},
        {"alert": "BH-CONTAINMENT-4001", "decider": "rules", "cap": "3"},
    ]


def test_a_completed_run_counts_only_after_the_stopped_one():
    """Step 5 needs a completed run seen after the cap-1 stop; a repeated record is kept once."""
    log = SeenLog()

    def run(run_id: str, cap: int, state: RunState, remaining: int) -> RunSeen:
        return RunSeen(run_id=run_id, alert_id=CONTAINMENT_ALERT, decider="rules", cap=cap, state=state,
                       remaining_paths=remaining)  # fmt: skip

    assert log.record(run("run-a", 3, RunState.COMPLETED, 0))
    assert not log.record(run("run-a", 3, RunState.COMPLETED, 0))
    assert log.record(run("run-b", 1, RunState.STOPPED, 1))
    done = {o.step_id: o.done for o in log.outcomes()}
    assert (done["cap"], done["complete"]) == (True, False)
    log.record(run("run-c", 3, RunState.COMPLETED, 0))
    assert {o.step_id: o.done for o in log.outcomes()}["complete"] is True


def test_samples_are_flagged_live_and_reset_restores_the_scenarios(services):
    """With a path open both samples are flagged; once contained the first is true; reset restores 2 paths."""
    assert _run(services, 1).state is RunState.STOPPED
    checks = check_sample_briefings(services.briefer)
    assert [(c.sample_id, c.evidence_status, c.evidence_paths, c.flag_kinds) for c in checks] == [
        ("false-containment", Status.PATHS_FOUND, 1, ("false_containment",)),
        ("invented-entity", Status.PATHS_FOUND, 1, ("unknown_entity",)),
    ]
    assert _run(services, 3).state is RunState.COMPLETED
    # contained: the first sample is now true; the second is wrong three ways (an invented session,
    # exposure the graph no longer has, and a path through sess-c11-sso and admin-console that is no longer live)
    assert [c.flag_kinds for c in check_sample_briefings(services.briefer)] == [
        (),
        ("false_exposure", "unknown_entity", "wrong_relationship"),
    ]
    restored = reset_demo(services)
    assert dict(restored.path_counts) == {"BH-1042": 1, "BH-CONTAINMENT-4001": 2, "BH-IAM-2001": 3,
                                          "BH-WORKLOAD-3001": 3}  # fmt: skip
    assert services.tools.investigate_alert(CONTAINMENT_ALERT).path_count == 2
