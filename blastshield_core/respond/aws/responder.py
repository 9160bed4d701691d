"""Containment on the AWS account: plan, act through the API, verify by re-reading, release.

A route whose session stands for an AWS credential (`aws_kind` `access_key`, `console_password` or
`credential`, imported from a collection) is contained on the account by one of the registered
account actions (`actions.py`): an access key becomes `Inactive` (`DeactivateAccessKey`); a console
password, or a user without a credential report, gets the deny-all inline policy
(`DenyAllUserPolicy`). A session revocation of a role (`RevokeRoleSessions`), or of a user's own
sessions (`RevokeUserSessions`), is planned through the same responder (`plan_revocation`). The
steps, each in the run's audit:

1. plan: the exact call, its side effects and its reversibility; the before-image read now;
2. intent (with the plan and the before-image) before the call; the AWS request id after it;
3. `api_verified`: the object reads what was set through the API (a short bounded retry: IAM is
   eventually consistent);
4. the principal's slice is re-collected and re-synced through the import path (`resync`, given
   by the command line: this folder may not import sources); the route's status then comes from
   the account;
5. `graph_verified`: the controller asks the graph again.

Without a respond session (`BLASTSHIELD_AWS_RESPOND_PROFILE`), nothing is changed in AWS: the
route is blocked in the graph only and every plan, action and verdict says "not applied in AWS".
Release restores exactly the before-image, and refuses when the live object is no longer what
BlastShield set.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...graph.store import QueryFailed, Store
from ...read.candidates import REVOKE_PREFIX
from ...results.account import (
    NOT_APPLIED,
    AccountActionKind,
    AccountOutcome,
    AccountPlan,
    AccountRelease,
    AccountTarget,
)
from .actions import (
    ACCOUNT_READS,
    REGISTRY,
    RESPONDER_WRITES,
    AccountAction,
    AccountSessions,
    DriftRefused,
    action_for,
)

__all__ = [
    "ACCOUNT_READS",
    "NOT_APPLIED",
    "RESPONDER_WRITES",
    "AccountPlan",
    "AccountResponder",
    "DriftRefused",
    "release_needs_acknowledgement",
]

AWS_SESSION_KINDS = frozenset({"access_key", "console_password", "credential"})


def release_needs_acknowledgement(kind: AccountActionKind | str) -> str:
    """What the releaser must acknowledge before an action of this kind is released ('' for nothing)."""
    return REGISTRY[AccountActionKind(kind)].release_acknowledgement


# Who a principal is, from the recorded collection of its account: (account, "user" or "role", full
# ARN) -> the target (name, ARN, unique id) and, for a user, the access key ids `list-access-keys`
# gave for exactly that user; or why it is not known. Given by the command line (this folder may not
# read sources).
Identify = Callable[[str, str, str], "tuple[AccountTarget, tuple[str, ...]] | str"]


class AccountResponder:
    """Plans, applies, verifies and releases account actions for AWS-backed routes and role revocations."""

    def __init__(
        self,
        store: Store,
        sessions: AccountSessions | None = None,
        *,
        resync: Callable[[str, str], str] | None = None,
        identify: Identify | None = None,
        sessions_for: Callable[[str], AccountSessions] | None = None,
    ):
        self.store = store
        self.sessions = sessions or AccountSessions()
        self.resync_slice = resync
        self.identify = identify
        # Several accounts: the sessions of each target's account (an account without a respond
        # profile gets none: graph only, never another account's credentials). None: `sessions` for all.
        self.sessions_for = sessions_for

    @property
    def applies(self) -> bool:
        return self.sessions.applies or self.sessions_for is not None

    def _sessions(self, account: str) -> AccountSessions:
        return self.sessions_for(account) if self.sessions_for is not None else self.sessions

    def _action(self, kind: AccountActionKind | str, account: str) -> AccountAction:
        return action_for(kind, self._sessions(account))

    # -- plan ------------------------------------------------------------------------
    def session_props(self, route_id: str) -> dict[str, Any] | None:
        """The properties of an AWS-backed session route's session node, else None."""
        try:
            rows = self.store.read("entity_by_id", {"id": route_id})
        except QueryFailed:
            return None
        if not rows or "Session" not in rows[0]["labels"]:
            return None
        props = rows[0]["props"]
        return props if props.get("aws_kind") in AWS_SESSION_KINDS and props.get("arn") else None

    def target(self, account: str, principal: str, arn: str) -> tuple[AccountTarget, tuple[str, ...], str]:
        """The principal as the collection names it, its listed key ids, and '' or why it is not known
        (then the target carries the account and ARN only, and every check refuses)."""
        unknown = AccountTarget(account=account, principal="user" if principal == "user" else "role", name="", arn=arn)
        if self.identify is None:
            return unknown, (), "no collection is configured to name the principal from"
        found = self.identify(account, principal, arn)
        if isinstance(found, str):
            return unknown, (), found
        return found[0], found[1], ""

    def _checked(self, plan: AccountPlan, why_unknown: str) -> AccountPlan:
        """The plan with its checklist (only when it would be applied: a graph-only plan writes nothing)."""
        if why_unknown and not plan.read_error:
            plan.read_error = why_unknown
        if plan.applied_in_aws:
            plan.checks = self._action(plan.kind, plan.account).checks(plan)
        return plan

    def plan(self, route_id: str) -> AccountPlan | None:
        """The plan for an AWS-backed route (None for any other route). Reads only."""
        props = self.session_props(route_id)
        if props is None:
            return None
        account = str(props.get("account", ""))
        target, keys, why = self.target(account, "user", str(props["arn"]))
        kind = str(props.get("aws_kind"))
        key_id = str(props.get("access_key_id") or "")
        if kind == "access_key" and key_id and (key_id in keys or why):  # unknown principal: refused below
            target = target.model_copy(update={"access_key_id": key_id})
            plan = self._action(AccountActionKind.DEACTIVATE_ACCESS_KEY, account).plan(route_id, target)
            return self._checked(plan, why)
        plan = self._action(AccountActionKind.DENY_ALL_INLINE_POLICY, account).plan(route_id, target, detail=kind)
        if kind == "access_key" and not why:
            # A key id is never guessed: only one `list-access-keys` gave for exactly this user is used.
            unknown = (
                f"access key {key_id} is not among the keys the collection lists for {target.arn}"
                if key_id
                else f"no access key id of {target.arn} is known from the collection's list-access-keys"
            )
            plan.side_effects.insert(
                0, f"{unknown}: none is guessed; instead the deny-all policy stops every credential of {target.name}"
            )
        return self._checked(plan, why)

    def plan_revocation(self, candidate: dict[str, Any]) -> AccountPlan:
        """The plan revoking the sessions of the role, or the user's own sessions, a revocation
        candidate names (its `principal`). Reads only."""
        account = str(candidate["account"])
        user = candidate.get("principal") == "user"
        kind = AccountActionKind.REVOKE_USER_SESSIONS if user else AccountActionKind.REVOKE_ROLE_SESSIONS
        target, _, why = self.target(account, "user" if user else "role", str(candidate.get("arn") or ""))
        plan = self._action(kind, account).plan(candidate["id"], target)
        return self._checked(plan, why)

    def principal_of(self, candidate_id: str) -> AccountTarget | str:
        """The principal a candidate id aims at as the graph and the collection name it now (account,
        full ARN, unique id): a credential route's user, or a revocation's role; or why not known."""
        if candidate_id.startswith(REVOKE_PREFIX):
            try:
                rows = self.store.read("entity_by_id", {"id": candidate_id.removeprefix(REVOKE_PREFIX)})
            except QueryFailed as exc:
                return f"the graph could not be read: {exc}"
            labels = rows[0]["labels"] if rows else []
            # A role's revocation, or a user's own sessions revoked (the user's Identity).
            principal = "user" if "Identity" in labels else "role"
            props = rows[0]["props"] if rows and ("IAMRole" in labels or "Identity" in labels) else None
        else:
            props = self.session_props(candidate_id)
            principal = "user"
        if props is None or not props.get("arn"):
            return f"{candidate_id} names no AWS principal in the graph"
        target, _, why = self.target(str(props.get("account", "")), principal, str(props["arn"]))
        if why:
            return why
        return target.model_copy(update={"access_key_id": str(props.get("access_key_id") or "")})

    # -- act -------------------------------------------------------------------------
    def apply(self, plan: AccountPlan) -> AccountOutcome:
        """Make the plan's call, then re-read it. Never raises for an AWS error: the outcome says."""
        return self._action(plan.kind, plan.account).apply(plan)

    def resync(self, plan: AccountPlan) -> str:
        """Re-collect the principal's slice and re-sync it through the import path; '' or why not."""
        if self.resync_slice is None:
            return "no re-sync is configured"
        return self.resync_slice(plan.account, plan.user)

    def still_holds(self, plan: AccountPlan) -> tuple[bool | None, str]:
        """Whether the account still holds what an applied plan set (`AccountAction.still_holds`). Reads only."""
        return self._action(plan.kind, plan.account).still_holds(plan)

    # -- release ---------------------------------------------------------------------
    def release(self, plan: AccountPlan) -> AccountRelease:
        """Restore the before-image of an applied plan. Raises DriftRefused when the live object is
        not what BlastShield set; the outcome carries the request id and the re-read."""
        return self._action(plan.kind, plan.account).release(plan)
