"""Numbers as claims beyond plain counts: shares of paths, hop lengths and score ranges.

- "two of its three qualifying paths remain open": a share (2, 3) of the alert's paths (open, or cut when
  the clause closes them);
- "40% of the qualifying paths have been cut": a percentage share, never a score;
- "the shortest path is five hops long", "a 3-hop chain": hop lengths of the live paths;
- "the risk score is between 60 and 70", "in the 60-70 range", "from 60 to 70": a score range.

Numbers may be digits or words (`lexicon.number_value`).
"""

from __future__ import annotations

import re

from .lexicon import CLOSE_FORMS, number_value

__all__ = ["NumberClaim", "number_claims", "percent_of_spans", "score_range_spans"]

NumberClaim = tuple[str, object, str]  # kind (path_share | hops | score_range), value, text

_N = (
    r"(\d{1,3}|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?)"
)
_SHARE = re.compile(
    rf"\b{_N}\s+(?:out\s+)?of\s+(?:its|the|their|all|his|her|these|those)?\s*(?:the\s+)?{_N}\s+"
    r"((?:qualifying|remaining|original|initial|access|attack|live)\s+)*paths?\b",
    re.I,
)
_PERCENT = re.compile(
    r"(?<![\w.])(\d{1,3})\s*(?:%|percent|per\s+cent)\s+of\s+(?:its|the|their|all)?\s*(?:the\s+)?"
    r"(?:(?:qualifying|remaining|original|access|attack)\s+)*paths?\b",
    re.I,
)
_HOPS_EXTREME = re.compile(
    rf"\b(?P<which>shortest|longest)\b(?:\s+(?:qualifying|remaining|live|access|attack))*\s+(?:path|chain|route)\b"
    rf"[^.;\n]{{0,30}}?\b(?:is|was|has|takes|spans|covers|of|at)\s+(?:only\s+|just\s+|exactly\s+)?{_N}\s*-?\s*hops?\b",
    re.I,
)
_HOPS_ADJ = re.compile(rf"\b(?P<which>shortest|longest)\s+(?:is\s+)?(?:a\s+)?{_N}\s*-\s*hop\b", re.I)
_RANGE = re.compile(
    r"\b(?:score|scored|scores|rated|risk)\b[^.;\n]{0,30}?\b(?:between\s+(\d{1,3})\s+and\s+(\d{1,3})"
    r"|from\s+(\d{1,3})\s+to\s+(\d{1,3})|in\s+the\s+(\d{1,3})\s*[-–]\s*(\d{1,3})(?:\s+range)?"
    r"|(\d{1,3})\s*[-–]\s*(\d{1,3})\s+range)",
    re.I,
)


def _closing(text: str) -> bool:
    return any(w in CLOSE_FORMS for w in re.findall(r"[a-z]+", text.lower()))


def score_range_spans(clause: str) -> list[tuple[int, int]]:
    return [m.span() for m in _RANGE.finditer(clause)]


def percent_of_spans(clause: str) -> list[tuple[int, int]]:
    return [m.span() for m in _PERCENT.finditer(clause)]


def number_claims(clause: str) -> list[NumberClaim]:
    out: list[NumberClaim] = []
    for m in _SHARE.finditer(clause):
        k, total = number_value(m.group(1)), number_value(m.group(2))
        if k is not None and total is not None:
            out.append(("path_share", (k, total, _closing(clause[m.end() :])), m.group(0)))
    for m in _PERCENT.finditer(clause):
        out.append(("path_percent", (int(m.group(1)), _closing(clause[m.end() :])), m.group(0)))
    for rx in (_HOPS_EXTREME, _HOPS_ADJ):
        for m in rx.finditer(clause):
            n = number_value(m.group(2))
            if n is not None:
                out.append(("hops", (m.group("which").lower(), n), m.group(0)))
    for m in _RANGE.finditer(clause):
        lo, hi = (int(g) for g in m.groups() if g is not None)
        out.append(("score_range", (min(lo, hi), max(lo, hi)), m.group(0)))
    return out
