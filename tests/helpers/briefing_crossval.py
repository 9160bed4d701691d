"""The checker's gate learned from measured sentences, and its leave-one-set-out cross-validation.

The gate (`blastshield_core/brief/coverage.py`) judges a clause only when every word in it is one the
checker accounts for. Part of that vocabulary is learned (`known_words.py`): the words of sentences the
grammar judged correctly (`LEARNED`), less the words whose sentences it judged wrongly too often
(`UNRELIABLE`). Learning reads the grammar's verdicts without the gate.

Every part of the family corpus (the tuning part and each held-out set) has been seen, so a figure on
any of them with a vocabulary learned from it is fitted. The estimate is leave-one-set-out: the
vocabulary is learned from the other parts (and the hand-written corpora, which belong to no part), the
left-out part is measured with it, and the parts' figures are summed. The grammar itself was changed
after each of the first four held-out sets, so on those parts only the gate is cross-validated; the
fifth set was never changed for.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from blastshield_core.brief import coverage
from blastshield_core.brief.checker import CheckOutcome, EvidenceSummary, read_sentences
from blastshield_core.brief.coverage import CLOSED_CLASS, LEXICON, Vocabulary, units_of
from blastshield_core.interfaces.walkthrough import SAMPLE_BRIEFINGS
from tests.helpers.briefing_corpus import generate as generate_round1
from tests.helpers.briefing_corpus import generate_round3
from tests.helpers.briefing_families import Score, Sentence, score
from tests.helpers.briefing_handwritten import CASES, PARAPHRASES
from tests.helpers.briefing_regression import EXPOSED_AFTER_RUN, PLANTED, RUN_SENTENCES, TRUTHFUL

__all__ = ["Learned", "Setting", "cross_validate", "earlier_rounds", "learn", "module_text", "verdicts"]

# The learning's settings, chosen by cross-validation (docs/briefings.md, "Fifth round").
MIN_FAMILIES = 1  # a word is learned when sentences of at least this many families hold it
MAX_ERROR = 1.0  # and unreliable when more than this share of the judged sentences holding it were wrong (never)
MIN_WRONG = 2  # (and at least this many were)
PAIRS = False  # off: the neighbours of negations, quantifiers, numbers and marks learned (and checked) as pairs


@dataclass(frozen=True)
class Setting:
    min_families: int = MIN_FAMILIES
    max_error: float = MAX_ERROR
    min_wrong: int = MIN_WRONG
    pairs: bool = PAIRS


@dataclass(frozen=True)
class Learned:
    learned: Vocabulary
    unreliable: Vocabulary
    pairs: bool = False

    @property
    def vocabulary(self) -> Vocabulary:
        return CLOSED_CLASS | ((LEXICON | self.learned) - self.unreliable) | ({coverage.PAIRS} if self.pairs else set())


# One measured sentence for learning: (family, text, right) where right is None when it was unverified.
Item = tuple[str, str, bool | None]


def verdicts(
    sentences: Iterable[Sentence],
    check: Callable[[Sentence], CheckOutcome],
    read: Callable[[Sentence], list[str]],
) -> list[Item]:
    """Each sentence as the grammar reads it, with whether the checker judged it rightly (None: it did not)."""
    out: list[Item] = []
    for s in sentences:
        outcome = check(s)
        text = "\n".join(read(s))
        if outcome.flags:
            out.append((s.family, text, not s.truthful))
        elif outcome.unverified:
            out.append((s.family, text, None))
        else:
            out.append((s.family, text, s.truthful))
    return out


def learn(items: Iterable[Item], setting: Setting = Setting()) -> Learned:
    """The words judged rightly in enough families, and the words judged wrongly too often."""
    families: dict[str, set[str]] = defaultdict(set)
    right: dict[str, int] = defaultdict(int)
    wrong: dict[str, int] = defaultdict(int)
    for family, text, ok in items:
        for word in {u for line in text.splitlines() for u in units_of(line, pairs=setting.pairs)}:
            if ok is None:
                continue
            if ok:
                families[word].add(family)
                right[word] += 1
            else:
                wrong[word] += 1
    learned = frozenset(w for w, f in families.items() if len(f) >= setting.min_families)
    unreliable = frozenset(
        w
        for w, n in wrong.items()
        if n >= setting.min_wrong and n / (n + right[w]) > setting.max_error and w not in CLOSED_CLASS
    )
    return Learned(learned, unreliable, setting.pairs)


def cross_validate(
    parts: Mapping[str, list[Sentence]],
    fixed: list[Item],
    ungated: Mapping[str, list[Item]],
    check: Callable[[Sentence, Vocabulary], CheckOutcome],
    setting: Setting = Setting(),
) -> dict[str, Score]:
    """Leave one part out: learn from the other parts' ungated verdicts (and `fixed`), measure the part left out.

    Returns each part's score and their sum under "all"."""
    out: dict[str, Score] = {}
    total = Score()
    for name, sentences in parts.items():
        training = [*fixed, *(item for other, items in ungated.items() if other != name for item in items)]
        vocabulary = learn(training, setting).vocabulary
        part = score(sentences, lambda s, v=vocabulary: check(s, v))  # type: ignore[misc]
        out[name] = part
        total = total + part
    out["all"] = total
    return out


def earlier_rounds(
    evidence: Mapping[tuple[str, str], EvidenceSummary],
    others: Mapping[str, list[str]],
    check: Callable[[str, EvidenceSummary], CheckOutcome],
) -> list[Item]:
    """The earlier rounds' corpora, judged without the gate, as the grammar reads them: the generated ones
    (tests/helpers/briefing_corpus.py) and the hand-written sentences (tests/helpers/briefing_handwritten.py,
    tests/helpers/briefing_regression.py), kept as regression tests."""
    out: list[Item] = []

    def read(text: str, ev: EvidenceSummary) -> str:
        return "\n".join(read_sentences(text, ev))

    for s in [*generate_round1(dict(evidence), dict(others)), *generate_round3(dict(evidence))]:
        ev = evidence[(s.alert, s.state)]
        outcome = check(s.text, ev)
        right = None if outcome.unverified and not outcome.flags else bool(outcome.flags) != s.truthful
        out.append((f"round-{s.kind}", read(s.text, ev), right))
    for category, alert, state, text, kinds in CASES:
        got = {f.kind for f in check(text, evidence[(alert, state)]).flags}
        out.append(
            (f"hand-{category}", read(text, evidence[(alert, state)]), bool(got & set(kinds)) if kinds else not got)
        )
    for alert, state, text, kind in PARAPHRASES:
        got = {f.kind for f in check(text, evidence[(alert, state)]).flags}
        out.append(("hand-paraphrase", read(text, evidence[(alert, state)]), kind in got if kind else not got))
    # the product tests' sentences and the walkthrough's sample briefings (their own tests hold the verdicts;
    # here only their words are learned)
    product = [(alert, "exposed", b if isinstance(b, str) else b.prose) for alert, b in TRUTHFUL]
    product += [(alert, "exposed", b if isinstance(b, str) else b.prose) for alert, b, _ in PLANTED]
    product += [(alert, "after-run", text) for alert, text, _ in RUN_SENTENCES]
    product += [("BH-CONTAINMENT-4001", "after-run", text) for text in EXPOSED_AFTER_RUN]
    product += [("BH-CONTAINMENT-4001", "exposed", sample.text) for sample in SAMPLE_BRIEFINGS]
    for alert, state, text in product:
        out.append(("hand-product", read(text, evidence[(alert, state)]), True))
    return out


def _block(entries: Vocabulary) -> str:
    lines, line = [], ""
    for entry in sorted(entries):
        if len(line) + len(entry) + 2 > 100:
            lines.append(line.rstrip())
            line = ""
        line += entry + ", "
    return "\n".join([*lines, line.rstrip()])


def module_text(learned: Learned) -> str:
    """blastshield_core/brief/known_words.py for a learned vocabulary."""
    pairs = " | frozenset([PAIRS])" if learned.pairs else ""
    return f'''"""The words the briefing checker accounts for, learned from its measured sentences (see `coverage.py`).

Generated by tests/integration/brief/test_briefing_families.py (`UPDATE_BRIEFING_FIGURES=1`) with
tests/helpers/briefing_crossval.py: `LEARNED` are the words (and the pairs around negations, quantifiers,
numbers and marks) of the sentences of the family corpus and the earlier rounds' corpora that the grammar
judged correctly; `UNRELIABLE` the words whose sentences it judged wrongly too often. Do not edit by hand.
"""

from __future__ import annotations

from .coverage import CLOSED_CLASS, LEXICON, {"PAIRS, " if learned.pairs else ""}Vocabulary

__all__ = ["LEARNED", "UNRELIABLE", "VOCABULARY"]


def _entries(text: str) -> Vocabulary:
    return frozenset(e.strip() for e in text.replace(",\\n", ", ").split(", ") if e.strip())


LEARNED: Vocabulary = _entries(
    """
{_block(learned.learned)}
"""
)
UNRELIABLE: Vocabulary = _entries(
    """
{_block(learned.unreliable)}
"""
)
VOCABULARY: Vocabulary = CLOSED_CLASS | ((LEXICON | LEARNED) - UNRELIABLE){pairs}
'''
