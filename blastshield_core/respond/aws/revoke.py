"""Revoking an AWS role's active sessions, as the console's "Revoke active sessions" does.

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

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from ...graph.store import QueryFailed
from ...read.candidates import REVOKE_PREFIX, revocation_candidates
from .responder import (
    NOT_APPLIED,
    AccountPlan,
    DriftRefused,
    _aws_errors,
    _request_id,
    inline_policy,
    reads_within,
    restore_inline_policy,
)

__all__ = [
    "REVOKE_POLICY_NAME",
    "REVOKE_PREFIX",
    "RevocationAuditFailed",
    "RoleRevoker",
    "revocation_candidates",
    "revoke_document",
    "revoke_with_audit",
]

REVOKE_POLICY_NAME = "AWSRevokeOlderSessions"  # the name the console uses
REVOKER_WRITES = ("iam:PutRolePolicy", "iam:DeleteRolePolicy")


def revoke_document(issued_before: str) -> dict[str, Any]:
    """The console's revocation policy: deny everything to sessions issued before `issued_before`."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Deny",
                "Action": ["*"],
                "Resource": ["*"],
                "Condition": {"DateLessThan": {"aws:TokenIssueTime": issued_before}},
            }
        ],
    }


class RoleRevoker:
    """Plans, applies, verifies and releases a role session revocation on the account."""

    def __init__(
        self,
        *,
        respond_session: Any = None,
        read_session: Any = None,
        client_config: Any = None,
        verify_tries: int = 6,
        verify_pause_s: float = 0.25,
        why_not_applied: str = "no respond profile is configured (BLASTSHIELD_AWS_RESPOND_PROFILE)",
        now: Any = None,
    ):
        self.respond_session = respond_session
        self.read_session = read_session or respond_session
        self.client_config = client_config
        self.verify_tries = verify_tries
        self.verify_pause_s = verify_pause_s
        self.why_not_applied = why_not_applied
        self._now = now or (lambda: datetime.now(UTC))

    @classmethod
    def for_responder(cls, effector: Any) -> RoleRevoker:
        """A revoker with the account responder's sessions (none: nothing applies, "not applied in AWS")."""
        if effector is None:
            return cls()
        return cls(
            respond_session=effector.respond_session,
            read_session=effector.read_session,
            client_config=effector.client_config,
            why_not_applied=effector.why_not_applied,
        )

    @property
    def applies(self) -> bool:
        return self.respond_session is not None

    def _iam(self, session: Any) -> Any:
        return session.client("iam", config=self.client_config) if self.client_config else session.client("iam")

    @staticmethod
    def _role_policy(iam: Any, role: str) -> dict[str, Any] | None:
        return inline_policy(iam, "role", role, REVOKE_POLICY_NAME)

    def plan(self, candidate: dict[str, Any]) -> AccountPlan:
        """The exact call (the revocation time is now, to the second) and the before-image. Reads only."""
        role = candidate["role"]
        issued_before = self._now().strftime("%Y-%m-%dT%H:%M:%SZ")
        before: dict[str, Any] = {}
        read_error = ""
        if self.read_session is not None:
            try:
                document = self._role_policy(self._iam(self.read_session), role)
            except _aws_errors() as exc:
                read_error = f"iam:GetRolePolicy {role} {REVOKE_POLICY_NAME} failed: {exc}"
            else:
                before = {
                    "kind": "role_policy",
                    "role": role,
                    "policy_name": REVOKE_POLICY_NAME,
                    "existed": document is not None,
                    "document": document,
                }
        return AccountPlan(
            route_id=candidate["id"],
            account=candidate["account"],
            user=role,
            kind="revoke_role_sessions",
            applied_in_aws=self.applies,
            calls=[
                {
                    "api": "iam:PutRolePolicy",
                    "params": {
                        "RoleName": role,
                        "PolicyName": REVOKE_POLICY_NAME,
                        "PolicyDocument": json.dumps(revoke_document(issued_before), sort_keys=True),
                    },
                }
            ],
            side_effects=[
                f"every session of role {role} issued before {issued_before} is denied every action"
                " (aws:TokenIssueTime earlier than the revocation), stolen ones and legitimate ones alike",
                f"sessions issued after it keep the role's permissions: whoever may assume {role} can do so"
                " again, so the role's qualifying paths remain",
                f"an earlier {REVOKE_POLICY_NAME} policy of the role is replaced (the before-image keeps it)",
            ],
            reversibility=(
                "exact, with an acknowledgement (release deletes the policy, or restores the one it replaced,"
                " and so re-enables the sessions it stopped)"
            ),
            before_image=before,
            note="" if self.applies else self.why_not_applied,
            read_error=read_error,
        )

    def _reads(self, role: str, document: dict[str, Any] | None) -> bool:
        return reads_within(
            self.verify_tries,
            self.verify_pause_s,
            lambda: self._role_policy(self._iam(self.read_session), role) == document,
        )

    def apply(self, plan: AccountPlan) -> dict[str, Any]:
        """Put the revocation policy, then re-read it. Never raises for an AWS error."""
        from botocore.exceptions import BotoCoreError, ClientError

        outcome: dict[str, Any] = {"applied": False, "api_verified": False, "request_id": "", "error": ""}
        if not plan.applied_in_aws:
            outcome["error"] = f"{NOT_APPLIED}: {plan.note}"
            return outcome
        if not plan.before_image:
            why = f" ({plan.read_error})" if plan.read_error else ""
            outcome["error"] = f"role {plan.user} could not be read on the account{why}: nothing was done"
            return outcome
        params = plan.calls[0]["params"]
        try:
            response = self._iam(self.respond_session).put_role_policy(**params)
        except (ClientError, BotoCoreError) as exc:
            outcome["error"] = f"iam:PutRolePolicy failed: {exc}"
            return outcome
        outcome["applied"] = True
        outcome["request_id"] = _request_id(response)
        outcome["api_verified"] = self._reads(plan.user, json.loads(params["PolicyDocument"]))
        outcome["read_back"] = f"{REVOKE_POLICY_NAME} present" if outcome["api_verified"] else "not confirmed"
        return outcome

    def release(self, plan: dict[str, Any]) -> dict[str, Any]:
        """Restore the before-image. Raises DriftRefused when the live policy is not what BlastShield
        set (the caller must have the releaser's acknowledgement before calling this)."""
        from botocore.exceptions import BotoCoreError, ClientError

        if not self.applies:
            raise DriftRefused(f"{self.why_not_applied}: the role policy cannot be restored from here")
        before = plan["before_image"]
        role = before["role"]
        set_to = json.loads(plan["calls"][0]["params"]["PolicyDocument"])
        now = self._role_policy(self._iam(self.read_session), role)
        if now != set_to:
            state = "absent" if now is None else "a different document"
            raise DriftRefused(
                f"inline policy {REVOKE_POLICY_NAME} of role {role} is {state} on the account, not the"
                " revocation BlastShield set: someone else changed it; nothing was done"
            )
        try:
            done = restore_inline_policy(self._iam(self.respond_session), "role", role, REVOKE_POLICY_NAME, before)
        except (ClientError, BotoCoreError) as exc:
            raise DriftRefused(f"restoring {REVOKE_POLICY_NAME} failed: {exc}; nothing was changed") from None
        return {
            "call": {"api": done["api"], "params": done["params"]},
            "request_id": _request_id(done["response"]),
            "api_verified": self._reads(role, before["document"] if before.get("existed") else None),
        }


class RevocationAuditFailed(QueryFailed):
    """A `revoke_sessions` audit event could not be written (`called`: whether the call was made)."""

    def __init__(self, message: str, *, called: bool):
        super().__init__(message)
        self.called = called


REVOCATION_NOTE = (
    "a revocation stops sessions issued before it and does not cut the role's qualifying paths: whoever may"
    " assume the role can do so again, so this is not containment of the paths"
)


def revoke_with_audit(
    revoker: RoleRevoker,
    plan: AccountPlan,
    candidate: dict[str, Any],
    audit: Any,
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
    try:
        audit.add_event(
            "revoke_sessions",
            actor,
            f"{actor} is revoking the sessions of role {candidate['arn']} (alert {alert_id})"
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
    outcome = revoker.apply(plan)
    payload = {
        "status": "ok" if outcome["applied"] else "failed",
        "alert_id": alert_id,
        "candidate_id": candidate_id,
        "actor": actor,
        "applied_in_aws": plan.applied_in_aws,
        "plan": plan.to_dict(),
        **outcome,
        "graph_verified": False,
        "remaining_paths": remaining(),
        "note": REVOCATION_NOTE,
    }
    if run_id is not None:
        payload["run_id"] = run_id
    if not plan.applied_in_aws:
        payload["note"] = f"{NOT_APPLIED}: {plan.note}; nothing was changed"
    try:
        audit.add_event(
            "revoke_sessions",
            actor,
            f"revocation of role {candidate['arn']}'s sessions: "
            + (f"applied (request {outcome['request_id']}), re-read {outcome.get('read_back')}" if outcome["applied"]
               else f"not applied ({outcome['error']})"),
            {**payload, "status": "applied" if outcome["applied"] else "not_applied"},
            graph=graph,
            run_id=run_id or "",
            route_id=candidate_id,
        )  # fmt: skip
    except QueryFailed as exc:
        made = f"applied (request {outcome['request_id']})" if outcome["applied"] else "not applied"
        raise RevocationAuditFailed(
            f"the outcome of revoking {candidate_id} could not be written to the audit ({exc}); the call was"
            f" {made}: the intent with the before-image is in the audit",
            called=bool(outcome["applied"]),
        ) from None
    return payload
