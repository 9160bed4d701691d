"""The role gate and the exposure rules through Streamlit's AppTest, on the embedded default."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import psutil
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.util import patch_config_options

from blastshield_core.base.access import ALLOW_UNAUTHENTICATED_ENV
from tests.app.test_app import ROOT, _close_cached_services
from tests.conftest import free_port
from tests.helpers.dashboard_token import RUN_BOUND_S, with_token

AUTH = {
    "redirect_uri": "http://127.0.0.1:8501/oauth2callback",
    "cookie_secret": "a-test-cookie-secret-of-enough-length",
    "client_id": "blastshield",
    "client_secret": "secret",
    "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
}
ROLES = """
[users]
"viewer@example.com" = "viewer"
"responder@example.com" = "responder"
[groups]
"soc-admins" = "admin"
"""
DOCUMENT = json.dumps(
    {
        "format": "blastshield-graph/v1",
        "name": "access-test",
        "nodes": [{"id": "imported-user", "label": "Identity", "name": "imported-user", "properties": {}}],
        "edges": [],
        "alerts": [
            {
                "id": "BH-IMPORTED-1",
                "title": "Imported",
                "entity_id": "imported-user",
                "kind": "identity_access_path",
                "signals": {},
            }
        ],
    }
).encode()


@pytest.fixture
def app(tmp_path, monkeypatch):
    for var in ("FALKORDB_URL", "BLASTSHIELD_GRAPH", "BLASTSHIELD_AUDIT_GRAPH", "GEMINI_API_KEY",
                ALLOW_UNAUTHENTICATED_ENV):  # fmt: skip
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("BLASTSHIELD_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "roles.toml").write_text(ROLES)
    monkeypatch.setenv("BLASTSHIELD_ROLES_FILE", str(tmp_path / "roles.toml"))
    st.cache_resource.clear()
    at = with_token(AppTest.from_file(str(ROOT / "app.py"), default_timeout=RUN_BOUND_S))
    yield at
    _close_cached_services()


def signed_in(at, email: str, groups: list[str] | None = None):
    at.secrets["auth"] = AUTH
    at.user = {"is_logged_in": True, "email": email, "email_verified": True, "groups": groups or []}
    return at


@pytest.fixture
def everywhere():
    """Serve the AppTest as if on every interface (0.0.0.0)."""
    with patch_config_options({"server.address": "0.0.0.0"}):
        yield


def texts(at) -> str:
    return " ".join(e.value for kind in (at.error, at.warning, at.success, at.info) for e in kind)


def test_beyond_loopback_without_sign_in_is_refused(app, everywhere):
    """On 0.0.0.0 without sign-in the app shows one message on how to configure sign-in and nothing else."""
    app.run()
    assert not app.exception
    assert [t.value for t in app.title] == ["BlastShield: sign-in required"]
    assert len(app.error) == 1 and "[auth]" in app.error[0].value
    assert not app.dataframe and not app.button and not app.selectbox


def test_override_serves_with_a_banner_on_every_page(app, everywhere, monkeypatch):
    """With the documented override every page carries the open-dashboard warning."""
    monkeypatch.setenv(ALLOW_UNAUTHENTICATED_ENV, "1")
    app.run()
    for page in ("pages/alerts.py", "pages/graph.py", "pages/containment.py", "pages/audit.py"):
        app.switch_page(page).run()
        assert not app.exception, app.exception
        assert "Open dashboard" in app.warning[0].value, page


def test_sign_in_configured_asks_to_sign_in(app):
    """With sign-in configured, a visitor who is not signed in sees only the sign-in button."""
    app.secrets["auth"] = AUTH
    app.user = {}
    app.run()
    assert [b.key for b in app.button] == ["auth_login"]
    assert not app.dataframe


def test_signed_in_without_a_role_sees_nothing(app):
    """A signed-in user the roles file does not name is told so and sees no data."""
    signed_in(app, "mallory@example.com").run()
    assert "no role is granted" in app.error[0].value
    assert not app.dataframe


def test_viewer_reads_the_queue_and_sees_the_role(app):
    """A viewer sees the alert queue, their identity and role in the sidebar."""
    signed_in(app, "viewer@example.com").run()
    assert not app.exception
    assert app.dataframe
    assert "viewer@example.com" in app.sidebar.caption[0].value and "viewer" in app.sidebar.caption[0].value
    export = next(b for b in app.get("download_button") if b.proto.id.endswith("alerts_export"))
    assert export.proto.disabled  # and the export callable itself checks the role when the data is built


def test_viewer_cannot_reset(app):
    """A viewer's reset reaches the handler and is refused there; nothing is reset."""
    signed_in(app, "viewer@example.com").run()
    app.checkbox(key="alerts_reset_confirm").check().run()
    app.button(key="alerts_reset").click().run()
    assert "Not allowed" in texts(app) and "Scenarios restored" not in texts(app)


def test_viewer_cannot_import(app):
    """A viewer's import reaches the handler and is refused before any document is read."""
    signed_in(app, "viewer@example.com").run()
    app.file_uploader(key="alerts_upload").upload("doc.json", DOCUMENT, "application/json").run()
    app.button(key="alerts_import").click().run()
    assert not app.exception
    assert "may not import" in texts(app)
    assert "BH-IMPORTED-1" not in app.selectbox(key="alerts_select").options


def test_viewer_cannot_run_containment(app):
    """A viewer's confirmed start reaches the handler, is refused, and no run reaches the audit."""
    from pages import _services

    signed_in(app, "viewer@example.com").run()
    app.switch_page("pages/containment.py").run()
    app.selectbox(key="contain_alert").set_value("BH-CONTAINMENT-4001").run()
    app.checkbox(key="contain_confirm").check().run()
    app.button(key="contain_start").click().run()
    assert "may not run containment" in texts(app)
    assert _services.services().audit.list_runs() == []


def test_responder_runs_containment_but_cannot_reset(app):
    """A responder completes a containment run; reset stays refused."""
    signed_in(app, "responder@example.com").run()
    app.switch_page("pages/containment.py").run()
    app.selectbox(key="contain_alert").set_value("BH-CONTAINMENT-4001").run()
    app.checkbox(key="contain_confirm").check().run()
    app.button(key="contain_start").click().run()
    assert not app.exception, app.exception
    assert "CONTAINED — completed" in texts(app)
    app.switch_page("pages/alerts.py").run()
    app.checkbox(key="alerts_reset_confirm").check().run()
    app.button(key="alerts_reset").click().run()
    assert "may not reset" in texts(app)


def test_admin_by_group_resets(app):
    """A user whose group claim maps to admin may reset the scenarios."""
    signed_in(app, "carol@example.com", ["soc-admins"]).run()
    app.checkbox(key="alerts_reset_confirm").check().run()
    app.button(key="alerts_reset").click().run()
    assert not app.exception, app.exception
    assert "Scenarios restored" in texts(app)


def test_admin_imports(app):
    """An admin's import is written and its alert joins the queue."""
    signed_in(app, "carol@example.com", ["soc-admins"]).run()
    app.file_uploader(key="alerts_upload").upload("doc.json", DOCUMENT, "application/json").run()
    app.button(key="alerts_import").click().run()
    assert not app.exception, app.exception
    assert "BH-IMPORTED-1" in app.selectbox(key="alerts_select").options


def test_streamlit_run_listens_on_loopback_only(tmp_path):
    """`streamlit run app.py` with the repository's config listens on 127.0.0.1 alone and sends no statistics."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_", "GEMINI_"))}
    env["BLASTSHIELD_DATA_DIR"] = str(tmp_path / "data")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        listening: set[str] = set()
        while time.monotonic() < deadline and proc.poll() is None:
            listening = {
                c.laddr.ip
                for c in psutil.Process(proc.pid).net_connections(kind="inet")
                if c.status == psutil.CONN_LISTEN and c.laddr.port == port
            }
            if listening:
                break
            time.sleep(0.2)
        assert listening == {"127.0.0.1"}
    finally:
        proc.terminate()
        output, _ = proc.communicate(timeout=20)
    assert "Collecting usage statistics" not in output


def test_errors_in_the_page_are_one_line_without_trace():
    """With the repository's config an uncaught error shows its type and a generic line; the text stays in the log."""
    # Guarded: AppTest leaves the script as the process's main path, and a later multiprocessing
    # spawn re-imports it under the name __mp_main__.
    at = AppTest.from_string(
        "if __name__ == '__main__':\n    raise ValueError('detail from the data: [x](https://evil.example)')"
    )
    at.run()
    error = at.exception[0]
    assert error.proto.type == "ValueError"
    assert "evil.example" not in error.message and error.stack_trace == []


@pytest.mark.parametrize(("email", "groups", "listed"), [
    ("viewer@example.com", [], False),
    ("responder@example.com", [], False),
    ("ana@example.com", ["soc-admins"], True),
])  # fmt: skip
def test_the_aws_accounts_page_is_listed_for_whoever_may_import(app, email, groups, listed):
    """The AWS accounts page (import and collection, both writes) is in the navigation for the admin
    role alone (and the page checks the permission again, as every write does)."""
    signed_in(app, email, groups).run()
    assert not app.exception, app.exception
    if not listed:
        with pytest.raises(ValueError, match=r"Could not find a navigation page for '.*pages/aws\.py'"):
            app.switch_page("pages/aws.py")
        app.switch_page("pages/alerts.py").run()  # the other pages are there
        assert not app.exception, app.exception
        return
    app.switch_page("pages/aws.py").run()
    assert not app.exception, app.exception
    assert [t.value for t in app.title] == [":material/cloud_upload: BlastShield — AWS accounts"]
    assert app.button(key="aws_import") and app.file_uploader(key="aws_upload")
