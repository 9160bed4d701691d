"""The Alerts page with thousands of alerts: first run and rerun through AppTest.

    python -m bench.queue [--size 1m] [--alerts 10000] [--repeat 5] [--distinct] [--baseline DIR --rounds 3]

Generates a graph (`generate`, seed 7), adds alerts up to `--alerts` (copies of the
generated alerts on the same entities, new ids; with `--distinct`, one alert on each of
`--alerts` distinct identities, workloads and roles), imports it into a fresh embedded
FalkorDB, then times the Alerts page: `first` is the page's first run after the graph
version changed (every alert summarised once), `rerun` a rerun of the same session (the
summaries come from the cache of that graph version). The same on the seed graph
(4 alerts) gives the ratio. Targets: first ≤ 2000 ms, rerun ≤ 150 ms, rerun ≤ 3× the
seed graph's rerun.

`--baseline DIR` also times the page of another checkout (DIR, e.g. an export of the main
branch) on the same graph: each round runs the page once in that checkout and once in this
one, each in its own process, so both sides see the same load; the report gives each side's
median over the rounds and the ratio.
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

__all__ = ["SECTION", "measure_queue", "render_section"]

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Alert queue"


_KINDS = {"Identity": "identity_access_path", "Workload": "exposed_workload", "IAMRole": "excessive_iam_permissions"}


def _document(edges: int, alerts: int, distinct: bool = False):
    """The generated graph with `alerts` alerts: copies of the generated alerts on the same
    entities (new ids), or with `distinct` one alert per entity, on `alerts` distinct
    identities, workloads and roles spread over the graph (the generated alerts' entities
    first; titles, kinds and signals cycled from the generated alerts)."""
    from blastshield_core.graph.generate import GenerateOptions, generate
    from blastshield_core.graph.ingest import parse_document

    graph = generate(GenerateOptions(edges=edges, seed=7))
    base = list(graph.alerts)
    if distinct:
        graph.alerts, used = [], set()
        for alert in base:  # the generated alerts, one per entity
            if alert[2] not in used and len(graph.alerts) < alerts:
                graph.alerts.append(alert)
                used.add(alert[2])
        labels = {node[0]: str(node[1]) for node in graph.nodes if str(node[1]) in _KINDS and node[0] not in used}
        spare = list(labels)
        need = alerts - len(graph.alerts)
        if need > len(spare):
            raise SystemExit(f"the graph has {len(spare) + len(used)} identities, workloads and roles; asked {alerts}")
        for k, entity in enumerate(spare[:: max(1, len(spare) // max(1, need))][:need]):
            signals = base[k % len(base)][4]
            graph.alerts.append((f"GEN-D{k:06d}", f"Alert on {entity}", entity, _KINDS[labels[entity]], signals))
        return parse_document(graph.to_document())
    k = 0
    while len(graph.alerts) < alerts:
        _, title, entity, kind, signals = base[k % len(base)]
        graph.alerts.append((f"GEN-X{k:06d}", title, entity, kind, signals))
        k += 1
    return parse_document(graph.to_document())


def _page_times(data_dir: str, repeat: int, bump) -> dict[str, float]:
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from pages import _services

    os.environ["BLASTSHIELD_DATA_DIR"] = data_dir
    os.environ.pop("FALKORDB_URL", None)
    st.cache_resource.clear()
    try:
        first, rerun = [], []
        at = AppTest.from_file(str(ROOT / "pages" / "alerts.py"), default_timeout=600)
        at.run()  # warm-up: imports, opening the store, the first summaries
        assert not at.exception, at.exception
        for _ in range(repeat):
            bump(_services.services())  # a write: the next run summarises every alert again
            started = time.perf_counter()
            at.run()
            first.append((time.perf_counter() - started) * 1000)
            assert not at.exception, at.exception
            started = time.perf_counter()
            at.run()
            rerun.append((time.perf_counter() - started) * 1000)
        return {"first_ms": round(statistics.median(first), 1), "rerun_ms": round(statistics.median(rerun), 1)}
    finally:
        try:
            _services.services().close()
        finally:
            st.cache_resource.clear()


def _bump(services) -> None:
    """Bump the graph version as a write does (in its own transaction), without writing: the next
    run of the page summarises every alert again. (An import on a 1M graph copies the graph
    first, which is the import's cost, not the page's.)"""
    services.store.command("INCR", services.store.version_key())


def _distinct_entities_ms(data_dir: str, doc, count: int) -> float:
    """The queue's path reads (`ReadTools.path_ends`) for `count` distinct identities, workloads
    and roles of the graph: what the first run reads when every alert names its own entity."""
    from blastshield_core.base.settings import load_settings
    from blastshield_core.graph.store import Store
    from blastshield_core.read.tools import ReadTools

    candidates = [n.id for n in doc.nodes if n.label in ("Identity", "Workload", "IAMRole")]
    ids = candidates[:: max(1, len(candidates) // count)][:count]  # spread over the three kinds
    store = Store(load_settings(environ={}, data_dir=data_dir))
    try:
        tools = ReadTools(store)
        times = []
        for _ in range(3):
            started = time.perf_counter()
            tools.path_ends(ids)
            times.append((time.perf_counter() - started) * 1000)
    finally:
        store.close()
    return round(statistics.median(times), 1)


def _page_times_in(tree: Path, data_dir: str, repeat: int) -> dict[str, float]:
    """`_page_times` of the checkout at `tree`, in a process of its own (the same interpreter)."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]);"
        "from bench.queue import _bump, _page_times;"
        "print(json.dumps(_page_times(sys.argv[2], int(sys.argv[3]), _bump)))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FALKORDB_URL")}
    done = subprocess.run(
        [sys.executable, "-c", code, str(tree), data_dir, str(repeat)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the page of {tree} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _alternating(baseline: Path, data_dir: str, repeat: int, rounds: int, log) -> dict[str, dict[str, float]]:
    """Each round: the page of `baseline`, then this checkout's, on the same graph; per side the
    median over the rounds of each process's medians."""
    runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for k in range(rounds):
        for side, tree in (("before", baseline), ("after", ROOT)):
            runs[side].append(_page_times_in(tree, data_dir, repeat))
            log(f"round {k + 1}, {side}: {runs[side][-1]}")
    return {
        side: {
            "first_ms": round(statistics.median(r["first_ms"] for r in found), 1),
            "rerun_ms": round(statistics.median(r["rerun_ms"] for r in found), 1),
            "firsts": [r["first_ms"] for r in found],
        }
        for side, found in runs.items()
    }


def measure_queue(
    size: str = "1m",
    alerts: int = 10_000,
    repeat: int = 5,
    log=print,
    *,
    distinct: bool = False,
    baseline: Path | None = None,
    rounds: int = 3,
) -> dict:
    from bench.run import parse_size
    from blastshield_core.base.settings import load_settings
    from blastshield_core.graph.ingest import import_document
    from blastshield_core.graph.seeds import seed
    from blastshield_core.graph.store import Store
    from blastshield_core.read.tools import QUEUE_CHUNK

    spec = parse_size(size)
    previous = {k: os.environ.get(k) for k in ("BLASTSHIELD_DATA_DIR", "FALKORDB_URL")}
    compared = None
    try:
        with tempfile.TemporaryDirectory() as small:
            store = Store(load_settings(environ={}, data_dir=small))
            seed(store)
            store.close()
            seed_times = _page_times(small, repeat, _bump)
        log(f"seed graph (4 alerts): {seed_times}")
        with tempfile.TemporaryDirectory() as big:
            started = time.perf_counter()
            doc = _document(spec.edges, alerts, distinct)
            store = Store(load_settings(environ={}, data_dir=big))
            import_document(store, doc)
            store.close()
            log(f"generated and imported {len(doc.edges)} relationships, {len(doc.alerts)} alerts"
                f" in {time.perf_counter() - started:.0f} s")  # fmt: skip
            if baseline is not None:
                compared = _alternating(baseline, big, repeat, rounds, log)
                big_times = compared["after"]
            else:
                big_times = _page_times(big, repeat, _bump)
            log(f"{size} ({alerts} alerts): {big_times}")
            distinct_ms = _distinct_entities_ms(big, doc, alerts)
        log(f"path reads for {alerts} distinct entities: {distinct_ms} ms")
    finally:
        for key, value in previous.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return {
        "seed_first_ms": seed_times["first_ms"],
        "seed_rerun_ms": seed_times["rerun_ms"],
        "first_ms": big_times["first_ms"],
        "rerun_ms": big_times["rerun_ms"],
        "rerun_ratio": round(big_times["rerun_ms"] / seed_times["rerun_ms"], 2),
        "alerts": len(doc.alerts),
        "edges": len(doc.edges),
        "entities": len({a.entity_id for a in doc.alerts}),
        "distinct": distinct,
        "distinct_ms": distinct_ms,
        "chunk": QUEUE_CHUNK,
        "compared": compared,
        "rounds": rounds,
    }


def render_section(f: dict, command: str) -> list[str]:
    def met(ok: bool) -> str:
        return "yes" if ok else "NO"

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    shape = "one alert per entity" if f["distinct"] else f"on {f['entities']:,.0f} distinct entities"
    lines = [
        SECTION,
        "",
        f"Generated by `{command}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
        f" ({os.cpu_count()} cores, load {load} at the end).",
        "",
        "The Alerts page through AppTest, median of the runs after a warm-up. `first`: the first run after the",
        "graph version changed (bumped as a write bumps it; every alert summarised once); `rerun`: a rerun of",
        "that session (summaries from the cache of that version; sorting, filtering and paging in the core).",
        "",
        "| graph | alerts | first run ms | rerun ms |",
        "|---|---:|---:|---:|",
        f"| seed | 4 | {f['seed_first_ms']:.1f} | {f['seed_rerun_ms']:.1f} |",
        f"| generated, {f['edges']:,.0f} relationships | {f['alerts']:,.0f}, {shape} | {f['first_ms']:.1f}"
        f" | {f['rerun_ms']:.1f} |",
        "",
        "| target | measured | met |",
        "|---|---|---|",
        f"| first run ≤ 2000 ms | {f['first_ms']:.0f} ms | {met(f['first_ms'] <= 2000)} |",
        f"| rerun ≤ 150 ms | {f['rerun_ms']:.0f} ms | {met(f['rerun_ms'] <= 150)} |",
        f"| rerun ≤ 3× the seed graph's rerun | {f['rerun_ratio']:.2f}× | {met(f['rerun_ratio'] <= 3)} |",
        "",
    ]
    compared = f.get("compared")
    if compared:
        before, after = compared["before"], compared["after"]
        lines += [
            f"Before and after on the same graph, alternating round by round ({f['rounds']} rounds, each side's",
            "page in a process of its own; each round's figure the median of its runs):",
            "",
            "| code | first run ms (median) | rounds | rerun ms |",
            "|---|---:|---|---:|",
            f"| before | {before['first_ms']:.1f} | {', '.join(f'{x:.0f}' for x in before['firsts'])}"
            f" | {before['rerun_ms']:.1f} |",
            f"| after | {after['first_ms']:.1f} | {', '.join(f'{x:.0f}' for x in after['firsts'])}"
            f" | {after['rerun_ms']:.1f} |",
            "",
            f"After/before, first run: **{after['first_ms'] / before['first_ms']:.2f}**.",
            "",
        ]
    lines += [
        "The first run reads the alerts in one query and each distinct entity's qualifying path ends once,",
        f"in queries of {f['chunk']} entities (several at a time), scoring each chunk while the next is read.",
        f"The path reads alone for {f['alerts']:,.0f} distinct identities, workloads and roles of this graph",
        f"take {f['distinct_ms']:.0f} ms (median of 3).",
        "",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.queue", description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="1m", help="graph size (10k, 100k, 1m)")
    parser.add_argument("--alerts", type=int, default=10_000, help="alerts in the graph (default 10000)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--distinct", action="store_true", help="one alert on each of --alerts distinct entities")
    parser.add_argument("--baseline", type=Path, help="another checkout whose page is timed too, alternating")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each side with --baseline (default 3)")
    parser.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"), help="Markdown report ('-' for none)")
    args = parser.parse_args(argv)
    baseline = args.baseline.resolve() if args.baseline else None
    if baseline is not None and not (baseline / "bench" / "queue.py").is_file():
        parser.error(f"--baseline {baseline}: not a checkout with bench/queue.py")
    figures = measure_queue(
        args.size, args.alerts, args.repeat, distinct=args.distinct, baseline=baseline, rounds=args.rounds
    )
    command = f"python -m bench.queue --size {args.size} --alerts {args.alerts} --repeat {args.repeat}"
    if args.distinct:
        command += " --distinct"
    if baseline is not None:
        command += f" --baseline <main> --rounds {args.rounds}"
    lines = render_section(figures, command)
    print("\n".join(lines))
    if args.out != "-":
        from bench.cli import write_section

        write_section(Path(args.out), lines, SECTION)
        print(f"wrote the {SECTION[3:]} section of {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
