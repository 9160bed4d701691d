"""Numbers as claims: scores, severities, counts and bounds, shares of paths, hop lengths and score ranges.

- "a risk score of 65", "0.65 risk", "rated high", "a high-severity alert": a score or a severity;
- "three qualifying paths", "the number of assets is 2", "at least one path": a count or a bound (a count
  after "of", "cut", "before" and the like is a part or a history, not a count);
- "two of its three qualifying paths remain open": a share (2, 3) of the alert's paths (open, or cut when
  the clause closes them);
- "40% of the qualifying paths have been cut": a percentage share, never a score;
- "the shortest path is five hops long", "a 3-hop chain": hop lengths of the live paths;
- "the risk score is between 60 and 70", "in the 60-70 range", "from 60 to 70": a score range (negative bounds
  included: "between -10 and 0").

Numbers may be digits or words (`lexicon.number_value`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .lexicon import CLOSE_ADJECTIVES, CLOSE_FORMS, number_value

__all__ = [
    "DEPTH_RE",
    "PARTIAL_RE",
    "NumberClaim",
    "ValueClaim",
    "before_after_row",
    "elliptic_counts",
    "number_claims",
    "percent_of_spans",
    "score_range_spans",
    "value_claims",
]

NumberClaim = tuple[str, object, str]  # kind (path_share | hops | score_range), value, text
ValueClaim = tuple[str, object, str, str]  # kind (score | severity | *_count | path_bound), value, text, qualifier

_NUM_WORDS = (
    r"zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+single|single|a\s+pair\s+of|"
    r"a\s+couple\s+of|both"
)
_TENS = r"twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_NUM = rf"(\d{{1,4}}|(?:{_TENS})(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?|{_NUM_WORDS})"
_SCORE_RES = (
    re.compile(
        r"\bscor(?:e|es|ed|ing)\b[^.\d\n+]{0,25}?(?<![\w+.-])(\d{1,3})\b(?![.,]\d)(?!\s*(?:points?|pts|%|hops?|/))",
        re.I,
    ),
    re.compile(
        rf"\bscor(?:e|es|ed|ing)\b(?:\s+(?:of|is|was|at|now|stands|sits|a|an|the|risk)){{0,3}}\s+({_NUM})\b(?![.,]\d)",
        re.I,
    ),
    re.compile(r"(?<![\w.+-])(\d{1,3})\s*(?:/\s*100|out\s+of\s+(?:a\s+)?(?:100|hundred)|percent|per\s+cent|%)", re.I),
    re.compile(
        r"(?<![\w-])risk(?:\s+(?:level|rating|of|is|at|=|:))*\s+(\d{1,3})\b(?!\s*-?\s*(?:points?|hops?|paths?|assets?))",
        re.I,
    ),
)
_FRACTION_RE = re.compile(r"(?<![\w.])(0?\.\d{1,2})(?!\d)(?!\.\d)")
_SEV = r"(low|medium|moderate|high|critical)"
_SEVERITY_RES = (
    re.compile(
        rf"\b(?:severity|rating|priority)\s+(?:has\s+)?(?:dropped|fell|fallen|went|gone|moved|changed|decreased|rose|"
        rf"risen|increased|climbed|been\s+(?:lowered|raised))\s+(?:from\s+{_SEV}\s+)?(?:down\s+|up\s+)?to\s+{_SEV}\b",
        re.I,
    ),
    re.compile(
        rf"\b(?:severity|criticality|priority)\b\W{{0,3}}(?:(?:is|was|of|level|rated|now|at|a|an|rating|=)\s+){{0,3}}"
        rf"\W{{0,2}}{_SEV}\b",
        re.I,
    ),
    re.compile(rf"\b{_SEV}[\s-]+(?:severity|priority|risk|rated)\b", re.I),
    re.compile(
        rf"\b(?:rated|classed|classified|graded|ranked|triaged|categori[sz]ed|labell?ed|assessed)\s+(?:as\s+)?"
        rf"(?:an?\s+)?{_SEV}\b",
        re.I,
    ),
    re.compile(rf"\b(?:an?|this)\s+{_SEV}\s+(?:alert|incident|finding|case|issue|event)\b", re.I),
    re.compile(
        rf"\bscore\b[^.\n]{{0,25}}?\d{{1,3}}\s*(?:/\s*100)?\s*[(,]?\s*{_SEV}\b(?![\s-]+(?:sensitivity|data|assets?))",
        re.I,
    ),
)
_COUNT_ADJ = (
    r"qualifying|access|attack|distinct|remaining|active|separate|independent|modell?ed|open|critical|sensitive|"
    r"high|high-sensitivity|high/critical|data|or|and|current|live|different|unique|exposed|reachable|session|"
    r"valuable|target|important|more|further|other|additional|total|blockable|known|existing|standing|viable"
)
_COUNT_RE = re.compile(
    rf"(?<![\w.-]){_NUM}\s+((?:(?:{_COUNT_ADJ})[\s-]+){{0,4}})(paths?|assets?|routes?)\b(?!\s+of\b)", re.I
)
_COUNT_NOUN_FIRST = re.compile(
    rf"\b(?:number\s+of|count\s+of)\s+(?:(?:{_COUNT_ADJ})\s+){{0,3}}(paths|assets|routes)\s+(?:is|was|stands\s+at|=|:)\s+"
    rf"{_NUM}\b|\b(path|asset|route)\s+count\s*(?:is|was|of|=|:)?\s*(?:now\s+)?{_NUM}\b",
    re.I,
)
_COUNT_SKIP_BEFORE = re.compile(
    r"\b(?:before|initially|originally|original|at\s+the\s+start|started|previously|had|of|cut|cuts|cutting|carried|carries|"
    r"carry|carrying|was|were|from|blocking|blocked|removed|severed|among|than|by|within|in|last|first)\W*(?:\w+\W+)?$",
    re.I,
)
_BOUND_BEFORE = re.compile(
    r"\b(?:at\s+least|at\s+most|more\s+than|fewer\s+than|less\s+than|up\s+to|no\s+more\s+than|"
    r"no\s+fewer\s+than|no\s+less\s+than)\s*$",
    re.I,
)


_RANGE_BEFORE = re.compile(rf"\b(?:between|from)\s+{_NUM}\s+(?:and|to)\s*$", re.I)


def _bound_op(words: str) -> str:
    """>= for "at least", "no fewer than"; > for "more than"; <= and < likewise ("over 2 paths" is "via")."""
    low = " ".join(words.lower().split())
    if low in ("at least", "no fewer than", "no less than"):
        return ">="
    if low in ("at most", "up to", "no more than"):
        return "<="
    return ">" if low == "more than" else "<"


_N = (
    r"(\d{1,3}|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?)"
)
# "within 4 hops", "at depth 4", "of 4 hops or fewer": a bound on the paths' length
DEPTH_RE = re.compile(
    r"\b(?:(?:within|at\s+depth|at\s+a\s+depth\s+of|depth|up\s+to|at\s+most|in)\s+|"
    r"(?=(?:\d|one|two|three|four|five|six)\s*-?\s*hops?\s+or\s+(?:fewer|less)\b))(\d|one|two|three|four|five|six)\b"
    r"(?:\s*-?\s*hops?)?",
    re.I,
)
PARTIAL_RE = re.compile(
    r"\b(?:one|some|part|two|\d+)\s+of\b|\bpartial(?:ly)?\b|\bpartly\b|\bsome\b|\bhalf\b"
    r"|(?:%|\bpercent|\bper\s+cent)\s+of\b|\b(?:\d+|one|two|three|four|five)\s+(?:\w+\s+)?paths?\s+out\s+of\b"
    r"|(?<![\w./])\d{1,2}\s*/\s*\d{1,2}\s+(?:\w+\s+)?paths?\b|\b(?:a|one|two)\s+(?:third|thirds|quarter|quarters)\b",
    re.I,
)
_SHARE = re.compile(
    rf"\b{_N}\s+(?:out\s+)?of\s+(?:(?:its|the|their|all|his|her|these|those)\s+)*(?:(?:original|initial|starting|"
    rf"first|qualifying|live|open)\s+)?{_N}\s+((?:qualifying|remaining|original|initial|starting|access|attack|live)\s+)*"
    r"paths?\b",
    re.I,
)
_PATHS_ADJ = r"(?:(?:qualifying|remaining|original|initial|starting|access|attack|live|open)\s+)*paths?\b"
# "1 path out of 2", "one in two paths", "1/2 paths": the part and the whole the other way round
_SHARE_OTHER = (
    re.compile(rf"\b{_N}\s+{_PATHS_ADJ}\s+out\s+of\s+(?:the\s+)?{_N}\b", re.I),
    re.compile(rf"\b{_N}\s+in\s+(?:every\s+)?{_N}\s+{_PATHS_ADJ}", re.I),
    re.compile(rf"(?<![\w./])(\d{{1,2}})\s*/\s*(\d{{1,2}})\s+{_PATHS_ADJ}", re.I),
)
# "half of the paths", "two thirds of the starting paths": a share as a fraction
_FRACTIONS = {"half": 50, "a half": 50, "one half": 50, "a third": 33, "one third": 33, "two thirds": 67}
_FRACTIONS |= {"a quarter": 25, "one quarter": 25, "three quarters": 75}
_FRACTION_OF = re.compile(
    r"\b(" + "|".join(sorted(_FRACTIONS, key=len, reverse=True)) + r")\s+of\s+(?:(?:its|the|their|all)\s+)*"
    r"(?:[a-z'-]+\s+){0,3}?paths?\b",
    re.I,
)
# "the score is above 60", "a risk score of at least 50", "not higher than 70": a bound on the score
_SCORE_BOUND = re.compile(
    r"\b(?:score|scored|scores|scoring)\b[^.;\n\d]{0,25}?\b(?P<neg>not\s+|no\s+longer\s+|never\s+)?"
    r"(?P<op>above|over|below|under|at\s+least|at\s+most|more\s+than|less\s+than|greater\s+than|higher\s+than|"
    r"lower\s+than|no\s+more\s+than|no\s+less\s+than|no\s+higher\s+than|no\s+lower\s+than|exceeds|exceeding)\s+"
    r"(?P<n>\d{1,3})\b(?!\s*(?:%|percent|hops?|paths?))",
    re.I,
)
_SCORE_OPS = {"above": ">", "over": ">", "more than": ">", "greater than": ">", "higher than": ">", "exceeds": ">"}
_SCORE_OPS |= {"exceeding": ">", "below": "<", "under": "<", "less than": "<", "lower than": "<", "at least": ">="}
_SCORE_OPS |= {
    "no less than": ">=",
    "no lower than": ">=",
    "at most": "<=",
    "no more than": "<=",
    "no higher than": "<=",
}
_PERCENT = re.compile(
    r"(?<![\w.])(\d{1,3})\s*(?:%|percent|per\s+cent)\s+of\s+(?:(?:its|the|their|all|his|her)\s+)*"
    r"(?:[a-z'-]+\s+){0,3}?paths?\b",
    re.I,
)
_PCT = r"(?:%|\s*percent|\s*per\s+cent)"
# "between 80 and 100 percent of the starting paths", "60-80% of the paths": a range of the share of the paths
_PERCENT_RANGE = re.compile(
    rf"\b(?:between\s+(\d{{1,3}}){_PCT}?\s+and\s+(\d{{1,3}})|from\s+(\d{{1,3}}){_PCT}?\s+to\s+(\d{{1,3}})"
    rf"|(\d{{1,3}}){_PCT}?\s*(?:[-–]|to)\s*(\d{{1,3}})){_PCT}\s+of\s+(?:(?:its|the|their|all|his|her)\s+)*"
    rf"(?:[a-z'-]+\s+){{0,3}}?paths?\b",
    re.I,
)
# a closing verb whose object the share is ("the run cut zero of the three paths", "blocked 50% of the paths")
_CLOSING_BEFORE = re.compile(r"\b([a-z]+)\s+(?:off\s+|out\s+)?(?:only\s+|just\s+|exactly\s+)?$", re.I)
_CHANGED = re.compile(
    r"\b(?:dropped|fell|fallen|went|gone|moved|changed|decreased|reduced|rose|risen|grew|increased|climbed|lowered|raised)\b",
    re.I,
)
_HOPS_EXTREME = re.compile(
    rf"\b(?P<which>shortest|longest)\b(?:\s+(?:qualifying|remaining|live|access|attack|open))*\s+(?:path|chain|route)\b"
    rf"[^.;\n]{{0,30}}?(?:\b(?:is|was|has|takes|spans|covers|crosses|of|at)|\s*[:=])\s+(?:still\s+|now\s+)?(?:only\s+|just\s+|exactly\s+)?{_N}\s*-?\s*"
    r"(?:hops?|relationships?|steps?|edges?)\b",
    re.I,
)
# "the remaining path is five hops long", "the only open chain has three relationships": one of the live paths
_HOPS_THE = re.compile(
    rf"\bthe\s+(?P<which>only|one|single|open|remaining|live|last|qualifying)\s+(?:(?:open|remaining|live|qualifying)\s+)?"
    rf"(?:path|chain)\s+(?:is|spans|covers|has|takes|runs)\s+(?:only\s+|just\s+|exactly\s+)?{_N}\s*-?\s*"
    r"(?:hops?|relationships?|steps?|edges?)\b",
    re.I,
)
# "a 5-hop path is left", "the path left after the block is four hops long": one of the live paths
_HOPS_LEFT = (
    re.compile(
        rf"\b(?P<which>a|one|the)\s+{_N}\s*-\s*hop\s+(?:(?:qualifying|open|live|attack|access)\s+)?(?:path|chain)\s+"
        r"(?:is\s+|was\s+)?(?:still\s+)?(?:left|remains|survives|stays\s+open|is\s+open|open)\b",
        re.I,
    ),
    re.compile(
        rf"\bthe\s+(?:path|chain)\s+(?:that\s+(?:is|was)\s+)?(?P<which>left|remaining|still\s+open)\b[^.;\n\d]{{0,30}}?\s"
        rf"(?:is|spans|has|takes)\s+(?:only\s+|just\s+|exactly\s+)?{_N}\s*-?\s*(?:hops?|relationships?|steps?|edges?)\b",
        re.I,
    ),
)
# "at least one open path is shorter than five hops": a bound on the shortest live path ("longer than": the longest)
_HOPS_THAN = re.compile(
    r"\b(?:at\s+least\s+one|one|a|some)\s+(?:(?:open|live|remaining|qualifying)\s+)*path\s+(?:is\s+)?(?:still\s+)?"
    rf"(?P<which>shorter|longer)\s+than\s+{_N}\s*-?\s*hops?\b",
    re.I,
)
# "there is a path within three hops", "there is still an open path of four hops or fewer": one live path that short
_HOPS_WITHIN = re.compile(
    r"\bthere\s+(?:is|remains)\s+(?:still\s+)?(?:a|an|one|at\s+least\s+one)\s+(?:(?:open|live|qualifying|remaining)\s+)*"
    rf"path\s+(?:within\s+{_N}\s*-?\s*hops?\b|of\s+{_N}\s*-?\s*hops?\s+or\s+(?:fewer|less)\b)",
    re.I,
)
# "every open path is 4 hops or shorter", "all the paths are at most five hops long", "no open path is longer than
# 4 hops": a bound on every live path's length
_ALL_PATHS = (
    r"\b(?P<q>every|each|all(?:\s+(?:of\s+)?the)?|no|none\s+of\s+the)\s+(?:(?:open|live|remaining|qualifying)\s+)*"
    r"paths?\s+(?:is|are)\s+(?:still\s+|now\s+|currently\s+)*"
)
_HOPS_ALL = (
    re.compile(
        rf"{_ALL_PATHS}(?P<b>at\s+most|no\s+more\s+than|within|at\s+least|no\s+fewer\s+than|no\s+less\s+than|"
        rf"under|over|more\s+than|fewer\s+than|less\s+than)?\s*{_N}\s*-?\s*hops?(?:\s+long)?"
        r"(?:\s+or\s+(?P<dir>shorter|fewer|less|longer|more))?",
        re.I,
    ),
    re.compile(rf"{_ALL_PATHS}(?P<cmp>shorter|longer)\s+than\s+{_N}\s*-?\s*hops?", re.I),
)
_ALL_OPS = {"at most": "le", "no more than": "le", "within": "le", "at least": "ge", "no fewer than": "ge"}
_ALL_OPS |= {
    "no less than": "ge",
    "under": "lt",
    "over": "gt",
    "more than": "gt",
    "fewer than": "lt",
    "less than": "lt",
}
_NEGATED_OP = {"le": "gt", "ge": "lt", "lt": "ge", "gt": "le", "eq": "ne"}


def _all_hops(clause: str) -> list[NumberClaim]:
    """A bound on every live path's length, as ("hops", ("all_" + op, n))."""
    out: list[NumberClaim] = []
    for rx in _HOPS_ALL:
        for m in rx.finditer(clause):
            n = number_value(m.group(3))
            if n is None:
                continue
            if rx is _HOPS_ALL[1]:
                op = "lt" if m.group("cmp").lower() == "shorter" else "gt"
            else:
                way = (m.group("dir") or "").lower()
                op = "le" if way in ("shorter", "fewer", "less") else "ge" if way else "eq"
                op = _ALL_OPS.get(" ".join((m.group("b") or "").lower().split()), op)
            if m.group("q").lower().startswith(("no", "none")):
                op = _NEGATED_OP[op]  # "no path is longer than 4 hops": every path is 4 hops or shorter
            out.append(("hops", (f"all_{op}", n), m.group(0)))
    return out


# "the shortest path is between 2 and 3 hops", "I'd put the shortest path at between 5 and 6 hops": a range
_HOPS_BETWEEN = re.compile(
    rf"\b(?P<which>shortest|longest)\s+(?:(?:qualifying|open|live|remaining)\s+)*(?:path|chain)\b[^.;\n\d]{{0,30}}?"
    rf"\bbetween\s+{_N}\s+and\s+{_N}\s*-?\s*hops?\b",
    re.I,
)
_HOPS_ADJ = re.compile(rf"\b(?P<which>shortest|longest)\s+(?:is\s+)?(?:a\s+)?{_N}\s*-\s*hop\b", re.I)
_RANGE = re.compile(
    r"\b(?:score|scored|scores|rated|risk)\b[^.;\n]{0,30}?\b(?:between\s+(-?\d{1,3})\s+and\s+(-?\d{1,3})"
    r"|from\s+(-?\d{1,3})(?:\s+(?:before|prior\s+to|at\s+the\s+start\s+of)\s+(?:the\s+|this\s+)?(?:containment\s+)?run"
    r"|\s+(?:initially|at\s+first|at\s+the\s+start|at\s+the\s+outset))?,?\s+to\s+(-?\d{1,3})|in\s+the\s+(\d{1,3})\s*[-–]\s*(\d{1,3})(?:\s+range)?"
    r"|(\d{1,3})\s*[-–]\s*(\d{1,3})\s+range)",
    re.I,
)


_CLOSED_STATE = re.compile(
    r"\b(?:is|are|was|were|been|now)\s+(?:(?:now|all|already|fully|completely|entirely|effectively)\s+)*([a-z]+)\b",
    re.I,
)


def _closing(text: str) -> bool:
    """A closing verb ("have been severed"), or a closed state after a copula ("are gone from the graph")."""
    return any(w in CLOSE_FORMS for w in re.findall(r"[a-z]+", text.lower())) or any(
        m.group(1).lower() in CLOSE_ADJECTIVES for m in _CLOSED_STATE.finditer(text)
    )


def _closes(clause: str, start: int, end: int) -> bool:
    """Whether a share of the paths is of those closed: a closing verb after it, or one whose object it is."""
    before = _CLOSING_BEFORE.search(clause[:start])
    return _closing(clause[end:]) or (before is not None and before.group(1).lower() in CLOSE_FORMS)


def score_range_spans(clause: str) -> list[tuple[int, int]]:
    return [m.span() for rx in (_RANGE, _SCORE_BOUND) for m in rx.finditer(clause)]


def percent_of_spans(clause: str) -> list[tuple[int, int]]:
    return [m.span() for rx in (_PERCENT, _PERCENT_RANGE) for m in rx.finditer(clause)] + [
        (a, b) for a, b, _ in _restated(clause)
    ]


# "the run cut one of two paths (50%)", "severed one of the two paths it began with (50%)": a percentage in
# parentheses after a share, with no other number between, restates that share
_PAREN_PCT = re.compile(
    r"[^()\d;:.\n]{0,40}?\(\s*(?:about\s+|roughly\s+|~\s*)?(\d{1,3})(?:\.\d+)?\s*(?:%|percent|per\s+cent)\s*\)", re.I
)


def _restated(clause: str) -> list[tuple[int, int, int]]:
    """Where a share of the paths is restated as a percentage in parentheses: (start, end, percent)."""
    out = []
    for rx in (_SHARE, *_SHARE_OTHER):
        for m in rx.finditer(clause):
            p = _PAREN_PCT.match(clause, m.end())
            if p is not None:
                out.append((p.start() + p.group(0).index("("), p.end(), int(p.group(1))))
    return out


# "Half of the paths run through Z", "two of the three paths lead to X": a share of the paths through or to something,
# not of the live paths (`links.py` reads it)
_THROUGH_AFTER = re.compile(
    r"\s+(?:(?:still|now|all|both|also|only|currently)\s+)*(?:run|runs|ran|pass|passes|passed|go|goes|went|lead|leads|"
    r"led|cross|crosses|traverse|traverses|use|uses|touch|touches|include|includes|hold|holds|involve|involves|end|ends|"
    r"reach|reaches|start|starts|begin|begins|share|shares)\b(?!\s+(?:open|closed|cut|blocked|severed)\b)",
    re.I,
)


def number_claims(clause: str) -> list[NumberClaim]:
    out = [c for c in _number_claims(clause) if not (c[0].startswith("path_") and _of_some(clause, c[2]))]
    return out


# "route R carries one of the two paths": the paths a route or node carries, not the live ones
_THROUGH_BEFORE = re.compile(
    r"\b(?:carries|carry|carried|carrying|serves|holds|is\s+on|sits\s+on|lies\s+on|appears\s+(?:on|in))\s+$", re.I
)


def _of_some(clause: str, text: str) -> bool:
    at = clause.find(text)
    return at >= 0 and (
        _THROUGH_AFTER.match(clause[at + len(text) :]) is not None or _THROUGH_BEFORE.search(clause[:at]) is not None
    )


def _number_claims(clause: str) -> list[NumberClaim]:
    out: list[NumberClaim] = []
    for m in _SHARE.finditer(clause):
        k, total = number_value(m.group(1)), number_value(m.group(2))
        if k is not None and total is not None:
            out.append(("path_share", (k, total, _closes(clause, m.start(), m.end())), m.group(0)))
    for rx in _SHARE_OTHER:
        for m in rx.finditer(clause):
            k, total = number_value(m.group(1)), number_value(m.group(2))
            if k is not None and total is not None and k <= total:
                out.append(("path_share", (k, total, _closes(clause, m.start(), m.end())), m.group(0)))
    for m in (*_SHARE.finditer(clause), *(m for rx in _SHARE_OTHER for m in rx.finditer(clause))):
        p = _PAREN_PCT.match(clause, m.end())
        k, total = number_value(m.group(1)), number_value(m.group(2))
        if p is not None and k is not None and total and abs(int(p.group(1)) - 100 * k / total) >= 1:
            # a restatement that does not match its own share: the percentage is a claim of its own
            out.append(
                (
                    "path_percent",
                    (int(p.group(1)), _closes(clause, m.start(), m.end())),
                    p.group(0)[p.group(0).index("(") :],
                )
            )
    for m in _FRACTION_OF.finditer(clause):
        pct = _FRACTIONS[" ".join(m.group(1).lower().split())]
        out.append(
            ("path_percent", (pct, _closes(clause, m.start(), m.end()), _share_op(clause, m.start())), m.group(0))
        )
    for m in _SCORE_BOUND.finditer(clause):
        op = _SCORE_OPS[" ".join(m.group("op").lower().split())]
        out.append(("score_bound", (op, int(m.group("n")), bool(m.group("neg"))), m.group(0)))
    ranges = [m.span() for m in _PERCENT_RANGE.finditer(clause)]
    for m in _PERCENT_RANGE.finditer(clause):
        lo, hi = (int(g) for g in m.groups() if g is not None)
        out.append(("path_percent_range", (min(lo, hi), max(lo, hi), _closes(clause, m.start(), m.end())), m.group(0)))
    for m in _PERCENT.finditer(clause):
        if not any(a <= m.start() < b for a, b in ranges):
            share = (int(m.group(1)), _closes(clause, m.start(), m.end()), _share_op(clause, m.start()))
            out.append(("path_percent", share, m.group(0)))
    out += _all_hops(clause)
    for m in _HOPS_BETWEEN.finditer(clause):
        ends = [number_value(m.group(2)), number_value(m.group(3))]
        if None not in ends:
            low, high = sorted(int(x) for x in ends if x is not None)
            out.append(("hops", (f"{m.group('which').lower()}_between", (low, high)), m.group(0)))
    for m in _HOPS_THAN.finditer(clause):
        n = number_value(m.group(2))
        if n is not None:
            out.append(("hops", ("lt" if m.group("which").lower() == "shorter" else "gt", n), m.group(0)))
    for m in _HOPS_WITHIN.finditer(clause):
        n = number_value(m.group(1) or m.group(2))
        if n is not None:
            out.append(("hops", ("le", n), m.group(0)))
    for rx in (_HOPS_EXTREME, _HOPS_ADJ, _HOPS_THE, *_HOPS_LEFT):
        for m in rx.finditer(clause):
            n = number_value(m.group(2))
            if n is not None:
                which = m.group("which").lower()
                out.append(("hops", (which if which in ("shortest", "longest") else "any", n), m.group(0)))
    for m in _RANGE.finditer(clause):
        if any(a < m.end() and m.start() < b for a, b in ranges):
            continue  # a range of the share of the paths, not of the score
        lo, hi = (int(g) for g in m.groups() if g is not None)
        if _CHANGED.search(m.group(0)) and re.search(r"\bfrom\b", m.group(0), re.I):
            lo = hi  # "the score dropped from 65 to 45": it is 45 now
        out.append(("score_range", (min(lo, hi), max(lo, hi)), m.group(0)))
    return out


def _share_op(clause: str, start: int) -> str:
    """ "at most half of the paths", "more than 50% of the paths": a bound on the share ("==" without one)."""
    bound = _BOUND_BEFORE.search(clause[:start])
    return "==" if bound is None else _bound_op(bound.group(0))


_QUALIFIER_AFTER = re.compile(r"\s*(?:(?:still\s+)?(?:in|within)\s+reach\s*|reachable\s*)?\(([^()]{1,40})\)")


def _count_kind(noun: str) -> str:
    return "path_count" if noun.startswith("path") else "asset_count" if noun.startswith("asset") else "route_count"


def value_claims(clause: str, read: Sequence[tuple[int, int]] = ()) -> list[ValueClaim]:
    """Scores, severities, counts and bounds of paths, assets and routes, in the order they are read.

    `read`: where another reader read a value ("is not rated high", "the run began with 2 paths"): no plain value
    there."""
    out: list[ValueClaim] = []
    taken = [*score_range_spans(clause), *percent_of_spans(clause), *read]  # not single scores
    for rx in _SCORE_RES:
        for m in rx.finditer(clause):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            value = number_value(m.group(1))
            if value is not None:
                out.append(("score", value, m.group(0), ""))
    if re.search(r"\b(?:risk|score)", clause, re.I):
        for m in _FRACTION_RE.finditer(clause):
            out.append(("score", round(float(m.group(1)) * 100), m.group(0), ""))
    said = list(read)  # a severity read once: "dropped from high to medium" is medium, not high as well
    for rx in _SEVERITY_RES:
        for m in rx.finditer(clause):
            if any(a < m.end() and m.start() < b for a, b in said):
                continue
            said.append(m.span())
            sev = m.group(m.lastindex or 1).lower()
            out.append(("severity", "medium" if sev == "moderate" else sev, m.group(0), ""))
    for m in _COUNT_RE.finditer(clause):
        if any(a < m.end() and m.start() < b for a, b in read):
            continue
        before = clause[: m.start()]
        skip = _COUNT_SKIP_BEFORE.search(before) and not re.search(r"\bin\s+total\W*$", before, re.I)
        if skip or re.match(r"\s*(?:were|was|had|before|cut)\b", clause[m.end() :]):
            continue
        value = number_value(m.group(1))
        noun = m.group(3).lower()
        if value is None or re.search(r"\bblocked|cut\b", m.group(2), re.I):
            continue
        if re.search(r"\bnot\s+(?:even\s+)?$", before, re.I):  # "not a single path": none; "not two paths": no count
            if value != 1:
                continue
            value = 0
        low = _RANGE_BEFORE.search(before)
        if low is not None:  # "between two and four paths", "from two to four paths": a range, not a count
            least = number_value(low.group(1))
            if noun.startswith("path") and least is not None:
                out.append(("path_bound", (">=", min(least, value)), low.group(0) + m.group(0), ""))
                out.append(("path_bound", ("<=", max(least, value)), low.group(0) + m.group(0), ""))
            continue
        bound = _BOUND_BEFORE.search(before)
        if bound is not None:  # "at least one path", "more than two paths": a bound, not a count
            if noun.startswith("path"):
                out.append(("path_bound", (_bound_op(bound.group(0)), value), bound.group(0) + m.group(0), ""))
            continue
        paren = _QUALIFIER_AFTER.match(clause, m.end())  # "3 assets in reach (high or critical)": their class
        out.append(
            (_count_kind(noun), value, m.group(0), (m.group(2) + " " + (paren.group(1) if paren else "")).lower())
        )
    for m in _COUNT_NOUN_FIRST.finditer(clause):
        noun = (m.group(1) or m.group(3)).lower()
        value = number_value(m.group(2) or m.group(4))
        if value is not None:
            out.append((_count_kind(noun), value, m.group(0), "qualifying"))
    return out


# "Whereas two paths were open before the run, one is open after it": a count whose noun an earlier clause gave
_ELLIPTIC = re.compile(
    rf"^\W*(?:(?:and|but|yet|now|while|whereas)\s+)?(?:(?:only|just|exactly|still)\s+)?(?P<n>{_NUM}|none)\s+"
    r"(?:is|are|remains?|stays?)\s+(?:still\s+|now\s+)*(?:open|left|live|active|standing)\b(?P<rest>[^;]*)$",
    re.I,
)


def elliptic_counts(clause: str, sentence: str) -> list[NumberClaim]:
    """A bare count of open paths ("one is open after it") after a clause of the same sentence that names paths."""
    m = _ELLIPTIC.match(clause)
    at = sentence.find(clause.strip())
    if m is None or at <= 0 or not re.search(r"\bpaths?\b", sentence[:at], re.I):
        return []
    if re.search(r"\b(?:before|earlier|initially|originally|at\s+the\s+(?:start|outset))\b", m.group("rest"), re.I):
        return []  # "..., one was open before": history
    n = 0 if m.group("n").lower() == "none" else number_value(m.group("n"))
    return [] if n is None else [("path_count", n, m.group(0).strip())]


_MEASURED = re.compile(r"\b(?:paths?|score|severity|rating)\b", re.I)


def before_after_row(header: Sequence[str], cells: Sequence[str]) -> str | None:
    """A row of a table with a "before" and an "after" column ("| Qualifying paths | 3 | 2 |" under "| Measure |
    Before the run | After the run |") as the change it records: "The qualifying paths went from 3 to 2."."""
    cols = [set(re.findall(r"[a-z]+", h.lower())) for h in header]
    before = next((k for k, c in enumerate(cols) if k and c & {"before", "start", "initially"}), None)
    after = next((k for k, c in enumerate(cols) if k and c & {"after", "now", "current", "end"}), None)
    if before is None or after is None or len(cells) != len(header) or not _MEASURED.search(cells[0]):
        return None
    measure = re.sub(r"\s*\([^)]*\)|[*_`]", "", cells[0]).strip().lower()
    then, now = (re.sub(r"[*_`]", "", cells[k]).strip() for k in (before, after))
    return f"The {measure} went from {then} to {now}." if then and now else None
