"""Importing graph documents: validated whole, written whole or not at all."""

from __future__ import annotations

import copy
import time
from typing import Any

import pytest

from blastshield_core import DocumentError, Status, import_document, parse_document
from blastshield_core.graph.model import GraphDocument
from blastshield_core.graph.seeds import seed, seed_documents
from blastshield_core.graph.store import WriteLockLost
from blastshield_core.read.paths import path_signature
from blastshield_core.read.tools import ReadTools
from tests.helpers.store_commands import counting_copies

BASE = {
    "format": "blastshield-graph/v1",
    "name": "tiny",
    "nodes": [
        {"id": "u1", "label": "Identity", "name": "User 1"},
        {"id": "s1", "label": "Session", "name": "Session 1"},
        {"id": "w1", "label": "Workload", "name": "Workload 1"},
        {"id": "r1", "label": "IAMRole", "name": "Role 1"},
        {"id": "d1", "label": "DataAsset", "name": "Data 1", "properties": {"sensitivity": "critical"}},
    ],
    "edges": [
        {"source": "u1", "type": "HAS_SESSION", "target": "s1", "properties": {"route_id": "rt-1"}},
        {"source": "s1", "type": "CAN_ACCESS", "target": "w1"},
        {"source": "w1", "type": "RUNS_AS", "target": "r1"},
        {"source": "r1", "type": "CAN_READ", "target": "d1"},
    ],
    "alerts": [{"id": "T-1", "title": "tiny", "entity_id": "u1", "kind": "test", "signals": {"mfa_disabled": True}}],
}


def doc(**changes):
    data = copy.deepcopy(BASE)
    data.update(changes)
    return data


def counts(store):
    (row,) = store.read("graph_counts")
    return row


def snapshot(store):
    nodes = store.read_text("MATCH (n) RETURN n.id AS id, labels(n) AS l, properties(n) AS p ORDER BY id")
    rels = store.read_text(
        "MATCH (a)-[r]->(b) RETURN a.id AS a, type(r) AS t, b.id AS b, properties(r) AS p ORDER BY a, t, b"
    )
    return nodes, rels


def test_import_then_investigate(store):
    """An imported document answers the same questions as the seeds."""
    import_document(store, parse_document(doc()))
    result = ReadTools(store).investigate_alert("T-1")
    assert path_signature(result.paths) == {("u1", "s1", "w1", "r1", "d1")}
    assert result.alert.risk_score == 20 + 10 + 10  # critical reach, 4 hops, mfa_disabled


BAD_DOCUMENTS = [
    ("wrong format", {"format": "other/v9"}, "format"),
    ("unknown label", {"nodes": [*BASE["nodes"], {"id": "x", "label": "Printer", "name": "x"}]}, "nodes[5].label"),
    ("duplicate id", {"nodes": [*BASE["nodes"], {"id": "u1", "label": "Identity", "name": "again"}]}, "duplicate"),
    ("edge to missing node", {"edges": [*BASE["edges"], {"source": "r1", "type": "CAN_READ", "target": "zz"}]}, "'zz'"),
    ("unknown type", {"edges": [{"source": "u1", "type": "OWNS", "target": "s1"}]}, "edges[0].type"),
    ("wrong endpoints", {"edges": [{"source": "u1", "type": "CAN_READ", "target": "d1"}]}, "CAN_READ needs"),
    ("missing sensitivity", {"nodes": [*BASE["nodes"][:4], {"id": "d1", "label": "DataAsset", "name": "d"}]}, "sens"),
    ("bad status", {"edges": [{"source": "u1", "type": "HAS_SESSION", "target": "s1", "properties": {"status": "x"}}]}, "status"),
    ("missing key", {"alerts": [{"id": "T-2", "entity_id": "u1", "kind": "k"}]}, "alerts[0].title"),
    ("alert on missing entity", {"alerts": [{"id": "T-2", "title": "t", "entity_id": "ghost", "kind": "k"}]}, "ghost"),
    ("id with a quote", {"nodes": [*BASE["nodes"], {"id": "a'b", "label": "Identity", "name": "x"}]}, "nodes[5].id"),
    ("nested junk property", {"nodes": [{"id": "u9", "label": "Identity", "name": "x", "properties": {"a": {"b": 1}}}]}, "nodes[0]"),
    ("duplicate route", {"edges": [*BASE["edges"], {"source": "s1", "type": "CAN_ACCESS", "target": "w1"}]}, "duplicate relationship"),
    ("control characters", {"nodes": [{"id": "u9", "label": "Identity", "name": "x", "properties": {"a": "x\u0000y"}}]}, "control"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "changes", "pointer"), BAD_DOCUMENTS, ids=[c[0] for c in BAD_DOCUMENTS])
def test_invalid_document_is_rejected_and_changes_nothing(seeded_store, case, changes, pointer):
    """A malformed document is refused with a pointer to the item, and the graph is unchanged."""
    before = snapshot(seeded_store)
    with pytest.raises(DocumentError) as err:
        import_document(seeded_store, parse_document(doc(**changes)))
    assert pointer in str(err.value)
    assert snapshot(seeded_store) == before


CROSS_ITEM = ["duplicate id", "edge to missing node", "alert on missing entity", "duplicate route"]


@pytest.mark.parametrize("case", CROSS_ITEM)
def test_invalid_replacement_is_rejected_and_changes_nothing(store, case):
    """A replacement checks the document across items while the server loads its nodes into the
    staging graph: an error is refused the same way, the live graph is unchanged and the staging
    graph is gone."""
    changes, pointer = next((c, p) for name, c, p in BAD_DOCUMENTS if name == case)
    seed(store)
    before = snapshot(store)
    with pytest.raises(DocumentError) as err:
        import_document(store, parse_document(doc(**changes)), replace=True)
    assert pointer in str(err.value)
    assert snapshot(store) == before
    assert not [g for g in store.command("GRAPH.LIST") if "__staging_" in g]


def test_label_conflict_with_the_graph_is_rejected(store):
    """An id that exists under another label is an error, and nothing is written."""
    import_document(store, parse_document(doc()))
    before = snapshot(store)
    clash = doc(nodes=[{"id": "s1", "label": "Workload", "name": "clash"}], edges=[], alerts=[])
    with pytest.raises(DocumentError, match="already exists in the graph as Session"):
        import_document(store, parse_document(clash))
    assert snapshot(store) == before


def test_route_conflict_with_the_graph_is_rejected(store):
    """A route id already used by another relationship in the graph is refused."""
    import_document(store, parse_document(doc()))
    extra = doc(
        nodes=[{"id": "s2", "label": "Session", "name": "s2"}],
        edges=[{"source": "u1", "type": "HAS_SESSION", "target": "s2", "properties": {"route_id": "rt-1"}}],
        alerts=[],
    )
    with pytest.raises(DocumentError, match="already belongs to u1 -HAS_SESSION-> s1"):
        import_document(store, parse_document(extra))


def test_additive_import_upserts_by_id(store):
    """By default an import adds to the graph and replaces the properties of items it names."""
    import_document(store, parse_document(doc()))
    update = doc(
        nodes=[
            {"id": "d1", "label": "DataAsset", "name": "Data 1 renamed", "properties": {"sensitivity": "low"}},
            {"id": "u2", "label": "Identity", "name": "User 2"},
        ],
        edges=[],
        alerts=[],
    )
    import_document(store, parse_document(update))
    assert counts(store)["nodes"] == 6 + 1  # five entities, one alert, one new identity
    assert ReadTools(store).investigate_alert("T-1").status is Status.NO_PATH  # d1 is now low
    (row,) = store.read("entity_by_id", {"id": "d1"})
    assert row["props"]["name"] == "Data 1 renamed"


def test_replace_swaps_the_whole_graph(store):
    """--replace leaves only the document's contents."""
    seed(store)
    import_document(store, parse_document(doc()), replace=True)
    assert counts(store) == {"nodes": 6, "relationships": 4, "alerts": 1}
    assert ReadTools(store).investigate_alert("BH-1042").status is Status.UNKNOWN_ALERT


def test_failed_write_leaves_the_graph_as_it_was(store):
    """If an import fails after its first batch is written, the live graph is untouched."""
    import_document(store, parse_document(doc()))
    before = snapshot(store)
    more = doc(
        nodes=[{"id": f"n{i}", "label": "Identity", "name": "n"} for i in range(3)]
        + [{"id": "x1", "label": "Session", "name": "x"}],
        edges=[{"source": "n0", "type": "HAS_SESSION", "target": "x1"}],
        alerts=[],
    )

    def fail_after_first_batch(done: int, total: int) -> None:
        if done:
            raise RuntimeError("connection lost after the first batch")

    with pytest.raises(RuntimeError, match="connection lost"):
        import_document(store, parse_document(more), progress=fail_after_first_batch)
    assert snapshot(store) == before
    assert not [g for g in store.command("GRAPH.LIST") if "__staging_" in g]


def test_progress_is_reported(store):
    """Import reports progress up to the total number of items."""
    seen = []
    import_document(store, parse_document(doc()), progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (10, 10)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_seed_reset_restores_scenarios_only(store):
    """seed --reset unblocks seeded routes and leaves other imported data alone."""
    seed(store)
    import_document(store, parse_document(doc()))
    store.execute_write("MATCH ()-[r {route_id: 'route-c11-primary'}]->() SET r.status = 'blocked'")
    store.execute_write("MATCH ()-[r {route_id: 'rt-1'}]->() SET r.status = 'blocked'")
    tools = ReadTools(store)
    assert tools.investigate_alert("BH-CONTAINMENT-4001").path_count == 1
    report = seed(store)
    assert report.loaded == [] and "containment" in report.unchanged
    assert tools.investigate_alert("BH-CONTAINMENT-4001").path_count == 1  # plain seed leaves state alone
    seed(store, reset=True)
    assert tools.investigate_alert("BH-CONTAINMENT-4001").path_count == 2
    assert tools.investigate_alert("T-1").status is Status.NO_PATH  # the user's block stays


def test_seed_documents_are_valid():
    """Every seed file is a valid document with the documented ids."""
    docs = {d.name: d for d in seed_documents()}
    assert set(docs) == {"identity-access-path", "excessive-iam", "exposed-workload", "containment", "audit-fixture"}
    ids = {n.id for d in docs.values() for n in d.nodes}
    assert {"auditor_02", "analytics-cache", "staging-report", "developer_07"} <= ids
    assert docs["identity-access-path"].alerts[0].entity_id == "developer_07"


def test_many_small_batches_import_the_same_graph(store, monkeypatch):
    """A fresh import split into many bulk calls lands whole and answers as one call does."""
    from blastshield_core.graph import ingest
    from blastshield_core.graph.generate import GenerateOptions, generate

    document = parse_document(generate(GenerateOptions(edges=600, seed=3)).to_document())
    monkeypatch.setattr(ingest, "BULK_BATCH", 7)
    import_document(store, document, replace=True)
    alerts = len(document.alerts)
    assert counts(store) == {"nodes": len(document.nodes) + alerts, "relationships": 600, "alerts": alerts}
    pairs = {(r["s"], r["t"]) for r in store.read_text("MATCH (a)-[:HAS_SESSION]->(b) RETURN a.id AS s, b.id AS t")}
    assert pairs == {(e.source, e.target) for e in document.edges if e.type.value == "HAS_SESSION"}


def test_failed_replace_with_batches_in_flight_leaves_the_graph(store, monkeypatch):
    """A replace failing while a bulk call is in flight leaves the live graph and no staging graph."""
    from blastshield_core.graph import ingest
    from blastshield_core.graph.generate import GenerateOptions, generate

    seed(store)
    before = snapshot(store)
    monkeypatch.setattr(ingest, "BULK_BATCH", 5)

    def fail_later(done: int, total: int) -> None:
        if done >= 40:
            raise RuntimeError("lost the connection mid-import")

    document = parse_document(generate(GenerateOptions(edges=300, seed=3)).to_document())
    with pytest.raises(RuntimeError, match="mid-import"):
        import_document(store, document, replace=True, progress=fail_later)
    assert snapshot(store) == before
    assert not [g for g in store.command("GRAPH.LIST") if "__staging_" in g]


def test_fresh_import_stores_every_value_as_the_document_has_it(store, monkeypatch):
    """Bulk calls split labels and types at any point, and every label, name, property and
    relationship reads back exactly: text with quotes and non-ASCII, 64-bit integers, floats,
    booleans and lists (empty and mixed)."""
    from blastshield_core.graph import ingest

    values = {
        "text": 'say "hi" \\ ☃ é 漢字',
        "big": 2**63 - 1,
        "small": -(2**63),
        "ratio": 0.1,
        "flag": False,
        "tags": ["a", 1, 2.5, True],
        "none": [],
    }
    data = doc()
    data["nodes"] = [{**n, "properties": {**n.get("properties", {}), **values}} for n in data["nodes"]]
    data["nodes"] += [{"id": f"u{k}", "label": "Identity", "name": f"User {k}"} for k in range(2, 9)]
    data["edges"] = [
        {**e, "properties": {**e.get("properties", {}), "note": f"edge {i}"}} for i, e in enumerate(data["edges"])
    ]
    data["edges"] += [{"source": f"u{k}", "type": "HAS_SESSION", "target": "s1"} for k in range(2, 9)]
    document = parse_document(data)
    monkeypatch.setattr(ingest, "BULK_BATCH", 3)
    import_document(store, document, replace=True)
    nodes, rels = snapshot(store)
    stored = {row["id"]: (row["l"], row["p"]) for row in nodes}
    for node in document.nodes:
        labels, props = stored.pop(node.id)
        assert labels == ["Entity", node.label.value]
        assert props == {**node.properties, "id": node.id, "name": node.name}
    (alert,) = stored.values()
    assert alert == (
        ["Alert"],
        {"id": "T-1", "title": "tiny", "entity_id": "u1", "kind": "test", "signals": '{"mfa_disabled": true}'},
    )
    assert {(r["a"], r["t"], r["b"]): r["p"] for r in rels} == {
        (e.source, e.type.value, e.target): e.properties for e in document.edges
    }
    assert {row["status"] for row in store.read("index_status")} == {"OPERATIONAL"}


def test_relationships_sharing_one_properties_object_each_store_them(store, monkeypatch):
    """Relationships built with one shared properties object (as a large AWS import builds them) each
    read back with those properties, across bulk calls and next to relationships with their own."""
    from blastshield_core.graph import ingest

    data = doc()
    data["nodes"] += [{"id": f"r{k}", "label": "IAMRole", "name": f"Role {k}"} for k in range(2, 7)]
    data["edges"] += [{"source": f"r{k}", "type": "CAN_READ", "target": "d1"} for k in range(2, 7)]
    document = parse_document(data)
    shared = {"status": "active", "permission": "allow", "actions": ["s3:GetObject"]}
    reads = [e for e in document.edges if e.type.value == "CAN_READ"]
    for edge in [*reads[::2], reads[3]]:  # alone and in a run
        edge.properties = shared
    reads[1].properties = {"status": "active", "permission": "deny"}
    monkeypatch.setattr(ingest, "BULK_BATCH", 4)
    import_document(store, document, replace=True)
    _, rels = snapshot(store)
    assert {(r["a"], r["t"], r["b"]): r["p"] for r in rels} == {
        (e.source, e.type.value, e.target): e.properties for e in document.edges
    }
    assert sum(1 for r in rels if r["p"] == shared) == 4


def _mixed_relationships(mostly_shared: bool = False) -> GraphDocument:
    """Relationships whose properties mix kinds in one column (text, missing, empty text, booleans
    next to integers, 0.0 next to -0.0, lists), many distinct texts, and one properties object
    shared (as a large AWS import shares them) by one in ten, or by runs of nine in ten."""
    edges = []
    for i in range(60):
        props: dict[str, Any] = {"note": f"n{i} ☃" if i % 6 else ""}
        if i % 4:
            props["reason"] = f"reason {i} é"
        props["weight"] = [1, True, 1.0, -0.0, 0.0, False][i % 6]
        if i % 5 == 0:
            props["keys"] = ["k", str(i), i]
        edges.append({"source": f"w{i}", "type": "RUNS_AS", "target": f"r{i % 7}", "properties": props})
    nodes = [{"id": f"w{i}", "label": "Workload", "name": f"W{i}"} for i in range(60)]
    nodes += [{"id": f"r{i}", "label": "IAMRole", "name": f"R{i}"} for i in range(7)]
    document = parse_document({"format": "blastshield-graph/v1", "name": "mixed", "nodes": nodes, "edges": edges})
    shared = {"note": "shared", "status": "active", "weight": 2}
    for i, edge in enumerate(document.edges):
        if (i % 10 == 9) != mostly_shared:
            edge.properties = shared
    return document


@pytest.mark.parametrize("mostly_shared", [False, True])
@pytest.mark.parametrize("table_max", [4096, 2])
def test_relationship_blocks_are_their_rows_packed_value_by_value(monkeypatch, table_max, mostly_shared):
    """Packing relationships a column at a time gives, for any block, exactly the rows packed one
    value at a time (`_bulk_value`): text from a table or piece by piece (with NULLs for missing
    values), booleans apart from integers, -0.0 apart from 0.0, lists, a shared properties object."""
    from blastshield_core.graph import ingest

    monkeypatch.setattr(ingest, "TABLE_MAX", table_max)
    document = _mixed_relationships(mostly_shared)
    number = {node.id: i for i, node in enumerate(document.nodes)}
    keys, pack = ingest._edge_packer(document.edges, number)
    assert keys == sorted({key for edge in document.edges for key in edge.properties})
    assert {"note", "reason", "status", "weight"} <= set(keys)

    def row(edge: Any) -> bytes:
        values = b"".join(ingest._bulk_value(edge.properties.get(key)) for key in keys)
        return ingest._BULK_ENDS.pack(number[edge.source], number[edge.target]) + values

    for start, stop in [(0, 60), (0, 1), (7, 31), (59, 60), (50, 99), (60, 60)]:
        assert pack(start, stop) == b"".join(map(row, document.edges[start:stop])), (start, stop)


@pytest.mark.parametrize("mostly_shared", [False, True])
@pytest.mark.parametrize("table_max", [4096, 2])
def test_relationships_of_mixed_kinds_read_back_as_written(store, monkeypatch, table_max, mostly_shared):
    """The same relationships through a fresh import, in several bulk calls, read back as the document has them."""
    from blastshield_core.graph import ingest

    monkeypatch.setattr(ingest, "TABLE_MAX", table_max)
    monkeypatch.setattr(ingest, "BULK_BATCH", 16)
    document = _mixed_relationships(mostly_shared)
    import_document(store, document, replace=True)
    _, rels = snapshot(store)
    stored = {(r["a"], r["b"]): r["p"] for r in rels}
    for edge in document.edges:
        props = stored.pop((edge.source, edge.target))
        assert props == edge.properties
        assert [type(props[key]) for key in sorted(props)] == [type(edge.properties[key]) for key in sorted(props)]
    assert not stored


def test_indexes_of_a_fresh_import_in_many_calls_cover_every_call(store, monkeypatch):
    """A fresh import in many bulk calls finds every entity through its index, and the routed types
    have their block index (no route of a document is blocked by BlastShield)."""
    from blastshield_core.graph import ingest
    from blastshield_core.graph.generate import GenerateOptions, generate

    document = parse_document(generate(GenerateOptions(edges=400, seed=5)).to_document())
    monkeypatch.setattr(ingest, "BULK_BATCH", 9)
    import_document(store, document, replace=True)
    ids = [n.id for n in document.nodes]
    by_id = "UNWIND {ids} AS i MATCH (n:Entity) WHERE n.id = i RETURN n.id AS id"
    plan = store.command("GRAPH.EXPLAIN", store.settings.graph, by_id.format(ids="['x']"))
    assert any("Index Scan" in line for line in plan)
    found = store.read_text(by_id.format(ids="$ids"), {"ids": ids})
    assert sorted(row["id"] for row in found) == sorted(ids)
    for rel in ("HAS_SESSION", "CAN_ACCESS"):
        query = f"MATCH ()-[r:{rel}]->() WHERE r.blocked_by_run >= '' RETURN count(r) AS n"
        assert any("Index Scan" in line for line in store.command("GRAPH.EXPLAIN", store.settings.graph, query))
        assert sum(1 for e in document.edges if e.type.value == rel) > 0
        (row,) = store.read_text(query)
        assert row["n"] == 0


def test_alerts_alone_are_written_in_place_without_copying_the_graph(store, monkeypatch):
    """A document of alerts alone (new and updated) lands on the live graph without a copy,
    bumps the graph's version and is audited; one with a node still goes through a copy."""
    import_document(store, parse_document(doc()))
    sent = counting_copies(monkeypatch)
    version = store.graph_version()
    alerts = [
        {"id": "T-1", "title": "tiny, retitled", "entity_id": "u1", "kind": "test", "signals": {}},
        {"id": "T-2", "title": "second", "entity_id": "w1", "kind": "test", "signals": {"score": 3}},
    ]
    report = import_document(store, parse_document(doc(name="alerts", nodes=[], edges=[], alerts=alerts)))
    assert sent == [] and store.graph_version() > version
    assert (report.alerts, bool(report.event_id), report.audit_error) == (2, True, "")
    rows = {r["id"]: r for r in store.read_text("MATCH (a:Alert) RETURN a.id AS id, a.title AS title")}
    assert rows["T-1"]["title"] == "tiny, retitled" and "T-2" in rows
    assert counts(store) == {"nodes": 7, "relationships": 4, "alerts": 2}
    import_document(store, parse_document(doc(name="node", edges=[], alerts=[], nodes=BASE["nodes"][:1])))
    assert len(sent) == 1


def test_alerts_alone_that_fail_their_checks_or_lose_the_lock_write_nothing(store):
    """An alert on an unknown entity is refused, and one whose write lock expired before the
    write raises WriteLockLost: neither changes the graph."""
    import_document(store, parse_document(doc()))
    before = snapshot(store)
    stray = [{"id": "T-9", "title": "stray", "entity_id": "nobody", "kind": "test", "signals": {}}]
    with pytest.raises(DocumentError, match="nobody"):
        import_document(store, parse_document(doc(name="stray", nodes=[], edges=[], alerts=stray)))
    store.write_lock_ttl_s = 0.4

    def stall(lock):
        lock.stop_renewing()  # as if the process were frozen: the lock expires
        time.sleep(0.7)

    late = [{"id": "T-9", "title": "late", "entity_id": "u1", "kind": "test", "signals": {}}]
    with pytest.raises(WriteLockLost):
        import_document(store, parse_document(doc(name="late", nodes=[], edges=[], alerts=late)), before_commit=stall)
    assert snapshot(store) == before


def test_a_built_document_is_checked_before_anything_is_written(seeded_store):
    """A built document (relationships as plain rows, as the AWS import makes them) is validated by the
    import with the model's rules: a bad relationship is refused with its place, nothing is written; a
    good one is imported as its rows say."""
    from blastshield_core.graph.model import BuiltDocument, EdgeRow, RelType

    nodes = parse_document(doc()).nodes
    good = [EdgeRow(e.source, e.type, e.target, e.properties) for e in parse_document(doc()).edges]
    before = snapshot(seeded_store)
    bad = EdgeRow("r1", RelType.CAN_READ, "d1", {"status": "active", "permission": "maybe"})
    rows = [*good[:-1], bad] if good[-1].key == bad.key else [*good, bad]
    with pytest.raises(DocumentError) as err:
        import_document(seeded_store, BuiltDocument("built", nodes, rows, []))
    assert f"edges[{len(rows) - 1}] (r1 -CAN_READ-> d1): permission must be allow|deny" in str(err.value)
    assert snapshot(seeded_store) == before
    plain = [row._replace(properties={k: v for k, v in row.properties.items() if k != "status"}) for row in good]
    import_document(seeded_store, BuiltDocument("built", nodes, plain, []))
    _, rels = snapshot(seeded_store)
    stored = {(r["a"], r["t"], r["b"]): r["p"] for r in rels}
    assert all(stored[row.key]["status"] == "active" for row in plain)  # the model's default, as a document gets it
