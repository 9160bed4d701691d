"""Small writes in place: an analyst's alert, and one principal's slice re-synced.

An import (`ingest.import_document`) writes to a copy of the graph renamed over it, which costs
the whole graph however small the document. A small document (at most `MAX_IN_PLACE_ITEMS`
nodes, relationships and alerts) is written in place instead, keeping the same guarantees:

- **All or nothing.** The document is validated whole first: its shape (the document model),
  its cross-references against itself and the live graph (labels, relationship ends, alert
  entities), route ids against the live graph, and, for a slice, that it holds only that slice.
  Bad input is a `DocumentError` and nothing is written. The write is then one `GRAPH.QUERY`
  (its parts joined by `WITH count(*)`), which FalkorDB commits whole or not at all, run only
  while the import still holds the write lock and with the graph's version bumped in the same
  transaction (`Store.execute_locked_write`).
- **Blocks are kept.** A relationship BlastShield blocked (it carries `blocked_by_run`) that the
  document names is written with its block (`status: blocked`, `blocked_by_run`, `blocked_at`,
  `blocked_by`), whatever the document says; the report names it (`preserved_blocks`), and a
  blocked route the slice no longer holds is named in `blocks_gone`.
- **Audited.** Every write is recorded in the audit with its actor, as an import is.

`replace_slice` makes the live slice of one identity (the identity, the sessions it has, and
the relationships leaving them) exactly the document's: sessions and relationships the document
no longer holds are removed (with alerts on removed sessions), the rest upserted; nothing else
in the graph is touched. `principal_slice` cuts that slice out of a whole document.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from typing import Any

from ..base.actor import check_actor, local_actor
from .ingest import ImportReport, _audited, _blastshield_blocks, _existing_labels
from .model import DOCUMENT_FORMAT, Document, DocumentError, EdgeRow, GraphDocument, Label, RelType
from .routes import find_routes
from .store import Store, WriteLock
from .templates import render, template

__all__ = ["MAX_IN_PLACE_ITEMS", "principal_slice", "replace_slice", "upsert_in_place"]

MAX_IN_PLACE_ITEMS = 5000
BLOCK_KEYS = ("blocked_by_run", "blocked_at", "blocked_by")


def principal_slice(doc: Document, principal: str, *, name: str | None = None) -> GraphDocument:
    """The slice of `principal` in `doc`: the identity, the sessions it has (its `HAS_SESSION`
    targets) and every relationship leaving them, as the document holds them, named `name` (by
    default after the principal; characters a document name cannot hold become `-`). Pure.
    DocumentError when `doc` has no identity of that id."""
    node = next((n for n in doc.nodes if n.id == principal), None)
    if node is None or node.label is not Label.IDENTITY:
        raise DocumentError("document", f"has no identity {principal!r}")
    sessions = {e.target for e in doc.edges if e.source == principal and e.type is RelType.HAS_SESSION}
    ids = {principal, *sessions}
    return GraphDocument.model_validate(
        {
            "format": DOCUMENT_FORMAT,
            "name": re.sub(r"[^A-Za-z0-9_.-]", "-", name or f"slice-{principal}")[:128],
            "nodes": [n.model_dump(mode="json") for n in doc.nodes if n.id in ids],
            "edges": [
                e.as_dict() if isinstance(e, EdgeRow) else e.model_dump(mode="json")
                for e in doc.edges
                if e.source in ids
            ],
        }
    )


def _check_size(doc: GraphDocument) -> None:
    items = len(doc.nodes) + len(doc.edges) + len(doc.alerts)
    if items > MAX_IN_PLACE_ITEMS:
        raise DocumentError("document", f"has {items} items; an in-place write takes at most {MAX_IN_PLACE_ITEMS}")


def _check_slice(doc: GraphDocument, principal: str) -> set[str]:
    """The slice's node ids; DocumentError unless `doc` holds only the slice of `principal`."""
    node = next((n for n in doc.nodes if n.id == principal), None)
    if node is None or node.label is not Label.IDENTITY:
        raise DocumentError("document", f"a slice must hold its identity {principal!r} as an Identity node")
    if doc.alerts:
        raise DocumentError("alerts[0]", "a slice holds no alerts")
    sessions = {e.target for e in doc.edges if e.source == principal and e.type is RelType.HAS_SESSION}
    ids = {principal, *sessions}
    for index, n in enumerate(doc.nodes):
        if n.id not in ids:
            raise DocumentError(f"nodes[{index}] ({n.id})", f"is neither {principal} nor one of its sessions")
    for index, e in enumerate(doc.edges):
        if e.source not in ids:
            raise DocumentError(
                f"edges[{index}] ({e.source} -{e.type}-> {e.target})",
                f"does not leave {principal} or one of its sessions",
            )
    return ids


def _validate(store: Store, doc: GraphDocument, live: str, known_routes: dict[tuple[str, str, str], str]) -> None:
    """The document's checks against itself and the live graph. A route id the live graph already
    gives the same relationship (`known_routes`, read from the slice) needs no look-up; any other
    is looked up across the graph (a scan of the routed relationships: no index holds route ids,
    see `routes`), so a slice that keeps its routes costs no scan."""
    _check_size(doc)
    doc.check_internal(_existing_labels(store, doc.referenced_ids(), live))
    routes = {
        str(e.properties["route_id"]): (i, e)
        for i, e in enumerate(doc.edges)
        if "route_id" in e.properties and known_routes.get(e.key) != e.properties["route_id"]
    }
    if routes:
        for row in find_routes(store, routes, live):
            index, edge = routes[row["route_id"]]
            if (row["source"], row["type"], row["target"]) != edge.key:
                raise DocumentError(
                    f"edges[{index}] ({edge.source} -{edge.type}-> {edge.target})",
                    f"route_id {row['route_id']!r} already belongs to {row['source']} -{row['type']}-> {row['target']}",
                )


def _write_parts(
    doc: GraphDocument,
    blocks: dict[str, dict[str, str]],
    *,
    stale_edges: list[tuple[str, str, str]] = (),  # type: ignore[assignment]
    stale_nodes: list[str] = (),  # type: ignore[assignment]
) -> tuple[str, dict[str, Any], list[str]]:
    """The one write query, its parameters, and the blocked routes it keeps."""
    parts: list[tuple[str, Any]] = []
    by_type: dict[RelType, list[dict[str, str]]] = {}
    for source, rel_type, target in stale_edges:
        by_type.setdefault(RelType(rel_type), []).append({"source": source, "target": target})
    parts += [(render("inplace_delete_edges", rel_type=t), rows) for t, rows in by_type.items()]
    if stale_nodes:
        parts.append((template("inplace_delete_alerts_of").text, list(stale_nodes)))
        parts.append((template("inplace_delete_entities").text, list(stale_nodes)))
    nodes: dict[Label, list[dict[str, Any]]] = {}
    for node in doc.nodes:
        props = {**node.properties, "id": node.id, "name": node.name}
        nodes.setdefault(node.label, []).append({"id": node.id, "props": props})
    parts += [(render("inplace_upsert_nodes", label=label), rows) for label, rows in nodes.items()]
    edges: dict[RelType, list[dict[str, Any]]] = {}
    kept: list[str] = []
    for edge in doc.edges:
        props = dict(edge.properties)
        route_id = str(props.get("route_id", ""))
        block = blocks.get(route_id)
        if block is not None:  # BlastShield's block stays, whatever the document says
            props.update({"status": "blocked", **{k: block[k] for k in BLOCK_KEYS}})
            kept.append(route_id)
        edges.setdefault(edge.type, []).append({"source": edge.source, "target": edge.target, "props": props})
    parts += [(render("inplace_upsert_edges", rel_type=t), rows) for t, rows in edges.items()]
    if doc.alerts:
        alert_rows = [
            {
                "id": a.id,
                "title": a.title,
                "entity_id": a.entity_id,
                "kind": a.kind,
                "signals": json.dumps(a.signals, sort_keys=True),
            }
            for a in doc.alerts
        ]
        parts.append((template("inplace_upsert_alerts").text, alert_rows))
    texts, params = [], {}
    for index, (text, rows) in enumerate(parts):
        texts.append(text.replace("$rows", f"$rows{index}") + "\nWITH count(*) AS done")
        params[f"rows{index}"] = rows
    return "\n".join([*texts, "RETURN done"]), params, sorted(kept)


def _commit(
    store: Store,
    lock: WriteLock,
    live: str,
    query: tuple[str, dict[str, Any]],
    before_commit: Callable[[WriteLock], None] | None,
) -> None:
    if before_commit is not None:
        before_commit(lock)
    text, params = query
    if params:
        store.execute_locked_write(lock, text, params, graph=live)


def upsert_in_place(
    store: Store,
    doc: GraphDocument,
    *,
    actor: str | None = None,
    graph: str | None = None,
    before_commit: Callable[[WriteLock], None] | None = None,
) -> ImportReport:
    """Upsert a small document (nodes and relationships by id, alerts by id) into the live graph in
    one query, after validating it whole. DocumentError (nothing written) for bad input, or a
    document of more than MAX_IN_PLACE_ITEMS items; QueryFailed when the database fails."""
    actor = check_actor(actor if actor is not None else local_actor())
    live = graph or store.settings.graph
    with store.write_lock(live) as lock:
        if not store.graph_exists(live):
            raise DocumentError("document", f"there is no graph {live!r} to write into; import one first")
        _validate(store, doc, live, {})
        blocks = _blastshield_blocks(store, live) if doc.edges else {}
        text, params, kept = _write_parts(doc, blocks)
        _commit(store, lock, live, (text, params), before_commit)
    report = ImportReport(
        doc.name, len(doc.nodes), len(doc.edges), len(doc.alerts), False, preserved_blocks=kept, actor=actor
    )
    return _audited(store, live, report, False)


def replace_slice(
    store: Store,
    doc: GraphDocument,
    principal: str,
    *,
    actor: str | None = None,
    graph: str | None = None,
    before_commit: Callable[[WriteLock], None] | None = None,
) -> ImportReport:
    """Make the live slice of the identity `principal` exactly `doc` (see the module's text), in
    one query. `doc` must hold only that slice (`principal_slice` cuts it out of a whole
    document). The report's `removed` counts the sessions and relationships removed.
    DocumentError (nothing written) for bad input; QueryFailed when the database fails."""
    actor = check_actor(actor if actor is not None else local_actor())
    live = graph or store.settings.graph
    with store.write_lock(live) as lock:
        if not store.graph_exists(live):
            raise DocumentError("document", f"there is no graph {live!r} to re-sync; import one first")
        ids = _check_slice(doc, principal)
        _check_size(doc)
        live_sessions = {row["id"] for row in store.read("slice_sessions", {"id": principal}, graph=live)}
        owned = sorted({principal, *live_sessions})
        live_edges = store.read("slice_edges", {"ids": owned}, graph=live)
        known = {(r["source"], r["type"], r["target"]): r["route_id"] for r in live_edges if r["route_id"]}
        _validate(store, doc, live, known)
        stale_nodes = sorted(live_sessions - ids)
        stale_set = set(stale_nodes)
        doc_edges = {e.key for e in doc.edges}
        stale_edges = sorted(
            (row["source"], row["type"], row["target"])
            for row in live_edges
            if row["source"] not in stale_set and (row["source"], row["type"], row["target"]) not in doc_edges
        )
        gone_routes = {
            row["route_id"]
            for row in live_edges
            if row["route_id"]
            and (row["source"] in stale_set or (row["source"], row["type"], row["target"]) not in doc_edges)
        }
        blocks = _blastshield_blocks(store, live)
        text, params, kept = _write_parts(doc, blocks, stale_edges=stale_edges, stale_nodes=stale_nodes)
        _commit(store, lock, live, (text, params), before_commit)
    report = ImportReport(
        doc.name,
        len(doc.nodes),
        len(doc.edges),
        0,
        False,
        preserved_blocks=kept,
        blocks_gone=sorted(r for r in blocks if r in gone_routes),
        actor=actor,
    )
    report = dataclasses.replace(
        report,
        removed={
            "nodes": len(stale_nodes),
            "relationships": len(stale_edges) + sum(1 for row in live_edges if row["source"] in stale_set),
        },
        slice_of=principal,
    )
    return _audited(store, live, report, False)
