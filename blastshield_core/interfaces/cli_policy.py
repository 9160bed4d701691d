"""`policy-eval REQUEST.json`: AWS's decision for a request, from the policies it carries.

Imported only by that command. Exit codes: 0 for an answer (a list of requests is always
an answer, an invalid item answered with its `error`), 2 for an unreadable file, text that
is not JSON (or is nested deeper than the decoder goes), or a single invalid request.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..sources.aws.iam.evaluate import evaluate_requests
from .cli_output import EXIT_INVALID, EXIT_OK

MAX_REQUEST_BYTES = 32 * 1024 * 1024


def _read(name: str) -> str:
    if name == "-":
        text = sys.stdin.read(MAX_REQUEST_BYTES + 1)
    else:
        path = Path(name)
        if not path.is_file():
            raise ValueError(f"{name}: no such file")
        if path.stat().st_size > MAX_REQUEST_BYTES:
            raise ValueError(f"{name}: larger than {MAX_REQUEST_BYTES} bytes")
        text = path.read_text(encoding="utf-8")
    if len(text) > MAX_REQUEST_BYTES:
        raise ValueError(f"{name}: larger than {MAX_REQUEST_BYTES} bytes")
    return text


def _text(answer: dict[str, Any], number: int | None = None) -> str:
    head = "" if number is None else f"[{number}] "
    if "error" in answer:
        return f"{head}error: {answer['error']}"
    lines = [f"{head}{answer['decision']}: {answer['reason']}"]
    if answer["conditional"]:
        lines.append(
            f"  conditional on {', '.join(answer['unknown_keys'])} (if they fail: {answer.get('if_keys_fail')})"
        )
    for item in answer["explanation"]:
        on = f" on {item['resource']}" if item.get("resource") else ""
        if "statement" in item:
            sid = f" {item['sid']}" if item.get("sid") else ""
            lines.append(
                f"  {item['policy']}{on} statement {item['statement']}{sid}: {item['effect']} ({item['applies']})"
            )
        else:
            lines.append(f"  {item['policy']}{on}: {'allows' if item.get('allows') else 'does not allow'}")
    lines += [f"  note: {note}" for note in answer.get("notes", [])]
    return "\n".join(lines)


def policy_eval(args: argparse.Namespace) -> int:
    try:
        raw = json.loads(_read(args.request))
    except RecursionError:  # the decoder's own depth limit: a file nested deeper than any request is
        raw, message = None, f"{args.request}: nested too deeply to be a request"
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raw, message = None, str(exc) if not isinstance(exc, json.JSONDecodeError) else f"not JSON: {exc.msg}"
    else:
        message = ""
    if message:
        if args.json:
            print(json.dumps({"error": message}, indent=2))
        else:
            print(f"error: {message}", file=sys.stderr)
        return EXIT_INVALID
    answer, ok = evaluate_requests(raw)
    if args.json:
        print(json.dumps(answer, indent=2))
    elif isinstance(answer, list):
        print("\n".join(_text(item, n) for n, item in enumerate(answer)))
    elif ok:
        print(_text(answer))
    else:
        print(f"error: {answer['error']}", file=sys.stderr)
    return EXIT_OK if ok else EXIT_INVALID
