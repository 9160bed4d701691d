"""The containment banner above a briefing: a fresh query's answer, never the briefing's (or a model's) claim."""

from __future__ import annotations

import streamlit as st

from blastshield_core.respond.decide import RulesDecider
from blastshield_core.results import Status
from tests.app.test_app import app  # noqa: F401 - the shared AppTest fixture
from tests.helpers.gemini_fake import json_text

C4001 = "BH-CONTAINMENT-4001"
EXPOSED_CLAIMS = {
    "entity_ids": ["contractor_11", "payments-vault"],
    "risk_score": 60,
    "severity": "high",
    "path_count": 2,
    "asset_count": 1,
    "containment_state": "exposed",
    "prose": "contractor_11 reaches payments-vault over 2 qualifying paths; not contained.",
}


def test_banner_follows_the_graph_not_the_models_briefing(services, gemini):
    """A model briefing written while exposed keeps its claims; the banner asked afterwards says contained."""
    gemini.add(json_text(EXPOSED_CLAIMS))
    briefing = services.briefer.brief(C4001)
    assert briefing.label == "model" and briefing.claims.containment_state == "exposed"
    services.controller.run(C4001, RulesDecider(), 3, True)
    banner = services.briefer.containment_banner(C4001)
    assert (banner.status, banner.containment_state, banner.path_count) == (Status.NO_PATH, "contained", 0)
    assert len(gemini.requests) == 1


def test_banner_for_an_unknown_alert_is_unknown(services):
    """An unknown alert gives an unknown banner, never a contained one."""
    banner = services.briefer.containment_banner("BH-NOPE-1")
    assert (banner.status, banner.containment_state) == (Status.UNKNOWN_ALERT, "unknown")

    st.cache_resource.clear()


def test_graph_page_banner_is_fresh_above_a_cached_briefing(app):  # noqa: F811 - the shared fixture
    """On the Graph page the cached briefing still says not contained; the banner above it says contained."""
    from pages import _services

    app.run()
    app.switch_page("pages/graph.py").run()
    app.selectbox(key="graph_alert").set_value(C4001).run()
    assert not app.exception, app.exception
    assert any(e.value.startswith("**Not contained (fresh query") for e in app.error)
    _services.services().controller.run(C4001, RulesDecider(), 3, True)
    app.run()
    assert any(s.value.startswith("**Contained (fresh query") for s in app.success)
    assert not any(e.value.startswith("**Not contained (fresh query") for e in app.error)
    cached = [m.value for m in app.markdown if "Deterministic fallback briefing" in m.value]
    assert cached and "**Not contained.**" in cached[0]
