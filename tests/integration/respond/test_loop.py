"""The containment controller with the rules and analyst deciders, and the persisted audit."""

from __future__ import annotations

import json
import uuid

import pytest

from blastshield_core import Status
from blastshield_core.read.paths import path_signature
from blastshield_core.respond.act import ActionService
from blastshield_core.respond.decide import AnalystDecider, DecisionContext, RulesDecider
from blastshield_core.respond.loop import ContainmentController, RunRefused
from blastshield_core.results import Decision, Proposal, RunState
from tests.conftest import graph_state, run_cli
from tests.integration.respond.test_act import ALTERNATE_PATH, PRIMARY_PATH


def test_rules_decider_completes_bh4001_with_two_verified_actions(services):
    """Rules: block primary, re-query, block alternate, re-query: completed, no active path left."""
    run = services.controller.run("BH-CONTAINMENT-4001", RulesDecider(), 3, True)
    assert run.state is RunState.COMPLETED
    assert [(a.route_id, a.verified) for a in run.actions] == [
        ("route-c11-primary", True),
        ("route-c11-alternate", True),
    ]
    assert run.remaining_paths == 0
    assert services.tools.investigate_alert("BH-CONTAINMENT-4001").status is Status.NO_PATH
    kinds = [s.kind for s in run.steps]
    assert kinds[:2] == ["start", "investigate"] and kinds[-1] == "verdict"
    assert kinds.count("requery") == 2


def test_cap_one_stops_with_the_alternate_path_remaining(services):
    """With a cap of 1 the run stops and the alternate path is still there."""
    run = services.controller.run("BH-CONTAINMENT-4001", RulesDecider(), 1, True)
    assert run.state is RunState.STOPPED
    assert "cap (1) reached" in run.reason
    assert run.remaining_paths == 1
    remaining = services.tools.investigate_alert("BH-CONTAINMENT-4001")
    assert path_signature(remaining.paths) == {ALTERNATE_PATH}


def test_analyst_reaches_the_same_completed_state(services):
    """An analyst choosing both routes completes the run like the rules decider."""
    analyst = AnalystDecider(["block-route:route-c11-alternate", "block-route:route-c11-primary"])
    run = services.controller.run("BH-CONTAINMENT-4001", analyst, 3, True)
    assert run.state is RunState.COMPLETED
    assert {a.route_id for a in run.actions} == {"route-c11-primary", "route-c11-alternate"}
    assert all(a.verified for a in run.actions)


def test_analyst_stale_choice_is_rejected_and_nothing_is_written(services):
    """A choice that is not a current candidate is rejected before any action."""
    before = graph_state(services.store)
    run = services.controller.run("BH-CONTAINMENT-4001", AnalystDecider(["block-route:route-c11-stale"]), 3, True)
    assert run.state is RunState.STOPPED
    assert run.reason.startswith("proposal rejected")
    assert run.actions == []
    assert graph_state(services.store) == before


def test_analyst_with_no_more_choices_stops(services):
    """When the analyst has no further choice, the run stops with the path remaining."""
    run = services.controller.run("BH-CONTAINMENT-4001", AnalystDecider(["block-route:route-c11-primary"]), 3, True)
    assert run.state is RunState.STOPPED
    assert "no further choice" in run.reason
    assert run.remaining_paths == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"confirm": False}, "confirmation"),
        ({"confirm": "yes"}, "confirm"),
        ({"max_actions": 0}, "max_actions"),
        ({"max_actions": 11}, "max_actions"),
        ({"max_actions": "3"}, "max_actions"),
        ({"alert_id": "BH-1042' //"}, "alert_id"),
    ],
)
def test_refused_runs_write_nothing(services, kwargs, message):
    """No confirmation or a bad cap or id: no run is recorded and the graph is unchanged."""
    before = graph_state(services.store)
    args = {"alert_id": "BH-CONTAINMENT-4001", "decider": "rules", "max_actions": 3, "confirm": True, **kwargs}
    with pytest.raises(RunRefused, match=message):
        services.controller.start(**args)
    assert services.audit.list_runs() == []
    assert graph_state(services.store) == before


def test_alert_without_paths_completes_with_zero_actions(services):
    """An alert with no qualifying path at the start completes at once and says so."""
    services.actions.block_route("BH-CONTAINMENT-4001", "route-c11-primary", "setup")
    services.actions.block_route("BH-CONTAINMENT-4001", "route-c11-alternate", "setup")
    run = services.controller.run("BH-CONTAINMENT-4001", RulesDecider(), 3, True)
    assert run.state is RunState.COMPLETED
    assert run.actions == [] and "nothing to contain" in run.reason


def test_paths_without_a_route_stop_the_run(services):
    """BH-IAM-2001 starts at a role: no session route can cut it, so the run stops, not completes."""
    run = services.controller.run("BH-IAM-2001", RulesDecider(), 3, True)
    assert run.state is RunState.STOPPED
    assert "none passes through an active session route" in run.reason
    assert run.remaining_paths == 3


def test_unknown_alert_fails(services):
    """An unknown alert is a failed run, never a completed one."""
    run = services.controller.run("BH-0000", RulesDecider(), 3, True)
    assert run.state is RunState.FAILED
    assert "unknown_alert" in run.reason


class Recorder:
    """A decider that records what it was shown and picks the first candidate."""

    name = "rules"

    def __init__(self) -> None:
        self.seen: list[DecisionContext] = []

    def decide(self, ctx: DecisionContext) -> Decision:
        self.seen.append(ctx)
        first = ctx.candidates.candidates[0]
        return Decision(decider="rules", proposal=Proposal(alert_id=ctx.alert_id, candidate_id=first.id, rationale="r"))


def test_second_decision_sees_the_alternate_path_not_the_primary(services):
    """Regression: the next decision gets fresh evidence, never the reused first snapshot."""
    recorder = Recorder()
    services.controller.run("BH-CONTAINMENT-4001", recorder, 3, True)
    first, second = recorder.seen
    assert path_signature(first.investigation.paths) == {PRIMARY_PATH, ALTERNATE_PATH}
    assert path_signature(second.investigation.paths) == {ALTERNATE_PATH}
    assert [c.route_id for c in second.candidates.candidates] == ["route-c11-alternate"]


class NoAfterActions(ActionService):
    """An action service whose results omit `after` (the controller must fetch it itself)."""

    def block_route(self, alert_id, route_id, run_id, **options):
        return super().block_route(alert_id, route_id, run_id, **options).model_copy(update={"after": None})


def test_controller_fetches_fresh_evidence_when_after_is_missing(services):
    """Without `after`, the controller re-queries; the second decision still sees only the alternate path."""
    controller = ContainmentController(services.tools, NoAfterActions(services.store, services.tools), services.audit)
    recorder = Recorder()
    run = controller.run("BH-CONTAINMENT-4001", recorder, 3, True)
    assert run.state is RunState.COMPLETED
    assert path_signature(recorder.seen[1].investigation.paths) == {ALTERNATE_PATH}
    assert all(s.data["fetched_by_controller"] for s in run.steps if s.kind == "requery")


def test_each_run_traces_only_its_own_calls(services):
    """Calls made through the shared tools during a run do not leak into the run's trace."""
    seen = []

    def interleave(run, step):
        services.tools.get_blast_radius("BH-1042")  # another session using the same services
        seen.append(step.kind)

    run = services.controller.run("BH-CONTAINMENT-4001", RulesDecider(), 3, True, on_step=interleave)
    tools_in_run = {t.tool for s in run.steps for t in s.trace}
    assert "get_blast_radius" not in tools_in_run
    assert {"investigate_alert", "get_response_candidates"} <= tools_in_run
    assert len(seen) == len(run.steps)


def test_steps_carry_the_tool_trace(services):
    """Each step stores the tool calls it made, with status and counts."""
    run = services.controller.run("BH-CONTAINMENT-4001", RulesDecider(), 1, True)
    investigate = next(s for s in run.steps if s.kind == "investigate")
    assert [(t.tool, t.status, t.result_count) for t in investigate.trace] == [
        ("investigate_alert", Status.PATHS_FOUND, 2)
    ]


def test_audit_records_every_step(services):
    """The persisted run matches the run: state, steps and actions."""
    run = services.controller.run("BH-CONTAINMENT-4001", RulesDecider(), 3, True)
    stored = services.audit.get(run.run_id)
    assert stored.state is RunState.COMPLETED
    assert [(s.seq, s.kind, s.summary) for s in stored.steps] == [(s.seq, s.kind, s.summary) for s in run.steps]
    assert [a.model_dump() for a in stored.actions] == [a.model_dump() for a in run.actions]
    assert stored.remaining_paths == 0


def test_audit_is_readable_from_a_new_process(remote_store):
    """A finished run is listed and shown, with its steps, by a fresh CLI process."""
    from blastshield_core import build_services, seed

    view = remote_store.for_graph(f"audit_{uuid.uuid4().hex[:8]}")
    seed(view)
    services = build_services(view)
    try:
        run = services.controller.run("BH-CONTAINMENT-4001", RulesDecider(), 3, True)
        env = {
            "FALKORDB_URL": view.settings.falkordb_url,
            "BLASTSHIELD_GRAPH": view.settings.graph,
            "BLASTSHIELD_AUDIT_GRAPH": view.settings.audit_graph,
        }
        result = run_cli("run", run.run_id, "--json", env=env)
        assert result.returncode == 0, result.stderr
        data = json.loads(result.stdout)
        assert data["state"] == "completed" and len(data["steps"]) == len(run.steps)
        assert [a["verified"] for a in data["actions"]] == [True, True]
        listed = json.loads(run_cli("runs", "--json", env=env).stdout)["runs"]
        assert [(r["run_id"], r["alert_id"], r["state"]) for r in listed] == [
            (run.run_id, "BH-CONTAINMENT-4001", "completed")
        ]
        assert run_cli("run", "run-20990101T000000-abcdef", env=env).returncode == 3
    finally:
        for name in (view.settings.graph, view.settings.audit_graph):
            view.command("GRAPH.DELETE", name)
