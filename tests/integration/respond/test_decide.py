"""The rules playbook rules-v4: containment in the minimum number of actions."""

from __future__ import annotations

import pytest

from blastshield_core import build_services
from blastshield_core.graph.ingest import import_document, parse_document
from blastshield_core.respond.decide import RulesDecider
from blastshield_core.results import MAX_ACTIONS_LIMIT, RunState
from tests.helpers.small_graphs import brute_force_minimum, qualifying_paths, route_of, small_graph_document


def _severable_seeds() -> list[int]:
    """Seeds whose alert has paths, every one through a session route, with a minimum of at most the action cap."""
    chosen = []
    for seed in range(48):
        doc = small_graph_document(seed)
        routes = route_of(doc)
        paths = qualifying_paths(doc, doc["alerts"][0]["entity_id"])
        if paths and all(set(p) & routes.keys() for p in paths):
            if brute_force_minimum(paths, set(routes)) <= MAX_ACTIONS_LIMIT:
                chosen.append(seed)
    return chosen


SEVERABLE = _severable_seeds()


def test_enough_severable_seeds():
    """The property below runs on a dozen or more different graphs."""
    assert len(SEVERABLE) >= 12


@pytest.mark.parametrize("seed", SEVERABLE)
def test_rules_contain_in_the_minimum_number_of_actions(store, seed):
    """A rules run completes with exactly as many verified actions as the brute-force minimum of routes."""
    doc = small_graph_document(seed)
    import_document(store, parse_document(doc))
    routes = route_of(doc)
    minimum = brute_force_minimum(qualifying_paths(doc, doc["alerts"][0]["entity_id"]), set(routes))
    services = build_services(store)
    run = services.controller.run(f"ALERT-{seed}", RulesDecider(), MAX_ACTIONS_LIMIT, True)
    assert run.state is RunState.COMPLETED, run.reason
    assert len(run.actions) == minimum
    assert all(a.verified for a in run.actions)


def test_rules_rationale_names_the_minimum_set(services):
    """The first rules proposal for BH-CONTAINMENT-4001 says it comes from the two-route minimum set."""
    run = services.controller.run("BH-CONTAINMENT-4001", RulesDecider(), 1, True)
    proposal = next(s for s in run.steps if s.kind == "proposal")
    assert "rules-v4: one of 2 route(s) in the minimum set" in proposal.data["proposal"]["rationale"]
