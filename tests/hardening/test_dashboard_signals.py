"""A closed terminal stops the dashboard as SIGTERM does: no embedded database server is left behind.

`make run` serves the dashboard through `blastshield_core.interfaces.dashboard_run`, which turns
SIGHUP into SIGTERM (Streamlit handles SIGTERM and SIGINT only). The dashboard is started, a
browser opens it (so the store, and with it the embedded server, is opened), then the signal is
sent and the process must end cleanly and take its database server with it.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browser.test_browser import CHROMIUM, CHROMIUM_ARGS, wait_healthy
from tests.conftest import free_port, server_gone
from tests.helpers.dashboard_token import serve_dashboard


def _server_pid(data_dir: Path) -> int | None:
    for registry in data_dir.rglob("*.settings"):
        try:
            return int(Path(json.loads(registry.read_text())["pidfile"]).read_text().strip())
        except (OSError, ValueError, KeyError):
            continue
    return None


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_a_hang_up_stops_the_dashboard_and_its_database_server(tmp_path, signum):
    data_dir = tmp_path / "data"
    log = tmp_path / "dashboard.log"
    with log.open("w") as out:
        proc, url = serve_dashboard(free_port(), data_dir, out)
    server = None
    try:
        wait_healthy(url, proc, log)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(f"{url}/")
            # the queue lists the seeded scenarios: the store (and its embedded server) is open
            expect(page.get_by_text("BH-1042").first).to_be_attached(timeout=60_000)
            browser.close()
        server = _server_pid(data_dir)
        assert server is not None and psutil.pid_exists(server), "the dashboard's embedded server is running"
        proc.send_signal(signum)
        code = proc.wait(timeout=60)
        assert code == 0, f"ended by the signal, not by a clean stop ({code}): {log.read_text()[-2000:]}"
        if psutil.pid_exists(server):
            psutil.wait_procs([psutil.Process(server)], timeout=30)  # its own shutdown, bounded
        assert server_gone(server), "the embedded database server outlived the dashboard"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if server is not None and not server_gone(server):  # a failed run leaves nothing behind either
            psutil.Process(server).kill()
