"""The briefing checker's lexicon: word classes with their inflections, and number words.

The prose grammar (`prose.py`) reads a clause as subject classes x predicate
classes x modifiers. This module holds the words of each class, as lemmas with
the rules that inflect them, so that a new phrasing of a known verb ("have been
shut down", "is being torn down", "walled off") is recognised without being
listed as a whole phrase.
"""

from __future__ import annotations

import re


def _w(text: str) -> list[str]:
    """Words of a lexicon entry, written as one string."""
    return text.split()


__all__ = [
    "CLOCK_WORDS",
    "CLOSE_ADJECTIVES",
    "CLOSE_FORMS",
    "CLOSE_NOUNS",
    "COMPLETION_WORDS",
    "CONDITIONAL_WORDS",
    "COPULAS",
    "CREDENTIAL_NOUNS",
    "EARLIER_WORDS",
    "EXPOSE_ADJECTIVES",
    "EXPOSE_FORMS",
    "MODALS",
    "NEGATIONS",
    "PARTIAL_WORDS",
    "PHRASAL_FORMS",
    "RECOMMEND_FORMS",
    "REL_VERBS",
    "REVOKE_FORMS",
    "RUN_DONE_FORMS",
    "SUBJECT_NOUNS",
    "ZERO_NOUNS",
    "inflect",
    "number_value",
]

# Irregular verbs: lemma -> (third person, past, past participle, gerund).
_IRREGULAR = {
    "cut": ("cuts", "cut", "cut", "cutting"),
    "shut": ("shuts", "shut", "shut", "shutting"),
    "break": ("breaks", "broke", "broken", "breaking"),
    "take": ("takes", "took", "taken", "taking"),
    "withdraw": ("withdraws", "withdrew", "withdrawn", "withdrawing"),
    "lose": ("loses", "lost", "lost", "losing"),
    "wind": ("winds", "wound", "wound", "winding"),
    "tear": ("tears", "tore", "torn", "tearing"),
    "shoot": ("shoots", "shot", "shot", "shooting"),
    "put": ("puts", "put", "put", "putting"),
    "bring": ("brings", "brought", "brought", "bringing"),
    "knock": ("knocks", "knocked", "knocked", "knocking"),
    "undo": ("undoes", "undid", "undone", "undoing"),
    "lead": ("leads", "led", "led", "leading"),
    "stay": ("stays", "stayed", "stayed", "staying"),
    "read": ("reads", "read", "read", "reading"),
    "get": ("gets", "got", "gotten", "getting"),
    "win": ("wins", "won", "won", "winning"),
}
_DOUBLE = {"stop", "plug", "ban", "bar", "drop", "strip", "trim", "clip", "nip", "scrap", "cap", "wrap", "quell"}


def inflect(lemma: str) -> set[str]:
    """A verb's forms: base, -s, past, past participle and -ing (regular rules plus a few irregulars)."""
    if lemma in _IRREGULAR:
        return {lemma, *_IRREGULAR[lemma]}
    if lemma.endswith("ise"):
        return inflect(lemma[:-3] + "ize") | _regular(lemma)
    return _regular(lemma)


def _regular(lemma: str) -> set[str]:
    if lemma in _DOUBLE:
        stem = lemma + lemma[-1]
        return {lemma, lemma + "s", stem + "ed", stem + "ing"}
    if lemma.endswith("e"):
        return {lemma, lemma + "s", lemma + "d", lemma[:-1] + "ing"}
    if re.search(r"[^aeiou]y$", lemma):
        return {lemma, lemma[:-1] + "ies", lemma[:-1] + "ied", lemma + "ing"}
    if re.search(r"(?:s|sh|ch|x|z)$", lemma):
        return {lemma, lemma + "es", lemma + "ed", lemma + "ing"}
    return {lemma, lemma + "s", lemma + "ed", lemma + "ing"}


# Verbs that close, remove, end or neutralise something on their own.
_CLOSE_VERBS = _w("rotate lose pull yank retract rescind void sunset expunge") + _w(
    "block close cut sever shut remove revoke disable terminate kill end eliminate neutralise mitigate "
    "remediate contain isolate quarantine lock seal stop halt resolve fix deny break disconnect "
    "deactivate suspend invalidate plug ban bar drop strip cancel expire retire decommission dismantle "
    "eradicate purge nullify defuse disarm squash quell sinkhole blackhole firewall neutralize delete "
    "destroy erase deprovision unassign detach unlink unbind offboard lockout choke starve thwart foil "
    "stem curb secure"
)
# Verbs that close only with one of their particles ("take down", "wipe out", "wrap up").
_PHRASAL = {
    "take": {"down", "out", "offline", "away"},
    "wipe": {"out"},
    "stamp": {"out"},
    "root": {"out"},
    "tear": {"down"},
    "wind": {"down"},
    "kick": {"out", "off"},
    "boot": {"out", "off"},
    "phase": {"out"},
    "wrap": {"up"},
    "clean": {"up"},
    "switch": {"off"},
    "turn": {"off"},
    "shoot": {"down"},
    "knock": {"out"},
    "rule": {"out"},
    "pull": {"plug"},
    "button": {"up"},
    "batten": {"down"},
    "close": {"off", "out", "down", "up"},
    "shut": {"off", "down", "out"},
    "cut": {"off", "out"},
    "lock": {"down", "out", "up"},
    "seal": {"off", "up"},
    "wall": {"off"},
    "fence": {"off"},
    "block": {"off", "out"},
    "put": {"end", "stop", "halt"},
    "bring": {"end", "halt"},
    "undo": {"access", "exposure", "grant", "grants"},
}
CLOSE_FORMS: frozenset[str] = frozenset(f for v in _CLOSE_VERBS for f in inflect(v))
PHRASAL_FORMS: dict[str, frozenset[str]] = {
    f: frozenset(particles) for lemma, particles in _PHRASAL.items() for f in inflect(lemma)
}
# States that describe something closed (beyond the participles above).
CLOSE_ADJECTIVES = frozenset(
    _w(
        "contained safe secure over gone done finished resolved inactive dead offline unreachable "
        "inaccessible harmless clean fixed handled history moot void defunct dormant neutral closed shut "
        "severed blocked defused eliminated sealed isolated walled fenced unusable invalid null protected "
        "shielded unexposed secured benign negligible"
    )
)
# Nouns of closing: a claim only together with a completion word ("containment is complete").
CLOSE_NOUNS = frozenset(
    _w(
        "containment closure removal revocation remediation mitigation neutralisation neutralization "
        "isolation shutdown cutoff lockdown termination elimination quarantine resolution disablement "
        "eradication blocking severance decommissioning teardown takedown lockout fix"
    )
)
COMPLETION_WORDS = frozenset(
    _w(
        "complete completed done achieved finished successful succeeded effective confirmed verified full "
        "total accomplished reached attained secured final concluded"
    )
)
# States that describe something still open.
EXPOSE_ADJECTIVES = frozenset(
    _w(
        "exposed uncontained open reachable accessible active live vulnerable unmitigated unresolved ongoing "
        "unblocked unprotected possible viable usable functional exploitable valid unsafe insecure unsecured "
        "endangered enabled"
    )
)
_EXPOSE_VERBS = _w(
    "remain persist exist reach access lead survive linger stay continue read assume retain keep work function "
    "endanger threaten imperil jeopardise"
)
EXPOSE_FORMS: frozenset[str] = frozenset(f for v in _EXPOSE_VERBS for f in inflect(v))
COPULAS = frozenset(
    _w(
        "is are was were be been being am 's remains remain remained stays stay stayed become becomes became "
        "seems seem appears appear looks look gets get got now"
    )
)
# Things whose closing is the alert's containment (together with entity ids and pronouns).
SUBJECT_NOUNS = frozenset(
    _w(
        "access path paths route routes session sessions credential credentials exposure exposures threat "
        "threats alert alerts incident incidents risk risks attack attacks chain chains entity account "
        "accounts identity workload role roles asset assets data vault database db everything all it they "
        "them this that connection connections link links reach reachability foothold pivot pivots escalation "
        "avenue avenues way ways vector vectors channel channels door doors hole holes gap gaps issue problem "
        "danger compromise breach attacker intruder user contractor developer key keys token tokens login "
        "logins entry status permission permissions grant grants policy policies privilege privileges right "
        "rights situation environment system systems tier gateway ledger infrastructure estate nothing none we "
        "verdict outcome assessment conclusion"
    )
)
# Nouns that "no ..." / "zero ..." quantify into a claim of containment.
ZERO_NOUNS = frozenset(
    _w(
        "path paths access exposure exposures way ways avenue avenues chain chains connection connections reach "
        "risk risks danger dangers threat threats"
    )
)
# A role session revocation (the action that stops a role's issued sessions and cuts no path):
# a revoke verb about one of these nouns is a claim that the action was applied, not that paths closed.
REVOKE_FORMS = frozenset(_w("revoke revokes revoked revoking"))
CREDENTIAL_NOUNS = frozenset(_w("session sessions credential credentials token tokens"))
# "The run completed": the containment run's state, which only a fresh "no qualifying path" reaches.
RUN_DONE_FORMS = frozenset(_w("completed succeeded"))
NEGATIONS = frozenset(
    _w(
        "not never no none nor neither without cannot can't isn't aren't wasn't weren't hasn't haven't hadn't "
        "doesn't don't didn't won't wouldn't nothing zero nobody failed fails fail"
    )
)
MODALS = frozenset(_w("would could might may should must can shall ought"))
CONDITIONAL_WORDS = frozenset(
    _w("if unless until once whether provided assuming suppose supposing when whenever till lest")
)
RECOMMEND_FORMS: frozenset[str] = frozenset(
    f
    for v in _w("recommend suggest advise propose consider urge plan intend need require want aim prepare")
    for f in inflect(v)
) | frozenset(
    _w(
        "recommendation recommendations suggestion proposal option options candidate candidates next todo "
        "pending please advisable worth action-item blockable"
    )
)
# Words that say when a line was written, never what it claims: a clock's zone and half of the day, the months
# and the days of the week ("09:07 UTC - route-x blocked", "Mon 5 Dec, 10:25 CET"). Relative times ("yesterday",
# "ago") are not among them: they move a claim into the past.
CLOCK_WORDS = frozenset(
    _w(
        "utc gmt z cet cest pst pdt est edt cst cdt bst ist jst aest am pm a.m p.m "
        "january february march april june july august september october november december "
        "jan feb apr jun jul aug sep sept oct nov dec "
        "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri"
    )
)
EARLIER_WORDS = frozenset(
    _w("before previously initially originally earlier formerly prior beforehand once-upon at-first outset")
)
PARTIAL_WORDS = frozenset(_w("partially partly partial some half part one another single either"))

_UNITS = {
    "zero": 0,
    "none": 0,
    "one": 1,
    "single": 1,
    "two": 2,
    "pair": 2,
    "couple": 2,
    "both": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}


def number_value(words: str) -> int | None:
    """The value of a number written in digits or words ("3", "three", "sixty-five", "a pair of", "both")."""
    text = re.sub(r"[\s-]+", " ", words.strip().lower())
    text = re.sub(r"^(?:a|an|the)\s+", "", text).removesuffix(" of")
    if text.isdigit():
        return int(text)
    if text in ("hundred", "one hundred"):
        return 100
    if text in _UNITS:
        return _UNITS[text]
    parts = text.split()
    if parts and parts[0] in _TENS and len(parts) <= 2:
        rest = _UNITS.get(parts[1], -1) if len(parts) == 2 else 0
        if 0 <= rest < 10:
            return _TENS[parts[0]] + rest
    return None


# Verbs a model writes as relationship type names ("OWNS", "Trusts", "via manages").
REL_VERBS = frozenset(
    f
    for v in _w(
        "own trust manage administer control write delete modify execute invoke hold grant delegate "
        "impersonate read access assume run have belong inherit attach"
    )
    for f in inflect(v)
    if f.endswith("s")
)
