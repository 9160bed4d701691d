"""The graph as BloodHound OpenGraph JSON (`export FILE --format opengraph`).

BloodHound CE (v8+) ingests "OpenGraph" payloads: `{"metadata": {"source_kind": ...},
"graph": {"nodes": [...], "edges": [...]}}`. Each node has an `id`, one to three
`kinds` and primitive `properties`; each edge names its ends as
`{"value": ID, "match_by": "id"}`, has a `kind` matching `^[A-Za-z0-9_]+$` and
`properties`. The mapping (docs/opengraph.md says why):

- every entity is a node with the one kind `BlastShield_<Label>` (`BlastShield_Identity`,
  ... `BlastShield_DataAsset`) and the properties `name`, `blastshield_label` and its own;
- every relationship is an edge of its own type (`HAS_SESSION` ... `CAN_READ`) with its
  properties (`status`, `route_id`, `permission`, ...);
- every alert is a node of kind `BlastShield_Alert` with id `alert/<alert id>` (a `/`
  never occurs in an entity id, so the two cannot collide), its title, kind and each
  signal as `signal_<key>`, and an `ALERT_ON` edge to its entity.

Property values must be primitives or arrays of primitives of one type. BlastShield's
own values already are, except that a list may mix types: such a list is written as
strings (each item as its JSON text). BloodHound asks for lowercase property names;
keys are lowercased, and a key that would then collide with another gets `_2`, `_3`, ...
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .export import write_json
from .model import GraphDocument

__all__ = [
    "ALERT_EDGE_KIND",
    "ALERT_KIND",
    "KIND_PREFIX",
    "OPENGRAPH_SOURCE_KIND",
    "alert_node_id",
    "node_kind",
    "primitive_properties",
    "to_opengraph",
    "write_opengraph",
]

OPENGRAPH_SOURCE_KIND = "BlastShield"
KIND_PREFIX = "BlastShield_"
ALERT_KIND = f"{KIND_PREFIX}Alert"
ALERT_EDGE_KIND = "ALERT_ON"


def node_kind(label: str) -> str:
    """The OpenGraph kind of a BlastShield label: `Identity` -> `BlastShield_Identity`."""
    return f"{KIND_PREFIX}{label}"


def alert_node_id(alert_id: str) -> str:
    """The OpenGraph node id of an alert (cannot collide with an entity id, which has no `/`)."""
    return f"alert/{alert_id}"


def _homogeneous(values: list[Any]) -> list[Any]:
    kinds = {bool if type(v) is bool else (float if type(v) in (int, float) else type(v)) for v in values}
    if len(kinds) <= 1:
        return list(values)
    return [v if isinstance(v, str) else json.dumps(v) for v in values]


def _primitive(value: Any) -> Any:
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, list | tuple):
        if all(item is not None and isinstance(item, str | bool | int | float) for item in value):
            return _homogeneous(list(value))
        return [item if isinstance(item, str) else json.dumps(item, sort_keys=True, default=str) for item in value]
    # An object (or anything else) becomes its JSON text.
    return json.dumps(value, sort_keys=True, default=str)


def primitive_properties(props: dict[str, Any]) -> dict[str, Any]:
    """`props` with lowercase keys and values that are primitives or homogeneous arrays of them.

    None values are left out; objects become JSON text; mixed lists become lists of strings.
    """
    out: dict[str, Any] = {}
    for key in sorted(props):
        value = props[key]
        if value is None:
            continue
        name = key.lower()
        if name in out:
            suffix = 2
            while f"{name}_{suffix}" in out:
                suffix += 1
            name = f"{name}_{suffix}"
        out[name] = _primitive(value)
    return out


def _id_end(value: str) -> dict[str, str]:
    return {"value": value, "match_by": "id"}


def to_opengraph(doc: GraphDocument) -> dict[str, Any]:
    """The document as an OpenGraph payload (plain JSON data)."""
    nodes: list[dict[str, Any]] = []
    for node in doc.nodes:
        props = primitive_properties({**node.properties, "name": node.name, "blastshield_label": node.label.value})
        nodes.append({"id": node.id, "kinds": [node_kind(node.label.value)], "properties": props})
    edges: list[dict[str, Any]] = [
        {
            "start": _id_end(edge.source),
            "end": _id_end(edge.target),
            "kind": edge.type.value,
            "properties": primitive_properties(edge.properties),
        }
        for edge in doc.edges
    ]
    for alert in doc.alerts:
        props = primitive_properties(
            {
                "name": alert.title,
                "alert_id": alert.id,
                "title": alert.title,
                "alert_kind": alert.kind,
                "entity_id": alert.entity_id,
                **{f"signal_{key}": value for key, value in alert.signals.items()},
            }
        )
        nodes.append({"id": alert_node_id(alert.id), "kinds": [ALERT_KIND], "properties": props})
        edges.append(
            {
                "start": _id_end(alert_node_id(alert.id)),
                "end": _id_end(alert.entity_id),
                "kind": ALERT_EDGE_KIND,
                "properties": {},
            }
        )
    return {"metadata": {"source_kind": OPENGRAPH_SOURCE_KIND}, "graph": {"nodes": nodes, "edges": edges}}


def write_opengraph(doc: GraphDocument, path: str | Path) -> int:
    """Write `doc` as OpenGraph JSON to `path` atomically; returns bytes written."""
    return write_json(to_opengraph(doc), path)
