"""Locations BlastShield trusts on a shared machine: owned by the current user, writable by no one else.

Another local user who creates the data directory first, or who can write the server registry
file, can point every command at a database server of their own. So before the embedded
database is opened (or its registry file read, or its socket used), the data directory, the
registry file and the directory holding the server's socket (and pid file) must be owned by the
effective user and carry no group or other write bit. Anything else is refused with the
reason (`UntrustedLocation`); nothing is created, changed or connected to.
"""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

__all__ = ["UntrustedLocation", "check_embedded_locations", "check_owned", "make_private"]

_LOOSE = stat.S_IWGRP | stat.S_IWOTH


class UntrustedLocation(Exception):
    """A location is not owned by the current user, or others may write it."""


def check_owned(path: str | os.PathLike[str], what: str) -> None:
    """`path` (followed if a link) is owned by the effective user and neither group- nor
    other-writable; UntrustedLocation naming `what`, the path and the reason otherwise. A
    missing path is refused too: the caller checks what it is about to use."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise UntrustedLocation(f"{what} {os.fspath(path)} cannot be checked: {exc.strerror or exc}") from None
    uid = os.geteuid()
    if info.st_uid != uid:
        raise UntrustedLocation(
            f"{what} {os.fspath(path)} is owned by uid {info.st_uid}, not by the current user (uid {uid});"
            " refusing to use it (another user may have prepared it)"
        )
    if stat.S_IMODE(info.st_mode) & _LOOSE:
        raise UntrustedLocation(
            f"{what} {os.fspath(path)} is writable by others (mode {stat.S_IMODE(info.st_mode):04o});"
            " refusing to use it (check its contents, then chmod go-w)"
        )


# A server that stops removes its socket directory, then its registry file: a process starting in
# between reads a registry naming a directory that is gone. It waits this long for the registry to
# go or change (then checks again) before refusing a directory that is missing.
STOPPING_WAIT_S = 2.0


def check_embedded_locations(data_dir: str | os.PathLike[str], registry: str | os.PathLike[str]) -> None:
    """The embedded database's data directory, its server registry file (when there is one) and
    the directories the registry names for the server's socket and pid file are all trusted."""
    check_owned(data_dir, "data directory")
    for _ in range(3):  # a registry rewritten while a server stops and another starts: checked again
        if not os.path.lexists(registry):
            return
        check_owned(registry, "server registry file")
        try:
            with open(registry, "rb") as handle:
                raw = handle.read()
            entry = json.loads(raw)
        except (OSError, ValueError):
            return  # unreadable or not JSON: the server is started afresh, the registry rewritten
        if not isinstance(entry, dict):
            return
        try:
            _check_named_directories(entry, registry)
            return
        except UntrustedLocation:
            if not _gone_directory(entry) or not _registry_changes(registry, raw):
                raise
    _check_named_directories(entry, registry)


def _check_named_directories(entry: dict[str, object], registry: str | os.PathLike[str]) -> None:
    for key, what in (("unixsocket", "server socket directory"), ("pidfile", "server pid file directory")):
        value = entry.get(key)
        if isinstance(value, str) and value:
            try:
                check_owned(os.path.dirname(os.path.abspath(value)), what)
            except UntrustedLocation as exc:
                raise UntrustedLocation(f"{exc} (named by the server registry file {os.fspath(registry)})") from None


def _gone_directory(entry: dict[str, object]) -> bool:
    """A directory the registry names does not exist (a stopping server removed it)."""
    return any(
        isinstance(entry.get(key), str)
        and entry[key]
        and not os.path.lexists(os.path.dirname(os.path.abspath(str(entry[key]))))
        for key in ("unixsocket", "pidfile")
    )


def _registry_changes(registry: str | os.PathLike[str], raw: bytes) -> bool:
    """The registry file goes or is rewritten within STOPPING_WAIT_S (the server that named the
    missing directory finished stopping, or another started)."""
    deadline = time.monotonic() + STOPPING_WAIT_S
    while True:
        try:
            with open(registry, "rb") as handle:
                if handle.read() != raw:
                    return True
        except OSError:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


def make_private(data_dir: Path) -> None:
    """The data directory 0700 and everything in it private (files 0600, directories 0700), when ours."""
    uid = os.getuid()
    for path in (data_dir, *data_dir.rglob("*")):
        try:
            info = path.lstat()  # one stat per path: a link is skipped, so its kind is the path's own
            if info.st_uid != uid or stat.S_ISLNK(info.st_mode):
                continue
            mode = 0o700 if stat.S_ISDIR(info.st_mode) else 0o600
            if stat.S_IMODE(info.st_mode) != mode:  # every command opens the store: no needless metadata write
                path.chmod(mode)
        except OSError:
            continue
