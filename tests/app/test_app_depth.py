"""Every figure on a page comes from the depth shown on it, or says its own depth (AppTest)."""

from __future__ import annotations

from tests.app.test_app import app, drawn, open_page

__all__ = ["app"]  # the fixture, shared with tests/app/test_app.py


def test_at_depth_4_the_choke_points_say_they_are_computed_at_depth_6(app):
    """BH-1042 has no path within 4 hops; the choke-point figure (its one 5-hop path) is labelled depth 6."""
    open_page(app, "pages/graph.py")
    app.selectbox(key="graph_alert").set_value("BH-1042").run()
    app.slider(key="graph_depth").set_value(4).run()
    assert any("No qualifying path within 4 hops" in i.value for i in app.info)
    headers = [h.value for h in app.subheader]
    assert "Choke points: the fewest changes that sever every path (depth 6)" in headers
    assert any("Computed at depth 6" in c.value and "depth 4 set above" in c.value for c in app.caption)
    assert any("severs all 1 qualifying path(s) within 6 hops" in m.value for m in app.markdown)
    app.slider(key="graph_depth").set_value(6).run()
    assert not any("Computed at depth 6" in c.value for c in app.caption)


def test_the_explorer_is_empty_until_asked(app):
    """No path of another scenario is drawn beside the alert's evidence: the explorer starts empty."""
    open_page(app, "pages/graph.py")
    app.selectbox(key="graph_alert").set_value("BH-1042").run()
    assert app.text_input(key="graph_source").value == "" and app.text_input(key="graph_target").value == ""
    drawings = drawn(app)
    assert len(drawings) == 1 and "auditor_02" not in {n["id"] for n in drawings[0]["nodes"]}
    assert any("Give a source and a target" in c.value for c in app.caption)


def test_a_malformed_id_is_said_in_words(app):
    open_page(app, "pages/graph.py")
    app.text_input(key="graph_target").set_value("staging-report")
    app.text_input(key="graph_source").set_value("has space").run()
    errors = [e.value for e in app.error]
    assert any("is not an id of the graph" in e for e in errors)
    assert not any("pattern" in e or "^" in e for e in errors)
