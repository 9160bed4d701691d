"""The briefing checker's evidence on the real seeded graph in two states: as seeded ("exposed") and after a rules
run ("after"), each on a graph of its own, deleted when the fixture ends."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager

from blastshield_core.brief.evidence import EvidenceSummary
from blastshield_core.graph.seeds import seed
from blastshield_core.interfaces.service import Services, build_services
from blastshield_core.respond.decide import RulesDecider

__all__ = ["seeded_services", "states_evidence"]

Evidence = dict[tuple[str, str], tuple[EvidenceSummary, Services]]


@contextmanager
def seeded_services(embedded_store, name: str) -> Iterator[Services]:
    """Services (no model key) on a freshly seeded graph of its own; its graphs are deleted afterwards."""
    view = embedded_store.for_graph(f"{name}_{uuid.uuid4().hex[:8]}")
    seed(view)
    try:
        yield build_services(view, view.settings.model_copy(update={"gemini_api_key": None}))
    finally:
        for graph in (view.settings.graph, view.settings.audit_graph):
            if view.graph_exists(graph):
                view.command("GRAPH.DELETE", graph)


@contextmanager
def states_evidence(embedded_store, name: str, alerts: Iterable[str]) -> Iterator[Evidence]:
    """(state, alert) -> (evidence, services): each alert as seeded, and after a rules run (cap 3) of its own."""
    alerts = tuple(alerts)
    with ExitStack() as stack:
        exposed = stack.enter_context(seeded_services(embedded_store, f"{name}_exposed"))
        after = stack.enter_context(seeded_services(embedded_store, f"{name}_after"))
        runs = {a: after.controller.run(a, RulesDecider(), 3, True).run_id for a in alerts}
        yield {("exposed", a): (exposed.briefer.evidence(a), exposed) for a in alerts} | {
            ("after", a): (after.briefer.evidence(a, runs[a]), after) for a in alerts
        }
