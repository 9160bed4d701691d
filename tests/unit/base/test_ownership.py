"""The registry check while a server stops: its socket directory goes first, its registry file next."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from blastshield_core.base import ownership
from blastshield_core.base.ownership import UntrustedLocation, check_embedded_locations


def _registry(tmp_path, socket_dir) -> str:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    registry = data / "falkordb.rdb.settings"
    entry = {"unixsocket": str(socket_dir / "redis.socket"), "pidfile": str(socket_dir / "redis.pid")}
    registry.write_text(json.dumps(entry), encoding="utf-8")
    registry.chmod(0o600)
    return str(registry)


def _check_while(tmp_path, monkeypatch, registry: str, change) -> list[BaseException | None]:
    """Run the check in a thread; once it waits on the registry, `change` it as a stopping server would."""
    waiting = threading.Event()
    real_sleep = time.sleep

    def sleep(seconds: float) -> None:
        waiting.set()
        real_sleep(seconds)

    monkeypatch.setattr(ownership.time, "sleep", sleep)
    outcome: list[BaseException | None] = []

    def check() -> None:
        try:
            check_embedded_locations(tmp_path / "data", registry)
            outcome.append(None)
        except UntrustedLocation as exc:
            outcome.append(exc)

    thread = threading.Thread(target=check)
    thread.start()
    assert waiting.wait(timeout=30)
    change()
    thread.join(timeout=30)
    return outcome


def test_a_registry_removed_after_its_socket_directory_is_a_server_that_stopped(tmp_path, monkeypatch):
    registry = _registry(tmp_path, tmp_path / "gone")
    assert _check_while(tmp_path, monkeypatch, registry, lambda: os.remove(registry)) == [None]


def test_a_registry_rewritten_by_a_new_server_is_checked_again(tmp_path, monkeypatch):
    registry = _registry(tmp_path, tmp_path / "gone")
    fresh = tmp_path / "fresh"
    fresh.mkdir(mode=0o700)
    loose = tmp_path / "loose"
    loose.mkdir()
    loose.chmod(0o777)

    def rewrite(socket_dir) -> None:
        entry = {"unixsocket": str(socket_dir / "redis.socket"), "pidfile": str(socket_dir / "redis.pid")}
        with open(registry, "w", encoding="utf-8") as handle:
            json.dump(entry, handle)

    assert _check_while(tmp_path, monkeypatch, registry, lambda: rewrite(fresh)) == [None]
    registry_again = str(tmp_path / "data" / "falkordb.rdb.settings")
    rewrite(tmp_path / "gone")
    [refused] = _check_while(tmp_path, monkeypatch, registry_again, lambda: rewrite(loose))
    assert "server socket directory" in str(refused) and "writable by others" in str(refused)


def test_a_registry_that_stays_naming_a_missing_directory_is_still_refused(tmp_path, monkeypatch):
    """A crashed server's registry naming a directory that is gone: refused as before, after the wait."""
    monkeypatch.setattr(ownership, "STOPPING_WAIT_S", 0.05)
    registry = _registry(tmp_path, tmp_path / "gone")
    with pytest.raises(UntrustedLocation, match=r"server socket directory .*gone cannot be checked"):
        check_embedded_locations(tmp_path / "data", registry)
