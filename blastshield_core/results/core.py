"""Tool inputs and results: the core models every read tool speaks (the package re-exports them).

The field names here are a contract: the CLI prints these models as JSON and
scripts rely on them (`status`, `alert.risk_score`, `paths[].nodes[].id`, ...).
"""

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from ..base.ids import ENTITY_ID_PATTERN

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
    "AlertInput",
    "AlertSummary",
    "AlertView",
    "AlertsResult",
    "BlastEntity",
    "BlastRadiusResult",
    "Candidate",
    "CandidateCollateral",
    "CandidatesResult",
    "EvidenceGraphResult",
    "GraphRel",
    "InvestigateInput",
    "InvestigationResult",
    "NodeView",
    "PathInput",
    "RelView",
    "RouteStatus",
    "RouteStatusResult",
    "RunState",
    "ScoreFactor",
    "ShortestPathResult",
    "Status",
    "ToolResult",
    "TraceEntry",
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
    # Set only when routes blocked in the graph are not blocked on the account (in the graph only, or
    # undone there) and more qualifying paths are open on the account than in the graph: those paths,
    # and the same rules' score and severity over them.
    open_on_account: int | None = None
    account_risk_score: int | None = None
    account_severity: str | None = None

    def queue_paths(self) -> int | None:
        """The paths the queue ranks by: those open on the account when more are than in the graph."""
        return self.open_on_account if self.open_on_account is not None else self.path_count

    def queue_score(self) -> int | None:
        """The score the queue ranks by: over the paths open on the account when they are more."""
        return self.account_risk_score if self.open_on_account is not None else self.risk_score


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
    # blocked in the graph only: an AWS-backed route whose block was not applied on the account
    graph_only: bool = False
    paths_open_on_account: int = 0  # its paths whose every block is one in the graph only

    def status_text(self) -> str:
        """`blocked in the graph only` for such a block, else the graph's status."""
        return "blocked in the graph only" if self.graph_only and self.status == "blocked" else self.status


class RouteStatusResult(ToolResult):
    alert_id: str | None = None
    routes: list[RouteStatus] = Field(default_factory=list)
    qualifying_paths: int = 0
    # qualifying paths on the account: those in the graph, plus those only a graph-only block cuts
    open_on_account: int = 0
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


class SessionCollateral(_Out):
    """Who else loses sessions to a revocation: for a role's, every other principal or workload the
    graph lets assume the role (their sessions of it issued before the revocation fail too)."""

    others: list[str] = Field(default_factory=list)  # entity ids, the first 20 by id
    other_count: int = 0
    summary: str = ""


class RevocationCandidate(_Out):
    """The second allowlisted action kind: revoke sessions already issued, with an inline Deny on
    `aws:TokenIssueTime` earlier than now. Of an AWS role (`revoke_role_sessions`, as the console's
    "Revoke active sessions"): the role's sessions, for an alert on the role or on a user whose
    qualifying paths pass through it. Of an AWS user (`revoke_user_sessions`): the sessions the
    user's keys obtained through sts:GetSessionToken. It stops sessions issued before it, stolen
    ones included, and cuts no qualifying path."""

    id: str
    action: str = "revoke_role_sessions"  # or revoke_user_sessions
    principal: Literal["role", "user"] = "role"
    entity_id: str
    role: str  # the principal's name: the role's, or for a user revocation the user's
    arn: str
    account: str = ""
    paths_cut: int = 0
    remaining_if_applied: int = 0
    reason: str
    collateral: SessionCollateral | None = None
    # A role on the alert user's qualifying paths (not the alert's own principal): offered after the
    # user's key was cut, and never a reason to refuse the run before its first write.
    on_paths: bool = False


class CandidatesResult(ToolResult):
    alert_id: str | None = None
    candidates: list[Candidate] = Field(default_factory=list)
    # Session revocations of the alert's role (none for an alert on anything but an imported AWS role).
    revocations: list[RevocationCandidate] = Field(default_factory=list)
    qualifying_paths: int = 0
    uncuttable_paths: list[int] = Field(default_factory=list)
    truncated: bool = False

    def ids(self) -> list[str]:
        """Every candidate id a proposal may name: the route blocks, then the session revocations."""
        return [c.id for c in self.candidates] + [r.id for r in self.revocations]


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
CANDIDATE_ID_PATTERN = r"^(block-route|revoke-sessions):[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$"


class RunState(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    STOPPED = "stopped"
    FAILED = "failed"
    INTERRUPTED = "interrupted"  # the process running it is gone (found when a store opens)
    ABANDONED = "abandoned"  # an analyst run left waiting in a dashboard session that ended or timed out
    # No qualifying path is left in the graph, but a block on an AWS-backed route was not applied on the
    # account: planned in the graph only, the credentials still work on the account. Never containment.
    GRAPH_ONLY = "graph_only"

    @property
    def terminal(self) -> bool:
        return self is not RunState.RUNNING
