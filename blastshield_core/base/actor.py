"""Who asked for a write: every run, release, import and reset records an actor.

The command line acts as the operating-system user. The dashboard passes the
signed-in user when sign-in is configured, else the same local user. An actor
is a short printable name; anything else is refused before it reaches the audit.
"""

from __future__ import annotations

import getpass
import os
import re

__all__ = ["ACTOR_PATTERN", "check_actor", "local_actor"]

ACTOR_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:@+-]{0,127}$"
_ACTOR_RE = re.compile(ACTOR_PATTERN)


def local_actor() -> str:
    """The operating-system user running this process, or `uid-N` when it has no name."""
    try:
        name = getpass.getuser()
    except Exception:  # no passwd entry and no USER/LOGNAME (containers)
        name = ""
    if name and _ACTOR_RE.fullmatch(name):
        return name
    getuid = getattr(os, "getuid", None)
    return f"uid-{getuid()}" if getuid is not None else "local-user"


def check_actor(actor: object) -> str:
    """`actor` if it is a well-formed actor name; ValueError otherwise."""
    if isinstance(actor, str) and _ACTOR_RE.fullmatch(actor):
        return actor
    raise ValueError(f"invalid actor {str(actor)[:64]!r} (letters, digits and _ . : @ + -, at most 128)")
