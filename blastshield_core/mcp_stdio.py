"""Serve an MCP server over this process's stdin/stdout without a thread per line.

The SDK's stdio transport reads each line and writes each reply through a worker
thread (`anyio.wrap_file`); on a busy machine those hand-offs cost several
milliseconds a call, far more than the query. Here stdin is read by the event loop
(an asyncio pipe reader) and replies are written directly to stdout, which the
SDK's transport accepts as explicit streams. As the SDK does, fd 0 then reads the
null device and fd 1 points at stderr while serving, so stray output from a
library cannot corrupt the protocol stream; the wire uses private duplicates.

When stdin is not a pipe, socket or terminal (a regular file), the SDK's own
transport is used.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from typing import Any, BinaryIO

__all__ = ["serve_stdio"]

LINE_LIMIT = 64 * 1024 * 1024  # one JSON-RPC message per line; a request is far smaller


class _Lines:
    """`async for line in ...` over an asyncio StreamReader, decoded as UTF-8."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class _Writer:
    """`await write(text)` / `await flush()` straight to a binary file (a pipe write of a reply)."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out

    async def write(self, text: str) -> None:
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
        try:
            async with stdio_server(stdin=_Lines(reader), stdout=_Writer(out)) as (read_stream, write_stream):  # type: ignore[arg-type]
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
