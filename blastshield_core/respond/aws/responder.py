"""Containment on the AWS account: plan, act through the API, verify by re-reading, release.

A route whose session stands for an AWS access key (`aws_kind: access_key`, imported from a
collection) is contained on the account: the key becomes `Inactive` (never deleted; AWS's
"Managing access keys" and the Security Incident Response Guide: deactivate first, so the key
can be reactivated if it was not compromised). The steps, each in the run's audit:

1. plan: the exact call with the key id that `iam:ListAccessKeys` lists now, its side effects and
   its reversibility; the before-image is the key's status read now;
2. intent (with the plan and the before-image) before the call; the AWS request id after it;
3. `api_verified`: the key reads `Inactive` through the API (a short bounded retry: IAM is
   eventually consistent);
4. the principal's slice is re-collected and re-synced through the import path (`resync`, given
   by the command line: this folder may not import sources); the route's status then comes from
   the account;
5. `graph_verified`: the controller asks the graph again.

Without a respond session (`BLASTSHIELD_AWS_RESPOND_PROFILE`), nothing is changed in AWS: the
route is blocked in the graph only and every plan, action and verdict says "not applied in AWS".
Release restores exactly the before-image, and refuses when the live key is no longer what
BlastShield set.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import unquote

from ...graph.store import QueryFailed, Store

__all__ = [
    "ACCOUNT_READS",
    "NOT_APPLIED",
    "RESPONDER_WRITES",
    "AccountPlan",
    "AccountResponder",
    "DriftRefused",
    "release_needs_acknowledgement",
]

NOT_APPLIED = "not applied in AWS"
RESPONDER_WRITES = (
    "iam:UpdateAccessKey",
    "iam:PutUserPolicy",
    "iam:DeleteUserPolicy",
    "iam:PutRolePolicy",  # role session revocation (respond/aws/revoke.py)
    "iam:DeleteRolePolicy",
)
# The reads around those writes (a plan's before-image, the re-read after a call, the check before a
# release), all made with the read session: the collect profile (docs/aws-live.md, its policy).
ACCOUNT_READS = ("iam:ListAccessKeys", "iam:GetUserPolicy", "iam:GetLoginProfile", "iam:GetRolePolicy")
DENY_POLICY_NAME = "BlastShieldDenyAll"
DENY_ALL = {
    "Version": "2012-10-17",
    "Statement": [{"Sid": "BlastShieldContainment", "Effect": "Deny", "Action": "*", "Resource": "*"}],
}
AWS_SESSION_KINDS = frozenset({"access_key", "console_password", "credential"})
VERIFY_TRIES = 6
VERIFY_PAUSE_S = 0.25


class DriftRefused(ValueError):
    """The live object is no longer what BlastShield set: a release would overwrite someone's change."""


@dataclass
class AccountPlan:
    """What containing one route does on the account, before anything is done."""

    route_id: str
    account: str
    user: str
    kind: str  # deactivate_access_key | none
    applied_in_aws: bool
    calls: list[dict[str, Any]] = field(default_factory=list)
    side_effects: list[str] = field(default_factory=list)
    reversibility: str = ""
    before_image: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    read_error: str = ""  # the account could not be read for the before-image: nothing will be called

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def text(self) -> str:
        graph_only = "nothing is changed" if self.kind == "revoke_role_sessions" else "graph only"
        head = f"{self.route_id}: " + (
            "on the account" if self.applied_in_aws else f"{NOT_APPLIED} ({graph_only}): {self.note}"
        )
        lines = [head]
        for call in self.calls:
            params = ", ".join(f"{k}={v}" for k, v in call["params"].items())
            lines.append(f"    call {call['api']}({params})")
        lines += [f"    side effect: {s}" for s in self.side_effects]
        if self.reversibility:
            lines.append(f"    reversibility: {self.reversibility}")
        if self.before_image:
            lines.append(f"    before-image: {self.before_image}")
        if self.read_error:
            lines.append(f"    before-image not read, nothing would be called: {self.read_error}")
        return "\n".join(lines)


def release_needs_acknowledgement(plan: dict[str, Any]) -> str:
    """What the releaser must acknowledge before this plan's action is released ('' for nothing)."""
    if plan.get("kind") == "revoke_role_sessions":
        return "releasing a session revocation re-enables the role's sessions issued before it, stolen ones included"
    return ""


def _aws_errors() -> tuple[type[BaseException], ...]:
    """What a refused or failed AWS call raises (botocore is imported only when AWS is used)."""
    from botocore.exceptions import BotoCoreError, ClientError

    return (ClientError, BotoCoreError)


def _request_id(response: dict[str, Any]) -> str:
    return str(response.get("ResponseMetadata", {}).get("RequestId", ""))


# An inline policy of a user or of a role: the same calls with the principal's kind in their names.
_INLINE = {
    "user": ("UserName", "get_user_policy", "put_user_policy", "delete_user_policy", "User"),
    "role": ("RoleName", "get_role_policy", "put_role_policy", "delete_role_policy", "Role"),
}


def inline_policy(iam: Any, kind: str, name: str, policy_name: str) -> dict[str, Any] | None:
    """The document of the `kind` ("user" or "role") `name`'s inline policy `policy_name` (None: absent)."""
    from botocore.exceptions import ClientError

    key, get, _, _, _ = _INLINE[kind]
    try:
        document = getattr(iam, get)(**{key: name, "PolicyName": policy_name})["PolicyDocument"]
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") == "NoSuchEntity":
            return None
        raise
    return json.loads(unquote(document)) if isinstance(document, str) else document


def restore_inline_policy(iam: Any, kind: str, name: str, policy_name: str, before: dict[str, Any]) -> dict[str, Any]:
    """Put back the before-image of an inline policy BlastShield set: the document it replaced, or
    none. The call made, with its parameters, and the response; AWS's errors are raised."""
    key, _, put, delete, title = _INLINE[kind]
    if before.get("existed"):
        params = {
            key: name,
            "PolicyName": policy_name,
            "PolicyDocument": json.dumps(before["document"], sort_keys=True),
        }
        return {"api": f"iam:Put{title}Policy", "params": params, "response": getattr(iam, put)(**params)}
    params = {key: name, "PolicyName": policy_name}
    return {"api": f"iam:Delete{title}Policy", "params": params, "response": getattr(iam, delete)(**params)}


def reads_within(tries: int, pause_s: float, check: Callable[[], bool]) -> bool:
    """`check()` holds within `tries` reads, waiting a little longer between each (IAM is eventually
    consistent); an AWS error on a read counts as a read that does not hold."""
    from botocore.exceptions import BotoCoreError, ClientError

    for attempt in range(tries):
        try:
            if check():
                return True
        except (ClientError, BotoCoreError):
            pass
        if attempt + 1 < tries:
            time.sleep(pause_s * (attempt + 1))
    return False


class AccountResponder:
    """Plans, applies, verifies and releases account actions for AWS-backed routes."""

    def __init__(
        self,
        store: Store,
        *,
        respond_session: Any = None,
        read_session: Any = None,
        resync: Callable[[str, str], str] | None = None,
        client_config: Any = None,
        verify_tries: int = VERIFY_TRIES,
        verify_pause_s: float = VERIFY_PAUSE_S,
        why_not_applied: str = "no respond profile is configured (BLASTSHIELD_AWS_RESPOND_PROFILE)",
    ):
        self.store = store
        self.respond_session = respond_session
        self.read_session = read_session or respond_session
        self.resync_slice = resync
        self.client_config = client_config
        self.verify_tries = verify_tries
        self.verify_pause_s = verify_pause_s
        self.why_not_applied = why_not_applied

    @property
    def applies(self) -> bool:
        return self.respond_session is not None

    def _iam(self, session: Any) -> Any:
        return session.client("iam", config=self.client_config) if self.client_config else session.client("iam")

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

    def plan(self, route_id: str) -> AccountPlan | None:
        """The plan for an AWS-backed route (None for any other route). Reads only."""
        props = self.session_props(route_id)
        if props is None:
            return None
        user = str(props["arn"]).rsplit("/", 1)[-1]
        account = str(props.get("account", ""))
        if props.get("aws_kind") != "access_key":
            return self._deny_all_plan(route_id, account, user, str(props.get("aws_kind")))
        key_id = str(props.get("access_key_id") or "")
        before: dict[str, Any] = {}
        session = self.read_session
        read_error = ""
        try:
            live = self._keys_for(session, user) if session is not None else []
        except _aws_errors() as exc:
            live, read_error = [], f"iam:ListAccessKeys for {user} failed: {exc}"
        if session is not None:
            listed = {k["AccessKeyId"]: k for k in live}
            if not key_id and live:  # no id collected: the key in the route's place in creation order
                ordered = sorted(live, key=lambda k: (str(k.get("CreateDate")), k["AccessKeyId"]))
                index = int(route_id.rsplit("-", 1)[-1]) - 1 if route_id[-1:].isdigit() else 0
                key_id = ordered[index]["AccessKeyId"] if index < len(ordered) else ""
            if key_id in listed:
                before = {
                    "kind": "access_key",
                    "user": user,
                    "access_key_id": key_id,
                    "status": listed[key_id]["Status"],
                }
            elif not read_error:
                read_error = f"access key {key_id or '?'} is not among {user}'s keys on the account now"
        plan = AccountPlan(
            route_id,
            account,
            user,
            "deactivate_access_key",
            self.applies,
            calls=[
                {
                    "api": "iam:UpdateAccessKey",
                    "params": {"UserName": user, "AccessKeyId": key_id or "?", "Status": "Inactive"},
                }
            ],
            side_effects=[
                f"every request signed with access key {key_id or '?'} fails; the user's other credentials"
                " (console password, other keys) keep working",
                "the key is not deleted: its secret stays valid for reactivation",
            ],
            reversibility="exact (release sets the key back to its before-image status)",
            before_image=before,
            note="" if self.applies else self.why_not_applied,
            read_error=read_error,
        )
        return plan

    def _deny_all_plan(self, route_id: str, account: str, user: str, kind: str) -> AccountPlan:
        """A console password, or a user without a credential report: an explicit deny-all inline
        policy (exactly reversible, stops every credential of the user); the login profile is kept."""
        before: dict[str, Any] = {}
        read_error = ""
        if self.read_session is not None:
            iam = self._iam(self.read_session)
            try:
                before = {
                    "kind": "inline_policy",
                    "user": user,
                    "policy_name": DENY_POLICY_NAME,
                    "document": self._user_policy(iam, user),
                    "login_profile": self._has_login_profile(iam, user),
                }
            except _aws_errors() as exc:
                before, read_error = {}, f"reading {user}'s policy and login profile failed: {exc}"
            else:
                before["existed"] = before["document"] is not None
        what = "console password" if kind == "console_password" else "credentials (no credential report)"
        return AccountPlan(
            route_id,
            account,
            user,
            "deny_all_inline_policy",
            self.applies,
            calls=[
                {
                    "api": "iam:PutUserPolicy",
                    "params": {
                        "UserName": user,
                        "PolicyName": DENY_POLICY_NAME,
                        "PolicyDocument": json.dumps(DENY_ALL, sort_keys=True),
                    },
                }
            ],
            side_effects=[
                f"for the {what}: an explicit Deny of every action on every resource wins over every Allow,"
                f" so it also stops every access key of {user}, in the console and through the API",
                "role sessions the user assumed earlier keep the role's permissions until they expire",
                "the login profile is kept (removing it is not recommended: restoring it needs a new password)",
            ],
            reversibility="exact (release deletes the policy, or restores the document of that name it replaced)",
            before_image=before,
            note="" if self.applies else self.why_not_applied,
            read_error=read_error,
        )

    @staticmethod
    def _user_policy(iam: Any, user: str) -> dict[str, Any] | None:
        return inline_policy(iam, "user", user, DENY_POLICY_NAME)

    @staticmethod
    def _has_login_profile(iam: Any, user: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            iam.get_login_profile(UserName=user)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "NoSuchEntity":
                return False
            raise
        return True

    def _policy_reads(self, user: str, document: dict[str, Any] | None) -> bool:
        """The user's BlastShield policy reads `document` (None: absent), within a bounded retry."""
        return reads_within(
            self.verify_tries,
            self.verify_pause_s,
            lambda: self._user_policy(self._iam(self.read_session), user) == document,
        )

    @staticmethod
    def _keys(session_or_client: Any, user: str) -> list[dict[str, Any]]:
        client = session_or_client
        keys: list[dict[str, Any]] = []
        for page in client.get_paginator("list_access_keys").paginate(UserName=user):
            keys.extend(page.get("AccessKeyMetadata", []))
        return keys

    def _keys_for(self, session: Any, user: str) -> list[dict[str, Any]]:
        return self._keys(self._iam(session), user)

    # -- act -------------------------------------------------------------------------
    def apply(self, plan: AccountPlan) -> dict[str, Any]:
        """Make the plan's call, then re-read it. Never raises for an AWS error: the outcome says."""
        from botocore.exceptions import BotoCoreError, ClientError

        outcome: dict[str, Any] = {"applied": False, "api_verified": False, "request_id": "", "error": ""}
        if not plan.applied_in_aws:
            outcome["error"] = NOT_APPLIED
            return outcome
        if not plan.before_image:
            why = f" ({plan.read_error})" if plan.read_error else ""
            outcome["error"] = f"{plan.route_id} could not be read on the account{why}: nothing was done"
            return outcome
        call = plan.calls[0]
        params = call["params"]
        iam = self._iam(self.respond_session)
        try:
            if plan.kind == "deactivate_access_key":
                response = iam.update_access_key(**params)
            else:
                response = iam.put_user_policy(**params)
        except (ClientError, BotoCoreError) as exc:
            outcome["error"] = f"{call['api']} failed: {exc}"
            return outcome
        outcome["applied"] = True
        outcome["request_id"] = _request_id(response)
        if plan.kind == "deactivate_access_key":
            outcome["api_verified"] = self._reads(plan.user, params["AccessKeyId"], params["Status"])
            outcome["read_back"] = params["Status"] if outcome["api_verified"] else "not confirmed"
        else:
            outcome["api_verified"] = self._policy_reads(plan.user, DENY_ALL)
            outcome["read_back"] = f"{DENY_POLICY_NAME} present" if outcome["api_verified"] else "not confirmed"
        return outcome

    def _reads(self, user: str, key_id: str, status: str) -> bool:
        """The key reads `status` through the API, within a short bounded retry."""

        def holds() -> bool:
            live = {k["AccessKeyId"]: k["Status"] for k in self._keys_for(self.read_session, user)}
            return live.get(key_id) == status

        return reads_within(self.verify_tries, self.verify_pause_s, holds)

    def resync(self, plan: AccountPlan) -> str:
        """Re-collect the principal's slice and re-sync it through the import path; '' or why not."""
        if self.resync_slice is None:
            return "no re-sync is configured"
        return self.resync_slice(plan.account, plan.user)

    # -- release ---------------------------------------------------------------------
    def release(self, action: dict[str, Any]) -> dict[str, Any]:
        """Restore the before-image of an applied action. Raises DriftRefused when the live key is
        not what BlastShield set; the outcome carries the request id and the re-read."""
        from botocore.exceptions import BotoCoreError, ClientError

        if not self.applies:
            raise DriftRefused(f"{self.why_not_applied}: the key cannot be restored from here")
        plan, before = action["plan"], action["plan"]["before_image"]
        if plan["kind"] == "deny_all_inline_policy":
            return self._release_policy(before)
        set_to = plan["calls"][0]["params"]["Status"]
        live = {k["AccessKeyId"]: k["Status"] for k in self._keys_for(self.read_session, before["user"])}
        now = live.get(before["access_key_id"])
        if now != set_to:
            state = "gone" if now is None else now
            raise DriftRefused(
                f"access key {before['access_key_id']} of {before['user']} is {state} on the account, not"
                f" {set_to} as BlastShield set it: someone else changed it; nothing was done"
            )
        params = {"UserName": before["user"], "AccessKeyId": before["access_key_id"], "Status": before["status"]}
        try:
            response = self._iam(self.respond_session).update_access_key(**params)
        except (ClientError, BotoCoreError) as exc:
            raise DriftRefused(f"iam:UpdateAccessKey failed: {exc}; nothing was changed") from None
        return {
            "call": {"api": "iam:UpdateAccessKey", "params": params},
            "request_id": _request_id(response),
            "api_verified": self._reads(before["user"], before["access_key_id"], before["status"]),
        }

    def _release_policy(self, before: dict[str, Any]) -> dict[str, Any]:
        from botocore.exceptions import BotoCoreError, ClientError

        user = before["user"]
        now = self._user_policy(self._iam(self.read_session), user)
        if now != DENY_ALL:
            state = "absent" if now is None else "a different document"
            raise DriftRefused(
                f"inline policy {DENY_POLICY_NAME} of {user} is {state} on the account, not the deny-all"
                " BlastShield set: someone else changed it; nothing was done"
            )
        try:
            done = restore_inline_policy(self._iam(self.respond_session), "user", user, DENY_POLICY_NAME, before)
        except (ClientError, BotoCoreError) as exc:
            raise DriftRefused(f"restoring {DENY_POLICY_NAME} failed: {exc}; nothing was changed") from None
        return {
            "call": {"api": done["api"], "params": done["params"]},
            "request_id": _request_id(done["response"]),
            "api_verified": self._policy_reads(user, before.get("document") if before.get("existed") else None),
        }
