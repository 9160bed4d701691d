"""Claims between two named entities, and what makes a clause worth a verdict.

- A relationship: "X can assume Y (directly)", "X reads Y", "X runs as Y", "X cannot assume Y",
  "the grant from X to Y is denied / blocked / conditional". Checked against the relationship of
  that type between the two in the graph, with its status, permission and condition (a denied
  or blocked relationship is no way in; a conditional one holds only under its condition).
- On the way: "X assumes Y on the way", "the path goes from X to Y": that step is on a live
  qualifying path.
- Through: "both paths run through Z", "every path passes Z", "no path goes through Z",
  "one path runs through Z", "the open path goes through Z", "the only path avoids Z": how many live
  qualifying paths hold Z; "the path to X does not go through Z" counts the live paths that hold X.
- Reach: "A can (still) get to B", "A no longer reaches B", "A has a qualifying path to B", "a path from A
  still leads to B", "B remains reachable from A", with A the alert's entity or a node on its paths: some
  live qualifying path goes from A to B.
- Via: "on the way to X, A passes through B", "A reaches X through B", "the path from A to X runs via B":
  some live qualifying path holds A, then B, then X.
- A step on the paths: "no open path has A assuming B", "every path has A reading B": how many live
  qualifying paths step from A to B.
- A path as a chain: "the path a → b → c is (still) open": the chain is part of a live qualifying path.
- The blast radius: "X lies inside / outside Y's current blast radius": X is (not) in the fresh blast radius.
- "That grant is denied" after a clause naming two entities: the relationship between them.
- Grants, with their adjectives: "A has no direct, working read grant on B", "A holds an active,
  unconditional grant to assume B", "A holds a denied grant on B": the relationship of that type (any
  type when the words name none) between the two, working, direct, conditional or not as the adjectives say.

A clause with state or action vocabulary that yields no claim at all is `unverified`
(`has_vocabulary`): neither true nor false, reported apart.
"""

from __future__ import annotations

import re
from itertools import pairwise

from .account import on_account
from .lexicon import CLOSE_ADJECTIVES, CLOSE_FORMS, CLOSE_NOUNS, EXPOSE_ADJECTIVES
from .onpath import (
    ENTITY_KINDS,
    ID_RX,
    NEG_WORDS,
    ROUTE_CLASS,
    IdKind,
    LinkClaim,
    member_claims,
    path_claims,
)
from .onpath import WORDS as PATH_WORDS

__all__ = [
    "ROUTE_CLASS",
    "WORDS",
    "LinkClaim",
    "has_vocabulary",
    "link_claims",
]


# (kind, value, text, scope): kind is link | link_state | on_path | through | member | reach | via

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@/-]*[A-Za-z0-9]")
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
    "give access to": "CAN_ACCESS",
    "gives access to": "CAN_ACCESS",
    "grant access to": "CAN_ACCESS",
    "grants access to": "CAN_ACCESS",
    "use the session": "HAS_SESSION",
    "uses the session": "HAS_SESSION",
    "hold the session": "HAS_SESSION",
    "holds the session": "HAS_SESSION",
}
_BETWEEN = re.compile(
    r"^\s*(?:,\s*(?:which|who|that)\s+)?(?P<modal>can|could|may|might|would|should|will|"
    r"(?:is|are)\s+(?:still\s+|now\s+)?(?:not\s+|no\s+longer\s+)?(?:able|unable|allowed|permitted|authori[sz]ed)\s+to)?\s*"
    r"(?P<neg>(?:not|never|no\s+longer|cannot|can't|does\s+not|doesn't|did\s+not|didn't|still|also|directly|"
    r"then|now|in\s+turn|itself)\s+)*"
    r"(?P<verb>assumes?|assumed|assuming|reads?|access(?:es)?|runs?\s+as|ran\s+as|escalates?\s+to|"
    r"(?:gives?|grants?)\s+access\s+to|(?:uses?|holds?)\s+the\s+session|"
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
_LINK_NOUN = re.compile(
    r"\b(?:grant|trust|edge|relationship|link|permission|assumption|hop|step|route)\b"
    r"|\b(?:CAN_[A-Z]+|RUNS_AS|HAS_SESSION)\b",
    re.I,
)
_THROUGH = re.compile(
    r"\b(?P<q>some,?\s+but\s+not\s+all,?\s+of\s+the|not\s+all\s+of\s+the|not\s+all|not\s+every|"
    r"both|all|every|each|none\s+of\s+the|no|neither|one|an?|any|only\s+one|exactly\s+one|either|some|two|three|"
    r"the\s+only|the\s+single|its\s+only|the|its)"
    r",?\s+(?:(?:of\s+the\s+|of\s+its\s+|of\s+their\s+)?(?:\w+\s+){0,2}?)(?:qualifying\s+|remaining\s+|live\s+|open\s+)?"
    r"(?P<noun>paths?|routes?\s+to\s+\S+)\s+(?:(?:to|into|toward|from)\s+(?:(?P<t>[A-Za-z0-9][\w.:@/-]*[A-Za-z0-9])\s+"
    r"|(?:\w+\s+){1,2}?))?(?:(?:does|do|did|is|are)\s+)?(?:(?:not|never|no\s+longer|still|now|also)\s+)*"
    r"(?:(?:run|runs|ran|go|goes|went|pass|passes|passed|lead|leads|travel|travels|cross|crosses|route|routes)\s+"
    r"(?:through|via|over|across)|pass|passes|cross|crosses|traverse|traverses|include|includes|involve|involves|"
    r"touch|touches|use|uses|carried\s+by|(?P<avoid>avoid|avoids|bypass|bypasses|skip|skips|miss|misses))\s+"
    r"(?:(?P<cls>(?P<clsdet>a|an|any|no|one|some)\s+(?:(?:session|blockable|active)\s+)*route)\b"
    r"|(?P<z>[A-Za-z0-9][A-Za-z0-9_.:@/-]*[A-Za-z0-9]))",
    re.I,
)
_SOME_OF = re.compile(r"\bat\s+least\s+(?:one|an?)\s*$|\bsome\s*$", re.I)  # explicitly one or more
_EARLIER_PATH = re.compile(
    r"(?<![\w-])(?:went|ran|passed|led|crossed|touched|used|traversed|included|involved|routed|blocked|cut|closed|severed|"
    r"former|old|previous|original|stale|legacy|removed)(?![\w-])",
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
    "an": "some",
    "any": "some",
    "either": "some",
    "some": "some",
    "only one": "one",
    "exactly one": "one",
    "two": 2,
    "three": 3,
    "the only": "all",
    "the single": "all",
    "its only": "all",
    "the": "the",
    "its": "the",
    "some, but not all, of the": "part",
    "some but not all of the": "part",
    "some, but not all of the": "part",
    "some but not all, of the": "part",
    "not all of the": "not_all",
    "not all": "not_all",
    "not every": "not_all",
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
        if kind in ENTITY_KINDS:
            out.append((m.group(0), m.start(), m.end()))
    return out


_STATE_WORD = r"(?:denied|blocked|conditional|allowed|active|open|not\s+there|absent|missing|gone)"
_ANAPHOR = re.compile(
    r"^\W*(?:(?:no|yes)\s*,\s*)?(?:that|this|the|which|its|such\s+a)\s+"
    r"(?:grant|trust|permission|relationship|edge|link|assumption|right|one)\s+"
    r"(?:is|was|remains|stays|has\s+been)\s+(?P<neg>not\s+|no\s+longer\s+)?(?:still\s+|now\s+|explicitly\s+)?"
    rf"(?P<state>{_STATE_WORD}(?:\s*,\s*(?:or\s+)?{_STATE_WORD}|\s+or\s+{_STATE_WORD})*)(?![\w-])",
    re.I,
)
# Of a relationship said to be in one of several states ("denied, blocked or not there"), or absent: none that works.
_CLOSED_STATES = frozenset(["denied", "blocked", "not there", "absent", "missing", "gone"])


def _anaphoric(clause: str, id_kind: IdKind, sentence: str) -> list[LinkClaim]:
    """ "...; that grant is denied": the relationship between the last two entities named before the clause."""
    m = _ANAPHOR.match(clause)
    at = sentence.find(clause.strip()[:40]) if sentence and clause.strip() else -1
    if m is None or _ids(clause, id_kind):
        return []
    named = _ids(sentence[:at], id_kind) if at > 0 else []
    if len(named) < 2:  # "that one is blocked" with no two entities before it: a relationship, but which is unread
        return [("unverified", None, m.group(0), ())] if m.group(0).lower().find(" one ") >= 0 else []
    a, b = named[-2][0], named[-1][0]
    said = re.split(r",|\bor\b", m.group("state").lower())
    states = {re.sub(r"\s+", " ", w.strip()) for w in said}
    states.discard("")
    if len(states) > 1 or states & {"not there", "absent", "missing", "gone"}:
        if not states <= _CLOSED_STATES:
            return []  # "blocked or allowed": no claim either way
        return [("link_state", ("closed", bool(m.group("neg"))), m.group(0), (a, b))]
    return [("link_state", (states.pop(), not m.group("neg")), m.group(0), (a, b))]


_IT = re.compile(
    r"\b(?P<verb>through|via|across|touches|touch|uses|use|avoids|avoid|crosses|cross)\s+"
    r"(?P<it>it|that\s+(?:session|route|role|host|node|asset|workload|bucket))\b",
    re.I,
)


def _resolve_it(clause: str, id_kind: IdKind, sentence: str) -> str:
    """The clause with "through it" naming the entity the sentence named last before the clause ("X was blocked,
    so no path goes through it"); as written when there is none."""
    m = _IT.search(clause)
    at = sentence.find(clause.strip()[:40]) if m and sentence and clause.strip() else -1
    if m is None or at <= 0 or _ids(clause[: m.start()], id_kind):
        return clause
    named = [i for i in _ids(sentence[:at], id_kind) if id_kind(i[0]) in (*ENTITY_KINDS, "route")]
    if not named:
        return clause
    return clause[: m.start("it")] + named[-1][0] + clause[m.end("it") :]


_RELATIVE = re.compile(r",\s+(?:which|who|that)\s+$", re.I)


def _relative(clause: str, id_kind: IdKind, sentence: str) -> str:
    """ "A runs as B, which can assume C": the relative clause with B, the entity before "which", as its subject."""
    at = sentence.find(clause.strip()[:40]) if sentence and clause.strip() else -1
    if at <= 0 or not _RELATIVE.search(sentence[:at]) or _ids(clause[:12], id_kind):
        return clause
    named = _ids(_RELATIVE.sub("", sentence[:at]), id_kind)
    if not named or named[-1][2] != len(_RELATIVE.sub("", sentence[:at]).rstrip()):
        return clause  # "..., which" after something other than an entity
    return f"{named[-1][0]} {clause.lstrip()}"


_IT_STATE = re.compile(
    r"^\W*(?P<it>it|that\s+one|this\s+one)\s+(?:is|was|has\s+been|had\s+been|got|remains|stays)\s+"
    r"(?P<neg>not\s+|no\s+longer\s+)?(?:now\s+|already\s+|also\s+|since\s+)?"
    r"(?P<state>cut\s+off|severed|isolated|disconnected|unreachable|off\s+the\s+paths?|still\s+(?:reachable|on\s+(?:a|an|the)\s+"
    r"(?:open\s+|live\s+|qualifying\s+)*path))(?:\s+(?:from|on)\s+[\w\s-]+)?\W*$",
    re.I,
)


def _it_state(clause: str, id_kind: IdKind, sentence: str) -> list[LinkClaim]:
    """ "X is no longer on a path to Y; it has been cut off": "it" is X, the entity the sentence named before the
    clause (a node: a route or the alert has a state of its own), said to be on no live path (or still on one)."""
    m = _IT_STATE.match(clause)
    at = sentence.find(clause.strip()[:40]) if m and sentence and clause.strip() else -1
    if m is None or at <= 0:
        return []
    named = _ids(sentence[:at], id_kind)
    first = named[0][0] if named else ""
    if not first or id_kind(first) != "node":
        return []  # "it" names the alert, a route or nothing the sentence named: the state reader's
    on = m.group("state").lower().startswith("still") != bool(m.group("neg"))
    return [("member", on, m.group(0), (first,))]


def link_claims(clause: str, id_kind: IdKind, sentence: str = "") -> list[LinkClaim]:
    """The claims between named entities in one clause (`sentence`, the whole sentence, names what "that grant"
    refers to)."""
    if on_account(clause):
        return []  # "on the account, alice can still read X with the key": the account's access, not the graph's
    out: list[LinkClaim] = _anaphoric(clause, id_kind, sentence) + _it_state(clause, id_kind, sentence)
    clause = _relative(clause, id_kind, sentence)
    out += member_claims(clause, id_kind)
    resolved = _resolve_it(clause, id_kind, sentence)
    for m in _THROUGH.finditer(resolved):
        z = ROUTE_CLASS if m.group("cls") else m.group("z")
        if z == ROUTE_CLASS or id_kind(z) in (*ENTITY_KINDS, "route"):
            quant = _QUANT.get(re.sub(r"\s+", " ", m.group("q").lower()), "some")
            if quant == "the" and re.search(r"\b(?:of|all|some|none|most|any)\s*,?\s*$", resolved[: m.start()], re.I):
                continue  # "all of the paths": the quantity stands before it
            obj = m.start("cls") if m.group("cls") else m.start("z")
            if quant == "the" and _EARLIER_PATH.search(resolved[m.start() : obj]):
                continue  # "the blocked path went through Z": a path that was, not one that is
            if quant == "the" and m.group("noun").lower().startswith("paths"):
                quant = "all"  # "the paths run through Z"
            tail = m.group(0)[len(m.group("q")) :]  # "not all ... run through Z": the "not" is the quantity's
            tail = tail[: m.start("cls") - m.start()] if m.group("cls") else tail
            negated = bool(re.search(r"\b(?:not|never|no\s+longer)\b", tail, re.I))
            negated = negated != ((m.group("clsdet") or "").lower() == "no")  # "passes through no session route"
            if m.group("avoid"):  # "at least one path avoids Z": the paths that do not hold Z are counted
                quant = f"~{quant}"
            elif negated and quant == "some" and _SOME_OF.search(resolved[: m.start()] + m.group("q")):
                quant, negated = "~some", False  # "at least one path does not pass Z": some path without Z
            target = m.group("t") if m.group("t") and id_kind(m.group("t")) in ENTITY_KINDS else None
            out.append(("through", (quant, negated), m.group(0), (z, target) if target else (z,)))
    hypothetical = bool(_HYPOTHETICAL.search(clause))
    if not hypothetical:
        out += _via(clause, id_kind) + path_claims(clause, id_kind)
    ids = _ids(clause, id_kind)
    stepped = {c[3] for c in out if c[0] == "step"} | {p for c in out if c[0] == "chain" for p in pairwise(c[3])}
    for (a, a_start, a_end), (b, b_start, b_end) in pairwise(ids):
        if (a, b) in stepped:
            continue  # "no path has A reading B", "the path A → B is open": not a claim that A reads B
        between = clause[a_end:b_start]
        between = re.sub(r"^'s\b", "", between)
        if not hypothetical:
            reach = _reach(clause, id_kind, (a, a_start, a_end), (b, b_start, b_end))
            if reach is not None:
                out.append(reach)
                source = reach[3][0]
                if source == a:  # "A can reach B, C and D": each target listed after the first
                    for t in _more_mids(clause, b_end, id_kind):
                        if id_kind(t) in _TARGETS:
                            out.append(("reach", reach[1], reach[2], (source, t)))
                            stepped.add((b, t))
                continue
            passive = _passive(clause, between, (a, a_start), (b, b_end), id_kind)
            if passive is not None:
                out.append(passive)
                continue
            trust = _trust(clause, between, (a, a_start), (b, b_end), id_kind)
            if trust is not None:
                out.append(trust)
                continue
            grant = _grant(clause, between, (a, a_start), (b, b_end), id_kind)
            if grant is not None:
                out.append(grant)
                continue
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
        joined = (
            re.search(r"\bto\b|->|→", between)
            or (re.fullmatch(r"\s*and\s*", between) and re.search(r"\bbetween\s*$", clause[:a_start], re.I))
            or (re.fullmatch(r"\s*(?:on|over)\s*", between) and re.search(r"\bfor\s*$", clause[:a_start], re.I))
            or re.fullmatch(r"\s*(?:grant|permission|right)\s+(?:on|over|to)\s*", between)
        )  # "the grant from A to B", "the trust between A and B", "the grant for A on B", "A's grant on B"
        if _LINK_NOUN.search(clause[:b_start]) and joined:
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
    return out + _route_ends(clause, id_kind)


_ROUTE_RELS = ("HAS_SESSION", "CAN_ACCESS")


def _route_ends(clause: str, id_kind: IdKind) -> list[LinkClaim]:
    """ "alice can use the session K", "K does not give access to A", where K is also a route's id (a key whose
    route is named by it): a session or access relationship with that end (the judge takes the route's target)."""
    ids = [
        (m.group(0), m.start(), m.end())
        for m in _ID.finditer(clause)
        if id_kind(m.group(0)) in (*ENTITY_KINDS, "route")
    ]
    out: list[LinkClaim] = []
    for (a, _, a_end), (b, b_start, b_end) in pairwise(ids):
        if "route" not in (id_kind(a), id_kind(b)) or _HYPOTHETICAL.search(clause):
            continue
        between = clause[a_end:b_start]
        verb = _BETWEEN.match(between)
        if verb is None or (verb.group("modal") or "").lower() in ("could", "may", "might", "would", "should"):
            continue
        rel = _VERB_TYPES.get(re.sub(r"\s+", " ", verb.group("verb").lower()), "")
        if rel in _ROUTE_RELS:
            negated = bool(_CANNOT.match(between)) or bool(
                re.search(r"\b(?:not|never|no\s+longer|doesn't|didn't|unable)\b", between, re.I)
            )
            out.append(
                ("link", (rel, not negated, "directly" in between.lower()), clause[a_end - len(a) : b_end], (a, b))
            )
    return out


_HYPOTHETICAL = re.compile(r"\b(?:would|could|might|should|may|if|unless|whether)\b", re.I)
_DEPTH = re.compile(
    r"(?<![\w-])(?:hops?|depth|steps?)(?![\w-])|\bwithin\s+(?:\d|one|two|three|four|five|six)\b", re.I
)  # not inside an id ("hop-role")
_ADVERBS = r"(?:(?:still|now|also|no\s+longer|not|never|cannot|can't|can|could|does|doesn't|did|didn't|is|are|"
_ADVERBS += r"directly|already|even|really|in\s+fact|actually|currently|today)\s+)*"
_REACH_VERB = (
    r"(?:get|gets|got|getting)\s+(?:to|at|into)|reach|reaches|reached|reaching|make\s+it\s+to|makes\s+it\s+to|"
    r"(?:has|have|holds?|keeps?|retains?|had)\s+(?:(?:a|an|any|no|one|some|the)\s+)?"
    r"(?:(?:live|qualifying|open|working|remaining|viable|usable|valid|direct|attack|access)\s+)*"
    r"(?:path|route|way|line)s?\s+(?:to|into|toward|towards)"
)
_REACH = re.compile(rf"^\s*{_ADVERBS}(?:{_REACH_VERB})\s+(?:the\s+)?$", re.I)
_LEADS = re.compile(
    rf"^\s*{_ADVERBS}(?:leads?|led|goes|go|runs?|extends?|reach(?:es)?|gets?)\s+(?:all\s+the\s+way\s+)?"
    r"(?:to|into)\s+(?:the\s+)?$",
    re.I,
)
_FROM = re.compile(
    r"\b(?P<no>no\s+)?(?:(?:a|an|the|one|any|some)\s+)?(?:(?:live|qualifying|open|working|remaining|attack|access)\s+)*"
    r"(?:path|route)s?\s+from\s+$",
    re.I,
)
_REACHABLE = re.compile(
    rf"^\s*(?:is|are|remains?|stays?|was|has\s+been)\s+{_ADVERBS}"
    r"(?:reachable|accessible|within\s+reach|in\s+reach|out\s+of\s+reach|unreachable|inaccessible)\s+"
    r"(?:from|for|to|by)\s+$",
    re.I,
)
_SOURCES = ("alert", "node")  # reach is along the live qualifying paths, as the alert's evidence holds them
_TARGETS = ("node", "asset")


def _reach(clause: str, id_kind: IdKind, a: tuple[str, int, int], b: tuple[str, int, int]) -> LinkClaim | None:
    """ "A can still get to B", "A no longer reaches B", "a path from A leads to B", "B is reachable from A", with A
    the alert's entity or another node: (reach, positive, text, (A, B))."""
    if _DEPTH.search(clause):
        return None  # a bounded reach: the state reader's, with its depth
    between = re.sub(r"^'s\b", "", clause[a[2] : b[1]])
    text = clause[a[1] : b[2]]
    if id_kind(a[0]) in _SOURCES and id_kind(b[0]) in _TARGETS:
        source, target = a[0], b[0]
        if _REACH.match(between):
            before = _FROM.search(clause[: a[1]])  # "no path from A reaches B"
            negated = (len(NEG_WORDS.findall(between)) + bool(before and before.group("no"))) % 2 == 1
        else:
            lead = _LEADS.match(between)
            before = _FROM.search(clause[: a[1]])
            if lead is None or before is None:
                return None
            negated = (len(NEG_WORDS.findall(between)) + bool(before.group("no"))) % 2 == 1
            text = clause[before.start() : b[2]]
    elif id_kind(b[0]) in _SOURCES and id_kind(a[0]) in _TARGETS:
        m = _REACHABLE.match(between)
        if m is None:
            return None
        source, target = b[0], a[0]
        opposite = bool(re.search(r"out\s+of|unreach|inaccess", between, re.I))  # "is out of reach for A"
        negated = (len(NEG_WORDS.findall(between)) + opposite) % 2 == 1
    else:
        return None
    return ("reach", not negated, text, (source, target))


_TRAVERSE = (
    r"(?:pass(?:es|ed)?|go(?:es)?|went|run(?:s)?|ran|travel(?:s|led)?|move(?:s|d)?|hop(?:s|ped)?|cross(?:es|ed)?|"
    r"transit(?:s)?|route(?:s|d)?|step(?:s|ped)?|lead(?:s)?|led)\s+(?:first\s+)?(?:through|via|across|over|by\s+way\s+of)"
)
_WAY = r"(?:on|along)\s+(?:the|its|their|his|her|that|this)\s+(?:way|path|route)\s+(?:to|into|toward)"
_TRAVERSE_NEG = r"(?P<neg>(?:(?:does\s+not|doesn't|did\s+not|didn't|never|no\s+longer|not|also|still|first|now)\s+)*)"
_VIA = (
    re.compile(rf"\b{_WAY}\s+(?P<x>{ID_RX})\s*,?\s*(?P<a>{ID_RX})\s+{_TRAVERSE_NEG}{_TRAVERSE}\s+(?P<b>{ID_RX})", re.I),
    re.compile(rf"(?P<a>{ID_RX})\s+{_TRAVERSE_NEG}{_TRAVERSE}\s+(?P<b>{ID_RX})\s*,?\s+{_WAY}\s+(?P<x>{ID_RX})", re.I),
    re.compile(
        rf"(?P<a>{ID_RX})\s+{_TRAVERSE_NEG}(?:can\s+)?(?:still\s+)?(?:reach(?:es)?|gets?\s+to|get\s+to)\s+(?P<x>{ID_RX})\s+"
        rf"(?:through|via|by\s+way\s+of|by\s+(?:going|passing)\s+through)\s+(?P<b>{ID_RX})",
        re.I,
    ),
    re.compile(
        rf"\b(?:path|route)s?\s+from\s+(?P<a>{ID_RX})\s+to\s+(?P<x>{ID_RX})\s+{_TRAVERSE_NEG}{_TRAVERSE}\s+(?P<b>{ID_RX})",
        re.I,
    ),
)


def _via(clause: str, id_kind: IdKind) -> list[LinkClaim]:
    """ "On the way to X, A passes through B": (via, positive, text, (A, B, X))."""
    out: list[LinkClaim] = []
    for rx in _VIA:
        for m in rx.finditer(clause):
            a, b, x = m.group("a"), m.group("b"), m.group("x")
            kinds = id_kind(a), id_kind(b), id_kind(x)
            if kinds[0] in ENTITY_KINDS and kinds[1] in (*ENTITY_KINDS, "route") and kinds[2] in ENTITY_KINDS:
                negated = len(NEG_WORDS.findall(m.group("neg") or "")) % 2 == 1
                mids = [b]  # "passes through B, C and then D": each in that order
                mids += _more_mids(clause, m.end("b"), id_kind) if m.end("b") == m.end() else []
                out.append(("via", not negated, m.group(0), (a, *mids, x)))
    return out


_MORE = re.compile(rf"(?:\s*,\s*(?:and\s+)?(?:then\s+)?|\s+(?:and\s+then|and|then)\s+)(?P<id>{ID_RX})", re.I)


def _more_mids(clause: str, at: int, id_kind: IdKind) -> list[str]:
    """The entities listed after the first one passed through ("through B, C and then D")."""
    out: list[str] = []
    while True:
        m = _MORE.match(clause, at)
        if m is None or id_kind(m.group("id")) not in (*ENTITY_KINDS, "route"):
            return out
        out.append(m.group("id"))
        at = m.end()


_TRUST_PRE = r"(?P<pre>(?:(?:still|now|also|no\s+longer|not|never|does\s+not|doesn't|did\s+not|didn't|is|are|was)\s+)*)"
_TRUSTS = re.compile(
    rf"^\s*(?:'s\s+)?(?P<policy>trust\s+policy\s+)?{_TRUST_PRE}(?:(?P<active>trusts?|allows?|lets|permits?|names)|"
    r"(?P<passive>trusted\s+by))\s+$",
    re.I,
)


_PASSIVE = re.compile(
    r"^\s*(?P<pre>(?:(?:can|cannot|can't|could|still|now|also|no\s+longer|not|never|be|is|are|was|were|been|has|have)\s+)*)"
    r"(?P<verb>assumed|read|accessed|assumable|readable|accessible)\s+(?:directly\s+)?by\s+$",
    re.I,
)
_PASSIVE_TYPES = {"assumed": "CAN_ASSUME", "assumable": "CAN_ASSUME", "read": "CAN_READ", "readable": "CAN_READ"}


def _passive(clause: str, between: str, a: tuple[str, int], b: tuple[str, int], id_kind: IdKind) -> LinkClaim | None:
    """ "B can be assumed by A", "Y is read by X", "Y is not readable by X": the grant from A to B."""
    m = _PASSIVE.match(between)
    if m is None or id_kind(a[0]) not in ENTITY_KINDS or id_kind(b[0]) not in ENTITY_KINDS:
        return None
    rel = _PASSIVE_TYPES.get(m.group("verb").lower())
    if rel is None or re.search(r"\bcould\b", m.group("pre") or "", re.I):
        return None  # "accessed by" is a reach, not a grant of a modelled type; "could be" a hypothetical
    pre = (m.group("pre") or "").lower()
    negated = len(NEG_WORDS.findall(pre)) % 2 == 1
    return ("link", (rel, not negated, "directly" in between.lower(), ""), clause[a[1] : b[1]], (b[0], a[0]))


def _trust(clause: str, between: str, a: tuple[str, int], b: tuple[str, int], id_kind: IdKind) -> LinkClaim | None:
    """ "B trusts A", "B's trust policy allows A", "A is trusted by B": A can assume B (a direct grant)."""
    m = _TRUSTS.match(between)
    if m is None or id_kind(a[0]) not in ENTITY_KINDS or id_kind(b[0]) not in ENTITY_KINDS:
        return None
    if m.group("active") and not m.group("policy") and not m.group("active").lower().startswith("trust"):
        return None  # "A allows B" with no trust policy named: not a trust
    negated = len(NEG_WORDS.findall(m.group("pre") or "")) % 2 == 1
    assumer, role = (a[0], b[0]) if m.group("passive") else (b[0], a[0])
    return ("link", ("CAN_ASSUME", not negated, True, ""), clause[a[1] : b[1]], (assumer, role))


_GRANT_ADJECTIVES = (
    r"direct|working|active|live|valid|effective|usable|standing|explicit|unconditional|conditional|open|allowed|"
    r"permitted|functioning|current|denied|blocked|real|actual|own|iam|trust|s3"
)
_GRANT = re.compile(
    r"^\s*(?P<pre>(?:(?:still|now|also|no\s+longer|not|never|does\s+not|doesn't|did\s+not|didn't|do\s+not|don't)\s+)*)"
    r"(?:has|have|had|holds?|held|keeps?|retains?|possess(?:es)?|carries|owns?|gets?|got|enjoys?|is\s+given|was\s+given)\s+"
    r"(?P<det>(?:no|a|an|any|the|one|some|its|their)\s+)?"
    rf"(?P<adj>(?:(?:{_GRANT_ADJECTIVES})\s*,?\s*(?:(?:and|or|but)\s+)?)*)"
    r"(?P<what>read|assume|assumption|assume-role|write|access|reading)?\s*"
    r"(?P<noun>grant|permission|right|trust|entitlement|privilege|relationship|edge|link|access)s?\s+"
    r"(?:(?P<then>to\s+(?:assume|read|access))\s+|(?:on|to|over|for|into|against|covering)\s+"
    r"(?:(?P<then2>assume|read|access)\s+)?)(?:(?:the\s+)?(?:role|bucket|asset|data)\s+)?$",
    re.I,
)


_SESSION_HELD = re.compile(
    r"^\s*(?P<pre>(?:(?:still|now|also|no\s+longer|not|never|does\s+not|doesn't|did\s+not|didn't)\s+)*)"
    r"(?:has|have|had|holds?|held|keeps?|retains?|owns?|carries)\s+(?P<no>no\s+)?(?:(?:a|an|the|its|their|any)\s+)?"
    rf"(?P<adj>(?:(?:{_GRANT_ADJECTIVES}|stale|legacy|old|open)\s*,?\s*(?:(?:and|or)\s+)?)*)sessions?\s+$",
    re.I,
)


def _grant(clause: str, between: str, a: tuple[str, int], b: tuple[str, int], id_kind: IdKind) -> LinkClaim | None:
    """ "A has no direct, working read grant on B", "A holds an active, unconditional grant to assume B"."""
    held = _SESSION_HELD.match(between)
    if held is not None and id_kind(a[0]) in ENTITY_KINDS and id_kind(b[0]) in (*ENTITY_KINDS, "route"):
        negated = len(NEG_WORDS.findall(held.group("pre") or "")) % 2 == 1 or bool(held.group("no"))
        adjectives = set(re.findall(r"[a-z]+", (held.group("adj") or "").lower()))
        text = clause[a[1] : b[1]]
        if adjectives & {"blocked", "denied"}:
            return ("link_state", ("blocked", not negated), text, (a[0], b[0]))
        return ("link", ("HAS_SESSION", not negated, False, ""), text, (a[0], b[0]))
    m = _GRANT.match(between)
    if m is None or id_kind(a[0]) not in ENTITY_KINDS or id_kind(b[0]) not in ENTITY_KINDS:
        return None
    if m.group("noun").lower() == "access" and not (m.group("what") or m.group("adj")):
        return None  # "A has access to B": a reach, not a grant
    words = " ".join(g or "" for g in (m.group("what"), m.group("then"), m.group("then2"))).lower()
    rel = (
        "CAN_READ"
        if "read" in words
        else "CAN_ASSUME"
        if "assum" in words or "trust" in (m.group("adj") or "").lower() + m.group("noun").lower()
        else "ANY"
    )
    negated = (len(NEG_WORDS.findall(m.group("pre") or "")) + ((m.group("det") or "").strip().lower() == "no")) % 2 == 1
    adjectives = set(re.findall(r"[a-z]+", (m.group("adj") or "").lower()))
    text = clause[a[1] : b[1]]
    for state in ("denied", "blocked"):
        if state in adjectives:
            return ("link_state", (state, not negated), text, (a[0], b[0]))
    quality = "unconditional" if "unconditional" in adjectives else "conditional" if "conditional" in adjectives else ""
    return ("link", (rel, not negated, "direct" in adjectives, quality), text, (a[0], b[0]))


def _words(text: str) -> list[str]:
    return text.split()


# The words these readers account for (the checker's gate judges a clause only when it knows all its words).
WORDS = (
    frozenset(
        _words(
            """
    get gets got reach reaches reached reachable unreachable accessible inaccessible way path paths route routes
    lead leads led goes go went run runs ran pass passes passed travel travels cross crosses crossed touch touches
    use uses avoid avoids bypass bypasses skip skips misses through via across along grant grants permission
    permissions trust entitlement privilege holds hold has have keeps retains direct directly working active live
    valid effective usable explicit unconditional conditional allowed permitted denied blocked assume assumes
    assumed assumption read reads write access able unable none open qualifying remaining session sessions stale
    legacy shows involves includes running accessing lies sits inside within outside beyond blast radius trusts
    trusted policy allows lets permits includes contains holds covers include contain cover assumable readable
    accessed give gives grant grants missing absent gone there one
        """
        )
    )
    | PATH_WORDS
)
