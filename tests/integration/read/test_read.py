"""The read-only tools against the seed scenarios, on both backends."""

from __future__ import annotations

import pytest

from blastshield_core import Status, import_document, parse_document
from blastshield_core.graph.generate import GenerateOptions, generate
from blastshield_core.graph.model import GraphDocument
from blastshield_core.graph.seeds import seed
from blastshield_core.graph.store import QueryFailed
from blastshield_core.read import reach as reach_module
from blastshield_core.read.paths import path_signature
from blastshield_core.read.reach import REACH_ATTEMPTS
from blastshield_core.read.tools import ReadTools
from blastshield_core.results import PATH_CAP
from tests.helpers.small_graphs import small_graph_document

BH_1042 = {("developer_07", "sess-dev07", "build-runner-07", "deploy-role", "prod-admin-role", "customer-db")}
BH_IAM_2001 = {
    ("analytics-poweruser", "finance-ledger"),
    ("analytics-poweruser", "data-lake-admin", "finance-ledger"),
    ("analytics-poweruser", "data-lake-admin", "hr-records"),
}
BH_WORKLOAD_3001 = {
    ("public-api-gw", "api-gw-role", "orders-db"),
    ("public-api-gw", "api-gw-role", "orders-svc-role", "customer-pii"),
    ("public-api-gw", "api-gw-role", "orders-svc-role", "payments-role", "payments-db"),
}
BH_CONTAINMENT_4001 = {
    ("contractor_11", "sess-c11-vpn", "bastion-01", "ops-role", "payments-vault"),
    ("contractor_11", "sess-c11-sso", "admin-console", "console-role", "payments-reader", "payments-vault"),
}


@pytest.mark.parametrize(
    ("alert_id", "expected", "score", "severity"),
    [
        ("BH-1042", BH_1042, 35, "medium"),
        ("BH-IAM-2001", BH_IAM_2001, 65, "high"),
        ("BH-WORKLOAD-3001", BH_WORKLOAD_3001, 75, "high"),
        ("BH-CONTAINMENT-4001", BH_CONTAINMENT_4001, 60, "high"),
    ],
)
def test_seed_scenario_paths_and_score(tools, alert_id, expected, score, severity):
    """Each seed alert yields exactly its qualifying paths and its rule-derived score."""
    result = tools.investigate_alert(alert_id)
    assert result.status is Status.PATHS_FOUND
    assert path_signature(result.paths) == expected
    assert result.path_count == len(expected)
    assert (result.alert.risk_score, result.alert.severity, result.alert.rule_set) == (score, severity, "demo-rules-v1")
    assert not result.truncated


def test_paths_are_ordered_shortest_first(tools):
    """Paths come back shortest first."""
    hops = [p.hops for p in tools.investigate_alert("BH-WORKLOAD-3001").paths]
    assert hops == sorted(hops) == [2, 3, 4]


def test_paths_carry_nodes_and_directed_relationships(tools):
    """Every path lists its nodes and the directed relationships between them, in order."""
    (path,) = tools.investigate_alert("BH-1042").paths
    assert [n.label for n in path.nodes] == ["Identity", "Session", "Workload", "IAMRole", "IAMRole", "DataAsset"]
    assert [r.type for r in path.relationships] == ["HAS_SESSION", "CAN_ACCESS", "RUNS_AS", "CAN_ASSUME", "CAN_READ"]
    for rel, (a, b) in zip(path.relationships, zip(path.nodes, path.nodes[1:], strict=False), strict=True):
        assert (rel.source, rel.target) == (a.id, b.id)
    assert path.relationships[0].properties == {"route_id": "route-dev07-a", "status": "active"}
    assert path.nodes[-1].properties["sensitivity"] == "critical"
    assert path.nodes[0].name == "Developer 07"


@pytest.mark.parametrize("alert_id", ["BH-1042", "BH-IAM-2001", "BH-WORKLOAD-3001", "BH-CONTAINMENT-4001"])
def test_investigation_paths_match_the_depth_six_template_field_for_field(tools, alert_id):
    """The investigation reads nodes and relationships as stored (property keys and types by
    id, named by the same query) and gives the same models as the depth-6 path template's maps."""
    result = tools.investigate_alert(alert_id)
    maps, truncated = tools._paths("sensitive", 6, {"source_id": result.alert.entity_id})
    assert result.paths and result.paths == maps and result.truncated == truncated


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_bh1042_has_no_path_below_five_hops(tools, depth):
    """The five-hop chain is BH-1042's only path, so depths 1..4 answer no_path."""
    result = tools.investigate_alert("BH-1042", depth)
    assert result.status is Status.NO_PATH
    assert result.paths == []
    assert result.alert.risk_score == 35  # the score reads the standard (depth 6) evidence


@pytest.mark.parametrize("depth", [5, 6])
def test_bh1042_path_at_five_and_six(tools, depth):
    """At depth 5 and 6 the chain is found."""
    assert path_signature(tools.investigate_alert("BH-1042", depth).paths) == BH_1042


@pytest.mark.parametrize(
    ("max_hops", "cache", "report"),
    [(1, False, False), (2, False, False), (3, False, False), (4, True, False), (5, True, True), (6, True, True)],
)
def test_audit_fixture_depth_lesson(tools, max_hops, cache, report):
    """auditor_02 reaches analytics-cache from 4 hops and staging-report only from 5."""
    to_cache = tools.find_shortest_access_path("auditor_02", "analytics-cache", max_hops)
    to_report = tools.find_shortest_access_path("auditor_02", "staging-report", max_hops)
    assert to_cache.status is (Status.PATHS_FOUND if cache else Status.NO_PATH)
    assert to_report.status is (Status.PATHS_FOUND if report else Status.NO_PATH)
    if cache:
        assert path_signature(to_cache.paths) == {
            ("auditor_02", "sess-aud02", "reporting-worker", "report-reader-role", "analytics-cache")
        }
    if report:
        (path,) = to_report.paths
        assert path.node_ids == (
            "auditor_02", "sess-aud02", "reporting-worker", "report-reader-role", "staging-role", "staging-report"
        )  # fmt: skip
        assert [r.type for r in path.relationships][3] == "CAN_ASSUME"


def test_blocked_and_denied_edges_are_excluded(tools):
    """No path uses a blocked route or a denied grant, though both exist in the seeds."""
    for alert_id in ("BH-1042", "BH-IAM-2001", "BH-WORKLOAD-3001", "BH-CONTAINMENT-4001"):
        for path in tools.investigate_alert(alert_id).paths:
            for rel in path.relationships:
                assert rel.properties.get("status", "active") == "active"
                assert rel.properties.get("permission", "allow") == "allow"
    ids = {n for p in tools.investigate_alert("BH-1042").paths for n in p.node_ids}
    assert "sess-dev07-legacy" not in ids and "billing-db" not in ids


def test_cycles_do_not_repeat_nodes(store):
    """A CAN_ASSUME cycle yields only simple paths."""
    doc = parse_document(
        {
            "format": "blastshield-graph/v1",
            "name": "cycle",
            "nodes": [
                {"id": "i1", "label": "Identity", "name": "i1"},
                {"id": "s1", "label": "Session", "name": "s1"},
                {"id": "w1", "label": "Workload", "name": "w1"},
                {"id": "r1", "label": "IAMRole", "name": "r1"},
                {"id": "r2", "label": "IAMRole", "name": "r2"},
                {"id": "r3", "label": "IAMRole", "name": "r3"},
                {"id": "a1", "label": "DataAsset", "name": "a1", "properties": {"sensitivity": "high"}},
            ],
            "edges": [
                {"source": "i1", "type": "HAS_SESSION", "target": "s1"},
                {"source": "s1", "type": "CAN_ACCESS", "target": "w1"},
                {"source": "w1", "type": "RUNS_AS", "target": "r1"},
                {"source": "r1", "type": "CAN_ASSUME", "target": "r2"},
                {"source": "r2", "type": "CAN_ASSUME", "target": "r1"},
                {"source": "r2", "type": "CAN_ASSUME", "target": "r3"},
                {"source": "r3", "type": "CAN_ASSUME", "target": "r1"},
                {"source": "r1", "type": "CAN_READ", "target": "a1"},
            ],
            "alerts": [{"id": "A-1", "title": "cycle", "entity_id": "i1", "kind": "test"}],
        }
    )
    import_document(store, doc)
    result = ReadTools(store).investigate_alert("A-1")
    assert path_signature(result.paths) == {("i1", "s1", "w1", "r1", "a1")}
    for path in result.paths:
        assert len(set(path.node_ids)) == len(path.node_ids)
    paths_to_r1 = ReadTools(store).find_shortest_access_path("i1", "r3", 6)
    assert path_signature(paths_to_r1.paths) == {("i1", "s1", "w1", "r1", "r2", "r3")}


def test_equal_length_paths_are_ordered_by_node_ids(store):
    """Paths of one length come in node-id order at every depth and through every tool,
    even when the nodes' property maps sort the other way (FalkorDB resolved a sort key
    written like a projected list comprehension to that projection)."""
    nodes = [
        {"id": "i1", "label": "Identity", "name": "i1"},
        {"id": "s1", "label": "Session", "name": "s1"},
        *(
            {"id": f"w{k}", "label": "Workload", "name": f"w{k}", "properties": {f"p{j}": k for j in range(3 - k)}}
            for k in range(4)
        ),
        {"id": "r1", "label": "IAMRole", "name": "r1"},
        {"id": "a1", "label": "DataAsset", "name": "a1", "properties": {"sensitivity": "high"}},
    ]
    edges = [
        {"source": "i1", "type": "HAS_SESSION", "target": "s1", "properties": {"route_id": "rt-s1"}},
        *({"source": "s1", "type": "CAN_ACCESS", "target": f"w{k}"} for k in (3, 1, 0, 2)),
        *({"source": f"w{k}", "type": "RUNS_AS", "target": "r1"} for k in range(4)),
        {"source": "r1", "type": "CAN_READ", "target": "a1"},
    ]
    doc = {"format": "blastshield-graph/v1", "name": "order", "nodes": nodes, "edges": edges}
    doc["alerts"] = [{"id": "A-1", "title": "order", "entity_id": "i1", "kind": "test"}]
    import_document(store, parse_document(doc))
    tools = ReadTools(store)
    expected = [("i1", "s1", f"w{k}", "r1", "a1") for k in range(4)]
    for depth in (4, 5, 6):
        assert [p.node_ids for p in tools.investigate_alert("A-1", depth).paths] == expected
    assert [p.node_ids for p in tools.evidence("A-1").paths] == expected
    assert [p.node_ids for p in tools.find_shortest_access_path("i1", "a1").paths] == expected
    assert [p.node_ids for p in tools.get_evidence_graph("A-1", 4).paths] == expected
    path = tools.evidence("A-1").paths[0]
    assert [n.label for n in path.nodes] == ["Identity", "Session", "Workload", "IAMRole", "DataAsset"]
    assert path.nodes[2].properties == {"p0": 0, "p1": 0, "p2": 0}


@pytest.mark.parametrize("depth", [0, 7, -1, "3", 2.5, True, None, "1..100", "*1..100", "6) DETACH DELETE n //"])
def test_invalid_depth_is_invalid_input(tools, depth):
    """Out-of-range, non-integer and injected depths are refused before any query."""
    result = tools.investigate_alert("BH-1042", depth)
    assert result.status is Status.INVALID_INPUT
    assert "depth" in result.message


@pytest.mark.parametrize("alert_id", ["", "BH-1042' OR 1=1 //", "`x`", "$alert_id", "a" * 200, "BH 1042", None, 1042])
def test_malformed_alert_id_is_invalid_input(tools, alert_id):
    """An alert id outside the id grammar is invalid_input, never a query."""
    assert tools.investigate_alert(alert_id).status is Status.INVALID_INPUT


def test_unknown_no_path_and_invalid_are_distinct(tools):
    """Unknown alert, unknown source, unknown target, no path and invalid input differ."""
    assert tools.investigate_alert("BH-0000").status is Status.UNKNOWN_ALERT
    assert tools.find_shortest_access_path("nobody", "customer-db").status is Status.UNKNOWN_SOURCE
    assert tools.find_shortest_access_path("developer_07", "nothing").status is Status.UNKNOWN_TARGET
    assert tools.find_shortest_access_path("developer_07", "payments-vault").status is Status.NO_PATH
    assert tools.find_shortest_access_path("developer_07", "customer-db", 9).status is Status.INVALID_INPUT
    for status in (Status.UNKNOWN_ALERT, Status.UNKNOWN_SOURCE, Status.INVALID_INPUT, Status.QUERY_FAILED):
        assert not status.is_answer


def test_shortest_path_returns_only_the_shortest(tools):
    """Only paths of the minimum length come back, with that length reported."""
    result = tools.find_shortest_access_path("analytics-poweruser", "finance-ledger", 6)
    assert result.hops == 1
    assert path_signature(result.paths) == {("analytics-poweruser", "finance-ledger")}


def test_blast_radius_groups_by_label_with_hops(tools):
    """Blast radius lists workloads, roles and assets with hop distance and critical-path flag."""
    result = tools.get_blast_radius("BH-CONTAINMENT-4001")
    assert result.status is Status.OK
    got = {(e.id, e.label, e.hops, e.on_critical_path) for e in result.entities}
    assert got == {
        ("bastion-01", "Workload", 2, True),
        ("admin-console", "Workload", 2, True),
        ("ops-role", "IAMRole", 3, True),
        ("console-role", "IAMRole", 3, True),
        ("payments-reader", "IAMRole", 4, True),
        ("payments-vault", "DataAsset", 4, True),
        ("ops-runbooks", "DataAsset", 4, False),
        ("console-audit-log", "DataAsset", 4, False),
    }
    assert result.by_label == {"Workload": 2, "IAMRole": 3, "DataAsset": 3}


def test_blast_radius_skips_blocked_and_denied(tools):
    """Entities only reachable over blocked or denied relationships are not in the blast radius."""
    ids = {e.id for e in tools.get_blast_radius("BH-IAM-2001").entities}
    assert ids == {"analytics-poweruser", "data-lake-admin", "finance-ledger", "hr-records", "marketing-assets"} - {
        "analytics-poweruser"
    }
    assert "secrets-vault" not in ids and "sandbox-bucket" not in ids


def test_route_statuses(tools):
    """Routes the paths use or used, with status and the paths each carries now."""
    result = tools.get_containment_route_statuses("BH-CONTAINMENT-4001")
    got = {(r.route_id, r.status, r.paths_carried) for r in result.routes}
    assert got == {
        ("route-c11-primary", "active", 1),
        ("route-c11-alternate", "active", 1),
        ("route-c11-stale", "blocked", 0),
    }
    assert result.qualifying_paths == 2


def test_response_candidates(tools):
    """Candidates are the active routes on current paths, with the paths each would cut."""
    result = tools.get_response_candidates("BH-CONTAINMENT-4001")
    assert [(c.id, c.route_id, c.paths_cut, c.remaining_if_applied) for c in result.candidates] == [
        ("block-route:route-c11-primary", "route-c11-primary", 1, 1),
        ("block-route:route-c11-alternate", "route-c11-alternate", 1, 1),
    ]
    assert result.uncuttable_paths == []


def test_candidates_when_no_route_can_cut(tools):
    """An alert whose paths start at a role has no blockable route: empty, with the paths listed."""
    result = tools.get_response_candidates("BH-IAM-2001")
    assert result.candidates == []
    assert result.uncuttable_paths == [0, 1, 2]
    assert "none passes through an active session route" in result.message


def test_truncation_is_flagged(seeded_store):
    """Past the cap, answers say they are truncated and report only what they hold."""
    result = ReadTools(seeded_store, path_cap=2).investigate_alert("BH-IAM-2001")
    assert result.truncated is True
    assert result.path_count == 2 == len(result.paths)
    assert result.path_cap == 2


def test_list_alerts(tools):
    """The alert list carries computed scores and path counts."""
    result = tools.list_alerts()
    got = {(a.id, a.entity_id, a.risk_score, a.severity, a.path_count) for a in result.alerts}
    assert got == {
        ("BH-1042", "developer_07", 35, "medium", 1),
        ("BH-IAM-2001", "analytics-poweruser", 65, "high", 3),
        ("BH-WORKLOAD-3001", "public-api-gw", 75, "high", 3),
        ("BH-CONTAINMENT-4001", "contractor_11", 60, "high", 2),
    }


def test_every_call_is_traced(tools):
    """The trace records valid, unknown and invalid calls with status and count."""
    tools.investigate_alert("BH-1042")
    tools.investigate_alert("BH-1042", 99)
    tools.find_shortest_access_path("x", "y")
    entries = tools.tracer.entries()[-3:]
    assert [(e.tool, e.status, e.result_count) for e in entries] == [
        ("investigate_alert", Status.PATHS_FOUND, 1),
        ("investigate_alert", Status.INVALID_INPUT, 0),
        ("find_shortest_access_path", Status.UNKNOWN_SOURCE, 0),
    ]
    assert entries[0].input == {"alert_id": "BH-1042", "depth": 6}
    assert entries[1].input["depth"] == 99
    assert all(e.duration_ms >= 0 for e in entries)


def test_query_failure_is_query_failed_not_no_path(base_store):
    """A query the server cannot complete is query_failed, never no_path."""
    view = base_store.for_graph("never_created")
    closed = ReadTools(view)
    view.settings = view.settings.model_copy(update={"query_timeout_ms": 100})
    # A graph key of the wrong type makes every graph query fail server-side.
    view.command("SET", "never_created", "not a graph")
    try:
        result = closed.investigate_alert("BH-1042")
        assert result.status is Status.QUERY_FAILED
        assert result.paths == []
        assert closed.tracer.entries()[-1].status is Status.QUERY_FAILED
    finally:
        view.command("DEL", "never_created")


def _extra_asset(asset_id: str) -> GraphDocument:
    """deploy-role (on developer_07's path) reads one more high asset: a change to the graph."""
    return GraphDocument.model_validate(
        {
            "format": "blastshield-graph/v1",
            "name": f"extra-{asset_id}",
            "nodes": [
                {"id": "deploy-role", "label": "IAMRole", "name": "deploy-role", "properties": {}},
                {"id": asset_id, "label": "DataAsset", "name": asset_id, "properties": {"sensitivity": "high"}},
            ],
            "edges": [{"source": "deploy-role", "target": asset_id, "type": "CAN_READ", "properties": {}}],
            "alerts": [],
        }
    )


def _writing_during_expansions(store, times: int) -> tuple[list[str], list[str]]:
    """Make each of the first `times` expansions of `store` meet a real import between two of its
    levels; the assets written and the expansions begun (their first level's template)."""
    original, written, begun = store.read_records, [], []

    def read_records(name, params=None, **kwargs):
        answer = original(name, params, **kwargs)
        if name == "expand_frontier":
            begun.append(name)
        elif name == "expand_frontier_nodes" and len(written) < min(times, len(begun)):
            written.append(f"extra-asset-{len(written)}")
            import_document(store, _extra_asset(written[-1]))
        return answer

    store.read_records = read_records
    return written, begun


def test_reach_is_read_again_when_the_graph_changes_meanwhile(store):
    """The frontier travels as internal node ids, so an expansion that met a write is done again
    on the graph as it is now, and the answer is that of a fresh read."""
    seed(store)
    tools = ReadTools(store)
    before = {r.id for r in tools.reach("developer_07")}
    written, begun = _writing_during_expansions(store, 1)
    reached = tools.reach("developer_07")
    del store.read_records
    assert written == ["extra-asset-0"] and len(begun) == 2 and "extra-asset-0" not in before
    assert reached == tools.reach("developer_07") and {r.id for r in reached} == before | {"extra-asset-0"}


def test_reach_that_never_sees_a_still_graph_fails(store):
    """A graph written during every expansion is a query failure, never a partial reach."""
    seed(store)
    tools = ReadTools(store)
    written, begun = _writing_during_expansions(store, REACH_ATTEMPTS)
    with pytest.raises(QueryFailed, match=f"changed during each of {REACH_ATTEMPTS} expansions"):
        tools.reach("developer_07")
    del store.read_records
    assert len(written) == len(begun) == REACH_ATTEMPTS


def test_blast_radius_read_again_when_the_graph_changes_meanwhile(store):
    """Blast radius reads alert, entity and expansion at one graph version: one that met a write
    is read again and answers as a fresh read; one that met a write every time is a query failure."""
    seed(store)
    tools = ReadTools(store)
    written, begun = _writing_during_expansions(store, 1)
    met = tools.get_blast_radius("BH-1042")
    del store.read_records
    assert written == ["extra-asset-0"] and len(begun) == 2
    fresh = tools.get_blast_radius("BH-1042")
    assert met.status is Status.OK and met == fresh and "extra-asset-0" in {e.id for e in met.entities}
    written, begun = _writing_during_expansions(store, REACH_ATTEMPTS)
    failed = tools.get_blast_radius("BH-1042")
    del store.read_records
    assert failed.status is Status.QUERY_FAILED and "changed during each" in failed.message
    assert len(written) == len(begun) == REACH_ATTEMPTS


def test_blast_radius_critical_paths_are_the_investigations(store):
    """Blast radius orders its critical paths from its own expansion: on random graphs (role cycles,
    blocked and denied relationships) and a dense generated one, the entities it marks on them and
    whether they were cut equal the investigation's path query, at the default cap and at 1 and 3."""
    docs = [parse_document(small_graph_document(seed)) for seed in range(20)]
    docs.append(parse_document(generate(GenerateOptions(edges=2000, seed=5, dense=True)).to_document()))
    compared = cut = marked = 0
    for doc in docs:
        import_document(store, doc, replace=True)
        for cap in (PATH_CAP, 1, 3):
            tools = ReadTools(store, path_cap=cap)
            for alert in doc.alerts[:8]:
                blast, evidence = tools.get_blast_radius(alert.id), tools.evidence(alert.id)
                reached = {e.id for e in blast.entities}
                on_path = {node.id for path in evidence.paths for node in path.nodes[1:]} & reached
                assert {e.id for e in blast.entities if e.on_critical_path} == on_path, (doc.name, alert.id, cap)
                assert blast.critical_paths_truncated is evidence.truncated, (doc.name, alert.id, cap)
                compared, cut, marked = compared + 1, cut + evidence.truncated, marked + bool(on_path)
    assert compared >= 80 and cut >= 10 and marked >= 40  # cut and uncut path sets, most with paths


def test_blast_radius_whose_paths_are_too_many_to_order_is_a_query_failure(tools, monkeypatch):
    """Past its step budget the search for critical paths stops as a query failure, not a partial answer."""
    assert tools.get_blast_radius("BH-CONTAINMENT-4001").status is Status.OK
    monkeypatch.setattr(reach_module, "CRITICAL_PATH_STEPS", 2)
    result = tools.get_blast_radius("BH-CONTAINMENT-4001")
    assert result.status is Status.QUERY_FAILED and "steps to order the critical paths" in result.message


def test_large_frontiers_read_in_parts_answer_as_one_read(store, monkeypatch):
    """A frontier read in parts at once (several connections, several server threads) gives the
    answers of one read: blast radius (entities, hops, critical paths) and reach, on a dense graph."""
    doc = parse_document(generate(GenerateOptions(edges=2000, seed=5, dense=True)).to_document())
    import_document(store, doc, replace=True)
    tools = ReadTools(store)
    alerts = doc.alerts[:8]
    reads: list[int] = []
    read_records = store.read_records

    def counting(name, params=None, **kwargs):
        if name == "expand_frontier_nodes":
            reads.append(len(params["nodes"]))
        return read_records(name, params, **kwargs)

    def answers() -> list[tuple[object, object]]:
        reads.clear()
        return [(tools.get_blast_radius(alert.id), tools.reach(alert.entity_id)) for alert in alerts]

    monkeypatch.setattr(store, "read_records", counting)
    monkeypatch.setattr(reach_module, "SPLIT_FRONTIER", 10**9)
    whole, whole_reads = answers(), list(reads)
    assert all(blast.status is Status.OK for blast, _ in whole)
    assert sum(len(blast.entities) for blast, _ in whole) >= 100  # a graph wide enough to split
    for parts in (2, 3):
        monkeypatch.setattr(reach_module, "SPLIT_FRONTIER", 2)
        monkeypatch.setattr(reach_module, "SPLIT_PARTS", parts)
        assert answers() == whole, parts
        assert sum(reads) == sum(whole_reads) and len(reads) > len(whole_reads), parts  # the same nodes, in parts


def _parts_with_one_failing(read_records, failing: str):
    """A `read_records` for a frontier split in two whose `failing` part ("first", read by the
    calling thread, or "second", by a side reader) fails while the other is still reading, and the
    parts started and ended."""
    import threading
    import time

    started: list[str] = []
    ended: list[str] = []
    guard = threading.Lock()

    def parts(name, params=None, **kwargs):
        if name != "expand_frontier_nodes":
            return read_records(name, params, **kwargs)
        which = "first" if threading.current_thread() is threading.main_thread() else "second"
        with guard:
            started.append(which)
        try:
            if which == failing:
                raise QueryFailed("query failed: a part failed")
            time.sleep(0.05)  # still reading when the failure is known
            return read_records(name, params, **kwargs)
        finally:
            with guard:
                ended.append(which)

    return parts, started, ended


def test_a_failed_part_of_a_frontier_fails_the_expansion_once_every_part_ended(store, monkeypatch):
    """A part of a split frontier that fails is the tool's query failure, whichever part it is, and
    the tool answers only once every part it started has ended (nothing is left reading)."""
    seed(store)
    tools = ReadTools(store)
    monkeypatch.setattr(reach_module, "SPLIT_FRONTIER", 2)
    monkeypatch.setattr(reach_module, "SPLIT_PARTS", 2)
    read_records = store.read_records
    for failing in ("first", "second"):
        parts, started, ended = _parts_with_one_failing(read_records, failing)
        monkeypatch.setattr(store, "read_records", parts)
        result = tools.get_blast_radius("BH-CONTAINMENT-4001")
        assert sorted(started) == sorted(ended) == ["first", "second"], failing  # ended before the answer
        assert result.status is Status.QUERY_FAILED and "a part failed" in result.message, failing
    monkeypatch.setattr(store, "read_records", read_records)
    assert tools.get_blast_radius("BH-CONTAINMENT-4001").status is Status.OK
