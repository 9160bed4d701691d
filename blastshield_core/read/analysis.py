"""Analysis tools beyond the containment loop: choke points, what-if, collateral, multi-alert.

Each is read-only (every query is a named template run with GRAPH.RO_QUERY),
validates its input into a pydantic model, keeps the result states distinct and
is traced through the same tracer as the read tools it builds on.

Every tool has a time budget (`time_budget_s`, from the moment its input is valid) on top of
the choke-point search's node budget: the search stops at the deadline with the best set found,
the multi-alert view analyses no further alert, collateral compares no further identity, and
what-if answers `query_failed`; the answer says `truncated` and `truncated_reason`. Answers are
cached under the graph's version (`Store.graph_version`, read before computing, as the alert
queue does): a rerun of the same view at the same version returns the same result object, and
any write makes the next call recompute.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from ..graph.routes import find_routes
from ..graph.store import QueryFailed
from ..results import (
    MAX_DEPTH,
    MAX_MULTI_ALERTS,
    AccessPath,
    ChokePointsInput,
    ChokePointsResult,
    CollateralInput,
    CollateralResult,
    CombinedEntity,
    MultiAlertInput,
    MultiAlertMember,
    MultiAlertResult,
    SharedRelationship,
    Status,
    WhatIfInput,
    WhatIfResult,
)
from .chokepoints import analyse_paths, rel_key
from .paths import BLAST_LABELS, LABEL_ORDER, Unknown
from .tools import ReadTools

__all__ = ["ANALYSIS_CACHE_SIZE", "ANALYSIS_TIME_BUDGET_S", "ANALYSIS_TOOL_NAMES", "AnalysisTools"]

# Wall time one analysis answer may take (the database's own query timeout is 10 s per query).
ANALYSIS_TIME_BUDGET_S = 10.0
ANALYSIS_CACHE_SIZE = 64  # answers kept, across graph versions (oldest dropped first)
_R = TypeVar("_R")

ANALYSIS_TOOL_NAMES = ("get_choke_points", "what_if_blocked", "get_route_collateral", "get_multi_alert_view")


class AnalysisTools:
    """Choke points, what-if, collateral and the multi-alert view over one set of read tools."""

    def __init__(self, tools: ReadTools, time_budget_s: float = ANALYSIS_TIME_BUDGET_S):
        self.tools = tools
        self.time_budget_s = time_budget_s
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple, Any] = OrderedDict()
        self.computed = 0  # answers computed rather than taken from the cache (for tests and benchmarks)

    def _deadline(self) -> float:
        return time.monotonic() + self.time_budget_s

    def _spent(self) -> str:
        return f"time budget of {self.time_budget_s:g} s spent"

    def _search_reason(self, stopped: str | None) -> str | None:
        """The choke-point search's reason for stopping, naming the time budget when it was that."""
        if stopped is None or not stopped.startswith("time budget"):
            return stopped
        return stopped.replace("time budget spent", self._spent(), 1)

    def _cached(self, tool: str, inp: Any, compute: Callable[[], _R]) -> _R:
        """`compute()`'s answer for `inp` at the graph's current version, computed once per version."""
        store = self.tools.store
        key = (tool, store.settings.graph, store.graph_version(), inp.model_dump_json())
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        answer = compute()
        with self._lock:
            self.computed += 1
            self._cache[key] = answer
            while len(self._cache) > ANALYSIS_CACHE_SIZE:
                self._cache.popitem(last=False)
        return answer

    def choke_points(self, alert_id: Any, routes_only: Any = False) -> ChokePointsResult:
        """The exact minimum set of relationships (or session routes) severing every qualifying path."""

        def body(inp: ChokePointsInput) -> ChokePointsResult:
            return self._cached("get_choke_points", inp, lambda: compute(inp, self._deadline()))

        def compute(inp: ChokePointsInput, deadline: float) -> ChokePointsResult:
            ev = self.tools.evidence(inp.alert_id)
            found = analyse_paths(ev.paths, routes_only=inp.routes_only, deadline=deadline)
            what = "session route(s)" if inp.routes_only else "relationship(s)"
            if not ev.paths:
                message = f"no qualifying path from {ev.alert.entity_id}: nothing to cut"
            elif found.severable:
                message = f"{len(found.relationships)} {what} sever all {len(ev.paths)} qualifying path(s)"
            else:
                message = (
                    f"not severable by session routes: {len(found.uncuttable_paths)} of {len(ev.paths)} path(s)"
                    f" carry no route; {len(found.relationships)} route(s) cut the rest"
                )
            stopped = self._search_reason(found.stopped)
            if not found.exact:
                message += f" (search stopped, {stopped}: the set cuts every path but may not be minimum)"
            if ev.truncated:
                message += f" (only the first {self.tools.path_cap} paths were considered: more exist)"
            return ChokePointsResult(
                tool="get_choke_points",
                status=Status.PATHS_FOUND if ev.paths else Status.NO_PATH,
                message=message,
                alert_id=ev.alert.id,
                entity_id=ev.alert.entity_id,
                routes_only=inp.routes_only,
                severable=found.severable,
                relationships=found.relationships,
                uncuttable_paths=found.uncuttable_paths,
                ranking=found.ranking,
                paths=ev.paths,
                qualifying_paths=len(ev.paths),
                exact=found.exact,
                truncated=ev.truncated or stopped is not None,
                truncated_reason=stopped,
                path_cap=self.tools.path_cap,
            )

        raw = {"alert_id": alert_id, "routes_only": routes_only}
        return self.tools._run("get_choke_points", ChokePointsResult, ChokePointsInput, raw, body)

    def what_if(self, alert_id: Any, block: Any) -> WhatIfResult:
        """The qualifying paths that would remain with the given routes blocked; nothing is written."""

        def body(inp: WhatIfInput) -> WhatIfResult:
            return self._cached("what_if_blocked", inp, lambda: compute(inp, self._deadline()))

        def compute(inp: WhatIfInput, deadline: float) -> WhatIfResult:
            ev = self.tools.evidence(inp.alert_id)
            used = {route for p in ev.paths for route in p.route_ids}
            # a route on the alert's paths exists; only the others are sought (a scan: no index holds route ids)
            others = [r for r in inp.block if r not in used]
            known = {row["route_id"] for row in find_routes(self.tools.store, others)} if others else set()
            missing = [r for r in others if r not in known]
            if missing:
                raise Unknown(Status.UNKNOWN_ROUTE, f"no session route with id {', '.join(map(repr, missing))}")
            if time.monotonic() > deadline:
                raise QueryFailed(f"{self._spent()} before the paths with the routes blocked were read")
            after = self.tools.evidence(inp.alert_id, exclude_routes=inp.block)
            idle = [r for r in inp.block if r not in used]
            found = bool(after.paths)
            message = (
                f"{len(after.paths)}{'+' if after.truncated else ''} of {len(ev.paths)}"
                f"{'+' if ev.truncated else ''} qualifying path(s) would remain with {len(inp.block)} route(s) blocked"
                if found
                else f"no qualifying path would remain with {', '.join(inp.block)} blocked"
            )
            if idle:
                message += f"; {', '.join(idle)} carr(ies) none of the current paths"
            return WhatIfResult(
                tool="what_if_blocked",
                status=Status.PATHS_FOUND if found else Status.NO_PATH,
                message=message,
                alert_id=ev.alert.id,
                entity_id=ev.alert.entity_id,
                blocked=list(inp.block),
                not_on_paths=idle,
                paths_before=len(ev.paths),
                paths=after.paths,
                path_count=len(after.paths),
                truncated=after.truncated,
                path_cap=self.tools.path_cap,
            )

        raw = {"alert_id": alert_id, "block": block}
        return self.tools._run("what_if_blocked", WhatIfResult, WhatIfInput, raw, body)

    def collateral(self, route_id: Any) -> CollateralResult:
        """Who and what else loses access if the route is blocked."""

        def body(inp: CollateralInput) -> CollateralResult:
            return self._cached("get_route_collateral", inp, lambda: compute(inp, self._deadline()))

        def compute(inp: CollateralInput, deadline: float) -> CollateralResult:
            result = self.tools.route_collateral(inp.route_id, deadline=deadline)
            result.tool = "get_route_collateral"
            if result.truncated_reason:
                result.truncated_reason = result.truncated_reason.replace("time budget spent", self._spent(), 1)
            return result

        return self.tools._run("get_route_collateral", CollateralResult, CollateralInput, {"route_id": route_id}, body)

    def multi_alert(self, alert_ids: Any, routes_only: Any = False, max_alerts: int | None = None) -> MultiAlertResult:
        """Combined blast radius, shared entities and relationships, and joint choke points of several alerts.

        `max_alerts` lowers the cap on alerts combined (a viewer's, `Access.alerts_combined_cap`);
        more is invalid input."""
        cap = MAX_MULTI_ALERTS if max_alerts is None else min(max_alerts, MAX_MULTI_ALERTS)

        def body(inp: MultiAlertInput) -> MultiAlertResult:
            if len(inp.alert_ids) > cap:
                return MultiAlertResult(
                    tool="get_multi_alert_view",
                    status=Status.INVALID_INPUT,
                    message=f"alert_ids: at most {cap} alerts may be combined here ({len(inp.alert_ids)} given)",
                )
            return self._cached("get_multi_alert_view", inp, lambda: compute(inp, self._deadline()))

        def compute(inp: MultiAlertInput, deadline: float) -> MultiAlertResult:
            evidence: list[Any] = []
            stopped: str | None = None
            for alert_id in inp.alert_ids:
                if evidence and time.monotonic() > deadline:
                    stopped = (
                        f"{self._spent()} after {len(evidence)} of {len(inp.alert_ids)} alerts:"
                        f" {', '.join(inp.alert_ids[len(evidence) :])} not analysed"
                    )
                    break
                evidence.append(self.tools.evidence(alert_id))
            members = []
            paths: list[AccessPath] = []
            path_alerts: list[str] = []
            combined: dict[str, dict[str, Any]] = {}
            on_path: set[str] = set()
            reach_skipped = False
            for ev in evidence:
                members.append(
                    MultiAlertMember(
                        alert_id=ev.alert.id,
                        entity_id=ev.alert.entity_id,
                        path_count=len(ev.paths),
                        truncated=ev.truncated,
                    )
                )
                paths.extend(ev.paths)
                path_alerts.extend([ev.alert.id] * len(ev.paths))
                on_path.update(n.id for p in ev.paths for n in p.nodes[1:])
                if reach_skipped:
                    continue
                if time.monotonic() > deadline:
                    reach_skipped = True
                    skipped = f"blast radii from {ev.alert.id} on not combined"
                    stopped = f"{stopped}; {skipped}" if stopped else f"{self._spent()}: {skipped}"
                    continue
                for node in self.tools.reach(ev.alert.entity_id):
                    if node.label not in BLAST_LABELS:
                        continue
                    entry = combined.setdefault(node.id, {"node": node, "alerts": [], "hops": node.hops})
                    if ev.alert.id not in entry["alerts"]:
                        entry["alerts"].append(ev.alert.id)
                    entry["hops"] = min(entry["hops"], node.hops)
            entities = [
                CombinedEntity(
                    id=node_id,
                    label=entry["node"].label,
                    name=entry["node"].name,
                    alerts=entry["alerts"],
                    min_hops=entry["hops"],
                    on_critical_path=node_id in on_path,
                )
                for node_id, entry in combined.items()
            ]
            entities.sort(key=lambda e: (LABEL_ORDER.index(e.label), -len(e.alerts), e.min_hops, e.id))
            shared = [e for e in entities if len(e.alerts) > 1]

            rel_alerts: dict[tuple[str, str, str], dict[str, Any]] = {}
            for path, alert_id in zip(paths, path_alerts, strict=True):
                for rel in path.relationships:
                    entry = rel_alerts.setdefault(rel_key(rel), {"rel": rel, "alerts": [], "paths": 0})
                    entry["paths"] += 1
                    if alert_id not in entry["alerts"]:
                        entry["alerts"].append(alert_id)
            common = [
                SharedRelationship(
                    source=key[0],
                    type=key[1],
                    target=key[2],
                    route_id=entry["rel"].properties.get("route_id"),
                    alerts=entry["alerts"],
                    paths_carried=entry["paths"],
                )
                for key, entry in rel_alerts.items()
                if len(entry["alerts"]) > 1
            ]
            common.sort(key=lambda r: (-len(r.alerts), -r.paths_carried, r.source, r.type, r.target))
            found = analyse_paths(paths, routes_only=inp.routes_only, deadline=deadline)
            if stopped is None and found.stopped:
                stopped = self._search_reason(found.stopped)
            truncated = any(ev.truncated for ev in evidence) or stopped is not None
            message = (
                f"{len(inp.alert_ids)} alert(s): {len(entities)} entities reachable within {MAX_DEPTH} hops,"
                f" {len(shared)} reached from more than one alert; {len(paths)} qualifying path(s), "
                + (
                    f"{len(found.relationships)} {'route(s)' if inp.routes_only else 'relationship(s)'} sever them all"
                    if found.severable
                    else f"{len(found.uncuttable_paths)} path(s) no session route can cut"
                )
                + (" (path lists truncated: more exist)" if any(ev.truncated for ev in evidence) else "")
                + (f" (truncated: {stopped})" if stopped else "")
            )
            return MultiAlertResult(
                tool="get_multi_alert_view",
                status=Status.OK,
                message=message,
                alert_ids=list(inp.alert_ids),
                routes_only=inp.routes_only,
                members=members,
                entities=entities,
                shared_entities=shared,
                shared_assets=[e for e in shared if e.label == "DataAsset"],
                common_relationships=common,
                choke_points=found.relationships,
                severable=found.severable,
                uncuttable_paths=found.uncuttable_paths,
                exact=found.exact,
                paths=paths,
                path_alerts=path_alerts,
                qualifying_paths=len(paths),
                truncated=truncated,
                truncated_reason=stopped,
            )

        raw = {"alert_ids": alert_ids, "routes_only": routes_only}
        return self.tools._run("get_multi_alert_view", MultiAlertResult, MultiAlertInput, raw, body)
