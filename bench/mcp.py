"""Cost of a tool call over the stdio MCP server against the same call in process, seed graph.

    python -m bench.mcp [--calls 300]

Starts `python -m blastshield_core mcp` on an embedded database seeded with the
built-in scenarios, speaks JSON-RPC to it over its stdin/stdout (one request, wait
for its response line), and times `investigate_alert BH-1042` end to end, taking
turns in blocks of 20 calls with the same call on `ReadTools` in this process against
the same database and server, over the same kind of store (the read-only one the MCP
server opens). Both answers must be equal (the structured content is the
result's JSON) or no figure is reported. Target: p50 over stdio ≤ p50 in process + 1 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["CALL", "OVERHEAD_TARGET_MS", "StdioClient", "measure_mcp"]

ROOT = Path(__file__).resolve().parent.parent
OVERHEAD_TARGET_MS = 1.0
CALL = {"name": "investigate_alert", "arguments": {"alert_id": "BH-1042"}}
WARMUP = 20
BLOCK = 20


class StdioClient:
    """A minimal JSON-RPC client of `python -m blastshield_core mcp` (settings from `env`)."""

    def __init__(self, env: dict[str, str], protocol_version: str = "2025-06-18") -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_", "GEMINI_"))} | env
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "blastshield_core", "mcp"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.reader = self.proc.stdout
        self.next_id = 0
        client = {"name": "bench", "version": "1"}
        self.request("initialize", {"protocolVersion": protocol_version, "capabilities": {}, "clientInfo": client})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        reply = self.reply(self.next_id)
        if "error" in reply:
            raise AssertionError(f"{method}: {reply['error']}")
        return reply["result"]

    def reply(self, request_id: int) -> dict[str, Any]:
        """The whole JSON-RPC reply to `request_id` (lines for other ids are passed over)."""
        assert self.reader is not None
        while True:
            line = self.reader.readline()
            if not line:
                raise AssertionError("the MCP server closed its output")
            reply = json.loads(line)
            if reply.get("id") == request_id:
                return reply

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)


def measure_mcp(calls: int = 300) -> dict[str, float]:
    """p50/p95 ms of `investigate_alert` over stdio and in process, and the p50 difference."""
    from blastshield_core.base.settings import load_settings
    from blastshield_core.graph.seeds import seed
    from blastshield_core.graph.store import Store
    from blastshield_core.read.tools import ReadTools

    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings(environ={}, data_dir=data_dir)
        store = Store(settings)
        seed(store)
        store.close()

        # The stdio server and this process share the embedded server, and the two ways take
        # turns in blocks of BLOCK calls, so a burst of other work on the machine falls on both
        # alike while neither runs while the other does.
        client = StdioClient({"BLASTSHIELD_DATA_DIR": data_dir})
        store = None
        try:
            store = Store(settings, reads_only=True)  # the store the MCP server opens
            tools = ReadTools(store)
            stdio: list[float] = []
            direct: list[float] = []
            answer: dict[str, Any] = {}
            result = None
            for i in range(0, calls + WARMUP, BLOCK):
                for j in range(i, min(i + BLOCK, calls + WARMUP)):
                    started = time.perf_counter()
                    answer = client.request("tools/call", CALL)
                    if j >= WARMUP:
                        stdio.append((time.perf_counter() - started) * 1000)
                for j in range(i, min(i + BLOCK, calls + WARMUP)):
                    started = time.perf_counter()
                    result = tools.investigate_alert(**CALL["arguments"])
                    if j >= WARMUP:
                        direct.append((time.perf_counter() - started) * 1000)
            assert result is not None
            expected = result.model_dump(mode="json")
        finally:
            if store is not None:
                store.close()
            client.close()
    structured = answer.get("structuredContent")
    if structured != expected:
        raise AssertionError(f"the MCP answer differs from the in-process one: {structured!r} != {expected!r}")
    p50_stdio, p50_direct = statistics.median(stdio), statistics.median(direct)
    return {
        "stdio_p50_ms": round(p50_stdio, 3),
        "stdio_p95_ms": _p(stdio, 0.95),
        "in_process_p50_ms": round(p50_direct, 3),
        "in_process_p95_ms": _p(direct, 0.95),
        "overhead_p50_ms": round(p50_stdio - p50_direct, 3),
        "calls": calls,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mcp", description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="timed calls each way (default 300)")
    args = parser.parse_args(argv)
    figures = measure_mcp(args.calls)
    for key, value in figures.items():
        print(f"{key:<20} {value}")
    verdict = "yes" if figures["overhead_p50_ms"] <= OVERHEAD_TARGET_MS else "NO"
    print(f"overhead ≤ {OVERHEAD_TARGET_MS} ms: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
