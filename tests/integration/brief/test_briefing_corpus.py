"""The briefing checker measured on a labelled, combinatorially generated corpus (tests/helpers/briefing_corpus.py)."""

from __future__ import annotations

import time
import uuid
from collections import Counter

import pytest

from blastshield_core.brief.checker import EvidenceSummary, FlagKind, check_text
from blastshield_core.graph.seeds import seed
from blastshield_core.graph.store import Store
from blastshield_core.interfaces.service import build_services
from blastshield_core.read.tools import ReadTools
from blastshield_core.respond.decide import RulesDecider
from tests.helpers.briefing_corpus import (
    KINDS,
    ROUND3_KINDS,
    generate,
    generate_round3,
    measure,
    measure_round3,
    split,
)
from tests.helpers.briefing_handwritten import CASES as ROUND3_CASES
from tests.helpers.briefing_handwritten import PARAPHRASES

ALERTS = ("BH-1042", "BH-IAM-2001", "BH-WORKLOAD-3001", "BH-CONTAINMENT-4001")
STRICT_KINDS = ("containment", "relationship")


def build_evidence(view: Store) -> tuple[dict[tuple[str, str], EvidenceSummary], dict[str, list[str]], ReadTools]:
    """Seed a graph, gather every alert's evidence, run the rules decider on each, gather it again."""
    seed(view)
    services = build_services(view, view.settings.model_copy(update={"gemini_api_key": None}))
    evidence: dict[tuple[str, str], EvidenceSummary] = {}
    for alert in ALERTS:
        evidence[(alert, "exposed")] = services.briefer.evidence(alert)
    for alert in ALERTS:
        run = services.controller.run(alert, RulesDecider(), 3, True)
        evidence[(alert, "after-run")] = services.briefer.evidence(alert, run.run_id)
    others = {alert: [evidence[(o, "exposed")].assets[0] for o in ALERTS if o != alert] for alert in ALERTS}
    return evidence, others, services.tools


@pytest.fixture(scope="module")
def corpus_case(embedded_store):
    """Evidence once per scenario and state, the corpus and its fixed-seed split."""
    view = embedded_store.for_graph(f"corpus_{uuid.uuid4().hex[:8]}")
    evidence, others, tools = build_evidence(view)
    corpus = generate(evidence, others)
    yield evidence, tools, corpus, split(corpus)
    for name in (view.settings.graph, view.settings.audit_graph):
        if view.graph_exists(name):
            view.command("GRAPH.DELETE", name)


def _scores(corpus_case, half: int):
    evidence, tools, _, halves = corpus_case
    return measure(halves[half], lambda s: check_text(s.text, evidence[(s.alert, s.state)], tools))


def test_corpus_is_large_balanced_and_covers_both_states(corpus_case):
    """At least 600 sentences, half truthful, every kind on both sides, both states of all four scenarios."""
    _, _, corpus, (dev, held) = corpus_case
    assert len(corpus) >= 600 and sum(s.truthful for s in corpus) * 2 == len(corpus)
    assert {(s.alert, s.state) for s in corpus} == {(a, st) for a in ALERTS for st in ("exposed", "after-run")}
    assert {(s.kind, s.truthful) for s in corpus} == {(k, t) for k in KINDS for t in (True, False)}
    assert len(held) >= 200 and len(dev) >= 300 and not {s.text for s in held} <= {s.text for s in dev}


def test_after_run_states_include_contained_scenarios(corpus_case):
    """The rules run contains the two route-based scenarios, so the mirror rule is measured too."""
    evidence, *_ = corpus_case
    states = Counter(ev.containment_state for (alert, st), ev in evidence.items() if st == "after-run")
    assert states["contained"] == 2 and states["exposed"] == 2


@pytest.mark.parametrize("half", [0, 1], ids=["development", "held-out"])
def test_corpus_meets_the_targets(corpus_case, half):
    """Recall 100% on false containment and invented types, >= 98% elsewhere; false flags <= 1%."""
    scores, misses = _scores(corpus_case, half)
    shown = "\n".join(f"{s.kind} truthful={s.truthful}: {s.text} -> {[f.kind.value for f in f_]}" for s, f_ in misses)
    for kind in KINDS:
        target = 1.0 if kind in STRICT_KINDS else 0.98
        assert scores[kind].recall >= target, f"{kind}: recall {scores[kind].recall:.3f}\n{shown}"
    assert scores["all"].false_flag_rate <= 0.01, shown


@pytest.mark.parametrize("case", PARAPHRASES, ids=lambda c: c[2][:50])
def test_hand_written_paraphrase(corpus_case, case):
    """A paraphrase outside the generator: false ones get their flag, truthful ones none."""
    evidence, tools, *_ = corpus_case
    alert, state, text, kind = case
    flags = check_text(text, evidence[(alert, state)], tools)
    if kind is None:
        assert flags == []
    else:
        assert kind in {f.kind for f in flags}


def test_long_briefing_is_checked_in_bounded_time(corpus_case):
    """A briefing at the 20,000-character limit, repetitive on purpose, is checked in well under 5 s of this
    process's CPU time (not wall time: other processes on a loaded machine do not count; a reading that grew
    with the square of the text would take minutes)."""
    evidence, tools, *_ = corpus_case
    started = time.process_time()
    flags = check_text(("no path " * 3000)[:20000], evidence[("BH-1042", "exposed")], tools)
    assert time.process_time() - started < 5 and {f.kind for f in flags} == {FlagKind.FALSE_CONTAINMENT}


@pytest.mark.parametrize("half", [0, 1], ids=["development", "held-out"])
def test_round3_corpus_meets_the_targets(corpus_case, half):
    """Structure, verdicts, emptiness, actions and unfamiliar names, in both states: recall 100%, false flags <= 1%."""
    evidence, tools, *_ = corpus_case
    round3 = generate_round3(evidence)
    assert {(s.kind, s.truthful) for s in round3} == {(k, t) for k in ROUND3_KINDS for t in (True, False)}
    assert {(s.alert, s.state) for s in round3} == set(evidence)
    scores, misses = measure_round3(
        split(round3)[half], evidence, lambda s: check_text(s.text, evidence[(s.alert, s.state)], tools)
    )
    shown = "\n".join(f"{s.kind} truthful={s.truthful}: {s.text!r} -> {[f.kind.value for f in f_]}" for s, f_ in misses)
    for kind in ROUND3_KINDS:
        assert scores[kind].recall == 1.0, f"{kind}: recall {scores[kind].recall:.3f}\n{shown}"
        assert scores[kind].false_flag_rate <= 0.01, shown


@pytest.mark.parametrize("case", ROUND3_CASES, ids=lambda c: f"{c[0]}:{c[3][:45]}")
def test_round3_hand_written(corpus_case, case):
    """The third round's hand-written sentences (tests/helpers/briefing_handwritten.py): false ones get one of their flags,
    truthful controls none."""
    evidence, tools, *_ = corpus_case
    _, alert, state, text, kinds = case
    flags = check_text(text, evidence[(alert, state)], tools)
    if kinds is None:
        assert flags == []
    else:
        assert set(kinds) & {f.kind for f in flags}, flags
