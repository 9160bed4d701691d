"""Export the current graph as a `blastshield-graph/v1` document (read-only).

Import → export → import is lossless: every entity with its label, name and
properties, every relationship with its properties (status, route_id,
permission and the rest) and every alert with its signals. The record of who
blocked a route (`blocked_by_run`, `blocked_at`, `blocked_by`) is not exported:
documents cannot set it. Entities come out
ordered by id, relationships by source, type and target, alerts by id.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .model import DOCUMENT_FORMAT, RESERVED_EDGE_PROPERTIES, GraphDocument, domain_label
from .store import Store

__all__ = ["EXPORT_PAGE", "export_document", "write_document", "write_json"]

EXPORT_PAGE = 5000


def _pages(store: Store, name: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    skip = 0
    while True:
        page = store.read(name, {"skip": skip, "limit": EXPORT_PAGE})
        rows.extend(page)
        if len(page) < EXPORT_PAGE:
            return rows
        skip += EXPORT_PAGE


def export_document(store: Store, name: str | None = None) -> GraphDocument:
    """The store's scenario graph as a validated graph document (named after the graph by default)."""
    nodes = []
    for row in _pages(store, "export_nodes"):
        props = dict(row["props"])
        node_id = props.pop("id")
        node_name = props.pop("name", node_id)
        nodes.append({"id": node_id, "label": domain_label(row["labels"]), "name": node_name, "properties": props})
    # Who blocked a route and when stays in the graph and the audit: a document cannot carry it.
    edges = [
        {
            "source": row["source"],
            "type": row["type"],
            "target": row["target"],
            "properties": {k: v for k, v in row["props"].items() if k not in RESERVED_EDGE_PROPERTIES},
        }
        for row in _pages(store, "export_edges")
    ]
    alerts = []
    for row in store.read("list_alerts"):
        props = row["props"]
        alerts.append(
            {
                "id": props["id"],
                "title": props["title"],
                "entity_id": props["entity_id"],
                "kind": props["kind"],
                "signals": json.loads(props.get("signals") or "{}"),
            }
        )
    return GraphDocument.model_validate(
        {
            "format": DOCUMENT_FORMAT,
            "name": name or store.settings.graph,
            "nodes": nodes,
            "edges": edges,
            "alerts": alerts,
        }
    )


def write_document(doc: GraphDocument, path: str | Path) -> int:
    """Write `doc` as JSON to `path` atomically; returns bytes written."""
    return write_json(doc.model_dump(mode="json"), path)


def write_json(payload: Any, path: str | Path) -> int:
    """Write `payload` as indented UTF-8 JSON to `path` atomically (a temporary file renamed into
    place); returns bytes written."""
    path = Path(path)
    data = json.dumps(payload, indent=2, ensure_ascii=False).encode("utf-8") + b"\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or Path("."))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return len(data)
