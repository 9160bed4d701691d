"""`make run`'s first step: a fresh dashboard token, and the URL to open, printed in the terminal.

`python -m blastshield_core.interfaces.dashboard_start --port 8501` writes a new token (0600, see
`base/dashboard_token.py`; the previous one and every URL made from it stop working) and prints
`http://127.0.0.1:PORT/TOKEN/`, the URL `dashboard_run` serves the dashboard under. Exit 2 with the
reason when the token's location is not trusted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..base.dashboard_token import dashboard_url, ensure_token, token_path
from ..base.ownership import UntrustedLocation
from ..base.settings import SettingsError, load_settings


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dashboard_start", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8501)
    args = parser.parse_args(argv)
    try:
        settings = load_settings()
        path = token_path(settings.data_dir, settings.token_file)
        token, _ = ensure_token(path, rotate=True)
    except (SettingsError, UntrustedLocation, OSError) as exc:
        print(f"error: {exc}; the dashboard was not started", file=sys.stderr)
        return 2
    print(f"BlastShield dashboard (loopback, without sign-in): open {dashboard_url(args.port, token)}")
    print(f"(the token in its path is kept in {path}, readable by you alone)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
