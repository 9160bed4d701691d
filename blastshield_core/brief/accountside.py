"""A claim about the whole alert's containment, held against the AWS account's side of the evidence.

The graph can have no qualifying path while the account still has some open: a block planned in the graph only
(no respond profile: the key still works) or found undone on the account (`EvidenceSummary.account`). A claim
that names neither ("the alert is contained", "nothing is left open", "not contained") is about the alert, so
about the account too; one said of the graph ("no qualifying path in the graph", "graph-only", what the fresh
query finds) is the graph's; one said of the account is the account's. The checker calls `judge_on_account`
for the structured `containment_state` and for the prose grammar's containment and exposure claims.
"""

from __future__ import annotations

import re

from .evidence import EvidenceSummary

__all__ = ["existence_state", "judge_on_account", "open_on_account", "where"]

_IN_GRAPH = re.compile(
    r"\b(?:in|on|within|inside)\s+(?:the\s+)?(?:graph|blastshield)\b|\bgraph[\s_-]only\b"
    r"|\bthe\s+graph\s+(?:still\s+|now\s+|no\s+longer\s+)?(?:shows|finds|has|holds|returns|says)\b"
    r"|\b(?:fresh|latest|graph)\s+(?:graph\s+)?(?:query|re-?query|investigation)\b"
    r"|\b(?:was|were|is|are)\s+(?:found|returned)\b",  # "no qualifying path was found": what a query found
    re.I,
)
_ON_ACCOUNT = re.compile(r"\b(?:in|on|within|inside)\s+(?:the\s+)?(?:aws|(?:aws\s+)?account)\b", re.I)


def where(text: str) -> set[str]:
    """Which of the graph and the AWS account a text says a containment claim is about (none: the alert's)."""
    return {name for name, pattern in (("graph", _IN_GRAPH), ("account", _ON_ACCOUNT)) if pattern.search(text)}


def existence_state(kind: str, value: object) -> str | None:
    """What a count or bound of the paths or assets left says of the whole alert: none ("0 qualifying paths remain",
    "no route to critical data is left": a count of zero) is a claim of containment, at least one ("at least one
    qualifying path remains open") one of exposure; any other figure, and a change of the count ("the paths went
    from 1 to 0"), is the graph's count, not a state."""
    if kind in ("path_count", "asset_count") and value == 0:
        return "contained"
    if kind == "path_bound" and value in ((">=", 1), (">", 0)):
        return "exposed"
    return None


def judge_on_account(ev: EvidenceSummary, claimed: str, clause: str = "", sentence: str = "") -> tuple[str, str] | None:
    """The verdict on a claim that the alert is `claimed` ("contained", "exposed", or the structured "unknown"),
    said in `clause` of `sentence` (both empty for a structured claim), when the account decides it: None when the
    graph's verdict is the one (the account agrees with the graph, or the claim is said of the graph alone);
    ("", "") when the claim holds; ("unverified", "") when the account cannot be read; ("false_containment",
    evidence) when it claims containment (or unknown) while paths are open on the account.

    The clause's scope is read first, the sentence's when the clause names neither. A claim of exposure said of
    both ("exposed in the graph and on the account") is left to the graph, where it is false."""
    side = ev.account
    if side is None or side.state == "contained" or ev.containment_state != "contained":
        return None  # the graph and the account agree: the graph's verdict, with its evidence
    scope = where(clause) or where(sentence)
    if scope == {"graph"}:
        return None
    if side.state == "unknown":
        return ("", "") if claimed == "unknown" else ("unverified", "")  # "unknown" is what the evidence says
    if claimed in ("contained", "unknown"):  # "unknown" understates what the account has open
        return "false_containment", f"the AWS account: {side.message}"
    return None if scope == {"graph", "account"} else ("", "")


def open_on_account(ev: EvidenceSummary, clause: str, sentence: str) -> int | None:
    """The count of qualifying paths a count said of the alert is held to when the account decides it (the graph has
    none and the account has some open: "1 qualifying path remains open on the AWS account" after a block made in
    the graph only), or None when the graph's count is the one (said of the graph, or the two agree)."""
    side = ev.account
    if side is None or side.state != "exposed" or ev.containment_state != "contained":
        return None
    return None if (where(clause) or where(sentence)) == {"graph"} else side.open_paths
