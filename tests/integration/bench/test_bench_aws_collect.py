"""bench.aws_collect at a unit size: moto in a process of its own, the bare calls and the collector
on the same server, every user listed (the manifest checked each round), the report's figures."""

from __future__ import annotations

from bench import aws_collect


def test_a_tiny_account_is_collected_whole_and_timed_against_the_bare_calls():
    row = aws_collect.measure(users=12, roles=3, repeat=1, pool=4)
    assert row["users"] == 12 and row["pool"] == 4
    assert len(row["bare"]) == len(row["collect"]) == 1 and row["bare_median"] > 0 and row["collect_median"] > 0
    assert row["ratio"] == row["collect_median"] / row["bare_median"]
    lines = aws_collect.render(row, "python -m bench.aws_collect --users 12 --roles 3 --repeat 1")
    assert lines[0] == "## AWS collection" and any("Ratio of the medians" in line for line in lines)
