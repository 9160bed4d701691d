"""The dashboard's token: on loopback without sign-in, the dashboard belongs to the user who started it.

Every local user can reach a loopback port, so "loopback" alone does not say who is asking. The
dashboard keeps a random token in a file only its user can read (0600, by default
`dashboard.token` in the data directory, itself 0700 and the user's own), and serves every URL
under that token as its path (Streamlit's `server.baseUrlPath`): `http://127.0.0.1:PORT/TOKEN/`,
printed in the terminal that started it. A request without it (a page, the websocket of a session,
an upload) matches no route of the dashboard and gets only a fixed "token required" page (404,
`serve.py`): no session is ever made for it, so no page code and no write runs, and nothing it sends
is kept.

Why the path and not a cookie: browsers send every cookie for 127.0.0.1 to every port, HttpOnly ones
included, and a script of any page served on 127.0.0.1 reads the others; another local user serves
such a page on a port of their own. A URL's path is sent to its own origin (scheme, host and port)
only: no script of another origin can read it, and `Referer` carries only the origin across origins.
Why not a token kept in the server-side session: a reload or a new tab makes a new session (the token
would be asked for again), and Streamlit accepts a session's uploads before its script has run, so a
stranger's session could still fill the server's memory. With sign-in configured the token is not used.
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat
from pathlib import Path

from .ownership import UntrustedLocation, check_owned
from .privatefile import write_private

__all__ = ["dashboard_url", "ensure_token", "token_matches", "token_path"]


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
        if len(token) >= 32 and token.replace("-", "").replace("_", "").isalnum():
            return token, False
    token = secrets.token_urlsafe(32)  # letters, digits, - and _: one segment of a URL's path as it is
    write_private(path, token + "\n")
    return token, True


def token_matches(given: object, token: str) -> bool:
    return isinstance(given, str) and hmac.compare_digest(given.encode(), token.encode())


def dashboard_url(port: object, token: str, host: str = "127.0.0.1") -> str:
    """The URL to open: every page of the dashboard is served under the token."""
    return f"http://{host}:{port}/{token}/"
