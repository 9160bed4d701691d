"""Whether a clause's reading is consistent with the clause: the second half of the checker's gate.

`coverage.py` withholds a verdict on a clause with a word the checker does not know. A clause made of known
words can still be read wrongly when the grammar's reading leaves one of its *structural* words unused: the
words that change what the rest claims. Such a clause is `unverified` (neither flagged nor passed as
checked), whatever order its words come in:

- **a counterfactual or hypothetical** the reading did not take as one: "even with X blocked", "would",
  "could", "might" anywhere in the clause of a state, count or account claim ("Blocking X alone would leave zero
  paths open" is no claim about the paths now, "BlastShield would attach a deny-all policy" none about the
  account);
- **a quantity** that a state claim does not read: a negated universal ("not every path", "not all routes")
  and an exact part ("exactly one of", "only two of");
- **a scope** other than the claim's: a state claim (about the graph) in a clause scoped to the account ("in
  AWS", "on the account"), and an account claim in a clause scoped to the graph ("in the graph",
  "graph-wise") or negated by a word its reading does not count ("changed nothing in AWS");
- **a relation** read as a state: a grant or permission held by an entity ("has a working read grant on Y")
  is a claim about that relationship, not about the alert's exposure.

A share of the paths ("two of the three paths") inside a claim about the paths through an entity ("two of the
three paths pass via Z") is that claim's quantity, not a claim of its own: it is dropped, and the claim about
the paths through the entity is judged. So is a state claim that reads again the words of an earlier claim of
the clause to the opposite verdict (a negation or a verdict counted twice: "The exposure is not over: X retains
a working path" read as "not over" and again as "not ... retains"): the earlier reading stands.

Like the word gate, this only withholds: it never makes a claim, so it cannot add a flag.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

__all__ = ["Reading", "withheld"]


class Reading(Protocol):
    """What this module reads of a claim (`prose.ProseClaim`)."""

    @property
    def kind(self) -> str: ...
    @property
    def value(self) -> object: ...
    @property
    def text(self) -> str: ...
    @property
    def clause(self) -> str: ...
    @property
    def scope(self) -> tuple[str, ...]: ...
    @property
    def assets(self) -> tuple[str, ...]: ...
    @property
    def action(self) -> str: ...


_STATE_OR_COUNT = frozenset(
    ["state", "path_count", "asset_count", "route_count", "path_bound", "path_share", "path_percent", "blast"]
)
_HYPOTHETICAL = re.compile(r"\b(?:would|could|might)\b|\beven\s+(?:with|without|if|after|once|when)\b", re.I)
_QUANTITY = re.compile(
    r"\bnot\s+(?:every|all|each|both)\b|\b(?:exactly|only|just|precisely)\s+(?:\d+|one|two|three|four|five|six)\s+of\b",
    re.I,
)
_ACCOUNT_SCOPE = re.compile(
    r"\b(?:in|on|inside|within|to|into|reached|reaches|reach|hit|hits|touched)\s+(?:the\s+)?(?:aws|iam)\b|\bon\s+the\s+(?:aws\s+)?account\b|\baws[\s-]side\b",
    re.I,
)
_GRAPH_SCOPE = re.compile(r"\bin\s+the\s+graph\b|\bgraph[\s-]wise\b|\bgraph[\s-]side\b", re.I)
_UNCOUNTED_NEGATION = re.compile(r"\b(?:nothing|none|nobody|neither|not|never|cannot)\b|n't\b", re.I)
_COUNTED_NEGATION = re.compile(r"\b(?:no\s+longer|not\s+only|not\s+just)\b", re.I)
_RELATION_HELD = re.compile(
    r"\b(?:has|have|had|holds?|held|retains?|keeps?)\b(?:\s+[\w,-]+){0,4}?\s+(?:grants?|permissions?|entitlements?)\b",
    re.I,
)


def _span(claim: Reading) -> tuple[int, int]:
    at = claim.clause.find(claim.text)
    return (at, at + len(claim.text)) if at >= 0 else (-1, -1)


def _reread(claims: Sequence[Reading], i: int) -> bool:
    """A state claim that reads again words an earlier claim of the same clause read, to the opposite verdict
    about the same thing: a negation or a verdict counted twice ("The exposure is not over: X retains a path"
    read as "not over" and as "not ... retains"). The earlier reading stands."""
    a = claims[i]
    start = _span(a)[0]
    if a.kind != "state" or start < 0:
        return False
    for b in claims:
        other = _span(b)
        if (
            b.kind == "state"
            and b.clause == a.clause
            and b.value != a.value
            and (b.scope, b.assets, b.action) == (a.scope, a.assets, a.action)
            and 0 <= other[0] < start < other[1]
        ):
            return True
    return False


def _inconsistent(claims: Sequence[Reading], i: int) -> bool:
    claim = claims[i]
    clause = claim.clause
    if claim.kind in _STATE_OR_COUNT and (_HYPOTHETICAL.search(clause) or _QUANTITY.search(clause)):
        return True
    if claim.kind == "state" and not claim.action and _ACCOUNT_SCOPE.search(clause):
        return True  # a state of the graph said of the account
    if claim.kind == "state" and _RELATION_HELD.search(clause):
        return True  # a grant held: a claim about a relationship, not about the alert's exposure
    if claim.kind == "account" and _HYPOTHETICAL.search(clause):
        return True  # "BlastShield would attach a deny-all policy": a plan, not what was done
    if claim.kind == "account":
        graph = _GRAPH_SCOPE.search(clause) and not re.search(
            r"\bonly\b|\bnot\b|\bnever\b|\b(?:whatever|everything|all)\b", clause, re.I
        )  # "blocked only in the graph", "whatever it did was in the graph": the account claim's own scope
        graph = graph and not _ACCOUNT_SCOPE.search(clause)  # "on the AWS account as well as in the graph": both named
        own = re.split(r":\s+", clause)[-1]  # "None remains: the key was disabled": another claim before the colon
        negated = _UNCOUNTED_NEGATION.search(own) is not None and not _COUNTED_NEGATION.search(own)
        return bool(graph) or (bool(claim.value) and negated)  # "changed nothing in AWS", "never reached AWS"
    return False


def _share_of_through(claims: Sequence[Reading], i: int) -> bool:
    """A share of the paths that is the quantity of a claim about the paths through an entity."""
    claim = claims[i]
    return claim.kind in ("path_share", "path_count") and any(  # "only one open path runs via Z": how many hold Z
        b.kind in ("through", "on_path", "member") and b.clause == claim.clause and claim.text in b.text for b in claims
    )


def withheld(claims: Sequence[Reading]) -> tuple[set[int], set[int]]:
    """The claims (by position) whose clause the reading is not consistent with (`unverified`), and those that are
    part of another claim (dropped)."""
    dropped = {i for i in range(len(claims)) if _share_of_through(claims, i) or _reread(claims, i)}
    unread = {i for i in range(len(claims)) if i not in dropped and _inconsistent(claims, i)}
    return unread, dropped
