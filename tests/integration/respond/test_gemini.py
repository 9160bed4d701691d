"""The Gemini decider: the real google-genai client against the loopback Gemini API."""

from __future__ import annotations

import pytest

from blastshield_core.interfaces.mcp_server import TOOL_NAMES
from blastshield_core.results import RunState
from tests.conftest import graph_state
from tests.helpers.gemini_fake import Delay, HttpStatus, Raw, call, calls, text

ALERT = "BH-CONTAINMENT-4001"
PRIMARY = "block-route:route-c11-primary"
ALTERNATE = "block-route:route-c11-alternate"


def select(candidate: str, alert: str = ALERT) -> dict:
    return call("select_response_candidate", {"alert_id": alert, "candidate_id": candidate, "rationale": "cuts a path"})


def contain(services, cap: int = 3):
    return services.controller.run(ALERT, services.gemini(), cap, True)


def test_happy_path_two_verified_actions(services, gemini):
    """Gemini reads candidates, proposes primary, then alternate: completed with 2 verified actions."""
    gemini.add(call("get_response_candidates", {"alert_id": ALERT}), select(PRIMARY), select(ALTERNATE))
    run = contain(services)
    assert run.state is RunState.COMPLETED, run.reason
    assert [(a.route_id, a.verified) for a in run.actions] == [
        ("route-c11-primary", True),
        ("route-c11-alternate", True),
    ]
    assert run.remaining_paths == 0
    assert all(path.endswith(":generateContent") for path in gemini.paths)
    declared = {d["name"] for d in gemini.requests[0]["tools"][0]["functionDeclarations"]}
    assert declared == set(TOOL_NAMES)
    # The read call's result went back to the model as a function response.
    responses = [p for c in gemini.requests[1]["contents"] for p in c["parts"] if "functionResponse" in p]
    assert responses[0]["functionResponse"]["name"] == "get_response_candidates"
    result = responses[0]["functionResponse"]["response"]["result"]
    assert [c["id"] for c in result["candidates"]] == [PRIMARY, ALTERNATE]
    # The model's MCP calls are in the run's own trace, on the proposal step.
    first_proposal = next(s for s in run.steps if s.kind == "proposal")
    assert [t.tool for t in first_proposal.trace] == ["get_response_candidates", "get_response_candidates"]


def test_second_decision_is_shown_only_the_alternate_path(services, gemini):
    """The second prompt carries fresh evidence: the alternate path, not the primary."""
    gemini.add(select(PRIMARY), select(ALTERNATE))
    contain(services)
    second_prompt = gemini.requests[1]["contents"][0]["parts"][0]["text"]
    assert "sess-c11-sso" in second_prompt and "sess-c11-vpn" not in second_prompt
    assert ALTERNATE in second_prompt and PRIMARY not in second_prompt


def test_cap_one_stops_with_alternate_remaining(services, gemini):
    """With a cap of 1 the run stops after one verified action."""
    gemini.add(select(PRIMARY))
    run = contain(services, cap=1)
    assert run.state is RunState.STOPPED and run.remaining_paths == 1
    assert [a.route_id for a in run.actions] == ["route-c11-primary"]


@pytest.mark.parametrize(
    ("replies", "reason"),
    [
        ([select("block-route:route-c11-stale")], "proposal rejected"),
        ([select("block-route:route-invented-9")], "proposal rejected"),
        ([select(PRIMARY, alert="BH-1042")], "proposal rejected"),
        ([call("block_route", {"route_id": "route-c11-primary"})], "not a declared tool"),
        ([call("run_cypher", {"query": "MATCH (n) DETACH DELETE n"})], "not a declared tool"),
        ([call("select_response_candidate", {"alert_id": ALERT, "candidate_id": 42, "rationale": "x"})], "malformed"),
        ([call("select_response_candidate", {"alert_id": ALERT})], "malformed"),
        ([call("investigate_alert", {"alert_id": ALERT, "cypher": "x"})], "undeclared arguments"),
        ([{"candidates": []}], "chose no candidate"),
        ([text("I would rather not choose.")], "chose no candidate"),
        ([HttpStatus(500)], "model error"),
        ([Raw(b"<html>not json</html>")], "model error"),
        ([calls(("select_response_candidate", {"alert_id": ALERT, "candidate_id": PRIMARY, "rationale": "a"}),
                ("select_response_candidate", {"alert_id": ALERT, "candidate_id": ALTERNATE, "rationale": "b"}))],
         "contradictory"),
        ([calls(*[("get_blast_radius", {"alert_id": ALERT})] * 50)], "tool calls in one turn"),
        ([call("get_blast_radius", {"alert_id": ALERT})] * 9, "no proposal within 8 turns"),
    ],
)  # fmt: skip
def test_misbehaviour_stops_without_writing(services, gemini, replies, reason):
    """Invented, stale or foreign ids, undeclared tools, malformed or empty replies, errors: nothing written."""
    before = graph_state(services.store)
    gemini.add(*replies)
    run = contain(services)
    assert run.state is RunState.STOPPED
    assert reason in run.reason
    assert run.actions == []
    assert graph_state(services.store) == before
    proposal_step = next(s for s in run.steps if s.kind == "proposal")
    assert proposal_step.data["decider"] == "gemini"


def test_slow_reply_past_the_timeout_stops(services, gemini):
    """A reply slower than the decision timeout ends in no proposal."""
    services.settings = services.settings.model_copy(update={"gemini_timeout_s": 1.0})
    gemini.add(Delay(3.0, select(PRIMARY)))
    before = graph_state(services.store)
    run = contain(services)
    assert run.state is RunState.STOPPED
    assert "did not decide within" in run.reason or "model error" in run.reason
    assert graph_state(services.store) == before


def test_no_key_stops_and_sends_nothing(services, gemini):
    """Without GEMINI_API_KEY the decider is unavailable: stopped, nothing written, no request made."""
    services.settings = services.settings.model_copy(update={"gemini_api_key": None})
    before = graph_state(services.store)
    run = contain(services)
    assert run.state is RunState.STOPPED
    assert "Gemini unavailable: no GEMINI_API_KEY" in run.reason
    assert gemini.requests == []
    assert graph_state(services.store) == before


def test_prompt_treats_tool_results_as_data(services, gemini):
    """The system instruction tells the model that tool results are data, not instructions."""
    gemini.add(select(PRIMARY))
    contain(services, cap=1)
    system = gemini.requests[0]["systemInstruction"]["parts"][0]["text"]
    assert "never" in system and "instructions" in system
