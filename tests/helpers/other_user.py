"""A second OS user for the shared-machine tests, created here when running as root (as CI does).

Never skipped: a test that needs the other user fails clearly when it cannot have one.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from filelock import FileLock

OTHER_USER = "bsother"


def other_user() -> pwd.struct_passwd:
    """The second OS user (`bsother`), created with `useradd` if it does not exist yet (under a lock:
    the suite's parallel workers may all ask for it first at once, and useradd refuses to run while
    another holds /etc/passwd)."""
    try:
        return pwd.getpwnam(OTHER_USER)
    except KeyError:
        pass
    if os.geteuid() != 0:
        pytest.fail(f"this test needs a second OS user {OTHER_USER!r}: run it as root, or create that user first")
    with FileLock(os.path.join(tempfile.gettempdir(), f"blastshield-tests-{OTHER_USER}.lock")):
        try:
            return pwd.getpwnam(OTHER_USER)  # another worker made it while this one waited
        except KeyError:
            pass
        done = subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", OTHER_USER],
            capture_output=True,
            text=True,
            check=False,
        )
    try:
        return pwd.getpwnam(OTHER_USER)
    except KeyError:
        pytest.fail(f"could not create the OS user {OTHER_USER!r}: {done.stderr.strip() or done.returncode}")


def as_other(*argv: str, **kwargs) -> subprocess.CompletedProcess:
    """Run `argv` as the other user (root runs it through `runuser`)."""
    user = other_user()
    if os.geteuid() != 0:
        pytest.fail("running a command as another OS user needs root")
    return subprocess.run(["runuser", "-u", user.pw_name, "--", *argv], check=False, **kwargs)


@contextmanager
def shared_directory() -> Iterator[Path]:
    """A directory both users may create entries in, sticky like /tmp, removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix="blastshield-shared-", dir="/tmp"))
    path.chmod(0o1777)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
