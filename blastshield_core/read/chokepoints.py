"""Choke points: the fewest relationships whose removal severs every qualifying path.

This is a minimum hitting set over the (capped) qualifying paths the templates
return: each path is the set of relationships it uses, and a choke set must
contain at least one relationship of every path. The search is exact (branch
and bound), never the greedy "busiest relationship first", which is not minimal
in general: a relationship shared by many paths can lure it away from two
relationships that together cut everything.

The search: reduce (drop duplicate and superset paths), start from the greedy
answer as an upper bound, then take forced choices (a path with one choosable
relationship left) and branch on the path with the fewest relationships (one
branch per relationship, each later branch forbidding the earlier ones),
pruning whenever the chosen count plus a lower bound reaches the best known
size. The bound is the larger of a greedy packing of pairwise-disjoint unhit
paths (each needs its own relationship) and the fewest relationships whose path
counts, busiest first, add up to the unhit paths. A node budget and a time budget (a
`time.monotonic()` deadline) bound the work; when either runs out the best set found is returned
with `exact = False` and the reason in `stopped`. The search runs on each element's rank in
`order` (small integers), so ties are broken without calling `order` again. No database call
happens here.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from ..graph.model import RelType
from ..results import AccessPath, ChokeRelationship, RelationshipLoad, RelView

__all__ = [
    "SEARCH_NODE_LIMIT",
    "ChokeAnalysis",
    "HittingSet",
    "RelKey",
    "analyse_paths",
    "minimum_hitting_set",
    "rel_key",
]

SEARCH_NODE_LIMIT = 100_000
RelKey = tuple[str, str, str]  # (source, type, target): a relationship is unique by these in the model

_TYPE_ORDER = {t.value: i for i, t in enumerate(RelType)}


def rel_key(rel: RelView) -> RelKey:
    return (rel.source, rel.type, rel.target)


@dataclass(frozen=True)
class HittingSet:
    """A hitting set and whether the search proved it minimum."""

    chosen: tuple
    exact: bool
    search_nodes: int
    stopped: str | None = None  # why the search stopped early (a budget), None when it finished


def _reduce(sets: list[frozenset]) -> list[frozenset]:
    """Drop duplicates and every set that contains another (hitting the smaller hits it)."""
    unique = sorted(set(sets), key=len)
    kept: list[frozenset] = []
    for s in unique:
        if not any(k <= s for k in kept):
            kept.append(s)
    return kept


def _lower_bound(sets: list[frozenset]) -> int:
    """Pairwise-disjoint sets found greedily: each needs a distinct element."""
    used: set = set()
    count = 0
    for s in sorted(sets, key=len):
        if used.isdisjoint(s):
            used |= s
            count += 1
    return count


def _load_bound(freq: Counter, count: int) -> int:
    """The fewest elements whose path counts, busiest first, add up to `count`."""
    total = 0
    for k, load in enumerate(sorted(freq.values(), reverse=True), start=1):
        total += load
        if total >= count:
            return k
    return len(freq)


def _greedy[K: Hashable](sets: list[frozenset], order: Callable[[K], Any]) -> list:
    remaining = list(sets)
    chosen = []
    while remaining:
        freq = Counter(e for s in remaining for e in s)
        best = min(freq, key=lambda e: (-freq[e], order(e)))
        chosen.append(best)
        remaining = [s for s in remaining if best not in s]
    return chosen


def minimum_hitting_set[K: Hashable](
    sets: Sequence[frozenset[K]],
    order: Callable[[K], tuple] = lambda e: (e,),
    node_limit: int = SEARCH_NODE_LIMIT,
    deadline: float | None = None,
) -> HittingSet:
    """A minimum set of elements meeting every (non-empty) set in `sets`.

    `order` breaks ties deterministically (smaller first). `deadline` is a
    `time.monotonic()` value after which the search stops with the best set so far.
    Raises ValueError on an empty set, which nothing can hit.
    """
    if any(not s for s in sets):
        raise ValueError("an empty set cannot be hit")
    elements = sorted({e for s in sets for e in s}, key=order)
    rank = {e: i for i, e in enumerate(elements)}
    found = _search([frozenset(rank[e] for e in s) for s in sets], node_limit, deadline)
    return HittingSet(
        chosen=tuple(elements[i] for i in found.chosen),
        exact=found.exact,
        search_nodes=found.search_nodes,
        stopped=found.stopped,
    )


def _identity(e: int) -> int:
    return e


def _search(sets: list[frozenset[int]], node_limit: int, deadline: float | None) -> HittingSet:
    """`minimum_hitting_set` over element ranks (ties broken by the smaller rank)."""
    order = _identity
    reduced = _reduce(sets)
    best = _greedy(reduced, order)
    nodes = 0
    exhausted = False
    stopped: str | None = None

    def search(remaining: list[frozenset], chosen: list) -> None:
        nonlocal best, nodes, exhausted, stopped
        nodes += 1
        if nodes > node_limit:
            exhausted, stopped = True, f"node budget of {node_limit} search nodes spent"
            return
        if deadline is not None and (nodes == 1 or nodes % 32 == 0) and time.monotonic() > deadline:
            exhausted, stopped = True, f"time budget spent after {nodes - 1} search node(s)"
            return
        # Forced choices: a path with one choosable relationship left must be cut there.
        forced = [next(iter(s)) for s in remaining if len(s) == 1]
        if forced:
            picked = set(forced)
            chosen = [*chosen, *sorted(picked, key=order)]
            remaining = [s for s in remaining if s.isdisjoint(picked)]
        if not remaining:
            if len(chosen) < len(best):
                best = list(chosen)
            return
        freq = Counter(e for s in remaining for e in s)
        # Two lower bounds: disjoint paths each need their own relationship, and k relationships
        # cut at most as many paths as the k busiest do together.
        if len(chosen) + max(_load_bound(freq, len(remaining)), _lower_bound(remaining)) >= len(best):
            return
        pivot = min(remaining, key=lambda s: (len(s), sorted(s)))
        forbidden: list = []
        for element in sorted(pivot, key=lambda e: (-freq[e], order(e))):
            rest = []
            dead = False
            for s in remaining:
                if element in s:
                    continue
                trimmed = s.difference(forbidden) if forbidden else s
                if not trimmed:
                    dead = True
                    break
                rest.append(trimmed)
            if not dead:
                search(rest, [*chosen, element])
            if exhausted:
                return
            forbidden.append(element)

    if reduced:
        search(reduced, [])
    return HittingSet(chosen=tuple(sorted(best)), exact=not exhausted, search_nodes=nodes, stopped=stopped)


@dataclass(frozen=True)
class ChokeAnalysis:
    """Choke points of one list of paths (indices refer to that list)."""

    relationships: list[ChokeRelationship]
    severable: bool
    uncuttable_paths: list[int]
    ranking: list[RelationshipLoad]
    exact: bool
    search_nodes: int
    stopped: str | None = None


def _route(rel: RelView) -> str | None:
    route = rel.properties.get("route_id")
    return route if isinstance(route, str) else None


def analyse_paths(
    paths: Sequence[AccessPath],
    *,
    routes_only: bool = False,
    node_limit: int = SEARCH_NODE_LIMIT,
    deadline: float | None = None,
) -> ChokeAnalysis:
    """The minimum choke set of `paths`, the paths nothing allowed can cut, and the load ranking.

    With `routes_only` only relationships carrying a `route_id` (what the action
    service can block) may be chosen; otherwise any relationship on a path may.
    """
    views: dict[RelKey, RelView] = {}
    carried: dict[RelKey, list[int]] = {}
    path_sets: list[frozenset[RelKey]] = []
    uncuttable: list[int] = []
    for index, path in enumerate(paths):
        allowed: set[RelKey] = set()
        for rel in path.relationships:
            key = rel_key(rel)
            views.setdefault(key, rel)
            hits = carried.setdefault(key, [])
            if not hits or hits[-1] != index:
                hits.append(index)
            if not routes_only or _route(rel) is not None:
                allowed.add(key)
        if allowed:
            path_sets.append(frozenset(allowed))
        else:
            uncuttable.append(index)

    def order(key: RelKey) -> tuple:
        return (_route(views[key]) is None, _TYPE_ORDER.get(key[1], 99), key[0], key[2])

    found = minimum_hitting_set(path_sets, order, node_limit, deadline)
    chosen = [
        ChokeRelationship(
            source=key[0],
            type=key[1],
            target=key[2],
            route_id=_route(views[key]),
            paths_cut=list(carried[key]),
        )
        for key in found.chosen
    ]
    ranking = [
        RelationshipLoad(
            source=key[0],
            type=key[1],
            target=key[2],
            route_id=_route(views[key]),
            paths_carried=len(carried[key]),
            allowed=not routes_only or _route(views[key]) is not None,
        )
        for key in sorted(carried, key=lambda k: (-len(carried[k]), *order(k)))
    ]
    return ChokeAnalysis(
        relationships=chosen,
        severable=not uncuttable,
        uncuttable_paths=uncuttable,
        ranking=ranking,
        exact=found.exact,
        search_nodes=found.search_nodes,
        stopped=found.stopped,
    )
