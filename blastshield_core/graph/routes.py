"""Routed relationships found by route id, without an index on route ids.

An index on `route_id` holds every route: on the 1M-relationship benchmark graph (862,630
routes) it took the server from 460 to 840 MB and a fresh import from 5.5 to 11.1 s
(docs/falkordb-notes.md), past the memory target. A route is therefore found:

- through its ends' id index where the caller knows its relationship: a document's edge
  (`routes_at_ends`), a block read before an import (`templates/write.cypher` restore_blocks);
- through the blocked_by_run index when BlastShield blocked it (the `blocked_route` and
  `release_route` templates);
- otherwise by scanning the routed relationships: a few ids by one scan comparing each route
  with each id (`routes_by_ids`), many by one scan of each routed type returning the route ids
  within the ids' range, compared here (`find_routes`). An import of N new routes thus costs
  two scans whatever N, where it cost one per batch of 5,000 ids, each comparing every route with
  every id (at 1M relationships the 3,099 route ids of a 2,000-user AWS account took 9.0 s of the
  10 s query timeout).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .model import ROUTED_TYPES, Edge
from .store import Store
from .templates import render

__all__ = ["ENDS_BATCH", "SCAN_IDS", "find_routes", "routes_at_ends"]

ENDS_BATCH = 5000  # relationships looked up by their ends per query
# At most this many ids are compared with every route by the server (`routes_by_ids`): each id
# costs about 2.4 ns a route (0.2 s for 100 ids at 1M relationships); more ids are compared here.
SCAN_IDS = 100


Key = tuple[str, str, str]  # a relationship's source, type and target


def routes_at_ends(store: Store, edges: Iterable[Edge], graph: str | None = None) -> dict[Key, Any]:
    """The route id (None where it has none) of each of `edges` the graph already has, by its key."""
    rows = [{"source": e.source, "type": e.type.value, "target": e.target} for e in edges]
    found: dict[Key, Any] = {}
    for start in range(0, len(rows), ENDS_BATCH):
        for row in store.read("routes_at_ends", {"rows": rows[start : start + ENDS_BATCH]}, graph=graph):
            found[(row["source"], row["type"], row["target"])] = row["route_id"]
    return found


def find_routes(store: Store, route_ids: Iterable[str], graph: str | None = None) -> Iterator[dict[str, Any]]:
    """The routed relationships of the graph carrying any of `route_ids` (rows of `routes_by_ids`).
    Up to SCAN_IDS ids are one `routes_by_ids` scan; more are first sought in one scan of each
    routed type returning the route ids within their range (in byte order, which is the order of
    ids: they are ASCII), and only the ids found are then read by `routes_by_ids`, SCAN_IDS at a
    time in order of id, as the caller takes them (a caller that stops at the first reads one)."""
    ids = sorted(set(route_ids))
    if len(ids) > SCAN_IDS:
        wanted = set(ids)
        params = {"low": ids[0], "high": ids[-1]}
        found: set[str] = set()
        for rel_type in sorted(ROUTED_TYPES):
            _, records = store.read_records_text(render("route_ids_in_range", rel_type=rel_type), params, graph=graph)
            found.update(cell[1] for (cell,) in records if cell[1] in wanted)
        ids = sorted(found)
    for start in range(0, len(ids), SCAN_IDS):
        yield from store.read("routes_by_ids", {"route_ids": ids[start : start + SCAN_IDS]}, graph=graph)
