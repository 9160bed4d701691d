"""The Alerts page's queue through AppTest: filtered and paged in the core, never stale after a write."""

from __future__ import annotations

from tests.app.test_app import app, table

__all__ = ["app"]  # the fixture, shared with tests/app/test_app.py


def _paths(at) -> dict[str, object]:
    return {r["alert"]: r["qualifying paths"] for r in table(at, "alert", "score").to_dict("records")}


def test_a_block_shows_on_the_next_rerun_and_a_rerun_alone_recomputes_nothing(app):
    """A rerun reuses the queue; a block made elsewhere changes the table on the next rerun."""
    from pages._services import services

    app.run()
    assert not app.exception and _paths(app)["BH-CONTAINMENT-4001"] == 2
    svc = services()
    computed = svc.queue.computed
    app.run()
    assert svc.queue.computed == computed
    assert svc.actions.block_route("BH-CONTAINMENT-4001", "route-c11-primary", "run-queue").status == "applied"
    app.run()
    assert _paths(app)["BH-CONTAINMENT-4001"] == 1 and svc.queue.computed == computed + 1


def test_severity_filter_and_search_narrow_the_table(app):
    """The severity filter and the search box show only the matching alerts."""
    app.run()
    app.selectbox(key="alerts_queue_severity").set_value("medium").run()
    assert list(_paths(app)) == ["BH-1042"]
    app.selectbox(key="alerts_queue_severity").set_value("all").run()
    app.text_input(key="alerts_queue_search").input("public-api").run()
    assert not app.exception and list(_paths(app)) == ["BH-WORKLOAD-3001"]
