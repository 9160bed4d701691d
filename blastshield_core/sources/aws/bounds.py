"""The sizes AWS itself bounds, checked before a policy document is evaluated.

An export may have been written by whoever controls the account, so a policy document in it
may be larger than AWS would ever accept. Such a document is not the account's real state;
evaluating it would only cost time. `policy_bound_error` names what is over AWS's bound, and
the caller ignores that document with a warning naming the item (as for a document that
cannot be read).

The bounds are AWS's IAM quotas: a policy document is at most 10,240 characters without
whitespace (a role's inline policies; managed policies 6,144, trust policies 4,096 at most),
so no document AWS accepts holds more than about 220 statements (the shortest useful statement
has 45 characters), and no ARN, hence no pattern, is longer than 2,048 characters.
"""

from __future__ import annotations

import json
from typing import Any

from ...base.wildcard import MAX_PATTERN

__all__ = ["MAX_PATTERN", "MAX_POLICY_CHARS", "MAX_STATEMENTS", "policy_bound_error"]

MAX_POLICY_CHARS = 10_240
MAX_STATEMENTS = 256
# A policy given as text may be URL-encoded (each character at most 3); the text is refused
# before it is parsed when even that cannot bring it under the bound.
_MAX_TEXT = 3 * MAX_POLICY_CHARS + 4096

_PATTERN_KEYS = ("Action", "NotAction", "Resource", "NotResource")


def _compact_length(document: Any) -> int:
    return len(json.dumps(document, separators=(",", ":"), ensure_ascii=False))


def _long_patterns(statement: dict[str, Any]) -> str | None:
    values: list[Any] = [statement.get(key) for key in _PATTERN_KEYS]
    for key in ("Principal", "NotPrincipal"):
        block = statement.get(key)
        values.extend(block.values() if isinstance(block, dict) else [block])
    for value in values:
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and len(item) > MAX_PATTERN:
                return f"a pattern of {len(item)} characters (AWS allows {MAX_PATTERN})"
    return None


def policy_bound_error(document: Any) -> str | None:
    """Why `document` (an object or JSON text) is beyond what AWS accepts, or None when it is not.

    Checked without parsing text longer than the bound allows and without recursion into the
    document beyond its statements.
    """
    if isinstance(document, str):
        if len(document) > _MAX_TEXT:
            return f"policy document of {len(document)} characters (AWS allows {MAX_POLICY_CHARS})"
        return None  # parsed (and measured) by the caller's parser, which bounds its own nesting
    if not isinstance(document, dict):
        return None
    statements = document.get("Statement")
    if isinstance(statements, list) and len(statements) > MAX_STATEMENTS:
        return f"policy document of {len(statements)} statements (AWS accepts no more than {MAX_STATEMENTS})"
    try:
        size = _compact_length(document)
    except (RecursionError, ValueError):
        return "policy document nested too deeply"
    if size > MAX_POLICY_CHARS:
        return f"policy document of {size} characters without whitespace (AWS allows {MAX_POLICY_CHARS})"
    for statement in statements if isinstance(statements, list) else [statements]:
        if isinstance(statement, dict):
            found = _long_patterns(statement)
            if found is not None:
                return found
    return None
