"""`make run`'s second step: the dashboard served by Streamlit, with a closed terminal handled as a stop.

`python -m blastshield_core.interfaces.dashboard_run [streamlit run options]` runs `streamlit run
app.py` in this process. Streamlit stops cleanly on SIGTERM and SIGINT (its server stops, every
session ends and the store, with the embedded database server it started, is closed at exit), but
SIGHUP, which a closed terminal or an SSH session's end sends, would end the process at once and
leave that database server running. Here SIGHUP is turned into SIGTERM before Streamlit starts, so
a hang-up takes the same clean path.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app.py"


def _hang_up_as_terminate(signum: int, frame: object) -> None:
    os.kill(os.getpid(), signal.SIGTERM)  # Streamlit's own SIGTERM handler stops the server


def main(argv: Sequence[str] | None = None) -> int:
    signal.signal(signal.SIGHUP, _hang_up_as_terminate)  # Streamlit sets SIGTERM/SIGINT, never SIGHUP
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", str(APP), *(sys.argv[1:] if argv is None else argv)]
    try:
        cli.main()  # a click command: it ends by raising SystemExit
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
