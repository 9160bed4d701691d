"""Breadth-first reach over qualifying relationships, and the collateral of blocking a route:
what `ReadTools` inherits from `ReachMixin`, with the critical paths blast radius orders from what
an expansion read.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from ..base.pools import track
from ..graph.model import Label
from ..graph.store import QueryFailed, Store, decode_cell
from ..results import MAX_DEPTH, CandidateCollateral, RelView, Status
from .paths import _AS_SENT, _TARGET_LABEL, LABEL_ORDER, SENSITIVE, Unknown, _node

if TYPE_CHECKING:
    from ..results.collateral import CollateralResult

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

            _side_pool = track(ThreadPoolExecutor(max_workers=4, thread_name_prefix="blastshield-read"))
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
# Collateral compares at most this many identities reaching a route (the first by id); the message says so.
COLLATERAL_IDENTITY_CAP = 500
_EXPAND_COLUMNS = ("source", "node", "id", "type", "name", "sensitivity")  # of expand_frontier(_nodes)

_T = TypeVar("_T")


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


class ReachMixin:
    """The breadth-first expansions of `ReadTools` (reach, blast radius) and the collateral of a
    route block, over `self.store`."""

    store: Store

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
        deadline: float | None = None,
    ) -> CollateralResult:
        """Who loses what if `route_id` is blocked (raises Unknown for a route not in the graph).

        Every identity that reaches the route's relationship is compared: what it reaches
        within 6 hops now, and what it would reach with the route treated as blocked.
        `baseline` caches the "now" side per identity across calls that share one moment;
        `skip_identity` (the alert's own entity, for a candidate) is not compared at all.
        Past `deadline` (a `time.monotonic()` value) no further identity is compared and the
        answer says `truncated`, with the reason.
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
        stopped: str | None = None
        if route_status != "blocked":
            reaching = self.store.read("identities_reaching", {"id": rel.source, "limit": COLLATERAL_IDENTITY_CAP + 1})
            capped = len(reaching) > COLLATERAL_IDENTITY_CAP
            for compared, ident_row in enumerate(reaching[:COLLATERAL_IDENTITY_CAP]):
                if deadline is not None and time.monotonic() > deadline:
                    total = min(len(reaching), COLLATERAL_IDENTITY_CAP)
                    stopped = f"time budget spent after {compared} of {total} identities: the rest were not compared"
                    break
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
        if stopped:
            message += f" (truncated: {stopped})"
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
            truncated=stopped is not None,
            truncated_reason=stopped,
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
