"""A run's incident report gives the alert's score and severity when the run started and after it, each labelled."""

from __future__ import annotations

from blastshield_core.brief.report import render_markdown
from blastshield_core.respond.decide import RulesDecider

C4001 = "BH-CONTAINMENT-4001"


def test_a_contained_runs_report_gives_the_score_at_the_start_and_after(services):
    services.settings = services.settings.model_copy(update={"gemini_api_key": None})
    start = services.tools.investigate_alert(C4001).alert
    run = services.controller.run(C4001, RulesDecider(), 3, True)
    after = services.tools.investigate_alert(C4001).alert
    assert run.state.value == "completed" and after.risk_score < start.risk_score  # containment lowered it
    report = services.reporter.report(run.run_id)
    ev = report.run_evidence
    assert (ev.score_before, ev.severity_before, ev.rule_set_before) == (
        start.risk_score,
        start.severity,
        start.rule_set,
    )
    assert (report.evidence.risk_score, report.evidence.severity) == (after.risk_score, after.severity)
    text = render_markdown(report)
    assert f"- when the run started: score {start.risk_score}/100, severity {start.severity} ({start.rule_set})" in text
    assert f"- after the run, computed now: score {after.risk_score}/100, severity {after.severity}" in text
    alert_text = render_markdown(services.reporter.report(C4001))
    assert "when the run started" not in alert_text and f"- computed now: score {after.risk_score}/100" in alert_text
