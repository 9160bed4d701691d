"""Claims between two named entities, and what makes a clause worth a verdict.

- A relationship: "X can assume Y (directly)", "X reads Y", "X runs as Y", "X cannot assume Y",
  "the grant from X to Y is denied / blocked / conditional". Checked against the relationship of
  that type between the two in the graph, with its status, permission and condition (a denied
  or blocked relationship is no way in; a conditional one holds only under its condition).
- On the way: "X assumes Y on the way", "the path goes from X to Y": that step is on a live
  qualifying path.
- Through: "both paths run through Z", "every path passes Z", "no path goes through Z",
  "one path runs through Z": how many live qualifying paths hold Z.

A clause with state or action vocabulary that yields no claim at all is `unverified`
(`has_vocabulary`): neither true nor false, reported apart.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from .lexicon import CLOSE_ADJECTIVES, CLOSE_FORMS, CLOSE_NOUNS, EXPOSE_ADJECTIVES

__all__ = ["LinkClaim", "has_vocabulary", "link_claims"]

# (kind, value, text, scope): kind is link | link_state | on_path | through
LinkClaim = tuple[str, object, str, tuple[str, ...]]
IdKind = Callable[[str], str | None]

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@/-]*[A-Za-z0-9]")
_ENTITY_KINDS = ("alert", "node", "asset")
_VERB_TYPES = {
    "assume": "CAN_ASSUME",
    "assumes": "CAN_ASSUME",
    "assumed": "CAN_ASSUME",
    "assuming": "CAN_ASSUME",
    "read": "CAN_READ",
    "reads": "CAN_READ",
    "access": "CAN_ACCESS",
    "accesses": "CAN_ACCESS",
    "run as": "RUNS_AS",
    "runs as": "RUNS_AS",
    "ran as": "RUNS_AS",
    "escalate to": "CAN_ESCALATE",
    "escalates to": "CAN_ESCALATE",
}
_BETWEEN = re.compile(
    r"^\s*(?P<modal>can|could|may|might|would|should|will|"
    r"(?:is|are)\s+(?:still\s+|now\s+)?(?:not\s+|no\s+longer\s+)?(?:able|unable|allowed|permitted|authori[sz]ed)\s+to)?\s*"
    r"(?P<neg>(?:not|never|no\s+longer|cannot|can't|does\s+not|doesn't|did\s+not|didn't|still|also|directly|"
    r"then|now|in\s+turn|itself)\s+)*"
    r"(?P<verb>assumes?|assumed|assuming|reads?|access(?:es)?|runs?\s+as|ran\s+as|escalates?\s+to|"
    r"(?:has|have|holds?|keeps?|retains?)\s+(?:no\s+)?(?:direct\s+)?read\s+access\s+to)\s+"
    r"(?:(?:directly|straight|the\s+role|role|bucket|asset)\s+)*$",
    re.I,
)
_CANNOT = re.compile(r"^\s*(?:cannot|can't|can\s+not|can\s+no\s+longer|could\s+not|couldn't|is\s+unable\s+to)\s+", re.I)
_ON_WAY = re.compile(
    r"^\s*(?:,\s*)?(?:on\s+the\s+way|along\s+the\s+(?:way|path)|en\s+route|in\s+the\s+chain|on\s+(?:its|the|that|this)\s+path|"
    r"as\s+(?:a|one)\s+(?:hop|step)|as\s+the\s+next\s+hop)\b",
    re.I,
)
_LINK_STATE = re.compile(
    r"\b(?:is|was|are|were|remains|stays|has\s+been)\s+(?:still\s+|now\s+|explicitly\s+)?(?P<neg>not\s+)?"
    r"(?P<state>denied|blocked|conditional|allowed|active|open)\b",
    re.I,
)
_LINK_NOUN = re.compile(r"\b(?:grant|trust|edge|relationship|link|permission|assumption|hop|step|route)\b", re.I)
_THROUGH = re.compile(
    r"\b(?P<q>both|all|every|each|none\s+of\s+the|no|neither|one|a|only\s+one|exactly\s+one|either|some|two|three)"
    r"\s+(?:(?:of\s+the\s+|of\s+its\s+|of\s+their\s+)?(?:\w+\s+){0,2}?)(?:qualifying\s+|remaining\s+|live\s+|open\s+)?"
    r"(?:paths?|routes?\s+to\s+\S+)\s+(?:\w+\s+){0,2}?"
    r"(?:(?:run|runs|ran|go|goes|went|pass|passes|passed|lead|leads|travel|travels|cross|crosses|route|routes)\s+"
    r"(?:through|via|over|across)|pass|passes|cross|crosses|traverse|traverses|include|includes|involve|involves|"
    r"touch|touches|use|uses)\s+(?P<z>[A-Za-z0-9][A-Za-z0-9_.:@/-]*[A-Za-z0-9])",
    re.I,
)
_QUANT = {
    "both": "all",
    "all": "all",
    "every": "all",
    "each": "all",
    "none of the": "none",
    "no": "none",
    "neither": "none",
    "one": "some",
    "a": "some",
    "either": "some",
    "some": "some",
    "only one": "one",
    "exactly one": "one",
    "two": 2,
    "three": 3,
}

_VOCAB = (
    CLOSE_FORMS
    | CLOSE_NOUNS
    | CLOSE_ADJECTIVES
    | EXPOSE_ADJECTIVES
    | frozenset(
        [
            "contained",
            "containment",
            "exposed",
            "exposure",
            "applied",
            "unapplied",
            "verified",
            "unverified",
            "deactivated",
            "disabled",
            "revoked",
            "remediated",
            "mitigated",
            "compromised",
        ]
    )
)
_VOCAB_SKIP = frozenset(["active", "open", "live", "secure", "data", "low", "high", "critical", "medium"])


def has_vocabulary(clause: str) -> bool:
    """Whether a clause speaks of state or action (so a clause the grammar cannot read is unverified)."""
    words = re.findall(r"[a-z]+", clause.lower())
    return any(w in _VOCAB and w not in _VOCAB_SKIP for w in words)


def _ids(clause: str, id_kind: IdKind) -> list[tuple[str, int, int]]:
    out = []
    for m in _ID.finditer(clause):
        kind = id_kind(m.group(0))
        if kind in _ENTITY_KINDS:
            out.append((m.group(0), m.start(), m.end()))
    return out


_MEMBER = re.compile(
    r"(?P<id>[A-Za-z0-9][A-Za-z0-9_.:@/-]*[A-Za-z0-9])\s+(?:is|are|lies|lie|sits|sit|remains|remain|stays|stay)\s+"
    r"(?P<neg>not\s+|no\s+longer\s+|never\s+)?(?:still\s+|now\s+|also\s+)?(?P<neg2>not\s+)?on\s+"
    r"(?P<det>a|any|one\s+of\s+the|the|every|each|some)\s+(?:(?:live|qualifying|remaining|open|active)\s+){0,2}paths?\b",
    re.I,
)


def link_claims(clause: str, id_kind: IdKind) -> list[LinkClaim]:
    """The claims between named entities in one clause."""
    out: list[LinkClaim] = []
    for m in _MEMBER.finditer(clause):
        if id_kind(m.group("id")) in (*_ENTITY_KINDS, "route"):
            negated = bool(m.group("neg")) != bool(m.group("neg2"))
            if m.group("det").lower() in ("every", "each"):  # "Z sits on every path": all paths hold Z
                out.append(("through", ("all", negated), m.group(0), (m.group("id"),)))
            else:
                out.append(("member", not negated, m.group(0), (m.group("id"),)))
    for m in _THROUGH.finditer(clause):
        z = m.group("z")
        if id_kind(z) in (*_ENTITY_KINDS, "route"):
            quant = _QUANT.get(re.sub(r"\s+", " ", m.group("q").lower()), "some")
            negated = bool(re.search(r"\b(?:not|never|no\s+longer)\b", m.group(0), re.I))
            out.append(("through", (quant, negated), m.group(0), (z,)))
    ids = _ids(clause, id_kind)
    for (a, _, a_end), (b, b_start, b_end) in pairwise(ids):
        between = clause[a_end:b_start]
        between = re.sub(r"^'s\b", "", between)
        verb = _BETWEEN.match(between)
        rest = clause[b_end:]
        if verb is not None:
            modal = (verb.group("modal") or "").lower()
            if modal in ("could", "may", "might", "would", "should"):
                continue
            words = between.lower()
            negated = bool(_CANNOT.match(between)) or bool(
                re.search(r"\b(?:not|never|no\s+longer|doesn't|didn't|unable)\b", words)
            )
            kind_word = re.sub(r"\s+", " ", verb.group("verb").lower())
            if "read access" in kind_word:  # "has (no) read access to"
                kind_word = "read"
                negated = negated or bool(re.search(r"\bno\s+(?:direct\s+)?read", words))
            rel = _VERB_TYPES.get(kind_word) or _VERB_TYPES.get(kind_word.rstrip("s"), "")
            if not rel:
                continue
            if _ON_WAY.match(rest) and not negated:
                out.append(("on_path", rel, clause[max(0, a_end - len(a)) : b_end + 12], (a, b)))
            else:
                direct = "directly" in words or "directly" in rest[:12].lower()
                out.append(("link", (rel, not negated, direct), clause[a_end - len(a) : b_end], (a, b)))
            continue
        if _LINK_NOUN.search(clause[:b_start]) and re.search(r"\bto\b|->|→", between):
            state = _LINK_STATE.search(rest) or _LINK_STATE.search(clause[: a_end - len(a)])
            if state is not None:
                out.append(
                    (
                        "link_state",
                        (state.group("state").lower(), not state.group("neg")),
                        clause.strip()[:160],
                        (a, b),
                    )
                )
    return out
