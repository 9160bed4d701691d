"""The dashboard's token for tests that drive it as the user who started it (base/dashboard_token.py)."""

from __future__ import annotations

from pathlib import Path

from blastshield_core import load_settings
from blastshield_core.base.dashboard_token import ensure_token, token_path


def token_for(data_dir: Path | None = None) -> str:
    """The token of the dashboard on `data_dir` (else the environment's settings), made if missing."""
    settings = load_settings() if data_dir is None else load_settings(environ={}, data_dir=data_dir)
    return ensure_token(token_path(settings.data_dir, settings.token_file))[0]


def with_token(at):
    """An AppTest session that arrives with the token in its URL, as the starting user does."""
    at.query_params["token"] = token_for()
    return at
