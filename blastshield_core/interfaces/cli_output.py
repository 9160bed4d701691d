"""What every command prints, shared by the command line's modules: the exit codes, a result as
JSON or text (`_emit`) and an error (`_fail`). The standard library and the result models only,
so a read command imports nothing more for it."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any

from ..results import Status
from .terminal import one_line

EXIT_OK, EXIT_INVALID, EXIT_UNKNOWN, EXIT_FAILED = 0, 2, 3, 4
# `import-aws` stopped by a signal after its import committed: the accounts are imported, the report after
# it (the principals to look at first) is not shown. Neither 0 (the command did not finish) nor 128 + the
# signal (which says nothing was written): a script tells the three apart by the code alone.
EXIT_REPORT_INTERRUPTED = 5
# `contain` ended `graph_only`: no path is left in the graph, but a block on an AWS-backed route was not
# applied on the account (the credentials still work there). Never 0, and not the 1 of a stopped run.
EXIT_GRAPH_ONLY = 6
EXIT_CODES = {
    Status.PATHS_FOUND: EXIT_OK,
    Status.NO_PATH: EXIT_OK,
    Status.OK: EXIT_OK,
    Status.INVALID_INPUT: EXIT_INVALID,
    Status.UNKNOWN_ALERT: EXIT_UNKNOWN,
    Status.UNKNOWN_SOURCE: EXIT_UNKNOWN,
    Status.UNKNOWN_TARGET: EXIT_UNKNOWN,
    Status.UNKNOWN_ROUTE: EXIT_UNKNOWN,
    Status.QUERY_FAILED: EXIT_FAILED,
}


def _emit(payload: dict[str, Any], as_json: bool, text: str) -> None:
    if as_json:
        print(json.dumps(payload, indent=2, default=str))
    else:
        print(text)


def _fail(as_json: bool, status: Status, message: str, code: int) -> int:
    if as_json:
        print(json.dumps({"status": status.value, "message": message}, indent=2))
    else:  # one line: a name in the message (an archive member's, a file's) cannot begin a line of its own
        print(f"error: {one_line(message)}", file=sys.stderr)
    return code


def _lines(lines: Iterable[str]) -> str:
    """Lines of text output, each kept to one line: a name, title or reason from imported data that holds a
    line break (`\\n`, `\\r`, U+2028) shows it as an escape and cannot forge a line of its own."""
    return "\n".join(one_line(line) for line in lines)
