"""The read-only tools. Every query is a named template run with GRAPH.RO_QUERY.

Each tool takes raw values, validates them into a pydantic input (bad input is
`invalid_input`, never a query), answers from the graph, and is traced whether
it succeeded, failed or was refused.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from ..graph.model import ENDPOINTS, Label, domain_label
from ..graph.store import QueryFailed, Store, decode_cell
from ..graph.templates import path_template
from ..results import (
    DEFAULT_DEPTH,
    MAX_DEPTH,
    PATH_CAP,
    AccessPath,
    AlertInput,
    AlertsResult,
    AlertSummary,
    AlertView,
    BlastRadiusResult,
    Candidate,
    CandidateCollateral,
    CandidatesResult,
    EvidenceGraphResult,
    GraphRel,
    InvestigateInput,
    InvestigationResult,
    NodeView,
    PathInput,
    RelView,
    RouteStatus,
    RouteStatusResult,
    ScoreFactor,
    ShortestPathResult,
    Status,
    ToolResult,
)
from .rules import RULE_SET, PathEnd, assess, combine, evidence_factors, signal_factors
from .trace import Tracer

if TYPE_CHECKING:
    from ..results.collateral import CollateralResult

__all__ = [
    "SENSITIVE",
    "Evidence",
    "Reached",
    "ReadTools",
    "Unknown",
    "build_candidates",
    "candidate_id",
    "describe_input_error",
    "path_signature",
]

SENSITIVE = ["high", "critical"]
BLAST_LABELS = (Label.WORKLOAD.value, Label.IAM_ROLE.value, Label.DATA_ASSET.value)
LABEL_ORDER = tuple(label.value for label in Label)
CANDIDATE_PREFIX = "block-route:"
# Reads a tool runs beside its own (one call's independent queries, on another connection),
# on a pool made at first use: most commands never need it, nor `concurrent.futures` (and
# `logging`, which it imports), about 10 ms of a command's start.
_side_pool: Any = None
_side_pool_lock = threading.Lock()


def _side_reads() -> Any:
    global _side_pool  # noqa: PLW0603 - made once, on first use
    with _side_pool_lock:
        if _side_pool is None:
            from concurrent.futures import ThreadPoolExecutor

            _side_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="blastshield-read")
        return _side_pool


# A breadth-first expansion is read again when the graph changed meanwhile, at most this often.
REACH_ATTEMPTS = 3
# Blast radius orders its critical paths in Python from the relationships its expansion read
# (`_critical_paths`); past this many steps of that search it answers as a query failure, as
# the path query it stands in for would once the server's timeout ended it.
CRITICAL_PATH_STEPS = 2_000_000
# A breadth-first expansion reads a frontier of at least this many nodes in this many parts at once.
SPLIT_FRONTIER = 64
SPLIT_PARTS = 2
# The alert queue reads its entities' path ends in chunks of this many ids (one query each).
QUEUE_CHUNK = 100
# The drawn neighbourhood holds at most this many relationships (paths are always drawn whole).
GRAPH_RELATIONSHIP_CAP = 300
# Collateral compares at most this many identities reaching a route (the first by id); the message says so.
COLLATERAL_IDENTITY_CAP = 500

R = TypeVar("R", bound=ToolResult)
_T = TypeVar("_T")


def candidate_id(route_id: str) -> str:
    return f"{CANDIDATE_PREFIX}{route_id}"


def describe_input_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "input"
        parts.append(f"{where}: {err['msg']}")
    return "invalid input: " + "; ".join(parts)


# Records here and in `rules`, `templates` and `embedded` are named tuples or plain classes, not
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


class Reached(NamedTuple):
    """An entity `reach` found, and how many hops from the start."""

    id: str
    label: str
    name: str
    sensitivity: str | None
    hops: int


# What a breadth-first expansion read, by internal node id: each node -> the nodes one
# qualifying relationship away (one relationship per ordered pair of nodes: a type has one
# pair of labels, and a document or upsert holds one relationship per source, type and target).
_Links = dict[int, list[int]]


def _critical_paths(
    start: int | None, links: _Links, targets: set[int], names: dict[int, str], cap: int
) -> tuple[list[list[str]], bool]:
    """The critical paths of blast radius from what an expansion read (`ReadTools._expand`): the
    paths `evidence` reads, as entity ids (the start's first), and whether there were more than `cap`.

    Those are the simple paths of 1..MAX_DEPTH qualifying relationships from `start` to a node of
    `targets` (sensitive data assets), shortest first, then by their entity ids, cut at `cap`.
    Lengths are searched in turn and the search stops after the first length that makes the
    count exceed `cap`, so a dense graph never has its longer paths enumerated; a branch is cut
    where even the nearest target is too far (hops to the nearest target, breadth first
    backwards). Raises QueryFailed after CRITICAL_PATH_STEPS steps.
    """
    if start is None or not targets:
        return [], False
    back: _Links = {}
    for source, nexts in links.items():
        for node in nexts:
            back.setdefault(node, []).append(source)
    to_go = dict.fromkeys(targets, 0)
    level = list(targets)
    for hops in range(1, MAX_DEPTH):
        level = list(dict.fromkeys(prev for node in level for prev in back.get(node, ()) if prev not in to_go))
        to_go.update(dict.fromkeys(level, hops))
    found: list[tuple[int, list[str]]] = []
    steps = 0
    path, on_path = [start], {start}

    def walk(node: int, length: int) -> None:
        nonlocal steps
        depth = len(path)  # relationships once `node`'s next one is taken
        for nxt in links.get(node, ()):
            steps += 1
            if nxt in on_path or depth + to_go.get(nxt, MAX_DEPTH + 1) > length:
                continue
            if depth == length:  # to_go is 0: a target
                found.append((length, [names[n] for n in path] + [names[nxt]]))
                continue
            path.append(nxt)
            on_path.add(nxt)
            walk(nxt, length)
            path.pop()
            on_path.discard(nxt)
        if steps > CRITICAL_PATH_STEPS:
            raise QueryFailed(f"more than {CRITICAL_PATH_STEPS:,} steps to order the critical paths; not answered")

    for length in range(1, MAX_DEPTH + 1):
        walk(start, length)
        if len(found) > cap:
            break
    found.sort()
    return [ids for _, ids in found[:cap]], len(found) > cap


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
_EXPAND_COLUMNS = ("source", "node", "id", "type", "name", "sensitivity")  # of expand_frontier(_nodes)


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


class ReadTools:
    """The read-only tools over one store. Safe to share between threads."""

    def __init__(self, store: Store, tracer: Tracer | None = None, path_cap: int = PATH_CAP):
        self.store = store
        self.tracer = tracer or Tracer()
        self.path_cap = path_cap

    # -- plumbing ------------------------------------------------------------
    def _run(
        self,
        tool: str,
        result_cls: type[R],
        input_cls: type[BaseModel] | None,
        raw: dict[str, Any],
        body: Callable[[Any], R],
    ) -> R:
        started = time.perf_counter()
        traced_input = raw
        try:
            if input_cls is not None:
                validated = input_cls.model_validate(raw)
                traced_input = validated.model_dump()
            else:
                validated = None
            result = body(validated)
        except ValidationError as exc:
            result = result_cls(tool=tool, status=Status.INVALID_INPUT, message=describe_input_error(exc))
        except Unknown as exc:
            result = result_cls(tool=tool, status=exc.status, message=exc.message)
        except QueryFailed as exc:
            result = result_cls(tool=tool, status=Status.QUERY_FAILED, message=str(exc))
        self.tracer.record(tool, traced_input, result.status, _count(result), (time.perf_counter() - started) * 1000)
        return result

    def _paths(
        self,
        kind: str,
        depth: int,
        params: dict[str, Any],
        *,
        include_blocked: bool = False,
        exclude_routes: Iterable[str] = (),
        cap: int | None = None,
    ) -> tuple[list[AccessPath], bool]:
        cap = cap or self.path_cap
        query = dict(params)
        query.update(
            include_blocked=include_blocked,
            exclude_routes=sorted(exclude_routes),
            limit=cap + 1,
        )
        if kind == "sensitive":
            query["sensitivities"] = SENSITIVE
        names, records = self.store.read_records(path_template(kind, depth).name, query)
        paths = _paths_from_records(records, names.index("nodes"), names.index("rels")) if records else []
        return paths[:cap], len(paths) > cap

    def evidence(self, alert_id: str, *, exclude_routes: Iterable[str] = ()) -> Evidence:
        """The standard investigation (depth 6) of an alert, fresh from the graph, in one query.

        Raises QueryFailed, or Unknown for an unknown alert or entity.
        """
        names, records = self.store.read_records(
            "alert_evidence",
            {
                "id": alert_id,
                "sensitivities": SENSITIVE,
                "exclude_routes": sorted(exclude_routes),
                "limit": self.path_cap + 1,
            },
        )
        kind_at = names.index("kind") if records else 0
        by_kind: dict[str, list[list[Any]]] = {"alert": [], "schema": [], "path": []}
        for record in records:
            by_kind[record[kind_at][1]].append(record)
        if not by_kind["alert"]:
            raise Unknown(Status.UNKNOWN_ALERT, f"no alert with id {alert_id!r}")
        head = {name: decode_cell(cell) for name, cell in zip(names, by_kind["alert"][0], strict=True)}
        alert = _alert_record(head["props"])
        if head["id"] is None:
            raise Unknown(Status.UNKNOWN_SOURCE, f"no entity with id {alert.entity_id!r} in the graph")
        entity = _node({"id": head["id"], "labels": head["labels"], "props": head["entity_props"]})
        paths = []
        if by_kind["path"]:
            schema = {name: decode_cell(cell) for name, cell in zip(names, by_kind["schema"][0], strict=True)}
            nodes_at, rels_at = names.index("nodes"), names.index("rels")
            paths = _paths_from_graph_records(
                by_kind["path"], nodes_at, rels_at, first=entity, keys=schema["props"], types=schema["labels"]
            )
        return Evidence(alert=alert, entity=entity, paths=paths[: self.path_cap], truncated=len(paths) > self.path_cap)

    def _alert_view(self, evidence: Evidence) -> AlertView:
        assessment = assess(evidence.alert.signals, evidence.paths)
        return AlertView(
            id=evidence.alert.id,
            title=evidence.alert.title,
            entity_id=evidence.alert.entity_id,
            entity_label=evidence.entity.label,
            kind=evidence.alert.kind,
            signals=evidence.alert.signals,
            risk_score=assessment.score,
            severity=assessment.severity,
            rule_set=assessment.rule_set,
            factors=assessment.factors,
        )

    def reach(self, entity_id: str, exclude_routes: Iterable[str] = ()) -> list[Reached]:
        """Every entity reachable from `entity_id` over qualifying relationships within 6 hops,
        with its hop distance (breadth first), treating routes in `exclude_routes` as blocked.
        Records are slim (id, label, name, sensitivity, hops): a dense graph reaches thousands.

        After the first level the frontier is sent as internal node ids, which name the same
        nodes only while the graph does not change: the graph's version (which every write
        bumps) is read before and after, and a changed graph is expanded again. Raises
        QueryFailed when it changed every time."""
        excluded = sorted(exclude_routes)
        return self._at_one_version(lambda: self._expand(entity_id, excluded), f"expansions from {entity_id!r}")

    def _at_one_version(self, read: Callable[[], _T], what: str) -> _T:
        """`read()`, done again while the graph's version (which every write bumps) differs
        before and after it, at most REACH_ATTEMPTS times; then QueryFailed naming `what`."""
        for _ in range(REACH_ATTEMPTS):
            version = self.store.graph_version()
            answer = read()
            if self.store.graph_version() == version:
                return answer
        raise QueryFailed(f"the graph changed during each of {REACH_ATTEMPTS} {what}")

    def _expand(
        self, entity_id: str, excluded: list[str], links: _Links | None = None, names: dict[int, str] | None = None
    ) -> list[Reached]:
        """One breadth-first expansion (see `reach`). With `links` and `names` it also keeps what it
        read of the graph by internal node id: each qualifying relationship leaving a node within
        MAX_DEPTH - 1 hops (source -> targets), and each node's entity id."""
        seen = {entity_id}
        frontier: list[int] = []
        found: list[Reached] = []
        for hop in range(1, MAX_DEPTH + 1):
            if hop > 1 and not frontier:
                break
            level, frontier = frontier, []
            for columns, records in self._expand_level(hop, entity_id, level, excluded):
                if not records:
                    continue
                # Cells read in place: ids, types and internal ids are compact strings and integers (a
                # dense graph sends thousands of rows); name and sensitivity are decoded if they are not.
                at_source, at_node, at_id, at_type, at_name, at_sensitivity = map(columns.index, _EXPAND_COLUMNS)
                for record in records:
                    node = record[at_node][1]
                    if links is not None:
                        links.setdefault(record[at_source][1], []).append(node)
                    node_id = record[at_id][1]
                    if node_id in seen:
                        continue
                    seen.add(node_id)
                    frontier.append(node)
                    name, sensitivity = record[at_name], record[at_sensitivity]
                    found.append(
                        Reached(
                            node_id,
                            _TARGET_LABEL[record[at_type][1]],
                            (name[1] if name[0] in _AS_SENT else decode_cell(name)) or node_id,
                            sensitivity[1] if sensitivity[0] in _AS_SENT else decode_cell(sensitivity),
                            hop,
                        )
                    )
                    if names is not None:
                        names[node] = node_id
                if names is not None and hop == 1:
                    names[records[0][at_source][1]] = entity_id
        return found

    def _expand_level(
        self, hop: int, entity_id: str, frontier: list[int], excluded: list[str]
    ) -> Iterator[tuple[list[str], list[list[Any]]]]:
        """The rows of one level of `_expand` as (columns, records) parts, in frontier order: from the
        entity at hop 1 (`expand_frontier`), then from the internal node ids of the frontier
        (`expand_frontier_nodes`). A frontier of SPLIT_FRONTIER nodes or more is read in SPLIT_PARTS
        parts at once, each on its own connection, so the server expands them on several of its
        threads while the parts already answered are processed here. A part that fails raises once
        every part has ended (none is left running)."""
        if hop == 1:
            yield self.store.read_records("expand_frontier", {"frontier": [entity_id], "exclude_routes": excluded})
            return
        if len(frontier) < SPLIT_FRONTIER:
            yield self.store.read_records("expand_frontier_nodes", {"nodes": frontier, "exclude_routes": excluded})
            return
        size = -(-len(frontier) // SPLIT_PARTS)
        parts = [frontier[i : i + size] for i in range(0, len(frontier), size)]
        pool = _side_reads()
        others = [
            pool.submit(self.store.read_records, "expand_frontier_nodes", {"nodes": part, "exclude_routes": excluded})
            for part in parts[1:]
        ]
        try:
            yield self.store.read_records("expand_frontier_nodes", {"nodes": parts[0], "exclude_routes": excluded})
            for other in others:
                yield other.result()
        finally:
            for other in others:
                other.exception()  # waits; a failure already raised (or to be ignored) needs no second report

    def route_collateral(
        self,
        route_id: str,
        baseline: dict[str, list[Reached]] | None = None,
        skip_identity: str | None = None,
        relationship: RelView | None = None,
    ) -> CollateralResult:
        """Who loses what if `route_id` is blocked (raises Unknown for a route not in the graph).

        Every identity that reaches the route's relationship is compared: what it reaches
        within 6 hops now, and what it would reach with the route treated as blocked.
        `baseline` caches the "now" side per identity across calls that share one moment;
        `skip_identity` (the alert's own entity, for a candidate) is not compared at all.
        """
        from ..results.collateral import CollateralResult, IdentityCollateral, LostEntity  # only where used

        cache = baseline if baseline is not None else {}
        if relationship is not None and relationship.properties.get("route_id") == route_id:
            rel = relationship  # a candidate's own relationship, just read with its paths
        else:
            rows = self.store.read("routes_by_ids", {"route_ids": [route_id]})
            if not rows:
                raise Unknown(Status.UNKNOWN_ROUTE, f"no session route with id {route_id!r} in the graph")
            row = rows[0]
            rel = RelView(type=row["type"], source=row["source"], target=row["target"], properties=dict(row["props"]))
        route_status = str(rel.properties.get("status", "active"))
        affected: list[IdentityCollateral] = []
        capped = False
        if route_status != "blocked":
            reaching = self.store.read("identities_reaching", {"id": rel.source, "limit": COLLATERAL_IDENTITY_CAP + 1})
            capped = len(reaching) > COLLATERAL_IDENTITY_CAP
            for ident_row in reaching[:COLLATERAL_IDENTITY_CAP]:
                identity = _node(ident_row)
                if identity.id == skip_identity:
                    continue
                if identity.id not in cache:
                    cache[identity.id] = self.reach(identity.id)
                before = cache[identity.id]
                after = {node.id for node in self.reach(identity.id, [route_id])}
                lost = [
                    LostEntity(
                        id=node.id,
                        label=node.label,
                        name=node.name,
                        sensitivity=node.sensitivity if node.label == Label.DATA_ASSET else None,
                    )
                    for node in before
                    if node.id not in after
                ]
                if lost:
                    lost.sort(key=lambda e: (LABEL_ORDER.index(e.label) if e.label in LABEL_ORDER else 99, e.id))
                    affected.append(IdentityCollateral(identity_id=identity.id, name=identity.name, lost=lost))
        lost_ids: dict[str, LostEntity] = {e.id: e for i in affected for e in i.lost}
        by_label = {label: sum(1 for e in lost_ids.values() if e.label == label) for label in LABEL_ORDER}
        sensitive = sorted(e.id for e in lost_ids.values() if e.sensitivity in SENSITIVE)
        if route_status == "blocked":
            message = f"route {route_id} is already blocked: blocking it again changes nothing"
        elif not affected:
            message = f"blocking {route_id} takes nothing from any identity (every entity stays reachable)"
        else:
            message = f"blocking {route_id} takes {len(lost_ids)} entit(ies) from {len(affected)} identit(ies)" + (
                f", including sensitive assets {', '.join(sensitive)}" if sensitive else ""
            )
        if capped:
            message += f" (only the first {COLLATERAL_IDENTITY_CAP} identities reaching it, by id, were compared)"
        return CollateralResult(
            tool="collateral",
            status=Status.OK,
            message=message,
            route_id=route_id,
            relationship=rel,
            route_status=route_status,
            identities=affected,
            lost_by_label=by_label,
            lost_sensitive_assets=sensitive,
        )

    def candidate_collateral(
        self,
        route_id: str,
        entity_id: str,
        baseline: dict[str, list[Reached]] | None = None,
        relationship: RelView | None = None,
    ) -> CandidateCollateral:
        """The collateral of one candidate: what identities other than `entity_id` would lose."""
        full = self.route_collateral(route_id, baseline, skip_identity=entity_id, relationship=relationship)
        others = [i for i in full.identities if i.identity_id != entity_id]
        lost = {e.id: e for i in others for e in i.lost}
        sensitive = sorted(e.id for e in lost.values() if e.sensitivity in SENSITIVE)
        if not others:
            summary = "no other identity loses access"
        else:
            summary = (
                f"{len(others)} other identit(ies) ({', '.join(i.identity_id for i in others)}) lose access to"
                f" {len(lost)} entit(ies)" + (f", including sensitive {', '.join(sensitive)}" if sensitive else "")
            )
        return CandidateCollateral(
            other_identities=[i.identity_id for i in others],
            lost_entities=len(lost),
            lost_sensitive_assets=sensitive,
            summary=summary,
        )

    # -- tools ---------------------------------------------------------------
    def alert_choices(self) -> list[tuple[str, str]]:
        """(id, title) of every alert, ordered by id: one query, no investigation (for pickers).

        Raises QueryFailed."""
        return [(row["props"]["id"], row["props"].get("title", "")) for row in self.store.read("list_alerts")]

    def path_ends(self, entity_ids: Iterable[str]) -> dict[str, list[PathEnd]]:
        """The ends of the standard investigation's qualifying paths (depth 6, shortest first,
        at most `path_cap` + 1, exactly those `evidence` reads) for many entities, in bounded
        chunks of `QUEUE_CHUNK` ids, several chunks at a time. An id missing from the answer
        is not in the graph; an entity with no qualifying path maps to an empty list.

        Raises QueryFailed if any chunk fails: a partial answer is never returned."""
        ids = sorted(set(entity_ids))
        chunks = [ids[i : i + QUEUE_CHUNK] for i in range(0, len(ids), QUEUE_CHUNK)]

        def chunk(part: list[str]) -> list[dict[str, Any]]:
            return self.store.read(
                "alert_path_ends", {"entity_ids": part, "sensitivities": SENSITIVE, "limit": self.path_cap + 1}
            )

        found: dict[str, list[PathEnd]] = {}
        answers = [chunk(chunks[0])] if len(chunks) == 1 else list(_side_reads().map(chunk, chunks))
        for row in (row for rows in answers for row in rows):
            found[row["entity_id"]] = [PathEnd(int(h), a, str(s)) for h, a, s in row["ends"]]
        return found

    def list_alerts(self) -> AlertsResult:
        """Every alert with its computed score and count of qualifying paths.

        The same summary an investigation of each alert gives (`investigate_alert`: status,
        path count, truncation, score, severity, rule set), read for all alerts in a few
        batched queries: each distinct entity's path ends once (`path_ends`), its evidence
        rules once, each distinct set of signals once, and one assessment per distinct pair."""

        def body(_: None) -> AlertsResult:
            rows = self.store.read("queue_alerts")
            ends_by_entity = self.path_ends(row["entity_id"] or "" for row in rows) if rows else {}
            cap = self.path_cap
            evidence: dict[str, tuple[list[ScoreFactor], int, bool]] = {}
            signal_rules: dict[str | None, tuple[str, list[ScoreFactor]]] = {}
            scored: dict[tuple[str, str | None], tuple[int, str, str]] = {}
            summaries = []
            for row in rows:
                entity_id = row["entity_id"] or ""
                common = {
                    "id": row["id"],
                    "title": row["title"] or "",
                    "entity_id": entity_id,
                    "kind": row["kind"] or "",
                }
                ends = ends_by_entity.get(entity_id)
                if ends is None:
                    summaries.append(
                        AlertSummary(
                            **common,
                            risk_score=None,
                            severity=None,
                            rule_set=RULE_SET,
                            path_count=None,
                            status=Status.UNKNOWN_SOURCE,
                        )
                    )
                    continue
                if entity_id not in evidence:
                    evidence[entity_id] = (evidence_factors(ends[:cap]), min(len(ends), cap), len(ends) > cap)
                from_evidence, path_count, truncated = evidence[entity_id]
                raw = row["signals"] if isinstance(row["signals"], str) else None  # stored as JSON text
                if (entity_id, raw) not in scored:
                    if raw not in signal_rules:
                        signal_rules[raw] = signal_factors(_signals(raw))
                    assessment = combine(from_evidence, *signal_rules[raw])
                    scored[entity_id, raw] = (assessment.score, assessment.severity, assessment.rule_set)
                score, severity, rule_set = scored[entity_id, raw]
                summaries.append(
                    AlertSummary(
                        **common,
                        risk_score=score,
                        severity=severity,
                        rule_set=rule_set,
                        path_count=path_count,
                        truncated=truncated,
                        status=Status.PATHS_FOUND if path_count else Status.NO_PATH,
                    )
                )
            return AlertsResult(tool="list_alerts", status=Status.OK, alerts=summaries)

        return self._run("list_alerts", AlertsResult, None, {}, body)

    def investigate_alert(self, alert_id: Any, depth: Any = DEFAULT_DEPTH) -> InvestigationResult:
        """Every qualifying path from the alert's entity to a high/critical asset, shortest first."""

        def body(inp: InvestigateInput) -> InvestigationResult:
            ev = self.evidence(inp.alert_id)
            if inp.depth == MAX_DEPTH:
                paths, truncated = ev.paths, ev.truncated
            else:
                paths, truncated = self._paths("sensitive", inp.depth, {"source_id": ev.alert.entity_id})
            found = bool(paths)
            message = (
                f"{len(paths)}{'+' if truncated else ''} qualifying path(s) within {inp.depth} hops"
                if found
                else f"no qualifying path from {ev.alert.entity_id} to a high/critical asset within {inp.depth} hops"
            )
            return InvestigationResult(
                tool="investigate_alert",
                status=Status.PATHS_FOUND if found else Status.NO_PATH,
                message=message,
                alert=self._alert_view(ev),
                depth=inp.depth,
                paths=paths,
                path_count=len(paths),
                truncated=truncated,
                path_cap=self.path_cap,
            )

        return self._run(
            "investigate_alert", InvestigationResult, InvestigateInput, {"alert_id": alert_id, "depth": depth}, body
        )

    def get_blast_radius(self, alert_id: Any) -> BlastRadiusResult:
        """Workloads, roles and assets reachable over qualifying relationships within 6 hops."""

        def body(inp: AlertInput) -> BlastRadiusResult:
            # One breadth-first expansion answers both questions: what the entity reaches, and,
            # from the relationships it read, the critical paths (those `evidence` reads; on a
            # dense graph the path query cost as much as the expansion). Alert, entity and
            # expansion are read at one graph version.
            def read() -> tuple[AlertRecord, list[Reached], _Links, dict[int, str]]:
                rows = self.store.read("alert_by_id", {"id": inp.alert_id})
                if not rows:
                    raise Unknown(Status.UNKNOWN_ALERT, f"no alert with id {inp.alert_id!r}")
                alert = _alert_record(rows[0]["props"])
                if not self.store.read("entities_by_ids", {"ids": [alert.entity_id]}):
                    raise Unknown(Status.UNKNOWN_SOURCE, f"no entity with id {alert.entity_id!r} in the graph")
                links: _Links = {}
                names: dict[int, str] = {}
                return alert, self._expand(alert.entity_id, [], links, names), links, names

            alert, reached, links, names = self._at_one_version(read, f"reads of alert {inp.alert_id!r}")
            start = next((node for node, entity in names.items() if entity == alert.entity_id), None)
            sensitive = {r.id for r in reached if r.label == Label.DATA_ASSET and r.sensitivity in SENSITIVE}
            targets = {node for node, entity in names.items() if entity in sensitive}
            paths, truncated = _critical_paths(start, links, targets, names, self.path_cap)
            on_path = {entity for path in paths for entity in path[1:]}
            # Plain rows validated in one call: thousands of entities on a dense graph.
            found = [
                {"id": r.id, "label": r.label, "name": r.name, "hops": r.hops, "on_critical_path": r.id in on_path}
                for r in reached
                if r.label in BLAST_LABELS
            ]
            found.sort(key=lambda e: (BLAST_LABELS.index(e["label"]), e["hops"], e["id"]))
            by_label = dict.fromkeys(BLAST_LABELS, 0)
            for entity in found:
                by_label[entity["label"]] += 1
            return BlastRadiusResult(
                tool="get_blast_radius",
                status=Status.OK,
                message=f"{len(found)} workload/role/asset entities reachable within {MAX_DEPTH} hops",
                alert_id=alert.id,
                entity_id=alert.entity_id,
                entities=found,
                by_label=by_label,
                critical_paths_truncated=truncated,
            )

        return self._run("get_blast_radius", BlastRadiusResult, AlertInput, {"alert_id": alert_id}, body)

    def find_shortest_access_path(
        self, source_id: Any, target_id: Any, max_hops: Any = DEFAULT_DEPTH
    ) -> ShortestPathResult:
        """All shortest qualifying paths from source to target within max_hops (1..6)."""

        def body(inp: PathInput) -> ShortestPathResult:
            known = {row["id"] for row in self.store.read("entities_by_ids", {"ids": [inp.source_id, inp.target_id]})}
            if inp.source_id not in known:
                raise Unknown(Status.UNKNOWN_SOURCE, f"no entity with id {inp.source_id!r} in the graph")
            if inp.target_id not in known:
                raise Unknown(Status.UNKNOWN_TARGET, f"no entity with id {inp.target_id!r} in the graph")
            common = {"source_id": inp.source_id, "target_id": inp.target_id, "max_hops": inp.max_hops}
            if inp.source_id == inp.target_id:
                return ShortestPathResult(
                    tool="find_shortest_access_path",
                    status=Status.NO_PATH,
                    message="source and target are the same entity; a path needs at least one relationship",
                    **common,
                )
            # Iterative deepening: the first depth with any path gives the shortest ones.
            # The depth-d template returns paths of 1..d relationships shortest first, so
            # one query covers every depth up to SHORTEST_FIRST_DEPTH; the shortest are
            # the leading rows of the smallest length, and they were truncated only when
            # the cap + 1 rows are all of that length.
            for depth in _deepening(inp.max_hops):
                paths, _ = self._paths(
                    "target", depth, {"source_id": inp.source_id, "target_id": inp.target_id}, cap=self.path_cap + 1
                )
                if paths:
                    hops = paths[0].hops
                    shortest = [p for p in paths if p.hops == hops]
                    truncated = len(shortest) > self.path_cap
                    shortest = shortest[: self.path_cap]
                    return ShortestPathResult(
                        tool="find_shortest_access_path",
                        status=Status.PATHS_FOUND,
                        message=f"{len(shortest)}{'+' if truncated else ''} shortest path(s) of {hops} hops",
                        hops=hops,
                        paths=shortest,
                        path_count=len(shortest),
                        truncated=truncated,
                        path_cap=self.path_cap,
                        **common,
                    )
            return ShortestPathResult(
                tool="find_shortest_access_path",
                status=Status.NO_PATH,
                message=f"no qualifying path from {inp.source_id} to {inp.target_id} within {inp.max_hops} hops",
                **common,
            )

        raw = {"source_id": source_id, "target_id": target_id, "max_hops": max_hops}
        return self._run("find_shortest_access_path", ShortestPathResult, PathInput, raw, body)

    def get_containment_route_statuses(self, alert_id: Any) -> RouteStatusResult:
        """Session routes the alert's paths use or used, with status and paths carried now."""

        def body(inp: AlertInput) -> RouteStatusResult:
            ev = self.evidence(inp.alert_id)
            all_paths, all_truncated = self._paths(
                "sensitive", MAX_DEPTH, {"source_id": ev.alert.entity_id}, include_blocked=True
            )
            routes: dict[str, RouteStatus] = {}
            for path in all_paths + ev.paths:
                for rel in path.relationships:
                    route = rel.properties.get("route_id")
                    if isinstance(route, str) and route not in routes:
                        routes[route] = RouteStatus(
                            route_id=route,
                            type=rel.type,
                            source=rel.source,
                            target=rel.target,
                            status=str(rel.properties.get("status", "active")),
                            paths_carried=sum(1 for p in ev.paths if route in p.route_ids),
                        )
            ordered = sorted(routes.values(), key=lambda r: (-r.paths_carried, r.status != "active", r.route_id))
            return RouteStatusResult(
                tool="get_containment_route_statuses",
                status=Status.OK,
                message=f"{len(ordered)} route(s); {len(ev.paths)} qualifying path(s) now",
                alert_id=ev.alert.id,
                routes=ordered,
                qualifying_paths=len(ev.paths),
                truncated=ev.truncated or all_truncated,
            )

        return self._run("get_containment_route_statuses", RouteStatusResult, AlertInput, {"alert_id": alert_id}, body)

    def get_evidence_graph(self, alert_id: Any, depth: Any = DEFAULT_DEPTH) -> EvidenceGraphResult:
        """The neighbourhood of the alert's entity within depth hops, blocked and denied
        relationships included (marked), with the qualifying paths at that depth: what the
        dashboard draws."""

        def body(inp: InvestigateInput) -> EvidenceGraphResult:
            ev = self.evidence(inp.alert_id)
            if inp.depth == MAX_DEPTH:
                paths, truncated = ev.paths, ev.truncated
            else:
                paths, truncated = self._paths("sensitive", inp.depth, {"source_id": ev.alert.entity_id})
            on_path = {(r.source, r.type, r.target) for p in paths for r in p.relationships}
            nodes = {ev.entity.id: ev.entity}
            rels: dict[tuple[str, str, str], GraphRel] = {}
            frontier = [ev.entity.id]
            cap = GRAPH_RELATIONSHIP_CAP
            for _hop in range(inp.depth):
                if not frontier or len(rels) >= cap:
                    break
                rows = self.store.read(
                    "expand_frontier_any_status", {"frontier": frontier, "limit": cap - len(rels) + 1}
                )
                next_frontier = []
                for row in rows:
                    key = (row["source"], row["type"], row["id"])
                    if key in rels:
                        continue
                    if len(rels) >= cap:
                        truncated = True
                        break
                    props = dict(row["rel_props"])
                    rels[key] = GraphRel(
                        type=row["type"],
                        source=row["source"],
                        target=row["id"],
                        properties=props,
                        qualifying=_qualifies(props),
                        on_path=key in on_path,
                    )
                    if row["id"] not in nodes:
                        nodes[row["id"]] = _node(row)
                        next_frontier.append(row["id"])
                frontier = next_frontier
            for path in paths:  # paths are drawn whole even if the neighbourhood was capped
                for node in path.nodes:
                    nodes.setdefault(node.id, node)
                for rel in path.relationships:
                    rels.setdefault(
                        (rel.source, rel.type, rel.target),
                        GraphRel(**rel.model_dump(), qualifying=True, on_path=True),
                    )
            return EvidenceGraphResult(
                tool="get_evidence_graph",
                status=Status.PATHS_FOUND if paths else Status.NO_PATH,
                message=f"{len(nodes)} entities, {len(rels)} relationships within {inp.depth} hops;"
                f" {len(paths)} qualifying path(s)",
                alert_id=ev.alert.id,
                entity_id=ev.entity.id,
                depth=inp.depth,
                nodes=list(nodes.values()),
                relationships=list(rels.values()),
                paths=paths,
                path_count=len(paths),
                truncated=truncated,
                relationship_cap=cap,
            )

        raw = {"alert_id": alert_id, "depth": depth}
        return self._run("get_evidence_graph", EvidenceGraphResult, InvestigateInput, raw, body)

    def get_response_candidates(self, alert_id: Any) -> CandidatesResult:
        """Allowlisted actions the current evidence supports: block one active session route,
        each with its collateral (what other identities would lose)."""

        def body(inp: AlertInput) -> CandidatesResult:
            ev = self.evidence(inp.alert_id)
            result = build_candidates(ev, self.path_cap)
            baseline: dict[str, list[Reached]] = {}
            for cand in result.candidates:
                cand.collateral = self.candidate_collateral(
                    cand.route_id, ev.alert.entity_id, baseline, relationship=cand.relationship
                )
            return result

        return self._run("get_response_candidates", CandidatesResult, AlertInput, {"alert_id": alert_id}, body)


def _qualifies(props: dict[str, Any]) -> bool:
    return props.get("status", "active") != "blocked" and props.get("permission", "allow") != "deny"


def build_candidates(ev: Evidence, path_cap: int = PATH_CAP) -> CandidatesResult:
    """Candidates from evidence: every active route on a current qualifying path."""
    total = len(ev.paths)
    by_route: dict[str, tuple[RelView, list[int]]] = {}
    for index, path in enumerate(ev.paths):
        for rel in path.relationships:
            route = rel.properties.get("route_id")
            if isinstance(route, str) and rel.properties.get("status", "active") == "active":
                entry = by_route.setdefault(route, (rel, []))
                if index not in entry[1]:
                    entry[1].append(index)
    candidates = []
    for route, (rel, cut) in by_route.items():
        shortest = min(ev.paths[i].hops for i in cut)
        remaining = total - len(cut)
        candidates.append(
            (
                (-len(cut), shortest, route),
                Candidate(
                    id=candidate_id(route),
                    route_id=route,
                    relationship=rel,
                    paths_cut=len(cut),
                    cut_paths=cut,
                    remaining_if_applied=remaining,
                    reason=(
                        f"route {route} ({rel.source} -{rel.type}-> {rel.target}) carries {len(cut)} of {total}"
                        f" qualifying path(s), the shortest {shortest} hops; {remaining} would remain"
                        + (" (path list truncated: more may exist)" if ev.truncated else "")
                    ),
                ),
            )
        )
    candidates.sort(key=lambda pair: pair[0])
    covered = {i for _, c in candidates for i in c.cut_paths}
    uncuttable = [i for i in range(total) if i not in covered]
    if not total:
        message = "no qualifying path: nothing to contain"
    elif not candidates:
        message = f"{total} qualifying path(s) but none passes through an active session route"
    else:
        message = f"{len(candidates)} candidate(s) for {total} qualifying path(s)"
    return CandidatesResult(
        tool="get_response_candidates",
        status=Status.OK,
        message=message,
        alert_id=ev.alert.id,
        candidates=[c for _, c in candidates],
        qualifying_paths=total,
        uncuttable_paths=uncuttable,
        truncated=ev.truncated,
    )


def path_signature(paths: Sequence[AccessPath]) -> set[tuple[str, ...]]:
    """Paths as a set of node-id sequences (for comparisons)."""
    return {p.node_ids for p in paths}
