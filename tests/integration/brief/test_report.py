"""Incident reports for a run and for an alert, as Markdown and as validated JSON."""

from __future__ import annotations

import pytest

from blastshield_core.brief.checker import EvidenceUnavailable
from blastshield_core.brief.report import IncidentReport, render_markdown
from blastshield_core.respond.decide import RulesDecider
from blastshield_core.results import Status
from tests.helpers.gemini_fake import json_text

C4001 = "BH-CONTAINMENT-4001"


@pytest.fixture
def no_key(services):
    """Services without a Gemini key: briefings are the labelled fallback."""
    services.settings = services.settings.model_copy(update={"gemini_api_key": None})
    return services


@pytest.fixture
def completed_report(no_key) -> IncidentReport:
    """The report of a completed rules run on BH-CONTAINMENT-4001."""
    run = no_key.controller.run(C4001, RulesDecider(), 3, True)
    return no_key.reporter.report(run.run_id)


def test_run_report_json_round_trips_through_the_model(completed_report):
    """The JSON of a run report validates back into the same IncidentReport."""
    again = IncidentReport.model_validate_json(completed_report.model_dump_json())
    assert again == completed_report and again.kind == "run" and again.verdict == "completed"


def test_run_report_has_evidence_before_and_after(completed_report):
    """Before: the run's two starting paths; after: none."""
    ev = completed_report.run_evidence
    assert (ev.paths_before, ev.paths_after, ev.status_after) == (2, 0, "no_path")
    assert {p[1] for p in ev.paths_before_detail} == {"sess-c11-vpn", "sess-c11-sso"}
    assert ev.paths_after_detail == []


def test_run_report_has_verified_actions_and_full_trace(completed_report):
    """Both actions are there with verification, and the trace holds every step's tool calls."""
    assert [(a.route_id, a.verified) for a in completed_report.actions] == [
        ("route-c11-primary", True),
        ("route-c11-alternate", True),
    ]
    tools = [t.tool for t in completed_report.trace]
    assert tools.count("get_response_candidates") >= 4 and "investigate_alert" in tools
    assert len(completed_report.trace) == sum(len(s.trace) for s in completed_report.steps)


def test_run_report_markdown_carries_the_same_facts(completed_report):
    """The Markdown names the verdict, evidence before/after, actions, briefing label and trace."""
    md = render_markdown(completed_report)
    assert "# Incident report: run `" in md and "verdict: **completed**" in md
    assert "## Evidence before the run" in md and "`sess-c11-vpn`" in md
    assert "## Evidence after the run" in md and "- none: no qualifying path" in md
    assert "`block-route:route-c11-alternate` (route `route-c11-alternate`): applied, verified **True**" in md
    assert "## Briefing (fallback: no GEMINI_API_KEY)" in md and "**Contained.**" in md
    assert "| get_response_candidates | alert_id=BH-CONTAINMENT-4001 | ok |" in md


def test_alert_report_has_evidence_routes_candidates_and_briefing(no_key):
    """An alert report carries the current paths, blast radius, routes, candidates, briefing and trace."""
    report = no_key.reporter.report(C4001)
    assert report.kind == "alert" and report.run_id is None
    assert report.evidence.path_count == 2 and report.evidence.blast_by_label["DataAsset"] == 3
    assert {r.route_id for r in report.evidence.routes} >= {"route-c11-primary", "route-c11-alternate"}
    assert [c.route_id for c in report.candidates.candidates] == ["route-c11-primary", "route-c11-alternate"]
    assert report.briefing.label == "fallback"
    assert {t.tool for t in report.trace} >= {"investigate_alert", "get_blast_radius", "get_response_candidates"}
    md = render_markdown(report)
    assert "## Response candidates" in md and "`block-route:route-c11-primary`: cuts 1, 1 would remain" in md
    assert "### Blast radius" in md and "**Not contained.**" in md and "## Tool trace" in md


def test_report_lists_model_flags_when_the_model_was_refused(services, gemini):
    """When the model's briefing failed the check, the report shows the fallback and the flags."""
    gemini.add(json_text({"risk_score": 99, "prose": "contractor_11 is contained."}))
    report = services.reporter.report(C4001)
    assert report.briefing.label == "fallback" and report.briefing.reason.startswith("failed check")
    md = render_markdown(report)
    assert "### Checker flags on the model's briefing" in md
    assert "**wrong_score**" in md and "**false_containment**" in md


def test_unknown_run_report_is_refused(no_key):
    """A run id that is not in the audit raises EvidenceUnavailable."""
    with pytest.raises(EvidenceUnavailable) as info:
        no_key.reporter.report("run-20200101T000000-abcdef")
    assert info.value.status is Status.UNKNOWN_ALERT
