"""Tool inputs and results: the pydantic models every boundary speaks.

The field names here are a contract: the CLI prints these models as JSON and
scripts rely on them (`status`, `alert.risk_score`, `paths[].nodes[].id`, ...).

`core` holds the read tools' models; `analysis`, `runs`, `account` and `collateral` hold the
analysis, containment, account-action and collateral models, importing from `core` (and `runs`
from `account`; no circle), and are loaded the first time one of their names is read from here.
"""

import importlib
from typing import TYPE_CHECKING, Any

from .core import (
    CANDIDATE_ID_PATTERN,
    DECIDER_NAMES,
    DEFAULT_DEPTH,
    DEFAULT_MAX_ACTIONS,
    MAX_ACTIONS_LIMIT,
    MAX_BLOCK_ROUTES,
    MAX_DEPTH,
    MAX_MULTI_ALERTS,
    PATH_CAP,
    AccessPath,
    AlertInput,
    AlertsResult,
    AlertSummary,
    AlertView,
    BlastEntity,
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
    RevocationCandidate,
    RouteStatus,
    RouteStatusResult,
    RunState,
    ScoreFactor,
    ShortestPathResult,
    Status,
    ToolResult,
    TraceEntry,
)

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
    "AccountActionKind",
    "AccountCall",
    "AccountCheck",
    "AccountOutcome",
    "AccountPlan",
    "AccountRelease",
    "AccountTarget",
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
    "CandidatePlan",
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
    "RevocationCandidate",
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

# -- defined on first use --------------------------------------------------------
# The analysis and containment models live in their own modules, loaded the first time
# one of their names is read from here: a read command never defines them (each model
# class costs about half a millisecond to create, a fifth of this module's import).
_LATER = {
    "ChokePointsInput": ".analysis",
    "WhatIfInput": ".analysis",
    "CollateralInput": ".analysis",
    "MultiAlertInput": ".analysis",
    "ChokeRelationship": ".analysis",
    "RelationshipLoad": ".analysis",
    "ChokePointsResult": ".analysis",
    "WhatIfResult": ".analysis",
    "LostEntity": ".collateral",
    "IdentityCollateral": ".collateral",
    "CollateralResult": ".collateral",
    "MultiAlertMember": ".analysis",
    "CombinedEntity": ".analysis",
    "SharedRelationship": ".analysis",
    "MultiAlertResult": ".analysis",
    "SelectInput": ".runs",
    "SelectResult": ".runs",
    "Proposal": ".runs",
    "Decision": ".runs",
    "ActionResult": ".runs",
    "RunAction": ".runs",
    "AccountActionKind": ".account",
    "AccountCall": ".account",
    "AccountCheck": ".account",
    "AccountOutcome": ".account",
    "AccountPlan": ".account",
    "AccountRelease": ".account",
    "AccountTarget": ".account",
    "CandidatePlan": ".account",
    "RunStep": ".runs",
    "RunOwner": ".runs",
    "RouteRelease": ".runs",
    "RunRecord": ".runs",
    "AlertReopened": ".runs",
    "ReleaseResult": ".runs",
}


def __getattr__(name: str) -> Any:
    module = _LATER.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __package__), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from .account import (
        AccountActionKind,
        AccountCall,
        AccountCheck,
        AccountOutcome,
        AccountPlan,
        AccountRelease,
        AccountTarget,
        CandidatePlan,
    )
    from .analysis import (
        ChokePointsInput,
        ChokePointsResult,
        ChokeRelationship,
        CollateralInput,
        CombinedEntity,
        MultiAlertInput,
        MultiAlertMember,
        MultiAlertResult,
        RelationshipLoad,
        SharedRelationship,
        WhatIfInput,
        WhatIfResult,
    )
    from .collateral import CollateralResult, IdentityCollateral, LostEntity
    from .runs import (
        ActionResult,
        AlertReopened,
        Decision,
        Proposal,
        ReleaseResult,
        RouteRelease,
        RunAction,
        RunOwner,
        RunRecord,
        RunStep,
        SelectInput,
        SelectResult,
    )
