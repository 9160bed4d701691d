"""Tool inputs and results: the pydantic models every boundary speaks.

The field names here are a contract: the CLI prints these models as JSON and
scripts rely on them (`status`, `alert.risk_score`, `paths[].nodes[].id`, ...).
"""

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, field_validator

from .model import ENTITY_ID_PATTERN

__all__ = [
    "CANDIDATE_ID_PATTERN",
    "DECIDER_NAMES",
    "DEFAULT_DEPTH",
    "DEFAULT_MAX_ACTIONS",
    "MAX_ACTIONS_LIMIT",
    "MAX_BLOCK_ROUTES",
    "MAX_DEPTH",
    "MAX_MULTI_ALERTS",
    "PATH_CAP",
    "AccessPath",
    "ActionResult",
    "AlertInput",
    "AlertReopened",
    "AlertSummary",
    "AlertView",
    "AlertsResult",
    "BlastEntity",
    "BlastRadiusResult",
    "Candidate",
    "CandidateCollateral",
    "CandidatesResult",
    "ChokePointsInput",
    "ChokePointsResult",
    "ChokeRelationship",
    "CollateralInput",
    "CollateralResult",
    "CombinedEntity",
    "Decision",
    "EvidenceGraphResult",
    "GraphRel",
    "IdentityCollateral",
    "InvestigateInput",
    "InvestigationResult",
    "LostEntity",
    "MultiAlertInput",
    "MultiAlertMember",
    "MultiAlertResult",
    "NodeView",
    "PathInput",
    "Proposal",
    "RelView",
    "RelationshipLoad",
    "ReleaseResult",
    "RouteRelease",
    "RouteStatus",
    "RouteStatusResult",
    "RunAction",
    "RunOwner",
    "RunRecord",
    "RunState",
    "RunStep",
    "ScoreFactor",
    "SelectInput",
    "SelectResult",
    "SharedRelationship",
    "ShortestPathResult",
    "Status",
    "ToolResult",
    "TraceEntry",
    "WhatIfInput",
    "WhatIfResult",
]

MAX_DEPTH = 6
DEFAULT_DEPTH = 6
# At most this many paths come back in one answer; `truncated` says when more exist.
PATH_CAP = 100


class Status(StrEnum):
    """Result states. Only a fresh `no_path` can support "contained"; the
    unknown, invalid and failed states are never read as safe."""

    PATHS_FOUND = "paths_found"
    NO_PATH = "no_path"
    OK = "ok"
    UNKNOWN_SOURCE = "unknown_source"
    UNKNOWN_TARGET = "unknown_target"
    UNKNOWN_ALERT = "unknown_alert"
    UNKNOWN_ROUTE = "unknown_route"
    INVALID_INPUT = "invalid_input"
    QUERY_FAILED = "query_failed"

    @property
    def is_answer(self) -> bool:
        """True when the graph answered (paths or a definite no-path)."""
        return self in (Status.PATHS_FOUND, Status.NO_PATH, Status.OK)

    @property
    def is_unknown(self) -> bool:
        return self in (Status.UNKNOWN_SOURCE, Status.UNKNOWN_TARGET, Status.UNKNOWN_ALERT, Status.UNKNOWN_ROUTE)


EntityIdInput = Annotated[StrictStr, Field(pattern=ENTITY_ID_PATTERN, description="An entity id from the graph")]
DepthInput = Annotated[StrictInt, Field(ge=1, le=MAX_DEPTH, description="Path length bound, an integer 1..6")]


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class AlertInput(_Input):
    """An alert, by id."""

    alert_id: Annotated[StrictStr, Field(pattern=ENTITY_ID_PATTERN, description="Alert id, e.g. BH-1042")]


class InvestigateInput(AlertInput):
    """Investigate an alert: every qualifying path (active, allowed, no node twice, 1..depth
    relationships) from the alert's entity to a high or critical DataAsset, shortest first,
    with the alert's computed risk score, severity and rule set. Status is paths_found, no_path,
    unknown_alert, unknown_source, invalid_input or query_failed; only no_path means no path."""

    depth: DepthInput = DEFAULT_DEPTH


class PathInput(_Input):
    """All shortest qualifying paths from source_id to target_id within max_hops (1..6).
    unknown_source / unknown_target for ids not in the graph, no_path when none within the bound."""

    source_id: EntityIdInput
    target_id: EntityIdInput
    max_hops: DepthInput = DEFAULT_DEPTH


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class NodeView(_Out):
    id: str
    label: str
    name: str
    properties: dict[str, Any] = Field(default_factory=dict)


class RelView(_Out):
    type: str
    source: str
    target: str
    properties: dict[str, Any] = Field(default_factory=dict)


class AccessPath(_Out):
    nodes: list[NodeView]
    relationships: list[RelView]

    @property
    def hops(self) -> int:
        return len(self.relationships)

    @property
    def node_ids(self) -> tuple[str, ...]:
        return tuple(n.id for n in self.nodes)

    @property
    def route_ids(self) -> list[str]:
        return [r.properties["route_id"] for r in self.relationships if isinstance(r.properties.get("route_id"), str)]


class ScoreFactor(_Out):
    rule: str
    description: str
    points: int
    evidence: str


class AlertView(_Out):
    id: str
    title: str
    entity_id: str
    entity_label: str | None = None
    kind: str
    signals: dict[str, Any]
    risk_score: int
    severity: str
    rule_set: str
    factors: list[ScoreFactor]


class ToolResult(_Out):
    tool: str
    status: Status
    message: str = ""


class InvestigationResult(ToolResult):
    alert: AlertView | None = None
    depth: int | None = None
    paths: list[AccessPath] = Field(default_factory=list)
    path_count: int = 0
    truncated: bool = False
    path_cap: int = PATH_CAP


class AlertSummary(_Out):
    id: str
    title: str
    entity_id: str
    kind: str
    risk_score: int | None
    severity: str | None
    rule_set: str
    path_count: int | None
    truncated: bool = False
    status: Status


class AlertsResult(ToolResult):
    alerts: list[AlertSummary] = Field(default_factory=list)


class BlastEntity(_Out):
    id: str
    label: str
    name: str
    hops: int
    on_critical_path: bool


class BlastRadiusResult(ToolResult):
    alert_id: str | None = None
    entity_id: str | None = None
    entities: list[BlastEntity] = Field(default_factory=list)
    by_label: dict[str, int] = Field(default_factory=dict)
    max_hops: int = MAX_DEPTH
    critical_paths_truncated: bool = False


class ShortestPathResult(ToolResult):
    source_id: str | None = None
    target_id: str | None = None
    max_hops: int | None = None
    hops: int | None = None
    paths: list[AccessPath] = Field(default_factory=list)
    path_count: int = 0
    truncated: bool = False
    path_cap: int = PATH_CAP


class RouteStatus(_Out):
    route_id: str
    type: str
    source: str
    target: str
    status: str
    paths_carried: int


class RouteStatusResult(ToolResult):
    alert_id: str | None = None
    routes: list[RouteStatus] = Field(default_factory=list)
    qualifying_paths: int = 0
    truncated: bool = False


class CandidateCollateral(_Out):
    """What blocking a candidate's route costs others: identities other than the alert's
    entity that would lose access, and what they would lose."""

    other_identities: list[str] = Field(default_factory=list)
    lost_entities: int = 0
    lost_sensitive_assets: list[str] = Field(default_factory=list)
    summary: str = ""


class Candidate(_Out):
    id: str
    action: str = "block_route"
    route_id: str
    relationship: RelView
    paths_cut: int
    cut_paths: list[int]
    remaining_if_applied: int
    reason: str
    collateral: CandidateCollateral | None = None


class CandidatesResult(ToolResult):
    alert_id: str | None = None
    candidates: list[Candidate] = Field(default_factory=list)
    qualifying_paths: int = 0
    uncuttable_paths: list[int] = Field(default_factory=list)
    truncated: bool = False


class GraphRel(RelView):
    """A relationship of the evidence neighbourhood, with how it relates to the paths."""

    qualifying: bool
    on_path: bool


class EvidenceGraphResult(ToolResult):
    """The neighbourhood of an alert's entity (any status), for drawing, with its qualifying paths."""

    alert_id: str | None = None
    entity_id: str | None = None
    depth: int | None = None
    nodes: list[NodeView] = Field(default_factory=list)
    relationships: list[GraphRel] = Field(default_factory=list)
    paths: list[AccessPath] = Field(default_factory=list)
    path_count: int = 0
    truncated: bool = False
    relationship_cap: int = 0


# -- analysis: choke points, what-if, collateral, multi-alert ------------------

MAX_BLOCK_ROUTES = 50
MAX_MULTI_ALERTS = 20

RouteIdInput = Annotated[StrictStr, Field(pattern=ENTITY_ID_PATTERN, description="A route id, e.g. route-c11-primary")]
AlertIdInput = Annotated[StrictStr, Field(pattern=ENTITY_ID_PATTERN, description="Alert id, e.g. BH-1042")]


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
    path_cap: int = PATH_CAP


class LostEntity(_Out):
    id: str
    label: str
    name: str
    sensitivity: str | None = None


class IdentityCollateral(_Out):
    identity_id: str
    name: str
    lost: list[LostEntity] = Field(default_factory=list)


class CollateralResult(ToolResult):
    route_id: str | None = None
    relationship: RelView | None = None
    route_status: str | None = None
    identities: list[IdentityCollateral] = Field(default_factory=list)
    lost_by_label: dict[str, int] = Field(default_factory=dict)
    lost_sensitive_assets: list[str] = Field(default_factory=list)


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


class TraceEntry(_Out):
    tool: str
    input: dict[str, Any]
    status: Status
    result_count: int
    duration_ms: float
    at: datetime


# -- containment ---------------------------------------------------------------

MAX_ACTIONS_LIMIT = 10
DEFAULT_MAX_ACTIONS = 3
DECIDER_NAMES = ("gemini", "analyst", "rules")  # who may propose a containment action (decide)
CANDIDATE_ID_PATTERN = r"^block-route:[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$"


class RunState(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    STOPPED = "stopped"
    FAILED = "failed"
    INTERRUPTED = "interrupted"  # the process running it is gone (found when a store opens)
    ABANDONED = "abandoned"  # an analyst run left waiting in a dashboard session that ended or timed out

    @property
    def terminal(self) -> bool:
        return self is not RunState.RUNNING


class SelectInput(_Input):
    """What `select_response_candidate` accepts: one proposal, nothing written."""

    alert_id: Annotated[StrictStr, Field(pattern=ENTITY_ID_PATTERN, description="The alert being contained")]
    candidate_id: Annotated[
        StrictStr,
        Field(pattern=CANDIDATE_ID_PATTERN, description="One candidate id from get_response_candidates"),
    ]
    rationale: Annotated[StrictStr, Field(min_length=1, max_length=2000, description="Why this candidate")]


class SelectResult(ToolResult):
    alert_id: str | None = None
    candidate_id: str | None = None
    among_current_candidates: bool = False


class Proposal(_Out):
    alert_id: str
    candidate_id: str
    rationale: str


class Decision(_Out):
    """A decider's answer: a proposal, or the reason there is none."""

    decider: str
    proposal: Proposal | None = None
    reason: str = ""
    turns: int = 0
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)


class ActionResult(_Out):
    operation: str
    status: str  # applied | rejected | failed
    reason: str
    alert_id: str | None = None
    route_id: str | None = None
    relationship: RelView | None = None
    paths_before: int | None = None
    after: InvestigationResult | None = None


class RunAction(_Out):
    step: int
    candidate_id: str
    route_id: str
    status: str
    verified: bool
    paths_before: int | None
    paths_after: int | None
    reason: str


class RunStep(_Out):
    seq: int
    kind: str
    at: datetime
    summary: str
    data: dict[str, Any] = Field(default_factory=dict)
    trace: list[TraceEntry] = Field(default_factory=list)


class RunOwner(_Out):
    """The process a run belongs to: pid, host and the process's start time (pid reuse shows)."""

    pid: int
    host: str
    started: str


class RouteRelease(_Out):
    """A later release of a route a run blocked: by whom, why and when."""

    route_id: str
    actor: str
    at: datetime
    reason: str
    event_id: str


class RunRecord(_Out):
    run_id: str
    alert_id: str
    decider: str
    max_actions: int
    state: RunState
    reason: str
    actions: list[RunAction] = Field(default_factory=list)
    remaining_paths: int | None = None
    started_at: datetime
    finished_at: datetime | None = None
    steps: list[RunStep] = Field(default_factory=list)
    actor: str = ""  # who started the run
    owner: RunOwner | None = None  # the process running it
    releases: list[RouteRelease] = Field(default_factory=list)  # later releases of routes it blocked


class AlertReopened(_Out):
    alert_id: str
    paths_before: int
    paths_after: int


class ReleaseResult(_Out):
    """The answer of `release`: the route is active again, and which alerts have paths back."""

    status: Status
    message: str
    route_id: str | None = None
    state: str | None = None  # released
    blocked_by_run: str | None = None
    actor: str | None = None
    reason: str | None = None
    alerts_reopened: list[AlertReopened] = Field(default_factory=list)
    event_id: str | None = None
