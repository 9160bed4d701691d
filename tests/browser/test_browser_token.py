"""The dashboard belongs to the user who started it: a second OS user gets no page, no session, no upload.

The dashboard runs on loopback without sign-in (the default), as `make run` serves it: every URL under
its token (`base/dashboard_token.py`). A second OS user (created with `useradd` when the suite runs as
root) serves a page of their own on another loopback port, which the starting user's browser opens
(as a link in a chat or a document would make it), and runs Debian's Chromium under their own account,
driven through its DevTools port. What that page's script can read holds no credential; replaying it
(and a forged dashboard cookie of the old scheme) gets only "token required"; six 50 MB uploads do not grow the
server; the token is in no file, command line or environment they can read. The audit and the blocked
routes are unchanged by their visit.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browser.test_browser import CHROMIUM, CHROMIUM_ARGS, SETTLED, open_dashboard, settled, wait_healthy
from tests.conftest import free_port, run_cli
from tests.helpers.dashboard_token import serve_dashboard, token_for
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
    log = open(work / "streamlit.log", "w")  # noqa: SIM115 - closed at teardown
    proc, url = serve_dashboard(free_port(), data, log)
    wait_healthy(url, proc, work / "streamlit.log")
    yield url, data, token, proc
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


def _served_by_other(directory: Path, html: str) -> tuple[subprocess.Popen, str]:
    """A page of the other user's own, served by them on another loopback port: (process, its URL)."""
    site = directory / "site"
    assert as_other("mkdir", "-m", "0755", str(site)).returncode == 0
    assert as_other("sh", "-c", f"cat > {site}/index.html", input=html, text=True).returncode == 0
    port = free_port()
    proc = subprocess.Popen(
        ["runuser", "-u", other_user().pw_name, "--", PYTHON, "-m", "http.server", str(port),
         "--bind", "127.0.0.1", "--directory", str(site)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return proc, url
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                _stop(proc)
                pytest.fail("the other user's page server did not start")
            time.sleep(0.1)


PYTHON = "/usr/bin/python3"  # the system's Python: the other user cannot use this user's
# What a script on the other user's page can read of the browser that opened it.
READ_WHAT_A_PAGE_CAN = """() => {
  const found = {cookie: document.cookie, referrer: document.referrer, name: window.name,
                 history: history.length, storage: JSON.stringify(localStorage)};
  document.title = 'read';
  return found;
}"""


def _status(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_another_users_page_gets_no_credential_and_its_replay_no_page(dashboard):
    url, data, token, server = dashboard
    port = url.split(":")[2].split("/")[0]
    root = f"http://127.0.0.1:{port}"
    user = other_user()
    before = audit_state(data)
    assert set(before["routes"].values()) == {"blocked"}
    token_file = data / "dashboard.token"
    assert oct(token_file.stat().st_mode & 0o777) == "0o600"
    read = as_other("cat", str(token_file), capture_output=True, text=True)
    assert read.returncode != 0 and token not in read.stdout  # the token file is the starting user's alone
    # nor in a command line or an environment the other user can read (/proc shows every command line)
    listed = as_other("ps", "-eo", "pid,args", capture_output=True, text=True)
    assert listed.returncode == 0 and str(server.pid) in listed.stdout and token not in listed.stdout
    assert as_other("cat", f"/proc/{server.pid}/environ", capture_output=True).returncode != 0
    with shared_directory() as shared, sync_playwright() as pw:
        # the starting user opens the dashboard, moves between pages, then opens the other user's page
        own = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        context = own.new_context()
        page = context.new_page()
        open_dashboard(page, url)
        page.get_by_role("link", name="Audit").click()
        expect(page.get_by_role("heading", name="Incident report")).to_be_visible(timeout=60_000)
        settled(page)
        trap, trap_url = _served_by_other(shared, "<!doctype html><title>trap</title><p>hello</p>")
        try:
            page.goto(trap_url)
            found = page.evaluate(READ_WHAT_A_PAGE_CAN)
        finally:
            _stop(trap)
        assert token not in json.dumps(found), found
        stolen = [c for c in context.cookies() if c["domain"] in ("127.0.0.1", "localhost")]
        assert all(token not in c["value"] and token not in c["name"] for c in stolen)
        # Back returns to the dashboard's own page, under its token; no URL ever held `?token=`
        page.go_back()
        page.wait_for_function(SETTLED, timeout=60_000)
        assert page.url.startswith(f"{url}/") and "token=" not in page.url
        expect(page.get_by_role("heading", name="Incident report")).to_be_visible(timeout=60_000)
        assert "document.cookie" not in page.content()  # no script keeps a credential in the page
        own.close()

        # the other user's own Chromium replays every cookie that browser holds for 127.0.0.1, and a
        # forged one of the old scheme, on every URL they can think of
        profile = shared / "profile"
        assert as_other("mkdir", "-m", "0700", str(profile)).returncode == 0
        proc, cdp = other_users_browser(profile)
        try:
            owners = {p.username() for p in psutil.Process(proc.pid).children(recursive=True)}
            assert owners == {user.pw_name}  # the browser runs as the other user
            browser = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{cdp}")
            theirs = browser.contexts[0]
            replay = [{"name": c["name"], "value": c["value"], "url": root} for c in stolen]
            replay.append({"name": f"blastshield_dashboard_{port}", "value": secrets.token_hex(32), "url": root})
            theirs.add_cookies(replay)
            page = theirs.new_page()
            for target in (f"{root}/", f"{root}/?token={secrets.token_urlsafe(32)}", f"{root}/containment?alert={ALERT}",
                           f"{root}/alerts", f"{root}/{secrets.token_urlsafe(32)}/", f"{root}/{token[:-1]}/"):  # fmt: skip
                response = page.goto(target)
                assert response is not None and response.status == 404, target
                expect(page.get_by_role("heading", name="BlastShield: token required")).to_be_visible()
                expect(page.locator("[data-testid='stApp']")).to_have_count(0)  # no Streamlit app, no session
                expect(page.get_by_text("alert queue")).to_have_count(0)
                expect(page.get_by_role("button")).to_have_count(0)
            browser.close()
        finally:
            _stop(proc)
    health = _status(f"{root}/_stcore/health")
    assert health[0] == 404 and b"token required" in health[1] and _status(f"{url}/_stcore/health") == (200, b"ok")
    assert audit_state(data) == before  # no write: the audit head and the blocked routes are as they were


FLOOD = """
import http.client, json, secrets, sys
port, count, size = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
chunk = b"x" * (1 << 20)
answers = []
for i in range(count):
    for path in (f"/_stcore/upload_file/{secrets.token_hex(16)}/file{i}",
                 f"/{secrets.token_urlsafe(32)}/_stcore/upload_file/{secrets.token_hex(16)}/file{i}"):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        sent = 0
        try:
            conn.putrequest("PUT", path)
            conn.putheader("Content-Type", "application/octet-stream")
            conn.putheader("Content-Length", str(size))
            conn.endheaders()
            while sent < size:
                conn.send(chunk[: size - sent])
                sent += min(len(chunk), size - sent)
            answers.append([path.split("/")[1], conn.getresponse().status, sent])
        except OSError as exc:  # the server answered and closed before the body ended
            answers.append([path.split("/")[1], type(exc).__name__, sent])
        finally:
            conn.close()
print(json.dumps(answers))
"""


def test_an_upload_flood_without_the_token_keeps_nothing(dashboard):
    """Six 50 MB uploads to the upload endpoint, without the token and under a wrong one, from the other
    OS user: every one refused (no route, so no session is looked up and no byte is kept), and the
    server's memory grows by less than 50 MB (it grew by 309 MB before)."""
    url, _data, _token, server = dashboard
    port = url.split(":")[2].split("/")[0]
    process = psutil.Process(server.pid)
    before = process.memory_info().rss
    with shared_directory() as shared:
        script = shared / "flood.py"
        script.write_text(FLOOD)
        script.chmod(0o644)
        out = as_other(PYTHON, str(script), port, "6", str(50 << 20), capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    answers = json.loads(out.stdout)
    assert len(answers) == 12
    assert all(status in (404, "ConnectionResetError", "BrokenPipeError") for _where, status, _sent in answers), answers
    assert any(status == 404 for _where, status, _sent in answers), answers
    grown = process.memory_info().rss - before
    assert grown < 50 << 20, f"the server grew by {grown >> 20} MB"
    assert _status(f"{url}/_stcore/health") == (200, b"ok")  # still serving its user
