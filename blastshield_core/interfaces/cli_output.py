"""What every command prints, shared by the command line's modules: the exit codes, a result as
JSON or text (`_emit`) and an error (`_fail`). The standard library and the result models only,
so a read command imports nothing more for it."""

from __future__ import annotations

import json
import sys
from typing import Any

from ..results import Status

EXIT_OK, EXIT_INVALID, EXIT_UNKNOWN, EXIT_FAILED = 0, 2, 3, 4
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
    else:
        print(f"error: {message}", file=sys.stderr)
    return code
