"""Containment runs: proposals, decisions, actions, run records, releases.

Import them from `results`, which loads this module the first time one is used: read
commands never define them."""

from datetime import datetime
from typing import Annotated, Any

from pydantic import Field, StrictStr

from ..base.ids import ENTITY_ID_PATTERN
from .account import AccountOutcome
from .core import (
    CANDIDATE_ID_PATTERN,
    InvestigationResult,
    RelView,
    RunState,
    Status,
    ToolResult,
    TraceEntry,
    _Input,
    _Out,
)

__all__ = [
    "ActionResult",
    "AlertReopened",
    "Decision",
    "Proposal",
    "ReleaseResult",
    "RouteRelease",
    "RunAction",
    "RunOwner",
    "RunRecord",
    "RunStep",
    "SelectInput",
    "SelectResult",
]


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
    # The route blocked; for a session revocation, the candidate id (`revoke-sessions:ENTITY`),
    # which is also what `release` takes.
    route_id: str
    status: str
    verified: bool
    paths_before: int | None
    paths_after: int | None
    reason: str
    # On an AWS-backed route: the account's side (plan, before-image, request id), and the two checks.
    applied: bool | None = None
    api_verified: bool | None = None
    graph_verified: bool | None = None
    aws: AccountOutcome | None = None
    operation: str = "block_route"  # or a revocation: revoke_role_sessions, revoke_user_sessions


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
