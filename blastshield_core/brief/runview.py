"""What the checker reads of a run and its actions, in one place.

A run's actions reach the briefing code as plain mappings (`RunSummary.actions`, the dump of
each `RunAction`). Every field the checker and the briefing read of them goes through these
functions, so a change to the action's model (its account side becoming a typed model, say)
is met here alone.

On an AWS account an action has three checks: `applied` (the call was made and succeeded),
`api_verified` (re-read through the API) and `graph_verified` (the re-collected graph shows the
route blocked). An action on an AWS-backed route without a respond profile is blocked in the
graph only: the credentials still work on the account.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

__all__ = [
    "ACCOUNT_KINDS",
    "AccountFacts",
    "ActionFields",
    "account_calls",
    "account_facts",
    "account_kind",
    "account_note",
    "action_applied",
    "api_verified",
    "aws_backed",
    "before_image",
    "graph_only",
    "graph_verified",
    "on_account",
    "operation",
    "reported_applied",
    "request_id",
    "route_of",
]


class ActionFields(Protocol):
    """The fields of a run's action that briefings read (the action model has them)."""

    @property
    def operation(self) -> str: ...
    @property
    def route_id(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def verified(self) -> bool: ...
    @property
    def applied(self) -> bool | None: ...
    @property
    def api_verified(self) -> bool | None: ...
    @property
    def graph_verified(self) -> bool | None: ...


Action = Mapping[str, Any] | ActionFields  # an action's dump, or the action model itself


def _get(action: Action, key: str) -> Any:
    if isinstance(action, Mapping):
        return action.get(key)
    return getattr(action, key, None)


# What an action does on the account, by its plan's kind.
ACCOUNT_KINDS = {
    "deactivate_access_key": "key",
    "deny_all_inline_policy": "policy",
    "revoke_role_sessions": "revocation",
    "revoke_user_sessions": "revocation",
}


def _aws(action: Action) -> Mapping[str, Any]:
    aws = _get(action, "aws")
    if aws is None:
        return {}
    if isinstance(aws, Mapping):
        return aws
    dump = getattr(aws, "model_dump", None)  # a typed account side
    return dump() if callable(dump) else {}


def operation(action: Action) -> str:
    """block_route, revoke_role_sessions or revoke_user_sessions."""
    return str(_get(action, "operation") or "block_route")


def route_of(action: Action) -> str:
    return str(_get(action, "route_id") or "")


def aws_backed(action: Action) -> bool:
    """Whether the action is about credentials on an AWS account (its route is AWS-backed)."""
    return bool(_aws(action))


def on_account(action: Action) -> bool:
    """Whether the action was meant to be applied on the account (a respond profile was configured)."""
    return bool(_aws(action).get("applied_in_aws"))


def action_applied(action: Action) -> bool:
    """Whether the action took effect where it was meant to: on the account for one applied in AWS."""
    if on_account(action):
        return _get(action, "applied") is True
    return _get(action, "status") == "applied"


def api_verified(action: Action) -> bool:
    return _get(action, "api_verified") is True


def graph_verified(action: Action) -> bool:
    return _get(action, "graph_verified") is True or (not aws_backed(action) and _get(action, "verified") is True)


def graph_only(action: Action) -> bool:
    """An AWS-backed route blocked in the graph alone: nothing changed on the account."""
    return aws_backed(action) and not on_account(action) and _get(action, "status") == "applied"


def account_kind(action: Action) -> str:
    """key | policy | revocation | '' (what the action does on the account, whether or not it was applied)."""
    if ACCOUNT_KINDS.get(operation(action)) == "revocation":
        return "revocation"
    plan = _aws(action).get("plan") or {}
    kind = str(plan.get("kind") or "") if isinstance(plan, Mapping) else ""
    if kind in ACCOUNT_KINDS:
        return ACCOUNT_KINDS[kind]
    return "policy" if kind else ("key" if aws_backed(action) else "")


class AccountFacts:
    """What a run did on the AWS account, per kind of change, from its actions."""

    def __init__(self, actions: Iterable[Action], run_state: str = ""):
        self.actions = list(actions)
        self.run_state = run_state
        self.backed = [a for a in self.actions if aws_backed(a)]
        # applied on the account and re-read through the API
        self.done = [a for a in self.backed if on_account(a) and action_applied(a) and api_verified(a)]
        self.graph_only = [a for a in self.backed if graph_only(a)]
        self.failed = [a for a in self.backed if on_account(a) and not (action_applied(a) and api_verified(a))]

    def done_kinds(self) -> set[str]:
        return {account_kind(a) for a in self.done}

    def holds(self, kind: str) -> bool:
        """Whether a change of this kind ("any", "key", "policy", "revocation", "credential") is in effect."""
        kinds = self.done_kinds()
        if kind == "any":
            return bool(kinds)
        if kind == "credential":  # a user's credentials disabled: a key deactivated or a deny-all attached
            return bool(kinds & {"key", "policy"})
        return kind in kinds

    def describe(self) -> str:
        if not self.actions:
            return "the run took no action"
        parts = []
        for a in self.actions:
            where = (
                "on the AWS account: "
                + f"applied {action_applied(a)}, verified through the API {api_verified(a)},"
                + f" in the graph {graph_verified(a)}"
                if on_account(a)
                else "blocked in the graph only, not applied in AWS"
                if graph_only(a)
                else f"status {_get(a, 'status')}"
            )
            parts.append(f"{route_of(a)} ({operation(a)}): {where}")
        return "; ".join(parts)


def account_note(action: Action) -> str:
    """Why an AWS-backed action was not applied on the account ("graph only" when nothing says)."""
    return str(_aws(action).get("note") or "graph only")


def account_calls(action: Action) -> list[Mapping[str, Any]]:
    """The exact calls the action's plan names on the account."""
    plan = _aws(action).get("plan") or {}
    return list(plan.get("calls") or []) if isinstance(plan, Mapping) else []


def before_image(action: Action) -> Mapping[str, Any]:
    plan = _aws(action).get("plan") or {}
    return (plan.get("before_image") or {}) if isinstance(plan, Mapping) else {}


def request_id(action: Action) -> str:
    return str(_aws(action).get("request_id") or "")


def reported_applied(action: Action) -> Any:
    """The three checks as recorded (None where the action has no account side)."""
    return _get(action, "applied"), _get(action, "api_verified"), _get(action, "graph_verified")


def account_facts(actions: Iterable[Action] | None, run_state: str = "") -> AccountFacts:
    return AccountFacts(actions or [], run_state)
