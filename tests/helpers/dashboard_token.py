"""The dashboard's token for tests that drive it as the user who started it (base/dashboard_token.py).

`make run` serves every URL under the token (`server.baseUrlPath`); `serve_dashboard` starts it the
same way (`interfaces/dashboard_run.py`), and `with_token` gives an AppTest session that setting.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import IO

from blastshield_core import load_settings
from blastshield_core.base.dashboard_token import ensure_token, token_path
from tests.helpers.paths import ROOT

# The bound on one AppTest run. AppTest waits for the script to end (a state); the bound only fails a run that a
# loaded, shared machine has not finished (a collect-and-import run took 4 s quiet and 45 s under load).
RUN_BOUND_S = 300


def token_for(data_dir: Path | None = None) -> str:
    """The token of the dashboard on `data_dir` (else the environment's settings), made if missing."""
    settings = load_settings() if data_dir is None else load_settings(environ={}, data_dir=data_dir)
    return ensure_token(token_path(settings.data_dir, settings.token_file))[0]


def with_token(at):
    """An AppTest session of a dashboard served under its token, as `make run` serves it."""
    from streamlit import config

    config.set_option("server.baseUrlPath", token_for())
    return at


def dashboard_env(data_dir: Path) -> dict[str, str]:
    """This environment without the product's settings, on `data_dir`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_", "GEMINI_"))}
    env["BLASTSHIELD_DATA_DIR"] = str(data_dir)
    return env


def serve_dashboard(
    port: int, data_dir: Path, log: IO, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen, str]:
    """The dashboard served on loopback as `make run` serves it: (the process, its URL without the final slash)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "blastshield_core.interfaces.dashboard_run", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env or dashboard_env(data_dir), stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    return proc, f"http://127.0.0.1:{port}/{token_for(data_dir)}"
