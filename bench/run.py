"""Benchmark: the read tools on generated graphs, against networkx in the same process.

    python -m bench.run [--sizes 10k,100k,1m,dense-100k] [--alerts 40] [--out BENCHMARKS.md]

For each size: generate a graph document, import it into a fresh embedded
FalkorDB (edges/s), read the server's RSS, then for every alert start point,
after a warm-up, time `investigate_alert` (depth 6), `get_blast_radius`,
`find_shortest_access_path` and `get_response_candidates` end to end, compute
the same answers with networkx, and CHECK that both agree (path sets in answer
order, respecting the cap and `truncated`). Prints a table and writes a
Markdown report.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from blastshield_core.base.settings import load_settings
from blastshield_core.graph.generate import GenerateOptions, generate
from blastshield_core.graph.ingest import import_document, load_document
from blastshield_core.graph.model import GraphDocument
from blastshield_core.graph.store import Store
from blastshield_core.read.tools import ReadTools
from blastshield_core.results import MAX_DEPTH, Status

from .reference import Reference

__all__ = ["SizeReport", "bench_size", "main", "parse_size", "render_markdown", "render_table"]

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SIZES = "10k,100k,1m,dense-100k"
TOOLS = ("investigate_alert", "get_blast_radius", "find_shortest_access_path", "get_response_candidates")
WARMUP_ALERTS = 5


@dataclass(frozen=True)
class SizeSpec:
    label: str
    edges: int
    dense: bool


def parse_size(text: str) -> SizeSpec:
    """`10k`, `100k`, `1m`, `250000`, with an optional `dense-` prefix."""
    match = re.fullmatch(r"(dense-)?(\d+)([km]?)", text.strip().lower())
    if not match:
        raise argparse.ArgumentTypeError(f"bad size {text!r} (use e.g. 10k, 1m, dense-100k)")
    edges = int(match.group(2)) * {"": 1, "k": 1_000, "m": 1_000_000}[match.group(3)]
    return SizeSpec(text.strip().lower(), edges, bool(match.group(1)))


@dataclass
class ToolTimes:
    falkordb_ms: list[float] = field(default_factory=list)
    networkx_ms: list[float] = field(default_factory=list)
    agree: int = 0
    failed: int = 0
    truncated: int = 0
    disagreements: list[str] = field(default_factory=list)


@dataclass
class SizeReport:
    spec: SizeSpec
    nodes: int = 0
    edges: int = 0
    alerts_timed: int = 0
    generate_s: float = 0.0
    parse_s: float = 0.0
    import_s: float = 0.0
    rss_mb: float | None = None
    load: tuple[float, float] = (0.0, 0.0)  # 1-minute load average before and after
    tools: dict[str, ToolTimes] = field(default_factory=lambda: {t: ToolTimes() for t in TOOLS})

    @property
    def edges_per_s(self) -> float:
        return self.edges / self.import_s if self.import_s else 0.0

    @property
    def all_agree(self) -> bool:
        return all(t.agree == self.alerts_timed and not t.failed for t in self.tools.values())


def _pct(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    # nearest-rank percentile
    rank = max(1, round(q / 100 * len(ordered) + 0.5 - 1e-9))
    return ordered[min(rank, len(ordered)) - 1]


def _timed(fn: Callable[[], Any], ref_fn: Callable[[], Any], repeat: int) -> tuple[Any, float, Any, float]:
    """Both answers and the fastest of `repeat` runs of each side, in ms. The two sides take
    turns run by run, so a burst of other work on the machine falls on both alike rather than
    on all of one side's runs."""
    best, ref_best = float("inf"), float("inf")
    value = ref_value = None
    for _ in range(repeat):
        started = time.perf_counter()
        value = fn()
        best = min(best, (time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        ref_value = ref_fn()
        ref_best = min(ref_best, (time.perf_counter() - started) * 1000)
    return value, best, ref_value, ref_best


def _sig(paths: Any) -> list[tuple[str, ...]]:
    return [p.node_ids for p in paths]


def bench_size(
    store: Store,
    spec: SizeSpec,
    *,
    alerts: int = 40,
    repeat: int = 3,
    seed: int = 7,
    workdir: Path | None = None,
    log: Callable[[str], None] = print,
) -> SizeReport:
    """Generate, import into `store`'s graph (replacing it) and time the tools on one size."""
    report = SizeReport(spec)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        path = Path(tmp) / f"{spec.label}.json"
        started = time.perf_counter()
        generate(GenerateOptions(edges=spec.edges, seed=seed, dense=spec.dense)).write(path)
        report.generate_s = time.perf_counter() - started
        started = time.perf_counter()
        doc: GraphDocument = load_document(path)
        report.parse_s = time.perf_counter() - started
    report.nodes, report.edges = len(doc.nodes), len(doc.edges)
    log(f"[{spec.label}] generated {report.edges} relationships, {report.nodes} nodes in {report.generate_s:.1f}s")

    def progress(done: int, total: int) -> None:
        if total and (done == total or done % 100_000 < 5_000):
            log(f"[{spec.label}] importing {done}/{total} ({100 * done // total}%)")

    started = time.perf_counter()
    import_document(store, doc, replace=True, progress=progress)
    report.import_s = time.perf_counter() - started
    pid = store.server_pid()
    if pid:
        report.rss_mb = psutil.Process(pid).memory_info().rss / 2**20
    log(f"[{spec.label}] imported at {report.edges_per_s:,.0f} edges/s; server RSS {report.rss_mb or 0:.0f} MB")

    ref = Reference(doc)
    tools = ReadTools(store)
    chosen = [a.id for a in doc.alerts][:alerts]
    report.alerts_timed = len(chosen)
    for alert_id in chosen[:WARMUP_ALERTS]:  # warm-up: caches, query plans, connections
        tools.investigate_alert(alert_id, MAX_DEPTH)
        tools.get_blast_radius(alert_id)
        tools.get_response_candidates(alert_id)
        ref.investigate(alert_id)
        ref.blast_radius(alert_id)
    for alert_id in chosen:
        _bench_alert(report, tools, ref, alert_id, repeat)
    report.load = (load_before, os.getloadavg()[0])
    del doc, ref
    return report


def _bench_alert(report: SizeReport, tools: ReadTools, ref: Reference, alert_id: str, repeat: int) -> None:
    times = report.tools

    def record(tool: str, db_ms: float, nx_ms: float, *, ok: bool, failed: bool, truncated: bool, note: str) -> None:
        entry = times[tool]
        entry.falkordb_ms.append(db_ms)
        entry.networkx_ms.append(nx_ms)
        entry.agree += ok and not failed
        entry.failed += failed
        entry.truncated += truncated
        if not ok and len(entry.disagreements) < 5:
            entry.disagreements.append(f"{alert_id}: {note}")

    inv, db_ms, ref_inv, nx_ms = _timed(
        lambda: tools.investigate_alert(alert_id, MAX_DEPTH), lambda: ref.investigate(alert_id), repeat
    )
    failed = inv.status is Status.QUERY_FAILED
    ok = (
        not failed
        and _sig(inv.paths) == ref_inv.paths
        and inv.truncated == ref_inv.truncated
        and inv.status is (Status.PATHS_FOUND if ref_inv.paths else Status.NO_PATH)
    )
    record(
        "investigate_alert",
        db_ms,
        nx_ms,
        ok=ok,
        failed=failed,
        truncated=inv.truncated,
        note=f"{inv.status} {inv.message}",
    )

    blast, db_ms, (ref_found, ref_on_path), nx_ms = _timed(
        lambda: tools.get_blast_radius(alert_id), lambda: ref.blast_radius(alert_id), repeat
    )
    failed = blast.status is Status.QUERY_FAILED
    got = {(e.id, e.hops) for e in blast.entities}
    got_on_path = {e.id for e in blast.entities if e.on_critical_path}
    ok = not failed and got == ref_found and got_on_path == ref_on_path
    record(
        "get_blast_radius",
        db_ms,
        nx_ms,
        ok=ok,
        failed=failed,
        truncated=False,
        note=f"{blast.status} {len(got)} vs {len(ref_found)}",
    )

    source = inv.alert.entity_id if inv.alert else ref.alerts[alert_id]
    if ref_inv.paths:
        target = ref_inv.paths[-1][-1]
    elif ref_found:
        target = max(ref_found, key=lambda pair: (pair[1], pair[0]))[0]
    else:
        target = sorted(ref.sensitive)[0]
    sp, db_ms, ref_sp, nx_ms = _timed(
        lambda: tools.find_shortest_access_path(source, target, MAX_DEPTH),
        lambda: ref.shortest(source, target, MAX_DEPTH),
        repeat,
    )
    failed = sp.status is Status.QUERY_FAILED
    ok = not failed and _sig(sp.paths) == ref_sp.paths and sp.truncated == ref_sp.truncated
    record(
        "find_shortest_access_path",
        db_ms,
        nx_ms,
        ok=ok,
        failed=failed,
        truncated=sp.truncated,
        note=f"{sp.status} {sp.message}",
    )

    cands, db_ms, ref_cands, nx_ms = _timed(
        lambda: tools.get_response_candidates(alert_id), lambda: ref.candidates(alert_id), repeat
    )
    failed = cands.status is Status.QUERY_FAILED
    ok = not failed and {c.route_id: c.cut_paths for c in cands.candidates} == ref_cands
    record(
        "get_response_candidates",
        db_ms,
        nx_ms,
        ok=ok,
        failed=failed,
        truncated=cands.truncated,
        note=f"{cands.status} {cands.message}",
    )


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = psutil.virtual_memory().total / 2**30
    return (
        f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} cores, {mem:.0f} GiB RAM, "
        f"Python {platform.python_version()}, embedded FalkorDB (falkordblite)"
    )


def render_table(reports: Sequence[SizeReport]) -> str:
    """A plain-text table of every size and tool."""
    header = (
        f"{'size':<11} {'tool':<26} {'p50':>7} {'p95':>7} {'max':>8} | {'nx p50':>7} {'nx p95':>7} {'nx max':>8}"
        f" | {'x p50':>6} {'x p95':>6} | check"
    )
    lines = [header, "-" * len(header)]
    for rep in reports:
        for tool, t in rep.tools.items():
            lines.append(
                f"{rep.spec.label:<11} {tool:<26} {_pct(t.falkordb_ms, 50):7.2f} {_pct(t.falkordb_ms, 95):7.2f}"
                f" {max(t.falkordb_ms, default=0):8.2f} | {_pct(t.networkx_ms, 50):7.2f} {_pct(t.networkx_ms, 95):7.2f}"
                f" {max(t.networkx_ms, default=0):8.2f} | {_ratio(t, 50):>6} {_ratio(t, 95):>6} | {_check(rep, t)}"
            )
    lines.append("")
    lines.append(f"{'size':<11} {'edges':>9} {'nodes':>9} {'import s':>9} {'edges/s':>9} {'RSS MB':>8} {'MB/1M':>7}")
    for rep in reports:
        lines.append(
            f"{rep.spec.label:<11} {rep.edges:>9} {rep.nodes:>9} {rep.import_s:>9.2f} {rep.edges_per_s:>9,.0f}"
            f" {_rss(rep):>8} {_rss_per_m(rep):>7}"
        )
    return "\n".join(lines)


def _ratio(t: ToolTimes, q: float) -> str:
    nx_value = _pct(t.networkx_ms, q)
    return f"{_pct(t.falkordb_ms, q) / nx_value:.2f}" if nx_value > 0 else "-"


def _check(rep: SizeReport, t: ToolTimes) -> str:
    text = f"{'OK' if t.agree == rep.alerts_timed and not t.failed else 'MISMATCH'} {t.agree}/{rep.alerts_timed}"
    if t.failed:
        text += f", {t.failed} failed"
    if t.truncated:
        text += f", {t.truncated} truncated"
    return text


def _rss(rep: SizeReport) -> str:
    return f"{rep.rss_mb:.0f}" if rep.rss_mb is not None else "-"


def _rss_per_m(rep: SizeReport) -> str:
    if rep.rss_mb is None or not rep.edges:
        return "-"
    return f"{rep.rss_mb * 1_000_000 / rep.edges:.0f}"


def _targets(reports: Sequence[SizeReport]) -> list[str]:
    """Each target of the issue against the figures of this run (sizes not run are skipped)."""
    by_label = {rep.spec.label: rep for rep in reports}
    lines = ["| target | measured | met |", "|---|---|---|"]

    def row(target: str, measured: str, met: bool) -> None:
        lines.append(f"| {target} | {measured} | {'yes' if met else '**no**'} |")

    for label, limit in (("100k", 10.0), ("1m", 20.0)):
        if label in by_label:
            p95 = _pct(by_label[label].tools["investigate_alert"].falkordb_ms, 95)
            row(f"`investigate_alert` p95 ≤ {limit:.0f} ms at {label}", f"{p95:.2f} ms", p95 <= limit)
    for rep in reports:
        t = rep.tools["investigate_alert"]
        r50, r95 = (_pct(t.falkordb_ms, q) / _pct(t.networkx_ms, q) for q in (50, 95))
        row(
            f"`investigate_alert` ≤ 3× networkx at {rep.spec.label}",
            f"{r50:.2f}× at p50, {r95:.2f}× at p95",
            max(r50, r95) <= 3,
        )
    for label in ("10k", "100k"):
        if label in by_label:
            t = by_label[label].tools["investigate_alert"]
            r95 = _pct(t.falkordb_ms, 95) / _pct(t.networkx_ms, 95)
            row(f"`investigate_alert` p95 ≤ 1.5× networkx at {label}", f"{r95:.2f}×", r95 <= 1.5)
    if "1m" in by_label:
        p95 = _pct(by_label["1m"].tools["get_blast_radius"].falkordb_ms, 95)
        row("`get_blast_radius` p95 ≤ 15 ms at 1m", f"{p95:.2f} ms", p95 <= 15)
    for rep in reports:
        if rep.spec.dense:
            p95 = _pct(rep.tools["get_blast_radius"].falkordb_ms, 95)
            row(f"`get_blast_radius` p95 ≤ 50 ms on {rep.spec.label}", f"{p95:.2f} ms", p95 <= 50)
    for rep in reports:
        row(f"import ≥ 60k edges/s at {rep.spec.label}", f"{rep.edges_per_s:,.0f} edges/s", rep.edges_per_s >= 60_000)
    for rep in reports:
        if rep.rss_mb is not None and rep.edges >= 1_000_000:
            per_m = rep.rss_mb * 1_000_000 / rep.edges
            row(f"server RSS ≤ 0.6 GB per 1M edges at {rep.spec.label}", f"{per_m:.0f} MB per 1M", per_m <= 614)
    return lines


def render_extras(extras: dict[str, Any]) -> list[str]:
    """The containment-loop and dashboard sections, with their targets."""
    out = ["## Containment loop and dashboard", ""]
    loop = extras.get("containment")
    if loop:
        met = "yes" if loop["p50_ms"] <= 100 else "**no**"
        out += [
            "Containment on BH-CONTAINMENT-4001 with the rules decider (no model), seed graph, embedded: each run",
            "resets the scenarios, then goes investigate → candidates → proposal → validation → block → re-query",
            "twice, to a `completed` verdict with 2 verified actions (checked every run).",
            f"{loop['runs']} runs after 2 warm-up runs.",
            "",
            "| runs | p50 ms | max ms | target ≤ 100 ms for two verified actions |",
            "|---:|---:|---:|---|",
            f"| {loop['runs']} | {loop['p50_ms']:.1f} | {loop['max_ms']:.1f} | {met} (p50) |",
            "",
        ]
    pages = extras.get("pages")
    if pages:
        out += [
            "Dashboard pages through Streamlit's AppTest on the seed graph (embedded), median of 5: `first` is the",
            "page's first run in a new session (after the app's entry run), `rerun` a rerun of that session.",
            "",
            "| page | first run ms | rerun ms | first ≤ 1000 ms | rerun ≤ 150 ms |",
            "|---|---:|---:|---|---|",
        ]
        for page, fig in pages.items():
            first_ok = "yes" if fig["first_ms"] <= 1000 else "**no**"
            rerun_ok = "yes" if fig["rerun_ms"] <= 150 else "**no**"
            out.append(f"| `{page}` | {fig['first_ms']:.1f} | {fig['rerun_ms']:.1f} | {first_ok} | {rerun_ok} |")
        out.append("")
    return out


def render_markdown(
    reports: Sequence[SizeReport], command: str, repeat: int = 3, extras: dict[str, Any] | None = None
) -> str:
    """The BENCHMARKS.md report."""
    out = [
        "# Benchmarks",
        "",
        f"Generated by `{command}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        "",
        f"Machine: {_machine()}. Other work may share the machine; `load` below says how busy it was.",
        "",
        "Graphs come from `python -m blastshield_core generate` (seed 7). Times are end to end through",
        "`ReadTools` (validation, every `GRAPH.RO_QUERY`, result models), in ms, over every alert start point",
        f"after a warm-up. Each start point is timed {repeat} times on each side, the two sides taking turns run",
        "by run, and the fastest of each side kept, because other work may share the two cores (see `load`",
        "below); p50/p95/max are over the start points.",
        "networkx answers the same questions in the same process over the same document",
        "(a `DiGraph` with every property, relationships filtered while traversing); `x` is FalkorDB ÷ networkx.",
        "`check` compares the answers: path lists in answer order with the 100-path cap and `truncated`,",
        "blast-radius `(id, hops)` sets and on-path flags, shortest-path lists, candidate routes and the paths",
        "each cuts.",
        "",
        "## Read tools",
        "",
        "| size | tool | p50 | p95 | max | nx p50 | nx p95 | nx max | x p50 | x p95 | check |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for rep in reports:
        for tool, t in rep.tools.items():
            out.append(
                f"| {rep.spec.label} | `{tool}` | {_pct(t.falkordb_ms, 50):.2f} | {_pct(t.falkordb_ms, 95):.2f}"
                f" | {max(t.falkordb_ms, default=0):.2f} | {_pct(t.networkx_ms, 50):.2f}"
                f" | {_pct(t.networkx_ms, 95):.2f} | {max(t.networkx_ms, default=0):.2f}"
                f" | {_ratio(t, 50)} | {_ratio(t, 95)} | {_check(rep, t)} |"
            )
    out += [
        "",
        "## Import and memory",
        "",
        "| size | relationships | nodes | alerts timed | generate s | parse+validate s | import s | edges/s"
        " | server RSS MB | MB per 1M edges | load before/after |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for rep in reports:
        out.append(
            f"| {rep.spec.label} | {rep.edges} | {rep.nodes} | {rep.alerts_timed} | {rep.generate_s:.1f}"
            f" | {rep.parse_s:.1f} | {rep.import_s:.2f} | {rep.edges_per_s:,.0f} | {_rss(rep)} | {_rss_per_m(rep)}"
            f" | {rep.load[0]:.1f} / {rep.load[1]:.1f} |"
        )
    out += [
        "",
        "`import s` is `import_document` with `--replace` (a new staging graph filled by `GRAPH.BULK`, the id",
        "indexes built and waited for, `RENAME`); reading and validating the JSON document is `parse+validate s`.",
        "RSS is the embedded redis-server process after the import.",
        "`load` is the machine's 1-minute load average when the size started and ended: other work may share the",
        "two cores, and a load above 2 means the figures above include waiting for a core.",
        "",
        "## Targets (from the issue)",
        "",
        *_targets(reports),
        "",
        *render_extras(extras or {}),
    ]
    disagreements = [
        f"- {rep.spec.label} `{tool}`: {note}"
        for rep in reports
        for tool, t in rep.tools.items()
        for note in t.disagreements
    ]
    if disagreements:
        out += ["## Disagreements", "", *disagreements, ""]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help=f"comma-separated sizes (default {DEFAULT_SIZES})")
    parser.add_argument("--alerts", type=int, default=40, help="alert start points per size (at least 30)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per start point and side; the fastest is kept")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"), help="Markdown report ('-' for none)")
    parser.add_argument("--skip-app", action="store_true", help="skip the containment-loop and dashboard-page timings")
    args = parser.parse_args(argv)
    sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    if args.alerts < 30:
        parser.error("--alerts must be at least 30")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    reports = []
    for spec in sizes:
        with tempfile.TemporaryDirectory(prefix="blastshield-bench-") as data_dir:
            store = Store(load_settings(environ={}, data_dir=Path(data_dir), graph="bench"))
            try:
                reports.append(bench_size(store, spec, alerts=args.alerts, repeat=args.repeat, seed=args.seed))
            finally:
                store.close()
        print(render_table(reports[-1:]), flush=True)
    extras: dict[str, Any] = {}
    if not args.skip_app:
        from bench.containment import measure_containment
        from bench.dashboard import measure_pages

        extras["containment"] = measure_containment()
        extras["pages"] = measure_pages()
    print()
    print(render_table(reports))
    if extras:
        print("\n".join(render_extras(extras)))
    if args.out != "-":
        command = "python -m bench.run" + (f" --sizes {args.sizes}" if args.sizes != DEFAULT_SIZES else "")
        from bench.aws import carry_section

        previous = Path(args.out).read_text(encoding="utf-8") if Path(args.out).exists() else ""
        Path(args.out).write_text(render_markdown(reports, command, args.repeat, extras), encoding="utf-8")
        carry_section(Path(args.out), previous)  # the AWS import figures come from `python -m bench.aws`
        from bench.cli import carry_section as carry_cli_section

        carry_cli_section(Path(args.out), previous)  # command line and MCP figures come from `python -m bench.cli`
        carry_cli_section(Path(args.out), previous, "## Alert queue")  # from `python -m bench.queue`
        carry_cli_section(Path(args.out), previous, "## Small writes")  # from `python -m bench.resync`
        carry_cli_section(Path(args.out), previous, "## Briefing checker")  # tests/data/briefing_families/
        carry_cli_section(Path(args.out), previous, "## Command line clients")  # from `python -m bench.clients`
        print(f"\nwrote {args.out}")
    ok = all(rep.all_agree for rep in reports)
    if not ok:
        print("CHECK FAILED: FalkorDB and networkx answers differ", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
