"""Wall time of command-line processes on the seed graph, the way a user runs them.

    python -m bench.cli [--repeat 7]

Each command runs as its own `python -m blastshield_core ...` process against an
embedded database seeded with the built-in scenarios (start-up, imports, opening the
store, the query, printing, stopping the server): the median of `repeat` runs after one
warm-up. The read commands have a target (≤ 350 ms); `contain` (reset before each run,
not timed), `mcp` (start the stdio server, initialize, one `investigate_alert` call,
exit) and `import` (a seed document) are timed for comparison, next to a bare
`python -c pass`. Every run must exit as expected or the figure is not reported.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["READ_TARGET_MS", "measure_cli", "render_table"]

ROOT = Path(__file__).resolve().parent.parent
READ_TARGET_MS = 350.0
READ_COMMANDS: dict[str, list[str]] = {
    "alerts": ["alerts"],
    "investigate": ["investigate", "BH-1042"],
    "blast-radius": ["blast-radius", "BH-1042"],
    "path": ["path", "developer_07", "customer-db"],
    "routes": ["routes", "BH-1042"],
    "candidates": ["candidates", "BH-1042"],
}
MCP_CALL = {"name": "investigate_alert", "arguments": {"alert_id": "BH-1042"}}


def _cli(data_dir: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "blastshield_core", *args, "--data-dir", data_dir]


def _timed(argv: list[str], stdin: str | None = None, expect: int = 0) -> float:
    started = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, cwd=ROOT, check=False)
    wall = (time.perf_counter() - started) * 1000
    if proc.returncode != expect:
        raise AssertionError(f"{argv[3:]} exited {proc.returncode}: {proc.stderr[-400:]}")
    return wall


def _mcp_session() -> str:
    """initialize, initialized, one tools/call; stdin then closes and the server exits."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": MCP_CALL},
    ]
    return "".join(json.dumps(m) + "\n" for m in messages)


def _median(walls: list[float]) -> float:
    return round(statistics.median(walls), 1)


def measure_cli(repeat: int = 7) -> dict[str, float]:
    """Median wall ms per command (`python` is a bare interpreter start)."""
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as data_dir:
        _timed(_cli(data_dir, "seed"))
        runs: dict[str, tuple[list[str], str | None, int]] = {
            name: (_cli(data_dir, *args), None, 0) for name, args in READ_COMMANDS.items()
        }
        runs["contain"] = (
            _cli(data_dir, "contain", "BH-CONTAINMENT-4001", "--decider", "rules", "--confirm"),
            None,
            0,
        )
        runs["mcp"] = (_cli(data_dir, "mcp"), _mcp_session(), 0)
        runs["import"] = (_cli(data_dir, "import", str(ROOT / "seeds" / "identity-access-path.json")), None, 0)
        runs["python"] = ([sys.executable, "-c", "pass"], None, 0)
        for name, (argv, stdin, expect) in runs.items():
            walls = []
            for i in range(repeat + 1):
                if name == "contain":
                    _timed(_cli(data_dir, "seed", "--reset"))
                wall = _timed(argv, stdin, expect)
                if i:  # the first run warms the page cache
                    walls.append(wall)
            figures[name] = _median(walls)
    return figures


def render_table(figures: dict[str, float]) -> str:
    lines = ["| command | median wall ms | target |", "|---|---:|---|"]
    for name, wall in figures.items():
        if name in READ_COMMANDS:
            target = f"≤ {READ_TARGET_MS:.0f} ms: {'yes' if wall <= READ_TARGET_MS else 'NO'}"
        else:
            target = "-"
        lines.append(f"| `{name}` | {wall:.1f} | {target} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cli", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per command (default 7)")
    args = parser.parse_args(argv)
    print(render_table(measure_cli(args.repeat)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
