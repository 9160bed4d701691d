"""What-if, collateral and the multi-alert view, against a real FalkorDB."""

from __future__ import annotations

import random

import pytest

from blastshield_core import Status
from blastshield_core.graph.ingest import import_document, parse_document
from blastshield_core.read.analysis import AnalysisTools
from blastshield_core.read.paths import path_signature
from blastshield_core.read.tools import ReadTools
from tests.conftest import graph_state
from tests.helpers.small_graphs import qualifying_paths, small_graph_document
from tests.helpers.store_commands import recording_commands


def _node(node_id: str, label: str, **props) -> dict:
    return {"id": node_id, "label": label, "name": node_id, "properties": props}


def _edge(source: str, rel_type: str, target: str, **props) -> dict:
    return {"source": source, "type": rel_type, "target": target, "properties": props}


# Hand-built office: alice has two sessions (one also reaches the wiki), dave and erin share
# one session whose route to the jump host is shared, carol's only route is already blocked.
OFFICE = {
    "format": "blastshield-graph/v1",
    "name": "office",
    "nodes": [
        _node("alice", "Identity"),
        _node("carol", "Identity"),
        _node("dave", "Identity"),
        _node("erin", "Identity"),
        _node("s-alice", "Session"),
        _node("s-alice2", "Session"),
        _node("s-carol", "Session"),
        _node("s-shared", "Session"),
        _node("jump", "Workload"),
        _node("wiki", "Workload"),
        _node("role-j", "IAMRole"),
        _node("role-w", "IAMRole"),
        _node("db", "DataAsset", sensitivity="critical"),
        _node("wiki-data", "DataAsset", sensitivity="low"),
    ],
    "edges": [
        _edge("alice", "HAS_SESSION", "s-alice", route_id="route-alice-s"),
        _edge("alice", "HAS_SESSION", "s-alice2", route_id="route-alice-s2"),
        _edge("carol", "HAS_SESSION", "s-carol", route_id="route-carol-s"),
        _edge("dave", "HAS_SESSION", "s-shared", route_id="route-dave-s"),
        _edge("erin", "HAS_SESSION", "s-shared", route_id="route-erin-s"),
        _edge("s-alice", "CAN_ACCESS", "jump", route_id="route-jump-a"),
        _edge("s-alice", "CAN_ACCESS", "wiki", route_id="route-wiki-a"),
        _edge("s-alice2", "CAN_ACCESS", "jump", route_id="route-jump-a2"),
        _edge("s-carol", "CAN_ACCESS", "jump", route_id="route-jump-c", status="blocked"),
        _edge("s-shared", "CAN_ACCESS", "jump", route_id="route-shared-jump"),
        _edge("jump", "RUNS_AS", "role-j"),
        _edge("wiki", "RUNS_AS", "role-w"),
        _edge("role-j", "CAN_READ", "db"),
        _edge("role-w", "CAN_READ", "wiki-data"),
    ],
    "alerts": [
        {"id": "AL-ALICE", "title": "alice", "entity_id": "alice", "kind": "identity_access_path"},
        {"id": "AL-DAVE", "title": "dave", "entity_id": "dave", "kind": "identity_access_path"},
        {"id": "AL-ERIN", "title": "erin", "entity_id": "erin", "kind": "identity_access_path"},
        {"id": "AL-CAROL", "title": "carol", "entity_id": "carol", "kind": "identity_access_path"},
    ],
}


@pytest.fixture
def office(store) -> AnalysisTools:
    import_document(store, parse_document(OFFICE))
    return AnalysisTools(ReadTools(store))


def _lost(result) -> dict[str, set[str]]:
    return {i.identity_id: {e.id for e in i.lost} for i in result.identities}


def _set_route_status(store, routes: list[str], status: str) -> None:
    store.execute_write(
        "MATCH ()-[r]->() WHERE r.route_id IN $routes SET r.status = $status", {"routes": routes, "status": status}
    )


# -- what-if ------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(0, 48, 2))
def test_what_if_equals_blocking_then_restoring(store, seed):
    """The dry run's remaining paths equal those after really blocking the routes (on this test's own graph), and restoring brings the paths back."""
    doc = small_graph_document(seed)
    import_document(store, parse_document(doc))
    tools = ReadTools(store)
    alert_id = f"ALERT-{seed}"
    before = tools.investigate_alert(alert_id)
    on_paths = sorted({r for p in before.paths for r in p.route_ids})
    every_route = sorted(e["properties"]["route_id"] for e in doc["edges"] if "route_id" in e["properties"])
    pool = on_paths or every_route
    if not pool:
        pytest.fail(f"seed {seed} has no route at all; choose seeds with routes")
    block = random.Random(seed).sample(pool, k=min(2, len(pool)))
    dry = AnalysisTools(tools).what_if(alert_id, block)
    _set_route_status(store, block, "blocked")
    after = tools.investigate_alert(alert_id)
    _set_route_status(store, block, "active")
    restored = tools.investigate_alert(alert_id)
    assert dry.status is after.status
    assert path_signature(dry.paths) == path_signature(after.paths)
    assert path_signature(restored.paths) == path_signature(before.paths)


@pytest.mark.parametrize("seed", range(1, 48, 2))
def test_what_if_equals_the_oracle_without_the_routes(store, seed):
    """The dry run's remaining paths equal a plain search over the document without those routes."""
    doc = small_graph_document(seed)
    import_document(store, parse_document(doc))
    routes = sorted(e["properties"]["route_id"] for e in doc["edges"] if "route_id" in e["properties"])
    block = random.Random(seed).sample(routes, k=min(3, len(routes)))
    dry = AnalysisTools(ReadTools(store)).what_if(f"ALERT-{seed}", block)
    got = {tuple((r.source, r.type, r.target) for r in p.relationships) for p in dry.paths}
    assert got == set(qualifying_paths(doc, doc["alerts"][0]["entity_id"], exclude_routes=frozenset(block)))


def test_what_if_both_routes_leaves_no_path(tools):
    """BH-CONTAINMENT-4001 with both routes blocked in the dry run: no_path, two paths before."""
    result = AnalysisTools(tools).what_if("BH-CONTAINMENT-4001", ["route-c11-primary", "route-c11-alternate"])
    assert (result.status, result.paths_before, result.path_count) == (Status.NO_PATH, 2, 0)


def test_what_if_one_route_leaves_the_other_path(tools):
    """Blocking only the primary route leaves the alternate path."""
    result = AnalysisTools(tools).what_if("BH-CONTAINMENT-4001", ["route-c11-primary"])
    assert result.status is Status.PATHS_FOUND
    assert [r for p in result.paths for r in p.route_ids] == ["route-c11-alternate"]


def test_what_if_names_routes_that_carry_no_current_path(tools):
    """A real route that none of the alert's paths uses is accepted and reported as idle."""
    result = AnalysisTools(tools).what_if("BH-CONTAINMENT-4001", ["route-c11-primary", "route-dev07-a"])
    assert (result.status, result.not_on_paths) == (Status.PATHS_FOUND, ["route-dev07-a"])


def test_what_if_unknown_route_is_unknown_route(tools):
    """A route id that is not in the graph is unknown_route, never a dry run that looks safe."""
    result = AnalysisTools(tools).what_if("BH-CONTAINMENT-4001", ["route-c11-primary", "route-nowhere"])
    assert (result.status, result.paths) == (Status.UNKNOWN_ROUTE, [])
    assert "route-nowhere" in result.message


@pytest.mark.parametrize("block", [[], ["route-c11-primary", "route-c11-primary"], ["bad route"], "route-c11-primary"])
def test_what_if_bad_block_list_is_invalid_input(tools, block):
    """Empty, duplicated, malformed or non-list block lists are invalid_input."""
    assert AnalysisTools(tools).what_if("BH-CONTAINMENT-4001", block).status is Status.INVALID_INPUT


def test_what_if_writes_nothing(seeded_store, monkeypatch):
    """A dry run leaves every relationship as it was and sends no write command (every graph command a store sends is
    built by `Store._graph_command`; the shared server's own count moves with other tests' writes)."""
    before_state = graph_state(seeded_store)
    sent = recording_commands(monkeypatch)
    AnalysisTools(ReadTools(seeded_store)).what_if("BH-CONTAINMENT-4001", ["route-c11-primary", "route-c11-alternate"])
    monkeypatch.undo()
    assert "GRAPH.RO_QUERY" in sent and "GRAPH.QUERY" not in sent, sent
    assert graph_state(seeded_store) == before_state


# -- collateral ---------------------------------------------------------------------


def test_collateral_of_a_route_with_an_alternative_takes_nothing(office):
    """alice reaches the jump host over her second session too: blocking route-jump-a takes nothing."""
    result = office.collateral("route-jump-a")
    assert (result.status, result.identities, result.route_status) == (Status.OK, [], "active")


def test_collateral_of_a_session_route_takes_only_what_it_alone_reaches(office):
    """Blocking alice's first session takes the session and the wiki chain, not the jump chain she still reaches."""
    result = office.collateral("route-alice-s")
    assert _lost(result) == {"alice": {"s-alice", "wiki", "role-w", "wiki-data"}}
    assert result.lost_sensitive_assets == []


def test_collateral_of_a_shared_route_names_every_identity(office):
    """The shared session's route to the jump host cuts dave and erin off the jump chain and the critical db."""
    result = office.collateral("route-shared-jump")
    assert _lost(result) == {"dave": {"jump", "role-j", "db"}, "erin": {"jump", "role-j", "db"}}
    assert (result.lost_sensitive_assets, result.lost_by_label["DataAsset"]) == (["db"], 1)


def test_collateral_of_a_blocked_route_is_nothing(office):
    """An already blocked route costs nothing more and says so."""
    result = office.collateral("route-jump-c")
    assert (result.status, result.route_status, result.identities) == (Status.OK, "blocked", [])
    assert "already blocked" in result.message


def test_collateral_unknown_and_invalid_routes_stay_distinct(office):
    """A well-formed route id not in the graph is unknown_route; a malformed one is invalid_input."""
    assert office.collateral("route-nowhere").status is Status.UNKNOWN_ROUTE
    assert office.collateral("no spaces allowed").status is Status.INVALID_INPUT


def test_candidates_carry_collateral_for_other_identities(office):
    """dave's candidate on the shared route shows erin losing the critical db; his own session route costs no one."""
    result = office.tools.get_response_candidates("AL-DAVE")
    by_route = {c.route_id: c.collateral for c in result.candidates}
    assert by_route["route-shared-jump"].other_identities == ["erin"]
    assert by_route["route-shared-jump"].lost_sensitive_assets == ["db"]
    assert (by_route["route-dave-s"].other_identities, by_route["route-dave-s"].lost_entities) == ([], 0)


def test_seed_candidates_have_no_collateral(tools):
    """BH-CONTAINMENT-4001's two routes belong to contractor_11 alone: no other identity loses access."""
    result = tools.get_response_candidates("BH-CONTAINMENT-4001")
    assert [(c.route_id, c.collateral.other_identities) for c in result.candidates] == [
        ("route-c11-primary", []),
        ("route-c11-alternate", []),
    ]


# -- multi-alert ----------------------------------------------------------------------


def test_multi_alert_shared_assets(office):
    """alice, dave and erin all reach the critical db; only alice reaches the wiki data."""
    result = office.multi_alert(["AL-ALICE", "AL-DAVE", "AL-ERIN"])
    assert result.status is Status.OK
    assert [(e.id, sorted(e.alerts)) for e in result.shared_assets] == [("db", ["AL-ALICE", "AL-DAVE", "AL-ERIN"])]
    assert {e.id for e in result.entities if e.label == "DataAsset"} == {"db", "wiki-data"}


def test_multi_alert_common_relationships(office):
    """The jump host's role and its read grant are on every alert's paths; the shared session's route on two."""
    result = office.multi_alert(["AL-ALICE", "AL-DAVE", "AL-ERIN"])
    common = {(r.source, r.type, r.target): len(r.alerts) for r in result.common_relationships}
    assert common == {
        ("jump", "RUNS_AS", "role-j"): 3,
        ("role-j", "CAN_READ", "db"): 3,
        ("s-shared", "CAN_ACCESS", "jump"): 2,
    }


def test_multi_alert_joint_choke_point_is_one_relationship(office):
    """One relationship (the jump host's role) severs all three alerts' paths together."""
    result = office.multi_alert(["AL-ALICE", "AL-DAVE", "AL-ERIN"])
    assert [(r.source, r.type, r.target) for r in result.choke_points] == [("jump", "RUNS_AS", "role-j")]
    assert (result.severable, result.exact, result.qualifying_paths) == (True, True, 4)


def test_multi_alert_joint_routes_sever_every_alert(office):
    """Routes only: three routes (the shared one among them) and a dry run with them leaves no alert a path."""
    result = office.multi_alert(["AL-ALICE", "AL-DAVE", "AL-ERIN"], routes_only=True)
    routes = [r.route_id for r in result.choke_points]
    assert len(routes) == 3 and "route-shared-jump" in routes
    for alert_id in result.alert_ids:
        assert office.what_if(alert_id, routes).status is Status.NO_PATH


def test_multi_alert_unknown_alert_fails_whole(office):
    """One unknown alert makes the whole view unknown_alert, not a partial answer."""
    assert office.multi_alert(["AL-ALICE", "AL-NOPE"]).status is Status.UNKNOWN_ALERT


@pytest.mark.parametrize("alert_ids", [[], ["AL-ALICE", "AL-ALICE"], "AL-ALICE", ["x y"]])
def test_multi_alert_bad_list_is_invalid_input(office, alert_ids):
    """Empty, duplicated, non-list or malformed alert lists are invalid_input."""
    assert office.multi_alert(alert_ids).status is Status.INVALID_INPUT


def test_multi_alert_of_the_seed_scenarios_shares_nothing(tools):
    """The four seed scenarios are disjoint: no shared entity, no common relationship, six joint choke points."""
    result = AnalysisTools(tools).multi_alert(["BH-1042", "BH-IAM-2001", "BH-WORKLOAD-3001", "BH-CONTAINMENT-4001"])
    assert (result.shared_entities, result.common_relationships) == ([], [])
    assert (len(result.choke_points), result.qualifying_paths) == (6, 9)
