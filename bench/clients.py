"""What the command line's client to the embedded server costs: `alert open` and a read command as processes.

    python -m bench.clients [--edges 1000000] [--repeat 11] [--before DIR] [--data-dir DIR] [--out BENCHMARKS.md]

Generates a graph of about `--edges` relationships (`generate`, seed 7) and imports it into a fresh
embedded FalkorDB (or, with `--data-dir`, uses the graph already there), and keeps a full store open
on it, as the dashboard does, so every process below attaches to a running server. Then, median of
`repeat` rounds after one warm-up round, each round running every process once, in turn:

- `alert open`: a whole `python -m blastshield_core alert open ...` process on an identity given by
  id (start-up, imports, the checks, the write through redis-py, the audit, the output), checked:
  exit 0 and the alert reads back;
- `alert open, before` (with `--before DIR`): the same command run from another checkout of the
  project (the code before a change), on the same graph and server, in the same rounds;
- `investigate, read-only connection`: a read command as it runs, its store opened `reads_only`
  (the small RESP connection of `graph/embedded.py`: no redis-py or falkordblite client imported);
- `investigate, client library`: the same process with its store opened as a full store instead
  (falkordblite's client, redis-py, filelock; nothing begun early by `prestart`, which serves the
  light start-up alone), the difference being what the read-only connection saves a read command;
  the two answers are checked equal;
- for scale, a bare `python -c pass`;
- `investigate, cold` both ways: then, on a data directory holding the seed scenarios and no running
  server, `investigate BH-1042` with either client, each process starting the server and stopping it.

The package is compiled first in each checkout, as an install does. Prints the figures and replaces
the "Command line clients" section of BENCHMARKS.md (`python -m bench.run` keeps it).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["KEEP_READ_CONNECTION_MS", "SECTION", "TARGET_MS", "measure_clients", "render_section"]

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Command line clients"
TARGET_MS = 500.0  # `alert open` beside a running server at 1M relationships
KEEP_READ_CONNECTION_MS = 100.0  # what the read-only connection must save a read command to be kept

# A read command run as `python -m blastshield_core` does, its store opened full when asked: nothing
# is begun early (`prestart` serves the light start-up alone) and the store is opened without
# `reads_only`, so falkordblite's client starts or attaches to the server. Both ways import the store
# module first, so they differ in the client only.
READ_PROBE = """
import runpy, sys
from blastshield_core.graph import prestart, store
if sys.argv[1] == "full":
    prestart.prestart = lambda argv, environ: None
    plain = store.Store.__init__
    def full_store(self, settings, *, reads_only=False, light_writes=False):
        plain(self, settings)
    store.Store.__init__ = full_store
sys.argv = ["blastshield_core", *sys.argv[2:]]
runpy.run_module("blastshield_core", run_name="__main__")
"""


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_"))}


def _cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def _run(argv: list[str], cwd: Path) -> tuple[float, float, str]:
    """Wall and CPU (user + system) ms of one process, and its output. CPU time counts only the
    process's own work, so it tells two variants apart even while other work slows the wall clock."""
    cpu = _cpu_ms()
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=_env(), check=False)
    wall = (time.perf_counter() - started) * 1000
    if proc.returncode != 0:
        raise AssertionError(f"{argv[1:4]} in {cwd} exited {proc.returncode}: {proc.stderr[-400:]}")
    return wall, _cpu_ms() - cpu, proc.stdout


def _prepare(data_dir: str, edges: int, log) -> None:
    from blastshield_core import load_settings
    from blastshield_core.graph.generate import GenerateOptions, generate
    from blastshield_core.graph.ingest import import_document, parse_document
    from blastshield_core.graph.store import Store

    log(f"generating about {edges} relationships")
    doc = parse_document(generate(GenerateOptions(edges=edges, seed=7)).to_document())
    store = Store(load_settings(environ={}, data_dir=data_dir))
    try:
        log("importing")
        import_document(store, doc, replace=True, actor="bench")
    finally:
        store.close()


def _cold_rounds(data_dir: str, repeat: int) -> dict[str, tuple]:
    """`investigate BH-1042` on the seed scenarios with either client, each process starting and
    stopping the server (checked: none is left running, the answers are equal)."""
    from blastshield_core import load_settings, seed
    from blastshield_core.graph.store import Store

    store = Store(load_settings(environ={}, data_dir=data_dir))
    try:
        seed(store)
    finally:
        store.close()
    rounds: dict[str, tuple] = {"cold_light": (ROOT, "light", [], []), "cold_full": (ROOT, "full", [], [])}
    answers: dict[str, set[str]] = {name: set() for name in rounds}
    for i in range(repeat + 1):
        for name, (tree, how, walls, cpus) in rounds.items():
            argv = [sys.executable, "-c", READ_PROBE, how, "investigate", "BH-1042", "--json", "--data-dir", data_dir]
            wall, cpu, out = _run(argv, tree)
            assert not (Path(data_dir) / "falkordb.rdb.settings").exists(), (name, "left a server running")
            answer = json.loads(out)
            answer.pop("trace_id", None)
            answer.pop("duration_ms", None)
            answers[name].add(json.dumps(answer, sort_keys=True))
            if i:
                walls.append(wall)
                cpus.append(cpu)
    assert len(answers["cold_light"]) == 1 and answers["cold_light"] == answers["cold_full"], answers
    return rounds


def measure_clients(
    edges: int, repeat: int = 11, log=print, before: Path | None = None, data_dir: str | None = None
) -> dict[str, float | int | str]:
    from blastshield_core import load_settings
    from blastshield_core.graph.store import Store

    with tempfile.TemporaryDirectory() as scratch:
        if data_dir is None:
            data_dir = scratch
            _prepare(data_dir, edges, log)
        store = Store(load_settings(environ={}, data_dir=data_dir))  # the running server, as beside the dashboard
        try:
            total = store.read_text("MATCH ()-[r]->() RETURN count(r) AS n")[0]["n"]
            nodes = store.read_text("MATCH (n) RETURN count(n) AS n")[0]["n"]
            principal = store.read_text(
                "MATCH (i:Identity)-[:HAS_SESSION]->(:Session) RETURN i.id AS id ORDER BY id LIMIT 1"
            )[0]["id"]
            alert = store.read_text(  # a generated alert, not one an `alert open` of this bench added
                "MATCH (a:Alert) WHERE NOT a.id STARTS WITH 'AN-' RETURN a.id AS id ORDER BY id LIMIT 1"
            )[0]["id"]
            trees = {"this": ROOT, **({"before": before.resolve()} if before else {})}
            for tree in trees.values():
                compileall.compile_dir(str(tree / "blastshield_core"), quiet=1)
            python = sys.executable

            def alert_open(tree: Path, i: int) -> list[str]:
                title = f"bench: round {i}"
                return [python, "-m", "blastshield_core", "alert", "open", principal, "--title", title, "--json"]

            def investigate(how: str) -> list[str]:
                return [python, "-c", READ_PROBE, how, "investigate", alert, "--json", "--data-dir", data_dir]

            rounds: dict[str, tuple] = {"alert_open": (ROOT, alert_open, [], [])}
            if before:
                rounds["alert_open_before"] = (trees["before"], alert_open, [], [])
            rounds["read_light"] = (ROOT, lambda _t, _i: investigate("light"), [], [])
            rounds["read_full"] = (ROOT, lambda _t, _i: investigate("full"), [], [])
            rounds["python"] = (ROOT, lambda _t, _i: [python, "-c", "pass"], [], [])
            answers: dict[str, set[str]] = {"read_light": set(), "read_full": set()}
            log(f"{repeat + 1} rounds of {', '.join(rounds)}")
            for i in range(repeat + 1):
                for name, (tree, argv, walls, cpus) in rounds.items():
                    command = argv(tree, i)
                    if name.startswith("alert_open"):
                        command += ["--data-dir", data_dir]
                    wall, cpu, out = _run(command, tree)
                    if name.startswith("alert_open"):
                        opened = json.loads(out)["alert_id"]
                        assert store.read("alert_by_id", {"id": opened}), (name, opened)
                    elif name in answers:
                        answer = json.loads(out)
                        answer.pop("trace_id", None)
                        answer.pop("duration_ms", None)
                        answers[name].add(json.dumps(answer, sort_keys=True))
                    if i:
                        walls.append(wall)
                        cpus.append(cpu)
            assert len(answers["read_light"]) == 1 and answers["read_light"] == answers["read_full"], answers
        finally:
            store.close()
        log("cold: the seed scenarios, no server running")
        cold = _cold_rounds(str(Path(scratch) / "seed"), repeat)
    figures: dict[str, float | int | str] = {"relationships": total, "nodes": nodes, "principal": principal}
    figures["alert"] = alert
    rounds.update(cold)
    for name, (_, _, walls, cpus) in rounds.items():
        figures[f"{name}_ms"] = round(statistics.median(walls), 1)
        figures[f"{name}_max_ms"] = round(max(walls), 1)
        figures[f"{name}_cpu_ms"] = round(statistics.median(cpus), 1)
    figures["read_saved_ms"] = round(float(figures["read_full_ms"]) - float(figures["read_light_ms"]), 1)
    figures["read_saved_cpu_ms"] = round(float(figures["read_full_cpu_ms"]) - float(figures["read_light_cpu_ms"]), 1)
    figures["cold_saved_ms"] = round(float(figures["cold_full_ms"]) - float(figures["cold_light_ms"]), 1)
    return figures


def render_section(figures: dict, command: str) -> list[str]:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    saved = float(figures["cold_saved_ms"])
    rows = [
        ("`alert open` process, server running", "alert_open", f"≤ {TARGET_MS:.0f} ms"),
        ("`alert open` process, server running, the code before (`--before`)", "alert_open_before", ""),
        ("`investigate` process, read-only connection (as it runs)", "read_light", ""),
        ("`investigate` process, its store opened through the client library", "read_full", ""),
        ("for scale: `python -c pass`", "python", ""),
        ("`investigate BH-1042` process, cold, seed scenarios, read-only connection", "cold_light", ""),
        ("`investigate BH-1042` process, cold, seed scenarios, through the client library", "cold_full", ""),
    ]
    lines = [
        SECTION,
        "",
        f"Generated by `{command}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
        f" ({platform.python_version()}, {os.cpu_count()} cores, load {load} at the end).",
        "",
        f"A generated graph of {figures['relationships']:,} relationships and {figures['nodes']:,} nodes (embedded"
        " FalkorDB), its server kept running by a full store as the dashboard keeps it. Each row is a whole"
        " process; every round runs each once, in turn, and the medians are of the rounds after one warm-up."
        f" `alert open` opens an alert on `{figures['principal']}` (given by id) and is checked to read back;"
        f" `investigate {figures['alert']}` gives the same answer both ways (checked).",
        "",
        "| process | median wall ms | max wall ms | median CPU ms | target |",
        "|---|---:|---:|---:|---|",
    ]
    for label, key, target in rows:
        if f"{key}_ms" not in figures:
            continue
        verdict = f"{target}: {'yes' if figures[f'{key}_ms'] <= TARGET_MS else 'NO'}" if target else "-"
        lines.append(
            f"| {label} | {figures[f'{key}_ms']:.1f} | {figures[f'{key}_max_ms']:.1f}"
            f" | {figures[f'{key}_cpu_ms']:.1f} | {verdict} |"
        )
    keep = "kept" if saved >= KEEP_READ_CONNECTION_MS else "not worth keeping"
    lines += [
        "",
        f"The read-only connection (with the start-up it allows: `prestart`, no falkordblite client) saves a read"
        f' command {saved:.1f} ms as "Command line and MCP" runs one (cold: the command starts and stops the'
        f" server): {keep} at a threshold of {KEEP_READ_CONNECTION_MS:.0f} ms. Beside a running server it saves"
        f" {figures['read_saved_ms']:.1f} ms of wall time ({figures['read_saved_cpu_ms']:.1f} ms of CPU: the"
        " client library's imports and connection set-up).",
        "",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.clients", description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=1_000_000, help="about this many relationships (default 1M)")
    parser.add_argument("--repeat", type=int, default=11, help="timed rounds (default 11)")
    parser.add_argument("--before", type=Path, help="another checkout of the project whose `alert open` is timed too")
    parser.add_argument("--data-dir", help="a data directory already holding the graph (no generation)")
    parser.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"), help="Markdown report ('-' for none)")
    args = parser.parse_args(argv)
    log = lambda m: print(m, file=sys.stderr)  # noqa: E731
    figures = measure_clients(args.edges, args.repeat, log=log, before=args.before, data_dir=args.data_dir)
    command = f"python -m bench.clients --edges {args.edges} --repeat {args.repeat}"
    if args.before:
        command += " --before DIR"
    lines = render_section(figures, command)
    print("\n".join(lines))
    if args.out != "-":
        from bench.cli import write_section

        write_section(Path(args.out), lines, SECTION)
        print(f"wrote the {SECTION[3:]} section of {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
