"""The MCP server: exactly the read-only tools plus select_response_candidate, in-process and over stdio."""

from __future__ import annotations

import asyncio
import os
import sys

from mcp import Client, StdioServerParameters

from blastshield_core.interfaces.mcp_server import READ_TOOL_NAMES, SELECT_TOOL_NAME, TOOL_NAMES
from blastshield_core.results import (
    AlertInput,
    ChokePointsInput,
    CollateralInput,
    InvestigateInput,
    MultiAlertInput,
    PathInput,
    SelectInput,
    WhatIfInput,
)
from tests.conftest import ROOT, graph_state

CALLS = {
    "investigate_alert": {"alert_id": "BH-1042", "depth": 6},
    "get_blast_radius": {"alert_id": "BH-CONTAINMENT-4001"},
    "find_shortest_access_path": {"source_id": "auditor_02", "target_id": "staging-report", "max_hops": 5},
    "get_containment_route_statuses": {"alert_id": "BH-CONTAINMENT-4001"},
    "get_response_candidates": {"alert_id": "BH-CONTAINMENT-4001"},
    "get_choke_points": {"alert_id": "BH-CONTAINMENT-4001", "routes_only": True},
    "what_if_blocked": {"alert_id": "BH-CONTAINMENT-4001", "block": ["route-c11-primary", "route-c11-alternate"]},
    "get_route_collateral": {"route_id": "route-c11-primary"},
    "get_multi_alert_view": {"alert_ids": ["BH-1042", "BH-CONTAINMENT-4001"]},
    SELECT_TOOL_NAME: {
        "alert_id": "BH-CONTAINMENT-4001",
        "candidate_id": "block-route:route-c11-primary",
        "rationale": "cuts the shortest path",
    },
}
EXPECTED_STATUS = {
    "investigate_alert": "paths_found",
    "get_blast_radius": "ok",
    "find_shortest_access_path": "paths_found",
    "get_containment_route_statuses": "ok",
    "get_response_candidates": "ok",
    "get_choke_points": "paths_found",
    "what_if_blocked": "no_path",
    "get_route_collateral": "ok",
    "get_multi_alert_view": "ok",
    SELECT_TOOL_NAME: "ok",
}


async def _exercise(server) -> tuple[dict, dict]:
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        results = {}
        for name, args in CALLS.items():
            result = await client.call_tool(name, args)
            assert not result.is_error, result.content
            results[name] = result.structured_content
        return tools, results


def test_in_process_schemas_come_from_the_core_models(services):
    """Each tool's input schema is the pydantic input model's schema; descriptions are non-empty."""
    tools, _ = asyncio.run(_exercise(services.mcp_server()))
    assert set(tools) == set(TOOL_NAMES)
    models = {
        "investigate_alert": InvestigateInput,
        "get_blast_radius": AlertInput,
        "find_shortest_access_path": PathInput,
        "get_containment_route_statuses": AlertInput,
        "get_response_candidates": AlertInput,
        "get_choke_points": ChokePointsInput,
        "what_if_blocked": WhatIfInput,
        "get_route_collateral": CollateralInput,
        "get_multi_alert_view": MultiAlertInput,
        SELECT_TOOL_NAME: SelectInput,
    }
    for name, model in models.items():
        assert tools[name].input_schema == model.model_json_schema()
        assert len(tools[name].description) > 40
        assert tools[name].annotations.read_only_hint is True


def test_select_records_a_proposal_and_writes_nothing(services):
    """select_response_candidate records the proposal, says whether it is current, and writes nothing."""
    before = graph_state(services.store)
    _, results = asyncio.run(_exercise(services.mcp_server()))
    assert results[SELECT_TOOL_NAME]["among_current_candidates"] is True
    assert [p.candidate_id for p in services.proposals.items()] == ["block-route:route-c11-primary"]
    assert graph_state(services.store) == before


def test_invalid_arguments_come_back_as_invalid_input_and_are_traced(services):
    """Bad arguments are answered with invalid_input by the core and appear in the trace."""

    async def go():
        async with Client(services.mcp_server()) as client:
            return await client.call_tool("investigate_alert", {"alert_id": "BH-1042", "depth": "6) //"})

    result = asyncio.run(go())
    assert result.structured_content["status"] == "invalid_input"
    assert services.tracer.entries()[-1].status.value == "invalid_input"


def test_stdio_server_lists_and_answers_every_tool(services):
    """The official mcp client over stdio sees exactly the declared tools and each one answers."""
    settings = services.store.settings
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_", "GEMINI_"))}
    env["BLASTSHIELD_GRAPH"] = settings.graph
    env["BLASTSHIELD_AUDIT_GRAPH"] = settings.audit_graph
    if settings.falkordb_url:
        env["FALKORDB_URL"] = settings.falkordb_url
    else:
        env["BLASTSHIELD_DATA_DIR"] = str(settings.data_dir)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "blastshield_core", "mcp"], env=env, cwd=str(ROOT)
    )
    before = graph_state(services.store)
    tools, results = asyncio.run(_exercise(params))
    assert sorted(tools) == sorted(TOOL_NAMES)
    assert set(tools) - {SELECT_TOOL_NAME} == set(READ_TOOL_NAMES)
    assert {name: r["status"] for name, r in results.items()} == EXPECTED_STATUS
    assert [n["id"] for n in results["investigate_alert"]["paths"][0]["nodes"]][-1] == "customer-db"
    assert graph_state(services.store) == before


def test_analysis_tools_answer_like_the_core(services):
    """get_choke_points over MCP returns the same minimum routes as the core tool."""

    async def go():
        async with Client(services.mcp_server()) as client:
            return await client.call_tool("get_choke_points", {"alert_id": "BH-CONTAINMENT-4001", "routes_only": True})

    result = asyncio.run(go())
    over_mcp = {r["route_id"] for r in result.structured_content["relationships"]}
    direct = {r.route_id for r in services.analysis.choke_points("BH-CONTAINMENT-4001", True).relationships}
    assert over_mcp == direct == {"route-c11-primary", "route-c11-alternate"}
