"""The dashboard's token: on loopback without sign-in, the dashboard belongs to the user who started it.

Every local user can reach a loopback port, so "loopback" alone does not say who is asking. As
Jupyter does, the dashboard keeps a random token in a file only its user can read (0600, by
default `dashboard.token` in the data directory, itself 0700 and the user's own), prints its URL
(`http://127.0.0.1:PORT/?token=…`) in the terminal that started it, and exchanges the token for
a cookie on first use. Without the token (or the cookie derived from it) no page renders and no
write happens. With sign-in configured the token is not used.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

from .ownership import UntrustedLocation, check_owned
from .privatefile import write_private

__all__ = ["COOKIE_PREFIX", "cookie_name", "cookie_value", "ensure_token", "token_matches", "token_path"]

COOKIE_PREFIX = "blastshield_dashboard_"


def token_path(data_dir: Path, token_file: Path | None = None) -> Path:
    return token_file if token_file is not None else data_dir / "dashboard.token"


def ensure_token(path: Path, *, rotate: bool = False) -> tuple[str, bool]:
    """The token in `path` and whether it was made now: an existing one is read (it must be the
    current user's alone and 0600), else (or with `rotate`) a new one is written, 0600, atomically.
    UntrustedLocation when the file or its directory is someone else's or open to others."""
    directory = path.parent
    if not directory.exists():
        directory.mkdir(mode=0o700, parents=True)
    check_owned(directory, "dashboard token directory")
    if path.exists() and not rotate:
        check_owned(path, "dashboard token file")
        if stat.S_IMODE(os.stat(path).st_mode) & 0o077:
            raise UntrustedLocation(f"dashboard token file {path} is readable by others; remove it and restart")
        token = path.read_text(encoding="ascii").strip()
        if len(token) >= 32:
            return token, False
    token = secrets.token_urlsafe(32)
    write_private(path, token + "\n")
    return token, True


def token_matches(given: object, token: str) -> bool:
    return isinstance(given, str) and hmac.compare_digest(given.encode(), token.encode())


def cookie_name(port: object) -> str:
    """Cookies are shared by every port of a host: the name carries the port."""
    return f"{COOKIE_PREFIX}{port}"


def cookie_value(token: str) -> str:
    """What the cookie holds: derived from the token, never the token itself."""
    return hmac.new(token.encode(), b"blastshield-dashboard-cookie", hashlib.sha256).hexdigest()
