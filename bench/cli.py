"""Wall time of command-line processes on the seed graph, the way a user runs them.

    python -m bench.cli [--repeat 7] [--calls 300] [--out BENCHMARKS.md]

Each command runs as its own `python -m blastshield_core ...` process against an
embedded database seeded with the built-in scenarios (start-up, imports, opening the
store, the query, printing, stopping the server): the median of `repeat` runs after one
warm-up. The read commands have a target (≤ 350 ms); `contain` (reset before each run,
not timed), `mcp` (start the stdio server, initialize, one `investigate_alert` call,
exit) and `import` (a seed document) are timed for comparison, next to a bare
`python -c pass`. Every run must exit as expected or the figure is not reported.
Then `bench.mcp` times a tool call over the stdio server against the same call in
process. Prints both and replaces the "Command line and MCP" section of BENCHMARKS.md
(`python -m bench.run` keeps it when it rewrites the report).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = [
    "READ_TARGET_MS",
    "SECTION",
    "carry_section",
    "measure_cli",
    "render_section",
    "render_table",
    "write_section",
]

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Command line and MCP"
READ_TARGET_MS = 350.0
READ_COMMANDS: dict[str, list[str]] = {
    "alerts": ["alerts"],
    "investigate": ["investigate", "BH-1042"],
    "blast-radius": ["blast-radius", "BH-1042"],
    "path": ["path", "developer_07", "customer-db"],
    "routes": ["routes", "BH-1042"],
    "candidates": ["candidates", "BH-1042"],
}
NO_BYTECODE = "investigate, no bytecode"
MCP_CALL = {"name": "investigate_alert", "arguments": {"alert_id": "BH-1042"}}


def _cli(data_dir: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "blastshield_core", *args, "--data-dir", data_dir]


def _timed(argv: list[str], stdin: str | None = None, expect: int = 0, env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    environ = {**os.environ, **env} if env else None
    proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, cwd=ROOT, env=environ, check=False)
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
    with tempfile.TemporaryDirectory() as data_dir:
        _timed(_cli(data_dir, "seed"))
        # First `investigate` with no bytecode of the package (none written meanwhile), then the
        # package compiled as an install (and `make setup`) does: this machine sets
        # PYTHONDONTWRITEBYTECODE=1, so without it every command compiles the package's modules.
        for cache in (ROOT / "blastshield_core").rglob("__pycache__"):
            shutil.rmtree(cache)
        investigate, no_write = _cli(data_dir, *READ_COMMANDS["investigate"]), {"PYTHONDONTWRITEBYTECODE": "1"}
        no_bytecode = _median([_timed(investigate, env=no_write) for _ in range(repeat + 1)][1:])
        compileall.compile_dir(str(ROOT / "blastshield_core"), quiet=1)
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
        # Round robin: every round runs each command once, so a burst of other work on the
        # machine falls on all of them alike; the first round warms the page cache.
        walls: dict[str, list[float]] = {name: [] for name in runs}
        for i in range(repeat + 1):
            for name, (argv, stdin, expect) in runs.items():
                if name == "contain":
                    _timed(_cli(data_dir, "seed", "--reset"))
                wall = _timed(argv, stdin, expect)
                if i:
                    walls[name].append(wall)
        figures = {name: _median(values) for name, values in walls.items()}
        figures[NO_BYTECODE] = no_bytecode
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


def render_section(figures: dict[str, float], mcp: dict[str, float], command: str) -> list[str]:
    from bench.mcp import OVERHEAD_TARGET_MS

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    met = "yes" if mcp["overhead_p50_ms"] <= OVERHEAD_TARGET_MS else "NO"
    return [
        SECTION,
        "",
        f"Generated by `{command}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
        f" ({platform.python_version()}, {os.cpu_count()} cores, load {load} at the end).",
        "",
        "Each command is a whole `python -m blastshield_core ...` process on the seed graph (embedded:",
        "start-up, imports, starting and stopping the embedded server, the query, the output), median",
        "wall of the rounds after one warm-up round (each round runs every command once). `contain`",
        "resets the scenarios before each run (not timed),",
        "`mcp` starts the stdio server, initializes, makes one `investigate_alert` call and exits,",
        "`import` imports a seed document. The package's bytecode is compiled first, as an install",
        "(and `make setup`) does; this machine sets `PYTHONDONTWRITEBYTECODE=1`, and the",
        f"`{NO_BYTECODE}` row is `investigate` compiling every module of the package each time.",
        "",
        *render_table(figures).splitlines(),
        "",
        "`investigate_alert BH-1042` over the stdio MCP server against the same call on `ReadTools` in",
        f"process, {mcp['calls']:.0f} calls each after 20 warm-up calls; the answers are equal (checked).",
        "",
        "| way | p50 ms | p95 ms |",
        "|---|---:|---:|",
        f"| stdio MCP | {mcp['stdio_p50_ms']:.2f} | {mcp['stdio_p95_ms']:.2f} |",
        f"| in process | {mcp['in_process_p50_ms']:.2f} | {mcp['in_process_p95_ms']:.2f} |",
        f"| overhead (p50) | {mcp['overhead_p50_ms']:.2f} | target ≤ {OVERHEAD_TARGET_MS:.0f} ms: {met} |",
        "",
    ]


def write_section(path: Path, lines: list[str], section: str = SECTION) -> None:
    """Replace `section` of the report at `path` (or append it)."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    block = "\n".join(lines).rstrip() + "\n"
    start = text.find(section)
    if start == -1:
        text = text.rstrip() + "\n\n" + block
    else:
        end = text.find("\n## ", start + len(section))
        text = text[:start] + block + ("\n" + text[end + 1 :] if end != -1 else "")
    path.write_text(text, encoding="utf-8")


def carry_section(path: Path, previous: str, section: str = SECTION) -> None:
    """Put `section` of `previous` (the report before a rewrite) back into the report at `path`."""
    start = previous.find(section)
    if start == -1:
        return
    end = previous.find("\n## ", start + len(section))
    write_section(path, previous[start : end if end != -1 else None].rstrip().splitlines(), section)


def main(argv: list[str] | None = None) -> int:
    from bench.mcp import measure_mcp

    parser = argparse.ArgumentParser(prog="python -m bench.cli", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per command (default 7)")
    parser.add_argument("--calls", type=int, default=300, help="timed MCP calls each way (default 300)")
    parser.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"), help="Markdown report ('-' for none)")
    args = parser.parse_args(argv)
    figures = measure_cli(args.repeat)
    mcp = measure_mcp(args.calls)
    lines = render_section(figures, mcp, f"python -m bench.cli --repeat {args.repeat} --calls {args.calls}")
    print("\n".join(lines))
    if args.out != "-":
        write_section(Path(args.out), lines)
        print(f"wrote the {SECTION[3:]} section of {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
