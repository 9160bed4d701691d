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

AWS managed policies (`arn:aws:iam::aws:policy/...`) are written by AWS and are not held to
those quotas: in a real export `ReadOnlyAccess` has 46,948 characters without whitespace and
`AWSSupportServiceRolePolicy` 81,373. Ignoring them would drop the access they grant (a
principal with `ReadOnlyAccess` would read nothing), so they get bounds of their own, far above
any of AWS's, that still keep a hostile file from costing unbounded time: 1,048,576 characters
and 4,096 statements.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ....base.wildcard import MAX_PATTERN

__all__ = [
    "AWS_MANAGED_POLICY_CHARS",
    "AWS_MANAGED_STATEMENTS",
    "MAX_PATTERN",
    "MAX_POLICY_CHARS",
    "MAX_STATEMENTS",
    "is_aws_managed",
    "policy_bound_error",
]

MAX_POLICY_CHARS = 10_240
MAX_STATEMENTS = 256
AWS_MANAGED_POLICY_CHARS = 1_048_576
AWS_MANAGED_STATEMENTS = 4_096
_AWS_MANAGED = re.compile(r"^arn:aws[\w-]*:iam::aws:policy/")


def is_aws_managed(policy_arn: str) -> bool:
    """An AWS managed policy (owned by AWS, in every account): `arn:aws:iam::aws:policy/...`."""
    return bool(_AWS_MANAGED.match(policy_arn))


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


def policy_bound_error(document: Any, aws_managed: bool = False) -> str | None:
    """Why `document` (an object or JSON text) is beyond what AWS accepts, or None when it is not;
    `aws_managed`: the document of an AWS managed policy, held to the bounds of those.

    Checked without parsing text longer than the bound allows and without recursion into the
    document beyond its statements.
    """
    if aws_managed:
        chars, most, whose = AWS_MANAGED_POLICY_CHARS, AWS_MANAGED_STATEMENTS, "an AWS managed policy may have"
    else:
        chars, most, whose = MAX_POLICY_CHARS, MAX_STATEMENTS, "AWS allows"
    if isinstance(document, str):
        # text may be URL-encoded (each character at most 3): refused before it is parsed when even
        # that cannot bring it under the bound
        if len(document) > 3 * chars + 4096:
            return f"policy document of {len(document)} characters ({whose} {chars})"
        return None  # parsed (and measured) by the caller's parser, which bounds its own nesting
    if not isinstance(document, dict):
        return None
    statements = document.get("Statement")
    if isinstance(statements, list) and len(statements) > most:
        return f"policy document of {len(statements)} statements ({whose} no more than {most})"
    try:
        size = _compact_length(document)
    except (RecursionError, ValueError):
        return "policy document nested too deeply"
    if size > chars:
        return f"policy document of {size} characters without whitespace ({whose} {chars})"
    for statement in statements if isinstance(statements, list) else [statements]:
        if isinstance(statement, dict):
            found = _long_patterns(statement)
            if found is not None:
                return found
    return None
