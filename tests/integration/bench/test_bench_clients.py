"""The command line clients' benchmark at a tiny size: every process runs and is checked, the section is written."""

from __future__ import annotations

from bench.clients import ROOT, SECTION, measure_clients, render_section


def test_tiny_graph_is_measured_checked_and_rendered():
    """`alert open` (this checkout and, as `--before`, the same one) reads back each alert it opened,
    the read command answers the same with either client, beside a running server and cold, leaving no
    server running (checked inside), and each figure is shown."""
    figures = measure_clients(2000, repeat=1, log=lambda _: None, before=ROOT)
    assert figures["relationships"] >= 1800
    for name in ("alert_open", "alert_open_before", "read_light", "read_full", "python", "cold_light", "cold_full"):
        assert figures[f"{name}_ms"] > 0 and figures[f"{name}_cpu_ms"] > 0, name
    assert figures["read_saved_ms"] == round(figures["read_full_ms"] - figures["read_light_ms"], 1)
    text = "\n".join(render_section(figures, "python -m bench.clients --edges 2000 --repeat 1"))
    assert text.startswith(SECTION)
    assert f"| `alert open` process, server running | {figures['alert_open_ms']:.1f} |" in text
    assert f"command {figures['cold_saved_ms']:.1f} ms as" in text
    assert f"Beside a running server it saves {figures['read_saved_ms']:.1f} ms of wall time" in text
