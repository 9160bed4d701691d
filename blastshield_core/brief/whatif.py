"""What-ifs about blocking session routes, read and judged from the live paths and the routes they pass.

"Blocking R alone would cut every remaining path", "even with R blocked, at least one path would remain", "if we
block R, one path stays open", "blocking R would leave two paths open / would not be enough / would make no
difference", "only blocking both R1 and R2 closes it", "blocking a single session route would contain X": what a
block would leave (the live paths that do not use any of the routes' relationships) or cut is decidable, so these
are judged. What a release would bring back is not in the evidence (`unverified`); other modals and conditionals
stay no claim (`prose.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from itertools import combinations, pairwise
from typing import cast

from .evidence import EvidenceSummary, PathSummary
from .lexicon import number_value

__all__ = ["judge_what_if", "what_if_claims"]

IdKind = Callable[[str], str | None]
WhatIf = tuple[str, object, str, tuple[str, ...]]  # "what_if", value, text, the routes
Verdict = tuple[str, str] | None

_N = r"(\d{1,2}|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+single|single)"
_ID = r"([A-Za-z0-9][A-Za-z0-9_.:@/-]*[A-Za-z0-9])"

# What a block would do, as (measure, op, n): the paths left after it, or the paths it cuts.
_N_PATHS = rf"(?P<n>{_N[1:-1]}|both)\s+(?:(?:of\s+the\s+)?(?:remaining|open|live|qualifying|other|access)\s+)*paths?"
_SOME = r"(?:at\s+least\s+one|one\s+or\s+more|some|a|an|any)"
_EVERY = r"(?:every|all|each|both|the\s+(?:whole|entire|last))"
_CUT_VERB = (
    r"(?:cut|cuts|close|closes|sever|severs|end|ends|remove|removes|eliminate|eliminates|break|breaks|kill|kills|"
    r"shut|shuts|neutralise|neutralises|neutralize|neutralizes|block|blocks|stop|stops)(?:\s+(?:off|down|out))?"
)
# "the exposure ends", "every path would be closed": what closes is the subject
_ENDS = (
    r"\b(?:(?:every|each)\s+(?:\w+\s+)?path|(?:all|both|the)\s+(?:\w+\s+){0,2}?(?:paths|exposure|access))\s+"
    r"(?:would\s+|will\s+)?(?:be\s+)?"
    r"(?:end|ends|close|closes|closed|cut|severed|disappear|disappears|vanish|vanishes|go\s+away|goes\s+away|contained)\b"
)
_CHANGE = (
    r"\b(?:change|changes|affect|affects|alter|alters)\s+(?:the\s+)?(?:exposure|paths?|anything)"
    r"|\bmakes?\s+(?:a|any)\s+difference\b"
)
# (pattern, needs a verb of remaining, (measure, op, n)); n = -1: the pattern's number
_CONSEQUENTS: tuple[tuple[re.Pattern[str], bool, tuple[str, str, int]], ...] = (
    (re.compile(r"\b(?:no|zero|none\s+of\s+the)\s+(?:\w+\s+){0,2}?paths?\b", re.I), True, ("left", "==", 0)),
    (re.compile(rf"\b{_SOME}\s+(?:\w+\s+){{0,2}}?paths?\b", re.I), True, ("left", ">=", 1)),
    (re.compile(rf"\b(?:leave|leaves)\s+{_N_PATHS}", re.I), False, ("left", "==", -1)),
    (
        re.compile(
            rf"\b{_N_PATHS}\s+(?:(?:would|will|could)\s+)?(?:still\s+)?(?:remains?|survives?|be\s+left|is\s+left|"
            r"are\s+left|stays?|persists?)\b",
            re.I,
        ),
        False,
        ("left", "==", -1),
    ),
    (re.compile(r"\b(?:be\s+)?(?:enough|sufficient|suffice|suffices)\b", re.I), False, ("left", "==", 0)),
    (re.compile(_ENDS, re.I), False, ("left", "==", 0)),
    (re.compile(r"\bmakes?\s+no\s+difference\b|\bchanges?\s+nothing\b", re.I), False, ("cut", "==", 0)),
    (re.compile(_CHANGE, re.I), False, ("cut", ">=", 1)),
)
_CUT_WHAT = re.compile(
    rf"\b{_CUT_VERB}\s+(?:the\s+)?(?:(?P<every>{_EVERY})\s+|(?P<some>{_SOME})\s+(?:of\s+the\s+)?"
    rf"|(?P<n>{_N[1:-1]})\s+(?:of\s+the\s+)?)?"
    r"(?:(?:remaining|open|live|qualifying|other|access|alert's|its)\s+)*"
    r"(?P<obj>paths?|exposure|access|everything|the\s+(?:alert|exposure|access|paths?)"
    r"|it(?=\s*(?:[.;,!]|$|(?:completely|entirely|fully|for\s+good)\b)))\b"
    # "the path through Z", "the paths to X": some of the paths, not all of them
    r"(?!\s+(?:through|via|to|from|that|which|over|using|along|of|on|in|for|past|into)\b)",
    re.I,
)
_CONTAIN = re.compile(rf"\b(?:contain|contains|isolate|isolates)\s+{_ID}", re.I)
_REMAIN = re.compile(
    r"\b(?:remain|remains|survive|survives|stay\s+open|stays\s+open|be\s+left|persist|persists|exist|exists|"
    r"left\s+open|stay|stays|is\s+left|are\s+left)\b|\bleaves?\b.*\bopen\b",
    re.I,
)
_BLOCK = re.compile(r"\b(?:blocking|block|blocked|closing|cutting|severing|disabling)\b", re.I)
_RELEASE = re.compile(r"\b(?:releas\w*|unblock\w*|re-?open\w*|restor\w*|lift\w*|revert\w*)\b", re.I)
_MODAL = re.compile(r"\b(?:would|will|could|can|'d)\b", re.I)
# "if we block R, one path stays open", "once R is blocked, ...": a block supposed, then what follows it
_IF_BLOCKED = re.compile(
    r"^\s*(?:even\s+)?(?:if|once|with)\s+(?:we\s+|you\s+|the\s+analyst\s+|someone\s+)?(?:also\s+)?"
    r"(?:block|blocks|blocking|cut|cuts|close|closes|sever|severs)\b"
    r"|^\s*(?:even\s+)?(?:if|once)\s+\S+(?:\s+and\s+\S+)?\s+(?:is|are|were|gets?)\s+(?:also\s+)?"
    r"(?:blocked|cut|closed|severed)\b",
    re.I,
)
# the consequent negated ("would not be enough", "cannot close it", "not a single path would remain"), not a word of
# its object ("would cut every path that is not blocked yet")
_NEGATED = re.compile(
    r"\b(?:would|will|could|can|does|do|did|is|are)\s+(?:still\s+)?(?:not|never)\b|\bcannot\b|\bnever\b"
    r"|\bnot\s+(?:a\s+single|one|any|every|all|even\s+one)\b|^\s*(?:only\s+)?not\b",
    re.I,
)
# "Blocking R leaves one path open": a gerund's present effect (its past, "Blocking R cut the path", is a record)
_GERUND = re.compile(r"\s*(?:only\s+)?(?:blocking|cutting|closing|severing)\s", re.I)
_PRESENT = re.compile(
    r"\b(?:leaves|cuts|closes|ends|removes|severs|eliminates|contains|suffices|changes|affects|"
    r"is\s+(?:not\s+)?(?:enough|sufficient)|does\s+not|makes\s+(?:no|a|any)\s+difference)\b",
    re.I,
)
_SINGLE = re.compile(r"\b(?:a|any|one)\s+single\s+(?:session\s+)?route\b|\bone\s+(?:session\s+)?route\b", re.I)


def _routes_of(clause: str, id_kind: IdKind) -> list[str]:
    return list(dict.fromkeys(m.group(0) for m in re.finditer(_ID, clause) if id_kind(m.group(0)) == "route"))


def _consequent(clause: str, id_kind: IdKind) -> tuple[str, str, int] | None:
    m = _CUT_WHAT.search(clause)
    if m is not None:
        if m.group("some"):
            return ("cut", ">=", 1)
        if m.group("n"):
            n = number_value(m.group("n"))
            return ("cut", "==", n) if n is not None else None
        return ("left", "==", 0)
    c = _CONTAIN.search(clause)
    if c is not None and id_kind(c.group(1)) == "alert":
        return ("left", "==", 0)
    remain = _REMAIN.search(clause) is not None
    for rx, needs_remain, (measure, op, n) in _CONSEQUENTS:
        found = rx.search(clause)
        if found is None or (needs_remain and not remain):
            continue
        if n >= 0:
            return (measure, op, n)
        words = found.group("n").lower()
        count = 2 if words == "both" else number_value(words)
        return (measure, op, count) if count is not None else None
    return None


def what_if_claims(clause: str, id_kind: IdKind) -> list[WhatIf]:
    """A what-if about blocking named routes (or "a single session route"): what would be left or cut."""
    routes = _routes_of(clause, id_kind)
    single = _SINGLE.search(clause)
    if not routes and not single:
        return []
    hypothetical = (
        _MODAL.search(clause)
        or re.search(r"\b(?:only\s+(?:by\s+)?blocking|blocking\s+\S+\s+alone)\b", clause, re.I)
        or _IF_BLOCKED.search(clause)
        or (_GERUND.match(clause) and _PRESENT.search(clause))
    )
    words = re.sub(_ID, lambda m: "" if id_kind(m.group(0)) else m.group(0), clause)  # the words beside the ids
    if not hypothetical or re.search(r"\b(?:sessions?(?!\s+routes?)|revok\w*|keys?|credentials?)\b", words, re.I):
        return []  # a revocation or a key: not a route block
    if _RELEASE.search(clause) and routes:  # what a release would bring back: not in the evidence
        return [("what_if", ("release", tuple(routes)), clause.strip(), tuple(routes))]
    if not _BLOCK.search(clause):
        return []
    if re.search(r"\b(?:unless|should|until|whether)\b", clause, re.I):
        return []
    consequent = _consequent(clause, id_kind)
    if consequent is None:
        return []
    negated = bool(_NEGATED.search(clause))
    only = bool(re.search(r"\bonly\s+(?:by\s+)?blocking\b", clause, re.I))
    value = (consequent, negated, only, "single" if single and not routes else "", tuple(routes))
    return [("what_if", value, clause.strip(), tuple(routes))]


def _uses(path: PathSummary, source: str, target: str) -> bool:
    return any((a, b) == (source, target) for a, b in pairwise(path.nodes))


def _left(ev: EvidenceSummary, routes: Iterable[str]) -> int:
    edges = [(r.source, r.target) for r in ev.routes if r.route_id in set(routes)]
    return sum(1 for p in ev.paths if not any(_uses(p, s, t) for s, t in edges))


def judge_what_if(ev: EvidenceSummary, claim: WhatIf) -> Verdict:
    if claim[1][0] == "release":  # type: ignore[index]
        return ("unverified", "what releasing a route would bring back is not in the evidence")
    consequent, negated, only, single, routes = cast(
        tuple[tuple[str, str, int], bool, bool, str, tuple[str, ...]], claim[1]
    )
    measure, op, n = consequent
    known = {r.route_id for r in ev.routes}
    if any(r not in known for r in routes):
        return None  # an unknown route is flagged as an unknown entity
    if ev.truncated:
        return ("unverified", "the investigation's paths were truncated")
    total = len(ev.paths)

    def holds(block: Iterable[str]) -> bool:
        left = _left(ev, block)
        value = left if measure == "left" else total - left
        return value == n if op == "==" else value >= n

    if single:
        verdict = any(holds([r.route_id]) for r in ev.routes)
    else:
        verdict = holds(routes)
        if only and verdict:
            verdict = not any(holds(sub) for k in range(1, len(routes)) for sub in combinations(routes, k))
    if verdict != negated:
        return None
    carried = "; ".join(
        f"{r.route_id} ({r.status}) carries {sum(1 for p in ev.paths if _uses(p, r.source, r.target))}"
        for r in ev.routes
    )
    evidence = f"{total} live qualifying path(s) remain; " + (carried or "no session route on them")
    closes = measure == "left" and op == "==" and n == 0
    if closes != negated:
        return ("false_containment", evidence)
    if measure == "left":
        return ("false_exposure", evidence)
    return ("wrong_count", evidence)
