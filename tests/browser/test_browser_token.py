"""The dashboard belongs to the user who started it: a second OS user's browser gets no page and writes nothing.

The dashboard runs on loopback without sign-in (the default). A second OS user (created with `useradd`
when the suite runs as root) runs Debian's Chromium under their own account, driven through its
DevTools port; they cannot read the token file, and without the token every URL shows only the
"token required" page. The starting user's browser, with the token URL, gets the dashboard. The audit
and the blocked routes are unchanged by the other user's visit.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import urllib.request
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browser.test_browser import CHROMIUM, CHROMIUM_ARGS, open_with_token, settled, wait_for_cookie, wait_healthy
from tests.conftest import ROOT, free_port, run_cli
from tests.helpers.dashboard_token import token_for
from tests.helpers.other_user import as_other, other_user, shared_directory

ALERT = "BH-CONTAINMENT-4001"


def _stop(proc: subprocess.Popen) -> None:
    """End a process started here and its children, each by its pid."""
    try:
        children = psutil.Process(proc.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        children = []
    for child in children:
        try:
            child.terminate()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(children, timeout=20)
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory):
    """A contained alert, then the dashboard on its data directory, started by this user."""
    work = tmp_path_factory.mktemp("browser-token")
    data = work / "data"
    assert run_cli("seed", "--data-dir", str(data)).returncode == 0
    contained = run_cli("contain", ALERT, "--decider", "rules", "--confirm", "--json", "--data-dir", str(data))
    assert contained.returncode == 0 and json.loads(contained.stdout)["state"] == "completed", contained.stdout
    token = token_for(data)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_", "GEMINI_"))}
    env["BLASTSHIELD_DATA_DIR"] = str(data)
    log = open(work / "streamlit.log", "w")  # noqa: SIM115 - closed at teardown
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url, proc, work / "streamlit.log")
    yield url, data, token
    _stop(proc)
    log.close()


def audit_state(data: Path) -> dict:
    out = run_cli("audit", "verify", "--json", "--data-dir", str(data))
    assert out.returncode == 0, out.stdout + out.stderr
    verified = json.loads(out.stdout)
    routes = json.loads(run_cli("routes", ALERT, "--json", "--data-dir", str(data)).stdout)["routes"]
    return {
        "head": (verified["head_seq"], verified["head_hash"]),
        "routes": {r["route_id"]: r["status"] for r in routes},
    }


def other_users_browser(profile: Path):
    """Chromium run as the other OS user, with its DevTools port on loopback: (process, port)."""
    cdp = free_port()
    proc = subprocess.Popen(
        ["runuser", "-u", other_user().pw_name, "--", "env", f"HOME={profile}", CHROMIUM, "--headless",
         f"--remote-debugging-port={cdp}", "--remote-debugging-address=127.0.0.1",
         f"--user-data-dir={profile}", *CHROMIUM_ARGS, "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    wait_healthy_cdp(cdp, proc)
    return proc, cdp


def wait_healthy_cdp(port: int, proc: subprocess.Popen) -> None:
    """Until the DevTools endpoint answers (or the browser exited: fail)."""
    import time

    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=2) as resp:
                if json.load(resp).get("Browser"):
                    return
        except (OSError, ValueError):
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            _stop(proc)
            pytest.fail("the other user's Chromium did not start")
        time.sleep(0.2)


def test_a_second_os_user_gets_no_page_and_writes_nothing(dashboard):
    url, data, token = dashboard
    user = other_user()
    before = audit_state(data)
    assert set(before["routes"].values()) == {"blocked"}
    token_file = data / "dashboard.token"
    assert oct(token_file.stat().st_mode & 0o777) == "0o600"
    read = as_other("cat", str(token_file), capture_output=True, text=True)
    assert read.returncode != 0 and token not in read.stdout  # the token is the starting user's alone
    with shared_directory() as shared, sync_playwright() as pw:
        profile = shared / "profile"
        assert as_other("mkdir", "-m", "0700", str(profile)).returncode == 0
        proc, cdp = other_users_browser(profile)
        try:
            owners = {p.username() for p in psutil.Process(proc.pid).children(recursive=True)}
            assert owners == {user.pw_name}  # the browser runs as the other user
            browser = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{cdp}")
            context = browser.contexts[0]
            context.add_cookies([{"name": f"blastshield_dashboard_{url.rsplit(':', 1)[1]}",
                                  "value": secrets.token_hex(32), "url": url}])  # fmt: skip
            page = context.new_page()
            for target in (url, f"{url}/?token={secrets.token_urlsafe(32)}", f"{url}/containment?alert={ALERT}",
                           f"{url}/alerts"):  # fmt: skip
                page.goto(target)
                expect(page.get_by_text("BlastShield: token required")).to_be_visible(timeout=60_000)
                expect(page.get_by_text("alert queue")).to_have_count(0)
                expect(page.get_by_role("button", name="Reset")).to_have_count(0)
                expect(page.get_by_text("Start containment")).to_have_count(0)
            browser.close()
        finally:
            _stop(proc)
        # the starting user, with the token URL, gets the dashboard (and then keeps it through the cookie)
        own = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = own.new_context().new_page()
        open_with_token(page, url, token)
        page.goto(f"{url}/audit")
        expect(page.get_by_text("token required")).to_have_count(0)
        expect(page.get_by_role("heading", name="Incident report")).to_be_visible(timeout=60_000)
        own.close()
    assert audit_state(data) == before  # no write: the audit head and the blocked routes are as they were


def test_a_rerun_before_the_browser_ran_the_cookie_script_still_leaves_the_cookie(dashboard):
    """The browser loads the script that keeps the cookie lazily: a rerun while it loads must not drop it."""
    url, _data, token = dashboard
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context()
        held = []  # the script's code, held back until the session has rerun

        def hold(route) -> None:  # Playwright sets an attribute on its handler: a bound method has none
            held.append(route)

        context.route("**/static/js/Html.*.js", hold)
        page = context.new_page()
        page.goto(f"{url}/?token={token}")
        expect(page.get_by_text("alert queue").first).to_be_visible(timeout=60_000)
        settled(page)
        assert held, "the page asked for no lazily loaded script: the test would prove nothing"
        search = page.get_by_label("Search id, title or entity")
        search.fill(ALERT)
        search.press("Enter")
        expect(page.get_by_text("BH-1042")).to_have_count(0, timeout=60_000)  # the rerun has been drawn
        settled(page)
        for route in held:
            route.continue_()
        wait_for_cookie(page, url)
        browser.close()
