"""Reading a briefing's prose into claims: a small grammar over the lexicon.

A sentence is split into clauses and comma segments. Each clause is read as
subject classes x predicate classes x modifiers:

- predicates: closing (a verb of `lexicon.CLOSE_FORMS` in any form, a phrasal
  verb with its particle, a closed state, a closing noun with a completion word,
  "no/zero <path noun>") and exposure (`lexicon.EXPOSE_FORMS`, open states);
- polarity: a negation before the predicate flips it ("not contained" is a claim
  of exposure, "no longer reaches" one of containment);
- modifiers that make a clause no claim at all: a question, a condition, a
  modal, a recommendation or an imperative, an explicitly earlier time, a
  partial quantity; a depth bound turns the claim into one about that depth;
- scope: ids of routes, sessions, workloads or roles make the claim about them,
  asset ids about reaching that asset, otherwise it is about the whole exposure.

Relationship types are read in every notation (arrows with or without brackets,
`[:T]`, `(T)`, "via T", bare, lower-case, spaced or CamelCase), numbers in digits
and words, scores as points, fractions or percentages, severities as adjectives
or nouns. The checker (`checker.py`) decides which claims the evidence denies.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from ..graph.model import RelType
from .account import account_claims
from .clauses import (
    CAN_BE_CLOSED,
    NEGATED_BEFORE,
    RUN_NOT_COMPLETED,
    TRAILING_PLAN,
    WHAT_IF_UNREAD,
    affirmed,
    asserted_after_frame,
    change_to_now,
    concession_dropped,
    length_modifiers,
    opening_parts,
    polar_question,
    relatives,
    said_of_asset,
    window_start,
    without_subject_time,
)
from .lexicon import (
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
    PHRASAL_FORMS,
    RECOMMEND_FORMS,
    REL_VERBS,
    REVOKE_FORMS,
    RUN_DONE_FORMS,
    SUBJECT_NOUNS,
    ZERO_NOUNS,
    number_value,
)
from .links import has_vocabulary, link_claims
from .measures import measure_claims, read_spans
from .numbers import DEPTH_RE, PARTIAL_RE, elliptic_counts, number_claims, value_claims
from .structure import bare_verdict, emptiness, restructure


def _w(text: str) -> list[str]:
    return text.split()


__all__ = ["ProseClaim", "normalise_type", "read_prose"]

# An id's role in the evidence: "alert", "route", "node", "asset", "run" or None (not an id).
IdKind = Callable[[str], str | None]


@dataclass(frozen=True)
class ProseClaim:
    """One claim read from prose: what it asserts, about what, and the text that asserts it."""

    kind: str  # state | relationship | score | severity | path_count | asset_count | route_count | run_state
    value: object
    text: str
    clause: str
    scope: tuple[str, ...] = ()
    assets: tuple[str, ...] = ()
    depth: int | None = None
    qualifier: str = ""
    action: str = ""  # "revocation": a state claim made by saying a role's sessions were revoked
    sentence: str = ""  # the whole sentence the clause is part of (what the checker's gate reads)


_ID_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@/-]*[A-Za-z0-9]|[A-Za-z0-9]|'s|[,;]")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+|\n+")
_CLAUSE_RE = re.compile(
    r"(?<=;)\s+|\s+(?:but|however|although|though|whereas|while|because|since|thus|hence|therefore)\b,?\s*"
    r"|,\s+(?:and|which|so|as)\s+|\s+and\s+(?=(?:the|all|every|no|its|their|it|they|access|paths?|we|nothing)\b)"
    r"|\s+[—–]\s+|\s+-\s+|(?<=\w:)\s+(?=(?:it|they|it's|they're)\s)"  # "X wasn't touched: it is still active"
    r"|(?<=[a-z]{3}:)\s+(?=(?:the|every|both|its|their)\s)",  # "the run changed nothing: the same path is open"
    re.I,
)
_MARKUP_RE = re.compile(r"^[\s>#*+-]*(?:\d+[.)]\s+)?|[`*]{1,3}|(?<!\w)_{1,2}(?=\S)|(?<=\S)_{1,2}(?!\w)")
_DETERMINERS = frozenset(_w("a an the this that each every any its their minimal minimum one single"))
_NOUNISH_VERBS = frozenset(
    _w("cut block end stop lock break fix drop ban bar plug seal shut close kill halt strip cap")
)
_STATE_LEADS = COPULAS | frozenset(
    _w("fully completely totally entirely now all effectively already successfully finally and truly")
)
_STATE_ADVERBS = frozenset(_w("not no longer yet still never fully now completely entirely totally really truly"))
_RESULT_VERBS = frozenset(_w("made makes making rendered renders rendering left leaves leaving"))
_POSE_VERBS = frozenset(_w("pose poses posed posing present presents presented presenting represent represents"))
_RISK_NOUNS = frozenset(_w("risk risks danger dangers threat threats"))
_NOT_RISK_HEAD = frozenset(_w("score scores factor factors rating ratings level levels points rule rules model"))
_WHOLE_NOUNS = frozenset(_w("exposure exposures alert incident threat threats risk danger compromise breach"))
_ALL_WORDS = frozenset(_w("all every any last only remaining entire whole"))
_PAST_FORMS = frozenset(
    _w("cut shut broke broken took taken lost wound tore torn shot put brought undid undone led made left got kept")
)
_CONTAINERS = frozenset(_w("radius list set table graph evidence output briefing still also"))
_FINITE_PAST = frozenset(_w("did didn't has have had was were"))
_WHOLE_ACCESS = frozenset(_w("access reach path paths route routes exposure sessions"))
_PREPOSITIONS = frozenset(_w("by after via for of through from without before upon on in with"))
_CAN_OK = frozenset(
    _w(
        "read access assume reach get go move pivot hop travel use see touch escalate be become still no not "
        "also only then now directly again longer never both either in from through continue"
    )
)
_REL_PREFIX = r"(?:can|has|have|runs?|may|owns?|member|assumes?|reads?|writes?|admin|is)"
_REL_CAPS = re.compile(r"(?<![\w:/-])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w-])")
_REL_SNAKE = re.compile(rf"(?<![\w-]){_REL_PREFIX}_[a-z][a-z_]*(?![\w-])")
_REL_CAMEL = re.compile(
    r"(?<![\w-])(?:Can|Has|Runs|May|Owns|Member|Assumes|Reads|Writes)[ _-]?(?:[A-Z][a-z]+)+(?![\w-])"
)
_REL_ARROW = re.compile(r"(?<![\w.])(?:<-+|[-—–]+)\s*\[?\s*:?\s*([A-Za-z][A-Za-z0-9_ ]{0,40}?)\s*\]?\s*(?:-+>|→)")
_REL_BRACKET = re.compile(
    r"[\[(]\s*:\s*([A-Za-z][A-Za-z0-9_]*)\s*[\])]|[\[(]\s*([A-Za-z][A-Za-z0-9_]*_[A-Za-z0-9_]+)\s*[\])]"
)
_REL_VIA = re.compile(
    rf"\b(?:via|over|through|using|along)\s+(?:an?\s+|the\s+)?({_REL_PREFIX}[\s_-]+(?!as\b)[a-z]+|runs[\s_-]+as)\b",
    re.I,
)
_REL_NOUN = re.compile(
    rf"\b(?:the|an?)\s+`?({_REL_PREFIX}[\s_-]+[a-z]+)`?\s+(?:relationships?|edges?|links?|relations?)\b", re.I
)
_REL_SINGLE = re.compile(
    r"(?:(?<![\w.])[-—–]+\s*\[?:?|[\[(]\s*:?)\s*([A-Za-z]+)\s*(?:\]?\s*-+>|[\])])"
    r"|\b(?:via|over|through|using)\s+(?:an?\s+|the\s+)?([A-Za-z]+)\b"
    r"|\b([A-Z][a-z]+|[A-Z]{3,}|[a-z]+)\s+(?:relationships?|edges?|links?|relations?)\b"
    r"|(?<![\w-])([A-Z]{3,})(?![\w-])"
)
_VALUE_NOUNS = frozenset(_w("score scores rating ratings severity priority points"))
_CAN_REACH = frozenset(_w("can still also could cannot will and longer"))
_GET_FORMS = frozenset(_w("get gets getting"))
_PAST_EXPOSE = frozenset(_w("remained existed led reached persisted stayed"))
_PAST_AUX = frozenset(["was", "were", "had"])
_POSSESSED = (ZERO_NOUNS - frozenset(_w("risk risks danger dangers threat threats"))) | frozenset(
    _w("route routes foothold footholds")
)
_MODEL_TYPES = frozenset(t.value for t in RelType)
_COMMON_VERBS = frozenset(_w("has have runs reads holds grants controls manages writes accesses assumes"))
_CAN_VERB = re.compile(r"\bcan\s+([a-z]+)\s+(?:to\s+|from\s+|into\s+)?([A-Za-z0-9][\w.:@-]*[A-Za-z0-9])")
_EARLIER_RE = re.compile(
    r"\b(?:at\s+the\s+(?:start|outset|beginning)|at\s+first|used\s+to|had\s+been|had\s+(?:\w+ed|cut|shut)|ago|"
    r"before\s+the|prior\s+to)\b",
    re.I,
)
_IDIOMS = re.compile(
    r"\b(?:(?:exposure|access|(?:remaining\s+|qualifying\s+|access\s+)?paths?)\s*:\s*(?:none|nil|zero|0|no)\b|under\s+control|in\s+the\s+clear|(?:taken|took|takes|taking)\s+care\s+of|dealt\s+with|a\s+thing\s+of\s+the\s+past|all\s+clear|"
    r"nothing\s+(?:\w+\s+)?(?:remains?|is\s+left|left|reaches|can\s+reach|leads|exists)|"
    r"(?:out\s+of|beyond)\s+(?:\w+\s+)?reach|out\s+of\s+(?:danger|harm'?s?\s+way|the\s+woods)|risk[\s-]free|"
    r"coast\s+is\s+clear|nothing\s+to\s+worry\s+about|off[\s-]limits|poses?\s+no\s+(?:further\s+|more\s+|remaining\s+)?(?:risk|threat|danger)|"
    r"(?:no\s+longer|not)\s+(?:a|an)\s+(?:threat|risk|concern|issue|problem|danger))\b",
    re.I,
)
# What a run does when it ends ("the run stopped after one action"): not a claim that paths closed.
_RUN_END_VERBS = frozenset(
    _w("stop stops stopped halt halts halted end ends ended finish finishes finished terminate terminated concluded")
)
_RUN_END_NEXT = _PREPOSITIONS | frozenset(
    _w("at when once because as and early there here since so ; , stopped completed failed graph_only interrupted")
)  # "the run ended `stopped`": the run's end, with its state
_VERDICT_NOUNS = frozenset(_w("verdict state status outcome result"))
_NONE_WORDS = frozenset(_w("no none nothing zero"))
_SCORING = frozenset(_w("adds add added earns earned gives gave contributes contributed scores scored points"))
_RUN_DONE_BASE = frozenset(_w("complete succeed"))
_GIVEN_RE = re.compile(
    r"\s*(?:even\s+)?with\s+[^,;]{1,80}?\s+(?:already\s+|now\s+|still\s+)?(?:blocked|closed|cut|severed|revoked|"
    r"disabled|in\s+place)\s*,",
    re.I,
)
_PRESENT_RE = re.compile(
    r"\s*(?:(?:but|and|yet)\s+)?(?:for\s+now|right\s+now|as\s+of\s+now|for\s+the\s+moment|at\s+the\s+moment|"
    r"at\s+present|currently|today)\b",
    re.I,
)
_RUN_SHORT_RE = re.compile(r"\brun\s+(?:has\s+)?(stopped|failed|ended)\s+(?:short\s+of|without|before)\b", re.I)
_RUN_STATE_RE = re.compile(
    r"(?:\b(?:state|status|verdict|outcome|result)\s+of\s+(?:the\s+)?(?:containment\s+)?run\s*(?:is|was|:|=|—|–)?|"
    r"\brun(?:'s)?\s+(?:(?:state|status|verdict|outcome|result)\s*(?:is|was|:|=|—|–|-)?|"
    r"(?:has\s+)?(?:ended|finished|closed|terminated|concluded|ends|finishes)\s+(?:as|in(?:\s+(?:the\s+)?state)?|with\s+"
    r"(?:the\s+)?(?:state|verdict|status))))\s*(?:now\s+)?[\"“`*]*(completed|stopped|failed|interrupted|abandoned)\b",
    re.I,
)


_CLOSE_BASE = frozenset(f for f in CLOSE_FORMS if not f.endswith(("s", "ed", "ing")) or f in ("close", "cut", "shut"))


def normalise_type(raw: str) -> str:
    """A relationship type as the model spells it: CamelCase, spaced, dashed or lower-case to UPPER_SNAKE."""
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", raw.strip(" `:[]()"))
    return re.sub(r"[\s_-]+", "_", text).upper()


@dataclass
class _Tok:
    word: str  # lower case, or the id as written
    start: int
    kind: str | None  # id kind, or None for a word
    compound: bool = False  # a part of a hyphenated word that another part follows ("over" in "over-privileged")


def _tokens(segment: str, id_kind: IdKind) -> list[_Tok]:
    out: list[_Tok] = []
    for m in _ID_TOKEN.finditer(segment):
        raw = m.group(0)
        kind = id_kind(raw)
        if kind is not None:
            out.append(_Tok(raw, m.start(), kind))
            continue
        offset = m.start()
        parts = re.split(r"([-/])", raw)
        for k, part in enumerate(parts):
            if part and part not in "-/":
                out.append(_Tok(part.lower(), offset, None, k + 2 < len(parts) and parts[k + 1] == "-"))
            offset += len(part)
    return out


class _Reader:
    def __init__(
        self,
        id_kind: IdKind,
        route_words: dict[str, str],
        allowed: set[str],
        unread: Callable[[str, str], bool] | None,
    ):
        self.id_kind = id_kind
        self.unread = unread  # a clause about the alert in a sentence the reading does not account for
        self.current = self.previous = ""  # the sentence being read
        self.route_words = route_words  # id -> its words ("route-c11-primary" -> "c11 primary")
        self.allowed = allowed
        self.claims: list[ProseClaim] = []
        self.polar = False  # the sentence is a yes/no question: it states no value
        self.affirmed = False  # ... answered yes by the next sentence: it states what it asks

    def add(self, kind: str, value: object, text: str, clause: str, **extra: object) -> None:
        extra.setdefault("sentence", self.current[:600])
        self.claims.append(ProseClaim(kind, value, text.strip()[:160], clause.strip()[:300], **extra))  # type: ignore[arg-type]

    # -- sentences ---------------------------------------------------------------------------
    def sentence(self, raw: str, after: str = "") -> None:
        sentence = _MARKUP_RE.sub("", raw).strip()
        if not sentence:
            return
        self.previous, self.current = self.current, sentence  # the one before: where a pronoun's referent may be
        self.relationships(sentence)
        question = "?" in sentence
        self.polar = polar_question(sentence) and not affirmed(after)  # "Is it rated critical? Yes.": it is
        self.affirmed = polar_question(sentence) and not self.polar  # "Did E3-multiple-paths fire? Yes."
        if not self.polar:
            sentence, own = relatives(concession_dropped(sentence), lambda w: self.id_kind(w) is not None)
            self.current = concession_dropped(self.current)
            for clause in own:
                self.clause(clause, False)
        first = sentence.split(None, 1)[0].lower().strip(",") if sentence.split() else ""
        conditional = first in CONDITIONAL_WORDS or first == "(todo)"  # an unchecked item: what is still to do
        start = len(self.claims)
        parts = [sentence] if conditional else opening_parts(sentence)
        for clause in (c for part in parts for c in _CLAUSE_RE.split(part)):
            if clause and clause.strip():
                if _PRESENT_RE.match(clause):
                    conditional = False  # "If X reappears we will act; for now one path is open": a present claim
                self.clause(clause, conditional, question)
                if clause.rstrip().endswith(";"):
                    conditional = False  # a condition does not reach past a semicolon
        if len(self.claims) == start and WHAT_IF_UNREAD.search(sentence) and has_vocabulary(sentence):
            self.add("unverified", None, sentence, sentence)  # a what-if the evidence decides, and no reader read it

    def relationships(self, s: str) -> None:
        found: list[tuple[str, str]] = []
        for m in _REL_ARROW.finditer(s):
            found.append((m.group(1), m.group(0)))
        for m in _REL_BRACKET.finditer(s):
            found.append((m.group(1) or m.group(2), m.group(0)))
        for rx in (_REL_VIA, _REL_NOUN):
            for m in rx.finditer(s):
                found.append((m.group(1), m.group(0)))
        for rx in (_REL_CAPS, _REL_SNAKE, _REL_CAMEL):
            for m in rx.finditer(s):
                if m.group(0) not in self.allowed and self.id_kind(m.group(0)) is None:
                    found.append((m.group(0), m.group(0)))
        for m in _REL_SINGLE.finditer(s):
            word = next(g for g in m.groups() if g)
            common = m.group(3) == word and word.islower() and word in _COMMON_VERBS
            following = re.match(r"[\s_-]+([A-Za-z]+)", s[m.end() :])
            if following and normalise_type(f"{word}_{following.group(1)}") in _MODEL_TYPES:
                continue  # "via runs as": the first word of a two-word type
            if word.lower() in REL_VERBS and not common:
                found.append((word, m.group(0)))
        for m in _CAN_VERB.finditer(s):
            # "X can read Y" between graph entities; "you can mark BH-1042 contained" acts on the alert, no relationship
            if m.group(1).lower() not in _CAN_OK | CLOSE_FORMS and self.id_kind(m.group(2)) not in (None, "alert"):
                found.append((f"CAN_{m.group(1)}", m.group(0)))
        for raw, text in found:
            if (
                raw.strip()
                and not raw.isdigit()
                and self.id_kind(raw.strip()) is None
                and raw.strip() not in self.allowed
            ):
                self.add("relationship", normalise_type(raw), text, s)

    def _verb_assuming(self, clause: str) -> set[str]:
        """{"assuming"} when every "assuming" follows an entity ("no open path has A assuming B"): the step of
        assuming a role, not a condition ("assuming the block holds, ...")."""
        before = [m.group(1) for m in re.finditer(r"([\w:/.@-]+)\s+assuming\b", clause, re.I)]
        total = len(re.findall(r"\bassuming\b", clause, re.I))
        if total and len(before) == total and all(self.id_kind(w) not in (None, "alert") for w in before):
            return {"assuming"}
        return set()

    # -- clauses -------------------------------------------------------------------------
    def clause(self, clause: str, conditional: bool, question: bool = False) -> None:
        clause = bare_verdict(clause) or clause  # "...; not contained.": a verdict about the alert
        plan = TRAILING_PLAN.search(clause)
        if plan and plan.start() > 0:  # "five paths still open, need to double-check": a claim, then a plan
            self.clause(clause[: plan.start()], conditional, question)
            self.clause(clause[plan.start() + 1 :], conditional, question)
            return
        asserted = asserted_after_frame(clause)
        if asserted is not None:  # "It is worth noting that R carries one path": R carrying it is claimed
            self.clause(asserted, conditional, question)
            return
        low = clause.lower()
        words = set(re.findall(r"[a-z']+", low))
        hypothetical = conditional or bool(words & CONDITIONAL_WORDS - self._verb_assuming(clause))
        recommended = bool(words & RECOMMEND_FORMS) or re.search(r"\b(?:in\s+order\s+to|so\s+as\s+to|let's)\b", low)
        timed = without_subject_time(clause)  # "the paths found at the outset are still open": a present claim
        timed_words = set(re.findall(r"[a-z']+", timed.lower()))
        earlier = (bool(timed_words & EARLIER_WORDS) or bool(_EARLIER_RE.search(timed))) and not change_to_now(clause)
        partial = bool(PARTIAL_RE.search(clause))
        m = DEPTH_RE.search(clause)
        depth = number_value(m.group(1)) if m and re.search(r"depth|hop", m.group(0), re.I) else None
        if depth is not None and depth >= 6:
            depth = None
        purpose = bool(re.match(r"\s*(?:in\s+order\s+)?to\s+(\w+)", clause, re.I)) and (
            re.match(r"\s*(?:in\s+order\s+)?to\s+(\w+)", clause, re.I).group(1).lower() in _CLOSE_BASE  # type: ignore[union-attr]
        )
        checking = bool(re.search(r"\bto\s+(?:confirm|verify|ensure|check|make\s+sure|see|validate|test)\b", low))
        first_word = re.match(r"\s*(\w+)", clause)
        imperative_clause = bool(first_word) and first_word.group(1).lower() in _CLOSE_BASE  # type: ignore[union-attr]
        possible = not hypothetical and bool(CAN_BE_CLOSED.search(clause))  # "none can be cut": what could be done
        quiet = hypothetical or recommended or earlier or purpose or checking or imperative_clause or possible
        before = len(self.claims)
        measured = [] if question and not self.affirmed else measure_claims(clause, self.id_kind)
        if any(kind in ("what_if", "start_compared") for kind, *_ in measured):  # decidable from the evidence: whole
            for kind, value, text, between in measured:
                self.add(kind, value, text, clause, scope=between)
            return
        for kind, value, text, between in measured:  # the paths at the run's start are history, and read as such
            if not quiet or (kind == "start_count" and not (hypothetical or recommended or purpose or checking)):
                self.add(kind, value, text, clause, scope=between)
        if not quiet and not (question and self.polar):
            self.numbers(clause)  # "Is it rated critical?" asks; "why is the score 90?" presumes the score
        account = [] if quiet or question else account_claims(clause, self.current, self.previous)
        for kind, done, text in account:
            self.add("account", done, text, clause, qualifier=kind)
        either = bool(re.search(r"\beither\b[^.;]*\bor\b|\b(?:one|any|at\s+least\s+one)\s+of\b", clause, re.I))
        links = [] if quiet or question else link_claims(clause, self.id_kind, self.current)
        run_stated = bool(_RUN_STATE_RE.search(clause) or _RUN_SHORT_RE.search(clause))  # the run's state alone
        for kind, value, text, between in links:
            self.add(kind, value, text, clause, scope=between)
        segments = [s for s in re.split(r",\s*", clause) if s.strip()]
        given = _GIVEN_RE.match(clause)  # "With R already blocked, two paths remain": R is the setting, not the subject
        rest = clause[given.end() :] if given else clause
        clause_scope = self.scope(_tokens(rest, self.id_kind), rest)
        for n, segment in enumerate(segments):
            toks = _tokens(segment, self.id_kind)
            if not toks:
                continue
            scope = self.scope(toks, segment) if any(t.kind or t.word in ("route", "session") for t in toks) else None
            local, assets = scope if scope is not None and (scope[0] or scope[1]) else clause_scope
            imperative = toks[0].kind is None and toks[0].word in _CLOSE_BASE
            gerund_subject = toks[0].kind is None and toks[0].word.endswith("ing") and self._closing_at(toks, 0)
            own_ids = any(t.kind in ("route", "node", "asset") for t in toks)
            if (gerund_subject or not own_ids) and self._whole(toks):
                local, assets = [], []  # "..., ending the exposure": the whole alert, whatever else is named
            found = self.states(toks, segment, gerund_subject and n == 0, gerund_subject and n > 0)
            for state, text, past, marker in found:
                if quiet or imperative or question or account or links or run_stated:
                    continue
                existence = marker == "existence"  # "carries no path": what it carries, not its status
                action = "" if existence else marker
                if state == "contained" and partial and not local and not assets and not action:
                    continue
                if state == "exposed" and past:
                    continue  # past exposure is not remaining exposure
                self.add(
                    "state",
                    state,
                    text,
                    clause,
                    scope=tuple(local),
                    assets=tuple(assets),
                    depth=depth,
                    action=action,
                    qualifier="existence" if existence else "any" if either and len(local) > 1 else "",
                )
            if not (quiet or question):
                for text, completed in self.run_done(toks, segment):
                    self.add("run_state", "completed" if completed else "not_completed", text, clause)
        hedged = bool(words & (MODALS - {"can"}))  # "would count as contained": readable, and no claim
        if possible or (
            not (quiet or question or hedged)
            and len(self.claims) == before
            and "(quoted)" not in clause  # "The owner said (quoted)": someone else's words, not the briefing's
            and (has_vocabulary(clause) or (self.unread is not None and self.unread(clause, self.current)))
        ):
            self.add("unverified", None, clause, clause)

    @staticmethod
    def _whole(toks: list[_Tok]) -> bool:
        """Whether a segment is about the alert's whole exposure: "the exposure", "every path", "X's access"."""
        for i, t in enumerate(toks):
            ahead = [x.word for x in toks[i + 1 : i + 3]]
            if t.kind == "alert" and ahead[:1] == ["'s"] and ahead[1:] and ahead[1] in _WHOLE_ACCESS:
                return True
            after_preposition = i > 0 and toks[i - 1].word in _PREPOSITIONS
            whole = t.kind is None and (
                (t.word in _WHOLE_NOUNS and not after_preposition)
                or (t.word in _ALL_WORDS and any(x in _WHOLE_ACCESS for x in ahead))
            )
            if not whole:
                continue
            rest = toks[i + 1 : i + 6]
            tied = any(x.word in _PREPOSITIONS | {"to"} for x in rest[:3]) and any(
                x.kind in ("route", "node", "asset") for x in rest
            )
            if not tied:
                return True
        return False

    def scope(self, toks: list[_Tok], segment: str) -> tuple[list[str], list[str]]:
        local = [t.word for t in toks if t.kind == "route"] or [t.word for t in toks if t.kind == "node"]
        assets = [t.word for t in toks if t.kind == "asset"]
        for i, t in enumerate(toks):
            if t.kind is None and t.word in ("route", "routes", "session", "sessions") and i > 0:
                adjectives = []
                j = i - 1
                while j >= 0 and toks[j].kind is None and toks[j].word not in _DETERMINERS and j >= i - 3:
                    adjectives.append(toks[j].word)
                    j -= 1
                prefix = "route" if t.word.startswith("route") else "sess"
                matches = [
                    rid
                    for rid, words in self.route_words.items()
                    if rid.startswith(prefix) and adjectives and all(a in words.split() for a in adjectives)
                ]
                if matches:
                    shortest = min(len(self.route_words[r].split()) for r in matches)
                    local += [r for r in matches if len(self.route_words[r].split()) == shortest]
        return local, assets

    @staticmethod
    def _run_subject(toks: list[_Tok], i: int, named: bool = False) -> bool:
        """Whether the word at `i` says what the containment run did ("the run has stopped", "RUN-ID ended")."""
        j = i - 1
        while j >= 0 and toks[j].kind is None and toks[j].word in _STATE_ADVERBS | COPULAS | _FINITE_PAST:
            j -= 1
        by = next((k for k in range(j, max(0, j - 5), -1) if toks[k].word in ("for", "on", "of", "against")), None)
        if named and by is not None and toks[by - 1].word == "run":
            j = by - 1  # "the run for BH-1042 did not end with ...": the run named by its alert
        return j >= 0 and (toks[j].kind == "run" or (toks[j].kind is None and toks[j].word == "run"))

    def run_done(self, toks: list[_Tok], segment: str) -> list[tuple[str, bool]]:
        """ "The run completed" / "did not complete": the run's state (only a fresh "no qualifying path" completes
        a run), as (text, completed)."""
        out = []
        for i, t in enumerate(toks):
            if t.kind is None and t.word in RUN_DONE_FORMS | _RUN_DONE_BASE and self._run_subject(toks, i):
                window = [x.word for x in toks[max(0, i - 4) : i]]
                negated = sum(x in NEGATIONS for x in window) % 2 == 1
                if t.word in _RUN_DONE_BASE and not negated and not any(x in _FINITE_PAST for x in window):
                    continue  # "the run will complete": not a statement of its state
                out.append((segment[toks[max(0, i - 3)].start : t.start + len(t.word)], not negated))
        return out

    def _predicate_at(self, toks: list[_Tok], i: int) -> bool:
        w = toks[i].word
        return toks[i].kind is None and (self._closing_at(toks, i) or w in EXPOSE_FORMS or w in EXPOSE_ADJECTIVES)

    def _closing_at(self, toks: list[_Tok], i: int) -> bool:
        w = toks[i].word
        if toks[i].kind is not None:
            return False
        particles = PHRASAL_FORMS.get(w)
        if w in ("end", "ends", "ending", "ended") and toks[i + 1 : i + 2] and toks[i + 1].word in ("at", "in", "on"):
            return False  # "a chain ending at the vault": where a path ends, not an end to the exposure
        if w in CLOSE_FORMS or (particles and any(t.word in particles for t in toks[i + 1 : i + 4])):
            return True
        # a closed state ("is over", "fully safe") needs a copula or an adverb before it
        if w not in CLOSE_ADJECTIVES or toks[i].compound:
            return False
        if i > 0 and toks[i - 1].word in _STATE_LEADS:
            return True
        j = i - 1
        while j >= 0 and i - j <= 3 and toks[j].word in _STATE_ADVERBS:
            j -= 1  # "is not safe", "is no longer secure", "is still not safe"
        if j >= 0 and toks[j].word in COPULAS:
            return True
        # "made the ledger unreachable", "left the vault safe"
        return any(t.word in _RESULT_VERBS for t in toks[max(0, i - 4) : i])

    def states(
        self, toks: list[_Tok], segment: str, gerund: bool = False, participle: bool = False
    ) -> list[tuple[str, str, bool, str]]:
        """(contained|exposed, text, past, action) for each containment or exposure predicate in a segment.

        `gerund`: the segment opens with a gerund action ("Blocking X ended the exposure"): only a finished
        result is a claim, not a present-tense effect ("Blocking X cuts the path"). `participle`: the segment
        is a result clause after a comma ("..., ending the exposure"), so its opening -ing verb is the claim.
        """
        words = [t.word for t in toks]
        has_subject = any(
            t.kind in ("alert", "route", "node", "asset") or t.word in SUBJECT_NOUNS or t.word in CLOSE_NOUNS
            for t in toks
        )
        out: list[tuple[str, str, bool, str]] = []
        consumed: set[int] = set()
        spent: set[int] = set()  # negations that belong to an earlier predicate ("cuts no path")
        about_sessions = any(w in CREDENTIAL_NOUNS for w in words) and not any(t.kind == "route" for t in toks)
        # "no / zero <path noun>", "nothing remains": an existence claim of containment.
        hedged = [i for i, w in enumerate(words) if w in MODALS - {"can"}]  # "would count as contained ... no path"
        # "between 0 and 3 paths", "from zero to two paths": the low end of a range, neither emptiness nor negation
        low = {
            k
            for k in range(1, len(words))
            if words[k] in ("0", "zero")
            and words[k - 1] in ("between", "from")
            and {"and", "to"} & set(words[k + 1 : k + 3])
        }
        lengths = length_modifiers(words)  # "not a single path of four hops or fewer remains": one noun phrase
        for i, w in enumerate(words):
            share = words[i + 1 : i + 2] == ["of"] or i in low  # "cut zero of the three paths": a share, not emptiness
            acted = (  # "the revocation cuts no path": what an action did not close, not that none is open
                i > 0
                and (words[i - 1] == "cut" or (words[i - 1] in CLOSE_FORMS and words[i - 1].endswith("s")))
                and words[i - 1] not in ("contains", "stops")
                and not segment[toks[i - 1].start + len(toks[i - 1].word) : toks[i].start].strip()
            )
            if (
                toks[i].kind is None
                and w in ("no", "zero", "0")
                and not share
                and not acted
                and not any(h < i for h in hedged)
            ):
                for j in range(i + 1, min(i + 5, len(words))):
                    if toks[j].kind is not None:
                        break
                    if words[j] in ZERO_NOUNS:
                        if words[j] in _RISK_NOUNS and words[j + 1 : j + 2] and words[j + 1] in _NOT_RISK_HEAD:
                            break  # "no risk score"
                        if {"shorter", "longer"} & set(words[j + 1 : j + 5]):
                            break  # "no open path is shorter than five hops": a length, not emptiness
                        # "no path is blocked": the predicate that follows carries the claim, "no" negates it
                        if not any(self._predicate_at(toks, k) for k in range(j + 1, min(j + 8, len(toks)))):
                            end = toks[min(j + 3, len(toks) - 1)]
                            out.append(
                                ("contained", segment[toks[i].start : end.start + len(end.word)], False, "existence")
                            )
                            consumed.update(range(i, j + 3))
                        break
                    if words[j] == "longer" and j == i + 1 and words[j + 1 : j + 2] != ["any"]:
                        break
        m = _IDIOMS.search(segment)
        if m:  # "we are not out of the woods yet": the idiom negated is exposure
            negated = NEGATED_BEFORE.search(segment[: m.start()]) and not m.group(0).lower().startswith("not")
            out.append(("exposed" if negated else "contained", m.group(0), False, ""))
            consumed.update(i for i, t in enumerate(toks) if m.start() <= t.start < m.end())
        for i, t in enumerate(toks):
            if i in consumed or t.kind is not None:
                continue
            w = t.word
            closing = self._closing_at(toks, i)
            if closing and i > 0 and w in _NOUNISH_VERBS and (words[i - 1] in _DETERMINERS | SUBJECT_NOUNS):
                continue  # "a cut", "the block", "a route block": nouns
            ends_at = words[i + 1 : i + 2] in (["at"], ["in"], ["on"]) and i + 2 < len(toks) and toks[i + 2].kind
            if closing and w in ("end", "ends", "ended") and ends_at:
                continue  # "one of its paths ends at customer-pii": where a path leads, not an end to it
            acting = (i == 0 and not participle) or (i > 0 and words[i - 1] in _PREPOSITIONS)
            if closing and w.endswith("ing") and acting:
                continue  # "by blocking X": the action, not a state
            if (
                closing
                and (w.endswith("ed") or w in _PAST_FORMS)
                and i + 1 < len(words)
                and words[i + 1] in SUBJECT_NOUNS
                and (i == 0 or words[i - 1] in _DETERMINERS | _PREPOSITIONS | {"no", "zero", "of", "both", "all"})
            ):
                continue  # "the list of blocked routes": an attribute, not a predicate
            if closing and any(x in _VALUE_NOUNS for x in words[max(0, i - 3) : i]):
                continue  # "the risk score dropped from 60 to 45": a value that fell, not a path that closed
            if closing and w in ("contains", "contain") and i > 0 and words[i - 1] in _CONTAINERS:
                continue  # "the blast radius contains data assets": holds, not contains an exposure
            if (
                closing
                and words[i + 1 : i + 2]
                and words[i + 1] in _NONE_WORDS
                and not segment[t.start + len(t.word) : toks[i + 1].start].strip()
            ):
                spent.add(i + 1)
                continue  # "the revocation cuts no path": says what an action did not close, not a state
            if (
                closing
                and w in _RUN_END_VERBS
                and self._run_subject(toks, i, named=i + 1 < len(toks))
                and (i + 1 == len(toks) or words[i + 1] in _RUN_END_NEXT or re.match(r"\S+\s*\(", segment[t.start :]))
            ):
                continue  # "the run stopped after one action": the run's end, not the exposure's
            if closing and i > 0 and words[i - 1] in _RUN_END_VERBS and self._run_subject(toks, i - 1, named=True):
                continue  # "the run ended `stopped`": the state it ended in
            if (
                closing
                and w in _RUN_END_VERBS
                and words[i + 1 : i + 2] == ["with"]
                and {"path", "paths"} & set(words[i + 2 : i + 6])
            ):
                continue  # "it stopped with three paths still open": how the run ended, with the paths it left
            if not closing and w == "passed" and i > 0 and words[i - 1] in ("has", "have"):
                closing = True  # "the danger has passed"
            if closing and i > 0 and words[i - 1] == "to" and w in _CLOSE_BASE:
                continue  # "to block X": a purpose
            if not closing and w in COMPLETION_WORDS:
                closing = any(x in CLOSE_NOUNS for x in words)  # "containment is complete", "achieved isolation"
            if closing and words[max(0, i - 3) : i - 1] == ["with", "the"] and words[i - 1] in _VERDICT_NOUNS:
                continue  # "did not end with the verdict `completed`": the run's recorded verdict (the run reader's)
            exposing = not closing and (w in EXPOSE_ADJECTIVES or w in EXPOSE_FORMS)
            if not closing and w in ("has", "have", "holds", "hold", "keeps", "retains", "still"):
                # "has a working path", "has access to": possession of a path is exposure (not "has no path")
                ahead = words[i + 1 : i + 4]
                noun = next((k for k, x in enumerate(ahead) if x in _POSSESSED), None)
                stop = NEGATIONS | CLOSE_FORMS | PHRASAL_FORMS.keys() | {"0", "zero"}  # "has no path", "has lost"
                exposing = noun is not None and not any(x in stop for x in ahead[:noun])
            if not closing and w in _POSE_VERBS and any(x in _RISK_NOUNS for x in words[i + 1 : i + 4]):
                exposing = True  # "poses a risk", "no longer presents any danger"
                if any(x in ("no", "zero") for x in words[i + 1 : i + 3]):
                    closing, exposing = True, False  # "presents no danger"
            elif (
                not closing
                and i > 0
                and (w, words[i - 1])
                in (
                    ("risk", "at"),
                    ("reach", "within"),
                    ("reach", "in"),
                    ("danger", "in"),
                )
            ):
                exposing = True  # "at risk", "within reach", "in danger"
            elif not closing and w in _GET_FORMS and words[i + 1 : i + 2] in (["to"], ["into"]):
                exposing = i > 0 and words[i - 1] in _CAN_REACH  # "can still get to X": reach
            elif exposing and w in ("access", "reach", "read", "lead", "assume"):
                exposing = i > 0 and words[i - 1] in _CAN_REACH
            if (
                exposing
                and w in EXPOSE_ADJECTIVES
                and 0 < i < len(words) - 1
                and words[i - 1] in ("a", "an", "the")
                and words[i + 1].isdigit()
            ):
                exposing = False  # "out of a possible 100": an attribute of a number
            if exposing and w in EXPOSE_ADJECTIVES and i + 1 < len(words) and words[i + 1] in SUBJECT_NOUNS:
                exposing = False  # "the live paths": an attribute, not a predicate
            if (
                exposing
                and i > 1
                and words[i - 1] == "can"
                and words[i - 2] in ("via", "through", "over", "using", "the")
            ):
                exposing = False  # "through can assume": a relationship type written in words
            if not (closing or exposing) or not has_subject:
                continue
            if exposing and i == 0 and w.endswith("ing") and _SCORING & set(words[i + 1 :]):
                continue  # "Reaching a critical asset adds no points": what a scoring rule counts, not a state
            reach = window_start(i, lengths)
            window = words[reach:i]
            if any(reach <= k < i for k in low):
                continue  # "between 0 and 3 paths remain": a range that holds none or some (its bounds are judged)
            modal = [x for x in window[-4:] if x in MODALS]
            can_no_longer = bool(modal) and modal[-1] == "can" and any(x in ("no", "not", "never") for x in window)
            if modal and (closing or modal[-1] != "can") and not can_no_longer:
                continue
            if "cannot" in window[-4:] and closing:
                continue
            if (
                gerund
                and i > 0
                and not (
                    w.endswith("ed") or w in _PAST_FORMS or any(x in _FINITE_PAST | _PAST_FORMS for x in window[-4:])
                )
            ):
                continue  # "Blocking X cuts the path": the effect of an action, not a claim that it happened
            yet_to = any(a == "yet" and b == "to" for a, b in pairwise(window))  # "has yet to be"
            negations = sum(
                1 for k in range(reach, i) if k not in spent | low and (words[k] in NEGATIONS or words[k] == "0")
            )
            negated = (negations + yet_to) % 2 == 1
            partly = any(x in ("partially", "partly") for x in window)
            state = "contained" if closing != (negated or partly) else "exposed"
            left = i > 0 and words[i - 1] in ("left", "kept")  # "was left open": a state that holds now
            past = exposing and not left and (w in _PAST_EXPOSE or any(x in _PAST_AUX for x in window[-3:]))
            revoking = w in REVOKE_FORMS or (w in COMPLETION_WORDS and "revocation" in words)
            action = "revocation" if closing and revoking and about_sessions else ""
            out.append((state, segment[toks[max(0, i - 4)].start : t.start + len(t.word) + 8], past, action))
        return out

    # -- numbers ---------------------------------------------------------------------------
    def numbers(self, clause: str) -> None:
        for kind, empty, text, qualifier in emptiness(clause):
            self.add(kind, empty, text, clause, qualifier=qualifier)
        if re.search(r"\bin\s+the\s+blast\s+radius\b", clause, re.I) and not re.search(
            r"\b(?:not|never|no\s+longer|nothing|none)\b", clause, re.I
        ):
            members = tuple(t.word for t in _tokens(clause, self.id_kind) if t.kind in ("asset", "node", "alert"))
            if members:
                self.add("blast_member", True, clause, clause, scope=members)
        for kind, figure, text in number_claims(clause):
            self.add(kind, figure, text, clause)
        for m in _RUN_STATE_RE.finditer(clause):  # "Run state: stopped", "the run's verdict is completed"
            self.add("run_state", m.group(1).lower(), m.group(0), clause)
        for m in RUN_NOT_COMPLETED.finditer(clause):  # "the run for X did not end with the verdict `completed`"
            self.add("run_state", "not_completed", m.group(0), clause)
        for m in _RUN_SHORT_RE.finditer(clause):  # "the run stopped short of containment": not completed
            self.add("run_state", "not_completed", m.group(0), clause)
        shares = [
            (at, at + len(text))
            for kind, _, text in number_claims(clause)
            if kind.startswith("path_") and (at := clause.find(text)) >= 0
        ]
        for kind, value, text in elliptic_counts(clause, self.current):
            self.add(kind, value, text, clause)
        for kind, value, text, qualifier in value_claims(clause, read_spans(clause, self.id_kind) + shares):
            asset = said_of_asset(clause, text, lambda w: self.id_kind(w) == "asset") if kind == "severity" else None
            if asset is not None:  # "customer-db is classified critical": the asset's sensitivity, not the alert's
                if asset:
                    self.add("sensitivity", (asset, value), text, clause, scope=(asset,))
                continue
            self.add(kind, value, text, clause, qualifier=qualifier)


def read_prose(
    text: str,
    id_kind: IdKind,
    route_words: dict[str, str],
    allowed: set[str],
    unread: Callable[[str, str], bool] | None = None,
) -> list[ProseClaim]:
    """Every claim the prose makes, in order; a clause that makes none is `unverified` when it speaks of state
    or action, or when `unread` says it is about the alert in words the reading does not account for."""
    reader = _Reader(id_kind, route_words, allowed, unread)
    found = sentences(text)
    for k, sentence in enumerate(found):
        reader.sentence(sentence, found[k + 1] if k + 1 < len(found) else "")
    return reader.claims


def sentences(text: str) -> list[str]:
    """The sentences the grammar reads, tables and headings restructured, markup stripped."""
    out = []
    for line in restructure(text).splitlines():
        for raw in _SENTENCE_RE.split(_MARKUP_RE.sub("", line)):
            sentence = _MARKUP_RE.sub("", raw).strip()
            if sentence:
                out.append(sentence)
    return out
