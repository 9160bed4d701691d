"""The benchmark at its CI size: FalkorDB and networkx give the same answers."""

from __future__ import annotations

from bench.run import _timed, bench_size, parse_size, render_markdown, render_table


def test_bench_10k_answers_agree(store):
    """At 10k relationships every tool agrees with networkx on every alert start point."""
    report = bench_size(store, parse_size("10k"), alerts=30, log=lambda _: None)
    print(render_table([report]))
    assert report.alerts_timed == 30 and report.edges == 10_000
    for tool, times in report.tools.items():
        assert (tool, times.agree, times.failed, times.disagreements) == (tool, 30, 0, [])


def test_timed_sides_take_turns_and_keep_their_fastest_run(monkeypatch):
    """The two sides of a comparison run in turns (a burst of other work falls on both alike);
    each side's answer is its last and its figure the fastest of its runs."""
    calls: list[str] = []
    clock = iter([0.0, 0.004, 0.0, 0.001, 0.0, 0.002, 0.0, 0.003, 0.0, 0.003, 0.0, 0.005])

    def side(name: str):
        def run() -> str:
            calls.append(name)
            return f"{name}{len(calls)}"

        return run

    import bench.run as run_module

    monkeypatch.setattr(run_module.time, "perf_counter", lambda: next(clock))
    value, best, ref_value, ref_best = _timed(side("db"), side("nx"), 3)
    assert calls == ["db", "nx"] * 3
    assert (value, ref_value) == ("db5", "nx6")
    assert (round(best, 6), round(ref_best, 6)) == (2.0, 1.0)


def test_bench_dense_answers_agree_with_truncation(store):
    """On a small dense graph answers agree, truncated ones included."""
    report = bench_size(store, parse_size("dense-5k"), alerts=30, log=lambda _: None)
    assert report.all_agree
    assert report.tools["investigate_alert"].truncated > 0


def test_bench_report_includes_the_loop_and_pages(store):
    """The Markdown report carries the run's own figures for reads, the containment loop and each page."""
    from bench.containment import measure_containment
    from bench.dashboard import PAGES, measure_pages

    report = bench_size(store, parse_size("1000"), alerts=30, log=lambda _: None)
    loop = measure_containment(repeat=3)
    pages = measure_pages(repeat=1)
    assert loop["verified_actions"] == 2 and loop["runs"] == 3
    assert set(pages) == set(PAGES) and all(f["first_ms"] > 0 and f["rerun_ms"] > 0 for f in pages.values())
    text = render_markdown([report], "python -m bench.run", extras={"containment": loop, "pages": pages})
    assert "| 1000 | `investigate_alert` |" in text
    assert "| import ≥ 60k edges/s at 1000 |" in text  # targets are judged from the run's own figures
    assert f"| {loop['runs']} | {loop['p50_ms']:.1f} |" in text
    assert "| `pages/containment.py` |" in text
    assert "not measured" not in text
