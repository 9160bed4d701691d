"""What the command line writes to a terminal, and how it ends when the terminal goes away.

- Every text it prints may hold names from an imported export. `EscapingStream` shows control
  characters (`ESC[2J`, an OSC 8 hyperlink, a bell, a carriage return inside a line) and the
  bidirectional overrides and isolates (U+202E and its kin, which reorder what follows) as
  visible `\\x1b` / `\\u202e` escapes. Newlines and tabs stay; a carriage return is kept only where
  a write begins with it (the import's progress bar redraws its line so).
- SIGTERM and SIGHUP (`timeout`, a service manager, a closed terminal) raise `KeyboardInterrupt`
  as SIGINT does, so every command stops what it started on the same path: the store closes
  (and with it the embedded server it started), an import leaves the graph as it was.
- A reader that goes away (`... --json | head`) ends the command quietly with the shell's
  status for SIGPIPE, without a traceback.
- Every thread pool is shut down as the command ends (`base/pools.py`), whatever ended it, and
  the threads still working get THREAD_GRACE_S seconds; past that the process ends without
  waiting for them (its output flushed), rather than hang in the interpreter's exit.

`run(main)` installs all three around a command.
"""

from __future__ import annotations

import _signal  # the C module: `signal` and its enums cost a read command several ms
import os
import re
import sys
from collections.abc import Callable
from typing import Any, TextIO

from ..base import interrupts, pools
from ..base.safetext import show_unsafe, visible_escape

__all__ = ["EXIT_PIPE", "EscapingStream", "escape_terminal", "interrupted_by", "one_line", "run", "signal_name"]

EXIT_PIPE = 128 + _signal.SIGPIPE  # what a shell reports for a writer whose reader went away
EXIT_SIGNAL = 128  # + the signal's number, as a shell reports a command a signal ended
# How long the threads still working when a command ends may take (a read waits for its reply, which the
# store's socket timeout bounds; once the store is closed, at once) before the process ends without them.
THREAD_GRACE_S = 5.0

# Newline and tab too, and the Unicode line and paragraph separators: one field of a line.
_UNSAFE_LINES = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def escape_terminal(text: str) -> str:
    """`text` with every control and bidirectional character but newline and tab shown as an escape."""
    return show_unsafe(text)


def one_line(value: object) -> str:
    """One field of a line: newlines and tabs escaped too, so data cannot start a line of its own."""
    return _UNSAFE_LINES.sub(visible_escape, str(value))


class EscapingStream:
    """A text stream that writes through `escape_terminal` (a write's leading `\\r` kept)."""

    def __init__(self, inner: TextIO):
        self._inner = inner

    def write(self, text: str) -> int:
        lead = "\r" if text.startswith("\r") else ""
        self._inner.write(lead + escape_terminal(text[len(lead) :]))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


_NAMES = {_signal.SIGINT: "SIGINT", _signal.SIGTERM: "SIGTERM", _signal.SIGHUP: "SIGHUP"}


class _Signalled(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the command is, as SIGINT raises `KeyboardInterrupt`."""

    def __init__(self, signum: int):
        super().__init__(_NAMES[signum])
        self.signum = signum


def _raise(signum: int, _frame: Any) -> None:
    for other in (_signal.SIGTERM, _signal.SIGHUP):  # the clean-up the first one starts runs to its end
        _signal.signal(other, _signal.SIG_IGN)
    if interrupts.defer(signum):  # after an import committed: the command reports it once the import returned
        return
    raise _Signalled(signum)


def signal_name(signum: int) -> str:
    return _NAMES[signum]


def interrupted_by(exc: KeyboardInterrupt) -> str:
    """The signal's name: SIGTERM or SIGHUP as `handle_signals` raised it, else SIGINT."""
    return _NAMES[exc.signum if isinstance(exc, _Signalled) else _signal.SIGINT]


def handle_signals() -> None:
    """SIGTERM and SIGHUP raise `KeyboardInterrupt` (a subclass naming the signal), like SIGINT; one the command was
    started with ignored stays ignored (`nohup` ignores SIGHUP so that a closed terminal does not stop the command)."""
    for signum in (_signal.SIGTERM, _signal.SIGHUP):
        if _signal.getsignal(signum) != _signal.SIG_IGN:
            _signal.signal(signum, _raise)


def _quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the interpreter's last flush cannot fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    finally:
        os.close(devnull)


def run(main: Callable[[], int]) -> int:
    """`main()` with escaped output, SIGTERM / SIGHUP handled as SIGINT, a broken pipe ended quietly,
    and every thread pool ended in bounded time."""
    handle_signals()
    sys.stdout = EscapingStream(sys.stdout)
    sys.stderr = EscapingStream(sys.stderr)
    code = _run(main)
    try:
        ended = pools.end_all(THREAD_GRACE_S)
    except KeyboardInterrupt:  # a second Ctrl-C while waiting (SIGTERM and SIGHUP are ignored by then)
        ended = False
    if not ended:  # a thread still working: the interpreter's exit would wait for it
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (BrokenPipeError, OSError):
            pass
        os._exit(code)
    return code


def _run(main: Callable[[], int]) -> int:
    try:
        code = main()
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_PIPE
    except KeyboardInterrupt as exc:
        signum = exc.signum if isinstance(exc, _Signalled) else _signal.SIGINT
        try:
            print(f"\ninterrupted ({_NAMES[signum]}): stopped", file=sys.stderr)
        except (BrokenPipeError, OSError):
            pass
        return EXIT_SIGNAL + signum
