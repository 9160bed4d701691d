"""The small-writes benchmark at a tiny size: every figure measured and checked, the section written."""

from __future__ import annotations

from bench.resync import SECTION, measure_resync, render_section


def test_tiny_graph_is_measured_and_rendered():
    """Each write is checked inside the benchmark (it raises otherwise: the AWS re-sync alternates
    the key's route between blocked and active, so two runs check both); the section shows every figure."""
    figures = measure_resync(5000, repeat=2, log=lambda _: None, aws_users=40)
    assert figures["relationships"] >= 4500 and figures["slice_relationships"] > 1
    names = ("slice_resync_ms", "slice_copy_ms", "alert_open_ms", "alert_open_cold_ms", "alerts_ms", "python_ms")
    for name in (
        *names,
        "aws_resync_ms",
        "open_alert_ms",
        "aws_import_ms",
        "aws_reimport_ms",
        "release_ms",
        "block_ms",
    ):
        assert figures[name] > 0, name
    text = "\n".join(render_section(figures, "python -m bench.resync --edges 5000 --repeat 2 --aws-users 40"))
    assert text.startswith(SECTION)
    assert f"| slice re-sync (`replace_slice`, in process) | {figures['slice_resync_ms']:.1f} |" in text
    assert f"account of 40 users, {figures['aws_relationships']:,} relationships" in text
    assert "| release of the blocked route (`release_route`: checks, audit before and after" in text
