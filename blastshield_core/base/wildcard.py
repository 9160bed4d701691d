"""Wildcard patterns (`*` any run of characters, `?` one character) matched in linear time.

IAM compares actions, resources, principals and `StringLike` / `ArnLike` values with these
two wildcards. Translating `a*b*c` to the regular expression `a.*b.*c` lets the regular
expression engine backtrack: each extra star multiplies the work by the length of the text,
so a planted pattern with a few dozen stars never finishes.

A pattern is its star-free *segments* (where `?` stands for any one character) joined by
stars. The text matches when the first segment is a prefix, the last a suffix, and the
segments between occur in order, without overlap, in what is left. Taking each middle segment
at its *leftmost* occurrence is always right: any later occurrence leaves less room for the
segments after it (this is the classic two-pointer argument). `compile` builds exactly that:
each middle segment inside an atomic group `(?>.*?segment)`, which finds its leftmost
occurrence and never gives it back, so the engine never revisits a decision. The work is at
most the text's length times the pattern's length (each segment is tried once per start
position), and the matching itself stays in C, so a list of ARNs is filtered without Python
code per ARN. `match` is the same two-pointer algorithm in plain Python, for one-off tests.

`*` and `?` match any character, a newline included. Case-insensitive matching (actions,
service principals) uses the regular expression engine's case folding.

`compile_pattern(pattern, literal=MARK)` reads a character that follows `literal` as itself, even
a `*` or a `?`: policy variables `${*}`, `${?}` and `${$}` stand for those literal characters, and
the condition operators mark them so. Such a pattern goes through the same construction, so no
pattern, marked or not, is ever matched by a backtracking expression.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["MAX_PATTERN", "compile_pattern", "has_wildcard", "match", "segments"]

# No IAM string is longer: an ARN is at most 2,048 characters (a policy document at most
# 10,240 for a role's inline policies, 6,144 for a managed one).
MAX_PATTERN = 2048


def has_wildcard(pattern: str) -> bool:
    return "*" in pattern or "?" in pattern


def _segment(text: str) -> str:
    return ".".join(map(re.escape, text.split("?")))


def segments(pattern: str, literal: str | None = None) -> list[str]:
    """The star-free segments of `pattern`, each as a regular expression (`?` any one character),
    the text between unmarked stars. With `literal`, the character after each `literal` is itself."""
    if literal is None or literal not in pattern:
        return [_segment(part) for part in pattern.split("*")]
    parts: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == literal and i + 1 < len(pattern):
            current.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if char == "*":
            parts.append("".join(current))
            current = []
        elif char == "?":
            current.append(".")
        else:
            current.append(re.escape(char))
        i += 1
    parts.append("".join(current))
    return parts


@lru_cache(maxsize=65536)
def compile_pattern(pattern: str, case_sensitive: bool = True, literal: str | None = None) -> re.Pattern[str]:
    """`pattern` as a regular expression whose `fullmatch` (or `match`) cannot backtrack; with
    `literal`, a character after that mark is matched as itself (a `*` or `?` included)."""
    flags = re.DOTALL | (0 if case_sensitive else re.IGNORECASE)
    parts = segments(pattern, literal)
    if len(parts) == 1:
        return re.compile(parts[0] + r"\Z", flags)
    first, *middle, last = parts
    body = [first]
    body.extend(f"(?>.*?{part})" for part in middle if part)
    body.append(f".*{last}\\Z")  # the last segment is a suffix (one backward scan)
    return re.compile("".join(body), flags)


def match(pattern: str, text: str, case_sensitive: bool = True) -> bool:
    """`pattern` matches all of `text`: the two-pointer algorithm, at most len(pattern) * len(text) steps."""
    if not case_sensitive:
        return compile_pattern(pattern, False).match(text) is not None
    p = t = 0
    star = -1  # the pattern index just after the last star seen
    resume = 0  # where in the text that star's run ends so far
    while t < len(text):
        if p < len(pattern) and (pattern[p] == "?" or pattern[p] == text[t]):
            p += 1
            t += 1
        elif p < len(pattern) and pattern[p] == "*":
            star, resume = p + 1, t
            p += 1
        elif star >= 0:
            resume += 1  # the star takes one more character
            p, t = star, resume
        else:
            return False
    while p < len(pattern) and pattern[p] == "*":
        p += 1
    return p == len(pattern)
