"""Claims about what was done on the AWS account, read from one clause.

"alice's credentials were disabled in AWS", "the access key is now inactive", "a deny-all
policy was attached", "the user is locked out", "the revocation policy now denies the role's
sessions", "the block was not applied in AWS", "blocked in the graph only". Each is a claim about
the run's actions on the account, held against their `applied`, `api_verified` and
`graph_verified` (`runview.AccountFacts`), never against the graph's containment state: a
run can complete in the graph while the credentials still work on the account.

A claim is (kind, done, text): kind is what changed (credential, key, policy, revocation, any),
done whether the clause says it is in effect on the account.
"""

from __future__ import annotations

import re

__all__ = ["AccountClaim", "account_claims", "mentions_account"]

AccountClaim = tuple[str, bool, str]

_ACCOUNT = re.compile(
    r"\b(?:in|on|within|inside|across)\s+(?:the\s+)?(?:(?:live|real|actual)\s+)?(?:aws|iam)\b"
    r"|\bon\s+the\s+(?:(?:aws|live|real|actual)\s+)?account\b|\baws[\s-]side\b|\bin\s+the\s+account\b"
    r"|\bgraph[\s-]only\b|\b(?:in|on)\s+the\s+graph\s+(?:only|alone)\b|\bonly\s+(?:in|on)\s+the\s+graph\b"
    r"|\baccess\s+keys?\b|\bdeny[\s-]all\b|\bconsole\s+(?:password|login)s?\b|\blogin\s+profile\b"
    r"|\blocked\s+out\b|\brevocation\s+policy\b|\bupdateaccesskey\b|\bputuserpolicy\b|\bputrolepolicy\b"
    r"|\b(?:aws|iam)\s+(?:credentials?|keys?|access\s+keys?|passwords?|logins?|sign-ins?)\b"
    r"|\b(?:aws|iam)\s+(?:now\s+|still\s+)?(?:reports?|shows?|lists?|says)\b"
    r"|\b(?:sign|log)\s*-?\s*in\s+(?:to|on)\s+(?:the\s+)?(?:aws|iam|console|aws\s+console)\b",
    re.I,
)
_GRAPH_ONLY = re.compile(
    r"\bgraph[\s-]only\b|\b(?:in|on)\s+the\s+graph\s+(?:only|alone)\b|\bonly\s+(?:in|on)\s+the\s+graph\b"
    r"|\bnothing\s+(?:was\s+|has\s+been\s+)?(?:changed|done|applied)\s+(?:in|on)\s+(?:the\s+)?(?:aws|account)\b"
    r"|\bthe\s+account\s+was\s+(?:not|never)\s+touched\b|\buntouched\b",
    re.I,
)
_STILL_WORK = re.compile(
    r"\b(?:still|continue\s+to|keep|keeps)\s+(?:work|works|working|function|functions|valid|usable|active|live|enabled)\b"
    r"|\b(?:remain|remains|remained|stay|stays|is\s+still|are\s+still)\s+(?:active|valid|usable|enabled|live)\b"
    r"|\bas\s+(?:active|enabled|valid)\b|\b(?:still|can)\s+(?:sign|log)\s*-?\s*in\b",
    re.I,
)
_STOP_WORK = re.compile(
    r"\b(?:no\s+longer|don't|do\s+not|doesn't|does\s+not|cannot|can't|can\s+no\s+longer)\s+(?:work|function|be\s+used)\b"
    r"|\bstopped\s+working\b|\bare\s+(?:now\s+)?(?:dead|useless|unusable|invalid)\b"
    r"|\bas\s+(?:inactive|disabled|deactivated|revoked)\b"
    r"|\b(?:no\s+longer|cannot|can\s+no\s+longer|not)\s+(?:be\s+able\s+to\s+)?(?:sign|log)\s*-?\s*in\b",
    re.I,
)
_VERBS = (
    r"disabled|deactivated|inactivated|revoked|suspended|killed|turned\s+off|switched\s+off|shut\s+off|"
    r"made\s+inactive|set\s+to\s+inactive|invalidated|cut\s+off|blocked|locked|frozen|neutrali[sz]ed|terminated|"
    r"expired|rotated|removed|deleted|stopped|inactive|applied|enforced|attached|added|put\s+in\s+place|in\s+place|"
    r"denied|denies|deny|denying|blocks|stops|disable|deactivate|revoke|attach|apply|took\s+effect|takes\s+effect|"
    r"in\s+effect|effective|went\s+through|made|done|changed"
)
_PRED = re.compile(rf"\b(?:{_VERBS})\b", re.I)
_KIND_WORDS = (
    ("revocation", re.compile(r"\brevocation\s+policy\b|\b(?:role'?s?\s+)?sessions?\b|\btokens?\b", re.I)),
    ("policy", re.compile(r"\bdeny[\s-]all\b|\bpolicy\b|\bdeny\b|\bputuserpolicy\b", re.I)),
    ("key", re.compile(r"\baccess\s+keys?\b|\bkeys?\b|\bupdateaccesskey\b", re.I)),
    (
        "credential",
        re.compile(r"\bcredentials?\b|\bpasswords?\b|\blogins?\b|\blocked\s+out\b|\buser\b|\baccount\b", re.I),
    ),
)
_NEG = re.compile(
    r"\b(?:not|never|no|n't|neither|nor|without|yet\s+to|failed\s+to|fails\s+to|cannot|can't|isn't|aren't|wasn't|"
    r"weren't|hasn't|haven't|hadn't|didn't|doesn't|don't|won't)\b",
    re.I,
)


_EXPLICIT = re.compile(
    r"\b(?:in|on|within|inside|across)\s+(?:the\s+)?(?:(?:live|real|actual)\s+)?(?:aws|iam)\b"
    r"|\bon\s+the\s+(?:(?:aws|live|real|actual)\s+)?account\b|\baws[\s-]side\b|\bin\s+the\s+account\b"
    r"|\b(?:aws|iam)\s+(?:credentials?|keys?|access\s+keys?|passwords?|logins?|sign-ins?)\b"
    r"|\b(?:aws|iam)\s+(?:now\s+|still\s+)?(?:reports?|shows?|lists?|says)\b"
    r"|\b(?:sign|log)\s*-?\s*in\s+(?:to|on)\s+(?:the\s+)?(?:aws|iam|console|aws\s+console)\b",
    re.I,
)
# Verbs that say what was done to a credential itself (not to a route of the graph).
_STRONG = re.compile(
    r"\b(?:disabled|deactivated|inactivated|inactive|revoked|suspended|rotated|deleted|locked|attached|"
    r"turned\s+off|switched\s+off|made\s+inactive|set\s+to\s+inactive|invalidated|denies|now\s+denies)\b",
    re.I,
)


def mentions_account(clause: str) -> bool:
    return bool(_ACCOUNT.search(clause))


def _kind(clause: str) -> str:
    for kind, rx in _KIND_WORDS:
        if rx.search(clause):
            return kind
    return "any"


def account_claims(clause: str) -> list[AccountClaim]:
    """The account claims of one clause (at most one), or none when it says nothing of the account."""
    if not mentions_account(clause):
        return []
    text = clause.strip()
    kind = _kind(clause)
    if _GRAPH_ONLY.search(clause):
        negated = bool(re.search(r"\b(?:not|never)\s+(?:only\s+)?(?:in|on)\s+the\s+graph\b", clause, re.I))
        return [(kind if kind != "revocation" else "any", negated, text)]
    if _STILL_WORK.search(clause):
        negated = bool(re.search(r"\b(?:no\s+longer|not|never)\s+(?:\w+\s+)?(?:still|remain|stay)", clause, re.I))
        return [(kind, negated, text)]
    if _STOP_WORK.search(clause):
        return [(kind, True, text)]
    m = _PRED.search(clause)
    if m is None:
        return []
    if not _EXPLICIT.search(clause) and (
        not _STRONG.search(clause) or re.search(r"\broutes?\b|\bgraph\b", clause, re.I)
    ):
        return []  # "the access-key route was blocked": a block in the graph, said as such
    m = _STRONG.search(clause) or m
    before = clause[: m.start()]
    window = " ".join(before.split()[-7:])
    negations = len(_NEG.findall(window))
    if re.search(r"\bnot\s+(?:only|just)\b", window, re.I):
        negations -= 1
    word = m.group(0).lower()
    if word in ("applied", "apply", "enforced", "added", "in place", "put in place", "attached", "attach"):
        kind = kind if kind in ("policy", "revocation") else "any"
    return [(kind, negations % 2 == 0, text)]
