"""The AWS import benchmark at a tiny size: phases timed, the report section written and replaced."""

from __future__ import annotations

from bench.aws import FULL_SIZE, measure_aws_import, parse_aws_size, render_aws_section, write_section

TINY = (40, 20, 20, 8)


def test_tiny_account_is_measured_phase_by_phase():
    """Parse, evaluate and load are timed; the evaluator's share and the relationship counts are reported."""
    row = measure_aws_import(TINY, log=lambda _: None)
    assert row["finished"] and row["relationships"] > 0
    assert row["total_s"] == round(row["parse_s"] + row["evaluate_s"] + row["load_s"], 2)
    assert 0 < row["evaluator_share"] <= 1
    text = "\n".join(render_aws_section([row]))
    assert f"| 40x20x20x8 | {row['relationships']:,} |" in text


def test_an_evaluation_past_the_timeout_is_reported_unfinished():
    """An evaluation stopped by the timeout is a row saying so, never a time under the target."""
    row = measure_aws_import(TINY, timeout_s=0.0001, log=lambda _: None)
    assert not row["finished"]
    full = {**row, "users": FULL_SIZE[0], "roles": FULL_SIZE[1], "policies": FULL_SIZE[2], "buckets": FULL_SIZE[3]}
    assert "**no** (unfinished)" in "\n".join(render_aws_section([full]))


def test_section_is_replaced_not_duplicated(tmp_path):
    """Writing the section twice leaves one AWS import section and the other sections intact."""
    report = tmp_path / "BENCHMARKS.md"
    report.write_text("# Benchmarks\n\n## Read tools\n\nx\n\n## Containment loop and dashboard\n\ny\n")
    write_section(report, ["## AWS import", "", "first", ""])
    write_section(report, ["## AWS import", "", "second", ""])
    text = report.read_text()
    assert text.count("## AWS import") == 1 and "second" in text and "first" not in text
    assert "## Read tools" in text and "## Containment loop and dashboard" in text


def test_size_syntax():
    """Sizes are USERSxROLESxPOLICIESxBUCKETS."""
    assert parse_aws_size("20000x5000x10000x5000") == FULL_SIZE


def test_a_full_report_rewrite_keeps_the_aws_section(tmp_path):
    """Rewriting the report (bench.run) carries the AWS import section over unchanged."""
    from bench.aws import carry_section

    report = tmp_path / "BENCHMARKS.md"
    previous = "# Benchmarks\n\n## Read tools\n\nold\n\n## AWS import\n\n| figures |\n"
    report.write_text("# Benchmarks\n\n## Read tools\n\nnew\n")
    carry_section(report, previous)
    text = report.read_text()
    assert "new" in text and "old" not in text and "## AWS import\n\n| figures |" in text
