"""The records and path helpers of the read tools: alert and evidence records, the error for an
unknown alert, source or target, and path rows (compact or as the graph stores them) as models.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from pydantic import TypeAdapter, ValidationError

from ..graph.model import ENDPOINTS, Label, domain_label
from ..graph.store import QueryFailed, decode_cell
from ..results import AccessPath, NodeView, RelView, Status, ToolResult

SENSITIVE = ["high", "critical"]
BLAST_LABELS = (Label.WORKLOAD.value, Label.IAM_ROLE.value, Label.DATA_ASSET.value)
LABEL_ORDER = tuple(label.value for label in Label)


def describe_input_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "input"
        if err["type"] == "string_pattern_mismatch":  # said in words: a pattern is never shown to a person
            text = str(err.get("input", ""))
            first = "block-route:" if where.endswith("candidate_id") else "a letter or digit"
            parts.append(
                f"{where}: {text[:60]!r} is not an id of the graph (ids start with {first} and hold only letters,"
                " digits and _ . : @ -, at most 128)"
            )
            continue
        parts.append(f"{where}: {err['msg']}")
    return "invalid input: " + "; ".join(parts)


# Records here and in `reach`, `rules`, `templates` and `embedded` are named tuples or plain classes, not
# dataclasses: defining a dataclass execs its generated methods, and the five of them took about
# 2.5 ms of every read command's start on this machine.
class AlertRecord(NamedTuple):
    id: str
    title: str
    entity_id: str
    kind: str
    signals: dict[str, Any]


class Evidence(NamedTuple):
    """The standard investigation of one alert, as the tools and the action service see it."""

    alert: AlertRecord
    entity: NodeView
    paths: list[AccessPath]
    truncated: bool


class Unknown(Exception):
    """The alert, source or target is not in the graph."""

    def __init__(self, status: Status, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def _node(row: dict[str, Any]) -> NodeView:
    props = dict(row["props"])
    node_id = props.pop("id", row.get("id"))
    name = props.pop("name", None)
    return NodeView(id=node_id, label=domain_label(row["labels"]), name=name or node_id, properties=props)


# A relationship type's (source, target) labels: a path row carries no labels or
# ends, so they come from the relationship types (import enforces ENDPOINTS).
_ENDS = {rel.value: (source.value, target.value) for rel, (source, target) in ENDPOINTS.items()}


_TARGET_LABEL = {rel_type: ends[1] for rel_type, ends in _ENDS.items()}
_NODE_LIST = TypeAdapter(list[NodeView])
_REL_LIST = TypeAdapter(list[RelView])
_PATH_LIST = TypeAdapter(list[AccessPath])


def _cell_id(cell: list[Any]) -> str:
    """The `id` of a compact node-properties cell [MAP, [key, value cell, ...]], without decoding it."""
    pairs = cell[1]  # keys are strings and value cells lists, so only a key can equal "id"
    return pairs[1][1] if pairs[0] == "id" else pairs[pairs.index("id") + 1][1]


def _node_spec(props: dict[str, Any], label: str) -> dict[str, Any]:
    """A NodeView's fields from a node's stored properties (taken over)."""
    node_id = props.pop("id")
    name = props.pop("name", None)
    return {"id": node_id, "label": label, "name": name or node_id, "properties": props}


def _paths_from_records(records: list[list[Any]], nodes_at: int, rels_at: int) -> list[AccessPath]:
    """Slim path records (node properties; relationship [type, properties]), still in the
    compact format, as models.

    A path runs forward from its first node, so relationship i joins nodes i and
    i + 1, and each node's label is the one its relationship type implies. A node
    or relationship met on several paths is decoded and validated once.
    """
    node_specs: dict[str, dict[str, Any]] = {}
    rel_specs: dict[tuple[str, str, str], dict[str, Any]] = {}
    shapes: list[tuple[list[str], list[tuple[str, str, str]]]] = []
    for record in records:
        rel_cells = record[rels_at][1]  # each [ARRAY, [[STRING, type], [MAP, properties]]]
        start, *node_cells = record[nodes_at][1]  # each [MAP, [key, value cell, ...]]
        source = _cell_id(start)
        if source not in node_specs:
            node_specs[source] = _node_spec(decode_cell(start), _ENDS[rel_cells[0][1][0][1]][0])
        ids = [source]
        keys = []
        for rel_cell, cell in zip(rel_cells, node_cells, strict=True):
            rel_type = rel_cell[1][0][1]
            node_id = _cell_id(cell)
            if node_id not in node_specs:
                node_specs[node_id] = _node_spec(decode_cell(cell), _TARGET_LABEL[rel_type])
            key = (source, rel_type, node_id)
            if key not in rel_specs:
                properties = decode_cell(rel_cell[1][1])
                rel_specs[key] = {"type": rel_type, "source": source, "target": node_id, "properties": properties}
            ids.append(node_id)
            keys.append(key)
            source = node_id
        shapes.append((ids, keys))
    return _validated_paths(node_specs, rel_specs, shapes)


# Compact types of a node and a relationship: [NODE, [node id, [label ids], [[key id, type, value], ...]]]
# and [EDGE, [edge id, type id, source node id, target node id, [[key id, type, value], ...]]].
_NODE, _EDGE = 8, 7
_AS_SENT = frozenset((2, 3))  # compact strings and integers: the value needs no decoding


def _graph_properties(cells: list[list[Any]], keys: list[str]) -> dict[str, Any]:
    """A node's or relationship's [[key id, type, value], ...] as a dict, keys named from the schema row."""
    return {keys[key]: value if kind in _AS_SENT else decode_cell([kind, value]) for key, kind, value in cells}


def _paths_from_graph_records(
    records: list[list[Any]], nodes_at: int, rels_at: int, *, first: NodeView, keys: list[str], types: list[str]
) -> list[AccessPath]:
    """Path records that carry nodes and relationships as the graph stores them (compact
    NODE and EDGE cells, property keys and relationship types by id), every path's first
    node left out (it is `first`), as models. `keys` and `types` are the graph's property
    keys and relationship types in id order, read by the same query.

    Projecting `nodes(p)` and `relationships(p)` as they are costs the server about a third
    less than projecting their property maps. Each node and relationship is decoded and
    validated once, found again by its id in the graph.
    """
    node_specs: dict[int, dict[str, Any]] = {}
    rel_specs: dict[int, dict[str, Any]] = {}
    shapes: list[tuple[list[str], list[int]]] = []
    for record in records:
        source = first.id
        ids = [source]
        edges = []
        for rel_cell, node_cell in zip(record[rels_at][1], record[nodes_at][1], strict=True):
            if rel_cell[0] != _EDGE or node_cell[0] != _NODE:
                raise QueryFailed("a path record did not carry a relationship and a node")
            edge, node = rel_cell[1], node_cell[1]
            rel_type = types[edge[1]]
            spec = node_specs.get(node[0])
            if spec is None:
                spec = node_specs[node[0]] = _node_spec(_graph_properties(node[2], keys), _TARGET_LABEL[rel_type])
            node_id = spec["id"]
            if edge[0] not in rel_specs:
                properties = _graph_properties(edge[4], keys)
                rel_specs[edge[0]] = {"type": rel_type, "source": source, "target": node_id, "properties": properties}
            ids.append(node_id)
            edges.append(edge[0])
            source = node_id
        shapes.append((ids, edges))
    return _validated_paths(node_specs, rel_specs, shapes, first)


def _validated_paths(
    node_specs: dict[Any, dict[str, Any]],
    rel_specs: dict[Any, dict[str, Any]],
    shapes: list[tuple[list[str], list[Any]]],
    first: NodeView | None = None,
) -> list[AccessPath]:
    """Paths as models, from the specs of their distinct nodes and relationships; each kind
    of model is validated in one call (one call per model cost about twice as much)."""
    specs = list(node_specs.values())
    nodes = {spec["id"]: node for spec, node in zip(specs, _NODE_LIST.validate_python(specs), strict=True)}
    if first is not None:
        nodes[first.id] = first
    rels = dict(zip(rel_specs, _REL_LIST.validate_python(list(rel_specs.values())), strict=True))
    return _PATH_LIST.validate_python(
        [{"nodes": [nodes[i] for i in ids], "relationships": [rels[k] for k in keys]} for ids, keys in shapes]
    )


# Paths of 1..3 relationships are few from any start, so the deepening starts there.
SHORTEST_FIRST_DEPTH = 3


def _deepening(max_hops: int) -> list[int]:
    """The depths to try, in order: one query up to SHORTEST_FIRST_DEPTH, then one per hop."""
    first = min(SHORTEST_FIRST_DEPTH, max_hops)
    return [first, *range(first + 1, max_hops + 1)]


def _signals(raw: Any) -> dict[str, Any]:
    """An alert's stored signals (a JSON object as text); anything else reads as none."""
    try:
        signals = json.loads(raw or "{}")
    except (TypeError, json.JSONDecodeError):
        signals = {}
    return signals if isinstance(signals, dict) else {}


def _alert_record(props: dict[str, Any]) -> AlertRecord:
    return AlertRecord(
        id=props["id"],
        title=props.get("title", ""),
        entity_id=props.get("entity_id", ""),
        kind=props.get("kind", ""),
        signals=_signals(props.get("signals")),
    )


def _count(result: ToolResult) -> int:
    for attr in ("paths", "entities", "routes", "candidates", "alerts", "relationships", "identities"):
        value = getattr(result, attr, None)
        if isinstance(value, list):
            return len(value)
    return 0


def _qualifies(props: dict[str, Any]) -> bool:
    return props.get("status", "active") != "blocked" and props.get("permission", "allow") != "deny"


def path_signature(paths: Sequence[AccessPath]) -> set[tuple[str, ...]]:
    """Paths as a set of node-id sequences (for comparisons)."""
    return {p.node_ids for p in paths}
