"""The briefing checker measured on a labelled, combinatorially generated corpus (tests/briefing_corpus.py)."""

from __future__ import annotations

import uuid
from collections import Counter

import pytest

from blastshield_core.checker import EvidenceSummary, check_text
from blastshield_core.decide import RulesDecider
from blastshield_core.read import ReadTools
from blastshield_core.seeds import seed
from blastshield_core.service import build_services
from blastshield_core.store import Store
from tests.briefing_corpus import KINDS, generate, measure, split

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
