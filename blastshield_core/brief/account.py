"""Claims about what was done on the AWS account, read from one clause.

"alice's credentials were disabled in AWS", "the access key is now inactive", "a deny-all
policy was attached", "the user is locked out", "the revocation policy now denies the role's
sessions", "the block was not applied in AWS", "blocked in the graph only". Each is a claim about
the run's actions on the account, held against their `applied`, `api_verified` and
`graph_verified` (`runview.AccountFacts`), never against the graph's containment state: a
run can complete in the graph while the credentials still work on the account.

A claim is (kind, done, text): kind is what changed (credential, key, policy, revocation, any),
done whether the clause says it is in effect on the account.

Negation is read wherever it stands: before the verb ("was not applied", "never reached AWS"), on the
subject ("No deny-all policy was put on alice", "nothing was changed on the account") or on the object
("the run changed nothing in AWS", "disabled no key"). A clause that names no place takes the account
as its place when it says "there" after a clause about the account ("The block was not applied in AWS,
so alice's credentials still work there"). A line keyed by the account ("AWS: key disabled for alice")
is about the account.
"""

from __future__ import annotations

import re

__all__ = ["WORDS", "AccountClaim", "account_claims", "cell_status", "kind_of", "mentions_account", "on_account"]

AccountClaim = tuple[str, bool, str]

_KEYED = r"^\W*(?:aws|iam|(?:the\s+)?(?:aws\s+)?account|on\s+the\s+account|in\s+aws)\s*:"
_REACHED = (
    r"\b(?:reach|reached|reaches|hit|hits|made\s+it\s+(?:in)?to|got\s+to|landed\s+in|sent\s+to|pushed\s+to)\s+"
    r"(?:the\s+)?(?:aws|iam|(?:aws\s+)?account)\b"
)
# Sessions a principal already holds: those a revocation ends (STS sessions), not the graph's session routes.
_ISSUED = (
    r"\b(?:already[\s-]+(?:issued|obtained|granted)|previously[\s-]+issued)\s+(?:[\w-]+\s+)?sessions?\b"
    r"|\bsessions?\s+(?:[\w:.@/'-]+\s+){0,3}?(?:already\s+)?(?:issued|obtained)\b"
)
# A status AWS reports of a key: "reads back Inactive", "shows as Active", "status: Inactive".
_STATUS = re.compile(
    r"\b(?:reads?\s+back|read\s+back|shows?|showed|reports?|reported|lists?|listed|returns?|returned|status(?:\s+is)?)"
    r"\s*:?\s+(?:as\s+)?[\"'`]?(inactive|active|enabled|disabled)\b",
    re.I,
)
# What AWS did with a call: "AWS accepted it", "IAM rejected the request".
_ANSWERED = (
    r"\b(?:aws|iam)\s+(?:accepted|acknowledged|rejected|refused)\b"
    r"|\b(?:the\s+)?(?:aws\s+|iam\s+)?api\s+(?:now\s+|still\s+)?(?:reports?|shows?|lists?|says|confirms?|records?|returns?)\b"
    r"|\bset\s+(?:to\s+)?[\"'`]?inactive\b"
)
# "whatever it did was in the graph": what the run did, placed in the graph alone.
_IN_GRAPH_ALONE = (
    r"\b(?:whatever|everything|all(?:\s+that)?|what)\s+(?:it|the\s+run|blastshield|we)\s+(?:did|changed|blocked|"
    r"applied)\s+(?:was|happened|stayed|is)\s+(?:only\s+|purely\s+|entirely\s+)?(?:in|on)\s+the\s+graph\b"
)
_KEY_ID = r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"
# "the key", "alice's key": a user's key, named without "access" (not "the key route", "the key point").
_THE_KEY = (
    r"\b(?:the|her|his|its|their|that|this|one|any|no|each|every|[\w-]+'s)\s+key\b(?![-\w'])"
    r"(?!\s+(?:block|blocks|route|routes|path|paths|risk|step|point|question|finding|fact|takeaway|issue|hop|node|part|"
    r"asset|entity|role|session|word|change|difference|control|controls|factor|concern|gap|lesson|signal|indicator|"
    r"metric|action|actions|evidence|term|terms|date|dates|player|players|stakeholder|stakeholders)\b)"
)
_ACCOUNT = re.compile(
    rf"{_KEYED}|{_REACHED}|{_KEY_ID}|{_IN_GRAPH_ALONE}|{_THE_KEY}|{_ISSUED}|{_ANSWERED}|\btokenissuetime\b|"
    r"\b(?:reads?|read)\s+back\s+(?:as\s+)?[\"'`]?(?:in)?active\b|"
    r"\b(?:in|on|within|inside|across)\s+(?:the\s+)?(?:(?:live|real|actual)\s+)?(?:aws|iam)\b"
    r"|\b(?:on|against)\s+(?:the|any|an|its|that|this|each|every)\s+(?:(?:aws|live|real|actual)\s+)?account\b|\baws[\s-]side\b|\bin\s+the\s+account\b"
    r"|\bgraph[\s-]only\b|\b(?:in|on)\s+the\s+graph\s+(?:only|alone)\b|\bonly\s+(?:\w+\s+){0,2}(?:in|on)\s+the\s+graph\b"
    r"|\baccess\s+keys?\b|\bdeny[\s-]all\b|\bconsole\s+(?:password|login)s?\b|\blogin\s+profile\b"
    r"|\blocked\s+out\b|\brevocation\s+policy\b|\bupdateaccesskey\b|\bputuserpolicy\b|\bputrolepolicy\b"
    r"|\b(?:aws|iam)\s+(?:credentials?|keys?|access\s+keys?|passwords?|logins?|sign-ins?)\b"
    r"|\b(?:aws|iam)\s+(?:now\s+|still\s+)?(?:reports?|shows?|lists?|says|confirms?|records?)\b"
    r"|\b(?:sign|log)\s*-?\s*in\s+(?:to|on)\s+(?:the\s+)?(?:aws|iam|console|aws\s+console)\b",
    re.I,
)
_GRAPH_ONLY = re.compile(
    r"\bgraph[\s-]only\b|\b(?:in|on)\s+the\s+graph\s+(?:only|alone)\b|\bonly\s+(?:\w+\s+){0,2}(?:in|on)\s+the\s+graph\b"
    r"|\bnothing\s+(?:was\s+|has\s+been\s+)?(?:changed|done|applied|sent|pushed|written)\s+(?:in|on|to)\s+(?:the\s+)?"
    r"(?:aws|(?:aws\s+)?account)\b"
    r"|\bthe\s+account\s+was\s+(?:not|never)\s+touched\b|\buntouched\b"
    rf"|{_IN_GRAPH_ALONE}",
    re.I,
)
_STILL_WORK = re.compile(
    r"\b(?:still|continue\s+to|keep|keeps)\s+(?:work|works|working|function|functions|valid|usable|active|live|enabled|"
    r"succeed|succeeds|succeeding|go\s+through|goes\s+through|get\s+through|pass|passes)\b"
    r"|\b(?:still|can\s+still)\s+(?:use|be\s+used|read|access|list|download|get\s+to)\b"
    r"|\b(?:remain|remains|remained|stay|stays|is\s+still|are\s+still)\s+(?:active|valid|usable|enabled|live)\b"
    r"|\bas\s+(?:active|enabled|valid)\b|\b(?:still|can)\s+(?:sign|log)\s*-?\s*in\b",
    re.I,
)
_STOP_WORK = re.compile(
    r"\b(?:no\s+longer|don't|do\s+not|doesn't|does\s+not|cannot|can't|can\s+no\s+longer)\s+(?:works?|functions?|use|be\s+used)\b"
    r"|\b(?:cannot|can't|can\s+no\s+longer|could\s+no\s+longer)\s+(?:read|access|list|download|get\s+to)\b"
    r"|\bstopped\s+working\b|\bare\s+(?:now\s+)?(?:dead|useless|unusable|invalid)\b"
    r"|\b(?:now\s+)?(?:fail|fails|failing|bounce|bounces)\b(?!\s+to\b)|\b(?:are|is)\s+(?:now\s+)?(?:rejected|refused|denied)\b"
    r"|\bas\s+(?:inactive|disabled|deactivated|revoked)\b"
    r"|\b(?:no\s+longer|cannot|can\s+no\s+longer|not)\s+(?:be\s+able\s+to\s+)?(?:sign|log)\s*-?\s*in\b",
    re.I,
)
_VERBS = (
    r"disabled|deactivated|inactivated|revoked|suspended|killed|turned\s+off|switched\s+off|shut\s+off|"
    r"made\s+inactive|set\s+to\s+inactive|invalidated|cut\s+off|blocked|locked|frozen|neutrali[sz]ed|terminated|"
    r"expired|rotated|removed|deleted|stopped|inactive|applied|enforced|attached|added|put\s+in\s+place|in\s+place|"
    r"denied|denies|deny(?![\s-]*all)|denying|blocks|stops|disable|deactivate|revoke|attach|apply|took\s+effect|takes\s+effect|taken\s+effect|sent|pushed|"
    r"in\s+effect|effective|went\s+through|made|done|changed|put|placed|written|wrote|created|confirm|set\s+inactive|touched|"
    r"reach|reached|reaches|hit|made\s+it|got\s+to|landed|verified|confirmed|confirms|re-?read|read\s+back|called|invoked|issued|"
    r"accepted|acknowledged|locks?\s+(?:[\w:.@'-]+\s+)?out"
)
_PRED = re.compile(rf"\b(?:{_VERBS})\b", re.I)
_KIND_WORDS = (
    (
        "revocation",
        re.compile(r"\btokenissuetime\b|\brevocation\s+policy\b|\b(?:role'?s?\s+)?sessions?\b|\btokens?\b", re.I),
    ),
    ("policy", re.compile(r"\bdeny[\s-]all\b|\bpolicy\b|\bdeny\b|\bputuserpolicy\b", re.I)),
    ("key", re.compile(r"\baccess\s+keys?\b|\bkeys?\b|\bupdateaccesskey\b|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b", re.I)),
    (
        "credential",
        re.compile(r"\bcredentials?\b|\bpasswords?\b|\blogins?\b|\blocked\s+out\b|\buser\b|\baccount\b", re.I),
    ),
)
_NEG = re.compile(
    r"\b(?:not|never|no|n't|neither|nor|without|yet\s+to|failed\s+to|fails\s+to|cannot|can't|isn't|aren't|wasn't|"
    r"weren't|hasn't|haven't|hadn't|didn't|doesn't|don't|won't|nothing|none|nobody)\b",
    re.I,
)
# A negated object right after the verb: "changed nothing", "disabled no key", "applied none of them".
_OBJECT_NEG = re.compile(r"^\s*(?:(?:at\s+all|in\s+the\s+end)\s+)?(?:nothing|none|no|zero)\b", re.I)
# "there" after a clause about the account: the account is its place too.
_THERE = re.compile(
    r"\bthere\b(?!\s+(?:is|are|was|were|remains?|exists?|has|have|had|will|would|could|might|seems?|appears?|"
    r"may|must|should)\b)|\bon\s+(?:it|that\s+side)\b|\bon\s+that\s+account\b",
    re.I,
)  # "there" as a place, not "there is"


_EXPLICIT = re.compile(
    rf"{_KEYED}|{_REACHED}|{_ANSWERED}|\b(?:updateaccesskey|putuserpolicy|putrolepolicy)\b|"
    r"\b(?:in|on|within|inside|across)\s+(?:the\s+)?(?:(?:live|real|actual)\s+)?(?:aws|iam)\b"
    r"|\b(?:on|against)\s+(?:the|any|an|its|that|this|each|every)\s+(?:(?:aws|live|real|actual)\s+)?account\b|\baws[\s-]side\b|\bin\s+the\s+account\b"
    r"|\b(?:aws|iam)\s+(?:credentials?|keys?|access\s+keys?|passwords?|logins?|sign-ins?)\b"
    r"|\b(?:aws|iam)\s+(?:now\s+|still\s+)?(?:reports?|shows?|lists?|says|confirms?|records?)\b"
    r"|\b(?:sign|log)\s*-?\s*in\s+(?:to|on)\s+(?:the\s+)?(?:aws|iam|console|aws\s+console)\b",
    re.I,
)
# Verbs that say what was done to a credential itself (not to a route of the graph).
_STRONG = re.compile(
    r"\b(?:disabled|deactivated|inactivated|inactive|revoked|suspended|rotated|deleted|locked|attached|"
    r"turned\s+off|switched\s+off|made\s+inactive|set\s+(?:to\s+)?inactive|invalidated|denies|now\s+denies|cut\s+off|"
    r"locks?\s+(?:[\w:.@'-]+\s+)?out|revoke|disable|deactivate|invalidate|"
    r"(?:put|placed|attached)\s+(?:[\w:-]+\s+){0,4}?on|(?:written|wrote)\s+(?:[\w:-]+\s+){0,4}?(?:for|to|on)|"
    r"added\s+(?:[\w:-]+\s+){0,4}?to)\b",
    re.I,
)


def mentions_account(clause: str) -> bool:
    return bool(_ACCOUNT.search(clause))


def on_account(clause: str) -> bool:
    """The clause names the account as its place ("on the account", "in AWS", "AWS: ...")."""
    return bool(_EXPLICIT.search(clause))


def kind_of(text: str) -> str:
    """What a text says changed on the account: revocation, policy, key, credential or any."""
    return _kind(text)


def _kind(clause: str) -> str:
    for kind, rx in _KIND_WORDS:
        found = [m.group(0).lower() for m in rx.finditer(clause)]
        if found and (kind != "credential" or set(found) != {"account"}):
            return kind  # "the account" alone names the place, not what changed there
    return "any"


_LIVE_WORDS = frozenset(["active", "enabled", "valid", "working", "live", "usable"])
_OFF_WORDS = frozenset(["inactive", "disabled", "deactivated", "revoked", "expired", "invalidated"])


def cell_status(kind: str, words: list[str]) -> bool | None:
    """Whether a status cell says the change is in effect, for a thing whose status is its own: a key, a
    credential or a session is "Active" when it was *not* disabled or revoked, "Inactive" when it was (a policy
    "active" is one in effect: None, the table's own reading). None for other words."""
    low = {w.lower() for w in words} - {"still", "now", "currently", "is", "are", "status"}
    if kind not in ("key", "credential", "revocation") or not low:
        return None
    negated = bool(low & {"not", "no", "never"})
    low -= {"not", "no", "never"}
    if low and low <= _LIVE_WORDS:
        return negated
    if low and low <= _OFF_WORDS:
        return not negated
    return None


_CONTAINED = re.compile(r"\b(?:contained|uncontained|remediated|neutrali[sz]ed|secured|locked\s+down|exposed)\b", re.I)


def _contained_there(clause: str, text: str) -> list[AccountClaim]:
    """ "Contained on the AWS account", "not contained in AWS": a verdict said of the account is a claim that a
    change is (or is not) in effect there; "exposed" there is the opposite verdict."""
    m = _CONTAINED.search(clause)
    if m is None or not _EXPLICIT.search(clause):
        return []
    negations = len(_NEG.findall(" ".join(clause[: m.start()].split()[-5:])))
    opposite = m.group(0).lower() in ("uncontained", "exposed")
    return [("any", (negations + opposite) % 2 == 0, text)]


_MODAL = re.compile(r"\b(?:would|should|might|may|must|ought)\b|\bcould\b(?!\s+not\b)", re.I)  # "could not": a fact


def _placed(clause: str, sentence: str) -> str | None:
    """The clause with the account as its place: as written when it names the account, with "there" read as
    "in AWS" when the sentence before it is about the account, else None."""
    if mentions_account(clause):
        return clause
    at = sentence.find(clause.strip()[:40]) if sentence and clause.strip() else -1
    if at > 0 and _THERE.search(clause) and _EXPLICIT.search(sentence[:at]):
        return _THERE.sub("in AWS", clause)
    if at > 0 and _EXPLICIT.search(sentence[:at]) and _CREDENTIAL_USE.search(clause):
        return clause  # "nothing was applied in AWS, and alice's credentials keep working": the same place
    working = _STILL_WORK.search(clause) or _STOP_WORK.search(clause)
    if at > 0 and _IT.match(clause) and working and mentions_account(sentence[:at]):
        return clause  # "the key was not deactivated; it is still active": "it" is what the clause before named
    if at > 0 and _PRONOUN.search(clause) and _STRONG.search(clause) and mentions_account(sentence[:at]):
        return clause  # "sessions got with the key keep working; nobody revoked them": what the clause before named
    return None


# An answer's opening word ("Yes,", "No,", "Me: not quite,"): it agrees or disagrees with a question or a quote
# (read by the question reader), and says nothing of what the clause after it claims.
_ANSWER = re.compile(
    r"^\W*(?:\w+:\s*)?(?:yes|no|nope|yeah|yep|correct|right|wrong|not\s+quite|not\s+really|exactly|indeed)\s*[,:;.!]\s+",
    re.I,
)
# A pronoun standing for what an earlier clause of the sentence named.
_PRONOUN = re.compile(r"\b(?:it|they|them|those|these)\b", re.I)


def _antecedent_kind(clause: str, sentence: str, before: str = "") -> str:
    """What a pronoun of the clause stands for: the kind of the nearest clause before it that names one, in the
    sentence or the one before it ("the key was not deactivated; it is still active": a key; "Were the sessions
    revoked? Yes, they were revoked on the account.": sessions), else "any"."""
    at = sentence.find(clause.strip()[:40]) if sentence and clause.strip() else -1
    if at < 0 or not _PRONOUN.search(clause):
        return "any"
    for part in reversed(re.split(r"[;,:?!](?=\s)|\.\s", f"{before} . {sentence[:at]}")):
        kind = _kind(part)
        if kind != "any":
            return kind
    return "any"


def _status(clause: str, kind: str, text: str) -> list[AccountClaim]:
    """A status the account reports of a key or a session ("it reads back Inactive", "shows as Active"): inactive or
    disabled is the change in effect, active or enabled is not; a negation before it turns it round."""
    m = _STATUS.search(clause)
    if m is None:
        return []
    negations = len(_NEG.findall(" ".join(clause[: m.start()].split()[-5:])))
    off = m.group(1).lower() in ("inactive", "disabled")
    return [(kind if kind != "any" else "key", off == (negations % 2 == 0), text)]


# A key or credential said to be held active, or to be active: it was not disabled.
_HOLDS_ACTIVE = re.compile(
    r"\b(?:holds?|has|have|keeps?|retains?|owns?)\s+(?:(?:an?|the|its|her|his|their|one|any|no)\s+)?"
    r"(?:(?:active|enabled|valid|working|usable|live)\s+)(?:[\w-]+\s+){0,2}?(?:access\s+)?(?:keys?|credentials?)\b"
    r"|\b(?:is|are)\s+(?:now\s+|currently\s+|not\s+|no\s+longer\s+)?(?:active|enabled)\b",
    re.I,
)
_IT = re.compile(r"^\W*(?:it|they)(?:'s|'re)?\b", re.I)
# Credentials or a key said to work or not: a fact of the account wherever the sentence placed it.
_CREDENTIAL_USE = re.compile(
    r"\b(?:credentials?|(?:access\s+)?keys?|passwords?|logins?)\b.*\b(?:work|works|working|function|functions|usable|"
    r"valid|dead|useless|unusable|invalid)\b",
    re.I,
)


def account_claims(clause: str, sentence: str = "", before: str = "") -> list[AccountClaim]:
    """The account claims of one clause (at most one), or none when it says nothing of the account.

    `sentence` is the whole sentence the clause is part of (where "there" finds its place), `before` the sentence
    before it (where a pronoun may find what it stands for)."""
    clause = _ANSWER.sub("", clause)  # "No, they were not revoked": the answer word is not the clause's negation
    placed = _placed(clause, sentence)
    if placed is None or _MODAL.search(clause):
        return []  # "would let BlastShield deactivate the key", "should deactivate it": a plan, not what was done
    text, clause = clause.strip(), placed
    kind = _kind(clause)
    if kind == "any":
        kind = _antecedent_kind(text, sentence, before)
    if _GRAPH_ONLY.search(clause):
        negated = bool(re.search(r"\b(?:not|never)\s+(?:only\s+)?(?:in|on)\s+the\s+graph\b", clause, re.I))
        whole = kind == "revocation" or (kind == "credential" and re.search(r"\bnothing\b", clause, re.I))
        return [("any" if whole else kind, negated, text)]
    status = _status(clause, kind, text)
    if status:
        return status
    if _STILL_WORK.search(clause):
        negated = bool(re.search(r"\b(?:no\s+longer|not|never)\s+(?:\w+\s+)?(?:still|remain|stay)", clause, re.I))
        return [(kind, negated, text)]
    if _STOP_WORK.search(clause):
        return [(kind, True, text)]
    held = _HOLDS_ACTIVE.search(clause) if kind in ("key", "credential") else None
    if held is not None:  # "alice still holds an active access key", "the key is active": not disabled
        negations = len(_NEG.findall(" ".join([*clause[: held.start()].split()[-5:], held.group(0)])))
        return [(kind, negations % 2 == 1, text)]
    m = _PRED.search(clause)
    if m is None:
        return _contained_there(clause, text)
    if not _EXPLICIT.search(clause) and (
        not _STRONG.search(clause) or re.search(r"\broutes?\b|\bgraph\b", clause, re.I)
    ):
        return []  # "the access-key route was blocked": a block in the graph, said as such
    m = _STRONG.search(clause) or m
    before = re.split(r":\s|;", clause[: m.start()])[-1]  # a negation before a colon is another claim's
    window = " ".join(before.split()[-7:])
    negations = len(_NEG.findall(window))
    if re.search(r"\bnot\s+(?:only|just)\b", window, re.I):
        negations -= 1
    if _OBJECT_NEG.match(clause[m.end() :]):
        negations += 1  # "the run changed nothing in AWS"
    word = m.group(0).lower()
    if word in ("applied", "apply", "enforced", "added", "in place", "put in place", "attached", "attach"):
        kind = kind if kind in ("policy", "revocation", "key") else "any"
    if word in ("changed", "change", "done", "made") and kind == "credential":
        kind = "any"  # "nothing was changed on the account": no change of any kind
    return [(kind, negations % 2 == 0, text)]


def _words(text: str) -> list[str]:
    return text.split()


# The words these readers account for (the checker's gate judges a clause only when it knows all its words).
WORDS = frozenset(
    _words(
        """
    aws iam account accounts key keys access credential credentials password login policy policies deny deny-all
    inline session sessions token tokens revocation deactivation deactivate deactivated disable disabled disabling
    inactive active applied apply verified put placed written wrote attached added created changed change nothing
    none nobody effect took takes went reached reach reaches hit made landed reports reported report shows listed
    lists says there itself work works worked working still longer locked out tokenissuetime requests request calls
    call signed sign fail fails failing succeed succeeds rejected refused back reading action whatever everything
    graph contained uncontained exposed confirmed confirms records api use taken sent pushed called invoked
    issued updateaccesskey putuserpolicy accepted acknowledged lock locks obtained previously already expire expire
    reads shows status enabled api apis used against
        """
    )
)
# The writer's own claim after a quotation opens with a connective that changes nothing it claims ("The user told
# us (quoted). Regardless, the route is blocked."), and an aside opens a line ("Heads up: ..."): known to the gate,
# as the account's words are.
QUOTATION_WORDS = frozenset(_words("regardless nevertheless nonetheless anyway heads fyi"))
WORDS = WORDS | QUOTATION_WORDS
