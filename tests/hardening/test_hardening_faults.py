"""Faults: the database dies mid-run, is unreachable at start, or is started by two processes at once.

Every server killed here was started by the test itself (a store on a tmp dir, or its own
loopback server), and is cleaned up by it.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import time

import psutil
import pytest

from blastshield_core import Store, StoreUnavailable, build_services, load_settings, open_services, seed
from blastshield_core.respond.decide import RulesDecider
from blastshield_core.results import RunState
from tests.conftest import LoopbackFalkorDB, run_cli, server_gone
from tests.helpers.gemini_fake import FakeGemini

ALERT = "BH-CONTAINMENT-4001"
KILL_POINTS = ["start", "investigate", "candidates", "proposal", "validation", "intent", "action", "requery"]


def _kill(pid: int) -> None:
    """SIGKILL a server this test started, and wait until it is gone."""
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while not server_gone(pid):
        if time.monotonic() > deadline:
            raise AssertionError(f"server {pid} did not die")
        time.sleep(0.01)


def _blocked(store: Store) -> dict[str, str]:
    rows = store.read_text(
        "MATCH ()-[r]->() WHERE r.blocked_by_run IS NOT NULL RETURN r.route_id AS route, r.blocked_by_run AS run"
    )
    return {r["route"]: r["run"] for r in rows}


@pytest.mark.parametrize("kill_after", KILL_POINTS)
def test_embedded_server_killed_mid_run(tmp_path, kill_after):
    """Killing the embedded server after any step ends the run failed; the audit written so far survives a restart."""
    settings = load_settings(environ={}, data_dir=tmp_path)
    store = Store(settings)
    try:
        seed(store)
        services = build_services(store)
        pid = store.server_pid()

        def kill(run, step):
            if step.kind == kill_after and psutil.pid_exists(pid):
                _kill(pid)

        run = services.controller.run(ALERT, RulesDecider(), 3, True, on_step=kill)
    finally:
        store.close()
    assert run.state is RunState.FAILED, run.reason
    assert run.remaining_paths is None
    assert "audit write failed" in run.reason
    verdict = run.steps[-1].data
    written = [s.kind for s in run.steps[: verdict["audit_failed_step"] - (0 if verdict["step_written"] else 1)]]
    assert written[-1] == kill_after
    # An action counts as verified only if the fresh re-query that verified it ran before the kill.
    assert all(not a.verified for a in run.actions) or "requery" in written

    reopened = Store(settings)  # a restart on the same data directory
    try:
        stored = build_services(reopened).audit.get(run.run_id)
        assert stored is not None
        assert [s.kind for s in stored.steps] == written
        assert stored.state is RunState.RUNNING  # its verdict could not be written; it never claims containment
        blocked = _blocked(reopened)
        assert set(blocked.values()) <= {run.run_id}
        assert set(blocked) == {a.route_id for a in run.actions if a.status == "applied"}
    finally:
        reopened.close()


def test_bulk_import_survives_a_hard_kill(tmp_path):
    """A fresh import (GRAPH.BULK, index build, RENAME) is in the append-only file when it
    returns: after a SIGKILL and a restart the graph, its indexes and its answers are all there."""
    from blastshield_core import import_document, parse_document
    from blastshield_core.graph.generate import GenerateOptions, generate
    from blastshield_core.read.tools import ReadTools

    settings = load_settings(environ={}, data_dir=tmp_path)
    document = parse_document(generate(GenerateOptions(edges=3000, seed=5)).to_document())
    snapshot_text = (
        "MATCH (a)-[r]->(b) RETURN a.id AS a, labels(a) AS la, properties(a) AS pa, type(r) AS t,"
        " properties(r) AS pr, b.id AS b ORDER BY a, t, b"
    )
    store = Store(settings)
    try:
        import_document(store, document, replace=True)
        before = store.read_text(snapshot_text)
        answer = ReadTools(store).investigate_alert(document.alerts[0].id)
        _kill(store.server_pid())
    finally:
        store.close()
    reopened = Store(settings)
    try:
        assert len(before) == 3000
        assert reopened.read_text(snapshot_text) == before
        assert ReadTools(reopened).investigate_alert(document.alerts[0].id) == answer
        assert {row["label"] for row in reopened.read("index_status")} == {
            "Entity",
            "Alert",
            "HAS_SESSION",
            "CAN_ACCESS",
        }
    finally:
        reopened.close()


def test_loopback_server_killed_by_the_decider(tmp_path):
    """A FalkorDB server that dies while the decider thinks ends the run failed, with no action and no claim."""
    server = LoopbackFalkorDB(tmp_path)
    store = Store(load_settings(environ={}, falkordb_url=server.url))
    try:
        seed(store)
        services = build_services(store)

        class KillingDecider(RulesDecider):
            def decide(self, ctx):
                server.proc.kill()
                server.proc.wait(timeout=10)
                return super().decide(ctx)

        run = services.controller.run(ALERT, KillingDecider(), 3, True)
    finally:
        store.close()
        server.stop()
    assert run.state is RunState.FAILED
    assert run.actions == []
    assert "audit write failed at step 4 (proposal)" in run.reason
    assert run.steps[-1].kind == "verdict" and run.steps[-1].summary.startswith("failed")


def test_server_gone_before_the_run_starts_refuses_with_query_failed(tmp_path):
    """A store whose server is already gone cannot start a run: QueryFailed, nothing claimed."""
    from blastshield_core import QueryFailed

    store = Store(load_settings(environ={}, data_dir=tmp_path))
    try:
        seed(store)
        services = build_services(store)
        _kill(store.server_pid())
        with pytest.raises(QueryFailed):
            services.controller.run(ALERT, RulesDecider(), 3, True)
    finally:
        store.close()


def test_cli_contain_reports_a_server_killed_mid_run(tmp_path):
    """`contain --json` against a server that dies mid-run prints a failed run or a query failure, no traceback."""
    server = LoopbackFalkorDB(tmp_path)
    fake = FakeGemini()
    try:
        store = Store(load_settings(environ={}, falkordb_url=server.url))
        seed(store)
        store.close()

        # The model's first reply is slow; the server dies while the CLI waits for it.
        from tests.helpers.gemini_fake import Delay, call

        fake.add(
            Delay(
                1.5,
                call(
                    "select_response_candidate",
                    {"alert_id": ALERT, "candidate_id": "block-route:route-c11-primary", "rationale": "x"},
                ),
            )
        )
        env = {"FALKORDB_URL": server.url, "GEMINI_API_KEY": "k", "GEMINI_BASE_URL": fake.url}
        cmd = ["-m", "blastshield_core", "contain", ALERT, "--decider", "gemini", "--confirm", "--json"]
        import sys

        from tests.conftest import ROOT

        full_env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_", "GEMINI_"))}
        full_env.update(env)
        proc = subprocess.Popen(
            [sys.executable, *cmd], cwd=ROOT, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 30
        while not fake.requests and time.monotonic() < deadline:
            time.sleep(0.02)
        server.proc.kill()
        server.proc.wait(timeout=10)
        out, err = proc.communicate(timeout=60)
    finally:
        fake.stop()
        server.stop()
    assert "Traceback" not in err, err
    payload = json.loads(out)
    assert proc.returncode == 1
    assert payload["state"] == "failed" and "audit write failed" in payload["reason"]
    assert payload["actions"] == []


UNREACHABLE = [
    "redis://127.0.0.1:1",
    "redis://user:secret@127.0.0.1:1/0",
    "unix:///nonexistent/falkordb.sock",
]


@pytest.mark.parametrize("url", UNREACHABLE)
def test_open_services_unreachable_is_a_clear_error(url):
    """open_services against an unreachable FALKORDB_URL raises StoreUnavailable naming it, password redacted."""
    with pytest.raises(StoreUnavailable) as err:
        open_services(load_settings(environ={}, falkordb_url=url))
    assert "cannot reach FalkorDB" in str(err.value) and "secret" not in str(err.value)


@pytest.mark.parametrize(
    "args",
    [
        ["alerts"],
        ["investigate", "BH-1042"],
        ["contain", ALERT, "--decider", "rules", "--confirm"],
        ["runs"],
        ["seed"],
        ["mcp"],
    ],
)
def test_cli_unreachable_url_exit_four_without_traceback(args):
    """Every command against an unreachable server exits 4 with a one-line message (text) or JSON status."""
    env = {"FALKORDB_URL": "redis://user:secret@127.0.0.1:1"}
    text = run_cli(*args, env=env, timeout=60)
    assert text.returncode == 4 and "Traceback" not in text.stderr
    assert text.stderr.startswith("error: cannot reach FalkorDB") and "secret" not in text.stderr
    as_json = run_cli(*args, "--json", env=env, timeout=60)
    assert as_json.returncode == 4 and json.loads(as_json.stdout)["status"] == "query_failed"


def test_cli_bad_url_scheme_is_invalid_input():
    """A FALKORDB_URL that is not redis:// is refused as a setting (exit 2), with no traceback."""
    proc = run_cli("alerts", "--json", env={"FALKORDB_URL": "http://127.0.0.1:6379"})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "FALKORDB_URL" in json.loads(proc.stdout)["message"]


def test_cli_against_a_server_that_is_not_redis():
    """A FALKORDB_URL pointing at an HTTP server gives exit 4 and a message, not a traceback."""
    fake = FakeGemini()
    try:
        port = fake.url.rsplit(":", 1)[1]
        proc = run_cli("alerts", "--json", env={"FALKORDB_URL": f"redis://127.0.0.1:{port}"}, timeout=60)
    finally:
        fake.stop()
    assert proc.returncode == 4 and "Traceback" not in proc.stderr
    assert json.loads(proc.stdout)["status"] == "query_failed"


def test_cli_against_redis_without_the_graph_module(tmp_path):
    """A plain redis-server (no FalkorDB module) answers every query with a failure: exit 4, no traceback."""
    server = LoopbackFalkorDB(tmp_path, graph_module=False)
    try:
        result = run_cli("alerts", "--json", env={"FALKORDB_URL": server.url})
        contain = run_cli(
            "contain", ALERT, "--decider", "rules", "--confirm", "--json", env={"FALKORDB_URL": server.url}
        )
    finally:
        server.stop()
    assert result.returncode == 4 and "Traceback" not in result.stderr
    assert json.loads(result.stdout)["status"] == "query_failed"
    assert contain.returncode == 4 and "Traceback" not in contain.stderr


def _start_and_write(data_dir: str, barrier, rounds: int, worker: int, queues) -> None:
    """One process: for each round, wait for the other, open the store at the same instant, write, close."""
    errors, pids = queues
    try:
        for round_no in range(rounds):
            barrier.wait(timeout=60)
            store = Store(load_settings(environ={}, data_dir=data_dir))
            pids.put(store.server_pid())
            try:
                store.execute_write("CREATE (:Entity:Identity {id: $id, name: $id})", {"id": f"w{round_no}-{worker}"})
            finally:
                store.close()
    except Exception as exc:  # reported to the parent, which fails the test
        errors.put(f"worker {worker}: {type(exc).__name__}: {exc}")


def test_simultaneous_starts_twenty_rounds_lose_no_write(tmp_path):
    """Two processes start on one embedded file at the same instant, 20 times: all 40 writes are kept."""
    rounds, width = 20, 2
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(width)
    errors, pids = ctx.Queue(), ctx.Queue()
    procs = [
        ctx.Process(target=_start_and_write, args=(str(tmp_path), barrier, rounds, i, (errors, pids)))
        for i in range(width)
    ]
    started = time.perf_counter()
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=240)
    elapsed = time.perf_counter() - started
    for proc in procs:
        if proc.is_alive():  # pragma: no cover - only on a hang
            proc.kill()
            proc.join()
    problems = []
    while not errors.empty():
        problems.append(errors.get())
    assert problems == [] and all(p.exitcode == 0 for p in procs), problems
    servers = set()
    while not pids.empty():
        servers.add(pids.get())
    assert servers and all(server_gone(pid) for pid in servers), "an embedded server outlived its stores"
    store = Store(load_settings(environ={}, data_dir=tmp_path))
    try:
        rows = store.read_text("MATCH (n:Identity) RETURN n.id AS id")
    finally:
        store.close()
    assert {r["id"] for r in rows} == {f"w{r}-{i}" for r in range(rounds) for i in range(width)}
    assert elapsed < 120, f"20 rounds took {elapsed:.1f}s"
    print(f"20 rounds of 2 simultaneous starts: {elapsed:.1f}s, {len(servers)} distinct server processes")


def test_no_server_outlives_a_killed_run(tmp_path):
    """After a kill, reopening the same directory starts a fresh server, and closing stops it."""
    settings = load_settings(environ={}, data_dir=tmp_path)
    store = Store(settings)
    _kill(store.server_pid())
    store.close()
    again = Store(settings)
    pid = again.server_pid()
    assert again.read("list_alerts") == []
    again.close()
    assert server_gone(pid)


def test_server_killed_between_the_block_and_its_read_back(tmp_path):
    """If the server dies right after the block is written, the action still says applied and the run ends failed."""
    store = Store(load_settings(environ={}, data_dir=tmp_path))
    try:
        seed(store)
        services = build_services(store)
        pid = store.server_pid()
        original_read, original_write = store.read, store.execute_locked_write
        armed = []

        def write_then_arm(lock, text, params=None, **kwargs):
            result = original_write(lock, text, params, **kwargs)
            if params and "route_id" in params:  # the block_route write has just returned
                armed.append(True)
            return result

        def read_then_die(name, params=None, **kwargs):
            if armed and name in ("routes_by_ids", "relationship_by_ends") and psutil.pid_exists(pid):
                _kill(pid)  # the read-back meets a dead server
            return original_read(name, params, **kwargs)

        store.execute_locked_write = write_then_arm
        store.read = read_then_die
        run = services.controller.run(ALERT, RulesDecider(), 3, True)
    finally:
        store.close()
    assert run.state is RunState.FAILED
    assert [(a.route_id, a.status, a.verified) for a in run.actions] == [("route-c11-primary", "applied", False)]
    assert "audit write failed at step 7 (action)" in run.reason  # step 6 is the intent


def test_a_server_that_accepts_and_never_answers_is_named_not_waited_on(tmp_path):
    """An embedded server that is running but stuck (here stopped with SIGSTOP; seen once as a
    FalkorDB thread waiting on its own lock while it replayed its append-only file) accepts
    connections and answers nothing. Every way of opening the store gives up after one socket
    timeout with the server's process id and what to do, instead of waiting once per connection
    (a full store took three timeouts and printed redis-py tracebacks as the process exited)."""
    settings = load_settings(environ={"BLASTSHIELD_QUERY_TIMEOUT_MS": "1000"}, data_dir=tmp_path)
    holder = Store(settings)
    pid = holder.server_pid()
    os.kill(pid, signal.SIGSTOP)
    try:
        for kind in ({"reads_only": True}, {"light_writes": True}, {}):
            started = time.monotonic()
            with pytest.raises(StoreUnavailable) as refused:
                Store(settings, **kind)
            assert f"the embedded server (process {pid}) accepted the connection but did not answer" in str(
                refused.value
            ), kind
            assert f"kill {pid}" in str(refused.value)
            assert time.monotonic() - started < 3 * settings.socket_timeout_s, kind  # one timeout, not several
        proc = run_cli("alerts", "--data-dir", str(tmp_path), env={"BLASTSHIELD_QUERY_TIMEOUT_MS": "1000"})
        assert proc.returncode == 4 and f"process {pid}" in proc.stderr and "Traceback" not in proc.stderr
    finally:
        os.kill(pid, signal.SIGCONT)
    assert holder.command("PING") is True  # going again, it answers
    holder.close()
