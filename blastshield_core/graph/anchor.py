"""The audit anchor log: every chained audit record's `(seq, hash, time)`, kept outside the database.

The hash chain in the audit graph shows an edit of one record, but someone who can write the
database can also delete the last records and move the head, or recompute every hash after a
rewrite: the chain alone then still holds. So each append is also written to this append-only
file, which the database cannot reach: one line `SEQ HASH TIME` per record (an `adopted` line
anchors the head of a chain that existed before its log). Because each hash covers every record
before it, an anchored hash fixes the whole chain up to it. `audit verify` compares the two
(`audit_verify.py`): a record whose hash differs from its anchor (a rewrite), a chain shorter
than the log (truncation), a record the log never saw (added outside BlastShield), two hashes
for one record.

The file is 0600 in a directory of the user's choosing (`BLASTSHIELD_ANCHOR_DIR`), by default
`<data directory>-anchor/` beside the data directory (0700); both must be the current user's
alone (`base.ownership`), and the file is never written through a link. Optionally each anchor
also goes to syslog (`BLASTSHIELD_ANCHOR_SYSLOG=1`). It cannot help against someone who
controls both the database and this file.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel

from ..base.ownership import UntrustedLocation, check_owned
from ..base.settings import Settings

__all__ = ["AnchorEntry", "AnchorError", "AnchorLog", "anchor_file"]

_LINE = re.compile(r"^([1-9][0-9]{0,18}) ([0-9a-f]{64}) (\S+)( adopted)?$")


class AnchorError(RuntimeError):
    """The anchor log cannot be read or written, or is malformed."""


class AnchorEntry(BaseModel):
    seq: int
    hash: str
    at: str
    adopted: bool = False


def anchor_file(settings: Settings) -> Path | None:
    """Where this audit graph's anchor log is: `<anchor dir>/<audit graph>.anchor`. The default
    directory sits beside the embedded database's data directory; with a FalkorDB server
    (`FALKORDB_URL`) there is no default: set `BLASTSHIELD_ANCHOR_DIR`."""
    if settings.anchor_dir is not None:
        directory = settings.anchor_dir
    elif settings.falkordb_url:
        return None
    else:
        data_dir = settings.data_dir.absolute()
        directory = data_dir.parent / f"{data_dir.name}-anchor"
    return directory / f"{settings.audit_graph}.anchor"


class AnchorLog:
    """The anchor log of one audit graph (`path` None: not configured, nothing anchored)."""

    def __init__(self, path: Path | None, *, syslog: bool = False):
        self.path = path
        self.syslog = syslog

    @classmethod
    def for_settings(cls, settings: Settings) -> AnchorLog:
        return cls(anchor_file(settings), syslog=settings.anchor_syslog)

    def _check(self, *, create: bool) -> None:
        assert self.path is not None
        directory = self.path.parent
        try:
            if create and not directory.exists():
                directory.mkdir(mode=0o700, parents=True)
            check_owned(directory, "anchor directory")
            if self.path.is_symlink():
                raise UntrustedLocation(f"anchor log {self.path} is a symbolic link; refusing to use it")
            if self.path.exists():
                check_owned(self.path, "anchor log")
        except OSError as exc:
            raise AnchorError(f"cannot prepare the anchor directory {directory}: {exc}") from None
        except UntrustedLocation as exc:
            raise AnchorError(str(exc)) from None

    def exists(self) -> bool:
        return self.path is not None and self.path.exists()

    def append(self, seq: int, record_hash: str, *, adopted: bool = False) -> None:
        """Append `(seq, hash, now)`, synced to disk before returning."""
        if self.path is None:
            return
        self._check(create=True)
        at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        line = f"{seq} {record_hash} {at}{' adopted' if adopted else ''}\n"
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                os.write(fd, line.encode("ascii"))
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise AnchorError(f"cannot append to the anchor log {self.path}: {exc}") from None
        if self.syslog:
            import syslog

            syslog.openlog("blastshield", 0, syslog.LOG_USER)
            syslog.syslog(syslog.LOG_INFO, f"audit anchor {self.path.name} {line.strip()}")

    def entries(self) -> list[AnchorEntry]:
        """Every line, in file order; AnchorError for a malformed line or an untrusted file."""
        if self.path is None or not self.path.exists():
            return []
        self._check(create=False)
        try:
            with open(self.path, encoding="ascii", errors="replace") as handle:
                lines = handle.read().splitlines()
        except OSError as exc:
            raise AnchorError(f"cannot read the anchor log {self.path}: {exc}") from None
        found = []
        for number, text in enumerate(lines, 1):
            match = _LINE.fullmatch(text)
            if match is None:
                raise AnchorError(f"anchor log {self.path} line {number} is malformed: {text[:80]!r}")
            found.append(AnchorEntry(seq=int(match[1]), hash=match[2], at=match[3], adopted=match[4] is not None))
        return found
