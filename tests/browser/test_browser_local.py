"""Local only (Debian Chromium through Playwright against the dashboard as `make run` serves it): loading each page makes no
request beyond the dashboard's own origin, and arrivals with query parameters log no stack trace.
Every wait is for Streamlit's rerun to settle (the app's script state), never for time."""

from __future__ import annotations

import subprocess
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browser.test_browser import CHROMIUM, CHROMIUM_ARGS, SETTLED, open_dashboard, settled, wait_healthy
from tests.conftest import free_port
from tests.helpers.dashboard_token import serve_dashboard


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The dashboard on a free loopback port as `make run` serves it, its server log in a file; stopped by
    its pid afterwards."""
    workdir = tmp_path_factory.mktemp("local")
    log = workdir / "server.log"
    with log.open("wb") as out:
        proc, url = serve_dashboard(free_port(), workdir / "data", out)
    try:
        wait_healthy(url, proc, log)
        yield url, log
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def browser_page(served):
    requests: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.on("request", lambda request: requests.append(request.url))
        page = context.new_page()
        open_dashboard(page, served[0])  # the URL `make run` prints, as the starting user opens it
        yield page, requests
        context.close()
        browser.close()


PAGES = [
    ("", "alert queue"),
    ("walkthrough", "Five-minute walkthrough"),
    ("graph?alert=BH-1042&depth=4", "No qualifying path within 4 hops"),
    ("graph?alert=BH-CONTAINMENT-4001", "Qualifying paths (2)"),
    ("containment?alert=BH-CONTAINMENT-4001&cap=1&decider=rules", "Current response candidates"),
    ("audit", "Audit"),
    ("aws", "AWS accounts"),
]


@pytest.mark.parametrize(("path", "text"), PAGES)
def test_loading_a_page_requests_nothing_beyond_the_dashboards_origin(browser_page, served, path, text):
    page, requests = browser_page
    url, _ = served
    requests.clear()
    page.goto(f"{url}/{path}")
    expect(page.get_by_text(text).first).to_be_visible(timeout=60_000)
    page.wait_for_function(SETTLED, timeout=60_000)
    origin = urlsplit(url).netloc
    assert requests, "the recorder saw the page's own requests"
    elsewhere = sorted({r for r in requests if urlsplit(r).scheme in ("http", "https", "ws", "wss")
                        and urlsplit(r).netloc != origin})  # fmt: skip
    assert elsewhere == []


def test_a_query_parameter_arrival_applies_before_use_and_logs_no_stack_trace(browser_page, served):
    """`?cap=1` shows 1 in the cap box at once; the arrivals above and this one leave no trace in the log."""
    page, _ = browser_page
    url, log = served
    page.goto(f"{url}/containment?alert=BH-CONTAINMENT-4001&cap=1&decider=rules")
    page.wait_for_function(SETTLED, timeout=60_000)
    expect(page.get_by_label("Action cap (1-10)")).to_have_value("1", timeout=30_000)
    page.goto(f"{url}/graph?alert=BH-1042&depth=5")
    page.wait_for_function(SETTLED, timeout=60_000)
    expect(page.get_by_text("Qualifying paths (1)")).to_be_visible(timeout=60_000)
    text = log.read_text(errors="replace")
    assert "Traceback" not in text and "default value but also had its value set" not in text, text[-3000:]


def test_the_upload_boxes_show_the_importers_limit(browser_page, served):
    """The figure by each upload box (the graph document's on Alerts, the AWS exports' on AWS accounts) is
    the importer's (512 MB); the box's own line, rounded to 1GB, is not shown."""
    from blastshield_core.graph.ingest import MAX_DOCUMENT_BYTES

    page, _ = browser_page
    url, _ = served
    page.goto(url)
    page.wait_for_function(SETTLED, timeout=60_000)
    expect(page.get_by_text(f"blastshield-graph/v1 JSON, at most {MAX_DOCUMENT_BYTES >> 20} MB")).to_be_visible(
        timeout=30_000
    )
    expect(page.get_by_text("per file • JSON").first).to_be_hidden()
    page.goto(f"{url}/aws")
    page.wait_for_function(SETTLED, timeout=60_000)
    expect(page.get_by_text(f"at most {MAX_DOCUMENT_BYTES >> 20} MB per file")).to_be_visible(timeout=30_000)
    expect(page.get_by_text("per file • JSON").first).to_be_hidden()


def test_open_alert_and_select_it_wins_over_a_row_picked_in_the_queue(browser_page, served):
    """A row picked in the queue table, then an alert opened from the form: "Work on alert" shows the new one."""
    page, _ = browser_page
    url, _ = served
    page.goto(url)
    settled(page)
    grid = page.get_by_test_id("stDataFrame").first
    expect(grid).to_be_visible(timeout=30_000)
    work = page.get_by_role("combobox", name="Work on alert")
    first = work.input_value()
    box = grid.bounding_box()
    page.mouse.click(box["x"] + 18, box["y"] + 35 + 35 + 17)  # the second row's selection box
    # the grid sends the selection a moment after the click: wait for the rerun it causes to show it,
    # then for that rerun to end, so that the form below is not submitted into a rerun in flight
    expect(work).not_to_have_value(first, timeout=30_000)
    settled(page)
    picked = work.input_value()
    page.get_by_label("Entity: id, ARN or name").fill("deploy-role")
    page.get_by_label("Title", exact=True).fill("Picked after a row")
    page.get_by_role("button", name="Open alert and select it").click()
    expect(page.get_by_text("it is selected")).to_be_visible(timeout=30_000)
    settled(page)
    opened = page.get_by_text("Opened alert").inner_text().split()[2]
    assert picked != opened and opened.startswith("AN-")
    expect(work).to_have_value(opened)  # the box shows what the caption says is selected
    expect(page.get_by_text(f"Selected {opened}")).to_be_visible()
