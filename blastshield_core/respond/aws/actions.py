"""The account actions, one class per kind, registered by kind.

Each action declares what it needs on the account (`writes`: the respond profile's IAM
permissions; `reads`: the reads it makes with the read profile around them) and how it plans,
applies, verifies and releases. Plans and outcomes are the typed models of `results.account`.
The responder's documented policy (docs/aws-live.md) and `RESPONDER_WRITES` / `ACCOUNT_READS`
are derived from this registry, and a test holds every action's calls against moto to them.

Inline policies (the deny-all of a user, the revocation of a role's or a user's sessions) share one
apply/verify/release: put a document, re-read it, and on release put back the document it
replaced or delete it, refused when the live document is no longer the one BlastShield set.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar, Literal
from urllib.parse import unquote

from botocore import xform_name
from botocore.exceptions import BotoCoreError, ClientError

from ...results.account import (
    NOT_APPLIED,
    AccountActionKind,
    AccountCall,
    AccountCheck,
    AccountOutcome,
    AccountPlan,
    AccountRelease,
    AccountTarget,
)

__all__ = [
    "ACCOUNT_READS",
    "AWS_ERRORS",
    "DENY_ALL",
    "DENY_POLICY_NAME",
    "REGISTRY",
    "RESPONDER_WRITES",
    "REVOKE_POLICY_NAME",
    "USER_REVOKE_POLICY_NAME",
    "AccountAction",
    "AccountSessions",
    "DeactivateAccessKey",
    "DenyAllUserPolicy",
    "DriftRefused",
    "RevokeRoleSessions",
    "RevokeUserSessions",
    "action_for",
    "responder_policy",
    "revoke_document",
    "revoked_before",
]

AWS_ERRORS: tuple[type[BaseException], ...] = (ClientError, BotoCoreError)
NOT_CONFIGURED = "no respond profile is configured (BLASTSHIELD_AWS_RESPOND_PROFILE)"
DENY_POLICY_NAME = "BlastShieldDenyAll"
DENY_ALL = {
    "Version": "2012-10-17",
    "Statement": [{"Sid": "BlastShieldContainment", "Effect": "Deny", "Action": "*", "Resource": "*"}],
}
REVOKE_POLICY_NAME = "AWSRevokeOlderSessions"  # the name the console uses
USER_REVOKE_POLICY_NAME = "BlastShieldRevokeUserSessions"  # a user's: no console name, so one of its own
SHOWN_DOCUMENT = 400  # characters of an edited policy's document said in what changed


class DriftRefused(ValueError):
    """The live object is no longer what BlastShield set: a release would overwrite someone's change."""


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


def revoked_before(plan: AccountPlan) -> str:
    """The time before which a revocation plan's policy denies sessions (its `aws:TokenIssueTime`), or
    '' for a plan of another kind or a document without it."""
    if plan.kind not in (AccountActionKind.REVOKE_ROLE_SESSIONS, AccountActionKind.REVOKE_USER_SESSIONS):
        return ""
    try:
        document = json.loads(plan.calls[0].params["PolicyDocument"])
        return str(document["Statement"][0]["Condition"]["DateLessThan"]["aws:TokenIssueTime"])
    except (IndexError, KeyError, TypeError, ValueError):
        return ""


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class AccountSessions:
    """The boto3 sessions an action works with: `respond` writes (None: nothing is applied, "not
    applied in AWS"), `read` makes every read around the writes (the collect profile)."""

    respond: Any = None  # boto3.Session
    read: Any = None  # boto3.Session
    client_config: Any = None  # botocore.config.Config
    verify_tries: int = 6
    verify_pause_s: float = 0.25
    why_not_applied: str = NOT_CONFIGURED
    now: Callable[[], datetime] = field(default=_now)
    # Whether the account's slice can be re-collected and re-synced after a write: '' or why not
    # (a recorded collection of that account, and the collect profile to read it with).
    recollection: Callable[[str], str] | None = None

    @property
    def applies(self) -> bool:
        return self.respond is not None

    @property
    def reader(self) -> Any:
        return self.read if self.read is not None else self.respond

    def client(self, service: str, *, write: bool) -> Any:
        session = self.respond if write else self.reader
        return session.client(service, config=self.client_config) if self.client_config else session.client(service)

    def iam(self, *, write: bool = False) -> Any:
        return self.client("iam", write=write)

    def reads_within(self, check: Callable[[], bool]) -> bool:
        """`check()` holds within a bounded number of reads, waiting a little longer between each (IAM
        is eventually consistent); an AWS error on a read counts as a read that does not hold."""
        for attempt in range(self.verify_tries):
            try:
                if check():
                    return True
            except AWS_ERRORS:
                pass
            if attempt + 1 < self.verify_tries:
                time.sleep(self.verify_pause_s * (attempt + 1))
        return False


def refusal_text(refused: list[AccountCheck]) -> str:
    """Why nothing was written: every check that did not hold."""
    return "refused before any write: " + "; ".join(f"{c.name}: {c.detail}" for c in refused) + "; nothing was written"


def request_id(response: dict[str, Any]) -> str:
    return str(response.get("ResponseMetadata", {}).get("RequestId", ""))


def send(client: Any, call: AccountCall) -> dict[str, Any]:
    """Make `call` (`iam:UpdateAccessKey` is `client.update_access_key`) with its exact parameters."""
    return getattr(client, xform_name(call.api.split(":", 1)[1]))(**call.params)


# The state an action sets, as `live` reads it and `==` compares it: an access key's status, an inline
# policy's document; None for an object that is gone or absent.
AccountState = str | dict[str, Any] | None


class AccountAction(ABC):
    """One kind of action on an account: plan, apply, verify, release."""

    kind: ClassVar[AccountActionKind]
    principal: ClassVar[Literal["user", "role"]]
    writes: ClassVar[tuple[str, ...]]  # what the respond profile must be allowed
    reads: ClassVar[tuple[str, ...]]  # what the read profile must be allowed (plan, re-read, release check)
    what: ClassVar[str]  # the object it changes, for messages
    release_acknowledgement: ClassVar[str] = ""  # what a releaser must acknowledge first ('' for nothing)
    # Verified by re-collecting the principal's slice into the graph (a route's status comes from the
    # account), or by the API re-read alone (a revocation cuts no path).
    needs_recollection: ClassVar[bool] = True
    # What the respond profile reads before its first write: its own account. sts:GetCallerIdentity
    # needs no permission (AWS STS API Reference, "GetCallerIdentity": no permissions are required).
    respond_reads: ClassVar[tuple[str, ...]] = ("sts:GetCallerIdentity",)

    def __init__(self, sessions: AccountSessions):
        self.sessions = sessions

    # -- what each kind says ---------------------------------------------------------
    @abstractmethod
    def plan(self, route_id: str, target: AccountTarget, *, detail: str = "") -> AccountPlan:
        """The exact call, its side effects, its reversibility and the before-image read now. Reads only."""

    @abstractmethod
    def live(self, plan: AccountPlan) -> AccountState:
        """One read of the state this action sets (None: the object is gone or absent)."""

    @abstractmethod
    def set_state(self, plan: AccountPlan) -> AccountState:
        """The state the plan's call sets, as `live` reads it."""

    @abstractmethod
    def before_state(self, plan: AccountPlan) -> AccountState:
        """The state of the before-image, as `live` reads it."""

    @abstractmethod
    def restore_call(self, plan: AccountPlan) -> AccountCall:
        """The call that puts the before-image back."""

    @abstractmethod
    def drift(self, plan: AccountPlan, live: AccountState) -> str:
        """Why a release is refused when the live state is `live`, not what BlastShield set."""

    def read_back(self, plan: AccountPlan) -> str:
        return "set"

    def still_holds(self, plan: AccountPlan) -> tuple[bool | None, str]:
        """One read of what an applied plan set: (True, '') while it holds, (False, what changed) when
        the account no longer holds it (undone behind BlastShield's back), (None, why) when it
        cannot be read. Reads only."""
        if self.sessions.reader is None:
            return None, f"the {self.what} could not be read: {self.sessions.why_not_applied}, nor a collect profile"
        try:
            now = self.live(plan)
        except AWS_ERRORS as exc:
            return None, f"the {self.what} could not be read: {exc}"
        if now == self.set_state(plan):
            return True, ""
        return False, self.changed(plan, now)

    def changed(self, plan: AccountPlan, live: AccountState) -> str:
        """What the account holds instead of what BlastShield set (`live`, as `live` read it)."""
        return self.drift(plan, live).removesuffix(": someone else changed it; nothing was done")

    # -- shared ----------------------------------------------------------------------
    def _outcome(self, plan: AccountPlan, **values: Any) -> AccountOutcome:
        return AccountOutcome(applied_in_aws=plan.applied_in_aws, plan=plan, **values)

    def apply(self, plan: AccountPlan) -> AccountOutcome:
        """Make the plan's call, then re-read it. Never raises for an AWS error: the outcome says."""
        if plan.kind is not self.kind:
            raise ValueError(f"a {plan.kind.value} plan given to {self.kind.value}")
        if not plan.applied_in_aws or not self.sessions.applies:
            return self._outcome(plan, error=f"{NOT_APPLIED}: {plan.note}" if plan.note else NOT_APPLIED)
        if not plan.before_image:
            why = f" ({plan.read_error})" if plan.read_error else ""
            return self._outcome(plan, error=f"{plan.route_id} could not be read on the account{why}: nothing was done")
        # Every check again, right before the write: a plan's checklist is what held when it was made.
        refused = [c for c in self.checks(plan) if not c.ok]
        if refused:
            return self._outcome(plan, error=refusal_text(refused))
        call = plan.calls[0]
        try:
            response = send(self.sessions.iam(write=True), call)
        except AWS_ERRORS as exc:
            return self._outcome(plan, error=f"{call.api} failed: {exc}")
        verified = self.verify(plan)
        return self._outcome(
            plan,
            applied=True,
            request_id=request_id(response),
            api_verified=verified,
            read_back=self.read_back(plan) if verified else "not confirmed",
        )

    def verify(self, plan: AccountPlan) -> bool:
        """The live object reads what the plan set, within a short bounded retry."""
        want = self.set_state(plan)
        return self.sessions.reads_within(lambda: self.live(plan) == want)

    def release(self, plan: AccountPlan) -> AccountRelease:
        """Restore the before-image of an applied plan. Raises DriftRefused (nothing changed) when the
        live object is not what BlastShield set, or the call fails."""
        if not self.sessions.applies:
            raise DriftRefused(f"{self.sessions.why_not_applied}: the {self.what} cannot be restored from here")
        refused = [c for c in self.checks(plan) if not c.ok]  # a release writes too: the same checks first
        if refused:
            raise DriftRefused(refusal_text(refused))
        try:
            now = self.live(plan)
        except AWS_ERRORS as exc:
            raise DriftRefused(f"the {self.what} could not be read: {exc}; nothing was done") from None
        if now != self.set_state(plan):
            raise DriftRefused(self.drift(plan, now))
        call = self.restore_call(plan)
        try:
            response = send(self.sessions.iam(write=True), call)
        except AWS_ERRORS as exc:
            raise DriftRefused(f"{call.api} failed: {exc}; nothing was changed") from None
        want = self.before_state(plan)
        return AccountRelease(
            call=call,
            request_id=request_id(response),
            api_verified=self.sessions.reads_within(lambda: self.live(plan) == want),
        )

    # -- before the first write ---------------------------------------------------------
    def checks(self, plan: AccountPlan) -> list[AccountCheck]:
        """What must hold before this plan's call is sent, each read now: the target is the principal
        the collection names (account, ARN, unique id); the respond profile signs in to that account
        (sts:GetCallerIdentity); the live principal has that ARN and unique id (a principal deleted and
        recreated with the same name has another); and the write can be verified afterwards."""
        target = plan.target
        if target is None or not (target.account and target.arn and target.unique_id and target.name):
            why = plan.read_error or "the plan names no principal with its account, ARN and unique id"
            return [AccountCheck(name="target", ok=False, detail=f"{why}: nothing is written to an unnamed principal")]
        if target.principal != self.principal:
            return [AccountCheck(name="target", ok=False, detail=f"{target.label()} is not a {self.principal}")]
        checks = [
            AccountCheck(
                name="target", ok=True, detail=f"{target.arn} ({target.unique_id}) as collected in {target.account}"
            ),
            self._caller_check(target),
            self._live_check(target),
        ]
        if self.needs_recollection:
            why = (
                self.sessions.recollection(target.account)
                if self.sessions.recollection is not None
                else "no re-collection is configured"
            )
            checks.append(
                AccountCheck(
                    name="verification",
                    ok=not why,
                    detail=why or f"the slice of {target.name} can be re-collected from {target.account}",
                )
            )
        return checks

    def _caller_check(self, target: AccountTarget) -> AccountCheck:
        name = "respond profile's account"
        if not self.sessions.applies:
            return AccountCheck(name=name, ok=False, detail=self.sessions.why_not_applied)
        try:
            account = str(self.sessions.client("sts", write=True).get_caller_identity()["Account"])
        except AWS_ERRORS as exc:
            return AccountCheck(name=name, ok=False, detail=f"sts:GetCallerIdentity failed: {exc}")
        if account != target.account:
            return AccountCheck(
                name=name,
                ok=False,
                detail=f"the respond profile signs in to account {account}, not {target.account}, the target's",
            )
        return AccountCheck(name=name, ok=True, detail=f"signs in to {account}")

    def _live_check(self, target: AccountTarget) -> AccountCheck:
        name = "live principal"
        title = "User" if target.principal == "user" else "Role"
        try:
            got = getattr(self.sessions.iam(), f"get_{target.principal}")(**{f"{title}Name": target.name})[title]
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "NoSuchEntity":
                return AccountCheck(name=name, ok=False, detail=f"{target.arn} is gone from the account")
            return AccountCheck(name=name, ok=False, detail=f"iam:Get{title} {target.name} failed: {exc}")
        except BotoCoreError as exc:
            return AccountCheck(name=name, ok=False, detail=f"iam:Get{title} {target.name} failed: {exc}")
        arn, unique_id = str(got.get("Arn", "")), str(got.get(f"{title}Id", ""))
        if arn != target.arn:
            return AccountCheck(name=name, ok=False, detail=f"the live {target.principal} is {arn}, not {target.arn}")
        if unique_id != target.unique_id:
            return AccountCheck(
                name=name,
                ok=False,
                detail=f"{target.name} was recreated since collection: its unique id is {unique_id}, not"
                f" {target.unique_id}",
            )
        return AccountCheck(name=name, ok=True, detail=f"{arn} ({unique_id})")

    def _plan(self, route_id: str, target: AccountTarget, **values: Any) -> AccountPlan:
        return AccountPlan(
            route_id=route_id,
            account=target.account,
            user=target.name,
            kind=self.kind,
            applied_in_aws=self.sessions.applies,
            note="" if self.sessions.applies else self.sessions.why_not_applied,
            target=target,
            **values,
        )


REGISTRY: dict[AccountActionKind, type[AccountAction]] = {}


def register(cls: type[AccountAction]) -> type[AccountAction]:
    REGISTRY[cls.kind] = cls
    return cls


def action_for(kind: AccountActionKind | str, sessions: AccountSessions) -> AccountAction:
    """The registered action of this kind, over these sessions."""
    return REGISTRY[AccountActionKind(kind)](sessions)


@register
class DeactivateAccessKey(AccountAction):
    """An access key becomes `Inactive` (never deleted: IAM User Guide, "Managing access keys for IAM
    users"; AWS Security Incident Response Guide: deactivate first, keep it for the investigation)."""

    kind = AccountActionKind.DEACTIVATE_ACCESS_KEY
    principal = "user"
    writes = ("iam:UpdateAccessKey",)
    reads = ("iam:GetUser", "iam:ListAccessKeys")
    what = "access key"

    def _keys(self, user: str) -> dict[str, str]:
        pages = self.sessions.iam().get_paginator("list_access_keys").paginate(UserName=user)
        return {k["AccessKeyId"]: k["Status"] for page in pages for k in page.get("AccessKeyMetadata", [])}

    def plan(self, route_id: str, target: AccountTarget, *, detail: str = "") -> AccountPlan:
        key_id, user = target.access_key_id, target.name
        before: dict[str, Any] = {}
        read_error = ""
        if self.sessions.reader is not None and user:
            try:
                listed = self._keys(user)
            except AWS_ERRORS as exc:
                listed, read_error = {}, f"iam:ListAccessKeys for {user} failed: {exc}"
            if key_id and key_id in listed:
                before = {"kind": "access_key", "user": user, "access_key_id": key_id, "status": listed[key_id]}
            elif not read_error:
                read_error = (
                    f"access key {key_id} is not among {user}'s keys on the account now"
                    if key_id
                    else f"no access key id of {user} is known from the collection: none is guessed"
                )
        shown, user = key_id or "?", user or "?"
        return self._plan(
            route_id,
            target,
            calls=[AccountCall(api="iam:UpdateAccessKey",
                               params={"UserName": user, "AccessKeyId": shown, "Status": "Inactive"})],
            side_effects=[
                f"every request signed with access key {shown} fails; the user's other credentials"
                " (console password, other keys) keep working",
                "the key is not deleted: its secret stays valid for reactivation",
            ],
            stops=[f"new requests signed with access key {shown}, and new sessions requested with it"],
            # IAM User Guide, "Disabling permissions for temporary security credentials": temporary
            # credentials keep working until they expire; deactivating the key does not end them.
            leaves_standing=[
                f"sessions {user} already obtained with key {shown} through sts:GetSessionToken (up to 36 h)",
                f"role sessions already assumed with key {shown} (sts:AssumeRole, up to the role's maximum"
                " session duration, at most 12 h)",
            ],
            reversibility="exact (release sets the key back to its before-image status)",
            before_image=before,
            read_error=read_error,
        )  # fmt: skip

    def _user_and_key(self, plan: AccountPlan) -> tuple[str, str]:
        if plan.target is not None and plan.target.access_key_id:
            return plan.target.name, plan.target.access_key_id
        return str(plan.before_image["user"]), str(plan.before_image["access_key_id"])  # older records

    def live(self, plan: AccountPlan) -> str | None:
        user, key_id = self._user_and_key(plan)
        return self._keys(user).get(key_id)

    def set_state(self, plan: AccountPlan) -> str:
        return plan.calls[0].params["Status"]

    def before_state(self, plan: AccountPlan) -> str:
        return str(plan.before_image["status"])

    def read_back(self, plan: AccountPlan) -> str:
        return self.set_state(plan)

    def restore_call(self, plan: AccountPlan) -> AccountCall:
        user, key_id = self._user_and_key(plan)
        return AccountCall(
            api="iam:UpdateAccessKey",
            params={"UserName": user, "AccessKeyId": key_id, "Status": self.before_state(plan)},
        )

    def drift(self, plan: AccountPlan, live: AccountState) -> str:
        user, key_id = self._user_and_key(plan)
        state = "gone" if live is None else live
        return (
            f"access key {key_id} of {user} is {state} on the account, not {self.set_state(plan)} as"
            " BlastShield set it: someone else changed it; nothing was done"
        )


# How a session revocation (a role's or a user's) is undone.
REVOCATION_REVERSIBILITY = (
    "exact, with an acknowledgement (release deletes the policy, or restores the one it replaced, and so"
    " re-enables the sessions it stopped)"
)


class InlinePolicyAction(AccountAction):
    """An inline policy BlastShield puts on a user or a role, and takes back exactly."""

    policy_name: ClassVar[str]
    set_what: ClassVar[str]  # what the policy is, in a drift message

    def _title(self) -> str:
        return "User" if self.principal == "user" else "Role"

    def _name(self, plan: AccountPlan) -> str:
        if plan.target is not None:
            return plan.target.name
        return str(plan.before_image.get(self.principal) or plan.user)  # older records

    def document(self, name: str) -> dict[str, Any] | None:
        """The document of `name`'s inline policy of this action's name (None: absent)."""
        key = f"{self._title()}Name"
        get = getattr(self.sessions.iam(), f"get_{self.principal}_policy")
        try:
            document = get(**{key: name, "PolicyName": self.policy_name})["PolicyDocument"]
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "NoSuchEntity":
                return None
            raise
        return json.loads(unquote(document)) if isinstance(document, str) else document

    def policy_before(self, name: str, kind: str) -> tuple[dict[str, Any], str]:
        """The before-image of this action's policy on `name` (its document, or that there was none) and
        the read's failure; both empty without a read profile."""
        if self.sessions.reader is None or not name:
            return {}, ""
        try:
            document = self.document(name)
        except AWS_ERRORS as exc:
            return {}, f"iam:Get{self._title()}Policy {name} {self.policy_name} failed: {exc}"
        return {"kind": kind, self.principal: name, "policy_name": self.policy_name,
                "existed": document is not None, "document": document}, ""  # fmt: skip

    def put_call(self, name: str, document: dict[str, Any]) -> AccountCall:
        return AccountCall(
            api=f"iam:Put{self._title()}Policy",
            params={
                f"{self._title()}Name": name or "?",
                "PolicyName": self.policy_name,
                "PolicyDocument": json.dumps(document, sort_keys=True),
            },
        )

    def live(self, plan: AccountPlan) -> dict[str, Any] | None:
        return self.document(self._name(plan))

    def set_state(self, plan: AccountPlan) -> dict[str, Any]:
        return json.loads(plan.calls[0].params["PolicyDocument"])

    def before_state(self, plan: AccountPlan) -> dict[str, Any] | None:
        return plan.before_image.get("document") if plan.before_image.get("existed") else None

    def read_back(self, plan: AccountPlan) -> str:
        return f"{self.policy_name} present"

    def restore_call(self, plan: AccountPlan) -> AccountCall:
        name, before = self._name(plan), self.before_state(plan)
        if before is not None:
            return self.put_call(name, before)
        return AccountCall(
            api=f"iam:Delete{self._title()}Policy",
            params={f"{self._title()}Name": name, "PolicyName": self.policy_name},
        )

    def changed(self, plan: AccountPlan, live: AccountState) -> str:
        said = super().changed(plan, live)
        if live is None:
            return said
        now = json.dumps(live, sort_keys=True)
        return f"{said} (now: {now if len(now) <= SHOWN_DOCUMENT else now[:SHOWN_DOCUMENT] + '…'})"

    def drift(self, plan: AccountPlan, live: AccountState) -> str:
        state = "absent" if live is None else "a different document"
        whose = self._name(plan) if self.principal == "user" else f"role {self._name(plan)}"
        return (
            f"inline policy {self.policy_name} of {whose} is {state} on the account, not the {self.set_what}"
            " BlastShield set: someone else changed it; nothing was done"
        )


@register
class DenyAllUserPolicy(InlinePolicyAction):
    """A console password, or a user without a credential report: an explicit deny-all inline policy
    (an explicit Deny overrides every Allow: IAM "Policy evaluation logic"), exactly reversible; the
    login profile is kept."""

    kind = AccountActionKind.DENY_ALL_INLINE_POLICY
    principal = "user"
    writes = ("iam:PutUserPolicy", "iam:DeleteUserPolicy")
    reads = ("iam:GetUser", "iam:GetUserPolicy", "iam:GetLoginProfile")
    what = "user policy"
    policy_name = DENY_POLICY_NAME
    set_what = "deny-all"

    def _has_login_profile(self, user: str) -> bool:
        try:
            self.sessions.iam().get_login_profile(UserName=user)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "NoSuchEntity":
                return False
            raise
        return True

    def plan(self, route_id: str, target: AccountTarget, *, detail: str = "") -> AccountPlan:
        user = target.name
        before: dict[str, Any] = {}
        read_error = ""
        if self.sessions.reader is not None and user:
            try:
                document = self.document(user)
                before = {"kind": "inline_policy", "user": user, "policy_name": DENY_POLICY_NAME,
                          "document": document, "login_profile": self._has_login_profile(user),
                          "existed": document is not None}  # fmt: skip
            except AWS_ERRORS as exc:
                before, read_error = {}, f"reading {user}'s policy and login profile failed: {exc}"
        what = "console password" if detail == "console_password" else "credentials (no credential report)"
        return self._plan(
            route_id,
            target,
            calls=[self.put_call(user, DENY_ALL)],
            side_effects=[
                f"for the {what}: an explicit Deny of every action on every resource wins over every Allow,"
                f" so it also stops every access key of {user}, in the console and through the API",
                "role sessions the user assumed earlier keep the role's permissions until they expire",
                "the login profile is kept (removing it is not recommended: restoring it needs a new password)",
            ],
            stops=[
                f"every request of {user}: console, access keys, and the sessions {user} obtained through"
                " sts:GetSessionToken (they carry the user's permissions, and the Deny)"
            ],
            leaves_standing=[
                f"role sessions {user} already assumed: they carry the role's permissions, not the user's"
            ],
            reversibility="exact (release deletes the policy, or restores the document of that name it replaced)",
            before_image=before,
            read_error=read_error,
        )


@register
class RevokeRoleSessions(InlinePolicyAction):
    """The console's "Revoke active sessions" (IAM User Guide, "Revoking IAM role temporary security
    credentials"): an inline policy denying every action to sessions issued before now. It cuts no
    path: whoever may assume the role can do so again."""

    kind = AccountActionKind.REVOKE_ROLE_SESSIONS
    principal = "role"
    writes = ("iam:PutRolePolicy", "iam:DeleteRolePolicy")
    reads = ("iam:GetRole", "iam:GetRolePolicy")
    needs_recollection = False
    what = "role policy"
    policy_name = REVOKE_POLICY_NAME
    set_what = "revocation"
    release_acknowledgement = (
        "releasing a session revocation re-enables the role's sessions issued before it, stolen ones included"
    )

    def plan(self, route_id: str, target: AccountTarget, *, detail: str = "") -> AccountPlan:
        role = target.name
        issued_before = self.sessions.now().strftime("%Y-%m-%dT%H:%M:%SZ")
        before, read_error = self.policy_before(role, "role_policy")
        return self._plan(
            route_id,
            target,
            calls=[self.put_call(role, revoke_document(issued_before))],
            side_effects=[
                f"every session of role {role} issued before {issued_before} is denied every action"
                " (aws:TokenIssueTime earlier than the revocation), stolen ones and legitimate ones alike",
                f"sessions issued after it keep the role's permissions: whoever may assume {role} can do so"
                " again, so the role's qualifying paths remain",
                f"an earlier {REVOKE_POLICY_NAME} policy of the role is replaced (the before-image keeps it)",
            ],
            stops=[f"every session of role {role} issued before {issued_before}, stolen or not"],
            leaves_standing=[f"sessions of role {role} issued after the revocation"],
            reversibility=REVOCATION_REVERSIBILITY,
            before_image=before,
            read_error=read_error,
        )


@register
class RevokeUserSessions(InlinePolicyAction):
    """A user's own temporary credentials revoked: the sessions its access keys obtained through
    sts:GetSessionToken (or sts:GetFederationToken), which deactivating a key does not end (IAM User
    Guide, "Disabling permissions for temporary security credentials"). As the console's role
    revocation (IAM User Guide, "Revoking IAM role temporary security credentials"), an inline policy
    denies every action when `aws:TokenIssueTime` is earlier than now; that key is present only in
    requests signed with temporary credentials (IAM User Guide, "AWS global condition context keys"),
    so the user's access keys and console password are not stopped by it. It cuts no path."""

    kind = AccountActionKind.REVOKE_USER_SESSIONS
    principal = "user"
    writes = ("iam:PutUserPolicy", "iam:DeleteUserPolicy")
    reads = ("iam:GetUser", "iam:GetUserPolicy")
    needs_recollection = False
    what = "user policy"
    policy_name = USER_REVOKE_POLICY_NAME
    set_what = "session revocation"
    release_acknowledgement = (
        "releasing a session revocation re-enables the user's sessions issued before it, stolen ones included"
    )

    def plan(self, route_id: str, target: AccountTarget, *, detail: str = "") -> AccountPlan:
        user = target.name
        issued_before = self.sessions.now().strftime("%Y-%m-%dT%H:%M:%SZ")
        before, read_error = self.policy_before(user, "user_policy")
        return self._plan(
            route_id,
            target,
            calls=[self.put_call(user, revoke_document(issued_before))],
            side_effects=[
                f"every session {user} obtained through sts:GetSessionToken or sts:GetFederationToken before"
                f" {issued_before} is denied every action (aws:TokenIssueTime earlier than the revocation), stolen"
                " ones and legitimate ones alike",
                f"requests signed with {user}'s access keys or console password carry no aws:TokenIssueTime: this"
                " policy does not stop them (deactivating the key does)",
                f"sessions {user} obtains after it keep the user's permissions: while a key is active it can"
                " obtain new ones, so the user's qualifying paths remain",
                f"an earlier {USER_REVOKE_POLICY_NAME} policy of the user is replaced (the before-image keeps it)",
            ],
            stops=[
                f"every session {user} obtained through sts:GetSessionToken (or sts:GetFederationToken) before"
                f" {issued_before}, with any of its keys, stolen or not"
            ],
            leaves_standing=[
                f"role sessions {user} already assumed: they carry the role's permissions, not the user's"
                " (revoking the role's sessions stops them)",
                f"sessions {user} obtains after {issued_before}, and requests signed with its access keys",
            ],
            reversibility=REVOCATION_REVERSIBILITY,
            before_image=before,
            read_error=read_error,
        )


def _declared(attribute: str) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for cls in REGISTRY.values():
        seen.update(dict.fromkeys(getattr(cls, attribute)))
    return tuple(seen)


RESPONDER_WRITES = _declared("writes")  # the respond profile's whole policy (docs/aws-live.md)
ACCOUNT_READS = _declared("reads")  # the reads made with the read profile around those writes

_STATEMENT_IDS = {"user": "BlastShieldRespondUsers", "role": "BlastShieldRevokeRoleSessions"}


def responder_policy() -> dict[str, Any]:
    """The respond profile's minimal IAM policy, from the registry: each principal kind's writes on
    that kind of principal only (IAM's resource for a user's or role's operations is that user or
    role: Service Authorization Reference, "Actions defined by AWS Identity and Access Management").
    docs/aws-live.md shows exactly this document."""
    by_principal: dict[str, dict[str, None]] = {}
    for cls in REGISTRY.values():
        by_principal.setdefault(cls.principal, {}).update(dict.fromkeys(cls.writes))
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": _STATEMENT_IDS[principal],
                "Effect": "Allow",
                "Action": list(actions),
                "Resource": f"arn:aws:iam::*:{principal}/*",
            }
            for principal, actions in by_principal.items()
        ],
    }
