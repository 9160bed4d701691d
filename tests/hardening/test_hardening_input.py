"""Hostile input: every read tool, MCP call, run start and action call refuses or answers correctly, writing nothing."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from blastshield_core import Status, build_services
from blastshield_core.graph.model import is_valid_id
from blastshield_core.read.paths import path_signature
from blastshield_core.read.tools import ReadTools
from blastshield_core.respond.loop import RunRefused
from tests.conftest import graph_snapshot, run_cli, seeded_loopback_graph

# A fixed, seeded budget: the suite must stay within a few minutes on a shared 2-core runner.
BUDGET = settings(
    max_examples=120,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SMALL_BUDGET = settings(BUDGET, max_examples=40)

ALERTS = ("BH-1042", "BH-IAM-2001", "BH-WORKLOAD-3001", "BH-CONTAINMENT-4001")
ENTITIES = ("developer_07", "customer-db", "auditor_02", "staging-report", "analytics-cache", "contractor_11")
CYPHER = (
    "') DETACH DELETE n //",
    "BH-1042') DETACH DELETE n //",
    "*1..100",
    "-[*1..100]->",
    "`Entity`",
    "a`b",
    "$param",
    "$alert_id",
    "{id: $id}",
    "BH-1042' OR 1=1 //",
    '" }) MATCH (n) DETACH DELETE n //',
    "x\\",
    "MATCH (n) RETURN n",
    "CALL db.labels()",
    "BH-1042\n",
    "BH-1042\x00",
    "BH-1042 ",
    "\u202eBH-1042",
    "ＢＨ-1042",
    "developer_07\r\nMATCH (n) DELETE n",
)
HUGE = ("A" * (1 << 20), "BH-" + "9" * (1 << 20), "é" * 300_000)

hostile_text = st.one_of(
    st.sampled_from(ALERTS + ENTITIES + CYPHER + HUGE),
    st.text(max_size=300),
    st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:@-]{0,140}", fullmatch=True),
)
hostile_value = st.one_of(
    hostile_text,
    st.integers(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.sampled_from([0, 1, 6, 7, -1, 2**63, 2**64 + 6, True, False, 6.0, 1.5, float("nan"), float("inf"), None]),
    st.floats(),
    st.lists(hostile_text, max_size=3),
    st.dictionaries(st.text(max_size=8), hostile_text, max_size=2),
)
hostile_depth = st.one_of(st.integers(min_value=-3, max_value=9), hostile_value)


def valid_depth(value: object) -> bool:
    return type(value) is int and 1 <= value <= 6


def alert_ok(value: object) -> bool:
    return is_valid_id(value) and len(value) <= 128


@pytest.fixture(scope="module")
def reference(seeded_store) -> dict:
    """Answers for the known alerts, from plain calls, to judge the hostile ones by."""
    tools = ReadTools(seeded_store)
    return {
        (alert, depth): path_signature(tools.investigate_alert(alert, depth).paths)
        for alert in ALERTS
        for depth in range(1, 7)
    }


def test_investigate_alert_hostile_input(seeded_store, reference):
    """investigate_alert: invalid_input, unknown_alert, or the reference answer; the graph is unchanged."""
    tools = ReadTools(seeded_store)
    before = graph_snapshot(seeded_store)

    @BUDGET
    @given(alert=hostile_value, depth=hostile_depth)
    def check(alert, depth):
        result = tools.investigate_alert(alert, depth)
        if not (alert_ok(alert) and valid_depth(depth)):
            assert result.status is Status.INVALID_INPUT, (alert, depth, result.message)
        elif alert in ALERTS:
            assert result.status in (Status.PATHS_FOUND, Status.NO_PATH)
            assert path_signature(result.paths) == reference[(alert, depth)]
        else:
            assert result.status is Status.UNKNOWN_ALERT

    check()
    assert graph_snapshot(seeded_store) == before


@pytest.mark.parametrize("tool", ["get_blast_radius", "get_containment_route_statuses", "get_response_candidates"])
def test_alert_tools_hostile_input(seeded_store, tool):
    """Alert tools: invalid_input, unknown_alert, or ok for a known alert; the graph is unchanged."""
    tools = ReadTools(seeded_store)
    before = graph_snapshot(seeded_store)

    @BUDGET
    @given(alert=hostile_value)
    def check(alert):
        result = getattr(tools, tool)(alert)
        if not alert_ok(alert):
            assert result.status is Status.INVALID_INPUT
        elif alert in ALERTS:
            assert result.status is Status.OK and result.alert_id == alert
        else:
            assert result.status is Status.UNKNOWN_ALERT

    check()
    assert graph_snapshot(seeded_store) == before


def test_find_shortest_access_path_hostile_input(seeded_store):
    """find_shortest_access_path: invalid_input, unknown_source/target, or an answer; the graph is unchanged."""
    tools = ReadTools(seeded_store)
    before = graph_snapshot(seeded_store)
    entity = st.one_of(st.sampled_from(ENTITIES), hostile_value)

    @BUDGET
    @given(source=entity, target=entity, hops=hostile_depth)
    def check(source, target, hops):
        result = tools.find_shortest_access_path(source, target, hops)
        if not (alert_ok(source) and alert_ok(target) and valid_depth(hops)):
            assert result.status is Status.INVALID_INPUT
        elif source not in ENTITIES:
            assert result.status is Status.UNKNOWN_SOURCE
        elif target not in ENTITIES:
            assert result.status is Status.UNKNOWN_TARGET
        else:
            assert result.status in (Status.PATHS_FOUND, Status.NO_PATH)
            assert all(len(p.relationships) == result.hops <= hops for p in result.paths)

    check()
    assert graph_snapshot(seeded_store) == before


def test_known_depth_answers_hold_under_hostile_neighbours(seeded_store):
    """The documented depth answers (auditor_02: none at 3, one at 4) are unchanged after hostile calls."""
    tools = ReadTools(seeded_store)
    for junk in CYPHER:
        tools.find_shortest_access_path(junk, "analytics-cache", 4)
    assert tools.find_shortest_access_path("auditor_02", "analytics-cache", 3).status is Status.NO_PATH
    assert tools.find_shortest_access_path("auditor_02", "analytics-cache", 4).hops == 4


MCP_TOOLS = (
    "investigate_alert",
    "get_blast_radius",
    "find_shortest_access_path",
    "get_containment_route_statuses",
    "get_response_candidates",
    "select_response_candidate",
)
ARG_NAMES = ("alert_id", "depth", "source_id", "target_id", "max_hops", "candidate_id", "rationale", "cypher", "$x")
mcp_args = st.dictionaries(st.sampled_from(ARG_NAMES), hostile_value, max_size=4)


def _mcp_status(result) -> str:
    if result.is_error:
        text = " ".join(getattr(c, "text", "") for c in result.content)
        return "protocol_error:" + text[:200]
    return result.structured_content["status"]


def test_mcp_calls_hostile_arguments(seeded_store):
    """Every MCP tool with hostile arguments: invalid_input, unknown_*, an answer, or a protocol-level refusal."""
    services = build_services(seeded_store)
    before = graph_snapshot(seeded_store)
    batches = []

    @SMALL_BUDGET
    @given(batch=st.lists(st.tuples(st.sampled_from(MCP_TOOLS), mcp_args), min_size=1, max_size=6))
    def collect(batch):
        batches.append(batch)

    collect()

    async def go():
        outcomes = []
        async with Client(services.mcp_server()) as client:
            for batch in batches:
                for name, args in batch:
                    outcomes.append((name, args, _mcp_status(await client.call_tool(name, args))))
        return outcomes

    outcomes = asyncio.run(go())
    allowed = {s.value for s in Status}
    for name, args, status in outcomes:
        if status.startswith("protocol_error:"):
            # The MCP layer refuses calls that lack a required argument or carry an unknown one.
            assert re.search(r"(?i)validation|required|missing|unexpected|extra", status), (name, args, status)
            continue
        assert status in allowed and status != Status.QUERY_FAILED.value, (name, args, status)
        if status in ("paths_found", "no_path", "ok") and name != "select_response_candidate":
            assert all(alert_ok(v) for k, v in args.items() if k in ("alert_id", "source_id", "target_id"))
    assert sum(len(b) for b in batches) >= 40
    # select_response_candidate records proposals but never writes.
    assert graph_snapshot(seeded_store) == before


def test_mcp_select_with_cypher_candidate_is_refused(seeded_store):
    """select_response_candidate with Cypher in the candidate id is invalid_input and records nothing."""
    services = build_services(seeded_store)

    async def go():
        async with Client(services.mcp_server()) as client:
            return await client.call_tool(
                "select_response_candidate",
                {
                    "alert_id": "BH-CONTAINMENT-4001",
                    "candidate_id": "block-route:x') DETACH DELETE n //",
                    "rationale": "x",
                },
            )

    assert asyncio.run(go()).structured_content["status"] == "invalid_input"
    assert services.proposals.items() == []


run_value = st.one_of(st.sampled_from(["rules", "analyst", "gemini", "RULES", "rules ", "rules\n"]), hostile_value)
confirm_value = st.one_of(st.just(True), hostile_value)


def test_controller_start_hostile_arguments(seeded_store):
    """controller.start refuses every malformed request before writing anything (scenario or audit graph)."""
    services = build_services(seeded_store)
    before = graph_snapshot(seeded_store)
    audit_before = services.audit.list_runs()

    @BUDGET
    @given(alert=hostile_value, decider=run_value, cap=hostile_depth, confirm=confirm_value)
    def check(alert, decider, cap, confirm):
        valid = (
            alert_ok(alert)
            and decider in ("rules", "analyst", "gemini")
            and type(cap) is int
            and 1 <= cap <= 10
            and confirm is True
        )
        if valid:  # a well-formed request would start a real run: judged elsewhere
            return
        with pytest.raises(RunRefused):
            services.controller.start(alert, decider, cap, confirm)

    check()
    assert graph_snapshot(seeded_store) == before
    assert services.audit.list_runs() == audit_before


@pytest.mark.parametrize("cap", [True, 1.0, "3", 0, 11, -1, 2**63, 10**100, None])
def test_controller_refuses_non_integer_or_out_of_range_caps(seeded_store, cap):
    """Caps that are bools, floats, strings or out of 1..10 are refused; nothing is written."""
    services = build_services(seeded_store)
    with pytest.raises(RunRefused, match="max_actions"):
        services.controller.start("BH-CONTAINMENT-4001", "rules", cap, True)


def test_action_service_hostile_arguments(seeded_store):
    """ActionService.execute with hostile operation, alert, route and run ids rejects and writes nothing."""
    services = build_services(seeded_store)
    before = graph_snapshot(seeded_store)
    operation = st.one_of(st.just("block_route"), hostile_value)
    # Real alert/route pairs are excluded: they would be a valid write, judged in test_act.
    route = st.one_of(st.sampled_from(["route-c11-stale", "route-nope", "route-dev07-a"]), hostile_value)

    @BUDGET
    @given(op=operation, alert=st.one_of(st.sampled_from(ALERTS), hostile_value), route=route, run=hostile_value)
    def check(op, alert, route, run):
        if route in ("route-c11-primary", "route-c11-alternate"):
            return
        result = services.actions.execute(op, alert, route, run)
        assert result.status == "rejected", (op, alert, route, result)
        assert result.after is None

    check()
    assert graph_snapshot(seeded_store) == before


def test_action_service_refuses_unhashable_operation(seeded_store):
    """An operation that is a list or dict is rejected, not a crash."""
    services = build_services(seeded_store)
    for op in (["block_route"], {"block_route": 1}, {"block_route"}):
        assert services.actions.execute(op, "BH-CONTAINMENT-4001", "route-c11-primary", "run-x").status == "rejected"


def test_action_service_refuses_a_hostile_run_id(seeded_store):
    """A run id that is not an identifier is refused before the write, so it never lands on a relationship."""
    services = build_services(seeded_store)
    before = graph_snapshot(seeded_store)
    for run_id in ("') DETACH DELETE n //", "x" * 200, "", "run\x00"):
        result = services.actions.execute("block_route", "BH-CONTAINMENT-4001", "route-c11-primary", run_id)
        assert result.status == "rejected" and "run id" in result.reason
    assert graph_snapshot(seeded_store) == before


CLI_CASES = [
    (["investigate", "') DETACH DELETE n //"], 2, "invalid_input"),
    (["investigate", "BH-1042", "--depth", "*1..100"], 2, "invalid_input"),
    (["investigate", "BH-1042", "--depth", "99999999999999999999"], 2, "invalid_input"),
    (["investigate", "BH-1042", "--depth", "6.0"], 2, "invalid_input"),
    (["investigate", "BH-NOPE-1"], 3, "unknown_alert"),
    (["path", "$source", "`target`"], 2, "invalid_input"),
    (["path", "auditor_02", "nobody", "--max-hops", "-1"], 2, "invalid_input"),
    (["blast-radius", "é" * 5000], 2, "invalid_input"),
    (["candidates", "BH-1042\n"], 2, "invalid_input"),
    (["contain", "BH-CONTAINMENT-4001", "--decider", "rules", "--max-actions", "1e3", "--confirm"], 2, "invalid_input"),
    (["contain", "x') DETACH DELETE n //", "--decider", "rules", "--confirm"], 2, "invalid_input"),
    (["run", "run-') DETACH DELETE n //"], 3, "unknown_alert"),
]


@pytest.mark.parametrize(("args", "code", "status"), CLI_CASES)
def test_cli_hostile_arguments(cli_graph, args, code, status):
    """CLI with hostile arguments: the documented exit code and status, JSON on stdout, no traceback, no write."""
    store, env = cli_graph
    before = graph_snapshot(store)
    proc = run_cli(*args, "--json", env=env)
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    assert json.loads(proc.stdout)["status"] == status
    assert "Traceback" not in proc.stderr
    assert graph_snapshot(store) == before


def test_cli_undecodable_argument_is_invalid_input(cli_graph):
    """An argument that is not valid UTF-8 is refused as invalid_input, with no traceback."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    _, env = cli_graph
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_"))}
    full_env.update(env)
    proc = subprocess.run(
        [sys.executable.encode(), b"-m", b"blastshield_core", b"investigate", b"BH-\xff\xfe", b"--json"],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr
    assert json.loads(proc.stdout)["status"] == "invalid_input"


@pytest.fixture(scope="module")
def cli_graph(loopback_server):
    """A seeded graph on the loopback server for CLI subprocesses, deleted afterwards."""
    with seeded_loopback_graph(loopback_server.url, "cli") as graph:
        yield graph
