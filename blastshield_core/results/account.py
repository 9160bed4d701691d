"""Actions on an AWS account: their kinds, the principal they aim at, their plans and outcomes.

A containment run records each account action as an `AccountOutcome` (`RunAction.aws`): the plan
it made before the call (the exact calls, side effects, reversibility and the before-image read
then), whether it was applied, the AWS request id, and the two verifications. Records written
before these models existed hold the same fields as a plain mapping, and load as these models.

Import them from `results`, which loads this module the first time one is used."""

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, field_validator

from .core import _Out

__all__ = [
    "REVOCATION_KINDS",
    "REVOCATION_OPERATIONS",
    "AccountActionKind",
    "AccountCall",
    "AccountCheck",
    "AccountOutcome",
    "AccountPlan",
    "AccountRelease",
    "AccountTarget",
    "CandidatePlan",
]

NOT_APPLIED = "not applied in AWS"


class AccountActionKind(StrEnum):
    """Every kind of action BlastShield makes on an account (`respond/aws/actions.py` has one class each)."""

    DEACTIVATE_ACCESS_KEY = "deactivate_access_key"
    DENY_ALL_INLINE_POLICY = "deny_all_inline_policy"
    REVOKE_ROLE_SESSIONS = "revoke_role_sessions"
    REVOKE_USER_SESSIONS = "revoke_user_sessions"


# The session revocations: they stop temporary credentials issued before them and cut no path. A run
# records each as an action whose `operation` is its kind's value (a route block's is `block_route`).
REVOCATION_KINDS = frozenset({AccountActionKind.REVOKE_ROLE_SESSIONS, AccountActionKind.REVOKE_USER_SESSIONS})
REVOCATION_OPERATIONS = frozenset(kind.value for kind in REVOCATION_KINDS)


class AccountCall(_Out):
    """One AWS API call: the IAM action and its parameters, as sent."""

    api: str
    params: dict[str, str] = Field(default_factory=dict)

    def arguments(self, skip: frozenset[str] = frozenset()) -> str:
        """`UserName=alice, AccessKeyId=AKIA…, Status=Inactive` (less the parameters in `skip`)."""
        return ", ".join(f"{k}={v}" for k, v in self.params.items() if k not in skip)

    def text(self) -> str:
        """`iam:UpdateAccessKey(UserName=alice, AccessKeyId=AKIA…, Status=Inactive)`."""
        return f"{self.api}({self.arguments()})"


class AccountTarget(_Out):
    """The principal an action is aimed at, as the collection of its account names it."""

    account: str
    principal: Literal["user", "role"]
    name: str  # the principal's name (UserName / RoleName), from the collection
    arn: str = ""  # the full ARN, path included
    unique_id: str = ""  # AWS's unique id (UserId AIDA…, RoleId AROA…)
    access_key_id: str = ""  # for a key: its id, from list-access-keys of exactly this user

    def label(self) -> str:
        return self.arn or f"{self.account}:{self.principal}/{self.name}"


class AccountCheck(_Out):
    """One check made before the first write: what was checked, whether it held, and why not."""

    name: str
    ok: bool
    detail: str = ""


class AccountPlan(_Out):
    """What one account action does, before anything is done."""

    route_id: str  # the route, or for a session revocation its candidate id
    account: str
    user: str  # the principal's name (a user's, or for a revocation the role's)
    kind: AccountActionKind
    applied_in_aws: bool
    calls: list[AccountCall] = Field(default_factory=list)
    side_effects: list[str] = Field(default_factory=list)
    reversibility: str = ""
    before_image: dict[str, Any] = Field(default_factory=dict)
    note: str = ""
    read_error: str = ""  # the account could not be read for the before-image: nothing will be called
    target: AccountTarget | None = None
    checks: list[AccountCheck] = Field(default_factory=list)
    # Credentials already issued: which ones the action stops, and which keep working until they expire.
    stops: list[str] = Field(default_factory=list)
    leaves_standing: list[str] = Field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def subject(self) -> str:
        """What the plan's call changes: the access key's id, else the principal's name."""
        if self.kind is AccountActionKind.DEACTIVATE_ACCESS_KEY:
            key = (self.target.access_key_id if self.target else "") or self.before_image.get("access_key_id")
            return str(key or "?")
        return self.user

    @property
    def refusals(self) -> list[AccountCheck]:
        return [c for c in self.checks if not c.ok]

    def text(self) -> str:
        graph_only = "nothing is changed" if self.kind in REVOCATION_KINDS else "graph only"
        head = f"{self.route_id}: " + (
            "on the account" if self.applied_in_aws else f"{NOT_APPLIED} ({graph_only}): {self.note}"
        )
        lines = [head]
        lines += [f"    call {call.text()}" for call in self.calls]
        lines += [f"    side effect: {s}" for s in self.side_effects]
        lines += [f"    stops: {s}" for s in self.stops]
        lines += [f"    does not stop: {s}" for s in self.leaves_standing]
        if self.reversibility:
            lines.append(f"    reversibility: {self.reversibility}")
        if self.before_image:
            lines.append(f"    before-image: {self.before_image}")
        if self.read_error:
            lines.append(f"    before-image not read, nothing would be called: {self.read_error}")
        lines += [f"    check {'ok' if c.ok else 'would refuse'}: {c.name}" + (f": {c.detail}" if c.detail else "")
                  for c in self.checks]  # fmt: skip
        return "\n".join(lines)


class AccountOutcome(_Out):
    """An account action in a run: its plan, and what happened on the account."""

    applied_in_aws: bool
    plan: AccountPlan
    applied: bool = False
    api_verified: bool = False
    graph_verified: bool = False
    request_id: str = ""
    error: str = ""
    read_back: str = ""
    resync: str = ""
    note: str = ""

    @field_validator("request_id", "error", "read_back", "resync", "note", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value  # older records wrote None for "not read back"

    @property
    def call(self) -> AccountCall | None:
        return self.plan.calls[0] if self.plan.calls else None


class AccountRelease(_Out):
    """A release on the account: the call that restored the before-image, and its re-read."""

    call: AccountCall
    request_id: str = ""
    api_verified: bool = False


class CandidatePlan(_Out):
    """What choosing one route candidate does: on the account (`aws`), or in the graph only."""

    candidate_id: str
    route_id: str
    paths_cut: int
    graph_only: bool = False
    aws: AccountPlan | None = None
