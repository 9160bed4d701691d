"""A containment run's second action kind: revoke sessions already issued on the account, a role's
(the alert's role, or a role on the alert user's paths) or a user's own (`candidate.action`).

The intent step with the plan and the before-image is in the run's audit before anything is called;
the call sits between its two `revoke_sessions` audit events (`revoke.revoke_with_audit`, as the
`revoke-sessions` command makes it, so `release` finds either); the policy is re-read through the
API; the graph is asked again. Verified on the account only: the graph has no session issue times,
and a revocation cuts no path, so it never completes a run by itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ...read.candidates import revocation_target
from ...results import RevocationCandidate, RunAction, RunRecord, RunState
from ...results.account import AccountOutcome
from .responder import AccountResponder
from .revoke import RevocationAuditFailed, revoke_with_audit

if TYPE_CHECKING:
    from ...graph.audit import AuditLog
    from ...read.tools import ReadTools
    from ...results import InvestigationResult, RunStep
    from ..effector import AccountEffector

__all__ = ["RunInProgress", "revoke_in_run"]


class _Controller(Protocol):
    @property
    def effector(self) -> AccountEffector | None: ...  # None: nothing is applied on the account

    @property
    def audit(self) -> AuditLog: ...


class RunInProgress(Protocol):
    """What a revocation step uses of the run it is taken in (`loop.RunSession` is one; this module
    cannot import it, as the controller imports this one): the run's record, read tools and latest
    evidence, its steps and verdict, and the action pending between the call and its audit."""

    run: RunRecord
    latest: InvestigationResult | None
    _decisions: int
    _pending: RunAction | None
    _revoked: dict[str, str]  # candidate id -> the role's or user's ARN, once revoked and verified

    @property
    def controller(self) -> _Controller: ...

    @property
    def tools(self) -> ReadTools: ...

    def _step(
        self, kind: str, summary: str, data: dict[str, Any] | None = None, mark: int | None = None
    ) -> RunStep: ...

    def _update_audit(self, step: RunStep) -> None: ...

    def _finish(self, state: RunState, reason: str, remaining: int | None) -> RunRecord: ...


def revoke_in_run(session: RunInProgress, candidate: RevocationCandidate) -> RunRecord:
    """Revoke `candidate` within the run `session` (a `loop.RunSession`, which calls this once its
    decider chose the candidate and the choice was re-validated against fresh candidates)."""
    tools = session.tools
    alert_id = session.run.alert_id
    # Without a configured responder nothing is applied: the plan says "not applied in AWS".
    effector = session.controller.effector or AccountResponder(tools.store)
    target = revocation_target(candidate)
    plan = effector.plan_revocation(target)
    operation = plan.kind.value  # revoke_role_sessions or revoke_user_sessions
    whose = f"{candidate.principal} {candidate.arn}"
    on_account = plan.applied_in_aws
    before = session.latest.path_count if session.latest is not None else None
    # Intent before effect: if this step cannot be written, nothing is called.
    session._step(
        "intent",
        f"about to {operation} of {whose} (candidate {candidate.id}) as {session.run.actor}"
        + (" on the AWS account" if on_account else f" ({plan.note}: not applied in AWS)"),
        {
            "operation": operation,
            "route_id": candidate.id,
            "candidate_id": candidate.id,
            "aws_plan": plan.to_dict(),
            "before_image": plan.before_image,
        },
    )
    requery: dict[str, Any] = {}

    def remaining() -> int | None:
        requery["mark"] = tools.tracer.mark()
        requery["after"] = after = tools.investigate_alert(alert_id)
        return after.path_count if after.status.is_answer else None

    try:
        payload = revoke_with_audit(
            effector, plan, target, session.controller.audit, graph=tools.store.settings.graph,
            actor=session.run.actor, alert_id=alert_id, remaining=remaining, run_id=session.run.run_id,
        )  # fmt: skip
    except RevocationAuditFailed as exc:
        return session._finish(RunState.FAILED, str(exc), None)
    account = AccountOutcome.model_validate(
        {key: payload[key] for key in AccountOutcome.model_fields if key in payload} | {"graph_verified": False}
    )
    applied = account.applied
    call = account.call
    api = call.api if call is not None else "the revocation"
    if on_account:
        session._step(
            "aws_call",
            f"{api} {candidate.role}: "
            + (
                f"request id {account.request_id}; re-read through the API: {account.read_back}"
                if applied
                else f"not applied ({account.error})"
            ),
            {"route_id": candidate.id, **account.model_dump(mode="json")},
        )
    status = "applied" if applied else ("failed" if on_account else "rejected")
    policy = call.params.get("PolicyName", "") if call is not None else ""
    reason = f"{api} {policy} on {whose} (request {account.request_id})" if applied else account.error
    action = RunAction(
        step=session._decisions,
        candidate_id=candidate.id,
        route_id=candidate.id,
        status=status,
        verified=False,
        paths_before=before,
        paths_after=None,
        reason=reason,
        applied=applied,
        api_verified=account.api_verified,
        graph_verified=False,
        aws=account,
        operation=operation,
    )
    if applied:
        session._pending = action
    session._step(
        "action",
        f"{operation} {candidate.id}: {status} ({reason})",
        {"operation": operation, "route_id": candidate.id, "status": status, "reason": reason},
    )
    if status == "failed":
        session._pending = None
        session.run.actions.append(action)
        return session._finish(RunState.FAILED, f"action failed: {reason}", None)
    after = requery["after"]  # asked by `revoke_with_audit` right after the call
    verified = applied and account.api_verified
    session._step(
        "requery",
        f"fresh investigation: {after.status.value}, {after.path_count} path(s) remain"
        + (f"; revocation verified on the account: {verified} (it cuts no path)" if applied else ""),
        {
            "status": after.status.value,
            "paths_before": before,
            "paths_after": after.path_count,
            "verified": verified,
            "remaining_paths": [list(p.node_ids) for p in after.paths[:20]],
            "fetched_by_controller": False,
        },
        requery["mark"],
    )
    session._pending = None
    action.verified = verified
    action.paths_after = after.path_count if after.status.is_answer else None
    session.run.actions.append(action)
    session._update_audit(session.run.steps[-1])
    if not after.status.is_answer:
        return session._finish(RunState.FAILED, f"re-query {after.status.value}: {after.message}", None)
    session.latest = after
    if applied and not verified:
        return session._finish(
            RunState.FAILED,
            f"the revocation {candidate.id} could not be verified on the account",
            after.path_count,
        )
    if not applied:
        return session._finish(RunState.STOPPED, f"action rejected: {reason}", after.path_count)
    session._revoked[candidate.id] = candidate.arn
    # No path left (a key deactivated earlier in the run cut them): the next cycle ends the run, or
    # first revokes what else the run's credentials issued.
    return session.run
