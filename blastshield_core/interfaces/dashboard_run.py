"""`make run`'s second step: the dashboard served by Streamlit, under its token, with a closed terminal
handled as a stop.

`python -m blastshield_core.interfaces.dashboard_run [streamlit run options]` runs `streamlit run
serve.py` (the dashboard, `app.py`, and a "token required" page for every other URL) in this process.

- **Its token as the path.** On loopback without sign-in (the default), every URL is served under
  the dashboard's token (`server.baseUrlPath`, see `base/dashboard_token.py`): the token is read
  from its file (made if missing) and given to Streamlit inside this process, never on a command
  line (any local user reads `/proc/PID/cmdline`). A `--server.baseUrlPath` given here is replaced.
  With sign-in configured, or beyond loopback, nothing is added. Exit 2 with the reason when the
  token's location is not trusted.
- **A hang-up is a stop.** The server (uvicorn, under Streamlit's `st.App` in `serve.py`) stops
  cleanly on SIGTERM and SIGINT (every session ends and the store, with the embedded database server
  it started, is closed at exit), then raises the signal again, which would end the process by it;
  here that second SIGTERM is a clean exit (status 0). SIGHUP, which a closed terminal or an SSH
  session's end sends, would end the process at once and leave that database server running: it is
  turned into SIGTERM before the server starts, so a hang-up takes the same clean path.
"""

from __future__ import annotations

import os
import signal
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

from ..base.access import Exposure, decide_exposure
from ..base.dashboard_token import ensure_token, token_path
from ..base.ownership import UntrustedLocation
from ..base.settings import SettingsError, load_settings

# `serve.py` serves `app.py`, and answers every URL no route matches with a "token required" page.
APP = Path(__file__).resolve().parents[2] / "serve.py"
BASE_PATH = "server.baseUrlPath"


def _hang_up_as_terminate(signum: int, frame: object) -> None:
    os.kill(os.getpid(), signal.SIGTERM)  # the server's own SIGTERM handler stops it


def _stopped(signum: int, frame: object) -> None:
    """SIGTERM outside the server's own handling: before it starts, and once it has stopped (uvicorn
    raises the signal it stopped on again, with this handler back in place): a clean exit."""
    raise SystemExit(0)


def _option(argv: list[str], name: str) -> str | None:
    """The value of `--NAME VALUE` or `--NAME=VALUE` in `argv` (the last one given)."""
    found = None
    for i, arg in enumerate(argv):
        if arg == f"--{name}" and i + 1 < len(argv):
            found = argv[i + 1]
        elif arg.startswith(f"--{name}="):
            found = arg.split("=", 1)[1]
    return found


def _without(argv: list[str], name: str) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == f"--{name}":
            skip = True
        elif not arg.startswith(f"--{name}="):
            out.append(arg)
    return out


def _toml(path: Path) -> dict:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def _streamlit_files(name: str) -> list[Path]:
    """Streamlit's files of this name, most important last: the user's, the working directory's, the app's."""
    return [Path.home() / ".streamlit" / name, Path.cwd() / ".streamlit" / name, APP.parent / ".streamlit" / name]


def _local(argv: list[str]) -> bool:
    """On loopback without sign-in: the dashboard is its starting user's, behind the token. The address
    and the sign-in section are read where Streamlit reads them (a flag, then `STREAMLIT_SERVER_ADDRESS`,
    then `config.toml`; `[auth]` in `secrets.toml`) without loading Streamlit's configuration twice."""
    address = _option(argv, "server.address") or os.environ.get("STREAMLIT_SERVER_ADDRESS")
    for path in [] if address else _streamlit_files("config.toml"):
        address = _toml(path).get("server", {}).get("address", address)
    sign_in = any("auth" in _toml(path) for path in _streamlit_files("secrets.toml"))
    return decide_exposure(address, sign_in, os.environ) is Exposure.LOCAL


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if _local(args):
        try:
            settings = load_settings()
            token, _ = ensure_token(token_path(settings.data_dir, settings.token_file))
        except (SettingsError, UntrustedLocation, OSError) as exc:
            print(f"error: {exc}; the dashboard was not started", file=sys.stderr)
            return 2
        args = [*_without(args, BASE_PATH), f"--{BASE_PATH}", token]  # Streamlit prints the URL with it
    signal.signal(signal.SIGHUP, _hang_up_as_terminate)  # the server handles SIGTERM/SIGINT, never SIGHUP
    signal.signal(signal.SIGTERM, _stopped)
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", str(APP), *args]  # this process's own list: /proc shows the original
    try:
        cli.main()  # a click command: it ends by raising SystemExit
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
