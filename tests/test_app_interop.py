"""The dashboard (AppTest): investigating an entity from the Alerts page."""

from __future__ import annotations

from tests.test_app import app, open_page, table

__all__ = ["app"]  # the fixture, shared with tests/test_app.py


def _open_alert(at, entity: str, title: str):
    at.text_input(key="alerts_open_entity").set_value(entity)
    at.text_input(key="alerts_open_title").set_value(title)
    at.button(key="alerts_open_submit").click().run()
    assert not at.exception, at.exception
    return at


def test_investigate_an_entity_opens_and_selects_an_alert(app):
    """Entering an entity and a title opens an alert on it, lists it with a score and selects it."""
    open_page(app, "pages/alerts.py")
    _open_alert(app, "deploy-role", "Deploy role looks odd")
    chosen = app.selectbox(key="alerts_select").value
    assert chosen.startswith("AN-")
    assert any(chosen in s.value for s in app.success)
    rows = {r["alert"]: r for r in table(app, "alert", "entity").to_dict("records")}
    assert rows[chosen]["entity"] == "deploy-role"
    assert rows[chosen]["title"] == "Deploy role looks odd"
    assert rows[chosen]["qualifying paths"] >= 1
    app.switch_page("pages/graph.py").run()
    assert app.selectbox(key="graph_alert").value == chosen


def test_investigate_an_unknown_entity_is_refused(app):
    """An entity that is not in the graph is a warning and no alert is added; a blank title is an error."""
    open_page(app, "pages/alerts.py")
    before = set(table(app, "alert", "entity")["alert"])
    _open_alert(app, "no-such-entity", "Whatever")
    assert any("Unknown entity" in w.value for w in app.warning)
    _open_alert(app, "deploy-role", "   ")
    assert any("Invalid input" in e.value for e in app.error)
    assert set(table(app, "alert", "entity")["alert"]) == before
