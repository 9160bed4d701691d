"""Import graph documents: the admin write path (seeding and `import`).

A document is validated whole (shape, then cross-references against itself and
the live graph) before anything is written. The write itself goes to a staging
copy of the graph which replaces the live graph in one `RENAME`, so an import
either lands whole or not at all, and `--replace` swaps the graph atomically.
"""

from __future__ import annotations

import gc
import json
import os
import secrets
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .model import DocumentError, EdgeSpec, GraphDocument, Label, RelType, domain_label
from .store import QueryFailed, Store
from .templates import render, template

__all__ = [
    "BATCH_SIZE",
    "ImportReport",
    "import_document",
    "load_document",
    "parse_document",
    "paused_gc",
]

BATCH_SIZE = 5000
WRITE_STREAMS = 2  # batches in flight during an import (see _BatchWriter)
MAX_DOCUMENT_BYTES = 512 * 1024 * 1024

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ImportReport:
    """What an import wrote."""

    name: str
    nodes: int
    edges: int
    alerts: int
    replaced: bool

    def to_dict(self) -> dict[str, Any]:
        return {"status": "imported", **self.__dict__}


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector around bulk work on a document.

    Building hundreds of thousands of small objects triggers collections that
    each walk every live object, the whole document included: parsing a 300k
    relationship document took 10.4 s with it running and 5.0 s without. The
    work creates no cycles that need collecting meanwhile; the previous state
    is restored afterwards.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _location(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "document"


def parse_document(data: Any) -> GraphDocument:
    """Validate decoded JSON into a GraphDocument; DocumentError names the first bad item."""
    if not isinstance(data, dict):
        raise DocumentError("document", "must be a JSON object")
    try:
        return GraphDocument.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = tuple(p for p in first["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        # Name the node/edge/alert by id when we can, not only by index.
        item = _location(loc)
        if len(loc) >= 2 and isinstance(loc[1], int) and loc[0] in ("nodes", "edges", "alerts"):
            entry = data.get(loc[0])
            if isinstance(entry, list) and loc[1] < len(entry) and isinstance(entry[loc[1]], dict):
                ident = entry[loc[1]].get("id") or (
                    f"{entry[loc[1]].get('source')} -{entry[loc[1]].get('type')}-> {entry[loc[1]].get('target')}"
                )
                item = f"{item} ({str(ident)[:80]})"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise DocumentError(item, message) from None


def load_document(path: str | Path) -> GraphDocument:
    """Read and validate a document file."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise DocumentError("document", f"file is {size} bytes; the limit is {MAX_DOCUMENT_BYTES}")
        raw = path.read_bytes()
    except OSError as exc:
        raise DocumentError("document", f"cannot read {path}: {exc.strerror or exc}") from None
    return parse_bytes(raw)


def parse_bytes(raw: bytes) -> GraphDocument:
    with paused_gc():
        return _parse_bytes(raw)


def _parse_bytes(raw: bytes) -> GraphDocument:
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise DocumentError("document", "is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise DocumentError(
            "document", f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise DocumentError("document", "is nested too deeply") from None
    return parse_document(data)


def _existing_labels(store: Store, ids: set[str], graph: str) -> dict[str, str]:
    found: dict[str, str] = {}
    ordered = sorted(ids)
    for start in range(0, len(ordered), BATCH_SIZE):
        rows = store.read("entities_by_ids", {"ids": ordered[start : start + BATCH_SIZE]}, graph=graph)
        found.update({row["id"]: domain_label(row["labels"]) for row in rows})
    return found


def _check_routes_against_graph(store: Store, doc: GraphDocument, graph: str) -> None:
    routes = {e.properties["route_id"]: (i, e) for i, e in enumerate(doc.edges) if "route_id" in e.properties}
    if not routes:
        return
    ordered = sorted(routes)
    for start in range(0, len(ordered), BATCH_SIZE):
        for row in store.read("routes_by_ids", {"route_ids": ordered[start : start + BATCH_SIZE]}, graph=graph):
            index, edge = routes[row["route_id"]]
            if (row["source"], row["type"], row["target"]) != edge.key:
                raise DocumentError(
                    f"edges[{index}] ({edge.source} -{edge.type}-> {edge.target})",
                    f"route_id {row['route_id']!r} already belongs to {row['source']} -{row['type']}-> {row['target']}",
                )


def _edge_row(edge: EdgeSpec) -> dict[str, Any]:
    return {"source": edge.source, "target": edge.target, "props": dict(edge.properties)}


def _batches(rows: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(rows), BATCH_SIZE):
        yield rows[start : start + BATCH_SIZE]


class _BatchWriter:
    """Writes import batches to the staging graph on WRITE_STREAMS connections.

    The client encodes one batch while the server runs the previous one (the
    graph's writes still run one at a time on the server). Batches of one phase
    are independent: validation made ids and relationships unique, and `drain`
    separates the phases. At most WRITE_STREAMS batches are in flight, and
    `close` waits for every one that started.
    """

    def __init__(self, store: Store, graph: str, step: Callable[[int], None]):
        self._store = store
        self._graph = graph
        self._step = step
        self._pool = ThreadPoolExecutor(max_workers=WRITE_STREAMS, thread_name_prefix="blastshield-import")
        self._pending: deque[tuple[Future[list[dict[str, Any]]], Callable[[list[dict[str, Any]]], None] | None, int]]
        self._pending = deque()

    def submit(
        self, text: str, rows: list[dict[str, Any]], on_result: Callable[[list[dict[str, Any]]], None] | None = None
    ) -> None:
        while len(self._pending) >= WRITE_STREAMS:
            self._finish_oldest()
        future = self._pool.submit(self._store.execute_write, text, {"rows": rows}, graph=self._graph)
        self._pending.append((future, on_result, len(rows)))

    def _finish_oldest(self) -> None:
        future, on_result, count = self._pending.popleft()
        written = future.result()  # raises the write's QueryFailed
        if on_result is not None:
            on_result(written)
        self._step(count)

    def drain(self) -> None:
        """Wait for every submitted batch; raises the first failure."""
        while self._pending:
            self._finish_oldest()

    def close(self) -> None:
        """Cancel batches not yet started and wait for those running."""
        self._pool.shutdown(wait=True, cancel_futures=True)


def _ensure_indexes(store: Store, graph: str) -> None:
    for name in ("create_entity_index", "create_alert_index"):
        try:
            store.execute_write(template(name).text, graph=graph)
        except QueryFailed as exc:
            if "already indexed" not in str(exc).lower():
                raise


def import_document(
    store: Store,
    doc: GraphDocument,
    *,
    replace: bool = False,
    graph: str | None = None,
    progress: Progress | None = None,
) -> ImportReport:
    """Validate `doc` against the live graph, then write it whole or not at all.

    By default nodes, edges and alerts are upserted by id (an edge by source,
    type and target); with `replace` the graph is swapped for one holding only
    the document.
    """
    live = graph or store.settings.graph
    with store.write_lock(live), paused_gc():
        live_exists = store.graph_exists(live)
        if replace or not live_exists:
            existing: dict[str, str] = {}
        else:
            existing = _existing_labels(store, doc.referenced_ids(), live)
        doc.check_internal(existing)
        if live_exists and not replace:
            _check_routes_against_graph(store, doc, live)

        staging = f"{live}__staging_{os.getpid()}_{secrets.token_hex(4)}"
        node_rows = {label: [] for label in Label}  # type: dict[Label, list[dict[str, Any]]]
        for node in doc.nodes:
            node_rows[node.label].append(
                {"id": node.id, "props": {**node.properties, "id": node.id, "name": node.name}}
            )
        edges_by_type = {rel: [] for rel in RelType}  # type: dict[RelType, list[EdgeSpec]]
        for edge in doc.edges:
            edges_by_type[edge.type].append(edge)
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
        total = len(doc.nodes) + len(doc.edges) + len(doc.alerts)
        done = 0

        def step(count: int) -> None:
            nonlocal done
            done += count
            if progress is not None:
                progress(done, total)

        # A fresh staging graph holds nothing yet and the document has no duplicates,
        # so it is filled with CREATE, and relationships find their ends by the
        # internal ids the node batches return (the staging graph is ours alone and
        # nothing in it is deleted, so they are stable). An upsert into a copy of
        # the live graph MERGEs and finds ends by the id index.
        fresh = replace or not live_exists
        writer = _BatchWriter(store, staging, step)
        try:
            if not fresh:
                store.command("GRAPH.COPY", live, staging)
            _ensure_indexes(store, staging)
            internal: dict[str, int] = {}

            def record_ids(written: list[dict[str, Any]]) -> None:
                internal.update((row["id"], row["node"]) for row in written)

            for label, rows in node_rows.items():
                text = render("create_nodes" if fresh else "upsert_nodes", label=label)
                for batch in _batches(rows):
                    writer.submit(text, batch, record_ids if fresh else None)
            writer.drain()  # every node is in before a relationship looks for its ends
            for rel_type, edges in edges_by_type.items():
                text = render("create_edges" if fresh else "upsert_edges", rel_type=rel_type)
                for start in range(0, len(edges), BATCH_SIZE):
                    chunk = edges[start : start + BATCH_SIZE]
                    if fresh:
                        batch = [
                            {"source": internal[e.source], "target": internal[e.target], "props": dict(e.properties)}
                            for e in chunk
                        ]
                    else:
                        batch = [_edge_row(e) for e in chunk]
                    writer.submit(text, batch)
            for batch in _batches(alert_rows):
                writer.submit(template("upsert_alerts").text, batch)
            writer.drain()
            store.command("RENAME", staging, live)
        except BaseException:
            writer.close()  # no write may still be running when the staging graph goes
            try:
                if store.graph_exists(staging):
                    store.command("GRAPH.DELETE", staging)
            except QueryFailed:  # pragma: no cover - the server is gone; nothing was renamed
                pass
            raise
        finally:
            writer.close()
        if progress is not None and total == 0:
            progress(0, 0)
    return ImportReport(doc.name, len(doc.nodes), len(doc.edges), len(doc.alerts), replace)
