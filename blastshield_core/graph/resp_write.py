"""Writes over the embedded server's small RESP connection, for a command that writes once.

`alert open` writes one alert and one audit record (a few ms), and importing redis-py and
falkordblite's client cost it more than that many times over. `Store(settings, light_writes=True)`
therefore opens the embedded database as a read-only store does (`embedded`: the same server,
registry file and start-up lock, taken over from `prestart`) and writes over a
`WriteConnection`, which speaks what the store's writes ask of redis-py, with the same commands:

- **The write lock** (`lock`): redis-py's `Lock` on the same key. Taken with `SET key token NX PX
  ttl`, tried every 0.1 s until the wait is over; renewed with redis-py's own extend script (the
  key's lifetime replaced only while the token is its value) and released with its release
  script (the key deleted only while it is). A lock taken here and one taken by a full store (the
  dashboard, any other command) exclude each other, expire and renew the same way.
- **A transaction** (`pipeline`): one socket for its whole length. `WATCH` and `GET` run at once;
  after `multi()` the commands are queued and sent with `MULTI` and `EXEC` in one write. An `EXEC`
  a change to a watched key aborted (nothing ran) raises `WatchError`, as redis-py's pipeline does;
  replies of the queued commands come back in order, an error reply as a `ResponseError` in its
  place (`execute(raise_on_error=False)`).
- **A script** (`eval`): `EVAL`.

Nothing is sent twice: a timeout or a broken connection is raised as it is (an `OSError`), and the
socket it happened on is closed, since a reply may still be on its way; a transaction is never
tried again after one. Error replies are `ResponseError`s, named as redis-py names them, so the
store's messages read the same through either client.
"""

from __future__ import annotations

import os
import time
from types import SimpleNamespace
from typing import Any

import hiredis

from .embedded import ReplyError, RespConnection, _Socket

__all__ = ["LUA_EXTEND_SCRIPT", "LUA_RELEASE_SCRIPT", "Lock", "LockNotOwned", "ResponseError", "Transaction"]
__all__ += ["WatchError", "WriteConnection"]

LOCK_SLEEP_S = 0.1  # between two tries for a lock another writer holds (redis-py's `Lock.sleep`)

# redis-py's `Lock.LUA_RELEASE_SCRIPT` and `Lock.LUA_EXTEND_SCRIPT` (a test holds them equal).
# KEYS[1] the lock's key, ARGV[1] the token; 1 when released, else 0.
LUA_RELEASE_SCRIPT = """
        local token = redis.call('get', KEYS[1])
        if not token or token ~= ARGV[1] then
            return 0
        end
        redis.call('del', KEYS[1])
        return 1
    """
# KEYS[1] the lock's key, ARGV[1] the token, ARGV[2] milliseconds, ARGV[3] "1" to replace the
# lifetime left ("0" to add to it); 1 when extended, else 0.
LUA_EXTEND_SCRIPT = """
        local token = redis.call('get', KEYS[1])
        if not token or token ~= ARGV[1] then
            return 0
        end
        local expiration = redis.call('pttl', KEYS[1])
        if not expiration then
            expiration = 0
        end
        if expiration < 0 then
            return 0
        end

        local newttl = ARGV[2]
        if ARGV[3] == "0" then
            newttl = ARGV[2] + expiration
        end
        redis.call('pexpire', KEYS[1], newttl)
        return 1
    """


class ResponseError(ReplyError):
    """An error reply (redis-py's `ResponseError`; a `ReplyError`, which the store handles)."""


class WatchError(Exception):
    """`EXEC` was aborted because a watched key changed: nothing in the transaction ran."""


class LockNotOwned(ResponseError):
    """The lock's key no longer holds this lock's token (redis-py's `LockNotOwnedError`)."""


def _converted(reply: Any) -> Any:
    """A reply with its error replies, at the top or inside (a transaction's replies, a compact
    graph reply's closing error), as `ResponseError`s."""
    if isinstance(reply, hiredis.ReplyError):
        return ResponseError(str(reply))
    if isinstance(reply, list):
        return [_converted(item) for item in reply]
    return reply


def _raised(reply: Any) -> Any:
    reply = _converted(reply)
    if isinstance(reply, ResponseError):
        raise reply
    return reply


class WriteConnection(RespConnection):
    """The read-only connection, with the write lock, transactions and scripts a store's writes use."""

    @staticmethod
    def _answer(reply: Any) -> Any:
        return _raised(reply)

    def set(self, name: str, value: str, *, nx: bool = False, px: int | None = None) -> bool:
        """SET; True when it was set (with `nx`, only when the key did not exist)."""
        args: list[Any] = ["SET", name, value]
        if nx:
            args.append("NX")
        if px is not None:
            args += ["PX", px]
        return self.execute_command(*args) == "OK"

    def eval(self, script: str, numkeys: int, *keys_and_args: Any) -> Any:
        return self.execute_command("EVAL", script, numkeys, *keys_and_args)

    def pipeline(self, transaction: bool = True) -> Transaction:
        if not transaction:
            raise ValueError("only transactions (MULTI/EXEC) are sent over this connection")
        return Transaction(self)

    def lock(
        self, name: str, timeout: float | None = None, blocking_timeout: float | None = None, thread_local: bool = True
    ) -> Lock:
        """The lock `name` (redis-py's `Redis.lock`; the token is always the lock object's own)."""
        return Lock(self, name, timeout=timeout, blocking_timeout=blocking_timeout)


class Transaction:
    """MULTI/EXEC on one socket of a `WriteConnection`, as redis-py's transaction pipeline runs it:
    after `watch`, commands run at once until `multi`; then they are queued for `execute`."""

    def __init__(self, conn: WriteConnection) -> None:
        self._conn = conn
        self._sock: _Socket | None = None
        self._queue: list[tuple[Any, ...]] = []
        self._watching = False
        self._queued = False  # `multi()` called (or no `watch`): commands wait for `execute`

    def __enter__(self) -> Transaction:
        return self

    def __exit__(self, *exc: object) -> None:
        self.reset()

    def _socket(self) -> _Socket:
        if self._sock is None:
            self._sock = self._conn._take()
        return self._sock

    def watch(self, *names: str) -> None:
        if self._queued:
            raise ResponseError("WATCH inside MULTI is not allowed")
        _raised(self._socket().call(("WATCH", *names)))
        self._watching = True

    def multi(self) -> None:
        self._queued = True

    def execute_command(self, *args: Any) -> Any:
        if self._watching and not self._queued:
            return _raised(self._socket().call(args))
        self._queue.append(args)
        return self

    def get(self, name: str) -> Any:
        return self.execute_command("GET", name)

    def incr(self, name: str) -> Any:
        return self.execute_command("INCR", name)

    def execute(self, raise_on_error: bool = True) -> list[Any]:
        """Send MULTI, the queued commands and EXEC together; the queued commands' replies.
        WatchError when a watched key changed (nothing ran); the first error reply of a command
        the server refused to queue when it then refused the whole transaction."""
        queue, self._queue = self._queue, []
        replies = [_converted(r) for r in self._socket().call_many([("MULTI",), *queue, ("EXEC",)])]
        self._watching = False  # EXEC ends every WATCH
        multi, queued, result = replies[0], replies[1:-1], replies[-1]
        refused = [r for r in (multi, *queued) if isinstance(r, ResponseError)]
        if isinstance(result, ResponseError):  # EXECABORT: nothing ran
            raise refused[0] if refused else result
        if result is None:
            raise WatchError("Watched variable changed.")
        if len(result) != len(queue):
            self._drop()
            raise ResponseError("Wrong number of response items from pipeline execution")
        if raise_on_error:
            first = next((r for r in result if isinstance(r, ResponseError)), None)
            if first is not None:
                raise first
        return result

    def _drop(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()
            self._conn._put(sock)

    def reset(self) -> None:
        """Give the socket back; a transaction left watching (an error before EXEC) sends UNWATCH
        first, and a socket that cannot is closed rather than reused."""
        self._queue, self._queued = [], False
        sock, self._sock = self._sock, None
        if sock is None:
            return
        if self._watching and not sock.closed:
            try:
                _raised(sock.call(("UNWATCH",)))
            except (OSError, ResponseError):
                sock.close()
        self._watching = False
        self._conn._put(sock)


class Lock:
    """A write lock on the server, as redis-py's `Lock` takes, renews and releases it (see the
    module's text). `local.token` holds the token while it is held."""

    def __init__(
        self, conn: WriteConnection, name: str, *, timeout: float | None, blocking_timeout: float | None
    ) -> None:
        self._conn = conn
        self.name = name
        self.timeout = timeout
        self.blocking_timeout = blocking_timeout
        self.local = SimpleNamespace(token=None)

    def acquire(self) -> bool:
        """Take the lock, trying every `LOCK_SLEEP_S` until `blocking_timeout` is over; False then."""
        token = os.urandom(16).hex()  # 32 hex digits, as redis-py's uuid1().hex, from the system's randomness
        stop_at = None if self.blocking_timeout is None else time.monotonic() + self.blocking_timeout
        px = int(self.timeout * 1000) if self.timeout else None
        while True:
            if self._conn.set(self.name, token, nx=True, px=px):
                self.local.token = token
                return True
            if stop_at is not None and time.monotonic() + LOCK_SLEEP_S > stop_at:
                return False
            time.sleep(LOCK_SLEEP_S)

    def extend(self, additional_time: float, replace_ttl: bool = False) -> bool:
        """Give the held lock `additional_time` seconds more (with `replace_ttl`: from now);
        LockNotOwned when its key no longer holds the token."""
        if self.local.token is None:
            raise LockNotOwned("Cannot extend an unlocked lock")
        if self.timeout is None:
            raise LockNotOwned("Cannot extend a lock with no timeout")
        args = (self.local.token, int(additional_time * 1000), "1" if replace_ttl else "0")
        if not self._conn.eval(LUA_EXTEND_SCRIPT, 1, self.name, *args):
            raise LockNotOwned("Cannot extend a lock that's no longer owned")
        return True

    def release(self) -> None:
        """Delete the lock's key if it still holds the token; LockNotOwned otherwise."""
        token, self.local.token = self.local.token, None
        if token is None:
            raise LockNotOwned("Cannot release a lock that's not owned or is already unlocked.")
        if not self._conn.eval(LUA_RELEASE_SCRIPT, 1, self.name, token):
            raise LockNotOwned("Cannot release a lock that's no longer owned")
