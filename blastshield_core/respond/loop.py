"""The containment controller: investigate, decide, validate, act, re-query, verify.

A run needs explicit confirmation and has an action cap (default 3, 1..10). An action is one of
the two allowlisted kinds the candidates offer: block a session route (the action service, and on
an AWS credential the account responder), or revoke sessions already issued, of an AWS role or of an
AWS user (`run_revoke`, each offered once a run; it cuts no path, so it never completes a run by
itself). After every action the graph is asked again, and only a fresh `no_path` with
every action verified completes a run. When no path is left but the run cut a credential on the
account that issued sessions (a key deactivated: its GetSessionToken sessions and the role sessions
assumed with it keep working), the revocations stopping them are offered first, within the cap
(`issued.followups`); the verdict names the issued credentials left standing (`issued.left_standing`). Terminal states:

- `completed`: a fresh query returned `no_path` and every action was verified
  (an alert with no path at the start completes with zero actions);
- `graph_only`: as `completed` in the graph, but at least one block on an
  AWS-backed route was not applied on the account (no respond profile): the
  block is planned in the graph and the credentials still work on the
  account, so the run is never `completed` nor called contained (the seed's
  synthetic routes are not AWS-backed, and complete as before);
- `stopped`: cap reached with paths remaining, no valid proposal, a rejected
  proposal, model unavailable, no candidate can cut the remaining paths, or the
  analyst ended it;
- `failed`: a query failed or answered unknown/invalid, an action could not
  be verified, or the audit could not be written;
- `interrupted`: the process running it is gone (found when a store opens;
  see `AuditLog.recover_interrupted`);
- `abandoned`: an analyst run left waiting in a dashboard session that ended
  or timed out (`WaitingRuns`).

Intent before effect: the `intent` step naming the route is in the audit
before the block is written, so a route's `blocked_by_run` always names a run
whose audit says what it attempted, even if the process dies right after.

Every step is appended to the persisted audit as it happens. No step runs
unrecorded: if a step cannot be written to the audit (the database went away),
the run ends `failed` at once, before any further query, decision or action;
the returned record says which step could not be written, and the steps
already written stay in the audit (where the run then still reads `running`,
since its verdict could not be written either). A verdict that would have been
`completed` is reported `failed` when it cannot be recorded.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError

from ..base.actor import check_actor, local_actor
from ..graph.audit import AuditLog, this_process
from ..graph.model import ENTITY_ID_PATTERN
from ..graph.store import QueryFailed
from ..read.paths import describe_input_error
from ..read.tools import ReadTools
from ..read.trace import Tracer
from ..results import (
    DEFAULT_MAX_ACTIONS,
    MAX_ACTIONS_LIMIT,
    ActionResult,
    CandidatesResult,
    InvestigationResult,
    RelView,
    RunAction,
    RunRecord,
    RunState,
    RunStep,
    Status,
)
from ..results.account import AccountOutcome, AccountPlan
from .act import ActionService
from .decide import Decider, DecisionContext, validate_proposal
from .effector import AccountEffector
from .graph_only import graph_only_in_run
from .issued import followups, left_standing, revoked_sessions

__all__ = [
    "ANALYST_WAIT_LIMIT_S",
    "AuditWriteFailed",
    "ContainmentController",
    "RunRefused",
    "RunRequest",
    "RunSession",
    "WaitingRuns",
]

ANALYST_WAIT_LIMIT_S = 3600.0  # an analyst run waiting longer than this is abandoned

StepCallback = Callable[[RunRecord, RunStep], None]


class RunRefused(ValueError):
    """A run was not started (bad input or no confirmation); nothing was written."""


class AuditWriteFailed(Exception):
    """A step of a run could not be written to the audit."""

    def __init__(self, step: RunStep, message: str, *, step_written: bool = False):
        super().__init__(message)
        self.step = step
        self.message = message
        self.step_written = step_written  # the step itself is in the audit; the run record update failed


class RunRequest(BaseModel):
    """A validated request to start a containment run."""

    model_config = ConfigDict(extra="forbid")

    alert_id: StrictStr = Field(pattern=ENTITY_ID_PATTERN)
    decider: StrictStr = Field(pattern=r"^(gemini|analyst|rules)$")
    max_actions: StrictInt = Field(default=DEFAULT_MAX_ACTIONS, ge=1, le=MAX_ACTIONS_LIMIT)
    confirm: StrictBool = False


def _now() -> datetime:
    return datetime.now(UTC)


def new_run_id() -> str:
    return f"run-{_now().strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(3)}"


def _applied(account: AccountOutcome, result: ActionResult) -> bool:
    """Whether the action took effect: on the account when it acts there, else in the graph."""
    return account.applied if account.applied_in_aws else result.status == "applied"


class RunSession:
    """One run in progress: the record, the latest evidence, and how to take the next step."""

    def __init__(self, controller: ContainmentController, run: RunRecord, on_step: StepCallback | None):
        self.controller = controller
        self.run = run
        # Each run reads through tools with a tracer of its own, so the trace in its audit
        # holds its calls only, even while other runs share the same services.
        self.tools = ReadTools(controller.tools.store, Tracer(), path_cap=controller.tools.path_cap)
        self.on_step = on_step
        self.latest: InvestigationResult | None = None
        self._decisions = 0
        # An applied action not yet in `run.actions` (kept if the audit fails in between).
        self._pending: RunAction | None = None
        # Session revocations this run applied and verified: not offered again (a second one would
        # only move the revocation time, and neither cuts a path).
        self._revoked: dict[str, str] = {}  # candidate id -> the role's ARN

    def offered(self, found: CandidatesResult) -> CandidatesResult:
        """The candidates a decider may choose from now: the fresh ones, less the session
        revocations this run already made."""
        if not self._revoked or not found.revocations:
            return found
        kept = [r for r in found.revocations if r.id not in self._revoked]
        return found.model_copy(update={"revocations": kept})

    # -- recording -------------------------------------------------------------
    def _step(self, kind: str, summary: str, data: dict[str, Any] | None = None, mark: int | None = None) -> RunStep:
        tracer: Tracer = self.tools.tracer
        step = RunStep(
            seq=len(self.run.steps) + 1,
            kind=kind,
            at=_now(),
            summary=summary,
            data=data or {},
            trace=tracer.since(mark) if mark is not None else [],
        )
        self.run.steps.append(step)
        try:
            self.controller.audit.add_step(self.run.run_id, step)
        except QueryFailed as exc:
            raise AuditWriteFailed(step, str(exc)) from None
        if self.on_step is not None:
            self.on_step(self.run, step)
        return step

    def _finish(self, state: RunState, reason: str, remaining: int | None) -> RunRecord:
        # Whatever ends the run, its verdict names the issued credentials its account actions left standing.
        issued = self._issued_note()
        if issued and issued not in reason:
            reason += issued
        self.run.state = state
        self.run.reason = reason
        self.run.remaining_paths = remaining
        self.run.finished_at = _now()
        step = self._step("verdict", f"{state.value}: {reason}", {"state": state.value, "remaining_paths": remaining})
        self._update_audit(step)
        return self.run

    def _update_audit(self, step: RunStep) -> None:
        try:
            self.controller.audit.update(self.run)
        except QueryFailed as exc:
            raise AuditWriteFailed(step, f"the run record was not updated: {exc}", step_written=True) from None

    def _audit_failed(self, exc: AuditWriteFailed) -> RunRecord:
        """End the run `failed` because its audit cannot be written; take no further step."""
        if self._pending is not None:
            self.run.actions.append(self._pending)
            self._pending = None
        before = f" (verdict before: {self.run.state.value}: {self.run.reason})" if self.run.state.terminal else ""
        self.run.state = RunState.FAILED
        self.run.reason = (
            f"audit write failed {'after' if exc.step_written else 'at'} step {exc.step.seq} ({exc.step.kind}):"
            f" {exc.message}; "
            f"the run was ended before any further action{before}"
        )
        self.run.remaining_paths = None
        self.run.finished_at = _now()
        verdict = RunStep(
            seq=len(self.run.steps) + 1,
            kind="verdict",
            at=_now(),
            summary=f"failed: {self.run.reason}",
            data={
                "state": "failed",
                "remaining_paths": None,
                "audit_failed_step": exc.step.seq,
                "step_written": exc.step_written,
            },
        )
        self.run.steps.append(verdict)
        try:  # best effort: the store may be back, or still gone
            self.controller.audit.add_step(self.run.run_id, verdict)
            self.controller.audit.update(self.run)
        except QueryFailed:
            pass
        if self.on_step is not None:
            self.on_step(self.run, verdict)
        return self.run

    # -- the loop --------------------------------------------------------------
    def begin(self) -> RunRecord:
        """Investigate fresh; complete at once if there is nothing to contain."""
        if self.run.state.terminal:
            return self.run
        try:
            return self._begin()
        except AuditWriteFailed as exc:
            return self._audit_failed(exc)

    def _begin(self) -> RunRecord:
        tools = self.tools
        mark = tools.tracer.mark()
        inv = tools.investigate_alert(self.run.alert_id)
        self._step(
            "investigate",
            f"initial investigation: {inv.status.value}, {inv.path_count} qualifying path(s)",
            {
                "status": inv.status.value,
                "paths": inv.path_count,
                "truncated": inv.truncated,
                # the alert's score when the run started (a report shows it beside the score after)
                "risk_score": inv.alert.risk_score if inv.alert else None,
                "severity": inv.alert.severity if inv.alert else None,
                "rule_set": inv.alert.rule_set if inv.alert else None,
            },
            mark,
        )
        if not inv.status.is_answer:
            return self._finish(RunState.FAILED, f"initial investigation {inv.status.value}: {inv.message}", None)
        self.latest = inv
        if inv.status is Status.NO_PATH:
            return self._finish(RunState.COMPLETED, "no qualifying path at the start: nothing to contain", 0)
        return self.run

    def advance(self, decider: Decider) -> RunRecord:
        """One decision cycle: candidates, proposal, validation, action, re-query, verdict."""
        if self.run.state.terminal:
            return self.run
        try:
            return self._advance(decider)
        except AuditWriteFailed as exc:
            return self._audit_failed(exc)

    def _advance(self, decider: Decider) -> RunRecord:
        assert self.latest is not None, "begin() first"
        tools = self.tools
        alert_id = self.run.alert_id
        remaining = self.latest.path_count
        applied = sum(1 for a in self.run.actions if a.status == "applied")
        if applied >= self.run.max_actions:
            if remaining == 0:  # the cap spent on revocations after the paths were cut
                return self._finish(self._no_path_state(), self._completed_reason(), 0)
            return self._finish(
                RunState.STOPPED,
                f"action cap ({self.run.max_actions}) reached with {remaining} path(s) remaining"
                + self._revoked_note(),
                remaining,
            )

        mark = tools.tracer.mark()
        candidates = self.offered(tools.get_response_candidates(alert_id))
        self._step(
            "candidates",
            f"{len(candidates.ids())} candidate(s) for {candidates.qualifying_paths} path(s)",
            {
                "status": candidates.status.value,
                "candidates": candidates.ids(),
                "paths": candidates.qualifying_paths,
            },
            mark,
        )
        if not candidates.status.is_answer:
            return self._finish(RunState.FAILED, f"candidates {candidates.status.value}: {candidates.message}", None)
        no_path = candidates.qualifying_paths == 0
        if no_path:
            # No path is left; what the run's credentials already issued may still be stopped.
            pending = followups(self.run.actions, candidates.revocations)
            if not pending:
                return self._finish(self._no_path_state(), self._completed_reason(), 0)
            candidates = candidates.model_copy(update={"candidates": [], "revocations": pending})
        if not candidates.ids():
            return self._finish(
                RunState.STOPPED,
                f"{candidates.qualifying_paths} path(s) remain but none passes through an active session route"
                + self._revoked_note(),
                candidates.qualifying_paths,
            )

        self._decisions += 1
        mark = tools.tracer.mark()
        decision = decider.decide(DecisionContext(alert_id, self._decisions, self.latest, candidates, tools))
        proposal = decision.proposal
        self._step(
            "proposal",
            f"{decision.decider}: "
            + (f"proposes {proposal.candidate_id}" if proposal else f"no proposal ({decision.reason})"),
            {
                "decider": decision.decider,
                "proposal": proposal.model_dump() if proposal else None,
                "reason": decision.reason,
                "turns": decision.turns,
                "tool_calls": decision.tool_calls,
                "evidence_paths": [list(p.node_ids) for p in self.latest.paths[:20]],
            },
            mark,
        )
        if proposal is None:
            if no_path:  # no revocation chosen: the run ends on its fresh no_path
                return self._finish(self._no_path_state(), self._completed_reason(), 0)
            return self._finish(RunState.STOPPED, decision.reason or "no valid proposal", remaining)

        mark = tools.tracer.mark()
        fresh = self.offered(tools.get_response_candidates(alert_id))
        if fresh.status.is_answer and fresh.qualifying_paths == 0:
            fresh = fresh.model_copy(update={"revocations": followups(self.run.actions, fresh.revocations)})
        if not fresh.status.is_answer:
            self._step(
                "validation", f"re-deriving candidates {fresh.status.value}", {"status": fresh.status.value}, mark
            )
            return self._finish(RunState.FAILED, f"validation query {fresh.status.value}: {fresh.message}", None)
        valid, why = validate_proposal(proposal, alert_id, fresh)
        self._step("validation", ("accepted: " if valid else "rejected: ") + why, {"valid": valid, "reason": why}, mark)
        if not valid:
            return self._finish(RunState.STOPPED, f"proposal rejected: {why}", fresh.qualifying_paths)

        revocation = next((r for r in fresh.revocations if r.id == proposal.candidate_id), None)
        if revocation is not None:
            from .aws.run_revoke import revoke_in_run

            return revoke_in_run(self, revocation)
        chosen = next(c for c in fresh.candidates if c.id == proposal.candidate_id)
        route_id = chosen.route_id
        effector = self.controller.effector
        plan = effector.plan(route_id) if effector is not None else None
        on_account = plan is not None and plan.applied_in_aws
        # Intent before effect: if this step cannot be written, nothing is blocked.
        self._step(
            "intent",
            f"about to block_route {route_id} (candidate {proposal.candidate_id}) as {self.run.actor}"
            + (
                ""
                if plan is None
                else (" on the AWS account" if on_account else f" ({plan.kind.value}: not applied in AWS)")
            ),
            {"operation": "block_route", "route_id": route_id, "candidate_id": proposal.candidate_id}
            | ({} if plan is None else {"aws_plan": plan.to_dict(), "before_image": plan.before_image}),
        )
        mark = tools.tracer.mark()
        account: AccountOutcome | None = None
        if on_account and effector is not None and plan is not None:
            result, account = self._act_on_account(effector, plan, alert_id, route_id, mark)
        else:
            result = self.controller.actions.execute(
                "block_route", alert_id, route_id, self.run.run_id, tools=tools, actor=self.run.actor
            )
            if plan is not None:
                account = AccountOutcome(applied_in_aws=False, plan=plan, note=plan.note or "graph only")
        if result.status == "applied":
            self._pending = RunAction(
                step=self._decisions,
                candidate_id=proposal.candidate_id,
                route_id=route_id,
                status=result.status,
                verified=False,
                paths_before=result.paths_before,
                paths_after=None,
                reason=result.reason,
            )
        self._step(
            "action",
            f"block_route {route_id}: {result.status} ({result.reason})",
            {"operation": result.operation, "route_id": route_id, "status": result.status, "reason": result.reason},
            mark,
        )
        if result.status == "failed":
            return self._finish(RunState.FAILED, f"action failed: {result.reason}", None)

        # Never reuse a snapshot: the next decision sees the graph as it is now.
        mark = tools.tracer.mark()
        after = result.after if result.after is not None else tools.investigate_alert(alert_id)
        verified = False
        if after.status.is_answer and result.status == "applied":
            verified = self._route_blocked(route_id, chosen.relationship) and not [
                p for p in after.paths if route_id in p.route_ids
            ]
        graph_verified = verified
        if on_account and account is not None:  # completed needs the account's re-read too
            verified = verified and account.api_verified
        self._step(
            "requery",
            f"fresh investigation: {after.status.value}, {after.path_count} path(s) remain"
            + (f"; action verified: {verified}" if result.status == "applied" else ""),
            {
                "status": after.status.value,
                "paths_before": result.paths_before,
                "paths_after": after.path_count,
                "verified": verified,
                "remaining_paths": [list(p.node_ids) for p in after.paths[:20]],
                "fetched_by_controller": result.after is None,
            },
            mark,
        )
        self._pending = None
        self.run.actions.append(
            RunAction(
                step=self._decisions,
                candidate_id=proposal.candidate_id,
                route_id=route_id,
                status=result.status,
                verified=verified,
                paths_before=result.paths_before,
                paths_after=after.path_count if after.status.is_answer else None,
                reason=result.reason,
                applied=None if account is None else _applied(account, result),
                api_verified=None if account is None else account.api_verified,
                graph_verified=None if account is None else graph_verified,
                aws=account if account is None else account.model_copy(update={"graph_verified": graph_verified}),
            )
        )
        self._update_audit(self.run.steps[-1])
        if not after.status.is_answer:
            return self._finish(RunState.FAILED, f"re-query {after.status.value}: {after.message}", None)
        self.latest = after
        if result.status == "applied" and not verified:
            return self._finish(RunState.FAILED, f"the block of {route_id} could not be verified", after.path_count)
        if after.status is Status.NO_PATH:
            if self._may_stop_issued():  # the next cycle offers the revocations of what the credential issued
                return self.run
            return self._finish(self._no_path_state(), self._completed_reason(), 0)
        if result.status != "applied":
            return self._finish(RunState.STOPPED, f"action rejected: {result.reason}", after.path_count)
        return self.run

    def _revoked_note(self) -> str:
        if not self._revoked:
            return ""
        roles = ", ".join(self._revoked.values())
        return (
            f"; the active sessions of {roles} were revoked and verified on the AWS account, which stops"
            " sessions issued before it and cuts no qualifying path"
        )

    def _may_stop_issued(self) -> bool:
        """Whether the run cut a credential on the account whose issued sessions stand, with actions left."""
        applied = sum(1 for a in self.run.actions if a.status == "applied")
        return applied < self.run.max_actions and bool(left_standing(self.run.actions))

    def _issued_note(self) -> str:
        """What the run's account actions left standing of the credentials already issued ('' for nothing)."""
        standing = left_standing(self.run.actions)
        if not standing:
            return ""
        return "; already-issued credentials left standing until they expire: " + "; ".join(standing)

    def _act_on_account(
        self, effector: AccountEffector, plan: AccountPlan, alert_id: str, route_id: str, mark: int
    ) -> tuple[ActionResult, AccountOutcome]:
        """The account's call (after the intent step), its request id, the API re-read, then the
        principal's slice re-synced through the import path: the route's status comes from the account."""
        before = self.latest.path_count if self.latest is not None else None
        account = effector.apply(plan)
        api = account.call.api if account.call is not None else plan.kind.value
        self._step(
            "aws_call",
            f"{api} {route_id}: "
            + (
                f"request id {account.request_id}; re-read through the API: {account.read_back}"
                if account.applied
                else f"not applied ({account.error})"
            ),
            {"route_id": route_id, **account.model_dump(mode="json")},
            mark,
        )
        if not account.applied:
            return ActionResult(
                operation="block_route",
                status="failed",
                reason=account.error,
                alert_id=alert_id,
                route_id=route_id,
                paths_before=before,
            ), account
        why = effector.resync(plan)
        account.resync = why or "re-synced"
        self._step("resync", f"{plan.user}'s slice re-collected and imported: {why or 'ok'}", {"error": why})
        after = self.tools.investigate_alert(alert_id)
        reason = f"{api} on {plan.subject()} (request {account.request_id})"
        return ActionResult(
            operation="block_route",
            status="applied",
            reason=reason + (f"; re-sync failed: {why}" if why else ""),
            alert_id=alert_id,
            route_id=route_id,
            paths_before=before,
            after=after,
        ), account

    def _route_blocked(self, route_id: str, rel: RelView) -> bool:
        """Read the route back (by its relationship's ends): the write must be visible as `blocked`."""
        params = {"source": rel.source, "type": rel.type, "target": rel.target}
        try:
            rows = self.tools.store.read("relationship_by_ends", params)
        except QueryFailed:
            return False
        mine = [r for r in rows if r["props"].get("route_id") == route_id]
        return bool(mine) and all(r["props"].get("status") == "blocked" for r in mine)

    def graph_only_routes(self) -> list[str]:
        """The AWS-backed routes this run blocked in the graph only (not applied on the account)."""
        return graph_only_in_run(self.run)

    def _no_path_state(self) -> RunState:
        """No qualifying path is left in the graph: `completed`, or `graph_only` when a block on an
        AWS-backed route is in the graph only (the account still lets the credentials in)."""
        return RunState.GRAPH_ONLY if self.graph_only_routes() else RunState.COMPLETED

    def _completed_reason(self) -> str:
        verified = sum(1 for a in self.run.actions if a.verified)
        if any(a.status == "applied" and not a.verified for a in self.run.actions):  # pragma: no cover - guarded above
            raise AssertionError("completed with an unverified action")
        reason = f"a fresh query found no qualifying path; {verified} verified action(s)"
        on_account = sum(1 for a in self.run.actions if a.aws and a.aws.applied_in_aws)
        graph_only = self.graph_only_routes()
        if on_account:
            reason += f"; {on_account} applied and verified on the AWS account"
        revoked = revoked_sessions(self.run.actions)
        if revoked:
            reason += f"; sessions issued before the revocation stopped (verified on the account): {', '.join(revoked)}"
        reason += self._issued_note()
        if graph_only:
            reason = (
                f"planned in the graph; the credentials still work on the account: not applied in AWS:"
                f" {', '.join(graph_only)} blocked in the graph only ({reason})"
            )
        return reason

    def abandon(self, reason: str) -> RunRecord:
        """End a run nobody will continue (its dashboard session ended or timed out)."""
        if self.run.state.terminal:
            return self.run
        remaining = self.latest.path_count if self.latest else None
        try:
            return self._finish(RunState.ABANDONED, reason, remaining)
        except AuditWriteFailed as exc:
            return self._audit_failed(exc)

    def interrupt(self, reason: str) -> RunRecord:
        """End the run `interrupted` because its process was told to stop (SIGINT, SIGTERM, SIGHUP).

        Best effort and never raising: if the audit cannot be written now, the next store to open
        finds the run of a gone process and ends it `interrupted` (`AuditLog.recover_interrupted`)."""
        if self.run.state.terminal:
            return self.run
        if self._pending is not None:  # applied, its step not yet written
            self.run.actions.append(self._pending)
            self._pending = None
        remaining = self.latest.path_count if self.latest else None
        try:
            return self._finish(RunState.INTERRUPTED, reason, remaining)
        except (AuditWriteFailed, QueryFailed):
            return self.run

    def end(self, reason: str = "the analyst ended the run") -> RunRecord:
        if self.run.state.terminal:
            return self.run
        remaining = self.latest.path_count if self.latest else None
        try:
            if remaining == 0 and self.run.actions:  # ended while offered revocations after the paths were cut
                return self._finish(self._no_path_state(), self._completed_reason(), 0)
            return self._finish(RunState.STOPPED, reason, remaining)
        except AuditWriteFailed as exc:
            return self._audit_failed(exc)


class ContainmentController:
    """Starts runs and drives them to a verdict."""

    def __init__(
        self, tools: ReadTools, actions: ActionService, audit: AuditLog, effector: AccountEffector | None = None
    ):
        self.tools = tools
        self.actions = actions
        self.audit = audit
        # The account responder (`respond/aws/responder.AccountResponder`) for AWS-backed routes, when configured.
        self.effector: AccountEffector | None = effector

    def start(
        self,
        alert_id: Any,
        decider: Any,
        max_actions: Any = DEFAULT_MAX_ACTIONS,
        confirm: Any = False,
        on_step: StepCallback | None = None,
        *,
        actor: str | None = None,
    ) -> RunSession:
        """Validate, record the run (with its actor and owning process), and take the initial investigation."""
        try:
            request = RunRequest(alert_id=alert_id, decider=decider, max_actions=max_actions, confirm=confirm)
        except ValidationError as exc:
            raise RunRefused(describe_input_error(exc)) from None
        if not request.confirm:
            raise RunRefused("a containment run needs explicit confirmation; nothing was done")
        try:
            who = check_actor(actor if actor is not None else local_actor())
        except ValueError as exc:
            raise RunRefused(str(exc)) from None
        run = RunRecord(
            actor=who,
            owner=this_process(),
            run_id=new_run_id(),
            alert_id=request.alert_id,
            decider=request.decider,
            max_actions=request.max_actions,
            state=RunState.RUNNING,
            reason="",
            started_at=_now(),
        )
        self.audit.create(run)  # a store that is gone already: QueryFailed, and no run exists
        session = RunSession(self, run, on_step)
        try:
            session._step(
                "start",
                f"run started by confirmation of {run.actor}: decider {run.decider}, cap {run.max_actions}",
                {"decider": run.decider, "max_actions": run.max_actions, "actor": run.actor},
            )
        except AuditWriteFailed as exc:
            session._audit_failed(exc)
        session.begin()
        return session

    def run(
        self,
        alert_id: Any,
        decider: Decider,
        max_actions: Any = DEFAULT_MAX_ACTIONS,
        confirm: Any = False,
        on_step: StepCallback | None = None,
        *,
        actor: str | None = None,
    ) -> RunRecord:
        """A whole run with one decider, until a terminal state."""
        session = self.start(alert_id, getattr(decider, "name", ""), max_actions, confirm, on_step, actor=actor)
        guard = 0
        try:
            while not session.run.state.terminal:
                session.advance(decider)
                guard += 1
                if guard > MAX_ACTIONS_LIMIT + 2:  # pragma: no cover - every advance acts or ends
                    session.end("internal guard: too many cycles")
        except KeyboardInterrupt as exc:  # SIGINT, or SIGTERM / SIGHUP as the command line raises them
            signal_name = str(exc) or "SIGINT"
            session.interrupt(f"interrupted by {signal_name}: the command running it was stopped")
            raise
        return session.run


class WaitingRuns:
    """Analyst runs waiting for a choice in a dashboard session, and how long each has waited.

    A run is abandoned when its session ends (`abandon`, called when the session's state
    is dropped) or when it waited longer than `limit_s` (`sweep`, called on every page
    render). The process stays alive, so store-open recovery would never end them."""

    def __init__(self, limit_s: float = ANALYST_WAIT_LIMIT_S):
        self.limit_s = limit_s
        self._runs: dict[str, tuple[RunSession, float]] = {}
        self._guard = threading.Lock()

    def wait(self, session: RunSession) -> None:
        """`session` now waits for the analyst (again): its clock restarts."""
        with self._guard:
            self._runs[session.run.run_id] = (session, time.monotonic())

    def done(self, run_id: str) -> None:
        with self._guard:
            self._runs.pop(run_id, None)

    def abandon(self, run_id: str, reason: str = "the dashboard session that was running it ended") -> bool:
        """End a waiting run `abandoned`; False if it was not waiting (finished, or unknown)."""
        with self._guard:
            entry = self._runs.pop(run_id, None)
        if entry is None or entry[0].run.state.terminal:
            return False
        entry[0].abandon(reason)
        return True

    def sweep(self) -> list[str]:
        """Abandon every run that waited longer than the limit; their ids."""
        now = time.monotonic()
        with self._guard:
            stale = [rid for rid, (_, since) in self._runs.items() if now - since > self.limit_s]
        limit = f"{self.limit_s:.0f} s"
        return [rid for rid in stale if self.abandon(rid, f"the analyst did not choose within {limit}")]
