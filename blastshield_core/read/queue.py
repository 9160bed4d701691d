"""The alert queue: every alert's summary computed once per graph version, then sorted,
filtered and paged here, so a table rerun does not investigate every alert again.

The summaries (`ReadTools.list_alerts`) are cached under the graph's version
(`Store.graph_version`), a counter every write bumps in the same transaction: a page
asked for after a block, a release or an import sees the new version and recomputes,
so nothing stale is shown. The version is read before computing, so a write racing
the computation only leaves an entry under a version no later read asks for. Computing
them is a few batched reads (`ReadTools.list_alerts`: each distinct entity's paths once,
in chunks), not one investigation per alert.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from ..results import AlertSummary, Status
from .tools import ReadTools

__all__ = ["MAX_PAGE_SIZE", "MAX_VIEWS", "QUEUE_SORTS", "AlertQueue", "QueuePage", "QueueQuery"]

MAX_PAGE_SIZE = 500
QUEUE_SORTS = ("risk", "paths", "id", "title")
# Filtered and sorted views kept per graph version (a rerun of the same view does not sort again).
MAX_VIEWS = 16


class QueueQuery(BaseModel):
    """Which slice of the queue to show: sort key and order, filters, offset and page size."""

    model_config = ConfigDict(extra="forbid")
    sort: Literal["risk", "paths", "id", "title"] = "risk"
    descending: StrictBool = True
    severity: Literal["critical", "high", "medium", "low"] | None = None
    text: Annotated[StrictStr, Field(max_length=200)] = ""
    offset: Annotated[StrictInt, Field(ge=0)] = 0
    limit: Annotated[StrictInt, Field(ge=1, le=MAX_PAGE_SIZE)] = 50


class QueuePage(BaseModel):
    """One page of the queue, with the counts a pager needs and the graph version it shows."""

    model_config = ConfigDict(extra="forbid")
    status: Status
    message: str = ""
    version: int
    total: int
    matched: int
    offset: int
    limit: int
    alerts: list[AlertSummary] = Field(default_factory=list)


def _sort_key(sort: str):
    # an alert whose paths are open on the account ranks by those paths and their score, never as the
    # graph's "0 paths": a block in the graph only contains nothing on the account
    if sort == "risk":
        return lambda a: (a.queue_score() is not None, a.queue_score() or 0, a.queue_paths() or 0, a.id)
    if sort == "paths":
        return lambda a: (a.queue_paths() is not None, a.queue_paths() or 0, a.queue_score() or 0, a.id)
    if sort == "title":
        return lambda a: (a.title.casefold(), a.id)
    return lambda a: a.id


def _no_open_routes() -> frozenset[str]:
    return frozenset()


class AlertQueue:
    """Pages of the alert queue over `tools`, cached by (graph, graph version, routes open on the account).

    `open_routes` names the routes blocked in the graph that the account does not hold blocked (in
    the graph only, or undone there; `respond/graph_only.account_open_blocks`), asked on every page:
    those marks live in the audit, which can change without the graph's version."""

    def __init__(self, tools: ReadTools, open_routes: Callable[[], Collection[str]] = _no_open_routes) -> None:
        self._tools = tools
        self._open_routes = open_routes
        self._lock = threading.Lock()
        self._cached: tuple[str, int, frozenset[str], list[AlertSummary]] | None = None
        self._views: dict[tuple, list[AlertSummary]] = {}
        self.computed = 0  # how many times every alert was summarised (for tests and benchmarks)

    def _summaries(self) -> tuple[tuple[int, frozenset[str]], list[AlertSummary] | None, str, Status]:
        store = self._tools.store
        graph = store.settings.graph
        version = store.graph_version()
        open_routes = frozenset(self._open_routes())
        with self._lock:
            cached = self._cached
        if cached is not None and cached[:3] == (graph, version, open_routes):
            return (version, open_routes), cached[3], "", Status.OK
        result = self._tools.list_alerts(open_routes)
        if result.status is not Status.OK:
            return (version, open_routes), None, result.message, result.status
        with self._lock:
            self._cached = (graph, version, open_routes, result.alerts)
            self.computed += 1
        return (version, open_routes), result.alerts, "", Status.OK

    def _view(
        self, version: tuple[int, frozenset[str]], alerts: list[AlertSummary], query: QueueQuery
    ) -> list[AlertSummary]:
        """The alerts `query` filters, in its order: kept for the version (at most MAX_VIEWS
        orders), so a rerun or another page of the same view does not sort again."""
        key = (self._tools.store.settings.graph, version, query.sort, query.descending, query.severity, query.text)
        with self._lock:
            rows = self._views.get(key)
        if rows is not None:
            return rows
        rows = alerts
        if query.severity is not None:
            rows = [a for a in rows if a.severity == query.severity]
        if query.text:
            needle = query.text.casefold()
            rows = [
                a
                for a in rows
                if needle in a.id.casefold() or needle in a.title.casefold() or needle in a.entity_id.casefold()
            ]
        rows = sorted(rows, key=_sort_key(query.sort), reverse=query.descending)
        with self._lock:
            self._views = {k: v for k, v in self._views.items() if k[:2] == key[:2]}
            while len(self._views) >= MAX_VIEWS:
                del self._views[next(iter(self._views))]
            self._views[key] = rows
        return rows

    def page(self, query: QueueQuery | None = None) -> QueuePage:
        """The page `query` asks for (`QueueQuery()` by default: highest risk first, 50 rows)."""
        query = query or QueueQuery()
        seen, alerts, message, status = self._summaries()
        version = seen[0]
        if alerts is None:
            return QueuePage(
                status=status,
                message=message,
                version=version,
                total=0,
                matched=0,
                offset=query.offset,
                limit=query.limit,
            )
        rows = self._view(seen, alerts, query)
        return QueuePage(
            status=Status.OK,
            version=version,
            total=len(alerts),
            matched=len(rows),
            offset=query.offset,
            limit=query.limit,
            alerts=rows[query.offset : query.offset + query.limit],
        )
