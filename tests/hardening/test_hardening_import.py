"""Imported documents: rejected whole with a pointer to the item, or imported whole and read back exactly."""

from __future__ import annotations

import copy
import json
import re
import time
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blastshield_core import DocumentError, Store, import_document, load_settings, parse_document
from blastshield_core.graph.ingest import parse_bytes
from blastshield_core.read.tools import ReadTools
from tests.conftest import graph_snapshot

BUDGET = settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def chain(name: str = "x", props: dict | None = None, edge_props: dict | None = None) -> dict:
    """A five-hop chain to a critical asset with an alert, every node carrying `name` and `props`."""
    props = props or {}
    nodes = [
        ("i1", "Identity", {}),
        ("s1", "Session", {}),
        ("w1", "Workload", {}),
        ("r1", "IAMRole", {}),
        ("a1", "DataAsset", {"sensitivity": "critical"}),
    ]
    types = ["HAS_SESSION", "CAN_ACCESS", "RUNS_AS", "CAN_READ"]
    return {
        "format": "blastshield-graph/v1",
        "name": "hostile",
        "nodes": [
            {"id": i, "label": label, "name": name, "properties": {**props, **extra}} for i, label, extra in nodes
        ],
        "edges": [
            {
                "source": nodes[k][0],
                "type": types[k],
                "target": nodes[k + 1][0],
                "properties": {**(edge_props or {}), **({"route_id": f"route-{k}"} if k < 2 else {})},
            }
            for k in range(4)
        ],
        "alerts": [{"id": "AL-1", "title": name, "entity_id": "i1", "kind": "test", "signals": {}}],
    }


def _mutate(path: str, value):
    def apply(doc: dict) -> dict:
        doc = copy.deepcopy(doc)
        target = doc
        keys = path.split(".")
        for key in keys[:-1]:
            target = target[int(key)] if key.isdigit() else target[key]
        last = keys[-1]
        if value is DELETE:
            del target[int(last) if last.isdigit() else last]
        elif last.isdigit():
            target[int(last)] = value
        else:
            target[last] = value
        return doc

    return apply


DELETE = object()


def _deep(levels: int):
    value: object = "x"
    for _ in range(levels):
        value = [value]
    return value


INVALID = [
    ("format wrong", _mutate("format", "blastshield-graph/v2"), "format"),
    ("nodes not a list", _mutate("nodes", {"id": "i1"}), "nodes"),
    ("node not an object", _mutate("nodes.0", "i1"), "nodes[0]"),
    ("node id a number", _mutate("nodes.0.id", 17), "nodes[0].id"),
    ("node id null", _mutate("nodes.0.id", None), "nodes[0].id"),
    ("node id cypher", _mutate("nodes.0.id", "i1') DETACH DELETE n //"), "nodes[0].id"),
    ("node missing label", _mutate("nodes.1.label", DELETE), "nodes[1].label"),
    ("node missing name", _mutate("nodes.1.name", DELETE), "nodes[1].name"),
    ("unknown label", _mutate("nodes.2.label", "Admin`) DETACH DELETE n //"), "nodes[2].label"),
    ("unknown edge type", _mutate("edges.0.type", "OWNS"), "edges[0].type"),
    ("edge type cypher", _mutate("edges.0.type", "HAS_SESSION]->() DETACH DELETE n //"), "edges[0].type"),
    ("extra key", _mutate("nodes.0.shell", "rm -rf /"), "nodes[0]"),
    ("name with NUL", _mutate("nodes.3.name", "role\x00"), "nodes[3]"),
    ("name with escape", _mutate("nodes.3.name", "role\x1b[2J"), "nodes[3]"),
    ("title with NUL", _mutate("alerts.0.title", "t\x00"), "alerts[0]"),
    ("name too long", _mutate("nodes.0.name", "n" * 257), "nodes[0].name"),
    ("property 1 MB", _mutate("nodes.0.properties", {"note": "x" * (1 << 20)}), "nodes[0]"),
    ("property key cypher", _mutate("nodes.0.properties", {"a}) DETACH DELETE n //": 1}), "nodes[0]"),
    ("property key backtick", _mutate("nodes.0.properties", {"`id`": 1}), "nodes[0]"),
    ("property nested object", _mutate("nodes.0.properties", {"p": {"q": 1}}), "nodes[0].properties"),
    ("property deep nesting", _mutate("nodes.0.properties", {"p": _deep(200)}), "nodes[0].properties"),
    ("property int beyond int64", _mutate("nodes.0.properties", {"p": 2**63}), "nodes[0].properties"),
    ("property int below int64", _mutate("nodes.0.properties", {"p": -(2**63) - 1}), "nodes[0].properties"),
    ("property float of 16 digits", _mutate("nodes.0.properties", {"p": 1000000000000001.0}), "nodes[0]"),
    ("property float 0.1+0.2", _mutate("edges.2.properties", {"w": 0.1 + 0.2}), "edges[2]"),
    ("property list too long", _mutate("nodes.0.properties", {"p": list(range(257))}), "nodes[0].properties"),
    ("sensitivity missing", _mutate("nodes.4.properties", {}), "nodes[4]"),
    ("status unknown", _mutate("edges.1.properties", {"status": "open"}), "edges[1]"),
    ("route id cypher", _mutate("edges.1.properties", {"route_id": "r') SET r.status='active"}), "edges[1]"),
    ("permission on a session", _mutate("edges.0.properties", {"permission": "allow"}), "edges[0]"),
    ("duplicate node id", lambda d: {**d, "nodes": [*d["nodes"], d["nodes"][2]]}, "nodes[5] (id 'w1')"),
    ("duplicate edge", lambda d: {**d, "edges": [*d["edges"], d["edges"][3]]}, "edges[4]"),
    ("duplicate alert", lambda d: {**d, "alerts": d["alerts"] * 2}, "alerts[1]"),
    ("edge to missing node", _mutate("edges.3.target", "ghost-asset"), "edges[3]"),
    ("edge from missing node", _mutate("edges.0.source", "ghost"), "edges[0]"),
    ("edge wrong endpoint label", _mutate("edges.0.target", "w1"), "edges[0]"),
    ("self loop", lambda d: {**d, "edges": [*d["edges"], {"source": "r1", "type": "CAN_ASSUME", "target": "r1"}]},
     "edges[4]"),
    ("alert on missing entity", _mutate("alerts.0.entity_id", "ghost"), "alerts[0]"),
    ("route reused", _mutate("edges.1.properties", {"route_id": "route-0"}), "edges[1]"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "mutate", "pointer"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid_document_is_rejected_whole_with_a_pointer(store, case, mutate, pointer):
    """Each malformed document is refused naming the offending item; the graph is exactly as before."""
    import_document(store, parse_document(chain("base")))
    before = graph_snapshot(store)
    with pytest.raises(DocumentError) as err:
        import_document(store, parse_document(mutate(chain("new name"))))
    assert pointer in err.value.item, (err.value.item, err.value.message)
    assert graph_snapshot(store) == before


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"format": "blastshield-graph/v1", "name": "x", "nodes": ' + b"[" * 50_000, "nested too deeply"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b'{"format": "blastshield-graph/v1", "name": "x", "nodes": [}', "not valid JSON"),
        (b"[]", "JSON object"),
        (b"null", "JSON object"),
        (b'"blastshield-graph/v1"', "JSON object"),
    ],
)
def test_junk_bytes_are_rejected_before_validation(raw, message):
    """Deeply nested, undecodable or non-object input is a DocumentError, never a crash."""
    with pytest.raises(DocumentError, match=message):
        parse_bytes(raw)


# Text the document accepts: anything but control characters (tab and newline are allowed) and lone surrogates.
stored_text = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x7f"),
    min_size=1,
    max_size=80,
).filter(lambda s: not CONTROL.search(s))
INJECTION = [
    'x" }) MATCH (n) DETACH DELETE n //',
    "x' }) MATCH (n) DETACH DELETE n //",
    "\\",
    '\\"',
    "\\\\\"'",
    "$rows",
    "`Entity`",
    "{id: 'x'}",
    "\\u0022) DETACH DELETE n //",
    "名前 🚀 é\u0301 \u202e\u200b",
    "line\nbreak\ttab",
]
value_text = st.one_of(st.sampled_from(INJECTION), stored_text)
scalar = st.one_of(
    value_text,
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: float(f"{f:.15g}") == f),
)
properties = st.dictionaries(
    st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True).filter(
        lambda k: k not in {"id", "name", "label", "sensitivity", "status", "route_id", "permission"}
    ),
    st.one_of(scalar, st.lists(scalar, max_size=4)),
    max_size=4,
)


def test_property_values_round_trip_exactly_through_import_and_tools(loopback_server):
    """Names and property values with quotes, backslashes, Cypher and unicode come back from the tools exactly."""
    graph = f"rt_{uuid.uuid4().hex[:8]}"
    store = Store(load_settings(environ={}, falkordb_url=loopback_server.url, graph=graph, audit_graph=f"{graph}_a"))
    tools = ReadTools(store)
    try:

        @BUDGET
        @given(name=value_text, props=properties, edge_props=properties)
        def check(name, props, edge_props):
            import_document(store, parse_document(chain(name, props, edge_props)), replace=True)
            result = tools.investigate_alert("AL-1")
            assert result.status.value == "paths_found", result.message
            assert result.alert.title == name
            (path,) = result.paths
            for node in path.nodes:
                assert node.name == name
                assert {k: v for k, v in node.properties.items() if k != "sensitivity"} == props
            for rel in path.relationships:
                extra = {k: v for k, v in rel.properties.items() if k not in ("route_id", "status", "permission")}
                assert extra == edge_props
            assert store.read_text("MATCH (n) RETURN count(n) AS c")[0]["c"] == 6

        check()
    finally:
        for name in (graph, f"{graph}_a"):
            if store.graph_exists(name):
                store.command("GRAPH.DELETE", name)
        store.close()


def test_json_text_with_injection_names_round_trips(store, tmp_path):
    """A document file whose names are Cypher-injection attempts imports and reads back byte for byte."""
    name = 'x" }) MATCH (n) DETACH DELETE n // \\" \u202e 🚀'
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(chain(name, {"note": "') DETACH DELETE n //", "q": ['"', "\\", "$x"]})))
    from blastshield_core import load_document

    import_document(store, load_document(path))
    rows = store.read_text("MATCH (n:Entity) RETURN n.name AS name, n.note AS note, n.q AS q")
    assert len(rows) == 5
    assert all(r["name"] == name and r["note"] == "') DETACH DELETE n //" and r["q"] == ['"', "\\", "$x"] for r in rows)


LARGE = 100_000


def _large_document(nodes: int) -> dict:
    """`nodes` nodes in chains identity→session→workload→role→asset, with the edges between them."""
    labels = ["Identity", "Session", "Workload", "IAMRole", "DataAsset"]
    types = ["HAS_SESSION", "CAN_ACCESS", "RUNS_AS", "CAN_READ"]
    chains = nodes // 5
    doc_nodes, doc_edges = [], []
    for c in range(chains):
        ids = [f"n{c}-{k}" for k in range(5)]
        for k, label in enumerate(labels):
            props = {"sensitivity": "high"} if label == "DataAsset" else {}
            doc_nodes.append({"id": ids[k], "label": label, "name": f"{label} {c} ü", "properties": props})
        for k, rel in enumerate(types):
            props = {"route_id": f"route-{c}-{k}"} if k < 2 else {}
            doc_edges.append({"source": ids[k], "type": rel, "target": ids[k + 1], "properties": props})
    return {"format": "blastshield-graph/v1", "name": "large", "nodes": doc_nodes, "edges": doc_edges, "alerts": []}


@pytest.fixture(scope="module")
def large_document() -> dict:
    return _large_document(LARGE)


def test_large_document_is_imported_whole(loopback_server, large_document, record_property):
    """A 100k-node document (80k relationships) lands whole: every node and relationship is counted."""
    graph = f"large_{uuid.uuid4().hex[:8]}"
    store = Store(load_settings(environ={}, falkordb_url=loopback_server.url, graph=graph, audit_graph=f"{graph}_a"))
    try:
        started = time.perf_counter()
        doc = parse_document(large_document)
        parsed = time.perf_counter()
        import_document(store, doc)
        done = time.perf_counter()
        record_property("parse_s", round(parsed - started, 2))
        record_property("import_s", round(done - parsed, 2))
        print(f"100k-node document: validated in {parsed - started:.2f}s, imported in {done - parsed:.2f}s")
        assert store.read_text("MATCH (n:Entity) RETURN count(n) AS c")[0]["c"] == LARGE
        assert store.read_text("MATCH ()-[r]->() RETURN count(r) AS c")[0]["c"] == LARGE // 5 * 4
        assert done - started < 120
    finally:
        if store.graph_exists(graph):
            store.command("GRAPH.DELETE", graph)
        store.close()


def test_large_document_with_one_bad_edge_is_rejected_whole(remote_store, large_document):
    """The same 100k-node document with its last edge pointing nowhere writes nothing at all."""
    store = remote_store.for_graph(f"bad_{uuid.uuid4().hex[:8]}")
    try:
        import_document(store, parse_document(chain("base")))
        before = graph_snapshot(store)
        last = large_document["edges"][-1]
        large_document["edges"][-1] = {**last, "target": "ghost"}
        try:
            with pytest.raises(DocumentError) as err:
                import_document(store, parse_document(large_document))
        finally:
            large_document["edges"][-1] = last
        assert err.value.item.startswith(f"edges[{len(large_document['edges']) - 1}]")
        assert graph_snapshot(store) == before
    finally:
        store.command("GRAPH.DELETE", store.settings.graph)
