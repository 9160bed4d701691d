"""Writing a file that may hold an organisation's access graph: private, atomic, never through a link."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_private"]


def write_private(path: Path | str, text: str) -> Path:
    """Write `text` to `path` with mode 0600, atomically (a temporary file renamed into place).

    A symbolic link at `path` is refused rather than followed or replaced; a reader never sees a
    half-written file, and a failed write leaves any previous file as it was.
    """
    target = Path(path)
    if target.is_symlink():
        raise OSError(f"{target} is a symbolic link; refusing to write through it")
    if target.exists() and not target.is_file():
        raise OSError(f"{target} exists and is not a regular file")
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target
