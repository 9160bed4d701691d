"""Revoking an AWS role's active sessions, as the console's "Revoke active sessions" does (and a
user's own sessions the same way: `actions.RevokeUserSessions`).

IAM User Guide, "Revoking IAM role temporary security credentials": the console attaches to the
role an inline policy named `AWSRevokeOlderSessions` that denies every action when
`aws:TokenIssueTime` is earlier than the moment of revocation. Sessions issued before it fail;
sessions issued after it keep the role's permissions (whoever may assume the role can still do
so), so a revocation stops stolen sessions and does not cut the role's qualifying paths.

The candidate comes from the server only: an alert whose entity is an imported AWS role
(`IAMRole`, `aws_kind: role`, with its ARN) has one, `revoke-sessions:ENTITY`. The plan names the
exact call and the before-image (whether a policy of that name existed and its document); the
call is verified by re-reading the role policy; release restores exactly the before-image, only
with an explicit acknowledgement that it re-enables the sessions the revocation stopped, and
refuses when the live policy is not the one BlastShield set.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...graph.store import QueryFailed
from ...read.candidates import REVOKE_PREFIX
from ...results.account import NOT_APPLIED, AccountPlan
from ..effector import AccountEffector
from .actions import REVOKE_POLICY_NAME, revoke_document

if TYPE_CHECKING:
    from ...graph.audit import AuditLog

__all__ = [
    "REVOKE_POLICY_NAME",
    "REVOKE_PREFIX",
    "RevocationAuditFailed",
    "revoke_document",
    "revoke_with_audit",
]


class RevocationAuditFailed(QueryFailed):
    """A `revoke_sessions` audit event could not be written (`called`: whether the call was made)."""

    def __init__(self, message: str, *, called: bool):
        super().__init__(message)
        self.called = called


REVOCATION_NOTE = (
    "a revocation stops sessions issued before it and does not cut the role's qualifying paths: whoever may"
    " assume the role can do so again, so this is not containment of the paths"
)
USER_REVOCATION_NOTE = (
    "a revocation stops the user's sessions issued before it and does not cut the user's qualifying paths: an"
    " active key can obtain new sessions, so this is not containment of the paths"
)


def revoke_with_audit(
    effector: AccountEffector,
    plan: AccountPlan,
    candidate: dict[str, Any],
    audit: AuditLog,
    *,
    graph: str,
    actor: str,
    alert_id: str,
    remaining: Callable[[], int | None],
    run_id: str | None = None,
) -> dict[str, Any]:
    """Apply a revocation plan between its two `revoke_sessions` audit events: the intent with the
    plan and the before-image before the call, then the outcome with the request id and the
    re-read. `remaining()` asks the graph again after the call. The command `revoke-sessions` and a
    containment run (`run_id`) both revoke through this, so `release` finds either one."""
    candidate_id = candidate["id"]
    whose = f"{candidate.get('principal') or 'role'} {candidate['arn']}"
    try:
        audit.add_event(
            "revoke_sessions",
            actor,
            f"{actor} is revoking the sessions of {whose} (alert {alert_id})"
            + ("" if plan.applied_in_aws else f": {plan.note}"),
            {"status": "intended", "alert_id": alert_id, "plan": plan.to_dict(), "before_image": plan.before_image,
             "aws": True},
            graph=graph,
            run_id=run_id or "",
            route_id=candidate_id,
        )  # fmt: skip
    except QueryFailed as exc:
        raise RevocationAuditFailed(
            f"the intent to revoke {candidate_id} could not be written to the audit ({exc}); nothing was called",
            called=False,
        ) from None
    outcome = effector.apply(plan)
    payload = {
        "status": "ok" if outcome.applied else "failed",
        "alert_id": alert_id,
        "candidate_id": candidate_id,
        "actor": actor,
        **outcome.model_dump(mode="json"),
        "graph_verified": False,
        "remaining_paths": remaining(),
        "note": USER_REVOCATION_NOTE if candidate.get("principal") == "user" else REVOCATION_NOTE,
    }
    if run_id is not None:
        payload["run_id"] = run_id
    if not plan.applied_in_aws:
        payload["note"] = f"{NOT_APPLIED}: {plan.note}; nothing was changed"
    try:
        audit.add_event(
            "revoke_sessions",
            actor,
            f"revocation of {whose}'s sessions: "
            + (f"applied (request {outcome.request_id}), re-read {outcome.read_back}" if outcome.applied
               else f"not applied ({outcome.error})"),
            {**payload, "status": "applied" if outcome.applied else "not_applied"},
            graph=graph,
            run_id=run_id or "",
            route_id=candidate_id,
        )  # fmt: skip
    except QueryFailed as exc:
        made = f"applied (request {outcome.request_id})" if outcome.applied else "not applied"
        raise RevocationAuditFailed(
            f"the outcome of revoking {candidate_id} could not be written to the audit ({exc}); the call was"
            f" {made}: the intent with the before-image is in the audit",
            called=outcome.applied,
        ) from None
    return payload
