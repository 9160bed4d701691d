"""The dashboard through Streamlit's AppTest, on the embedded default: what is shown and what is drawn."""

from __future__ import annotations

import json
import re

import pytest
import streamlit as st
from streamlit.runtime import Runtime
from streamlit.testing.v1 import AppTest

from blastshield_core.base.safetext import WORD_JOINER
from tests.helpers.dashboard_token import RUN_BOUND_S, with_token
from tests.helpers.paths import ROOT


def _close_cached_services() -> None:
    from pages import _services

    try:
        _services.services().close()
    except Exception:  # the services could not be opened in this test
        pass
    st.cache_resource.clear()


@pytest.fixture
def app(tmp_path, monkeypatch):
    for var in ("FALKORDB_URL", "BLASTSHIELD_GRAPH", "BLASTSHIELD_AUDIT_GRAPH", "GEMINI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("BLASTSHIELD_DATA_DIR", str(tmp_path / "data"))
    st.cache_resource.clear()
    at = with_token(AppTest.from_file(str(ROOT / "app.py"), default_timeout=RUN_BOUND_S))
    yield at
    _close_cached_services()


def plain(markdown: str) -> str:
    """The text a Markdown source shows: data in messages is backslash-escaped (safetext.md_text)."""
    return re.sub(r"\\(.)", r"\1", markdown).replace(WORD_JOINER, "")


def drawn(at) -> list[dict]:
    """The nodes and edges of every agraph drawing on the page."""
    graphs = []
    for element in at.get("component_instance"):
        args = json.loads(element.proto.json_args)
        if "data" in args:
            graphs.append(json.loads(args["data"]))
    return graphs


def table(at, *columns: str):
    """The first dataframe on the page having all these columns (AppTest does not keep dataframe keys)."""
    for frame in at.dataframe:
        if set(columns) <= set(frame.value.columns):
            return frame.value
    raise AssertionError(f"no table with columns {columns}")


def edges_by_state(graph: dict, state: str) -> set[tuple[str, str, str]]:
    return {(e["from"], e["rel_type"], e["to"]) for e in graph["edges"] if e["state"] == state}


def open_page(at, page: str):
    at.run()
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def run_containment(at, alert: str, decider: str = "rules", cap: int = 3):
    open_page(at, "pages/containment.py")
    at.selectbox(key="contain_alert").set_value(alert).run()
    at.radio(key="contain_decider").set_value(decider).run()
    at.number_input(key="contain_cap").set_value(cap).run()
    at.checkbox(key="contain_confirm").check().run()
    at.button(key="contain_start").click().run()
    assert not at.exception, at.exception
    return at


def test_alert_queue_seeds_and_lists_the_scenarios(app):
    """The first screen seeds the embedded graph and lists the four alerts with computed scores."""
    app.run()
    assert not app.exception
    rows = {
        r["alert"]: (r["score"], r["severity"], r["qualifying paths"])
        for r in table(app, "alert", "score").to_dict("records")
    }
    assert rows == {
        "BH-1042": (35, "■■□□ medium", 1),
        "BH-CONTAINMENT-4001": (60, "■■■□ high", 2),
        "BH-IAM-2001": (65, "■■■□ high", 3),
        "BH-WORKLOAD-3001": (75, "■■■□ high", 3),
    }
    assert "What you are looking at" in app.markdown[0].value


def test_chosen_alert_carries_to_the_other_pages(app):
    """Choosing an alert on the queue selects it on the graph and containment pages."""
    app.run()
    app.selectbox(key="alerts_select").set_value("BH-1042").run()
    app.switch_page("pages/graph.py").run()
    assert app.selectbox(key="graph_alert").value == "BH-1042"
    app.switch_page("pages/containment.py").run()
    assert app.selectbox(key="contain_alert").value == "BH-1042"


@pytest.mark.parametrize("page", ["pages/alerts.py", "pages/graph.py", "pages/containment.py", "pages/audit.py"])
def test_every_page_renders(app, page):
    """Each page renders without an exception on the seed graph."""
    open_page(app, page)
    assert app.title[0].value


def test_depth_slider_shows_bh1042_lesson(app):
    """BH-1042 has no path at depth 4 (nothing drawn as a path) and its chain at depth 5."""
    open_page(app, "pages/graph.py")
    app.selectbox(key="graph_alert").set_value("BH-1042").run()
    app.slider(key="graph_depth").set_value(4).run()
    assert any("No qualifying path within 4 hops" in i.value for i in app.info)
    assert edges_by_state(drawn(app)[0], "path") == set()
    app.slider(key="graph_depth").set_value(5).run()
    assert edges_by_state(drawn(app)[0], "path") == {
        ("developer_07", "HAS_SESSION", "sess-dev07"),
        ("sess-dev07", "CAN_ACCESS", "build-runner-07"),
        ("build-runner-07", "RUNS_AS", "deploy-role"),
        ("deploy-role", "CAN_ASSUME", "prod-admin-role"),
        ("prod-admin-role", "CAN_READ", "customer-db"),
    }


def test_blocked_and_denied_edges_are_drawn_differently(app):
    """The blocked legacy session and the denied billing grant are drawn with their own states."""
    open_page(app, "pages/graph.py")
    app.selectbox(key="graph_alert").set_value("BH-1042").run()
    graph = drawn(app)[0]
    assert ("developer_07", "HAS_SESSION", "sess-dev07-legacy") in edges_by_state(graph, "blocked")
    assert ("prod-admin-role", "CAN_READ", "billing-db") in edges_by_state(graph, "denied")
    critical = [n for n in graph["nodes"] if n["id"] == "customer-db"][0]
    assert critical["label"].startswith("★")


def test_explorer_shows_the_audit_fixture_depth_lesson(app):
    """auditor_02 → staging-report: no path at max hops 4, a path at 5."""
    open_page(app, "pages/graph.py")
    app.text_input(key="graph_source").set_value("auditor_02").run()
    app.text_input(key="graph_target").set_value("staging-report").run()
    app.slider(key="graph_hops").set_value(4).run()
    assert any("No qualifying path within 4 hops" in i.value for i in app.info)
    app.slider(key="graph_hops").set_value(5).run()
    assert any("1 shortest path(s) of 5 hops" in plain(w.value) for w in app.warning)
    explorer = drawn(app)[-1]
    assert {n["id"] for n in explorer["nodes"]} >= {"auditor_02", "staging-role", "staging-report"}


@pytest.mark.parametrize(
    ("source", "message"),
    [("x') DETACH DELETE n //", "Invalid input"), ("nobody_here", "Unknown (unknown_source)")],
)
def test_explorer_input_is_validated_not_raised(app, source, message):
    """A hostile or unknown id in the explorer is a clear message, not a traceback."""
    open_page(app, "pages/graph.py")
    app.text_input(key="graph_target").set_value("staging-report")
    app.text_input(key="graph_source").set_value(source).run()
    assert not app.exception
    assert any(message in e.value for e in [*app.error, *app.warning])


def test_rules_run_completes_and_the_graph_shows_no_active_path(app):
    """Rules on BH-CONTAINMENT-4001: two verified actions, completed; the graph page then draws no path."""
    run_containment(app, "BH-CONTAINMENT-4001")
    assert any("CONTAINED — completed" in s.value for s in app.success)
    actions = table(app, "route_id", "verified").to_dict("records")
    assert [(a["route_id"], a["verified"]) for a in actions] == [
        ("route-c11-primary", True),
        ("route-c11-alternate", True),
    ]
    before, after = drawn(app)[:2]
    assert len(edges_by_state(before, "path")) == 9
    assert edges_by_state(after, "path") == set()
    assert {("contractor_11", "HAS_SESSION", "sess-c11-vpn"), ("contractor_11", "HAS_SESSION", "sess-c11-sso")} <= (
        edges_by_state(after, "blocked")
    )
    app.switch_page("pages/graph.py").run()
    app.selectbox(key="graph_alert").set_value("BH-CONTAINMENT-4001").run()
    assert edges_by_state(drawn(app)[0], "path") == set()
    assert any("No qualifying path" in i.value for i in app.info)


def test_containment_shows_the_labelled_fallback_briefing(app):
    """Without a model the run's briefing is the deterministic fallback, labelled with its reason."""
    run_containment(app, "BH-CONTAINMENT-4001")
    assert any("Deterministic fallback briefing" in w.value and "GEMINI_API_KEY" in plain(w.value) for w in app.warning)
    assert any("**Contained.**" in m.value and "route-c11-alternate" in m.value for m in app.markdown)


def test_audit_page_offers_the_incident_report(app):
    """The audit page offers Markdown and JSON incident reports of the run."""
    run_containment(app, "BH-CONTAINMENT-4001")
    app.switch_page("pages/audit.py").run()
    assert not app.exception
    labels = [b.label for b in app.get("download_button")]
    assert labels == ["Download incident report (Markdown)", "Download incident report (JSON)"]


def test_cap_one_stops_with_the_alternate_path_shown(app):
    """With a cap of 1 the run stops and the alternate path is still drawn as a path."""
    run_containment(app, "BH-CONTAINMENT-4001", cap=1)
    assert any("NOT CONTAINED — stopped" in w.value for w in app.warning)
    after = drawn(app)[1]
    assert edges_by_state(after, "path") == {
        ("contractor_11", "HAS_SESSION", "sess-c11-sso"),
        ("sess-c11-sso", "CAN_ACCESS", "admin-console"),
        ("admin-console", "RUNS_AS", "console-role"),
        ("console-role", "CAN_ASSUME", "payments-reader"),
        ("payments-reader", "CAN_READ", "payments-vault"),
    }


def test_gemini_without_key_is_shown_unavailable_and_cannot_start(app):
    """Without a key, Gemini is labelled unavailable and the run button stays disabled."""
    open_page(app, "pages/containment.py")
    app.radio(key="contain_decider").set_value("gemini").run()
    app.checkbox(key="contain_confirm").check().run()
    assert any("unavailable" in w.value for w in app.warning)
    assert app.button(key="contain_start").disabled


def test_run_needs_confirmation(app):
    """The start button is disabled until the confirmation is ticked."""
    open_page(app, "pages/containment.py")
    assert app.button(key="contain_start").disabled
    app.checkbox(key="contain_confirm").check().run()
    assert not app.button(key="contain_start").disabled


def test_analyst_picks_each_action(app):
    """The analyst starts a run and picks both routes; the run completes."""
    run_containment(app, "BH-CONTAINMENT-4001", decider="analyst")
    app.button(key="contain_pick_0").click().run()
    app.button(key="contain_pick_0").click().run()
    assert not app.exception
    assert any("CONTAINED — completed" in s.value for s in app.success)


def test_audit_page_lists_the_run_with_steps_and_trace(app):
    """After a run the audit page shows it with its steps and tool trace."""
    run_containment(app, "BH-CONTAINMENT-4001")
    app.switch_page("pages/audit.py").run()
    assert not app.exception
    assert table(app, "run", "state").to_dict("records")[0]["state"] == "completed"
    steps = table(app, "#", "step", "summary")["step"].tolist()
    assert steps[0] == "start" and steps[-1] == "verdict"
    assert "investigate_alert" in table(app, "tool", "status")["tool"].tolist()


def test_unreachable_database_is_a_message_not_a_traceback(tmp_path, monkeypatch):
    """Against an unreachable FALKORDB_URL every page shows an error, no exception."""
    monkeypatch.setenv("FALKORDB_URL", "redis://127.0.0.1:1")
    monkeypatch.setenv("BLASTSHIELD_DATA_DIR", str(tmp_path / "data"))
    st.cache_resource.clear()
    at = with_token(AppTest.from_file(str(ROOT / "app.py"), default_timeout=RUN_BOUND_S)).run()
    try:
        assert not at.exception
        assert any("unavailable" in e.value for e in at.error)
        at.switch_page("pages/containment.py").run()
        assert not at.exception and any("unavailable" in e.value for e in at.error)
    finally:
        st.cache_resource.clear()


class _SharedRuntime(type):
    """AppTest keeps its runtime in a class attribute, set before a run and cleared after it: with two
    sessions running at once, one clearing it while the other's script still runs fails that script.
    Seen through this, the runtime is set by every run and cleared by none (the test clears it)."""

    def __setattr__(cls, name, value):
        if not (name == "_instance" and value is None):
            setattr(Runtime, name, value)


def test_two_dashboard_sessions_contain_the_same_alert_at_once(app, tmp_path, monkeypatch):
    """Two sessions start runs on one alert at the same moment: each route is blocked exactly once."""
    import threading

    from streamlit.testing.v1 import app_test

    from pages import _services

    monkeypatch.setattr(app_test, "Runtime", _SharedRuntime("Runtime", (Runtime,), {}))
    monkeypatch.setattr(Runtime, "_instance", None)  # cleared again once the test ends

    app.run()  # opens and seeds the shared services
    second = with_token(AppTest.from_file(str(ROOT / "app.py"), default_timeout=RUN_BOUND_S))
    second.run()
    sessions = [app, second]
    for at in sessions:
        at.switch_page("pages/containment.py").run()
        at.selectbox(key="contain_alert").set_value("BH-CONTAINMENT-4001").run()
        at.checkbox(key="contain_confirm").check().run()
    barrier = threading.Barrier(2)
    errors = []

    def click(at):
        try:
            barrier.wait()
            at.button(key="contain_start").click().run()
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=click, args=(at,)) for at in sessions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and not app.exception and not second.exception
    svc = _services.services()
    runs = svc.audit.list_runs()
    assert len(runs) == 2
    applied = [a for r in runs for a in r.actions if a.status == "applied"]
    assert sorted(a.route_id for a in applied) == ["route-c11-alternate", "route-c11-primary"]
    rows = svc.store.read("routes_by_ids", {"route_ids": ["route-c11-primary", "route-c11-alternate"]})
    owners = {r["route_id"]: r["props"]["blocked_by_run"] for r in rows}
    for action in applied:
        run = next(r for r in runs if action in r.actions)
        assert owners[action.route_id] == run.run_id
    assert svc.tools.investigate_alert("BH-CONTAINMENT-4001").status.value == "no_path"
    for run in runs:
        full = svc.audit.get(run.run_id)
        assert full.steps[-1].kind == "verdict"
        assert full.state.value in ("completed", "stopped")
        assert full.state.value != "completed" or full.remaining_paths == 0


def test_what_if_draws_the_trial_block_and_writes_nothing(app):
    """Trying route-c11-primary on the graph page leaves one path, draws the route as a what-if, writes nothing."""
    open_page(app, "pages/graph.py")
    app.selectbox(key="graph_alert").set_value("BH-CONTAINMENT-4001").run()
    app.multiselect(key="graph_whatif").set_value(["route-c11-primary"]).run()
    assert not app.exception
    assert any("**1** of 2 qualifying path(s) would remain" in m.value for m in app.markdown)
    trial = drawn(app)[1]
    assert ("contractor_11", "HAS_SESSION", "sess-c11-vpn") in edges_by_state(trial, "what-if")
    app.switch_page("pages/alerts.py").run()
    assert table(app, "alert", "score").set_index("alert").loc["BH-CONTAINMENT-4001", "qualifying paths"] == 2


def test_choke_points_on_the_graph_page(app):
    """BH-CONTAINMENT-4001's minimum cut is its two session routes; BH-IAM-2001 cannot be cut by routes."""
    open_page(app, "pages/graph.py")
    app.selectbox(key="graph_alert").set_value("BH-CONTAINMENT-4001").run()
    chokes = table(app, "relationship", "route", "cuts paths")
    assert set(chokes["route"]) == {"route-c11-primary", "route-c11-alternate"}
    app.selectbox(key="graph_alert").set_value("BH-IAM-2001").run()
    app.toggle(key="graph_routes_only").set_value(True).run()
    assert any("Not severable with session routes alone" in w.value for w in app.warning)


def test_candidates_show_their_collateral(app):
    """Every candidate on the containment page carries its collateral."""
    open_page(app, "pages/containment.py")
    app.selectbox(key="contain_alert").set_value("BH-CONTAINMENT-4001").run()
    cands = table(app, "candidate", "collateral (others who lose access)")
    assert len(cands) == 2 and all(isinstance(v, str) and v for v in cands["collateral (others who lose access)"])


def test_multi_alert_view_on_the_queue(app):
    """Choosing two alerts shows their combined view with the shared choke points."""
    app.run()
    app.multiselect(key="alerts_multi").set_value(["BH-1042", "BH-CONTAINMENT-4001"]).run()
    assert not app.exception
    chokes = table(app, "choke point", "route", "cuts paths")
    assert set(chokes["route"]) == {"route-dev07-a", "route-c11-primary", "route-c11-alternate"}
    assert app.get("download_button")[0].label.startswith("Export the current graph")


def test_audit_page_releases_a_route_with_confirmation_and_shows_it_on_the_run(app):
    """On the Audit page a blocked route is released only after reason and confirmation; the run then shows it."""
    run_containment(app, "BH-CONTAINMENT-4001")
    app.switch_page("pages/audit.py").run()
    assert table(app, "run", "state", "actor").to_dict("records")[0]["actor"]
    app.selectbox(key="audit_release_route").set_value("route-c11-primary").run()
    app.text_input(key="audit_release_reason").input("false positive").run()
    assert app.button(key="audit_release").disabled
    app.checkbox(key="audit_release_confirm").check().run()
    app.button(key="audit_release").click().run()
    assert not app.exception, app.exception
    assert any(
        "Released **route-c11-primary**" in plain(s.value) and "BH-CONTAINMENT-4001" in plain(s.value)
        for s in app.success
    )
    assert any("Released later:" in i.value and "false positive" in i.value for i in app.info)
    assert app.selectbox(key="audit_release_route").options == ["route-c11-alternate"]


def test_analyst_run_is_abandoned_when_its_dashboard_session_ends(app):
    """A waiting analyst run ends `abandoned` when its session's state goes away; the Audit page shows it."""
    import gc

    from pages import _services

    run_containment(app, "BH-CONTAINMENT-4001", decider="analyst")
    run_id = app.session_state["contain_session"].run.run_id
    del app.session_state["contain_waiting_guard"]  # what the session's end does to its state
    gc.collect()
    assert _services.services().audit.get(run_id).state.value == "abandoned"
    app.session_state["contain_session"] = None
    app.switch_page("pages/audit.py").run()
    assert not app.exception, app.exception
    assert table(app, "run", "state").set_index("run").loc[run_id, "state"] == "abandoned"
    assert any("ABANDONED" in w.value for w in app.warning)
