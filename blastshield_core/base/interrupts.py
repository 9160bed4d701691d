"""A signal that lands after an import committed is held until the import has returned.

A command stopped by SIGTERM, SIGHUP or SIGINT says what is true: "stopped" while nothing is written,
"imported; report interrupted" once the import committed. Between the commit (the staging graph
renamed over the live one, or the one in-place write) and the import's audit record, a signal would
otherwise stop the command mid-way: the graph replaced, the audit record never written, and the
command saying "stopped". So a command arms `after_commit()` around the import; the import calls
`commit_begins()` just before it commits; from then on the command's signal handler keeps the signal
(`defer`) instead of raising it, and the command reads it from the guard once the import returned
(audited). Unarmed (the dashboard, a test calling the import) both are no-ops.

A command started with SIGINT ignored (a background job of a script inherits it so) keeps ignoring it
from start to end: the guard sets no handler over an ignored SIGINT (it would make the command
stoppable by Ctrl-C for the import's length only, and its report, after the guard, not).
"""

from __future__ import annotations

import _signal  # the C module: `signal` and its enums cost a read command several ms
import os
import threading
from types import FrameType, TracebackType
from typing import Any

__all__ = ["AfterCommit", "after_commit", "commit_begins", "defer"]

_armed = 0
_holding = False
_pending: int | None = None


class AfterCommit:
    """A context arming the hold; `pending` is the signal that arrived after the commit, once it ended.
    SIGTERM and SIGHUP come through the command's handler (`interfaces/terminal.py`); SIGINT is held
    by a handler of its own, set here for the context's length only (asyncio, in other commands, keeps
    Python's own); an ignored SIGINT stays ignored."""

    pending: int | None = None
    _previous: Any = None

    def __enter__(self) -> AfterCommit:
        global _armed  # noqa: PLW0603 - one main thread handles signals; a counter, not shared objects
        _armed += 1
        main = threading.current_thread() is threading.main_thread()
        if main and _signal.getsignal(_signal.SIGINT) != _signal.SIG_IGN:  # an ignored SIGINT stays ignored
            self._previous = _signal.signal(_signal.SIGINT, _interrupt)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        global _armed, _holding, _pending  # noqa: PLW0603
        _armed -= 1
        if self._previous is not None:
            _signal.signal(_signal.SIGINT, self._previous)
        self.pending, _pending = _pending, None
        _holding = False
        if self.pending is not None and kind is not None:  # the commit failed after all: stop as asked
            os.kill(os.getpid(), self.pending)
            self.pending = None


def after_commit() -> AfterCommit:
    return AfterCommit()


def commit_begins() -> None:
    """Called by the import just before it commits: a signal from now on is held (when armed)."""
    global _holding  # noqa: PLW0603
    if _armed:
        _holding = True


def defer(signum: int) -> bool:
    """Called by the command's signal handler: True when the signal is held for the guard to report."""
    global _pending  # noqa: PLW0603
    if not _holding:
        return False
    if _pending is None:
        _pending = signum
    return True


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGINT while armed: held after the commit, else `KeyboardInterrupt` as Python's own handler raises it."""
    if not defer(signum):
        raise KeyboardInterrupt
