"""The Alerts page benchmark at a tiny size: one alert per entity, this checkout timed against
another checkout of itself, alternating, and the section written with both sides."""

from __future__ import annotations

from collections import Counter

from bench.queue import ROOT, SECTION, _document, measure_queue, render_section


def test_distinct_mode_puts_each_alert_on_its_own_identity_workload_or_role():
    """`--distinct`: as many alerts as asked, no two on one entity, every entity an identity,
    workload or role of the graph, the generated alerts' entities among them."""
    doc = _document(3_000, 400, distinct=True)
    labels = {node.id: str(node.label) for node in doc.nodes}
    entities = [alert.entity_id for alert in doc.alerts]
    assert len(entities) == len(set(entities)) == 400
    assert set(Counter(labels[e] for e in entities)) == {"Identity", "Workload", "IAMRole"}
    copied = _document(3_000, 400)
    assert {a.entity_id for a in copied.alerts if a.id.startswith("GEN-0")} <= set(entities)


def test_tiny_graph_against_a_baseline_is_measured_and_rendered():
    """Both sides are timed on the same graph, round by round, and the section shows each side's
    rounds and the ratio of the medians."""
    figures = measure_queue("10k", 300, repeat=1, log=lambda _: None, distinct=True, baseline=ROOT, rounds=2)
    assert (figures["alerts"], figures["entities"]) == (300, 300)
    before, after = figures["compared"]["before"], figures["compared"]["after"]
    assert len(before["firsts"]) == len(after["firsts"]) == 2
    assert figures["first_ms"] == after["first_ms"] > 0 and before["first_ms"] > 0
    text = "\n".join(render_section(figures, "python -m bench.queue --size 10k --alerts 300 --distinct"))
    assert text.startswith(SECTION)
    assert "| 300, one alert per entity |" in text
    assert f"After/before, first run: **{after['first_ms'] / before['first_ms']:.2f}**." in text
