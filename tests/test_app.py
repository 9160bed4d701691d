"""Dashboard smoke tests through Streamlit's AppTest, on the embedded default."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def app(tmp_path, monkeypatch):
    monkeypatch.setenv("BLASTSHIELD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("FALKORDB_URL", raising=False)
    monkeypatch.delenv("BLASTSHIELD_GRAPH", raising=False)
    import streamlit as st

    st.cache_resource.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    yield at
    from pages import _services

    try:
        _services.services().close()
    finally:
        st.cache_resource.clear()


def test_alert_queue_seeds_and_lists_the_scenarios(app):
    """The first screen seeds the embedded graph and lists the four alerts with scores."""
    app.run()
    assert not app.exception
    table = app.dataframe[0].value
    rows = {r["alert"]: (r["score"], r["severity"], r["qualifying paths"]) for r in table.to_dict("records")}
    assert rows == {
        "BH-1042": (35, "medium", 1),
        "BH-CONTAINMENT-4001": (60, "high", 2),
        "BH-IAM-2001": (65, "high", 3),
        "BH-WORKLOAD-3001": (75, "high", 3),
    }
    assert "qualifying paths" in app.markdown[0].value


def test_unreachable_database_is_a_message_not_a_traceback(tmp_path, monkeypatch):
    """Against an unreachable FALKORDB_URL the page shows an error, no exception."""
    import streamlit as st

    monkeypatch.setenv("FALKORDB_URL", "redis://127.0.0.1:1")
    st.cache_resource.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30).run()
    try:
        assert not at.exception
        assert any("unavailable" in e.value for e in at.error)
    finally:
        st.cache_resource.clear()
