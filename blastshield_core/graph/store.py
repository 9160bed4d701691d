"""The FalkorDB store: embedded (falkordblite) by default, a server by URL.

Reads go through `GRAPH.RO_QUERY` only (`read`), which the server refuses for
anything that writes. `execute_write` is the one door for writes; only the
import path (`ingest`) and the action service (`act`) use it, and a test
holds that line.

Two toolchain traps are handled here:
- two processes starting the embedded server on one file at the same moment
  would start two servers and lose one side's writes, so start-up and
  shut-down are serialised with a file lock;
- redis-py re-sends a command after a socket timeout (10 retries by default),
  so a slow write could run many times. The client here never retries, the
  server ends a query at `query_timeout_ms`, and the socket timeout sits above
  that, so a timeout is a reported failure, never a silent re-run.

On the embedded default a store opened with `reads_only` or `light_writes` starts or attaches to
the server without falkordblite's client and reads over a small RESP connection (`embedded`); a
`light_writes` store writes through redis-py on the server's socket.
"""

from __future__ import annotations

import atexit
import copy
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from ..base.ownership import UntrustedLocation, check_embedded_locations, make_private
from ..base.settings import Settings
from ..base.urls import redact_url
from .embedded import (
    SERVER_CONFIG,
    SHUTDOWN,
    ReplyError,
    RespConnection,
    StartupLock,
    check_answers,
    forget_dead,
    start_answering,
    wait_for_exit,
)
from .templates import load_templates, template

__all__ = [
    "GRAPH_VERSION_PREFIX",
    "QueryFailed",
    "Store",
    "StoreRefused",
    "StoreUnavailable",
    "WriteLock",
    "WriteLockLost",
    "decode_cell",
]


def _warn(message: str, *args: object) -> None:
    import logging  # only to warn: a read command that has nothing to report never loads it

    logging.getLogger(__name__).warning(message, *args)


def _failures() -> tuple[type[BaseException], ...]:
    """What a failed call raises: an error reply of the read-only connection, a socket error, and
    redis-py's errors once it is loaded. A read-only store (`reads_only=True`) never imports
    redis-py (about 0.25 s, more than a read command's whole query), and a process that has not
    loaded it cannot get one of its errors."""
    module = sys.modules.get("redis")
    return (ReplyError, OSError, module.RedisError) if module else (ReplyError, OSError)


def _error_replies() -> tuple[type[BaseException], ...]:
    """An error the server answered with (the query was refused or failed), from either connection."""
    module = sys.modules.get("redis")
    return (ReplyError, module.ResponseError) if module else (ReplyError,)


def _watch_errors() -> tuple[type[BaseException], ...]:
    """An EXEC aborted by a change to a watched key (nothing ran): redis-py's, which every writer uses."""
    module = sys.modules.get("redis")
    return (module.WatchError,) if module else ()


T = TypeVar("T")
CLIENT_NAME_PREFIX = "blastshield"
LOCK_TIMEOUT_S = 60.0
WRITE_LOCK_TIMEOUT_S = 120.0  # how long a writer waits for the write lock
WRITE_LOCK_TTL_S = 30.0  # the lock's lifetime; renewed every third of it while held
LOCKED_WRITE_ATTEMPTS = 5  # a locked write whose EXEC was aborted by a renewal (nothing ran) is tried again
INDEX_WAIT_S = 60.0  # how long opening the embedded database waits for its indexes
FORK_WAIT_S = 30.0  # how long a graph copy waits for the server's background save or rewrite to end


class QueryFailed(RuntimeError):
    """A query did not complete (timeout, server error, lost connection)."""


class StoreUnavailable(QueryFailed):
    """The database could not be opened or reached."""


class StoreRefused(StoreUnavailable):
    """The data directory, server registry file or socket directory is not the current user's
    alone (`base.ownership`): nothing was opened (the command line exits 2)."""


class WriteLockLost(QueryFailed):
    """A writer no longer held the write lock when it tried to commit; nothing was written."""


# RENAME only while the caller's token is still the lock's value: the check and the
# rename are one server-side step, so an import whose lock expired never replaces
# the live graph (and never erases a block applied meanwhile).
_RENAME_IF_HELD = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return redis.error_reply('LOCK_LOST the write lock is no longer held')
end
local renamed = redis.call('RENAME', KEYS[2], KEYS[3])
redis.call('INCR', KEYS[4])
return renamed
"""
# A counter per graph, bumped in the same transaction as every write to it (and by a
# rename over it): a reader that cached something computed at version N knows it is
# still current while the counter reads N. Never bumped before the write commits.
GRAPH_VERSION_PREFIX = "blastshield:graph-version:"


class WriteLock:
    """A held write lock: its key, its token, and a thread renewing it until released."""

    def __init__(self, name: str, lock: Any, ttl: float):
        self.name = name
        self.ttl = ttl
        self._lock = lock
        token = lock.local.token
        self.token = token.decode() if isinstance(token, bytes) else str(token)
        self.lost = False
        self.renewals = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start_renewing(self) -> None:
        self._thread = threading.Thread(target=self._renew, name="blastshield-lock-renew", daemon=True)
        self._thread.start()

    def _renew(self) -> None:
        while not self._stop.wait(self.ttl / 3):
            try:
                self._lock.extend(self.ttl, replace_ttl=True)
                self.renewals += 1
            except Exception:  # LockNotOwnedError, or the server is gone: the commit check will refuse
                self.lost = True
                return

    def stop_renewing(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


def _no_retry() -> Any:
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return Retry(NoBackoff(), 0)


class Store:
    """One connection to the database holding the scenario and audit graphs."""

    def __init__(self, settings: Settings, *, reads_only: bool = False, light_writes: bool = False):
        """`reads_only` opens the embedded database through `embedded` (no redis-py import, for the
        command line's read commands): reads, `graph_version` and `command` work, writes do not.
        `light_writes` opens it the same way and writes too, through a redis-py client on the
        server's socket (for a command that writes once: no falkordblite client or filelock to
        import; the same lock, transactions and keys as every other writer). With `falkordb_url`
        set neither changes anything."""
        load_templates()  # a missing template fails here, at start-up
        self.settings = settings
        self._client_name = f"{CLIENT_NAME_PREFIX}-{os.getpid()}-{id(self):x}"
        self._lock: Any = None  # the data directory's start-up lock (embedded only)
        self._closed = False
        self._close_guard = threading.Lock()
        self._embedded: Any = None
        self._owner = True
        self.write_lock_ttl_s = WRITE_LOCK_TTL_S
        self._light: Any = None  # the light connection, when reads_only or light_writes opened the embedded server
        self._reads: Any = None  # a full embedded store's connection for reads (see `_open_embedded`)
        self._light_writes = light_writes and not reads_only and not settings.falkordb_url
        if settings.falkordb_url:
            self._db = self._open_remote(settings)
        elif reads_only or self._light_writes:
            self._db = self._open_light(settings)
        else:
            self._db = self._open_embedded(settings)
        atexit.register(self.close)
        if not settings.falkordb_url:
            self._wait_for_rebuilt_indexes()
        if not reads_only:
            self.remove_orphan_staging()

    def remove_orphan_staging(self) -> list[str]:
        """Delete the staging graphs of imports whose process is gone (see `staging.orphans`); their names."""
        from .staging import orphans

        try:
            found = orphans(self.command("GRAPH.LIST"), local_server=not self.settings.falkordb_url)
            for name in found:
                self.command("GRAPH.DELETE", name)
        except QueryFailed as exc:  # a store that cannot list its graphs fails on its first real call
            _warn("staging graphs of gone imports not removed: %s", exc)
            return []
        return found

    # -- opening -----------------------------------------------------------
    def _wait_for_rebuilt_indexes(self) -> None:
        """A restarted server rebuilds its indexes in the background after loading its file,
        and queries scan until they are built (35-120 ms an investigation at 300k
        relationships instead of about 1 ms; the rebuild took 0.4 s), so opening waits."""
        for graph in (self.settings.graph, self.settings.audit_graph):
            try:
                built = self.wait_for_indexes(graph)
            except QueryFailed as exc:
                self.close()
                raise StoreUnavailable(f"the embedded FalkorDB stopped answering: {exc}") from None
            if not built:
                _warn("indexes of %s still building after %.0f s; queries scan meanwhile", graph, INDEX_WAIT_S)

    def _open_remote(self, settings: Settings) -> Any:
        from falkordb import FalkorDB

        url = settings.falkordb_url or ""
        failures: tuple[type[BaseException], ...] = (*_failures(), ValueError)  # redis-py is loaded by now
        try:
            db = FalkorDB.from_url(
                url,
                socket_timeout=settings.socket_timeout_s,
                socket_connect_timeout=5.0,
                retry=_no_retry(),
                retry_on_error=[],
                client_name=self._client_name,
            )
            db.connection.ping()
        except failures as exc:
            raise StoreUnavailable(f"cannot reach FalkorDB at {redact_url(url)}: {exc}") from None
        return db

    def _prepare_data_dir(self, settings: Settings, *, light: bool = False, held: Any = None) -> Any:
        """The data directory, private, and its start-up lock: falkordblite's own `FileLock`, or for a
        read-only store the same `flock` on the same file without importing filelock."""
        data_dir = settings.data_dir
        try:
            data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnavailable(f"cannot create data directory {data_dir}: {exc}") from None
        registry = settings.database_file.parent / (settings.database_file.name + ".settings")
        try:  # before anything in it is read, made private, locked or connected to
            check_embedded_locations(data_dir, registry)
        except UntrustedLocation as exc:
            raise StoreRefused(str(exc)) from None
        try:
            make_private(data_dir)
        except OSError as exc:
            raise StoreUnavailable(f"cannot create data directory {data_dir}: {exc}") from None
        lock_file = str(data_dir / "falkordb.lock")
        if held is not None:  # taken by `prestart` already, on this file
            self._lock = held
        elif light:
            self._lock = StartupLock(lock_file, timeout=LOCK_TIMEOUT_S)
        else:
            from filelock import FileLock

            self._lock = FileLock(lock_file, timeout=LOCK_TIMEOUT_S, mode=0o600)
        return self._lock

    def _open_light(self, settings: Settings) -> Any:
        from . import prestart
        from .embedded import begin

        database = settings.database_file.resolve()
        begun = prestart.take(database)  # the server and the held start-up lock, when `prestart` began it
        if begun is None:
            prestart.abandon()  # one begun for another file: its lock must not be held meanwhile
        lock = self._prepare_data_dir(settings, light=True, held=begun[1] if begun else None)
        try:
            with _released(lock) if begun else lock:
                server = begun[0] if begun else begin(database, SERVER_CONFIG)
                server.wait_started()
                conn = server.connect(self._client_name, settings.socket_timeout_s)
        except TimeoutError:  # filelock's Timeout is one
            raise StoreUnavailable(f"timed out waiting for the start-up lock in {settings.data_dir}") from None
        except Exception as exc:
            raise StoreUnavailable(f"cannot start the embedded FalkorDB in {settings.data_dir}: {exc}") from None
        self._embedded = server
        self._light = conn
        if self._light_writes:
            return _LightDb(_socket_client(server.socket_file, settings, self._client_name))
        return _LightDb(conn)

    def _open_embedded(self, settings: Settings) -> Any:
        from redislite.falkordb_client import FalkorDB

        data_dir = settings.data_dir
        lock = self._prepare_data_dir(settings)
        try:
            with lock, _private_server_start(self._client_name, settings.socket_timeout_s):
                check_answers(settings.database_file.resolve(), settings.socket_timeout_s, self._client_name)
                forget_dead(settings.database_file.resolve())  # not a server killed and not yet reaped
                db = FalkorDB(
                    str(settings.database_file.resolve()),
                    serverconfig=dict(SERVER_CONFIG),
                    socket_timeout=settings.socket_timeout_s,
                    retry=_no_retry(),
                    retry_on_error=[],
                    client_name=self._client_name,
                )
        except TimeoutError:  # filelock's Timeout is one
            raise StoreUnavailable(f"timed out waiting for the start-up lock in {data_dir}") from None
        except Exception as exc:  # redislite raises its own exception types
            raise StoreUnavailable(f"cannot start the embedded FalkorDB in {data_dir}: {exc}") from None
        self._embedded = db.client
        # Reads go over the read-only store's small RESP connection (hiredis, one socket per
        # concurrent caller) rather than through redis-py, whose per-command work was a tenth
        # of an investigation; writes, locks and scripts stay with redis-py. Same client name,
        # so the server counts it as this store's when deciding whether to stop.
        try:
            self._reads = RespConnection(db.client.socket_file, settings.socket_timeout_s, self._client_name)
        except (OSError, ReplyError):  # pragma: no cover - the server just started; reads use redis-py then
            self._reads = None
        return db

    def for_graph(self, graph: str) -> Store:
        """A view of the same connection on another scenario graph and its own audit graph (closing it is a no-op)."""
        view = copy.copy(self)
        view.settings = self.settings.model_copy(update={"graph": graph, "audit_graph": f"{graph}_audit"})
        view._owner = False
        return view

    # -- queries -----------------------------------------------------------
    @property
    def location(self) -> str:
        if self.settings.falkordb_url:
            return redact_url(self.settings.falkordb_url)
        return str(self.settings.database_file)

    def _graph_command(self, command: str, text: str, params: dict[str, Any] | None, graph: str | None) -> tuple:
        """The arguments of one GRAPH.QUERY / GRAPH.RO_QUERY: compact replies, the server's timeout."""
        return (
            command,
            graph or self.settings.graph,
            _params_header(params) + text,
            "--compact",
            "timeout",
            self.settings.query_timeout_ms,
        )

    @property
    def _read_connection(self) -> Any:
        """Where reads go: the small RESP connection of an embedded store (a full one's, or the light
        one), else the client library's."""
        if self._reads is not None:
            return self._reads
        return self._light if self._light is not None else self._db.connection

    def _read(self, text: str, params: dict[str, Any] | None, graph: str | None, parse: Callable[[list[Any]], T]) -> T:
        """One GRAPH.RO_QUERY, its compact reply given to `parse` (an empty one when the graph
        does not exist yet). Templates return only scalars, lists and maps, so rows are parsed
        here (`_value`) rather than by the client library's general parser (which also resolves
        nodes, edges and paths through schema look-ups, and took as long as the query itself
        for a page of paths)."""
        if self._closed:
            raise QueryFailed("the store is closed")
        try:
            command = self._graph_command("GRAPH.RO_QUERY", text, params, graph)
            return parse(self._read_connection.execute_command(*command))
        except _error_replies() as exc:
            if "empty key" in str(exc) or "Invalid graph operation on empty key" in str(exc):
                return parse([[]])  # the graph does not exist yet: a reply of statistics alone, no rows
            raise QueryFailed(f"query failed: {exc}") from None
        except _failures() as exc:
            raise QueryFailed(f"query failed: {type(exc).__name__}: {exc}") from None

    def read(self, name: str, params: dict[str, Any] | None = None, *, graph: str | None = None) -> list[dict]:
        """Run the named read template with GRAPH.RO_QUERY; rows as dicts."""
        return self._read(template(name).text, params, graph, _rows)

    def read_text(self, text: str, params: dict[str, Any] | None = None, *, graph: str | None = None) -> list[dict]:
        """Run template text (from `templates`) read-only."""
        return self._read(text, params, graph, _rows)

    def read_records(
        self, name: str, params: dict[str, Any] | None = None, *, graph: str | None = None
    ) -> tuple[list[str], list[list[Any]]]:
        """Run the named read template with GRAPH.RO_QUERY; the column names and the records
        undecoded, each cell a compact `[type, value]` pair for `decode_cell`. For a reader
        that decodes only what it uses (a node met on many paths is sent once per path)."""
        return self._read(template(name).text, params, graph, _records)

    def read_records_text(
        self, text: str, params: dict[str, Any] | None = None, *, graph: str | None = None
    ) -> tuple[list[str], list[list[Any]]]:
        """`read_records` for template text (from `templates.render`)."""
        return self._read(text, params, graph, _records)

    def _check_writable(self) -> None:
        if self._closed:
            raise QueryFailed("the store is closed")
        if self._light is not None and not self._light_writes:
            raise QueryFailed("this store was opened for reads only; writes need a full store")

    def execute_write(self, text: str, params: dict[str, Any] | None = None, *, graph: str | None = None) -> list[dict]:
        """Run a write. Only `ingest` and `act` call this; never retried. The graph's
        version (`graph_version`) is bumped in the same transaction."""
        self._check_writable()
        target = graph or self.settings.graph
        try:
            with self._db.connection.pipeline(transaction=True) as pipe:
                pipe.execute_command(*self._graph_command("GRAPH.QUERY", text, params, target))
                pipe.incr(self.version_key(target))
                response, _ = pipe.execute(raise_on_error=False)
            if isinstance(response, Exception):
                raise response
            return _rows(response)
        except _failures() as exc:
            raise QueryFailed(f"write failed: {type(exc).__name__}: {exc}") from None

    def version_key(self, graph: str | None = None) -> str:
        return GRAPH_VERSION_PREFIX + (graph or self.settings.graph)

    def graph_version(self, graph: str | None = None) -> int:
        """How many writes the graph has had (0 before the first): one GET, for caches keyed by it."""
        if self._closed:
            raise QueryFailed("the store is closed")
        try:
            value = self._read_connection.get(self.version_key(graph))
        except _failures() as exc:
            raise QueryFailed(f"query failed: {type(exc).__name__}: {exc}") from None
        return int(value or 0)

    def command(self, *args: Any) -> Any:
        """A raw server command (graph copy, rename, delete, list)."""
        if self._closed:
            raise QueryFailed("the store is closed")
        try:
            return self._db.connection.execute_command(*args)
        except _failures() as exc:
            raise QueryFailed(f"{args[0]} failed: {exc}") from None

    def copy_graph(self, source: str, target: str, timeout: float = FORK_WAIT_S) -> None:
        """GRAPH.COPY, which forks the server: while a snapshot or an append-only-file rewrite
        (another fork) is running the server answers "could not fork", so wait for it to end and
        try again, for at most `timeout` seconds."""
        self._check_writable()
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.command("GRAPH.COPY", source, target)
                return
            except QueryFailed as exc:
                if "could not fork" not in str(exc) or time.monotonic() > deadline:
                    raise
            time.sleep(0.05)

    @contextmanager
    def write_lock(self, graph: str | None = None, timeout: float | None = None) -> Iterator[WriteLock]:
        """Serialise writers of one graph across processes (a lock held in the server).

        The lock lives `write_lock_ttl_s` unless renewed; a thread renews it while it
        is held. A writer that lost it (a pause longer than the lifetime, a server
        restart) cannot commit: `execute_locked_write` and `rename_locked` check the
        token atomically with the write itself."""
        self._check_writable()
        name = f"blastshield:write-lock:{graph or self.settings.graph}"
        ttl = self.write_lock_ttl_s
        wait = WRITE_LOCK_TIMEOUT_S if timeout is None else timeout
        lock = self._db.connection.lock(name, timeout=ttl, blocking_timeout=wait, thread_local=False)
        try:
            acquired = lock.acquire()
        except _failures() as exc:
            raise QueryFailed(f"cannot take the write lock: {exc}") from None
        if not acquired:
            raise QueryFailed("timed out waiting for another writer to finish")
        handle = WriteLock(name, lock, ttl)
        handle.start_renewing()
        try:
            yield handle
        finally:
            handle.stop_renewing()
            try:
                lock.release()
            except _failures():  # lock expired or server gone
                pass

    def execute_locked_write(
        self, lock: WriteLock, text: str, params: dict[str, Any] | None = None, *, graph: str | None = None
    ) -> list[dict]:
        """Run a write only if `lock` is still held: the token is checked in the same
        transaction (WATCH, GET, MULTI, GRAPH.QUERY, EXEC), so a writer whose lock expired
        never commits. Never retried."""
        self._check_writable()
        query = self._graph_command("GRAPH.QUERY", text, params, graph)
        for _ in range(LOCKED_WRITE_ATTEMPTS):
            try:
                with self._db.connection.pipeline(transaction=True) as pipe:
                    pipe.watch(lock.name)
                    if not _same_token(pipe.get(lock.name), lock.token):
                        raise WriteLockLost(f"the write lock {lock.name} was lost; nothing was written")
                    pipe.multi()
                    pipe.execute_command(*query)
                    pipe.incr(self.version_key(graph))
                    (response, _) = pipe.execute(raise_on_error=False)
                    break
            except _watch_errors() as exc:
                # The lock key was touched between WATCH and EXEC, so nothing ran: the renewal
                # thread extending it does that too. Check again whether it is still ours. But
                # redis-py also says WatchError for a timeout or lost connection while watching,
                # when the write may have run: that is a failure, never tried again.
                if isinstance(cause := exc.__context__, _failures()):
                    raise QueryFailed(f"write failed: {type(cause).__name__}: {cause}") from None
                continue
            except _failures() as exc:
                raise QueryFailed(f"write failed: {type(exc).__name__}: {exc}") from None
        else:
            raise WriteLockLost(f"the write lock {lock.name} kept changing; nothing was written")
        if isinstance(response, Exception):
            raise QueryFailed(f"write failed: {response}")
        try:
            return _rows(response)
        except _failures() as exc:
            raise QueryFailed(f"write failed: {exc}") from None

    def rename_locked(self, lock: WriteLock, source: str, target: str) -> None:
        """RENAME `source` over `target` only if `lock` is still held (one server-side script)."""
        self._check_writable()
        try:
            version = self.version_key(target)
            self._db.connection.eval(_RENAME_IF_HELD, 4, lock.name, source, target, version, lock.token)
        except _error_replies() as exc:
            if "LOCK_LOST" in str(exc):
                raise WriteLockLost(f"the write lock {lock.name} was lost; the graph was not replaced") from None
            raise QueryFailed(f"RENAME failed: {exc}") from None
        except _failures() as exc:
            raise QueryFailed(f"RENAME failed: {exc}") from None

    def execute_audit_write(self, name: str, params: dict[str, Any] | None = None) -> list[dict]:
        """Write to the audit graph only (run records); never to the scenario graph."""
        return self.execute_write(template(name).text, params, graph=self.settings.audit_graph)

    def read_audit(self, name: str, params: dict[str, Any] | None = None) -> list[dict]:
        return self.read(name, params, graph=self.settings.audit_graph)

    def wait_for_indexes(self, graph: str | None = None, timeout: float = INDEX_WAIT_S) -> bool:
        """Wait until every index of `graph` is built; False if `timeout` passed first.

        An index created over existing data, or rebuilt after the server loads its
        file, builds in the background, and queries scan until it is OPERATIONAL.
        """
        deadline = time.monotonic() + timeout
        while True:
            if all(row["status"] == "OPERATIONAL" for row in self.read("index_status", graph=graph)):
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002)  # a small graph builds its indexes in a few ms

    def graph_exists(self, graph: str) -> bool:
        return bool(self.command("EXISTS", graph))

    def server_pid(self) -> int | None:
        """The embedded server's process id (None in remote mode)."""
        if self._embedded is None:
            return None
        return self._embedded.pid

    # -- closing -----------------------------------------------------------
    def close(self) -> None:
        """Disconnect; stop the embedded server when no other client uses it."""
        if not self._owner:
            return
        with self._close_guard:
            if self._closed:
                return
            self._closed = True
        try:
            atexit.unregister(self.close)
        except Exception:  # pragma: no cover - interpreter shutting down
            pass
        if self._embedded is None:
            try:
                self._db.connection.close()
            except Exception:  # pragma: no cover
                pass
            return
        assert self._lock is not None
        if self._reads is not None:
            self._reads.close()
        if self._light is not None and self._light_writes:
            self._db.connection.close()  # the writer's sockets; the light connection decides whether to stop
        try:
            with self._lock:
                if self._light is not None:
                    self._embedded.release(self._light, self._client_name)
                else:
                    self._close_embedded()
        except TimeoutError:  # pragma: no cover - another process holds the lock too long
            _warn("timed out waiting for the lock to stop the embedded server")

    def _close_embedded(self) -> None:
        client = self._embedded
        pid = client.pid
        others = 0
        try:
            # Every connection of this store carries its client name; any other
            # connection is another process still using the server.
            others = sum(1 for entry in client.client_list() if entry.get("name") != self._client_name)
        except _failures():
            pid = None  # the server is already gone
        if others and pid:
            client.connection_pool.disconnect()
            self._forget_embedded(client, remove_dirs=False)
            return
        if pid:
            try:
                client.execute_command(*SHUTDOWN)
            except _failures():
                pass  # the server closes the connection as it exits
            wait_for_exit(pid)
        client.connection_pool.disconnect()
        self._forget_embedded(client, remove_dirs=True)

    @staticmethod
    def _forget_embedded(client: Any, *, remove_dirs: bool) -> None:
        # Tell redislite the server is handled, so its own atexit/__del__ hooks
        # neither wait on it nor stop a server other processes still use.
        redis_dir = getattr(client, "redis_dir", None)
        registry = getattr(client, "settingregistryfile", None)
        if remove_dirs:
            if redis_dir and os.path.isdir(redis_dir):
                import shutil

                shutil.rmtree(redis_dir, ignore_errors=True)
            if registry and getattr(client, "cleanupregistry", False) and os.path.exists(registry):
                try:
                    os.remove(registry)
                except OSError:  # pragma: no cover
                    pass
        client.pidfile = None
        client.redis_dir = None
        client.running = False


@contextmanager
def _released(lock: Any) -> Iterator[None]:
    """Release a lock already held (by `prestart`) when the block ends."""
    try:
        yield
    finally:
        lock.__exit__(None, None, None)


class _LightDb:
    """What a light store holds in place of the client library's database object: its connection
    for writes and commands (a read-only store's RESP connection, or a light writer's redis-py client)."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection


def _socket_client(path: str, settings: Settings, client_name: str) -> Any:
    """A redis-py client on the embedded server's unix socket, configured as a full store's: replies
    decoded, the query timeout's socket timeout, never retried, named as the store."""
    from redis import Redis

    return Redis(
        unix_socket_path=path,
        socket_timeout=settings.socket_timeout_s,
        socket_connect_timeout=5.0,
        retry=_no_retry(),
        retry_on_error=[],
        client_name=client_name,
        decode_responses=True,
    )


def _same_token(value: Any, token: str) -> bool:
    if isinstance(value, bytes):
        value = value.decode(errors="replace")
    return value == token


def _params_header(params: dict[str, Any] | None) -> str:
    """`CYPHER name=value ...` ahead of the query text."""
    if not params:
        return ""
    return "CYPHER " + " ".join(f"{name}={_literal(value)}" for name, value in params.items()) + " "


def _literal(value: Any) -> str:
    """A parameter value as the CYPHER header spells it, as falkordb-py's `stringify_param_value`
    does (a test holds the two equal; the client library is not imported by a read command)."""
    if isinstance(value, str):
        if not value:
            return '""'
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if value is None:
        return "null"
    if isinstance(value, list | tuple):
        return "[" + ",".join(map(_literal, value)) + "]"
    if isinstance(value, dict):
        parts = []
        for key, item in value.items():
            name = key.decode() if isinstance(key, bytes) else str(key)
            if name == "" or "`" in name:
                raise ValueError(f"a Cypher map key cannot be empty or contain a backtick: {name!r}")
            parts.append(f"`{name}`:{_literal(item)}")
        return "{" + ",".join(parts) + "}"
    return str(value)


# Compact result-set value types (FalkorDB's ResultSetScalarType).
_NULL, _STRING, _INTEGER, _BOOLEAN, _DOUBLE, _ARRAY, _MAP = 1, 2, 3, 4, 5, 6, 10


_AS_SENT = frozenset((_STRING, _INTEGER))  # cells whose value needs no decoding


def _value(cell: list[Any]) -> Any:
    kind, value = cell
    if kind in _AS_SENT:
        return value
    # Items of lists and maps are mostly strings and integers: taken inline, not by a call each.
    if kind == _ARRAY:
        return [item[1] if item[0] in _AS_SENT else _value(item) for item in value]
    if kind == _MAP:
        return {
            key: item[1] if item[0] in _AS_SENT else _value(item)
            for key, item in zip(value[::2], value[1::2], strict=True)
        }
    if kind == _NULL:
        return None
    if kind == _BOOLEAN:
        return value == "true"
    if kind == _DOUBLE:
        return float(value)
    raise QueryFailed(f"a query returned a value of compact type {kind}; templates return scalars, lists and maps")


decode_cell = _value


def _records(response: list[Any]) -> tuple[list[str], list[list[Any]]]:
    """Column names and undecoded records of a compact reply: [header, records, statistics], or [statistics] alone."""
    if isinstance(response[0], Exception):  # an error reply, from either connection
        raise response[0]
    if isinstance(response[-1], Exception):  # a run-time error ends the reply
        raise response[-1]
    if len(response) < 3:
        return [], []
    return [column[1] for column in response[0]], response[1]


def _rows(response: list[Any]) -> list[dict]:
    """Rows of a compact reply as dicts."""
    names, records = _records(response)
    return [dict(zip(names, [_value(cell) for cell in record], strict=True)) for record in records]


_server_start_lock = threading.Lock()


@contextmanager
def _private_server_start(client_name: str, timeout: float) -> Iterator[None]:
    """While redislite starts its redis-server: started as the read-only store starts it
    (`embedded.run_private`: PATH alone, umask 077), instead of redislite's `subprocess.call`, and
    waited for until it answers on its socket (`embedded.start_answering`), not only until the file exists."""
    import redislite.client as redislite_client

    class _Subprocess:
        @staticmethod
        def call(command: list[str]) -> int:  # redislite's one use: `subprocess.call(command)`
            return start_answering(list(command), client_name, timeout)

    with _server_start_lock:
        original = redislite_client.subprocess
        redislite_client.subprocess = _Subprocess
        try:
            yield
        finally:
            redislite_client.subprocess = original
