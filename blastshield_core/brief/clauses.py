"""How a sentence's parts bear on the claims of its clauses (read by `prose.py`).

- a yes/no question ("Is X rated critical?") asks: it states no value unless the next sentence answers yes; a
  wh-question ("why is the score 90?") presumes the values it names;
- an opening subordinate clause ("Whereas two paths were open before the run, one is open after it", "Since the
  alert is contained, nothing more is needed") states its clause as a fact, apart from the main clause (a condition,
  "if" or "once", does not);
- a time inside the subject ("the single path found at the outset is still open") says which paths, not when the
  predicate held; a comparison with then ("the same path is open as before", "fewer paths are open now than before
  it") and a change that ends now ("went from 75 before the run to 85 after it") are said of now;
- a concession after the main clause ("X could no longer reach Y even if nobody acts") leaves the main clause a
  claim; a non-restrictive relative clause on an entity ("route R, which is still active, may need to be blocked")
  is a claim about that entity of its own, whatever the main clause's mood;
- a frame that recommends, plans or points out ("It is worth noting that R carries one path", "for the next shift:
  X is contained", "the next shift can ignore X, it has been contained") leaves the finite clause after it, with a
  subject of its own, a claim: the frame's mood does not reach it ("next: block R" has no such clause);
- a length after a path noun ("not a single path of four hops or fewer remains open") is part of that noun phrase:
  it does not put its determiner's negation out of the predicate's reach.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .lexicon import CONDITIONAL_WORDS, MODALS, RECOMMEND_FORMS, number_value

__all__ = [
    "CAN_BE_CLOSED",
    "NEGATED_BEFORE",
    "RUN_NOT_COMPLETED",
    "TRAILING_PLAN",
    "WHAT_IF_UNREAD",
    "affirmed",
    "asserted_after_frame",
    "change_to_now",
    "concession_dropped",
    "length_modifiers",
    "opening_parts",
    "polar_question",
    "relatives",
    "said_of_asset",
    "window_start",
    "without_subject_time",
]

# a yes/no question ("Is X rated critical?", "Note: did the score move?"): it asks, it states no value
_POLAR_RE = re.compile(
    r"^\W*(?:[A-Za-z]+\s*:\s*)*(?:is|are|was|were|do|does|did|has|have|had|can|could|would|will|should|shall|may|"
    r"might|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|hasn't|haven't|won't|can't)\s",
    re.I,
)
# "went from 75 before the run to 85 after it": a change whose end is now, not an earlier statement
_CHANGE_TO_NOW = re.compile(
    r"\bfrom\s+\S+\s+(?:before|prior\s+to|at\s+the\s+(?:start|outset)|initially)\b[^;]{0,40}?\bto\s+\S+\s+"
    r"(?:after\s+(?:it|that|the\s+(?:containment\s+)?run)|now|currently|today)\b",
    re.I,
)
# a time inside the subject ("the single path found at the outset", "the paths seen before the run"): which paths,
# not when the predicate held
_SUBJECT_TIME = re.compile(
    r"\bpaths?\s+(?:(?:that|which)\s+(?:was|were)\s+)?(?:found|seen|identified|counted|listed|recorded|reported|open|"
    r"present|there|detected)\s+(?:at\s+the\s+(?:start|outset|beginning)(?:\s+of\s+the\s+(?:containment\s+)?run)?|"
    r"before\s+the\s+(?:containment\s+)?run|initially|originally)\b",
    re.I,
)
# "the same path is open as before", "fewer paths are open now than before it": a comparison with then, said of now
_COMPARED_TIME = re.compile(
    r"\b(?:as|than)\s+(?:before|at\s+the\s+(?:start|outset)|initially)(?:\s+(?:it|that|the\s+(?:containment\s+)?run))?\b",
    re.I,
)
# "Whereas X, Y", "Since X, Y": an opening subordinate clause states X as a fact, apart from Y ("if", "once": no)
_OPENING_SUB = re.compile(
    r"^(\W*(?:[A-Za-z]+\s*:\s*)?(?:whereas|while|although|though|since|because|given\s+that|now\s+that)\s[^,;]+),\s+",
    re.I,
)


def length_modifiers(words: list[str]) -> set[int]:
    """The words of a length after a path noun ("of four hops or fewer", "within 3 hops"): they do not put its
    determiner's negation out of the predicate's reach."""
    out: set[int] = set()
    for k, w in enumerate(words[:-2]):
        if w in ("of", "within") and number_value(words[k + 1]) is not None and words[k + 2] in ("hop", "hops"):
            end = k + 3 + 2 * (words[k + 3 : k + 5] in (["or", "fewer"], ["or", "less"], ["or", "more"]))
            out.update(range(k, end))
    return out


def window_start(i: int, skipped: set[int], span: int = 8) -> int:
    """Where a predicate's window of `span` words begins, the skipped words not counted."""
    start, counted = i, 0
    while start > 0 and counted < span:
        start -= 1
        counted += start not in skipped
    return start


_YES = re.compile(r"^\W*(?:a\s*:\s*)?(?:yes|yep|yeah|correct|indeed|affirmative)\b", re.I)


def affirmed(answer: str) -> bool:
    """Whether the sentence after a yes/no question answers it yes (the question's values are then stated)."""
    return _YES.match(answer) is not None


# "X could no longer reach Y even if nobody acts": a concession; the main clause holds either way
_CONCESSION = re.compile(r"(?<=\w)\s*,?\s+even\s+(?:if|though|when|without)\b[^;]*", re.I)
# "route-c11-alternate, which is still active, may need to be blocked": a claim about the entity before it, whatever
# the main clause's mood
_RELATIVE = re.compile(
    r"(?P<ante>[A-Za-z0-9][\w.:@/-]*[A-Za-z0-9]),\s+which\s+(?P<pred>(?:is|are|was|were|has|have|remains|stays)\s"
    r"[^,;()]*?)\s*(?:,|(?=;)|$)",
    re.I,
)


def concession_dropped(sentence: str) -> str:
    """The sentence without a concession after its main clause ("..., even if nobody acts")."""
    return sentence if re.match(r"\W*even\b", sentence, re.I) else _CONCESSION.sub("", sentence)


def relatives(sentence: str, is_entity: Callable[[str], bool]) -> tuple[str, list[str]]:
    """The sentence without its non-restrictive relative clauses on an entity, and each as a clause of its own
    ("route-c11-alternate is still active")."""
    found: list[str] = []

    def keep(m: re.Match[str]) -> str:
        if not is_entity(m.group("ante")):
            return m.group(0)
        found.append(f"{m.group('ante')} {m.group('pred')}")
        return m.group("ante") + ("," if m.group(0).rstrip().endswith(",") else "")

    return _RELATIVE.sub(keep, sentence), found


def polar_question(sentence: str) -> bool:
    return "?" in sentence and bool(_POLAR_RE.match(sentence))


def opening_parts(sentence: str) -> list[str]:
    """The sentence as its opening subordinate clause and the rest, or whole."""
    m = _OPENING_SUB.match(sentence)
    return [m.group(1), sentence[m.end() :]] if m else [sentence]


def without_subject_time(clause: str) -> str:
    """The clause without the times that say which paths or compare with then (what is left says when)."""
    return _COMPARED_TIME.sub(" ", _SUBJECT_TIME.sub(" ", clause))


def change_to_now(clause: str) -> bool:
    return _CHANGE_TO_NOW.search(clause) is not None


# "the run for X did not end with the verdict `completed`": the run's end, not completed
RUN_NOT_COMPLETED = re.compile(
    r"\brun\b(?:\s+(?:for|on|of)\s+\S+)?\s+(?:did\s+not|didn't|never)\s+(?:end|finish|conclude)\s+(?:with\s+(?:the\s+|a\s+)?"
    r"(?:verdict|state|status)|as|in\s+(?:the\s+)?state)\s+[\"“`*]*completed\b",
    re.I,
)


def said_of_asset(clause: str, text: str, is_asset: Callable[[str], bool]) -> str | None:
    """The asset a severity word is said of ("customer-db is classified critical": its class; "" when negated, no
    claim), or None (the alert's severity)."""
    at = clause.find(text)
    subject = re.search(
        r"([A-Za-z0-9][\w.:@/-]*[A-Za-z0-9])\W*((?:(?:is|was|remains|stays|still|now|not|no\s+longer|never)\s+)*)$",
        clause[:at],
    )
    if at <= 0 or subject is None or not is_asset(subject.group(1)):
        return None
    return "" if re.search(r"\b(?:not|no\s+longer|never)\b", subject.group(2), re.I) else subject.group(1)


# the clause after a recommending or planning frame: "that", a colon or a comma, then a subject of its own
_FRAME_END = re.compile(r"\s+that\s+|:\s+|,\s+", re.I)
_SUBJECT_START = re.compile(
    r"(?:it|they|this|these|those|there|we|the|all|every|no|none|nothing|both|each|its|their|only|one|two|three|"
    r"[a-z0-9][\w.@/-]*[-_:][\w.:@/-]*|[A-Z][a-z]+)\b",
    re.I,
)
_FINITE = re.compile(
    r"\b(?:is|are|was|were|has|have|had|remains|stays|carries|reaches|holds|passes|leads|lies|sits|runs|stands|shows|"
    r"reads|equals|includes|contains|covers|goes|gets|still)\b",
    re.I,
)


# words that keep the clause after a recommending frame from being a claim ("we suggest that it would ...")
_FRAME_MOODS = (MODALS - {"can"}) | CONDITIONAL_WORDS | RECOMMEND_FORMS


def asserted_after_frame(
    clause: str, frame_words: frozenset[str] = RECOMMEND_FORMS, mood_words: frozenset[str] = _FRAME_MOODS
) -> str | None:
    """The clause a recommending or planning frame sets out as a fact (see the module's docstring), or None.

    `frame_words` are the words that make a frame (recommend, next, worth...); `mood_words` those that keep the
    clause after it from being a claim of its own (modals, conditions, recommendations)."""
    words = [(m.group(0).lower(), m.start()) for m in re.finditer(r"[a-z']+", clause, re.I)]
    start = next((at for w, at in words if w in frame_words), None)
    if start is None:
        return None
    for end in _FRAME_END.finditer(clause, start):
        rest = clause[end.end() :].strip()
        if not _SUBJECT_START.match(rest) or not _FINITE.search(rest):
            continue
        if {w.lower() for w in re.findall(r"[a-z']+", rest, re.I)} & mood_words:
            return None
        return rest
    return None


# an idiom negated before it ("we are not out of the woods yet")
NEGATED_BEFORE = re.compile(r"\b(?:not|never|no\s+longer|nowhere\s+near)\s+(?:yet\s+|quite\s+|fully\s+)?$", re.I)
# a closing that is possible, not done ("the path can be cut by blocking R", "none of them could be severed")
CAN_BE_CLOSED = re.compile(
    r"(?<!\bthat\s)(?<!\bwhich\s)\b(?:can|could|cannot)\s+(?:still\s+|not\s+|no\s+longer\s+|only\s+|also\s+|easily\s+)?be\s+"
    r"(?:cut|blocked|closed|severed|contained|broken|removed|revoked|disabled|stopped|shut)\b",
    re.I,
)
# a plan said after a claim, with no subject of its own: ", need to double-check", ", will re-query at 10:00"
TRAILING_PLAN = re.compile(r",\s+(?:(?:we|i)\s+)?(?:need|needs|will|to|pending|todo|tbc)\b[^,;]*$", re.I)
# "If R were blocked, the one current path would still be open": a what-if about a named block
WHAT_IF_UNREAD = re.compile(
    r"^\W*if\s+\S+\s+(?:were|was|is|gets|got)\s+(?:\w+\s+)?(?:blocked|cut|severed|closed|revoked|removed)\b[^,;]*,"
    r"[^;]*\b(?:would|will)\b[^;]*\b(?:paths?|open|remain\w*|reach\w*|exposed)\b",
    re.I,
)
