"""Whether the reading accounts for a whole clause: the checker's gate between a verdict and `unverified`.

The prose grammar reads a clause as subject x predicate x modifiers and ignores what it does not know.
That is where its verdicts went wrong on wording it had not met: a clause that used one unread word
("crosses", "holds a grant to", "insisted:", "hops away") was still judged, on the words it did read,
and the judgement was often wrong in both directions. So a clause is judged (contradicted or
confirmed) only when every word in it is one the checker accounts for:

- closed-class words (articles, pronouns, prepositions, auxiliaries, conjunctions) and markup;
- the grammar's own lexicon (`lexicon.py`: every inflection of the closing and exposing verbs, the
  state adjectives, the subject nouns, negations, modals, conditions, numbers) and the words the readers
  of account facts (`account.WORDS`) and of links between entities (`links.WORDS`: reach, via, grants,
  paths through an entity) read;
- ids, ARNs and names of entities (read as ids before this gate), numbers and tokens with digits, and the words
  of a clock or a calendar (`lexicon.CLOCK_WORDS`: "UTC", "pm", "December", "Mon");
- the words of `known_words.py`: the words of the measured sentences (the family corpus and the
  hand-written corpora) that the checker judged correctly, less those whose sentences it judged wrongly
  too often (`known_words.RELIABLE`, learned by `tests/helpers/briefing_crossval.py`).

A clause with any other word (a *stranger*) is `unverified`: its claims are neither flagged nor
passed as checked, and the dashboard shows it marked. The gate never makes a claim; it only withholds
a verdict, so it cannot add a false flag, and it cannot pass a false claim as checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from .account import WORDS as ACCOUNT_WORDS
from .lexicon import (
    CLOCK_WORDS,
    CLOSE_ADJECTIVES,
    CLOSE_FORMS,
    CLOSE_NOUNS,
    COMPLETION_WORDS,
    CONDITIONAL_WORDS,
    COPULAS,
    CREDENTIAL_NOUNS,
    EARLIER_WORDS,
    EXPOSE_ADJECTIVES,
    EXPOSE_FORMS,
    MODALS,
    NEGATIONS,
    PARTIAL_WORDS,
    PHRASAL_FORMS,
    RECOMMEND_FORMS,
    REL_VERBS,
    REVOKE_FORMS,
    RUN_DONE_FORMS,
    SUBJECT_NOUNS,
    ZERO_NOUNS,
)
from .links import WORDS as LINK_WORDS
from .measures import MEASURE_WORDS

__all__ = ["CLOSED_CLASS", "LEXICON", "PAIRS", "Vocabulary", "about_alert", "strangers", "units_of", "words_of"]

IdKind = Callable[[str], str | None]


def _w(text: str) -> list[str]:
    return text.split()


Vocabulary = frozenset[str]

CLOSED_CLASS = frozenset(
    _w(
        """
    a an the this that these those each every any all both either neither some no none its it their
    they them he she his her him we our us you your i my me one ones who whom whose which what where
    of in on at to from by for with without via through into onto over under between among after before
    during since than then as so and or but nor also too yet still just only even ever
    is are was were be been being am has have had having do does did done will would can could may
    might must shall should not never now here there
    """
    )
)
LEXICON: Vocabulary = (
    CLOCK_WORDS  # when a line was written ("09:07 UTC - ..."), never what it claims
    | CLOSE_ADJECTIVES
    | CLOSE_FORMS
    | CLOSE_NOUNS
    | COMPLETION_WORDS
    | CONDITIONAL_WORDS
    | COPULAS
    | CREDENTIAL_NOUNS
    | EARLIER_WORDS
    | EXPOSE_ADJECTIVES
    | EXPOSE_FORMS
    | MODALS
    | NEGATIONS
    | PARTIAL_WORDS
    | frozenset(PHRASAL_FORMS)
    | frozenset(w for particles in PHRASAL_FORMS.values() for p in particles for w in p.split())
    | RECOMMEND_FORMS
    | frozenset(w.lower() for w in REL_VERBS)
    | frozenset(["<id>", "<n>"])
    | REVOKE_FORMS
    | RUN_DONE_FORMS
    | SUBJECT_NOUNS
    | ZERO_NOUNS
    | ACCOUNT_WORDS  # the words the readers of account facts and of links between entities read
    | LINK_WORDS
    | MEASURE_WORDS
)

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@/'’-]*[A-Za-z0-9]|[A-Za-z0-9]|[:—–|()\"“”]")
_ID_CHARS = re.compile(r"[0-9_.:@/]|[a-z]-[a-z0-9]", re.I)
# An AWS access key id (IAM User Guide, "Understanding unique ID prefixes": AKIA long-term, ASIA
# temporary), an id whether or not its random part happens to hold a digit.
_ACCESS_KEY_ID = re.compile(r"(?:AKIA|ASIA)[A-Z0-9]{16}")
_NUMBER_WORDS = frozenset(
    _w(
        "zero one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty sixty "
        "seventy eighty ninety hundred"
    )
)
ID, NUMBER = "<id>", "<n>"  # what an id and a number count as
_MARKS = frozenset([":", "—", "–", "|", "(", ")", '"', "“", "”"])
# The words that change what the words around them claim: negations, quantifiers, numbers and the marks that
# set a value beside its subject. Their neighbours are checked as pairs.
STRUCTURE = (
    NEGATIONS
    | frozenset(_w("no none nor neither all every both either any some only each half most few"))
    | _MARKS
    | frozenset([NUMBER])
)


# The words that change what a clause claims: one of them in a clause about the alert that made no claim was
# not read, so the clause is `unverified` rather than shown as checked ("X is on none of the paths").
UNREAD_IF_LEFT = (STRUCTURE - _MARKS - frozenset([NUMBER])) | frozenset(_w("exactly none nothing nobody"))


def units_of(text: str, id_kind: IdKind | None = None, pairs: bool = False) -> list[str]:
    """The text's words in lower case (an id, ARN or hyphenated or digit-bearing token as `<id>`, a number as
    `<n>`, a colon, dash, bar, parenthesis or quote mark as itself), and with `pairs` each two neighbours too
    ("<id> holds", "holds no"): a pair says in which order the words were met."""
    words: list[str] = []
    for m in _TOKEN.finditer(text):
        token = m.group(0)
        low = token.lower().replace("’", "'")
        if low in _MARKS:
            words.append(low)
        elif low.isdigit() or low in _NUMBER_WORDS or re.fullmatch(r"\d+(?:\.\d+)?%?", low):
            words.append(NUMBER)
        elif (
            (id_kind is not None and id_kind(token) is not None)
            or _ID_CHARS.search(low)
            or _ACCESS_KEY_ID.fullmatch(token)
        ):
            words.append(ID)
        else:
            words += [p for p in re.split(r"'+", low) if len(p) > 1 or p in ("a", "i") or not p.isalpha()]
    if not pairs:
        return words
    return words + [f"{a} {b}" for a, b in pairwise(words) if a in STRUCTURE or b in STRUCTURE]


def words_of(text: str, id_kind: IdKind | None = None) -> list[str]:
    """The text's words (`units_of` without pairs)."""
    return units_of(text, id_kind)


def strangers(text: str, known: Vocabulary, id_kind: IdKind | None = None) -> list[str]:
    """The words (and, when the vocabulary holds pairs, the pairs) of the text the checker does not account
    for, in order; none: the text may be judged."""
    pairs = PAIRS in known
    return [u for u in units_of(text, id_kind, pairs) if u not in known and u not in (ID, NUMBER)]


PAIRS = "<pairs>"  # in a vocabulary: its pairs are checked too


def about_alert(clause: str, id_kind: IdKind) -> bool:
    """Whether a clause is about the alert: it names an entity, a number or one of the subjects a claim is about
    (paths, routes, access, keys...)."""
    words = units_of(clause, id_kind)
    return ID in words or NUMBER in words or any(w in SUBJECT_NOUNS for w in words)
