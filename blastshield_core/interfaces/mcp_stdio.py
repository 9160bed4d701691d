"""Serve an MCP server over this process's stdin/stdout without a thread per line.

The SDK's stdio transport reads each line and writes each reply through a worker
thread (`anyio.wrap_file`); on a busy machine those hand-offs cost several
milliseconds a call, far more than the query. Here stdin is read by the event loop
(an asyncio pipe reader) and replies are written directly to stdout, which the
SDK's transport accepts as explicit streams. As the SDK does, fd 0 then reads the
null device and fd 1 points at stderr while serving, so stray output from a
library cannot corrupt the protocol stream; the wire uses private duplicates.

Plain tool calls are answered here, at the cost of the query. Once the client's
`initialize` handshake has settled on a protocol revision in `DIRECT_VERSIONS`, a
`tools/call` request carrying only a registered tool's name and an arguments object
is run through the SDK's own `Tool.run` (the same argument parsing and checks, call
and error results as the SDK's handler; the declared result model is dumped as the
SDK's conversion dumps it) and written back, without the SDK's per-message
validation, request context, middleware and memory streams, which cost about 1.5 ms
a call on this machine, more than the query. Every other message (the handshake,
listings, pings, notifications, a request with `_meta` or without arguments, an
unknown tool, any other revision) goes to the SDK unchanged. `tests/integration/interfaces/test_mcp_stdio.py`
holds the two ways' replies equal, message by message, for each revision in
`DIRECT_VERSIONS`. `BLASTSHIELD_MCP_DIRECT=0` sends every message through the SDK.

When stdin is not a pipe, socket or terminal (a regular file), the SDK's own
transport is used.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import sys
from typing import Any, BinaryIO

__all__ = ["DIRECT_VERSIONS", "LINE_LIMIT", "DirectCalls", "plain_tool_call", "refusal", "serve_stdio"]

_log = logging.getLogger("mcp.server.mcpserver.server")  # the logger MCPServer reports tool failures on
LINE_LIMIT = 64 * 1024 * 1024  # one JSON-RPC message per line; a request is far smaller
# Handshake revisions whose `tools/call` reply is the `CallToolResult` dump without the
# 2026-era `resultType` (what the SDK's per-revision result sieve leaves); a test compares
# each with the SDK.
DIRECT_VERSIONS = frozenset({"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"})
_CALL_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
_PARAM_KEYS = frozenset({"name", "arguments"})


def plain_tool_call(message: Any) -> tuple[int | str, str, dict[str, Any]] | None:
    """(id, tool name, arguments) of a `tools/call` request with nothing else in it, else None."""
    if type(message) is not dict or message.keys() != _CALL_KEYS:
        return None
    if message["jsonrpc"] != "2.0" or message["method"] != "tools/call" or type(message["id"]) not in (int, str):
        return None
    params = message["params"]
    if type(params) is not dict or params.keys() != _PARAM_KEYS:
        return None
    name, arguments = params["name"], params["arguments"]
    if type(name) is not str or type(arguments) is not dict:
        return None
    return message["id"], name, arguments


class DirectCalls:
    """Answers plain tool calls on an initialized session; says False for anything else.

    The handshake is followed on the wire: the `initialize` request's id, the
    protocol revision in the server's reply to it, and the client's
    `notifications/initialized`. A new `initialize` closes the direct way until it
    settles again.
    """

    def __init__(self, server: Any, out: BinaryIO) -> None:
        self._tools = server._tool_manager  # MCPServer's registry, which its own handler reads (pinned SDK)
        self._out = out
        self._init_id: int | str | None = None
        self._version: str | None = None
        self._initialized = False

    @property
    def open(self) -> bool:
        return self._initialized and self._version in DIRECT_VERSIONS

    def observe_request(self, line: bytes) -> None:
        """Follow the client's side of the handshake (cheap for lines that cannot be part of it)."""
        if b'"initialize' not in line and b'"notifications/initialized' not in line:
            return
        try:
            message = json.loads(line)
        except ValueError:
            return
        if type(message) is not dict:
            return
        method = message.get("method")
        if method == "initialize" and "id" in message:
            self._init_id, self._version, self._initialized = message["id"], None, False
        elif method == "notifications/initialized" and "id" not in message and self._version is not None:
            self._initialized = True

    def observe_reply(self, text: str) -> None:
        """Read the negotiated revision from the server's reply to `initialize`."""
        if self._init_id is None:
            return
        try:
            message = json.loads(text)
        except ValueError:
            return
        if type(message) is dict and message.get("id") == self._init_id and "id" in message:
            self._init_id = None
            result = message.get("result")
            version = result.get("protocolVersion") if type(result) is dict else None
            self._version = version if type(version) is str else None

    async def answer(self, line: bytes) -> bool:
        """Answer `line` if it is a plain call to a tool that needs no request context; False leaves it to the SDK."""
        self.observe_request(line)
        if not self.open or b'"tools/call"' not in line:
            return False
        try:
            call = plain_tool_call(json.loads(line))
        except ValueError:
            return False
        if call is None:
            return False
        request_id, name, arguments = call
        tool = self._tools.get_tool(name)
        if tool is None or tool.context_kwarg is not None or tool.resolved_params:
            return False
        outcome = await _run(tool, name, arguments)
        if isinstance(outcome, bytes):  # the result, already JSON
            line = b'{"jsonrpc":"2.0","id":' + _to_json(request_id) + b',"result":' + outcome + b"}"
        else:
            line = _to_json({"jsonrpc": "2.0", "id": request_id, **outcome})
        self._out.write(line + b"\n")
        self._out.flush()
        return True


async def _run(tool: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any] | bytes:
    """`{"result": ...}` or `{"error": ...}` as the SDK's `tools/call` handler would answer; for a
    declared result model, the result itself as JSON bytes."""
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from mcp.shared.exceptions import MCPError
    from mcp.types import CallToolResult, TextContent
    from pydantic import ValidationError

    try:
        value = await tool.run(arguments, None, convert_result=False)  # the tool takes no request context
        meta = tool.fn_metadata
        if type(value) is meta.output_model and not meta.wrap_output:
            # What `convert_result` makes of the declared result model, without building a CallToolResult:
            # the model serialised twice (indented as the text content, compact as the structured
            # content) and joined as JSON, not dumped to Python objects and encoded again.
            text = _to_json(_to_json(value, fallback=str, indent=2).decode())
            structured = _to_json(value, by_alias=True)
            return (
                b'{"content":[{"type":"text","text":'
                + text
                + b'}],"structuredContent":'
                + structured
                + b',"isError":false}'
            )

        try:
            result = meta.convert_result(value)
        except MCPError:
            raise
        except Exception as exc:  # as Tool.run reports a failed conversion
            raise UnexpectedToolError(f"Error executing tool {name}") from exc
    except MCPError as exc:
        return {"error": exc.error.model_dump(by_alias=True, mode="json", exclude_unset=True)}
    except Exception as exc:  # as MCPServer._handle_call_tool: an error result, logged as it logs it
        if isinstance(exc, ToolError) and not isinstance(exc, UnexpectedToolError):
            if isinstance(exc.__cause__, ValidationError):
                fields = sorted({".".join(str(part) for part in err["loc"]) for err in exc.__cause__.errors()})
                _log.info("Tool %r rejected arguments: %r", name, fields)
            else:
                _log.info("Tool %r failed: %r", name, str(exc))
        else:
            _log.exception("Tool %r raised an unexpected exception", name)
        result = CallToolResult(content=[TextContent(type="text", text=str(exc))], is_error=True)
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    dumped.pop("resultType", None)  # 2026-era vocabulary: the SDK's result sieve drops it on a handshake revision
    return {"result": dumped}


def _to_json(value: Any, **options: Any) -> bytes:
    from pydantic_core import to_json

    return to_json(value, **options)


PARSE_ERROR, INVALID_REQUEST = -32700, -32600  # JSON-RPC 2.0's codes


def refusal(line: bytes) -> tuple[int, str, int | str | None] | None:
    """(code, message, id) of the JSON-RPC error a line the SDK would drop unanswered gets, else None.

    The SDK's transport hands a line that is not JSON, or not a JSON-RPC message, to its
    dispatcher as an exception, which logs it and answers nothing: the client waits for ever.
    The id is the request's when the line is a JSON object with a usable id, else null.
    """
    from mcp_types import jsonrpc_message_adapter
    from pydantic import ValidationError

    try:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except ValidationError as exc:
        if any(error["type"] == "json_invalid" for error in exc.errors(include_url=False)):
            return PARSE_ERROR, "Parse error: the line is not JSON text", None
    except ValueError:  # not UTF-8, or otherwise unreadable
        return PARSE_ERROR, "Parse error: the line is not JSON text", None
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return PARSE_ERROR, "Parse error: the line is not JSON text", None
    request_id = message.get("id") if type(message) is dict else None
    if type(request_id) not in (int, str):
        request_id = None
    return INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message", request_id


class _Lines:
    """`async for line in ...` over an asyncio StreamReader, decoded as UTF-8; `direct` answers what it can.

    A line over `LINE_LIMIT` is read past without being kept and answered with an
    Invalid Request error; a line that is not JSON, or not a JSON-RPC message, with a
    Parse error or an Invalid Request error. Either way the next line is served.
    """

    def __init__(self, reader: asyncio.StreamReader, direct: DirectCalls | None, out: BinaryIO) -> None:
        self._reader = reader
        self._direct = direct
        self._out = out

    def __aiter__(self) -> _Lines:
        return self

    def _error(self, code: int, message: str, request_id: int | str | None) -> None:
        error = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
        self._out.write(json.dumps(error).encode() + b"\n")
        self._out.flush()

    async def _line(self) -> bytes | None:
        """The next line (None at the end of input); an over-long one is skipped and answered."""
        try:
            return await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:  # the input ends without a newline
            return exc.partial or None
        except asyncio.LimitOverrunError as exc:
            consumed = exc.consumed
        while True:  # drop the line's bytes as they come, up to its newline or the end of input
            try:
                await self._reader.readexactly(consumed)
                await self._reader.readuntil(b"\n")
                break
            except asyncio.IncompleteReadError:
                break
            except asyncio.LimitOverrunError as exc:
                consumed = exc.consumed
        self._error(INVALID_REQUEST, f"Invalid Request: a message longer than {LINE_LIMIT} bytes (not read)", None)
        return b"\n"

    async def __anext__(self) -> str:
        while True:
            line = await self._line()
            if line is None:
                raise StopAsyncIteration
            if not line.strip():  # no message (or an over-long one, already answered)
                continue
            if self._direct is not None and await self._direct.answer(line):
                continue
            refused = refusal(line)
            if refused is not None:
                self._error(*refused)
                continue
            return line.decode("utf-8", errors="replace")


class _Writer:
    """`await write(text)` / `await flush()` straight to a binary file (a pipe write of a reply)."""

    def __init__(self, out: BinaryIO, direct: DirectCalls | None) -> None:
        self._out = out
        self._direct = direct

    async def write(self, text: str) -> None:
        if self._direct is not None:
            self._direct.observe_reply(text)
        self._out.write(text.encode("utf-8"))

    async def flush(self) -> None:
        self._out.flush()


def _pipe_like(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


async def _serve(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    try:
        reader = asyncio.StreamReader(limit=LINE_LIMIT)
        loop = asyncio.get_running_loop()
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", buffering=0)
        )
        out = os.fdopen(wire_out, "wb")
        direct = DirectCalls(server, out) if os.environ.get("BLASTSHIELD_MCP_DIRECT", "1") != "0" else None
        lines, writer = _Lines(reader, direct, out), _Writer(out, direct)
        try:
            async with stdio_server(stdin=lines, stdout=writer) as (read_stream, write_stream):  # type: ignore[arg-type]
                lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async runs, with our streams
                await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
        finally:
            transport.close()
            out.close()
    finally:
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)


def serve_stdio(server: Any) -> None:
    """Run `server` (an `MCPServer`) over stdio until stdin closes."""
    if not _pipe_like(0):
        server.run("stdio")
        return
    import anyio

    anyio.run(_serve, server)
