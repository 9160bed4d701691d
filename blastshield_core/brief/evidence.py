"""The evidence a briefing is checked against, and which the model is given.

Always a fresh standard investigation (depth 6) with the blast radius, the route
statuses, the paths that blocked routes cut, the run the briefing is about, and, for
an alert on AWS entities, the account's side: whether the account holds the blocks
the graph has (`AccountSide`). Unknown, invalid and failed answers raise
`EvidenceUnavailable`: a briefing never rests on them, and they are never read as safe.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..graph.store import QueryFailed
from ..read.tools import ReadTools
from ..results import MAX_DEPTH, BlastEntity, RouteStatus, RouteStatusResult, RunRecord, RunState, ScoreFactor, Status
from . import runview

__all__ = [
    "FIELD_NAMES",
    "GRAPH_CONTAINED",
    "AccountOpen",
    "AccountSide",
    "ContainmentState",
    "EvidenceSummary",
    "EvidenceUnavailable",
    "PathSummary",
    "RunSummary",
    "account_side",
    "gather_evidence",
    "read_account_open",
]

ContainmentState = Literal["contained", "exposed", "unknown"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PathSummary(_Model):
    nodes: list[str]
    relationships: list[str]
    hops: int
    methods: list[str] = []  # per relationship: a CAN_ESCALATE's escalation method, else ""


class RunSummary(_Model):
    run_id: str
    state: RunState
    reason: str
    decider: str
    max_actions: int
    actions: list[dict[str, object]]
    paths_at_start: int | None
    remaining_paths: int | None


class AccountSide(_Model):
    """The AWS account's side of an alert: contained only when the graph has no qualifying path and the account
    holds every block the paths need (a block planned in the graph only, or undone on the account, leaves its
    paths open there)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    state: ContainmentState
    open_paths: int = Field(default=0, description="qualifying paths open on the account")
    routes: dict[str, str] = Field(default_factory=dict, description='route id -> "graph_only" or "undone"')
    message: str


class EvidenceSummary(_Model):
    """The fresh evidence a briefing is checked against (and the model is given)."""

    alert_id: str
    title: str
    entity_id: str
    entity_label: str | None
    status: Status
    risk_score: int
    severity: str
    rule_set: str
    factors: list[ScoreFactor]
    paths: list[PathSummary]
    path_count: int
    truncated: bool
    assets: list[str]
    critical_assets: list[str]
    high_assets: list[str]
    blast_radius: list[BlastEntity]
    blast_by_label: dict[str, int]
    routes: list[RouteStatus]
    cut_off_entities: list[str] = Field(
        default_factory=list, description="entities on paths that exist only through blocked relationships"
    )
    cut_off_path_count: int = Field(
        default=0, description="qualifying paths that exist only through blocked relationships (cut by a block)"
    )
    modelled_relationship_types: list[str] = Field(
        default_factory=list,
        description="types on the alert's paths including blocked ones, and on its session routes",
    )
    containment_state: ContainmentState
    run: RunSummary | None = None
    no_run: bool = Field(
        default=False, description="the alert has no containment run at all (not merely none given to the check)"
    )
    arns: dict[str, str] = Field(
        default_factory=dict, description="ARN -> entity id, for the AWS entities on the alert's paths"
    )
    adjacent: dict[str, str] = Field(
        default_factory=dict,
        description="id -> label of the entities one relationship (any status or permission) from the paths",
    )
    names: dict[str, str] = Field(
        default_factory=dict,
        description="plain name -> entity id, for the entities on the paths and in the blast radius",
    )
    account: AccountSide | None = Field(
        default=None,
        description="the AWS account's side (None for an alert on no AWS entity, or with no account to ask)",
    )

    @property
    def names_lower(self) -> dict[str, str]:
        """Lower-case plain name -> id; a name two entities share names neither."""
        out: dict[str, str] = {}
        shared: set[str] = set()
        for name, entity in self.names.items():
            key = name.lower()
            if key in out and out[key] != entity:
                shared.add(key)
            out[key] = entity
        known = {k.lower() for k in self.known_ids}
        return {k: v for k, v in out.items() if k not in shared and k not in known}

    @property
    def asset_count(self) -> int:
        return len(self.assets)

    @property
    def relationship_types(self) -> set[str]:
        return {t for p in self.paths for t in p.relationships}

    @property
    def known_ids(self) -> set[str]:
        ids = {self.alert_id, self.entity_id}
        ids |= {n for p in self.paths for n in p.nodes}
        ids |= {e.id for e in self.blast_radius}
        ids |= set(self.cut_off_entities)
        ids |= set(self.adjacent)
        for r in self.routes:
            ids |= {r.route_id, r.source, r.target, f"block-route:{r.route_id}"}
        if self.run is not None:
            ids.add(self.run.run_id)
            ids |= set(self.revocations)
        return ids

    @property
    def revocations(self) -> dict[str, bool]:
        """The run's session revocations (a role's or a user's): candidate id -> applied on the AWS account."""
        if self.run is None:
            return {}
        return {
            runview.route_of(a): runview.action_applied(a)
            for a in self.run.actions
            if runview.account_kind(a) == "revocation"
        }


class EvidenceUnavailable(Exception):
    """The graph gave no answer that a briefing could rest on (unknown alert, failed query...)."""

    def __init__(self, status: Status, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


AccountOpen = Callable[[], Mapping[str, str]]
"""The routes blocked in the graph that the account does not hold blocked: route id -> "graph_only" (never applied
there) or "undone" (found undone there); `respond.graph_only.account_open_blocks`. May raise QueryFailed."""

GRAPH_CONTAINED = "no qualifying path to a high/critical asset within 6 hops"


def why_open(kind: str) -> str:
    return "blocked in the graph only" if kind == "graph_only" else "undone on the account"


def read_account_open(account_open: AccountOpen) -> tuple[dict[str, str], str]:
    """The routes the account does not hold blocked, and why they could not be read ("" when they were)."""
    try:
        return dict(account_open()), ""
    except QueryFailed as exc:
        return {}, str(exc)


def account_side(
    graph_paths: int, open_routes: Mapping[str, str], routes: RouteStatusResult, unread: str = ""
) -> AccountSide:
    """The account's side of an alert with `graph_paths` qualifying paths in the graph, from the routes the account
    does not hold blocked (`read_account_open`: `open_routes`, or why they are `unread`) and the alert's route
    statuses asked with them (`get_containment_route_statuses(alert, open_routes)`: `open_on_account`).

    The graph's paths are open on the account too; a route blocked in the graph only, or undone on the account,
    opens there the paths it is the only block on. When that cannot be read, an alert with no path in the graph is
    `unknown` on the account, never contained."""
    in_graph = f"{graph_paths} qualifying path(s) in the graph, open on the AWS account too"
    failure = unread or ("" if routes.status is Status.OK else f"paths open on the account unknown: {routes.message}")
    if failure:
        if graph_paths:
            return AccountSide(
                state="exposed", open_paths=graph_paths, message=f"{in_graph}; others unknown: {failure}"
            )
        detail = failure if not unread else f"whether the account holds its blocks is unknown: {unread}"
        return AccountSide(state="unknown", message=f"no qualifying path in the graph; {detail}")
    mine = {r.route_id: open_routes[r.route_id] for r in routes.routes if r.route_id in open_routes}
    if mine and routes.open_on_account > graph_paths:
        why = "; ".join(f"{r} {why_open(kind)}" for r, kind in sorted(mine.items()))
        lead = (
            "no qualifying path in the graph, but"
            if not graph_paths
            else f"{graph_paths} qualifying path(s) in the graph, and"
        )
        return AccountSide(
            state="exposed",
            open_paths=routes.open_on_account,
            routes=dict(sorted(mine.items())),
            message=f"{lead} {routes.open_on_account} qualifying path(s) are open on the AWS account ({why})",
        )
    if graph_paths:
        return AccountSide(state="exposed", open_paths=graph_paths, message=in_graph)
    return AccountSide(state="contained", message=GRAPH_CONTAINED)


def _require(result, what: str) -> None:
    if not result.status.is_answer:
        raise EvidenceUnavailable(result.status, f"{what}: {result.status.value}: {result.message}")


def _label(labels: list[str]) -> str:
    return next((x for x in labels if x != "Entity"), "Entity")


def gather_evidence(
    tools: ReadTools, alert_id: str, run: RunRecord | None = None, account_open: AccountOpen | None = None
) -> EvidenceSummary:
    """A fresh standard investigation, blast radius and route statuses, summarised; with `account_open`, the
    account's side of an alert on AWS entities (`account_side`, from the same route statuses)."""
    inv = tools.investigate_alert(alert_id)
    _require(inv, "investigation")
    blast = tools.get_blast_radius(alert_id)
    _require(blast, "blast radius")
    open_routes, unread = read_account_open(account_open) if account_open is not None else ({}, "")
    routes = tools.get_containment_route_statuses(alert_id, open_routes)
    _require(routes, "route statuses")
    assert inv.alert is not None
    critical = sorted({p.nodes[-1].id for p in inv.paths if p.nodes[-1].properties.get("sensitivity") == "critical"})
    high = sorted({p.nodes[-1].id for p in inv.paths if p.nodes[-1].properties.get("sensitivity") == "high"})
    # Paths that blocked routes cut are still part of this alert's story (e.g. after a run).
    try:
        every, _ = tools._paths("sensitive", MAX_DEPTH, {"source_id": inv.alert.entity_id}, include_blocked=True)
    except QueryFailed as exc:
        raise EvidenceUnavailable(Status.QUERY_FAILED, f"cut-off paths: {exc}") from None
    live = {n for p in inv.paths for n in p.node_ids}
    cut_off = sorted({n for p in every for n in p.node_ids} - live)
    arns = {  # of two nodes with one ARN (a user and her ":policies" node), the shorter id: the principal
        str(n.properties["arn"]): n.id
        for n in sorted((n for p in (*inv.paths, *every) for n in p.nodes), key=lambda n: -len(n.id))
        if isinstance(n.properties.get("arn"), str) and n.properties["arn"].startswith("arn:")
    }
    frontier = sorted({n for p in (*inv.paths, *every) for n in p.node_ids} | {inv.alert.entity_id})
    try:
        rows = tools.store.read("expand_frontier_any_status", {"frontier": frontier, "limit": 2000})
    except QueryFailed as exc:
        raise EvidenceUnavailable(Status.QUERY_FAILED, f"neighbourhood: {exc}") from None
    adjacent = {str(r["id"]): _label(r["labels"]) for r in rows}
    names = {str(r["props"]["name"]): str(r["id"]) for r in rows if r["props"].get("name") not in (None, "", r["id"])}
    names |= {n.name: n.id for p in (*inv.paths, *every) for n in p.nodes if n.name and n.name != n.id} | {
        e.name: e.id for e in blast.entities if e.name and e.name != e.id
    }
    summary_run = None
    if run is not None:
        start = next((s for s in run.steps if s.kind == "investigate"), None)
        summary_run = RunSummary(
            run_id=run.run_id,
            state=run.state,
            reason=run.reason,
            decider=run.decider,
            max_actions=run.max_actions,
            actions=[a.model_dump() for a in run.actions],
            paths_at_start=start.data.get("paths") if start else None,
            remaining_paths=run.remaining_paths,
        )
    return EvidenceSummary(
        alert_id=inv.alert.id,
        title=inv.alert.title,
        entity_id=inv.alert.entity_id,
        entity_label=inv.alert.entity_label,
        status=inv.status,
        risk_score=inv.alert.risk_score,
        severity=inv.alert.severity,
        rule_set=inv.alert.rule_set,
        factors=inv.alert.factors,
        paths=[
            PathSummary(
                nodes=list(p.node_ids),
                relationships=[r.type for r in p.relationships],
                hops=p.hops,
                methods=[str(r.properties.get("method") or "") for r in p.relationships],
            )
            for p in inv.paths
        ],
        path_count=inv.path_count,
        truncated=inv.truncated,
        assets=sorted(set(critical) | set(high)),
        critical_assets=critical,
        high_assets=high,
        blast_radius=blast.entities,
        blast_by_label=blast.by_label,
        routes=[  # "blocked in the graph only" is said of a block never applied on the account, not of one undone
            r.model_copy(update={"graph_only": open_routes[r.route_id] == "graph_only"}) if r.graph_only else r
            for r in routes.routes
        ],
        cut_off_entities=cut_off,
        cut_off_path_count=max(len(every) - len(inv.paths), 0),
        modelled_relationship_types=sorted(
            {r.type for p in every for r in p.relationships} | {r.type for r in routes.routes}
        ),
        arns=arns,
        names=names,
        adjacent=adjacent,
        containment_state="contained" if inv.status is Status.NO_PATH else "exposed",
        run=summary_run,
        account=account_side(inv.path_count, open_routes, routes, unread)
        if account_open is not None and arns
        else None,
    )


def _field_names(model: type[BaseModel], seen: set[type[BaseModel]]) -> set[str]:
    if model in seen:
        return set()
    seen.add(model)
    out: set[str] = set()
    for name, info in model.model_fields.items():
        out.add(name)
        for arg in (info.annotation, *typing.get_args(info.annotation)):
            for inner in (arg, *typing.get_args(arg)):
                if inspect.isclass(inner) and issubclass(inner, BaseModel):
                    out |= _field_names(inner, seen)
    return out


# The keys of the evidence and of a run's record, as the model reads them in its evidence JSON: a briefing that
# quotes one ("paths_carried=1", "applied_in_aws: false") names a field, not an entity of the graph.
FIELD_NAMES = frozenset(n for n in _field_names(EvidenceSummary, set()) | _field_names(RunRecord, set()) if "_" in n)
