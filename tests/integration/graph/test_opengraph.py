"""OpenGraph export: BloodHound's published node/edge schemas accept it, and it carries the whole graph."""

from __future__ import annotations

import json
import uuid

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from blastshield_core.graph.export import export_document
from blastshield_core.graph.ingest import import_document, parse_document
from blastshield_core.graph.model import Label
from blastshield_core.graph.opengraph import (
    ALERT_EDGE_KIND,
    ALERT_KIND,
    alert_node_id,
    node_kind,
    primitive_properties,
    to_opengraph,
)
from blastshield_core.graph.seeds import merge_documents, seed_documents
from tests.conftest import run_cli
from tests.helpers.paths import DATA

SCHEMAS = DATA / "opengraph"

# The payload envelope, as the OpenGraph schema page describes it, around BloodHound's own schemas.
ENVELOPE = {
    "type": "object",
    "properties": {
        "metadata": {"$ref": "urn:opengraph:metadata"},
        "graph": {
            "type": "object",
            "properties": {
                "nodes": {"type": "array", "items": {"$ref": "urn:opengraph:node"}},
                "edges": {"type": "array", "items": {"$ref": "urn:opengraph:edge"}},
            },
            "required": ["nodes", "edges"],
        },
    },
    "required": ["graph"],
}


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    resources = [
        (
            f"urn:opengraph:{name}",
            Resource.from_contents(json.loads((SCHEMAS / f"{name}.json").read_text()), DRAFT202012),
        )
        for name in ("node", "edge", "metadata")
    ]
    return jsonschema.Draft202012Validator(ENVELOPE, registry=Registry().with_resources(resources))


@pytest.fixture(scope="module")
def seeds():
    return merge_documents("seed-scenarios", seed_documents())


def _errors(validator, payload) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(payload)]


def test_seed_export_is_valid_opengraph(validator, seeds):
    """The seed scenarios as OpenGraph pass BloodHound's node, edge and metadata schemas."""
    assert _errors(validator, to_opengraph(seeds)) == []


def test_schema_check_can_fail(validator, seeds):
    """The check is real: a nested object property, a kind with a dash and a node without kinds are refused."""
    payload = to_opengraph(seeds)
    payload["graph"]["nodes"][0]["properties"]["nested"] = {"a": 1}
    payload["graph"]["edges"][0]["kind"] = "HAS-SESSION"
    del payload["graph"]["nodes"][1]["kinds"]
    assert len(_errors(validator, payload)) == 3


def test_every_entity_relationship_and_alert_is_carried(seeds):
    """Nodes, edges and alerts of the document all appear, each entity with one BlastShield kind."""
    payload = to_opengraph(seeds)
    nodes = {n["id"]: n for n in payload["graph"]["nodes"]}
    for node in seeds.nodes:
        assert nodes[node.id]["kinds"] == [node_kind(node.label.value)]
        assert nodes[node.id]["properties"]["name"] == node.name
    edges = {(e["start"]["value"], e["kind"], e["end"]["value"]) for e in payload["graph"]["edges"]}
    assert {(e.source, e.type.value, e.target) for e in seeds.edges} <= edges
    assert {(alert_node_id(a.id), ALERT_EDGE_KIND, a.entity_id) for a in seeds.alerts} <= edges
    assert len(edges) == len(seeds.edges) + len(seeds.alerts)
    assert {nodes[alert_node_id(a.id)]["kinds"][0] for a in seeds.alerts} == {ALERT_KIND}
    assert all(e["start"]["match_by"] == e["end"]["match_by"] == "id" for e in payload["graph"]["edges"])
    assert payload["metadata"] == {"source_kind": "BlastShield"}


def test_kinds_are_one_per_label_and_prefixed(seeds):
    """The five labels map to five distinct BlastShield_ kinds, and only those (plus the alert kind)."""
    kinds = {n["kinds"][0] for n in to_opengraph(seeds)["graph"]["nodes"]}
    assert kinds == {f"BlastShield_{label.value}" for label in Label} | {"BlastShield_Alert"}


def test_relationship_states_survive(seeds):
    """Blocked, denied and route properties of relationships are edge properties in OpenGraph."""
    edges = to_opengraph(seeds)["graph"]["edges"]
    props = {(e["start"]["value"], e["kind"], e["end"]["value"]): e["properties"] for e in edges}
    for edge in seeds.edges:
        assert props[(edge.source, edge.type.value, edge.target)] == edge.properties


def test_alert_signals_become_flat_properties(seeds):
    """Each alert's signals are primitive `signal_<key>` properties of its node."""
    alert = next(a for a in seeds.alerts if a.signals)
    node = next(n for n in to_opengraph(seeds)["graph"]["nodes"] if n["id"] == alert_node_id(alert.id))
    for key, value in alert.signals.items():
        assert node["properties"][f"signal_{key.lower()}"] == value
    assert node["properties"]["entity_id"] == alert.entity_id


@pytest.mark.parametrize(
    ("props", "expected"),
    [
        ({"tags": ["a", "b"], "n": 3}, {"tags": ["a", "b"], "n": 3}),
        ({"mixed": ["a", 1, True]}, {"mixed": ["a", "1", "true"]}),
        ({"nums": [1, 2.5]}, {"nums": [1, 2.5]}),
        ({"obj": {"b": 1, "a": [2]}}, {"obj": '{"a": [2], "b": 1}'}),
        ({"objs": [{"k": 1}]}, {"objs": ['{"k": 1}']}),
        ({"Arn": "x", "arn": "y"}, {"arn": "x", "arn_2": "y"}),
        ({"gone": None, "kept": False}, {"kept": False}),
    ],
)
def test_primitive_properties(props, expected):
    """Objects become JSON text, mixed lists strings, keys lowercase (a clash gets a suffix), None is left out."""
    assert primitive_properties(props) == expected


def test_flattened_awkward_properties_pass_the_schema(validator):
    """A document with uppercase keys and mixed lists still exports as valid OpenGraph."""
    doc = parse_document(
        {
            "format": "blastshield-graph/v1",
            "name": "awkward",
            "nodes": [
                {"id": "u1", "label": "Identity", "name": "u1", "properties": {"Mixed": ["a", 1], "ARN": "arn:x"}},
                {"id": "s1", "label": "Session", "name": "s1"},
            ],
            "edges": [{"source": "u1", "type": "HAS_SESSION", "target": "s1", "properties": {"Tags": [True, "x"]}}],
        }
    )
    payload = to_opengraph(doc)
    assert _errors(validator, payload) == []
    assert payload["graph"]["nodes"][0]["properties"]["mixed"] == ["a", "1"]


def test_cli_export_opengraph_from_the_graph(loopback_server, validator, tmp_path):
    """`export FILE --format opengraph` writes a valid OpenGraph file of the live graph; the default stays v1."""
    env = {"FALKORDB_URL": loopback_server.url, "BLASTSHIELD_GRAPH": f"og_{uuid.uuid4().hex[:8]}"}
    assert run_cli("seed", env=env).returncode == 0
    out = tmp_path / "graph.opengraph.json"
    result = run_cli("export", str(out), "--format", "opengraph", "--json", env=env)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    payload = json.loads(out.read_text())
    assert _errors(validator, payload) == []
    assert report["format"] == "opengraph"
    assert len(payload["graph"]["nodes"]) == report["nodes"] + report["alerts"]
    assert len(payload["graph"]["edges"]) == report["edges"] + report["alerts"]
    plain = tmp_path / "graph.json"
    assert run_cli("export", str(plain), env=env).returncode == 0
    assert json.loads(plain.read_text())["format"] == "blastshield-graph/v1"


def test_export_of_a_live_graph_matches_the_document(store, validator, seeds):
    """Exporting the stored seeds as OpenGraph gives the same payload as converting the seed documents."""
    import_document(store, seeds)
    payload = to_opengraph(export_document(store))

    def canonical(p):
        return (
            sorted(json.dumps(n, sort_keys=True) for n in p["graph"]["nodes"]),
            sorted(json.dumps(e, sort_keys=True) for e in p["graph"]["edges"]),
        )

    assert canonical(payload) == canonical(to_opengraph(seeds))
    assert _errors(validator, payload) == []
