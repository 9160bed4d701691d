"""Export: the current graph as a graph document, lossless through import → export → import."""

from __future__ import annotations

import json
import uuid

import pytest

from blastshield_core.graph.export import export_document, write_document
from blastshield_core.graph.ingest import import_document, load_document, parse_document
from blastshield_core.graph.seeds import merge_documents, seed_documents
from tests.conftest import graph_state
from tests.helpers.small_graphs import small_graph_document


def _canonical(doc) -> dict:
    """A document as plain data in a fixed order (the name aside), for comparisons."""
    data = doc.model_dump(mode="json")
    return {
        "nodes": sorted(data["nodes"], key=lambda n: n["id"]),
        "edges": sorted(data["edges"], key=lambda e: (e["source"], e["type"], e["target"])),
        "alerts": sorted(data["alerts"], key=lambda a: a["id"]),
    }


def _round_trip(store, doc):
    """Import `doc` into `store`, export it, import the export into a second graph and export that."""
    import_document(store, doc, replace=True)
    first = export_document(store, name=doc.name)
    second_store = store.for_graph(f"t_{uuid.uuid4().hex[:12]}")
    try:
        import_document(second_store, first, replace=True)
        second = export_document(second_store, name=doc.name)
    finally:
        second_store.command("GRAPH.DELETE", second_store.settings.graph)
    return first, second


def test_seed_export_equals_the_seed_documents(store):
    """Exporting the seeded graph gives back every node, relationship and alert of the seed files, property for property."""
    seeds = merge_documents("seed-scenarios", seed_documents())
    import_document(store, seeds)
    assert _canonical(export_document(store)) == _canonical(seeds)


def test_seed_import_export_import_is_identical(store):
    """import → export → import → export gives the same document twice."""
    first, second = _round_trip(store, merge_documents("seed-scenarios", seed_documents()))
    assert first.model_dump(mode="json") == second.model_dump(mode="json")


@pytest.mark.parametrize("seed", range(0, 48, 3))
def test_random_documents_round_trip_losslessly(store, seed):
    """Small random documents (blocked and denied relationships, routes, signals) survive the round trip."""
    doc = parse_document(small_graph_document(seed))
    first, second = _round_trip(store, doc)
    assert _canonical(first) == _canonical(doc)
    assert _canonical(second) == _canonical(doc)


def test_property_types_survive(store):
    """Booleans, integers, floats, strings and lists keep their types, and alert signals their values."""
    doc = parse_document(
        {
            "format": "blastshield-graph/v1",
            "name": "types",
            "nodes": [
                {
                    "id": "u1",
                    "label": "Identity",
                    "name": "User one",
                    "properties": {"mfa": False, "age_days": 3, "score": 0.25, "tags": ["a", "b"], "note": "ünï"},
                },
                {"id": "s1", "label": "Session", "name": "s1", "properties": {}},
            ],
            "edges": [
                {"source": "u1", "type": "HAS_SESSION", "target": "s1", "properties": {"route_id": "r1", "weight": 1.5}}
            ],
            "alerts": [
                {
                    "id": "A1",
                    "title": "t",
                    "entity_id": "u1",
                    "kind": "k",
                    "signals": {"mfa_disabled": True, "count": 2, "ratio": 0.5, "src": "x"},
                }
            ],
        }
    )
    import_document(store, doc)
    assert _canonical(export_document(store)) == _canonical(doc)


def test_export_writes_nothing(seeded_store):
    """Export only reads: the graph is unchanged afterwards."""
    before = graph_state(seeded_store)
    export_document(seeded_store)
    assert graph_state(seeded_store) == before


def test_written_file_loads_back(seeded_store, tmp_path):
    """write_document produces a file that load_document validates into the same document."""
    doc = export_document(seeded_store, name="exported")
    target = tmp_path / "graph.json"
    size = write_document(doc, target)
    assert size == target.stat().st_size
    assert json.loads(target.read_text())["format"] == "blastshield-graph/v1"
    assert load_document(target) == doc
