"""On loopback without sign-in, pages are served only by a server that serves every URL under the token.

`make run` serves the dashboard under its token (`server.baseUrlPath`, `interfaces/dashboard_run.py`): a
browser without it reaches no route at all (tests/browser/test_browser_token.py). A server started some
other way (`streamlit run app.py`, or under a path that is not the current token) would give a session to
anyone on the machine, so the gate serves such sessions only "token required", whatever they send: a
`?token=` parameter and a cookie of the old scheme included.
"""

from __future__ import annotations

import pytest
import streamlit as st
from streamlit import config
from streamlit.testing.v1 import AppTest

from tests.helpers.dashboard_token import RUN_BOUND_S, token_for, with_token
from tests.helpers.paths import ROOT


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    for var in (
        "FALKORDB_URL",
        "BLASTSHIELD_GRAPH",
        "BLASTSHIELD_AUDIT_GRAPH",
        "GEMINI_API_KEY",
        "BLASTSHIELD_TOKEN_FILE",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("BLASTSHIELD_DATA_DIR", str(tmp_path / "data"))
    st.cache_resource.clear()
    yield
    config.set_option("server.baseUrlPath", "")
    st.cache_resource.clear()


def shown(at) -> str:
    return " ".join([t.value for t in at.title] + [e.value for e in at.error] + [m.value for m in at.markdown])


@pytest.mark.parametrize("served", ["", "someone-elses-path", "TOKEN-but-one"])
def test_a_server_not_under_the_token_serves_only_token_required(fresh, served):
    token = token_for()
    config.set_option("server.baseUrlPath", token[:-1] if served == "TOKEN-but-one" else served)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=RUN_BOUND_S)
    at.query_params["token"] = token  # the old way in: no longer a way in
    at.run()
    assert not at.exception
    text = shown(at)
    assert "BlastShield: token required" in text and "make run" in text
    assert "alert queue" not in text and token not in text
    assert not at.button  # no reset, no import, no containment: nothing that writes


def test_the_server_under_the_token_serves_the_pages(fresh):
    at = with_token(AppTest.from_file(str(ROOT / "app.py"), default_timeout=RUN_BOUND_S)).run()
    assert not at.exception
    text = shown(at)
    assert "token required" not in text and "alert queue" in text
