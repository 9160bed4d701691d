"""Start the embedded server of a read command while Python imports the rest of BlastShield.

`python -m blastshield_core` calls `prestart(argv)` before it imports anything heavy. For a read
command, or `alert open` (whose store starts or attaches to the server the same way and writes
through redis-py on its socket: `Store(light_writes=True)`), on the embedded default it takes
the data directory's start-up lock and starts (or finds) the server without waiting for it, so
the server loads its file on the other core while pydantic and the read tools are imported; the
store opened later takes the server and the held lock over (`take`). Whatever it cannot resolve
exactly as the command's settings will (an abbreviated option, an empty value, a directory that
does not exist yet, a server URL) makes it do nothing. A server it started that no store takes
over is stopped (`abandon`, also registered to run at exit), and any failure here only means the
store starts the server itself.

It also pauses Python's cyclic garbage collector through such a command's imports
(`pause_collector`): importing pydantic and the read tools creates some 100,000 objects, none of
them garbage, and the collector would walk them again and again (about a tenth of the command). Once
the read tools are imported, `resume_collector` moves everything made so far out of the
collector's sight (`gc.freeze`) and turns it back on for the query.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..base.ownership import UntrustedLocation, check_owned
from .embedded import EmbeddedServer, StartupLock, begin

__all__ = ["PRESTARTED", "READ_COMMANDS", "abandon", "pause_collector", "prestart", "resume_collector", "take"]

# The command line's read commands (`cli.READ_COMMANDS`; a test holds the two equal).
READ_COMMANDS = frozenset({"alerts", "investigate", "blast-radius", "path", "routes", "candidates"})
# The commands begun here: those whose store takes a server begun here over (`Store._open_light`).
PRESTARTED = READ_COMMANDS | {"alert"}
OPTIONS = ("--data-dir", "--falkordb-url")
LOCK_WAIT_S = 0.2  # another process starting or stopping the server: let the store wait for it
CLIENT_NAME = "blastshield-prestart"

_begun: list[tuple[Path, EmbeddedServer, StartupLock]] = []  # at most one: the database, server, held lock
_paused: list[bool] = []  # the collector was paused here and is not yet resumed


def pause_collector(argv: Sequence[str], *, was_enabled: bool | None = None) -> None:
    """Pause the cyclic garbage collector for the imports of a command of `PRESTARTED` (a collector
    that is on, or `was_enabled` before its caller turned it off for its own imports). For any other
    command, a collector that was on is on again on return."""
    enabled = gc.isenabled() if was_enabled is None else was_enabled
    if argv and argv[0] in PRESTARTED and enabled and not _paused:
        gc.disable()
        _paused.append(True)
    elif enabled and not _paused:
        gc.enable()


def resume_collector() -> None:
    """Turn the collector paused by `pause_collector` back on, with the objects made so far (the
    modules, classes and functions of the imports, which live until the process ends) frozen out
    of its walks. Nothing when it was not paused here."""
    if _paused:
        _paused.clear()
        gc.freeze()
        gc.enable()


def _options(argv: Sequence[str]) -> dict[str, str] | None:
    """`--data-dir` and `--falkordb-url` as argparse reads them, or None when unsure."""
    found: dict[str, str] = {}
    args = list(argv)
    for i, arg in enumerate(args):
        if arg == "--":
            return None
        if not arg.startswith("--"):
            continue
        name, has_value, value = arg.partition("=")
        if name not in OPTIONS:
            if any(option.startswith(name) for option in OPTIONS):
                return None  # an abbreviation argparse may expand
            continue
        if not has_value:
            if i + 1 >= len(args):
                return None
            value = args[i + 1]
        if not value:
            return None
        found[name] = value
    return found


def prestart(argv: Sequence[str], environ: Mapping[str, str]) -> None:
    """Begin starting the embedded server for a command of `PRESTARTED` (see the module's text)."""
    if _begun or not argv or argv[0] not in PRESTARTED:
        return
    options = _options(argv[1:])
    if options is None or options.get("--falkordb-url") or environ.get("FALKORDB_URL"):
        return
    data_dir = Path(options.get("--data-dir") or environ.get("BLASTSHIELD_DATA_DIR") or ".blastshield")
    if not data_dir.is_dir():
        return  # the store creates it, private, first
    try:
        check_owned(data_dir, "data directory")
    except UntrustedLocation:
        return  # the store refuses it, with the reason
    lock = StartupLock(str(data_dir / "falkordb.lock"), timeout=LOCK_WAIT_S)
    try:
        lock.__enter__()
    except OSError:  # TimeoutError included
        return
    database = (data_dir / "falkordb.rdb").resolve()
    try:
        server = begin(database)
    except Exception:
        lock.__exit__()
        return
    _begun.append((database, server, lock))
    atexit.register(abandon)


def take(database: Path) -> tuple[EmbeddedServer, StartupLock] | None:
    """The server begun for `database` and its held start-up lock, once; None otherwise."""
    if not _begun or _begun[0][0] != database:
        return None
    _, server, lock = _begun.pop()
    return server, lock


def abandon() -> None:
    """Stop a server begun here that no store took over (when no other client uses it), and
    release the start-up lock."""
    if not _begun:
        return
    _, server, lock = _begun.pop()
    try:
        if server.pending is not None or server.redis_dir is not None:  # started here, not found
            server.wait_started()
            server.release(server.connect(CLIENT_NAME, 5.0), CLIENT_NAME)
    except Exception:
        pass
    finally:
        lock.__exit__()
