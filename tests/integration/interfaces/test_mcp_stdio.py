"""The stdio MCP server's own transport: the same answer as the call in process, and plain
tool calls answered directly with exactly the replies the SDK's own handling gives."""

from __future__ import annotations

import asyncio
import io
import json
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from bench.mcp import CALL, StdioClient
from blastshield_core.base.settings import load_settings
from blastshield_core.graph.store import Store
from blastshield_core.interfaces.mcp_server import build_mcp_server
from blastshield_core.interfaces.mcp_stdio import DIRECT_VERSIONS, DirectCalls, plain_tool_call
from blastshield_core.read.tools import ReadTools
from tests.conftest import run_cli
from tests.integration.interfaces.test_mcp import CALLS, EXPECTED_STATUS


@pytest.fixture(scope="module")
def seeded_env(loopback_server) -> dict[str, str]:
    env = {"FALKORDB_URL": loopback_server.url, "BLASTSHIELD_GRAPH": f"stdio_{uuid.uuid4().hex[:8]}"}
    assert run_cli("seed", env=env).returncode == 0
    return env


def test_stdio_call_answers_exactly_like_the_call_in_process(seeded_env):
    """investigate_alert over stdio returns the in-process result's JSON, call after call."""
    client = StdioClient(seeded_env)
    try:
        answers = [client.request("tools/call", CALL)["structuredContent"] for _ in range(3)]
        pinged = client.request("ping", {})
    finally:
        client.close()
    store = Store(load_settings(environ=seeded_env))
    try:
        expected = ReadTools(store).investigate_alert(**CALL["arguments"]).model_dump(mode="json")
    finally:
        store.close()
    assert answers == [expected] * 3 and pinged == {} and client.proc.returncode == 0


def _call(name, arguments, **extra) -> dict:
    return {"name": name, "arguments": arguments, **extra}


# Each is sent as a `tools/call`; the direct way answers the plain ones, the SDK the rest.
EXCHANGE = [
    *(_call(name, args) for name, args in CALLS.items()),
    _call("investigate_alert", {"alert_id": "BH-1042", "depth": "6) //"}),  # invalid input: a result, not an error
    _call("investigate_alert", {"alert_id": "NO-SUCH-ALERT"}),  # unknown alert
    _call("investigate_alert", {"alert_id": "BH-ü\u202e"}),  # non-ASCII input: invalid, with the same reply
    _call("investigate_alert", {"alert_id": "BH-1042", "depth": "4"}),  # a number in a string: strict input refuses
    _call("investigate_alert", {"alert_id": "BH-1042", "bogus": 1}),  # an argument no tool declares
    _call("get_blast_radius", {}),  # a required argument missing: the SDK's error result
    _call("get_multi_alert_view", {"alert_ids": '["BH-1042", "BH-CONTAINMENT-4001"]'}),  # a list the SDK pre-parses
    _call("drop_everything", {}),  # no such tool
    _call("investigate_alert", ["BH-1042"]),  # arguments not an object
    _call("investigate_alert", {"alert_id": "BH-1042"}, _meta={"progressToken": 7}),
    {"name": "get_blast_radius"},  # no arguments at all
]


def _replies(env: dict[str, str], version: str) -> list[dict]:
    client = StdioClient(env, protocol_version=version)
    try:
        replies = []
        for params in EXCHANGE:
            client.next_id += 1
            client.send({"jsonrpc": "2.0", "id": client.next_id, "method": "tools/call", "params": params})
            replies.append(client.reply(client.next_id))
        for method in ("tools/list", "ping"):
            client.next_id += 1
            client.send({"jsonrpc": "2.0", "id": client.next_id, "method": method, "params": {}})
            replies.append(client.reply(client.next_id))
    finally:
        client.close()
    assert client.proc.returncode == 0
    return replies


def test_direct_calls_answer_exactly_as_the_sdk_does(seeded_env):
    """For every protocol revision the direct way serves, a server answering plain calls directly and
    one sending every message through the SDK give the same reply to each message of the exchange."""
    runs = [(version, direct) for version in sorted(DIRECT_VERSIONS) for direct in ("1", "0")]
    with ThreadPoolExecutor(len(runs)) as pool:
        replies = list(pool.map(lambda run: _replies(seeded_env | {"BLASTSHIELD_MCP_DIRECT": run[1]}, run[0]), runs))
    for i in range(0, len(runs), 2):
        assert replies[i] == replies[i + 1], runs[i][0]
    first = replies[0]
    assert [r["result"]["structuredContent"]["status"] for r in first[: len(CALLS)]] == [
        EXPECTED_STATUS[name] for name in CALLS
    ]
    tail = first[len(CALLS) :]
    assert tail[0]["result"]["structuredContent"]["status"] == "invalid_input"
    assert tail[1]["result"]["structuredContent"]["status"] == "unknown_alert"
    assert tail[2]["result"]["structuredContent"]["status"] == "invalid_input"
    assert tail[3]["result"]["structuredContent"]["status"] == "invalid_input"
    assert tail[4]["result"]["structuredContent"]["status"] == "paths_found"
    assert tail[5]["result"]["isError"] is True and "alert_id" in tail[5]["result"]["content"][0]["text"]
    assert tail[6]["result"]["structuredContent"]["status"] == "ok"
    assert tail[7]["result"]["isError"] is True and "Unknown tool" in tail[7]["result"]["content"][0]["text"]
    assert tail[8]["error"]["code"] == -32602
    assert tail[9]["result"]["structuredContent"]["status"] == "paths_found"
    assert tail[10]["result"]["isError"] is True


def test_only_the_handshake_revisions_the_sdk_answers_alike_are_served_directly():
    assert DIRECT_VERSIONS <= set(HANDSHAKE_PROTOCOL_VERSIONS)


@pytest.mark.parametrize(
    ("message", "plain"),
    [
        ({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "t", "arguments": {}}}, True),
        ({"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "t", "arguments": {"x": 1}}}, True),
        ({"jsonrpc": "2.0", "id": True, "method": "tools/call", "params": {"name": "t", "arguments": {}}}, False),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "tools/call", "params": {"name": "t", "arguments": {}}}, False),
        ({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "t", "arguments": {}}}, False),
        ({"jsonrpc": "1.0", "id": 3, "method": "tools/call", "params": {"name": "t", "arguments": {}}}, False),
        ({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"name": "t", "arguments": {}}}, False),
        ({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": 5, "arguments": {}}}, False),
        ({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "t", "arguments": []}}, False),
        ({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "t"}}, False),
        (
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "t", "arguments": {}, "_meta": {}}},
            False,
        ),
        ({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "t", "arguments": {}}, "x": 1}, False),
        ([{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "t", "arguments": {}}}], False),
    ],
)
def test_plain_tool_call_takes_only_a_bare_request(message, plain):
    assert (plain_tool_call(message) is not None) is plain


def _line(message: dict) -> bytes:
    return json.dumps(message).encode() + b"\n"


def test_direct_calls_wait_for_the_handshake_and_its_revision(services):
    """Nothing is answered directly before `initialize` has been answered with a served revision and
    the client said `initialized`, nor after a new `initialize`; then a plain call is answered once."""
    out = io.BytesIO()
    direct = DirectCalls(build_mcp_server(services.tools), out)
    call = _line({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": CALL})

    async def run() -> list[bool]:
        seen = [await direct.answer(call)]
        direct.observe_request(_line({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}))
        seen.append(await direct.answer(call))
        direct.observe_reply(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2026-07-28"}}))
        direct.observe_request(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        seen.append(await direct.answer(call))  # a revision not served directly
        direct.observe_request(_line({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {}}))
        direct.observe_reply(json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"protocolVersion": "2025-06-18"}}))
        seen.append(await direct.answer(call))  # not yet `initialized`
        direct.observe_request(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        seen.append(await direct.answer(call))
        return seen

    assert asyncio.run(run()) == [False, False, False, False, True]
    reply = json.loads(out.getvalue())
    expected = services.tools.investigate_alert(**CALL["arguments"]).model_dump(mode="json")
    assert reply["id"] == 9 and reply["result"]["structuredContent"] == expected
    assert reply["result"]["isError"] is False and json.loads(reply["result"]["content"][0]["text"]) == expected


def _next_line(client: StdioClient) -> dict:
    line = client.reader.readline()
    assert line, "the MCP server closed its output"
    return json.loads(line)


def test_oversized_and_malformed_lines_get_json_rpc_errors_and_the_server_keeps_serving(seeded_env):
    """A 70 MB request line (the size that used to end the server), text that is not JSON and
    JSON that is not a JSON-RPC message each get an error reply, id null where the id is not known;
    the same process then answers a call exactly as before."""
    client = StdioClient(seeded_env)
    try:
        stdin = client.proc.stdin
        huge = b'{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"x","arguments":{"a":"'
        stdin.write(huge + b"A" * (70 * 1024 * 1024) + b'"}}}\n')
        stdin.flush()
        oversized = _next_line(client)
        for line in (b"{not json\n", b"\xff\xfe\n", b"[1, 2]\n", b'{"id": 5, "method": 12}\n', b"[" * 100_000 + b"\n"):
            stdin.write(line)
        stdin.flush()
        malformed = [_next_line(client) for _ in range(5)]
        answer = client.request("tools/call", CALL)["structuredContent"]
    finally:
        client.close()
    assert oversized["id"] is None and oversized["error"]["code"] == -32600
    assert str(64 * 1024 * 1024) in oversized["error"]["message"]
    assert [(m["id"], m["error"]["code"]) for m in malformed] == [
        (None, -32700),
        (None, -32700),
        (None, -32600),
        (5, -32600),
        (None, -32700),
    ]
    assert answer["status"] == "paths_found" and client.proc.returncode == 0


def test_an_oversized_last_line_without_a_newline_is_answered_and_the_server_ends_cleanly(seeded_env):
    client = StdioClient(seeded_env)
    client.proc.stdin.write(b"x" * (65 * 1024 * 1024))
    client.proc.stdin.close()
    reply = _next_line(client)
    assert client.proc.wait(timeout=60) == 0
    assert reply["id"] is None and reply["error"]["code"] == -32600
    assert client.reader.readline() == b""
