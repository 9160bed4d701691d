"""The Containment page after a completed run (AppTest): fresh candidates, no invitation to a pointless run."""

from __future__ import annotations

from tests.app.test_app import app, run_containment

__all__ = ["app"]  # the fixture, shared with tests/app/test_app.py


def test_after_a_completed_run_the_candidates_are_fresh_and_start_is_disabled(app):
    open_page_run = run_containment(app, "BH-CONTAINMENT-4001")
    assert any("CONTAINED — completed" in s.value for s in open_page_run.success)
    blocked = {"route-c11-primary", "route-c11-alternate"}
    for frame in app.dataframe:
        if "candidate" in frame.value.columns:
            assert not blocked & set(frame.value["route"])
    assert any("No qualifying path now" in i.value for i in app.info)
    assert app.button(key="contain_start").disabled
    assert any("Nothing to contain" in c.value for c in app.caption)


def test_before_a_run_the_candidates_are_listed_and_start_is_enabled(app):
    """The check above can fail: with paths, the candidates show the routes and Start is enabled."""
    from tests.app.test_app import open_page

    open_page(app, "pages/containment.py")
    app.selectbox(key="contain_alert").set_value("BH-CONTAINMENT-4001").run()
    app.checkbox(key="contain_confirm").check().run()
    routes = set(next(f for f in app.dataframe if "candidate" in f.value.columns).value["route"])
    assert "route-c11-primary" in routes and not app.button(key="contain_start").disabled
