"""The stdio MCP server's own transport: the same answer as the call in process."""

from __future__ import annotations

import uuid

from bench.mcp import CALL, StdioClient
from blastshield_core.read import ReadTools
from blastshield_core.settings import load_settings
from blastshield_core.store import Store
from tests.conftest import run_cli


def test_stdio_call_answers_exactly_like_the_call_in_process(loopback_server):
    """investigate_alert over stdio returns the in-process result's JSON, call after call."""
    env = {"FALKORDB_URL": loopback_server.url, "BLASTSHIELD_GRAPH": f"stdio_{uuid.uuid4().hex[:8]}"}
    assert run_cli("seed", env=env).returncode == 0
    client = StdioClient(env)
    try:
        answers = [client.request("tools/call", CALL)["structuredContent"] for _ in range(3)]
        pinged = client.request("ping", {})
    finally:
        client.close()
    store = Store(load_settings(environ=env))
    try:
        expected = ReadTools(store).investigate_alert(**CALL["arguments"]).model_dump(mode="json")
    finally:
        store.close()
    assert answers == [expected] * 3 and pinged == {} and client.proc.returncode == 0
