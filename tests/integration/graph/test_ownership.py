"""Untrusted locations on a shared machine are refused (exit 2 and the reason), built as the attack was:
a second OS user prepares the data directory, the server registry file or the socket directory first."""

from __future__ import annotations

import json
import os

import pytest

from blastshield_core import load_settings
from blastshield_core.graph.store import Store, StoreRefused
from tests.conftest import run_cli
from tests.helpers.other_user import as_other, other_user, shared_directory


def _cli_refuses(data_dir, *command: str, reason: str) -> None:
    out = run_cli(*command, "--data-dir", str(data_dir))
    assert out.returncode == 2, out.stderr
    assert reason in out.stderr and str(data_dir) in out.stderr and "nothing was opened" in out.stderr
    out = run_cli(*command, "--data-dir", str(data_dir), "--json")
    assert out.returncode == 2 and json.loads(out.stdout)["status"] == "invalid_input"


def test_a_data_directory_another_user_created_first_is_refused():
    """Another user makes the data directory (open to everyone) before us: every command, read or
    write, and the store itself refuse it, and nothing is created in it."""
    user = other_user()
    with shared_directory() as shared:
        data = shared / "data"
        assert as_other("mkdir", "-m", "0777", str(data)).returncode == 0
        assert data.stat().st_uid == user.pw_uid
        for command in (("alerts",), ("seed",), ("audit", "verify")):
            _cli_refuses(data, *command, reason=f"is owned by uid {user.pw_uid}, not by the current user")
        for reads_only in (False, True):
            with pytest.raises(StoreRefused, match="data directory"):
                Store(load_settings(environ={}, data_dir=data), reads_only=reads_only)
        assert os.listdir(data) == []  # no lock file, no database, no registry


def test_an_own_data_directory_others_can_write_is_refused():
    """Our data directory left writable by others, with another user's registry file in it: refused
    on the directory's mode, before the registry is read."""
    with shared_directory() as shared:
        data = shared / "data"
        data.mkdir()
        data.chmod(0o777)
        registry = data / "falkordb.rdb.settings"
        assert as_other("sh", "-c", f"echo '{{}}' > {registry}").returncode == 0
        _cli_refuses(data, "alerts", reason="is writable by others (mode 0777)")
        _cli_refuses(data, "seed", reason="is writable by others (mode 0777)")
        assert sorted(os.listdir(data)) == ["falkordb.rdb.settings"]


def test_a_registry_file_another_user_wrote_is_refused():
    """A registry file another user planted while the directory was open stays refused once the
    directory is private again."""
    with shared_directory() as shared:
        data = shared / "data"
        data.mkdir()
        data.chmod(0o777)
        registry = data / "falkordb.rdb.settings"
        entry = {"pidfile": "/nonexistent/redis.pid", "unixsocket": "/nonexistent/redis.socket"}
        assert as_other("sh", "-c", f"echo '{json.dumps(entry)}' > {registry}").returncode == 0
        data.chmod(0o700)
        _cli_refuses(data, "alerts", reason="server registry file")
        _cli_refuses(data, "seed", reason=f"is owned by uid {other_user().pw_uid}")


def test_a_registry_naming_another_users_socket_directory_is_refused(tmp_path):
    """The registry (ours) names a server socket in a directory another user owns: refused before
    anything connects to it."""
    user = other_user()
    with shared_directory() as shared:
        theirs = shared / "server"
        assert as_other("mkdir", "-m", "0755", str(theirs)).returncode == 0
        data = tmp_path / "data"
        data.mkdir(mode=0o700)
        entry = {
            "pidfile": str(theirs / "redis.pid"),
            "unixsocket": str(theirs / "redis.socket"),
            "dbdir": str(data),
            "dbfilename": "falkordb.rdb",
        }
        (data / "falkordb.rdb.settings").write_text(json.dumps(entry))
        (data / "falkordb.rdb.settings").chmod(0o600)
        reason = f"server socket directory {theirs} is owned by uid {user.pw_uid}"
        _cli_refuses(data, "alerts", reason=reason)
        _cli_refuses(data, "seed", reason=reason)
        with pytest.raises(StoreRefused, match="server socket directory"):
            Store(load_settings(environ={}, data_dir=data))
