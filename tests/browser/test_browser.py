"""A real browser (Debian Chromium through Playwright) against the dashboard as `make run` serves it, on a free port."""

from __future__ import annotations

import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.conftest import ROOT, free_port
from tests.helpers.dashboard_token import serve_dashboard

ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def wait_healthy(url: str, proc: subprocess.Popen, log: Path | None = None) -> None:
    """Wait (at most 60 s) until the dashboard at `url` answers its health check; kill it and fail otherwise."""
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.read() == b"ok":
                    return
        except OSError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            tail = log.read_text()[-2000:] if log is not None else ""
            raise RuntimeError("the dashboard did not start" + (f": {tail}" if tail else ""))
        time.sleep(0.2)


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory):
    """The dashboard served as `make run` serves it (under its token) on the embedded default, stopped
    afterwards: its URL, the token's path included (pages are `{url}/graph`, ...)."""
    data = tmp_path_factory.mktemp("browser") / "data"
    proc, url = serve_dashboard(free_port(), data, subprocess.DEVNULL)
    wait_healthy(url, proc)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def page(dashboard):
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1440, "height": 1000})
        first = context.new_page()
        open_dashboard(first, dashboard)  # the URL `make run` prints, as its user opens it
        yield first
        context.close()
        browser.close()


# Streamlit's own mark that a rerun has finished: the app's script state, not a time.
SETTLED = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return app !== null && app.getAttribute('data-test-script-state') === 'notRunning'
    && document.querySelector('[data-testid="stMain"]') !== null;
}"""


def open_dashboard(page, url: str) -> None:
    """Open the dashboard's URL (its token in the path), as its user does, and wait for the queue."""
    page.goto(f"{url}/")
    expect(page.get_by_text("alert queue").first).to_be_visible(timeout=60_000)
    settled(page)


def settled(page, timeout: float = 60_000) -> None:
    """Wait until Streamlit's rerun has finished (never for a fixed time)."""
    page.wait_for_function(SETTLED, timeout=timeout)


def wait_graphs(page, count: int, timeout: float = 30_000) -> None:
    """Wait until `count` agraph drawings have a canvas (each component is an iframe)."""
    settled(page)
    for i in range(count):
        expect(page.frame_locator("iframe").nth(i).locator("canvas").first).to_be_attached(timeout=timeout)


def shot(page, name: str, height: int = 1000) -> None:
    """Save a screenshot; Streamlit scrolls inside its main area, so a tall viewport shows the whole page."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": 1440, "height": height})
    settled(page)  # the resize reruns nothing, but a rerun in flight would redraw the page
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    page.set_viewport_size({"width": 1440, "height": 1000})


def graph_frames(page) -> int:
    """How many agraph iframes rendered a drawing canvas."""
    count = 0
    for frame in page.frames:
        if frame == page.main_frame:
            continue
        try:
            if frame.locator("canvas").count() > 0:
                count += 1
        except Exception:  # a frame navigating away
            continue
    return count


def test_alert_queue_loads(page, dashboard):
    """The first screen is the alert queue with the seeded scenarios."""
    page.goto(dashboard)
    expect(page.get_by_text("alert queue")).to_be_visible(timeout=30_000)
    expect(page.get_by_text("What you are looking at")).to_be_visible()
    expect(page.get_by_text("Work on alert")).to_be_visible(timeout=30_000)
    shot(page, "alerts", 1300)


def test_path_graph_draws(page, dashboard):
    """The path graph page draws the evidence in an iframe with a canvas."""
    page.goto(f"{dashboard}/graph?alert=BH-1042")
    expect(page.get_by_text("Qualifying paths (1)")).to_be_visible(timeout=30_000)
    wait_graphs(page, 1)
    assert graph_frames(page) >= 1
    shot(page, "path-graph", 1900)


def test_containment_run_through_the_ui(page, dashboard):
    """Confirm and run the rules decider on BH-CONTAINMENT-4001: the page says completed and draws the graphs."""
    page.goto(f"{dashboard}/containment?alert=BH-CONTAINMENT-4001")
    expect(page.get_by_text("Current response candidates")).to_be_visible(timeout=30_000)
    page.get_by_text("I confirm: this run may block session routes in the graph").click()
    button = page.get_by_role("button", name="Start containment run")
    expect(button).to_be_enabled(timeout=10_000)
    button.click()
    expect(page.get_by_text("CONTAINED — completed")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("2 verified action(s)").filter(visible=True).first).to_be_visible()
    wait_graphs(page, 2)
    assert graph_frames(page) >= 2
    shot(page, "containment", 2900)


def test_audit_page_shows_the_run(page, dashboard):
    """The audit page lists the completed run."""
    page.goto(f"{dashboard}/audit")
    try:
        expect(page.get_by_text("COMPLETED").filter(visible=True).first).to_be_visible(timeout=30_000)
    except AssertionError:
        shot(page, "audit-failure", 1500)
        raise
    shot(page, "audit", 1500)
