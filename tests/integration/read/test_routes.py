"""Routes found by route id without an index on route ids (graph/routes.py): an import's check of
its route ids scans the graph's routes at most once per routed type, whatever the number of ids,
and not at all when the graph already gives each route id the same relationship; blocks come back
through their relationships' ends; a release reads its route from the block index.

Each test runs on the embedded store and on the loopback server (the `store` fixture)."""

from __future__ import annotations

import copy

import pytest

from blastshield_core import DocumentError, build_services, import_document, parse_document, seed
from blastshield_core.graph import routes
from blastshield_core.results import RunState, Status

BASE = {
    "format": "blastshield-graph/v1",
    "name": "routes",
    "nodes": [{"id": "u1", "label": "Identity", "name": "User 1"}, {"id": "w1", "label": "Workload", "name": "W"}]
    + [{"id": f"s{i}", "label": "Session", "name": f"Session {i}"} for i in range(12)],
    "edges": [
        {"source": "u1", "type": "HAS_SESSION", "target": f"s{i}", "properties": {"route_id": f"rt-{i:02}"}}
        for i in range(6)
    ]
    + [
        {"source": f"s{i}", "type": "CAN_ACCESS", "target": "w1", "properties": {"route_id": f"ca-{i:02}"}}
        for i in range(6)
    ],
    "alerts": [],
}


def document(**changes):
    data = copy.deepcopy(BASE)
    data.update(changes)
    return parse_document(data)


def more_routes(first: int, last: int, prefix: str = "rt") -> dict:
    """A document adding the sessions first..last-1 of u1, each with its own route id."""
    return {
        "name": "more",
        "nodes": [],
        "edges": [
            {"source": "u1", "type": "HAS_SESSION", "target": f"s{i}", "properties": {"route_id": f"{prefix}-{i:02}"}}
            for i in range(first, last)
        ],
    }


@pytest.fixture
def recorded(store, monkeypatch):
    """The names of the templates the store reads (and the route scans by type), in order."""
    asked: list[str] = []
    read, read_records_text = store.read, store.read_records_text

    def reading(name, params=None, **kwargs):
        asked.append(name)
        return read(name, params, **kwargs)

    def reading_text(text, params=None, **kwargs):
        asked.append("route_ids_in_range" if "r.route_id >= $low" in text else "text")
        return read_records_text(text, params, **kwargs)

    monkeypatch.setattr(store, "read", reading)
    monkeypatch.setattr(store, "read_records_text", reading_text)
    monkeypatch.setattr(routes, "SCAN_IDS", 2)  # so that a handful of ids is "many"
    monkeypatch.setattr(routes, "ENDS_BATCH", 2)
    return asked


def test_many_new_route_ids_cost_one_scan_per_routed_type(store, recorded):
    """Six new route ids (over SCAN_IDS) are sought in one scan of each routed type; none found, none
    is read one by one (before, each batch of ids was a scan of every route)."""
    import_document(store, document())
    recorded.clear()
    import_document(store, document(**more_routes(6, 12)))
    assert recorded.count("route_ids_in_range") == 2
    assert "routes_by_ids" not in recorded
    assert recorded.count("routes_at_ends") == 3  # six relationships, ENDS_BATCH at a time
    rows = store.read_text("MATCH (:Identity)-[r:HAS_SESSION]->() RETURN r.route_id AS id ORDER BY id")
    assert [row["id"] for row in rows] == [f"rt-{i:02}" for i in range(12)]


def test_routes_the_graph_already_gives_the_same_relationships_are_not_sought(store, recorded):
    """Re-importing a document whose routes are where the graph has them scans no route."""
    import_document(store, document())
    recorded.clear()
    import_document(store, document())
    assert "route_ids_in_range" not in recorded and "routes_by_ids" not in recorded
    assert recorded.count("routes_at_ends") == 6


@pytest.mark.parametrize("count", [1, 6], ids=["few ids", "many ids"])
def test_a_route_id_of_another_relationship_is_refused_as_before(store, recorded, count):
    """A route id the graph gives another relationship is refused with the same error, whether it
    is found by the scan comparing each id or by the scans by type (then read alone)."""
    import_document(store, document())
    data = more_routes(6, 6 + count, prefix="new")
    data["edges"][-1]["properties"]["route_id"] = "ca-03"  # s3 -CAN_ACCESS-> w1 has it
    recorded.clear()
    with pytest.raises(DocumentError) as err:
        import_document(store, document(**data))
    last = 6 + count - 1
    assert err.value.item == f"edges[{count - 1}] (u1 -HAS_SESSION-> s{last})"
    assert err.value.message == "route_id 'ca-03' already belongs to s3 -CAN_ACCESS-> w1"
    assert recorded.count("route_ids_in_range") == (2 if count > 2 else 0)
    assert recorded.count("routes_by_ids") == 1


def test_a_blocked_route_moved_by_a_replace_stays_blocked_on_its_new_relationship(store):
    """A `--replace` that gives a blocked route's id to another relationship keeps the block there;
    one whose route is gone reports it; the blocks are found through the relationships' ends."""
    import_document(store, document())
    block = "SET r.status = 'blocked', r.blocked_by_run = 'run-1', r.blocked_at = 't', r.blocked_by = 'a'"
    store.execute_write(f"MATCH ()-[r:HAS_SESSION {{route_id: 'rt-01'}}]->() {block}")
    store.execute_write(f"MATCH ()-[r:CAN_ACCESS {{route_id: 'ca-02'}}]->() {block}")
    data = copy.deepcopy(BASE)
    data["edges"] = [e for e in data["edges"] if e["properties"]["route_id"] not in ("rt-01", "rt-07", "ca-02")]
    data["edges"].append({"source": "u1", "type": "HAS_SESSION", "target": "s7", "properties": {"route_id": "rt-01"}})
    report = import_document(store, parse_document(data), replace=True)
    assert (report.preserved_blocks, report.blocks_gone) == (["rt-01"], ["ca-02"])
    rows = store.read("blocked_route", {"route_id": "rt-01"})
    assert [(r["source"], r["target"], r["props"]["blocked_by_run"]) for r in rows] == [("u1", "s7", "run-1")]
    assert store.read("relationship_by_ends", {"source": "u1", "type": "HAS_SESSION", "target": "s1"}) == []


def test_release_reads_its_route_from_the_block_index_and_refuses_as_before(store, monkeypatch):
    """A release finds the route it may release through the block index and reads it back through its
    ends: no scan of every route; a route BlastShield did not block is still refused with its reason."""
    seed(store)
    svc = build_services(store)
    assert svc.controller.run("BH-CONTAINMENT-4001", _rules(), confirm=True).state is RunState.COMPLETED
    asked: list[str] = []
    read = store.read
    monkeypatch.setattr(store, "read", lambda name, params=None, **kw: asked.append(name) or read(name, params, **kw))
    result = svc.actions.release_route("route-c11-primary", "false positive", confirm=True, actor="lead-2")
    assert result.status is Status.OK
    assert "routes_by_ids" not in asked and {"blocked_route", "relationship_by_ends"} <= set(asked)
    assert svc.actions.release_route("route-c11-primary", "again", confirm=True).status is Status.INVALID_INPUT
    assert svc.actions.release_route("route-nope", "x", confirm=True).status is Status.UNKNOWN_ROUTE


def _rules():
    from blastshield_core.respond.decide import RulesDecider

    return RulesDecider()


def test_what_if_seeks_only_the_routes_off_the_alerts_paths(store, monkeypatch):
    """A what-if blocking routes of the alert's own paths scans no route; a route off them is sought,
    and one the graph does not have is still unknown_route."""
    from blastshield_core.read.analysis import AnalysisTools
    from blastshield_core.read.tools import ReadTools

    seed(store)
    asked: list[str] = []
    read = store.read
    monkeypatch.setattr(store, "read", lambda name, params=None, **kw: asked.append(name) or read(name, params, **kw))
    analysis = AnalysisTools(ReadTools(store))
    assert analysis.what_if("BH-CONTAINMENT-4001", ["route-c11-primary"]).status is Status.PATHS_FOUND
    assert "routes_by_ids" not in asked
    result = analysis.what_if("BH-CONTAINMENT-4001", ["route-c11-primary", "route-dev07-a"])
    assert (result.status, result.not_on_paths) == (Status.PATHS_FOUND, ["route-dev07-a"])
    assert asked.count("routes_by_ids") == 1
    assert analysis.what_if("BH-CONTAINMENT-4001", ["route-nowhere"]).status is Status.UNKNOWN_ROUTE
