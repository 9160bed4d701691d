"""Analysis bounded in time, cached by graph version, and a smaller cap for a viewer."""

from __future__ import annotations

import time
import uuid

import pytest

from blastshield_core import Status, import_document, parse_document
from blastshield_core.base.access import VIEWER_MAX_ALERTS, Access, Role
from blastshield_core.graph.generate import GenerateOptions, generate
from blastshield_core.read.analysis import ANALYSIS_TIME_BUDGET_S, AnalysisTools
from blastshield_core.read.chokepoints import analyse_paths
from blastshield_core.read.tools import ReadTools
from blastshield_core.results import MAX_MULTI_ALERTS


@pytest.fixture(scope="module")
def dense(base_store):
    """A dense generated graph (hubs assuming dozens of roles) and its hub alerts: combining them
    all takes the choke-point search far past any interactive budget."""
    view = base_store.for_graph(f"dense_{uuid.uuid4().hex[:8]}")
    graph = generate(GenerateOptions(edges=20_000, seed=7, dense=True))
    import_document(view, parse_document(graph.to_document()))
    hubs = set(graph.hubs)
    hub_alerts = [a[0] for a in graph.alerts if a[2] in hubs]
    others = [a[0] for a in graph.alerts if a[2] not in hubs]
    yield view, (hub_alerts + others)[:MAX_MULTI_ALERTS]
    view.command("GRAPH.DELETE", view.settings.graph)


def test_the_default_budget_is_the_query_timeout():
    assert ANALYSIS_TIME_BUDGET_S == 10.0


def test_multi_alert_on_a_dense_graph_stops_at_its_time_budget_and_says_why(dense):
    """Twenty dense alerts combined under a 1 s budget: an answer, `truncated`, with the reason,
    soon after the budget rather than minutes later."""
    view, alerts = dense
    analysis = AnalysisTools(ReadTools(view), time_budget_s=1.0)
    started = time.monotonic()
    result = analysis.multi_alert(alerts)
    elapsed = time.monotonic() - started
    assert result.status is Status.OK and result.truncated is True
    assert result.truncated_reason.startswith("time budget of 1 s spent")
    assert f"(truncated: {result.truncated_reason})" in result.message
    assert elapsed < 60  # generous: the budget plus the queries in flight on a loaded machine
    # whatever it did analyse is a real answer: the choke set cuts every path it holds
    cut = {(r.source, r.type, r.target) for r in result.choke_points}
    for path in result.paths:
        assert cut & {(r.source, r.type, r.target) for r in path.relationships} or not result.severable


def test_multi_alert_names_the_alerts_it_did_not_analyse(dense):
    """A budget spent after the first alert: the rest are named, not silently dropped."""
    view, alerts = dense
    result = AnalysisTools(ReadTools(view), time_budget_s=0.0).multi_alert(alerts[:4])
    assert result.status is Status.OK and result.truncated is True
    assert [m.alert_id for m in result.members] == alerts[:1]
    assert result.truncated_reason == (
        f"time budget of 0 s spent after 1 of 4 alerts: {', '.join(alerts[1:4])} not analysed;"
        f" blast radii from {alerts[0]} on not combined"
    )
    assert result.entities == [] and result.qualifying_paths == result.members[0].path_count


def test_choke_point_search_stops_at_its_deadline_with_a_set_that_still_cuts_everything(dense):
    view, alerts = dense
    tools = ReadTools(view)
    paths = [p for alert in alerts[:12] for p in tools.evidence(alert).paths]
    found = analyse_paths(paths, deadline=time.monotonic())
    assert found.exact is False and found.stopped == "time budget spent after 0 search node(s)"
    chosen = {(r.source, r.type, r.target) for r in found.relationships}
    assert all(chosen & {(r.source, r.type, r.target) for r in p.relationships} for p in paths)


def test_choke_points_what_if_and_collateral_report_a_spent_budget(dense):
    view, alerts = dense
    tools = ReadTools(view)
    analysis = AnalysisTools(tools, time_budget_s=0.0)
    chokes = analysis.choke_points(alerts[0])
    assert chokes.status is Status.PATHS_FOUND and chokes.exact is False and chokes.truncated is True
    assert chokes.truncated_reason == "time budget of 0 s spent after 0 search node(s)"
    carried = (r.properties.get("route_id") for a in alerts for p in tools.evidence(a).paths for r in p.relationships)
    route = next(r for r in carried if r)
    what_if = analysis.what_if(alerts[0], [route])
    assert what_if.status is Status.QUERY_FAILED and "time budget of 0 s spent" in what_if.message
    collateral = analysis.collateral(route)
    assert collateral.status is Status.OK and collateral.truncated is True
    assert collateral.truncated_reason.startswith("time budget of 0 s spent after 0 of ")
    assert collateral.identities == []


def test_a_viewer_combines_fewer_alerts_and_a_refusal_computes_nothing(dense):
    view, alerts = dense
    viewer = Access(user="v@example.org", role=Role.VIEWER, signed_in=True)
    responder = Access(user="r@example.org", role=Role.RESPONDER, signed_in=True)
    assert viewer.alerts_combined_cap == VIEWER_MAX_ALERTS < MAX_MULTI_ALERTS
    assert responder.alerts_combined_cap is None
    analysis = AnalysisTools(ReadTools(view))
    refused = analysis.multi_alert(alerts[: VIEWER_MAX_ALERTS + 1], max_alerts=viewer.alerts_combined_cap)
    assert refused.status is Status.INVALID_INPUT and f"at most {VIEWER_MAX_ALERTS} alerts" in refused.message
    assert analysis.computed == 0 and refused.members == []
    beyond = analysis.multi_alert([*alerts, "BH-EXTRA-1"])
    assert beyond.status is Status.INVALID_INPUT and analysis.computed == 0


def test_the_same_view_at_the_same_version_is_answered_from_the_cache_and_recomputed_after_a_write(services):
    analysis = services.analysis
    first = analysis.choke_points("BH-CONTAINMENT-4001", True)
    again = analysis.choke_points("BH-CONTAINMENT-4001", True)
    multi = analysis.multi_alert(["BH-1042", "BH-CONTAINMENT-4001"])
    assert again is first and analysis.multi_alert(["BH-1042", "BH-CONTAINMENT-4001"]) is multi
    assert analysis.computed == 2 and first.status is Status.PATHS_FOUND
    route = first.relationships[0].route_id
    assert services.actions.block_route("BH-CONTAINMENT-4001", route, "run-test").status == "applied"
    after = analysis.choke_points("BH-CONTAINMENT-4001", True)
    assert after is not first and analysis.computed == 3
    assert after.qualifying_paths < first.qualifying_paths or after.status is Status.NO_PATH
    assert route not in {r.route_id for r in after.relationships}
