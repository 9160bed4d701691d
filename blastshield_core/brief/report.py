"""Incident reports for a containment run or an alert, as Markdown and as JSON.

A run report carries the evidence before and after (from the run's recorded
steps), every action with its verification, the full tool trace, the verdict,
and the briefing (with its label and flags) over fresh evidence. An alert
report carries the current evidence, blast radius, routes, candidates and the
briefing. The JSON form is the `IncidentReport` model; the Markdown form is
rendered from it, so both always say the same thing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..base.safetext import safe_markdown
from ..graph.audit import RUN_ID_PATTERN
from ..read.tools import ReadTools
from ..results import CandidatesResult, RouteRelease, RunAction, RunRecord, RunStep, TraceEntry
from ..results.account import REVOCATION_OPERATIONS
from . import runview
from .briefing import Briefer, Briefing
from .evidence import EvidenceSummary, EvidenceUnavailable

__all__ = [
    "REPORT_FORMAT",
    "AccountExposure",
    "AuditChainHead",
    "IncidentReport",
    "Reporter",
    "RunEvidence",
    "render_markdown",
    "run_evidence",
]

REPORT_FORMAT: Literal["blastshield-report/v1"] = "blastshield-report/v1"


class RunEvidence(BaseModel):
    """What the run's recorded steps say about the paths, before and after its actions."""

    model_config = ConfigDict(extra="forbid")

    status_before: str | None = None
    score_before: int | None = None  # the alert's score and severity when the run started
    severity_before: str | None = None
    rule_set_before: str | None = None
    paths_before: int | None = None
    paths_before_detail: list[list[str]] = Field(default_factory=list)
    status_after: str | None = None
    paths_after: int | None = None
    paths_after_detail: list[list[str]] = Field(default_factory=list)


class AuditChainHead(BaseModel):
    """The audit's hash-chain head when the report was made, as `audit verify` recomputed it (never
    the unchecked head record): keep it, and `audit verify --expect-head HASH` checks the chain
    still holds it."""

    model_config = ConfigDict(extra="forbid")

    seq: int
    hash: str
    anchored: bool = False  # compared with the anchor log outside the database


class AccountExposure(BaseModel):
    """The alert's exposure on the AWS account, computed when the report was made: routes blocked in
    the graph only (not applied on the account) cut nothing there, so the paths they cut count as open
    on the account."""

    model_config = ConfigDict(extra="forbid")

    graph_only_routes: list[str] = Field(default_factory=list)
    qualifying_paths: int = 0  # in the graph
    open_on_account: int = 0  # in the graph, plus those only a graph-only block cuts


class IncidentReport(BaseModel):
    """An incident report (the JSON download); the Markdown is rendered from it."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["blastshield-report/v1"] = REPORT_FORMAT
    kind: Literal["run", "alert"]
    generated_at: datetime
    alert_id: str
    run_id: str | None = None
    verdict: str | None = None
    verdict_reason: str | None = None
    run_evidence: RunEvidence | None = None
    actions: list[RunAction] = Field(default_factory=list)
    steps: list[RunStep] = Field(default_factory=list)
    evidence: EvidenceSummary = Field(description="fresh evidence: paths, blast radius, routes, score")
    candidates: CandidatesResult | None = None
    briefing: Briefing
    trace: list[TraceEntry] = Field(default_factory=list)
    actor: str | None = None  # who started the run
    releases: list[RouteRelease] = Field(default_factory=list)  # later releases of routes the run blocked
    audit_chain_head: AuditChainHead | None = None  # only when the chain verified
    audit_chain_problem: str | None = None  # why there is no verified head
    account: AccountExposure | None = None  # only when a route of the alert is blocked in the graph only


def run_evidence(run: RunRecord) -> RunEvidence:
    """Before: the initial investigation (and the paths the first decision saw); after: the last re-query."""
    out = RunEvidence()
    start = next((s for s in run.steps if s.kind == "investigate"), None)
    if start is not None:
        out.status_before = start.data.get("status")
        out.paths_before = start.data.get("paths")
        out.score_before = start.data.get("risk_score")
        out.severity_before = start.data.get("severity")
        out.rule_set_before = start.data.get("rule_set")
    first_proposal = next((s for s in run.steps if s.kind == "proposal"), None)
    if first_proposal is not None:
        out.paths_before_detail = [list(p) for p in first_proposal.data.get("evidence_paths", [])]
    last_requery = next((s for s in reversed(run.steps) if s.kind == "requery"), None)
    if last_requery is not None:
        out.status_after = last_requery.data.get("status")
        out.paths_after = last_requery.data.get("paths_after")
        out.paths_after_detail = [list(p) for p in last_requery.data.get("remaining_paths", [])]
    else:
        out.status_after, out.paths_after = out.status_before, run.remaining_paths
        out.paths_after_detail = out.paths_before_detail
    return out


class Reporter:
    """Builds incident reports; `report(target)` takes a run id or an alert id."""

    def __init__(
        self, tools: ReadTools, briefer: Briefer, graph_only: Callable[[], Mapping[str, str]] | None = None
    ) -> None:
        """`graph_only` gives the routes blocked in the graph only (route id -> run), read when a report
        is made; without it no block is known to be one."""
        self.tools = tools
        self.briefer = briefer
        self.graph_only = graph_only

    def _account(self, alert_id: str) -> dict[str, Any]:
        """The alert's exposure on the account when a route of its paths is blocked in the graph only.
        Raises EvidenceUnavailable when the routes cannot be read: a report never reads as contained
        on a failed query."""
        blocks = self.graph_only() if self.graph_only is not None else {}
        if not blocks:
            return {}
        routes = self.tools.get_containment_route_statuses(alert_id, blocks)
        if not routes.status.is_answer:
            raise EvidenceUnavailable(routes.status, f"routes: {routes.message}")
        mine = sorted(r.route_id for r in routes.routes if r.graph_only and r.status == "blocked")
        if not mine:
            return {}
        exposure = AccountExposure(
            graph_only_routes=mine, qualifying_paths=routes.qualifying_paths, open_on_account=routes.open_on_account
        )
        return {"account": exposure}

    def report(self, target: str) -> IncidentReport:
        if re.fullmatch(RUN_ID_PATTERN, target or ""):
            return self.for_run(target)
        return self.for_alert(target)

    def for_run(self, run_id: str) -> IncidentReport:
        run = self.briefer.run_record(run_id)
        briefing = self.briefer.brief(run.alert_id, run.run_id)
        return IncidentReport(
            kind="run",
            generated_at=datetime.now(UTC),
            alert_id=run.alert_id,
            run_id=run.run_id,
            verdict=run.state.value,
            verdict_reason=run.reason,
            run_evidence=run_evidence(run),
            actions=run.actions,
            steps=run.steps,
            evidence=briefing.evidence,
            briefing=briefing,
            trace=[entry for step in run.steps for entry in step.trace],
            actor=run.actor or None,
            releases=run.releases,
            **self._chain_head(),
            **self._account(run.alert_id),
        )

    def _chain_head(self) -> dict[str, Any]:
        """The verified head, or why there is none (the chain does not hold)."""
        result = self.briefer.audit.verify()
        if not result.intact:
            b = result.broken
            problem = f"the audit does not verify: record {b.chain_seq} ({b.record} {b.id}): {b.reason}" if b else ""
            return {"audit_chain_problem": problem or "the audit does not verify"}
        head = AuditChainHead(seq=result.head_seq, hash=result.head_hash, anchored=result.anchor == "compared")
        return {"audit_chain_head": head}

    def for_alert(self, alert_id: str) -> IncidentReport:
        mark = self.tools.tracer.mark()
        briefing = self.briefer.brief(alert_id)
        candidates = self.tools.get_response_candidates(alert_id)
        if not candidates.status.is_answer:
            raise EvidenceUnavailable(candidates.status, f"candidates: {candidates.message}")
        return IncidentReport(
            kind="alert",
            generated_at=datetime.now(UTC),
            alert_id=alert_id,
            evidence=briefing.evidence,
            candidates=candidates,
            briefing=briefing,
            trace=self.tools.tracer.since(mark),
            **self._account(alert_id),
        )


def _paths(detail: list[list[str]], count: int | None) -> list[str]:
    if count == 0:
        return ["- none: no qualifying path"]
    lines = [f"- {' → '.join(f'`{n}`' for n in nodes)}" for nodes in detail]
    if count is not None and len(detail) < count:
        lines.append(f"- … {count - len(detail)} more not recorded")
    return lines or ["- (not recorded)"]


def _account_lines(action: RunAction) -> str:
    """An action's side on the AWS account, as the lines under it."""
    if not runview.aws_backed(action):
        return ""
    if not runview.on_account(action):
        return f"\n   - **not applied in AWS**: {runview.account_note(action)}"
    calls = "; ".join(
        f"`{c['api']}` ({', '.join(f'{k}={v}' for k, v in c['params'].items() if k != 'PolicyDocument')})"
        for c in runview.account_calls(action)
    )
    before = json.dumps(dict(runview.before_image(action)), sort_keys=True)
    applied, api_verified, graph_verified = runview.reported_applied(action)
    return (
        f"\n   - on the AWS account: {calls}; applied {applied}, api_verified {api_verified},"
        f" graph_verified {graph_verified}; request id `{runview.request_id(action) or '-'}`"
        f"\n   - before-image: `{before}`"
    )


def _account_exposure(account: AccountExposure | None) -> list[str]:
    """The header line on the account's exposure, when a route is blocked in the graph only."""
    if account is None:
        return []
    routes = ", ".join(f"`{r}`" for r in account.graph_only_routes)
    return [
        f"- on the AWS account, computed now: **{account.open_on_account} qualifying path(s) open on the account**"
        f" ({account.qualifying_paths} in the graph); {routes} blocked in the graph only: the credentials still"
        " work on the account"
    ]


def render_markdown(report: IncidentReport) -> str:
    """The report as Markdown (the same facts as the JSON)."""
    ev = report.evidence
    subject = f"run `{report.run_id}`" if report.kind == "run" else f"alert `{report.alert_id}`"
    lines = [
        f"# Incident report: {subject}",
        "",
        f"- alert: `{ev.alert_id}` — {ev.title}",
        f"- entity: `{ev.entity_id}` ({ev.entity_label or 'entity'})",
    ]
    if report.kind == "run":
        before = report.run_evidence or RunEvidence()
        lines.append(
            f"- when the run started: score {before.score_before}/100, severity {before.severity_before}"
            f" ({before.rule_set_before})"
            if before.score_before is not None
            else "- when the run started: score not recorded (a run recorded before scores were kept)"
        )
    after_label = "after the run, computed now" if report.kind == "run" else "computed now"
    lines += [
        f"- {after_label}: score {ev.risk_score}/100, severity {ev.severity} ({ev.rule_set})",
        *_account_exposure(report.account),
        f"- generated: {report.generated_at.isoformat(timespec='seconds')}",
    ]
    if report.kind == "run":
        lines += [
            f"- verdict: **{report.verdict}** — {report.verdict_reason}",
            f"- started by: {report.actor or 'not recorded'}",
            *[
                f"- released later: route `{r.route_id}` by {r.actor} at {r.at.isoformat(timespec='seconds')}"
                f" — {r.reason}"
                for r in report.releases
            ],
            *(
                [
                    f"- audit chain head (verified{', anchored' if report.audit_chain_head.anchored else ''}):"
                    f" record {report.audit_chain_head.seq}, `{report.audit_chain_head.hash}`"
                ]
                if report.audit_chain_head
                else []
            ),
            *([f"- audit chain: NOT VERIFIED — {report.audit_chain_problem}"] if report.audit_chain_problem else []),
            "",
            "## Evidence before the run",
            f"Initial investigation: {before.status_before}, qualifying paths: {before.paths_before}.",
            *_paths(before.paths_before_detail, before.paths_before),
            "",
            "## Actions and verification",
        ]
        lines += [
            f"{a.step}. `{a.candidate_id}` ("
            + (
                "revoke the active sessions of the user or role on the AWS account; cuts no path"
                if runview.operation(a) in REVOCATION_OPERATIONS
                else f"route `{a.route_id}`"
            )
            + f"): {a.status}, verified **{a.verified}**;"
            f" qualifying paths before {a.paths_before}, after {a.paths_after}. {a.reason}" + _account_lines(a)
            for a in report.actions
        ] or ["No action was taken."]
        graph_only = [runview.route_of(a) for a in report.actions if runview.graph_only(a)]
        if graph_only:
            lines.append(
                f"\n**Not applied in AWS:** {', '.join(f'`{r}`' for r in graph_only)} blocked in the graph only"
                " (no respond profile); the credentials still work on the account. This run is not containment"
                " of the account."
            )
        lines += [
            "",
            "## Evidence after the run",
            f"Last re-query: {before.status_after}, qualifying paths: {before.paths_after}.",
            *_paths(before.paths_after_detail, before.paths_after),
            "",
            "## Steps",
        ]
        lines += [f"{s.seq}. [{s.kind}] {s.summary}" for s in report.steps]
    else:
        lines += ["", "## Response candidates"]
        cands = report.candidates.candidates if report.candidates else []
        revocations = report.candidates.revocations if report.candidates else []
        lines += [f"- `{c.id}`: cuts {c.paths_cut}, {c.remaining_if_applied} would remain" for c in cands] or [
            "- none: no active session route carries a qualifying path"
        ]
        lines += [f"- `{r.id}`: revokes the active sessions of `{r.arn}`; cuts no path" for r in revocations]
    flags = report.briefing.flags
    lines += [
        "",
        f"## Briefing ({report.briefing.label}"
        + (f": {report.briefing.reason}" if report.briefing.reason else "")
        + ")",
        "",
        report.briefing.markdown.replace("\n## ", "\n### ").removeprefix("## ").strip(),
    ]
    if flags:
        lines += ["", "### Checker flags on the model's briefing"]
        lines += [f"- **{f.kind.value}**: “{f.offending_text}” — {f.evidence}" for f in flags]
    lines += ["", "## Tool trace", "", "| # | tool | input | status | results | ms |", "|---|---|---|---|---|---|"]
    for i, t in enumerate(report.trace, 1):
        inputs = ", ".join(f"{k}={v}" for k, v in t.input.items()).replace("|", "\\|")
        lines.append(f"| {i} | {t.tool} | {inputs} | {t.status.value} | {t.result_count} | {t.duration_ms:.1f} |")
    if not report.trace:
        lines.append("| - | (no tool call recorded) | | | | |")
    # Titles, names, reasons and the briefing come from data or the model: no link, image or HTML.
    return safe_markdown("\n".join(lines) + "\n")
