"""Interrupted commands: SIGTERM and SIGHUP stop a command as SIGINT does, and nothing outlives it.

Before: SIGTERM in the middle of `import-aws` (from `timeout`, a service manager, or a closed terminal
sending SIGHUP) killed the command at once and left its embedded database server running; servers
piled up over a day. Now every command is stopped on SIGINT's path: the store closes (stopping the
server it started), the import's staging graph is deleted and the graph is as it was.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from blastshield_core import seed
from blastshield_core.base.settings import load_settings
from blastshield_core.graph.store import Store
from tests.conftest import ROOT, cli_at_a_terminal, cli_started_with, graph_snapshot, run_cli, server_gone


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> Path:
    """A synthetic account whose import takes a few seconds (long enough to be interrupted)."""
    out = tmp_path_factory.mktemp("export") / "account"
    result = run_cli(
        "generate-aws", "--users", "3000", "--roles", "600", "--policies", "600", "--out", str(out), timeout=300
    )
    assert result.returncode == 0, result.stderr
    return out


def _server_pid(data_dir: Path) -> int | None:
    for registry in data_dir.rglob("*.settings"):
        try:
            entry = json.loads(registry.read_text())
            return int(Path(entry["pidfile"]).read_text().strip())
        except (OSError, ValueError, KeyError):
            continue
    return None


def _state(data_dir: Path) -> tuple[dict, list[str]]:
    store = Store(load_settings(environ={}, data_dir=data_dir))
    try:
        return graph_snapshot(store), sorted(
            n.decode() if isinstance(n, bytes) else n for n in store.command("GRAPH.LIST")
        )
    finally:
        store.close()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_in_the_middle_of_an_import_leaves_no_server_and_the_graph_unchanged(export, tmp_path, signum):
    data_dir = tmp_path / "data"
    store = Store(load_settings(environ={}, data_dir=data_dir))
    seed(store)
    store.close()
    before = _state(data_dir)

    env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_"))}
    proc = subprocess.Popen(
        cli_at_a_terminal("import-aws", str(export), "--data-dir", str(data_dir)),  # SIGINT as Ctrl-C, not inherited
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    loading = threading.Event()
    seen = bytearray()

    def watch() -> None:
        assert proc.stderr is not None
        while chunk := proc.stderr.read1(4096):
            seen.extend(chunk)
            if b"importing [" in seen:
                loading.set()

    reader = threading.Thread(target=watch, daemon=True)
    reader.start()
    try:
        assert loading.wait(240), bytes(seen).decode(errors="replace")
        server = _server_pid(data_dir)
        assert server is not None and not server_gone(server)
        proc.send_signal(signum)
        code = proc.wait(120)
    finally:
        if proc.poll() is None:  # pragma: no cover - only on a hang
            proc.kill()
            proc.wait()
    reader.join(10)
    text = bytes(seen).decode(errors="replace")
    assert code == 128 + signum, text
    assert f"interrupted ({signal.Signals(signum).name}): stopped" in text and "Traceback" not in text
    deadline = time.monotonic() + 10
    while not server_gone(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server_gone(server), "the embedded server outlived the interrupted import"
    assert _state(data_dir) == before  # same nodes, relationships and graphs: no staging graph left


def _start_import(export: Path, data_dir: Path) -> tuple[subprocess.Popen, int]:
    """`import-aws` started and waited for until it loads the graph; the process and its server's pid."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_"))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "blastshield_core", "import-aws", str(export), "--data-dir", str(data_dir)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    seen = bytearray()
    assert proc.stderr is not None
    while b"importing [" not in seen:
        chunk = proc.stderr.read1(4096)
        assert chunk, bytes(seen).decode(errors="replace")
        seen.extend(chunk)
    server = _server_pid(data_dir)
    assert server is not None and not server_gone(server)
    return proc, server


def test_after_a_hard_kill_the_next_start_removes_the_staging_graph_and_stops_the_server(export, tmp_path):
    """SIGKILL can clean up nothing: the next store to open removes the staging graph of the import
    whose process is gone, and the server left behind is stopped when that store closes.

    Before: the staging graph (177,578 relationships in the reported case) stayed for good, even
    across restarts, and the server ran on with no owner.
    """
    data_dir = tmp_path / "data"
    store = Store(load_settings(environ={}, data_dir=data_dir))
    seed(store)
    store.close()
    before = _state(data_dir)
    proc, server = _start_import(export, data_dir)
    time.sleep(0.5)  # well inside the load: the staging graph exists
    proc.kill()
    proc.wait(60)
    assert not server_gone(server)  # nothing could stop it

    light = Store(load_settings(environ={}, data_dir=data_dir), reads_only=True)
    try:
        left = [n for n in light.command("GRAPH.LIST") if "__staging_" in str(n)]
    finally:
        light.close()
    assert left, "the killed import left no staging graph to clean up (it was killed too late)"

    assert _state(data_dir) == before  # opening a store removed the staging graph; the graph as it was
    deadline = time.monotonic() + 10
    while not server_gone(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server_gone(server), "the server of the killed import is still running"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_in_the_middle_of_a_containment_run_is_recorded_and_stops_the_server(tmp_path, signum):
    """The model is slow to answer; the signal arrives while `contain` waits. The run ends
    `interrupted` in the audit, naming the signal; nothing was blocked; the server is stopped."""
    from blastshield_core.graph.audit import AuditLog
    from blastshield_core.results import RunState
    from tests.helpers.gemini_fake import Delay, FakeGemini, call

    alert = "BH-CONTAINMENT-4001"
    data_dir = tmp_path / "data"
    store = Store(load_settings(environ={}, data_dir=data_dir))
    seed(store)
    store.close()
    before = _state(data_dir)
    fake = FakeGemini()
    proposal = {"alert_id": alert, "candidate_id": "block-route:route-c11-primary", "rationale": "x"}
    fake.add(Delay(60, call("select_response_candidate", proposal)))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_", "GEMINI_"))}
    env.update({"GEMINI_API_KEY": "k", "GEMINI_BASE_URL": fake.url})
    cmd = ["contain", alert, "--decider", "gemini", "--confirm", "--data-dir", str(data_dir)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "blastshield_core", *cmd],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not fake.requests and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert fake.requests, proc.communicate(timeout=30)
        server = _server_pid(data_dir)
        assert server is not None and not server_gone(server)
        proc.send_signal(signum)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:  # pragma: no cover - only on a hang
            proc.kill()
            proc.wait()
        fake.stop()
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err and f"interrupted ({signal.Signals(signum).name})" in err
    deadline = time.monotonic() + 10
    while not server_gone(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server_gone(server), "the embedded server outlived the interrupted run"

    store = Store(load_settings(environ={}, data_dir=data_dir))
    try:
        (listed,) = AuditLog(store).list_runs()
        run = AuditLog(store).get(listed.run_id)
        snapshot = graph_snapshot(store)
    finally:
        store.close()
    assert run is not None and run.state is RunState.INTERRUPTED
    assert run.reason == f"interrupted by {signal.Signals(signum).name}: the command running it was stopped"
    assert run.steps[-1].kind == "verdict" and run.actions == []
    assert snapshot == before[0]


def _started_ignoring(signum: int, *args: str) -> list[str]:
    """`python -m blastshield_core ARGS` started with `signum` ignored, as `nohup` starts a command with SIGHUP."""
    return cli_started_with(f"import signal; signal.signal({int(signum)}, signal.SIG_IGN)", *args)


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_a_command_started_with_a_signal_ignored_is_not_stopped_by_it(export, tmp_path, signum):
    """`nohup import-aws ...` starts the command with SIGHUP ignored so that closing the terminal does not stop it:
    the command keeps that (as it keeps an ignored SIGINT, base/interrupts.py) and the import ends as usual."""
    data_dir = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_"))}
    proc = subprocess.Popen(
        _started_ignoring(signum, "import-aws", str(export), "--data-dir", str(data_dir)),
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    seen = bytearray()
    try:
        assert proc.stderr is not None
        while b"importing [" not in seen:
            chunk = proc.stderr.read1(4096)
            assert chunk, bytes(seen).decode(errors="replace")
            seen.extend(chunk)
        proc.send_signal(signum)
        seen.extend(proc.stderr.read())
        code = proc.wait(240)
    finally:
        if proc.poll() is None:  # pragma: no cover - only on a hang
            proc.kill()
            proc.wait()
    text = bytes(seen).decode(errors="replace")
    assert code == 0 and "interrupted" not in text, text
    store = Store(load_settings(environ={}, data_dir=data_dir))
    try:
        assert store.read_text("MATCH (n:Identity) RETURN count(n) AS n")[0]["n"] > 0
    finally:
        store.close()
