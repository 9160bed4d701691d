"""Import graph documents: the admin write path (seeding and `import`).

A document is validated whole (shape, then cross-references against itself and
the live graph) before anything is written. The write itself goes to a staging
copy of the graph which replaces the live graph in one `RENAME`, so an import
either lands whole or not at all, and `--replace` swaps the graph atomically.

Blocks survive imports: a route BlastShield blocked (it carries `blocked_by_run`)
stays blocked whatever a document says about it, in an upsert and in a
`--replace` (matched by route id); the report names the routes kept
(`preserved_blocks`) and the blocks whose routes are gone (`blocks_gone`). Only
the scenario reset (`reset_blocks`) reopens the routes its documents name, and
says which. The rename happens only while the import still holds the write lock
(checked in the same server-side step), and every import is recorded in the
audit with its actor.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import struct
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain, compress, repeat
from operator import attrgetter, is_, is_not, sub
from pathlib import Path
from typing import Any, cast

from pydantic import ValidationError

from ..base.actor import check_actor, local_actor
from ..base.interrupts import commit_begins
from ..base.pools import track
from .audit import AuditLog
from .indexes import NODE_INDEXES, RELATIONSHIP_INDEXES, ensure_indexes
from .model import (
    AlertSpec,
    BuiltDocument,
    Document,
    DocumentError,
    Edge,
    GraphDocument,
    Label,
    NodeSpec,
    RelType,
    domain_label,
)
from .routes import find_routes, routes_at_ends
from .staging import staging_name
from .store import QueryFailed, Store, WriteLock
from .templates import render, template

__all__ = [
    "BATCH_SIZE",
    "BULK_BATCH",
    "ImportReport",
    "import_document",
    "load_document",
    "parse_document",
    "paused_gc",
    "snapshot_pruner",
]

BATCH_SIZE = 5000
WRITE_STREAMS = 2  # batches in flight during an upsert (see _BatchWriter)
BULK_BATCH = 50_000  # entities per GRAPH.BULK call in a fresh import (a progress step)
BULK_BYTES = 32 * 2**20  # and at most about this many bytes
INDEX_WAIT_S = 300.0  # how long a fresh import waits for its indexes to be built
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
    preserved_blocks: list[str] = field(default_factory=list)  # blocked routes the document named, kept blocked
    blocks_gone: list[str] = field(default_factory=list)  # blocked routes the new graph no longer has
    reopened: list[str] = field(default_factory=list)  # blocked routes a scenario reset made active again
    actor: str = ""
    event_id: str = ""  # the audit event recording this import ("" if it could not be written)
    audit_error: str = ""
    removed: dict[str, int] = field(default_factory=dict)  # a slice re-sync: sessions and relationships removed
    slice_of: str = ""  # a slice re-sync: the identity whose slice was replaced (graph/inplace.py)

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
            raise DocumentError("document", f"file is {size} bytes; the limit is {MAX_DOCUMENT_BYTES >> 20} MB")
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


def _check_routes_against_graph(store: Store, doc: Document, graph: str) -> None:
    """No route id of `doc` may belong to another relationship of the graph. A route id the graph
    already gives the same relationship (read through its ends) is that relationship's own; the
    others are sought across the graph at once (`routes.find_routes`: no index holds route ids)."""
    edges: Sequence[Edge] = doc.edges
    routes: dict[str, tuple[int, Edge]] = {
        str(e.properties["route_id"]): (i, e) for i, e in enumerate(edges) if "route_id" in e.properties
    }
    if not routes:
        return
    own = routes_at_ends(store, (edge for _, edge in routes.values()), graph)
    for row in find_routes(store, (r for r, (_, edge) in routes.items() if own.get(edge.key) != r), graph):
        index, edge = routes[row["route_id"]]
        if (row["source"], row["type"], row["target"]) != edge.key:
            raise DocumentError(
                f"edges[{index}] ({edge.source} -{edge.type}-> {edge.target})",
                f"route_id {row['route_id']!r} already belongs to {row['source']} -{row['type']}-> {row['target']}",
            )


def _route_ids(edges: Sequence[Edge]) -> set[str]:
    """The route ids the relationships carry (a route id is never empty)."""
    return set(filter(None, map(dict.get, map(attrgetter("properties"), edges), repeat("route_id"))))


def _upsert_rows(
    doc: Document,
) -> tuple[dict[Label, list[dict[str, Any]]], dict[RelType, list[Edge]], list[dict[str, Any]]]:
    """The document as upsert batches' rows: nodes by label, edges by type, alerts."""
    node_rows: dict[Label, list[dict[str, Any]]] = {label: [] for label in Label}
    for node in doc.nodes:
        node_rows[node.label].append({"id": node.id, "props": {**node.properties, "id": node.id, "name": node.name}})
    edges_by_type: dict[RelType, list[Edge]] = {rel: [] for rel in RelType}
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
    return node_rows, edges_by_type, alert_rows


def _edge_row(edge: Edge) -> dict[str, Any]:
    return {"source": edge.source, "target": edge.target, "props": dict(edge.properties)}


def _batches(rows: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(rows), BATCH_SIZE):
        yield rows[start : start + BATCH_SIZE]


class _BatchWriter:
    """Writes upsert batches to the staging graph on WRITE_STREAMS connections.

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
        self._pool = track(ThreadPoolExecutor(max_workers=WRITE_STREAMS, thread_name_prefix="blastshield-import"))
        self._pending: deque[tuple[Future[list[dict[str, Any]]], int]] = deque()

    def submit(self, text: str, rows: list[dict[str, Any]]) -> None:
        while len(self._pending) >= WRITE_STREAMS:
            self._finish_oldest()
        future = self._pool.submit(self._store.execute_write, text, {"rows": rows}, graph=self._graph)
        self._pending.append((future, len(rows)))

    def _finish_oldest(self) -> None:
        future, count = self._pending.popleft()
        future.result()  # raises the write's QueryFailed
        self._step(count)

    def drain(self) -> None:
        """Wait for every submitted batch; raises the first failure."""
        while self._pending:
            self._finish_oldest()

    def close(self) -> None:
        """Cancel batches not yet started and wait for those running."""
        self._pool.shutdown(wait=True, cancel_futures=True)


# A fresh import fills its new staging graph with GRAPH.BULK, the server's bulk
# loader: each call carries label blobs (a header of the label and property names,
# then each node's values) and relationship-type blobs (the same, each relationship
# led by its ends' internal ids). The server numbers nodes 0, 1, 2 ... in the order
# it receives them, so relationships name their ends by that number. A value is a
# type byte and its encoding; NULL leaves the property unset. The Cypher batches it
# replaced spent most of their time parsing the rows' text.
_BULK_NULL = b"\x00"
_BULK_TRUE, _BULK_FALSE = struct.pack("=B?", 1, True), struct.pack("=B?", 1, False)
_BULK_DOUBLE = struct.Struct("=Bd")  # type 2
_BULK_LONG = struct.Struct("=Bq")  # type 4; arrays (type 5) are led by their length in the same form
_BULK_ENDS = struct.Struct("=QQ")


def _bulk_value(value: Any) -> bytes:
    kind = type(value)
    if kind is str:
        return b"\x03" + value.encode() + b"\x00"  # validated text holds no NUL
    if kind is bool:
        return _BULK_TRUE if value else _BULK_FALSE
    if kind is int:
        return _BULK_LONG.pack(4, value)
    if kind is float:
        return _BULK_DOUBLE.pack(2, value)
    if value is None:
        return _BULK_NULL
    if kind is list:
        return _BULK_LONG.pack(5, len(value)) + b"".join(_bulk_value(item) for item in value)
    raise TypeError(f"cannot store a {kind.__name__} property")


def _bulk_header(name: str, keys: list[str]) -> bytes:
    return b"".join([name.encode(), b"\x00", struct.pack("=I", len(keys)), *(k.encode() + b"\x00" for k in keys)])


@dataclass(frozen=True)
class _BulkSegment:
    """Entities of one label (or relationship type), packed block by block."""

    is_node: bool
    name: str
    keys: list[str]
    count: int
    pack: Callable[[int, int], bytes]  # the packed rows of entities start..stop-1, one after the other


_BULK_BLOCK = 1024  # rows packed at a time; a call's limits are checked after each block


# Relationships' values are packed a whole column at a time, and a block of rows is its columns'
# pieces interleaved: text (most values) as a type byte, its UTF-8 and a NUL terminator, with no
# Python code per value. (Nodes are packed row by row: one pass over the node objects was faster
# than a pass per column.)
_TEXT_KINDS = frozenset((str, type(None)))
_TEXT_HEAD = (b"\x03", _BULK_NULL)  # indexed by "is null": a text value's type byte, or a NULL
_TEXT_TAIL = (b"\x00", b"")  # indexed by "is null": a text value's terminator, or nothing
TABLE_MAX = 4096  # a text column of at most this many distinct values is packed from a table


def _text_pieces(column: list[str | None]) -> list[list[bytes]]:
    """A column of text (or nulls) as columns of pieces: one, from a table of its distinct values,
    when they are few (a status, a permission, a sensitivity); else three (type byte, UTF-8,
    terminator; a NULL is its type byte alone). Validated text holds no NUL."""
    distinct = set(column)
    if len(distinct) <= TABLE_MAX:
        table = {value: _bulk_value(value) for value in distinct}
        return [list(map(table.__getitem__, column))]
    if None in distinct:
        null = list(map(is_, column, repeat(None)))
        heads, tails = list(map(_TEXT_HEAD.__getitem__, null)), list(map(_TEXT_TAIL.__getitem__, null))
        column = [value or "" for value in column]
    else:
        heads, tails = [_TEXT_HEAD[0]] * len(column), [_TEXT_TAIL[0]] * len(column)
    return [heads, list(map(str.encode, cast("list[str]", column))), tails]


def _property_pieces(props: list[dict[str, Any]], keys: list[str]) -> list[list[bytes]]:
    """The packed values of `keys` (in order) of each properties dict, as columns of pieces.

    Where rows come in runs sharing one dict (a large AWS import shares one per decision), each
    distinct dict is packed once, as one piece; the document does not change while it is
    written, so a dict's id is its key. Otherwise text and missing values are packed a column at
    a time, and any other value once per dict."""
    firsts = [0, *compress(range(1, len(props)), map(is_not, props[1:], props[:-1]))] if props else []
    if 2 * len(firsts) <= len(props):
        lengths = list(map(sub, [*firsts[1:], len(props)], firsts))
        ids = list(map(id, map(props.__getitem__, firsts)))
        distinct = {object_id: props[first] for object_id, first in zip(ids, firsts, strict=True)}
        rows = {object_id: b"".join([_bulk_value(one.get(key)) for key in keys]) for object_id, one in distinct.items()}
        return [list(chain.from_iterable(map(repeat, map(rows.__getitem__, ids), lengths)))]
    pieces: list[list[bytes]] = []
    object_ids: list[int] = []
    objects: dict[int, dict[str, Any]] = {}
    for key in keys:
        column = list(map(dict.get, props, repeat(key)))
        if _TEXT_KINDS.issuperset(map(type, column)):
            pieces += _text_pieces(column)
            continue
        if not object_ids:
            object_ids = list(map(id, props))
            objects = dict(zip(object_ids, props, strict=True))
        values = {object_id: _bulk_value(one.get(key)) for object_id, one in objects.items()}
        pieces.append(list(map(values.__getitem__, object_ids)))
    return pieces


def _interleaved(lead: list[bytes], columns: list[list[bytes]], start: int) -> bytes:
    """Rows start..start+len(lead)-1, each its `lead` piece, then its pieces in column order (a block
    at a time: joining a whole column's pieces at once took several times as long)."""
    width = 1 + len(columns)
    pieces: list[bytes] = [b""] * (width * len(lead))
    pieces[::width] = lead
    for at, column in enumerate(columns, 1):
        pieces[at::width] = column[start : start + len(lead)]
    return b"".join(pieces)


def _node_packer(nodes: list[NodeSpec], extra: list[str]) -> Callable[[int, int], bytes]:
    def pack(start: int, stop: int) -> bytes:
        parts: list[bytes] = []
        for node in nodes[start:stop]:  # `_bulk_value` of each value, with text (most of them) and NULL inline
            parts += (b"\x03", node.id.encode(), b"\x00\x03", node.name.encode(), b"\x00")
            get = node.properties.get
            for key in extra:
                value = get(key)
                if type(value) is str:
                    parts += (b"\x03", value.encode(), b"\x00")
                elif value is None:
                    parts.append(_BULK_NULL)
                else:
                    parts.append(_bulk_value(value))
        return b"".join(parts)

    return pack


def _alert_packer(alerts: list[AlertSpec]) -> Callable[[int, int], bytes]:
    def pack(start: int, stop: int) -> bytes:
        return b"".join(
            _bulk_value(v)
            for a in alerts[start:stop]
            for v in (a.id, a.title, a.entity_id, a.kind, json.dumps(a.signals, sort_keys=True))
        )

    return pack


def _edge_packer(edges: list[Edge], number: dict[str, int]) -> tuple[list[str], Callable[[int, int], bytes]]:
    """The property names of `edges` (sorted) and a packer of blocks of them: each relationship
    led by its ends' numbers, then its values (`_property_pieces`)."""
    props = list(map(attrgetter("properties"), edges))
    extra = sorted(set(chain.from_iterable(props)))
    starts = list(map(number.__getitem__, map(attrgetter("source"), edges)))
    stops = list(map(number.__getitem__, map(attrgetter("target"), edges)))
    pieces = _property_pieces(props, extra)

    def pack(start: int, stop: int) -> bytes:
        return _interleaved(list(map(_BULK_ENDS.pack, starts[start:stop], stops[start:stop])), pieces, start)

    return extra, pack


def _bulk_calls(segments: list[_BulkSegment]) -> Iterator[tuple[list[Any], int]]:
    """GRAPH.BULK arguments (after BEGIN) in calls of at most BULK_BATCH entities, each with its count.

    A call also closes once it holds BULK_BYTES (checked after each block of rows).
    """
    labels: list[bytes] = []
    types: list[bytes] = []
    nodes = rels = size = 0
    for segment in segments:
        head = _bulk_header(segment.name, segment.keys)
        blobs = labels if segment.is_node else types
        current: list[bytes] = []
        start = 0
        while start < segment.count:
            stop = min(segment.count, start + min(_BULK_BLOCK, BULK_BATCH - nodes - rels))
            block = segment.pack(start, stop)
            current.append(block)
            size += len(block)
            if segment.is_node:
                nodes += stop - start
            else:
                rels += stop - start
            start = stop
            if nodes + rels >= BULK_BATCH or size >= BULK_BYTES:
                blobs.append(head + b"".join(current))
                yield [nodes, rels, len(labels), len(types), *labels, *types], nodes + rels
                labels.clear()
                types.clear()
                current = []
                nodes = rels = size = 0
        if current:
            blobs.append(head + b"".join(current))
    if nodes + rels:
        yield [nodes, rels, len(labels), len(types), *labels, *types], nodes + rels


def _bulk_fill(store: Store, graph: str, doc: Document, step: Callable[[int], None], check: Callable[[], None]) -> None:
    """Write `doc` into the new graph `graph` with GRAPH.BULK.

    The next call is packed while the server runs the previous one; calls stay in order
    (node numbering depends on it), and none is left running on return. Nodes come first,
    in calls of their own, and their id indexes are created right after them: the server
    builds those while the relationships are packed, and relationship calls do not touch
    them. `check` (the document's checks across items, which raises DocumentError) runs
    while the server loads the nodes, before any relationship is packed, since packing
    looks up each relationship's ends.
    """
    by_label: dict[Label, list[NodeSpec]] = {label: [] for label in Label}
    for node in doc.nodes:
        by_label[node.label].append(node)
    number: dict[str, int] = {}  # entity id -> the number the server gives its node
    node_segments: list[_BulkSegment] = []
    for label, nodes in by_label.items():
        if nodes:
            first = len(number)
            number.update((node.id, first + i) for i, node in enumerate(nodes))
            extra = sorted(set(chain.from_iterable(map(attrgetter("properties"), nodes))))
            node_segments.append(
                _BulkSegment(
                    True, f"Entity:{label.value}", ["id", "name", *extra], len(nodes), _node_packer(nodes, extra)
                )
            )
    if doc.alerts:
        keys = ["id", "title", "entity_id", "kind", "signals"]
        node_segments.append(_BulkSegment(True, "Alert", keys, len(doc.alerts), _alert_packer(doc.alerts)))

    pool = track(ThreadPoolExecutor(max_workers=1, thread_name_prefix="blastshield-bulk"))
    pending: tuple[Future[Any], int] | None = None
    calls = 0

    def submit(fn: Callable[..., Any], *args: Any, count: int = 0) -> None:
        nonlocal pending
        if pending is not None:
            pending[0].result()  # raises the call's QueryFailed
            step(pending[1])
        pending = (pool.submit(fn, *args), count)

    def bulk(segments: list[_BulkSegment]) -> None:
        nonlocal calls
        for args, count in _bulk_calls(segments):
            submit(store.command, "GRAPH.BULK", graph, *(["BEGIN"] if calls == 0 else []), *args, count=count)
            calls += 1

    try:
        bulk(node_segments)
        check()  # while the server loads the last nodes
        submit(ensure_indexes, store, graph, NODE_INDEXES)  # built while the relationships are packed
        by_type: dict[RelType, list[Edge]] = {rel: [] for rel in RelType}
        for edge in doc.edges:
            by_type[edge.type].append(edge)
        edge_segments = []
        for rel_type, edges in by_type.items():
            if edges:
                extra, pack = _edge_packer(edges, number)
                edge_segments.append(_BulkSegment(False, rel_type.value, extra, len(edges), pack))
        bulk(edge_segments)
        if pending is not None:
            pending[0].result()
            step(pending[1])
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _blastshield_blocks(store: Store, graph: str) -> dict[str, dict[str, str]]:
    """The routes BlastShield blocked in `graph`, by route id: who blocked each and the relationship's ends."""
    return {
        row["route_id"]: {
            "blocked_by_run": row["blocked_by_run"],
            "blocked_at": row["blocked_at"] or "",
            "blocked_by": row["blocked_by"] or "",
            "source": row["source"],
            "type": row["type"],
            "target": row["target"],
        }
        for row in store.read("blastshield_blocks", graph=graph)
    }


def _restore_blocks(store: Store, graph: str, blocks: dict[str, dict[str, str]], doc: Document) -> set[str]:
    """Put `blocks` back on the routes of `graph` that have those ids; the ids found. A route the
    document names is now on the document's relationship, any other still on its own (if the
    graph kept it), so each is found through its ends (no index holds route ids)."""
    if not blocks:
        return set()
    moved = {e.properties["route_id"]: e.key for e in doc.edges if e.properties.get("route_id") in blocks}
    rows = []
    for route, block in blocks.items():
        source, rel_type, target = moved.get(route, (block["source"], block["type"], block["target"]))
        rows.append({**block, "route_id": route, "source": source, "type": rel_type, "target": target})
    found = store.execute_write(template("restore_blocks").text, {"blocks": rows}, graph=graph)
    return {row["route_id"] for row in found}


def import_document(
    store: Store,
    doc: Document,
    *,
    replace: bool = False,
    graph: str | None = None,
    progress: Progress | None = None,
    actor: str | None = None,
    reset_blocks: bool = False,
    before_commit: Callable[[WriteLock], None] | None = None,
    prune: Callable[[Store, str], None] | None = None,
) -> ImportReport:
    """Validate `doc` against the live graph, then write it whole or not at all.

    By default nodes, edges and alerts are upserted by id (an edge by source,
    type and target); with `replace` the graph is swapped for one holding only
    the document. Either way the routes BlastShield blocked stay blocked (by
    route id), unless `reset_blocks` (the scenario reset) reopens the ones the
    document names. `actor` (default: the local user) is recorded in the audit.
    An upsert writes to a copy of the graph renamed over it at the end, except one of
    alerts alone, which is one query on the live graph (see the comment there).
    `before_commit` runs just before the final rename or that query (tests pause there).
    `prune(store, staging_graph)`, when given, runs on the copy before the
    upsert (a re-sync removing what a snapshot no longer holds; see
    `snapshot_pruner`).
    """
    actor = check_actor(actor if actor is not None else local_actor())
    if isinstance(doc, BuiltDocument):  # its relationships are plain tuples until now: checked whole here
        doc = doc.validated()
    live = graph or store.settings.graph
    with store.write_lock(live) as lock, paused_gc():
        live_exists = store.graph_exists(live)
        if replace or not live_exists:
            existing: dict[str, str] = {}
        else:
            existing = _existing_labels(store, doc.referenced_ids(), live)
        fresh = replace or not live_exists
        if not fresh:  # a fresh import checks while the server loads its nodes (`_bulk_fill`)
            doc.check_internal(existing)
        if live_exists and not replace:
            _check_routes_against_graph(store, doc, live)
        blocks = _blastshield_blocks(store, live) if live_exists else {}
        doc_routes = _route_ids(doc.edges) if blocks else set()  # only compared with blocked routes
        reopened = sorted(r for r in blocks if r in doc_routes) if reset_blocks else []
        keep = {r: b for r, b in blocks.items() if r not in reopened}

        staging = staging_name(live)  # names its process and host (see `staging.orphans`)
        total = len(doc.nodes) + len(doc.edges) + len(doc.alerts)
        done = 0

        def step(count: int) -> None:
            nonlocal done
            done += count
            if progress is not None:
                progress(done, total)

        # A fresh import fills a new staging graph in bulk, building its indexes as it goes.
        # An upsert copies the live graph and MERGEs into the copy, finding ends by
        # the id index.
        writer = _BatchWriter(store, staging, step)
        # Alerts alone (an analyst's alert, a batch of findings) are one write query, which commits
        # whole or not at all, with the lock checked and the version bumped in the same transaction:
        # they are written to the live graph in place, without copying the graph (an analyst's alert
        # took 0.8 s at 100k relationships). No relationship changes, so every block stays.
        in_place = not fresh and prune is None and not doc.nodes and not doc.edges and len(doc.alerts) <= BATCH_SIZE
        try:
            if in_place:
                kept = set(keep)
                step(len(doc.alerts))  # before the query: a progress callback that raises stops the import
                if before_commit is not None:
                    before_commit(lock)
                commit_begins()  # a signal from here on waits for the audit record (base/interrupts.py)
                if doc.alerts:
                    rows = _upsert_rows(doc)[2]
                    store.execute_locked_write(lock, template("upsert_alerts").text, {"rows": rows}, graph=live)
            elif fresh:
                # Each index is built once its data is in (node indexes after the last node call,
                # the relationship ones at the end): keeping them up to date call by call instead
                # cost the server a third more time on a large account.
                _bulk_fill(store, staging, doc, step, lambda: doc.check_internal(existing))
                ensure_indexes(store, staging, RELATIONSHIP_INDEXES)
                if not store.wait_for_indexes(staging, INDEX_WAIT_S):
                    raise QueryFailed(f"the indexes of the imported graph were not built within {INDEX_WAIT_S:.0f} s")
            else:
                store.copy_graph(live, staging)
                ensure_indexes(store, staging)
                if prune is not None:
                    prune(store, staging)
                node_rows, edges_by_type, alert_rows = _upsert_rows(doc)
                for label, rows in node_rows.items():
                    text = render("upsert_nodes", label=label)
                    for batch in _batches(rows):
                        writer.submit(text, batch)
                writer.drain()  # every node is in before a relationship looks for its ends
                for rel_type, edges in edges_by_type.items():
                    text = render("upsert_edges", rel_type=rel_type)
                    for start in range(0, len(edges), BATCH_SIZE):
                        writer.submit(text, [_edge_row(e) for e in edges[start : start + BATCH_SIZE]])
                for batch in _batches(alert_rows):
                    writer.submit(template("upsert_alerts").text, batch)
                writer.drain()
            if not in_place:
                kept = _restore_blocks(store, staging, keep, doc)
                if before_commit is not None:
                    before_commit(lock)
                commit_begins()  # a signal from here on waits for the audit record (base/interrupts.py)
                store.rename_locked(lock, staging, live)
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
    report = ImportReport(
        doc.name,
        len(doc.nodes),
        len(doc.edges),
        len(doc.alerts),
        replace,
        preserved_blocks=sorted(r for r in kept if r in doc_routes),
        blocks_gone=sorted(r for r in keep if r not in kept),
        reopened=reopened,
        actor=actor,
    )
    return _audited(store, live, report, reset_blocks)


def _audited(store: Store, graph: str, report: ImportReport, reset: bool) -> ImportReport:
    """Record the import (or reset) in the audit; a failure to record is reported, not hidden."""
    kind = "reset" if reset else "import"
    if reset:
        summary = f"scenario reset by {report.actor}: reopened {', '.join(report.reopened) or 'no route'}"
    else:
        verb = "replaced the graph with" if report.replaced else "imported"
        verb = f"re-synced the slice of {report.slice_of} from" if report.slice_of else verb
        summary = f"{report.actor} {verb} {report.name}: {report.nodes} nodes, {report.edges} relationships"
        if report.preserved_blocks:
            summary += f"; kept blocked: {', '.join(report.preserved_blocks)}"
        if report.blocks_gone:
            summary += f"; blocks whose routes are gone: {', '.join(report.blocks_gone)}"
        if report.removed:
            nodes, rels = report.removed.get("nodes", 0), report.removed.get("relationships", 0)
            summary += f"; removed {nodes} nodes, {rels} relationships"
    data = {k: v for k, v in report.__dict__.items() if k not in ("actor", "event_id", "audit_error")}
    try:
        event = AuditLog(store).add_event(kind, report.actor, summary, data, graph=graph)
    except QueryFailed as exc:
        return dataclasses.replace(report, audit_error=f"the {kind} was not recorded in the audit: {exc}")
    return dataclasses.replace(report, event_id=event.event_id)


def snapshot_pruner(doc: Document, accounts: list[str], removed: dict[str, int]) -> Callable[[Store, str], None]:
    """A `prune` step for `import_document` that re-syncs AWS accounts to the snapshot in `doc`.

    On the staging copy: the entities an earlier import of `accounts` wrote
    (property `aws_snapshot`) that `doc` no longer holds are removed with their
    relationships and alerts, and the relationships leaving the accounts'
    remaining entities that `doc` no longer holds are removed. Everything else
    (other accounts, scenario data) is untouched. Counts go into `removed`.
    """
    doc_ids = {n.id for n in doc.nodes}
    doc_edges = {e.key for e in doc.edges}

    def prune(store: Store, staging: str) -> None:
        owned = {row["id"] for row in store.read("snapshot_entities", {"accounts": accounts}, graph=staging)}
        stale = sorted(owned - doc_ids)
        stale_set = set(stale)
        kept = sorted(owned & doc_ids)
        stale_edges: dict[RelType, list[dict[str, str]]] = {}
        for start in range(0, len(kept), BATCH_SIZE):
            rows = store.read("edges_from_entities", {"ids": kept[start : start + BATCH_SIZE]}, graph=staging)
            for row in rows:
                if (row["source"], row["type"], row["target"]) not in doc_edges and row["target"] not in stale_set:
                    stale_edges.setdefault(RelType(row["type"]), []).append(
                        {"source": row["source"], "target": row["target"]}
                    )
        for start in range(0, len(stale), BATCH_SIZE):
            batch = stale[start : start + BATCH_SIZE]
            rows = store.execute_write(template("delete_alerts_of_entities").text, {"ids": batch}, graph=staging)
            removed["alerts"] = removed.get("alerts", 0) + int(rows[0]["removed"] if rows else 0)
            store.execute_write(template("delete_entities").text, {"ids": batch}, graph=staging)
            removed["nodes"] = removed.get("nodes", 0) + len(batch)
        for rel_type, rel_rows in stale_edges.items():
            for batch in _batches(rel_rows):
                store.execute_write(render("delete_edges", rel_type=rel_type), {"rows": batch}, graph=staging)
                removed["relationships"] = removed.get("relationships", 0) + len(batch)

    return prune
