"""Claims about what the live qualifying paths hold, read from one clause (`links.py` reads the rest).

- Membership: "X is (still / no longer) on a qualifying path", "X lies on none / both / only one of the paths",
  "R (still) carries an open path", each of "A and B", one of "either A or B".
- A step on the paths: "no open path has A assuming B".
- A chain: "the path a → b → c is open", "a → b → c is (still) part of an open qualifying path".
- The blast radius: "X lies inside / outside the current blast radius", "the blast radius no longer includes X".
- An asset's sensitivity: "customer-db is classified critical" (not the alert's severity).
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = [
    "ENTITY_KINDS",
    "ID_RX",
    "NEG_WORDS",
    "ROUTE_CLASS",
    "WORDS",
    "IdKind",
    "LinkClaim",
    "member_claims",
    "path_claims",
    "sensitivity_claims",
    "sensitivity_spans",
]

# (kind, value, text, scope): kind is link | link_state | on_path | through | member | reach | via | ...
LinkClaim = tuple[str, object, str, tuple[str, ...]]
IdKind = Callable[[str], str | None]
ROUTE_CLASS = "*session-route*"  # "a path passes through a session route": any of the alert's routes
ENTITY_KINDS = ("alert", "node", "asset")
ID_RX = r"[A-Za-z0-9][A-Za-z0-9_.:@/-]*[A-Za-z0-9]"
NEG_WORDS = re.compile(r"\b(?:not|never|no|cannot|unable|nowhere)\b|\bno\s+longer\b|n't\b", re.I)

_MEMBER = re.compile(
    rf"(?P<id>{ID_RX})\s+(?:each\s+|both\s+)?(?P<pre>(?:still|now|also|no\s+longer|never)\s+)?"
    r"(?:is|are|lies|lie|sits|sit|remains|remain|stays|stay|appears|appear|shows\s+up|show\s+up|features|feature)\s+"
    r"(?P<neg>not\s+|no\s+longer\s+|never\s+)?(?:still\s+|now\s+|also\s+)?(?P<neg2>not\s+)?(?:on|(?:a\s+)?part\s+of)\s+"
    r"(?P<det>an?|any|(?:only|exactly)\s+one\s+of\s+the|one\s+of\s+the|one|none\s+of\s+the|both(?:\s+of\s+the)?|"
    r"all(?:\s+of)?\s+the|all|the|every|each|some)\s+(?:(?:live|qualifying|remaining|open|active)\s+){0,2}paths?\b",
    re.I,
)


def member_claims(clause: str, id_kind: IdKind) -> list[LinkClaim]:
    """ "X is (no longer) on a qualifying path", "Z sits on every path", "X is on none of the paths"."""
    out: list[LinkClaim] = []

    for m in _MEMBER.finditer(clause):
        if re.search(rf"{_ARROW}\s*$", clause[: m.start()]):
            continue  # the end of a chain "a → b is on an open path": the chain's claim
        if id_kind(m.group("id")) in (*ENTITY_KINDS, "route"):
            pre = bool(re.match(r"no|never", m.group("pre") or ""))  # "X no longer lies on a path"
            negated = (bool(m.group("neg")) + bool(m.group("neg2")) + pre) % 2 == 1
            if m.group("det").lower().startswith("none"):  # "X is on none of the paths"
                negated = not negated
            det = re.sub(r"\s+", " ", m.group("det").lower())
            if det.split()[0] in ("every", "each", "both", "all"):  # "Z sits on every path": all paths hold Z
                out.append(("through", ("all", negated), m.group(0), (m.group("id"),)))
            elif det.split()[0] in ("only", "exactly"):  # "Z is on only one of the paths"
                out.append(("through", ("one", negated), m.group(0), (m.group("id"),)))
            else:
                out += _members(clause, m, id_kind, not negated)
    return out


_STEP = re.compile(
    r"\b(?P<q>no|none\s+of\s+the|not\s+one|a|an|one|some|any|every|each|all|both|the)\s+(?:(?:open|live|qualifying|remaining|"
    rf"current|of\s+the)\s+)*paths?\s+(?P<neg>(?:still\s+|now\s+|also\s+|no\s+longer\s+|not\s+|never\s+)*)"
    rf"(?:has|have|had|shows?|involves?|includes?|sees?|features?)\s+(?P<a>{ID_RX})\s+"
    rf"(?P<verb>assuming|reading|running\s+as|accessing|escalating\s+to)\s+(?P<b>{ID_RX})",
    re.I,
)
_STEP_QUANT = {"no": "none", "none of the": "none", "not one": "none", "every": "all", "each": "all", "all": "all"}


def _steps(clause: str, id_kind: IdKind) -> list[LinkClaim]:
    """ "No open path has A assuming B": (step, (quantity, negated), text, (A, B))."""
    out: list[LinkClaim] = []
    for m in _STEP.finditer(clause):
        if id_kind(m.group("a")) in ENTITY_KINDS and id_kind(m.group("b")) in ENTITY_KINDS:
            quant = _STEP_QUANT.get(re.sub(r"\s+", " ", m.group("q").lower()), "some")
            if quant == "some" and m.group("q").lower() in ("both",):
                quant = "all"
            negated = len(NEG_WORDS.findall(m.group("neg") or "")) % 2 == 1
            out.append(("step", (quant, negated), m.group(0), (m.group("a"), m.group("b"))))
    return out


_ARROW = r"(?:→|->|=>|⟶|⇒)"
_CHAIN_PART = re.compile(
    rf"(?P<chain>{ID_RX}(?:\s*{_ARROW}\s*{ID_RX})+)\s+(?P<pre>(?:still\s+|now\s+|no\s+longer\s+|never\s+)*)"
    r"(?:is|remains|stays|forms?)\s+(?P<neg>(?:still\s+|now\s+|not\s+|no\s+longer\s+|never\s+)*)"
    r"(?:(?:a\s+)?part\s+of|on|in)\s+(?P<det>an?|any|the|one\s+of\s+the|some|no)\s+"
    r"(?:(?:open|live|qualifying|remaining|active|current)\s+)*paths?\b",
    re.I,
)
_CARRIES = re.compile(
    rf"(?P<id>{ID_RX})\s+(?P<neg>(?:(?:still|now|also|no\s+longer|not|never|does\s+not|doesn't|do\s+not|don't)\s+)*)"
    r"(?:carries|carry|holds|hold|serves|serve)\s+(?P<det>an?|any|no|one)\s+"
    r"(?:(?:open|live|qualifying|remaining|active)\s+)*paths?\b",
    re.I,
)


_SENSITIVITY = re.compile(
    rf"(?P<id>{ID_RX})\s+(?P<pre>(?:still\s+|now\s+|also\s+|no\s+longer\s+|never\s+)*)"
    r"(?:is|are|was|remains|stays|has\s+been)\s+(?P<neg>(?:still\s+|now\s+|also\s+|not\s+|no\s+longer\s+|never\s+)*)"
    r"(?:(?:classified|classed|rated|marked|labell?ed|tagged|graded|considered)\s+(?:as\s+)?)?(?:an?\s+)?"
    r"(?P<level>low|medium|high|critical)(?:[\s-]+sensitivity)?(?:\s+(?:asset|data|bucket|database|store))?"
    r"(?![\w-]|\s+(?:severity|priority|risk|alert))",
    re.I,
)


def sensitivity_claims(clause: str, id_kind: IdKind) -> list[LinkClaim]:
    """ "customer-db is classified critical", "hr-records is not a high-sensitivity asset": the sensitivity of a
    data asset, not the alert's severity: (sensitivity, (level, positive), text, (asset,))."""
    out: list[LinkClaim] = []
    for m in _SENSITIVITY.finditer(clause):
        if id_kind(m.group("id")) == "asset":
            negated = len(NEG_WORDS.findall((m.group("pre") or "") + (m.group("neg") or ""))) % 2 == 1
            out.append(("asset_sensitivity", (m.group("level").lower(), not negated), m.group(0), (m.group("id"),)))
    return out


def sensitivity_spans(clause: str, id_kind: IdKind) -> list[tuple[int, int]]:
    """Where an asset's sensitivity is read (no severity of the alert there)."""
    return [(at, at + len(c[2])) for c in sensitivity_claims(clause, id_kind) if (at := clause.find(c[2])) >= 0]


_LISTED = re.compile(rf"(?P<list>(?:{ID_RX}\s*,\s*)*{ID_RX}),?\s+(?P<conj>and|or)\s+$", re.I)


def _listed(clause: str, at: int, id_kind: IdKind) -> tuple[str, list[str]]:
    """The entities listed before the one at `at` ("A, B and C is ...", "either A or B carries ..."): the
    conjunction ("and", "or" or "") and the entities before it."""
    m = _LISTED.search(clause[:at])
    if m is None:
        return "", []
    named = [x.strip() for x in m.group("list").split(",")]
    if not all(id_kind(x) in (*ENTITY_KINDS, "route") for x in named):
        return "", []
    return m.group("conj").lower(), named


def _members(clause: str, m: re.Match[str], id_kind: IdKind, positive: bool) -> list[LinkClaim]:
    """A membership claim for the entity `m` names, and for those listed with it: each of "A and B", and one of
    "either A or B" (its negation, "either A or B is not", is read as no claim)."""
    conj, before = _listed(clause, m.start("id"), id_kind)
    if conj == "or":
        return [("member_any", True, m.group(0), (*before, m.group("id")))] if positive else []
    return [("member", positive, m.group(0), (x,)) for x in (*before, m.group("id"))]


def _carries(clause: str, id_kind: IdKind) -> list[LinkClaim]:
    """ "R (still) carries an open path", "R no longer carries any open path": R is on a live qualifying path."""
    out: list[LinkClaim] = []
    for m in _CARRIES.finditer(clause):
        if id_kind(m.group("id")) in ("route", "node"):
            negated = (len(NEG_WORDS.findall(m.group("neg") or "")) + (m.group("det").lower() == "no")) % 2 == 1
            out += _members(clause, m, id_kind, not negated)
    return out


_CHAIN = re.compile(
    rf"\bpath\s+(?P<chain>{ID_RX}(?:\s*(?:→|->|=>|⟶|⇒)\s*{ID_RX})+)\s+(?:is|remains|stays)\s+"
    r"(?P<neg>(?:still\s+|now\s+|not\s+|no\s+longer\s+|never\s+)*)(?:open|live|active|qualifying|exposed)\b",
    re.I,
)


def _chains(clause: str, id_kind: IdKind) -> list[LinkClaim]:
    """ "The path a → b → c is open", "a → b → c is (still) part of an open path": (chain, positive, text, nodes)."""
    out: list[LinkClaim] = []
    for m in _CHAIN_PART.finditer(clause):
        nodes = tuple(n.strip() for n in re.split(rf"\s*{_ARROW}\s*", m.group("chain")))
        if all(id_kind(n) in ENTITY_KINDS for n in nodes):
            words = (m.group("pre") or "") + (m.group("neg") or "")
            negated = (len(NEG_WORDS.findall(words)) + (m.group("det").lower() == "no")) % 2 == 1
            out.append(("chain", not negated, m.group(0), nodes))
    for m in _CHAIN.finditer(clause):
        nodes = tuple(n.strip() for n in re.split(r"\s*(?:→|->|=>|⟶|⇒)\s*", m.group("chain")))
        if all(id_kind(n) in ENTITY_KINDS for n in nodes):
            negated = len(NEG_WORDS.findall(m.group("neg") or "")) % 2 == 1
            out.append(("chain", not negated, m.group(0), nodes))
    return out


_BLAST = re.compile(
    rf"(?P<x>{ID_RX})['\"”’]?\s+(?P<pre>(?:still\s+|now\s+|also\s+|no\s+longer\s+|never\s+)*)"
    r"(?:is|lies|lie|sits|sit|remains|remain|stays|stay|falls|fall|was)\s+"
    r"(?P<neg>(?:still\s+|now\s+|also\s+|no\s+longer\s+|not\s+|never\s+)*)"
    r"(?P<where>inside|within|in|outside|beyond|out\s+of)\s+(?:(?:the|its|their|[\w-]+'s|[\w-]+’s)\s+)?"
    r"(?:(?:current|fresh|present|live)\s+)?blast\s+radius\b",
    re.I,
)


_BLAST_HOLDS = re.compile(
    r"\bblast\s+radius\s+(?P<neg>(?:(?:still|now|also|no\s+longer|not|never|does\s+not|doesn't|did\s+not|didn't)\s+)*)"
    rf"(?:includes?|contains?|holds?|covers?)\s+(?P<x>{ID_RX})",
    re.I,
)


def _blast(clause: str, id_kind: IdKind) -> list[LinkClaim]:
    """ "X lies inside / outside the alert's current blast radius", "the blast radius no longer includes X":
    (blast_in, positive, text, (X,))."""
    out: list[LinkClaim] = []
    for m in _BLAST_HOLDS.finditer(clause):
        if id_kind(m.group("x")) in ("node", "asset"):
            negated = len(NEG_WORDS.findall(m.group("neg") or "")) % 2 == 1
            out.append(("blast_in", not negated, m.group(0), (m.group("x"),)))
    for m in _BLAST.finditer(clause):
        if id_kind(m.group("x")) in ("node", "asset"):
            outside = m.group("where").lower() in ("outside", "beyond", "out of")
            negated = (len(NEG_WORDS.findall((m.group("pre") or "") + (m.group("neg") or ""))) + outside) % 2 == 1
            out.append(("blast_in", not negated, m.group(0), (m.group("x"),)))
    return out


_CLASS = r"(?P<cls>critical|high(?:[\s-]+sensitivity)?|sensitive|high[\s-]+or[\s-]+critical)?\s*(?:data\s+)?"
_IN_SCOPE = (
    re.compile(
        rf"\b(?P<no>no|not\s+a\s+single|not\s+one)\s+{_CLASS}(?:assets?|data)\s+(?:is|are|remains?|stays?)\s+"
        r"(?:still\s+|now\s+|currently\s+)?(?:in\s+scope|within\s+reach|in\s+reach|reachable|exposed)\s+"
        rf"(?:for|from|of|by|to)\s+(?P<x>{ID_RX})",
        re.I,
    ),
    re.compile(
        rf"(?P<x>{ID_RX})\s+(?:can\s+|could\s+)?(?:still\s+|now\s+)?(?:reach(?:es)?|gets?\s+to|get\s+to)\s+"
        rf"(?P<no>no|not\s+a\s+single|not\s+one)\s+{_CLASS}(?:assets?|data)\b",
        re.I,
    ),
)


def _in_scope(clause: str, id_kind: IdKind) -> list[LinkClaim]:
    """ "No critical asset is in scope for X", "X can reach no sensitive asset": X reaches no asset of that class
    along the live qualifying paths: (reach_class, (class, False), text, (X,))."""
    out: list[LinkClaim] = []
    for rx in _IN_SCOPE:
        for m in rx.finditer(clause):
            if id_kind(m.group("x")) in ("alert", "node"):
                cls = re.sub(r"[\s-]+", " ", (m.group("cls") or "").lower())
                cls = "critical" if cls == "critical" else "high" if cls.startswith("high") and "or" not in cls else ""
                out.append(("reach_class", (cls, False), m.group(0), (m.group("x"),)))
    return out


def path_claims(clause: str, id_kind: IdKind) -> list[LinkClaim]:
    """The steps, chains, blast radius memberships, routes carrying paths, sensitivities and the assets of a class
    in reach a clause states."""
    out = _steps(clause, id_kind) + _blast(clause, id_kind) + _chains(clause, id_kind) + _in_scope(clause, id_kind)
    return out + _carries(clause, id_kind) + sensitivity_claims(clause, id_kind)


# The words these readers read (part of the gate's lexicon through `links.WORDS`).
_WORD_TEXT = """
    carries carry carried serves serve holds hold part chain lies lie sits sit remains remain stays stay appears
    appear shows show up features feature
    classified classed rated marked labelled labeled tagged graded considered sensitivity critical high low medium
    asset data bucket database store session route routes open live qualifying remaining active current more
    anymore inside within outside beyond blast radius includes contains covers scope reach reachable sensitive single
"""
WORDS = frozenset(_WORD_TEXT.split())
