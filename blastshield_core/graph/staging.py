"""Staging graphs: their names say which process on which host made them, so one whose process
is gone (an import killed with SIGKILL, or the machine stopped) can be found and removed.

An import writes to `<graph>__staging_<pid>_<host>_<random>` and renames it over the graph at
the end, or deletes it when it fails. A process killed on the way can do neither, and the copy
(hundreds of thousands of relationships) would stay in the database for good. When a store
opens, `orphans` names the staging graphs of processes on this host that are no longer running
(and, for the embedded database, whose server only this machine uses, those of the names
written before the host was part of them); the store deletes them. A staging graph of another
host, or of a process still running, is left alone.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import socket
from collections.abc import Iterable

__all__ = ["HOST_TAG", "orphans", "staging_name"]

HOST_TAG = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
_NAME = re.compile(r"^.+__staging_(\d+)_(?:([0-9a-f]{8})_)?[0-9a-f]{8}$")


def staging_name(live: str) -> str:
    """A new staging graph's name for `live`, owned by this process on this host."""
    return f"{live}__staging_{os.getpid()}_{HOST_TAG}_{secrets.token_hex(4)}"


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: running
        return True
    return True


def orphans(names: Iterable[str | bytes], *, local_server: bool) -> list[str]:
    """The staging graphs among `names` whose owning process on this host is gone."""
    found = []
    for raw in names:
        name = raw.decode() if isinstance(raw, bytes) else str(raw)
        match = _NAME.match(name)
        if match is None:
            continue
        pid, host = int(match[1]), match[2]
        if host is None and not local_server:
            continue  # an older name on a shared server: its host is unknown
        if host is not None and host != HOST_TAG:
            continue
        if pid != os.getpid() and not _running(pid):
            found.append(name)
    return sorted(found)
