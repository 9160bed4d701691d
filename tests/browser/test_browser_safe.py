"""Sign-in and untrusted data in a real browser (Debian Chromium through Playwright).

One dashboard with OpenID Connect sign-in configured against a small provider on loopback
(tests/helpers/oidc_provider.py): the login redirect, the callback and the role mapping run for real.
An admin then imports a document full of hostile strings, and every page is checked: no link or
image pointing outside the app and no script from the data.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browser.test_browser import CHROMIUM, CHROMIUM_ARGS, settled, wait_healthy
from tests.conftest import ROOT, free_port
from tests.helpers.oidc_provider import OIDCProvider

USERS = {
    "viewer": {"sub": "u-1", "email": "viewer@example.com", "email_verified": True, "groups": []},
    "carol": {"sub": "u-2", "email": "carol@example.com", "email_verified": True, "groups": ["soc-admins"]},
}
EVIL = "https://evil.example"
LONG = "A" * 3000 + " " + EVIL + "/long"
HOSTILE = [
    f"[Re-authenticate here]({EVIL}/login)",
    f"![x]({EVIL}/pixel.png?who=analyst)",
    f"<img src={EVIL}/i.png onerror=window.__pwned=1>",
    "<script>window.__pwned=1</script>",
    "[click](javascript:window.__pwned=1)",
    f"<{EVIL}/auto> {EVIL}/bare www.evil.example mail@evil.example https&#58;//evil.example/entity",
]
TEXT = " ".join(HOSTILE)


def hostile_document() -> bytes:
    """A valid graph document whose every free-text field is an attack on the page."""
    chain = [("Identity", "attacker@evil.example"), ("Session", "sess-www.evil.example"),
             ("Workload", "wl-hostile"), ("IAMRole", "role-hostile"), ("DataAsset", "asset-hostile")]  # fmt: skip
    nodes = [
        {"id": node_id, "label": label, "name": HOSTILE[i % len(HOSTILE)][:256],
         "properties": {"note": TEXT, "long": LONG, **({"sensitivity": "critical"} if label == "DataAsset" else {})}}
        for i, (label, node_id) in enumerate(chain)
    ]  # fmt: skip
    types = ["HAS_SESSION", "CAN_ACCESS", "RUNS_AS", "CAN_READ"]
    edges = [
        {"source": a[1], "type": t, "target": b[1],
         "properties": {"route_id": "route-www.evil.example", "note": TEXT} if t == "HAS_SESSION" else {"note": TEXT}}
        for a, t, b in zip(chain[:-1], types, chain[1:], strict=True)
    ]  # fmt: skip
    alert = {"id": "BH-HOSTILE-1", "title": HOSTILE[0] + " " + HOSTILE[1], "entity_id": chain[0][1],
             "kind": "identity_access_path", "signals": {"note": TEXT, "off_hours_login": True}}  # fmt: skip
    doc = {"format": "blastshield-graph/v1", "name": "hostile", "nodes": nodes, "edges": edges, "alerts": [alert]}
    return json.dumps(doc).encode()


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
    wait_healthy(url, proc, work / "streamlit.log")
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()


@pytest.fixture(scope="module")
def outside() -> list[str]:
    """Every request the browser tried to send beyond loopback (all are blocked)."""
    return []


@pytest.fixture(scope="module")
def page(dashboard, outside):
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1440, "height": 1000})

        def only_loopback(route):
            if urlparse(route.request.url).hostname in ("127.0.0.1", "localhost"):
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()

        context.route("**/*", only_loopback)
        yield context.new_page()
        context.close()
        browser.close()


FIND = """() => {
  const docs = [document];
  for (const f of document.querySelectorAll('iframe')) { try { if (f.contentDocument) docs.push(f.contentDocument); } catch (e) {} }
  const found = [];
  let pwned = window.__pwned === 1;
  for (const d of docs) {
    pwned = pwned || (d.defaultView && d.defaultView.__pwned === 1);
    for (const a of d.querySelectorAll('a[href]')) found.push(['link', a.href]);
    for (const i of d.querySelectorAll('img, image, source, video, audio')) found.push(['image', i.currentSrc || i.src || i.getAttribute('href') || '']);
    for (const s of d.querySelectorAll('script')) if ((s.textContent || '').includes('__pwned') || (s.src || '').includes('evil')) found.push(['script', (s.src || s.textContent).slice(0, 80)]);
  }
  return {found, pwned, frames: docs.length};
}"""


def assert_clean(page, dashboard, outside) -> None:
    """No link or image pointing outside the app, no script from the data, nothing sent beyond loopback."""
    settled(page)  # the rerun has drawn every component and image
    result = page.evaluate(FIND)
    origin = urlparse(dashboard)
    bad = [
        (kind, url) for kind, url in result["found"]
        if kind == "script" or not (url == "" or url.startswith(("data:", "blob:", "about:"))
                                    or (urlparse(url).hostname, urlparse(url).port) == (origin.hostname, origin.port))
    ]  # fmt: skip
    assert bad == [], bad
    assert not result["pwned"]
    assert [u for u in outside if "evil" in u or "javascript" in u] == []


def sign_in(page, dashboard, user: str) -> None:
    page.goto(dashboard)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name=f"Sign in as {user}").click()  # the provider's login page
    expect(page.get_by_text("Work on alert")).to_be_visible(timeout=30_000)


def test_sign_in_is_required(page, dashboard):
    """Before signing in, the dashboard shows only the sign-in button."""
    page.goto(dashboard)
    expect(page.get_by_role("button", name="Sign in")).to_be_visible(timeout=30_000)
    settled(page)
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


def test_admin_imports_the_hostile_document(page, dashboard, outside):
    """The admin imports a document of hostile strings; the queue shows them as text."""
    page.get_by_role("region", name="blastshield-graph/v1 JSON").locator("input[type=file]").set_input_files(
        files=[{"name": "hostile.json", "mimeType": "application/json", "buffer": hostile_document()}]
    )
    page.get_by_role("button", name="Validate and import").click()
    expect(page.get_by_text("Imported hostile")).to_be_visible(timeout=60_000)
    page.goto(f"{dashboard}/?alert=BH-HOSTILE-1")
    expect(page.get_by_text("Selected BH-HOSTILE-1")).to_be_visible(timeout=30_000)
    assert_clean(page, dashboard, outside)


def test_path_graph_and_briefing_stay_text(page, dashboard, outside):
    """The path graph and the fallback briefing show the hostile title as text."""
    page.goto(f"{dashboard}/graph?alert=BH-HOSTILE-1")
    expect(page.get_by_text("Qualifying paths (1)")).to_be_visible(timeout=30_000)
    page.get_by_text("Briefing for this alert").click()
    expect(page.get_by_text("[Re-authenticate here](https:").first).to_be_visible(timeout=30_000)
    assert_clean(page, dashboard, outside)


def test_containment_run_reasons_stay_text(page, dashboard, outside):
    """A containment run on the hostile alert completes; its steps, verdict and briefing stay text."""
    page.goto(f"{dashboard}/containment?alert=BH-HOSTILE-1")
    expect(page.get_by_text("Current response candidates")).to_be_visible(timeout=30_000)
    page.get_by_text("I confirm: this run may block session routes in the graph").click()
    page.get_by_role("button", name="Start containment run").click()
    expect(page.get_by_text("CONTAINED — completed")).to_be_visible(timeout=60_000)
    assert_clean(page, dashboard, outside)


def test_audit_and_report_preview_stay_text(page, dashboard, outside):
    """The audit page and the incident report preview of the hostile run stay text."""
    page.goto(f"{dashboard}/audit")
    expect(page.get_by_text("COMPLETED").filter(visible=True).first).to_be_visible(timeout=30_000)
    page.get_by_text("Preview the report").click()
    expect(page.get_by_text("Incident report: run").first).to_be_visible(timeout=60_000)
    assert_clean(page, dashboard, outside)
