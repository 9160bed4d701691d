"""The Alerts page (AppTest): finding an entity, investigating it by id, ARN or name (ambiguous names
offer the matches), and "Open alert and select it" selecting the opened alert whatever the queue shows."""

from __future__ import annotations

from blastshield_core.graph.ingest import import_document, parse_document
from tests.app.test_app import app, open_page, plain, table

__all__ = ["app"]  # the fixture, shared with tests/app/test_app.py

A, B = "111122223333", "444455556666"
TWINS = {
    "format": "blastshield-graph/v1",
    "name": "twins",
    "nodes": [
        {"id": f"{a}:user:sam", "label": "Identity", "name": "sam",
         "properties": {"arn": f"arn:aws:iam::{a}:user/sam", "account": a}}
        for a in (A, B)
    ],
}  # fmt: skip


def _open_alert(at, entity: str, title: str):
    at.text_input(key="alerts_open_entity").set_value(entity)
    at.text_input(key="alerts_open_title").set_value(title)
    at.button(key="alerts_open_submit").click().run()
    assert not at.exception, at.exception
    return at


def _queue_ids(at) -> list[str]:
    return list(table(at, "alert", "entity")["alert"])


def test_entity_search_lists_matches_and_fills_the_investigate_form(app):
    open_page(app, "pages/alerts.py")
    app.text_input(key="alerts_entity_query").input("DEPLOY").run()
    assert not app.exception, app.exception
    matches = table(app, "id", "label", "name", "ARN")
    assert matches["id"].iloc[0] == "deploy-role"
    app.selectbox(key="alerts_entity_pick").set_value("deploy-role").run()
    app.button(key="alerts_entity_use").click().run()
    assert app.text_input(key="alerts_open_entity").value == "deploy-role"
    app.text_input(key="alerts_entity_query").input("x\ty").run()
    assert any("Invalid search" in e.value for e in app.error)
    assert not any("pattern" in e.value for e in app.error)


def test_an_arn_opens_on_its_entity_and_an_ambiguous_name_offers_the_matches(app):
    from pages._services import services

    open_page(app, "pages/alerts.py")
    import_document(services().store, parse_document(TWINS))
    before = set(_queue_ids(app))
    _open_alert(app, "sam", "Which sam?")
    assert any("Several entities match" in w.value for w in app.warning)
    assert set(_queue_ids(app)) == before  # nothing written
    choice = app.radio(key="alerts_open_choice")
    assert list(choice.options) == [f"{A}:user:sam — Identity, sam, arn:aws:iam::{A}:user/sam",
                                    f"{B}:user:sam — Identity, sam, arn:aws:iam::{B}:user/sam"]  # fmt: skip
    choice.set_value(f"{B}:user:sam").run()
    app.button(key="alerts_open_chosen").click().run()
    chosen = app.selectbox(key="alerts_select").value
    rows = {r["alert"]: r for r in table(app, "alert", "entity").to_dict("records")}
    assert rows[chosen]["entity"] == f"{B}:user:sam" and rows[chosen]["title"] == "Which sam?"
    _open_alert(app, f"arn:aws:iam::{A}:user/sam", "By ARN")
    chosen = app.selectbox(key="alerts_select").value
    assert {r["alert"]: r for r in table(app, "alert", "entity").to_dict("records")}[chosen]["entity"] == (
        f"{A}:user:sam"
    )


def test_open_alert_and_select_it_selects_it_even_when_the_queue_filter_hides_it(app):
    """With the queue filtered to one other alert, the opened alert is shown and is the one in "Work on alert"."""
    open_page(app, "pages/alerts.py")
    app.text_input(key="alerts_queue_search").input("public-api").run()
    assert _queue_ids(app) == ["BH-WORKLOAD-3001"]
    assert app.selectbox(key="alerts_select").value == "BH-WORKLOAD-3001"
    _open_alert(app, "deploy-role", "Deploy role looks odd")
    chosen = app.selectbox(key="alerts_select").value
    assert chosen.startswith("AN-") and chosen in _queue_ids(app)
    assert any(chosen in plain(s.value) for s in app.success)
    assert any(f"Selected **{chosen}**" in c.value.replace("\\", "") for c in app.caption)
