"""Inputs and results of the analysis tools (choke points, what-if, collateral, multi-alert).

Import them from `results`, which loads this module the first time one is used: read
commands never define them. The collateral results are defined in `results_collateral`
(response candidates use them) and exported here too."""

from typing import Annotated

from pydantic import Field, StrictBool, field_validator

from .collateral import CollateralResult, IdentityCollateral, LostEntity
from .core import (
    MAX_BLOCK_ROUTES,
    MAX_MULTI_ALERTS,
    PATH_CAP,
    AccessPath,
    AlertIdInput,
    AlertInput,
    RouteIdInput,
    ToolResult,
    _Input,
    _Out,
)

__all__ = [
    "ChokePointsInput",
    "ChokePointsResult",
    "ChokeRelationship",
    "CollateralInput",
    "CollateralResult",
    "CombinedEntity",
    "IdentityCollateral",
    "LostEntity",
    "MultiAlertInput",
    "MultiAlertMember",
    "MultiAlertResult",
    "RelationshipLoad",
    "SharedRelationship",
    "WhatIfInput",
    "WhatIfResult",
]


def _unique(values: list[str]) -> list[str]:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise ValueError(f"{value!r} is listed twice")
        seen.add(value)
    return values


class ChokePointsInput(AlertInput):
    """Choke points of an alert: the exact minimum set of relationships whose removal leaves no
    qualifying path (depth 6) from the alert's entity to a high/critical asset, the paths each
    one cuts, and every relationship ranked by the paths it carries. With routes_only, only
    session routes (what a containment action can block) may be chosen; severable is false when
    some path has no route. Read-only; status paths_found, no_path, unknown_alert,
    unknown_source, invalid_input or query_failed."""

    routes_only: StrictBool = False


class WhatIfInput(AlertInput):
    """Dry run: the qualifying paths that would remain if the listed session routes were
    blocked, computed by a read-only query that excludes them; nothing is written. Every route
    id must exist in the graph (unknown_route otherwise)."""

    block: Annotated[
        list[RouteIdInput],
        Field(min_length=1, max_length=MAX_BLOCK_ROUTES, description="Route ids to treat as blocked"),
    ]

    _unique_block = field_validator("block")(_unique)


class CollateralInput(_Input):
    """Collateral of blocking one session route: every identity whose access uses it and the
    sessions, workloads, roles and assets each would no longer reach (within 6 hops) once it is
    blocked. Read-only; unknown_route for a route id not in the graph."""

    route_id: RouteIdInput


class MultiAlertInput(_Input):
    """Several alerts together: their combined blast radius, the entities reached from more than
    one alert, the relationships their paths share, and the minimum set of relationships (or
    session routes with routes_only) that severs all their qualifying paths at once."""

    alert_ids: Annotated[list[AlertIdInput], Field(min_length=1, max_length=MAX_MULTI_ALERTS, description="Alert ids")]
    routes_only: StrictBool = False

    _unique_alerts = field_validator("alert_ids")(_unique)


class ChokeRelationship(_Out):
    source: str
    type: str
    target: str
    route_id: str | None = None
    paths_cut: list[int] = Field(default_factory=list)


class RelationshipLoad(_Out):
    source: str
    type: str
    target: str
    route_id: str | None = None
    paths_carried: int
    allowed: bool


class ChokePointsResult(ToolResult):
    alert_id: str | None = None
    entity_id: str | None = None
    routes_only: bool = False
    severable: bool = False
    relationships: list[ChokeRelationship] = Field(default_factory=list)
    uncuttable_paths: list[int] = Field(default_factory=list)
    ranking: list[RelationshipLoad] = Field(default_factory=list)
    paths: list[AccessPath] = Field(default_factory=list)
    qualifying_paths: int = 0
    exact: bool = True
    truncated: bool = False
    truncated_reason: str | None = None  # which budget (time, search nodes) cut the answer short
    path_cap: int = PATH_CAP


class WhatIfResult(ToolResult):
    alert_id: str | None = None
    entity_id: str | None = None
    blocked: list[str] = Field(default_factory=list)
    not_on_paths: list[str] = Field(default_factory=list)
    paths_before: int = 0
    paths: list[AccessPath] = Field(default_factory=list)
    path_count: int = 0
    truncated: bool = False
    truncated_reason: str | None = None  # which budget (time, search nodes) cut the answer short
    path_cap: int = PATH_CAP


class MultiAlertMember(_Out):
    alert_id: str
    entity_id: str
    path_count: int
    truncated: bool = False


class CombinedEntity(_Out):
    id: str
    label: str
    name: str
    alerts: list[str]
    min_hops: int
    on_critical_path: bool


class SharedRelationship(_Out):
    source: str
    type: str
    target: str
    route_id: str | None = None
    alerts: list[str]
    paths_carried: int


class MultiAlertResult(ToolResult):
    alert_ids: list[str] = Field(default_factory=list)
    routes_only: bool = False
    members: list[MultiAlertMember] = Field(default_factory=list)
    entities: list[CombinedEntity] = Field(default_factory=list)
    shared_entities: list[CombinedEntity] = Field(default_factory=list)
    shared_assets: list[CombinedEntity] = Field(default_factory=list)
    common_relationships: list[SharedRelationship] = Field(default_factory=list)
    choke_points: list[ChokeRelationship] = Field(default_factory=list)
    severable: bool = False
    uncuttable_paths: list[int] = Field(default_factory=list)
    exact: bool = True
    paths: list[AccessPath] = Field(default_factory=list)
    path_alerts: list[str] = Field(default_factory=list)
    qualifying_paths: int = 0
    truncated: bool = False
    truncated_reason: str | None = None  # which budget (time, search nodes) cut the answer short
