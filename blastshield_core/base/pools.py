"""Every thread pool BlastShield starts, so that a command a signal stops can end them all, in bounded time.

The interpreter joins every pool's worker threads as it exits. A signal that lands inside a pool's
`submit` while it starts a worker (a pool is made on first use, so the first read of a report starts
its threads) leaves that thread running but out of the pool's own list: nothing would ever tell it to
leave, the exit waited for it for ever, and the signals that could end the process were by then set
to be ignored. `track` lists each pool as it is made; `end_all` shuts every one down (queued work is
cancelled, and every idle worker, listed or not, is woken to leave), then waits at most `grace_s`
for the work still running, and says whether any thread is left. `interfaces/terminal.run` calls
it as every command ends and, when a thread is left, ends the process without waiting for it.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import Protocol

__all__ = ["Pool", "end_all", "track"]


class Pool(Protocol):
    """What a tracked pool offers (`concurrent.futures.ThreadPoolExecutor` does)."""

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None: ...


_pools: weakref.WeakSet[Pool] = weakref.WeakSet()
_lock = threading.Lock()


def track[P: Pool](pool: P) -> P:
    """`pool`, listed for `end_all`."""
    with _lock:
        _pools.add(pool)
    return pool


def _left() -> list[threading.Thread]:
    main = threading.main_thread()
    return [t for t in threading.enumerate() if t is not main and not t.daemon and t.is_alive()]


def end_all(grace_s: float) -> bool:
    """Shut every tracked pool down and wait at most `grace_s` seconds for the threads still running;
    True when no thread the exit would wait for is left."""
    with _lock:
        pools = list(_pools)
    for pool in pools:
        pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + grace_s
    for thread in _left():
        thread.join(max(0.0, deadline - time.monotonic()))
    return not _left()
