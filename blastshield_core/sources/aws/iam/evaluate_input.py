"""The input of `evaluate.py`: policy documents read into rules, one statement matched
against a request (three-valued: applies, does not, or may apply), and the request itself,
validated whole (`parse_request`) with the context keys that follow from it
(`request_context`). From the IAM User Guide's "IAM JSON policy elements reference".
Nothing here reads files or touches a store.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .caller import Caller, Naming, not_principal_spares, parse_caller, principal_entry_names
from .conditions import Context, Tri, condition_holds, glob_match, substitute, tri_and
from .policy import PolicyFormatError, Statement, action_matches, parse_policy

__all__ = [
    "KMS_ALIAS_ACTIONS",
    "Hit",
    "Request",
    "RequestError",
    "Rule",
    "parse_request",
    "read_policy",
    "request_context",
    "scan",
]

_ACCOUNT = re.compile(r"^\d{12}$")
_ACTION = re.compile(r"^[A-Za-z0-9-]+:[A-Za-z0-9*?]+$")
# AWS KMS Developer Guide, "Controlling access to aliases": authorised on the alias and on the key
KMS_ALIAS_ACTIONS = frozenset({"kms:createalias", "kms:deletealias", "kms:updatealias"})


# ---------------------------------------------------------------- policies


@dataclass(frozen=True)
class Rule:
    """One statement with everything evaluation needs, its Condition kept whole."""

    effect: str
    index: int
    sid: str = ""
    actions: tuple[str, ...] = ()
    not_actions: tuple[str, ...] | None = None
    resources: tuple[str, ...] | None = None  # None: the statement has no Resource element
    not_resources: tuple[str, ...] | None = None
    principals: dict[str, tuple[str, ...]] | None = None
    not_principals: dict[str, tuple[str, ...]] | None = None
    condition: dict[str, Any] | None = None
    variables: bool = True  # policy variables resolve (Version 2012-10-17), else they are literal text

    @classmethod
    def of(cls, statement: Statement, index: int) -> Rule:
        """A statement as `parse_policy` read it, as a rule: a statement without Resource (a trust
        policy's) has `resources` None."""
        return cls(
            effect=statement.effect,
            index=index,
            sid=statement.sid,
            actions=statement.actions,
            not_actions=statement.not_actions,
            resources=statement.resources if statement.resources or statement.not_resources is not None else None,
            not_resources=statement.not_resources,
            principals=dict(statement.principals) if statement.principals is not None else None,
            not_principals=dict(statement.not_principals) if statement.not_principals is not None else None,
            condition=dict(statement.condition) if statement.condition else None,
            variables=statement.variables,
        )


def read_policy(document: Any) -> list[Rule]:
    """A policy document (object, JSON text, or URL-encoded JSON text, as in exports) as rules: the
    statements `policy.parse_policy` reads, with the same checks, each with its Condition whole.

    Raises PolicyFormatError for anything that is not a policy document."""
    return [Rule.of(statement, index) for index, statement in enumerate(parse_policy(document))]


# ---------------------------------------------------------------- one statement


@dataclass
class Hit:
    """A statement that applies (`result` True) or may apply (None, with the keys it needs)."""

    policy: str
    rule: Rule
    result: Tri
    keys: set[str] = field(default_factory=set)
    naming: int = Naming.DIRECT

    @property
    def effect(self) -> str:
        """The statement's effect (a hit is a `decision.Matched`, in `Mode.CONTEXT`)."""
        return self.rule.effect

    def as_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"policy": self.policy, "statement": self.rule.index}
        if self.rule.sid:
            entry["sid"] = self.rule.sid
        entry["effect"] = self.rule.effect
        entry["applies"] = "yes" if self.result else "undecided"
        if self.keys:
            entry["unknown_keys"] = sorted(self.keys)
        return entry


def _covers_action(rule: Rule, action: str) -> bool:
    if rule.not_actions is not None:
        return not any(action_matches(p, action) for p in rule.not_actions)
    return any(action_matches(p, action) for p in rule.actions)


def _resource_pattern_matches(pattern: str, arn: str, rule: Rule, context: Context, keys: set[str]) -> Tri:
    if rule.variables and "${" in pattern:
        unknown: set[str] = set()
        resolved = substitute(pattern, context, unknown, set())
        if resolved is None:
            if unknown:
                keys |= unknown
                return None
            return False
        return glob_match(resolved, arn)
    return glob_match(pattern, arn)


def _covers_resource(rule: Rule, arn: str, context: Context, resource_policy: bool) -> tuple[Tri, set[str]]:
    keys: set[str] = set()
    if rule.not_resources is not None:
        found = [_resource_pattern_matches(p, arn, rule, context, keys) for p in rule.not_resources]
        if any(f is True for f in found):
            return False, set()
        return (None, keys) if any(f is None for f in found) else (True, set())
    if rule.resources is None:
        return resource_policy, set()  # a trust policy names no Resource; an identity statement must
    found = [_resource_pattern_matches(p, arn, rule, context, keys) for p in rule.resources]
    if any(f is True for f in found):
        return True, set()
    return (None, keys) if any(f is None for f in found) else (False, set())


def scan(
    rules: Sequence[Rule],
    label: str,
    request: Request,
    context: Context,
    *,
    who: Caller | None = None,
) -> list[Hit]:
    """The statements of one policy that apply or may apply to the request.

    With `who` (a resource policy or an RCP) a statement must name the principal, and the hit
    records how it names it."""
    hits = []
    for rule in rules:
        if not _covers_action(rule, request.action):
            continue
        naming = Naming.DIRECT
        if who is not None:
            if rule.principals is not None:
                naming = principal_entry_names(rule.principals, who)
                if naming == Naming.NONE:
                    continue
            elif rule.not_principals is not None:
                if rule.effect == "Deny":
                    spared = not_principal_spares(rule.not_principals, who)
                else:  # an Allow with NotPrincipal (AWS does not support it; `policy-eval` refuses it)
                    spared = principal_entry_names(rule.not_principals, who) != Naming.NONE
                # Permissions boundaries: a Deny with NotPrincipal always denies a principal with a boundary
                if spared and not (rule.effect == "Deny" and request.boundary is not None):
                    continue
            elif label.startswith("resource_policy"):
                continue  # a resource policy statement names its principal
        covered, keys = _covers_resource(rule, request.resource, context, label.startswith("resource_policy"))
        if covered is False:
            continue
        holds, condition_keys = condition_holds(rule.condition, context, variables=rule.variables)
        result = tri_and([covered, holds])
        if result is False:
            continue
        hits.append(Hit(label, rule, result, (keys | condition_keys) if result is None else set(), naming))
    return hits


# ---------------------------------------------------------------- the request


class RequestError(ValueError):
    """A request that cannot be evaluated, with the reason."""


@dataclass
class Request:
    """A validated request: who, what, on which resource, and every policy that may apply."""

    who: Caller
    action: str
    resource: str
    resource_account: str
    identity: list[list[Rule]]
    boundary: list[Rule] | None
    resource_policy: list[list[Rule]] | None
    scps: list[list[list[Rule]]]
    rcps: list[list[list[Rule]]]
    session: list[Rule] | None
    context: dict[str, Any]
    management_account: str = ""
    notes: list[str] = field(default_factory=list)
    # which context keys not given are unknown: None for all of them (the graph's mode), else these
    # (lower case; a name ending in "/" for every key under it); any other key not given is absent
    unknown: frozenset[str] | None = None
    # for a KMS alias operation: the key(s) the alias names, each with its key policy when given apart
    alias_keys: tuple[tuple[str, list[list[Rule]] | None], ...] = ()

    @property
    def service(self) -> str:
        return self.action.split(":", 1)[0].lower()

    @property
    def same_account(self) -> bool:
        return self.who.account == self.resource_account


def _policy(value: Any, what: str) -> list[Rule]:
    try:
        return read_policy(value)
    except PolicyFormatError as exc:
        raise RequestError(f"{what}: {exc}") from None


def _levels(value: Any, what: str) -> list[list[list[Rule]]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise RequestError(f"{what} must be a list of levels (root first), each a list of policies")
    if value and all(isinstance(level, dict | str) for level in value):
        value = [value]  # a flat list of policies: one level
    levels = []
    for number, level in enumerate(value):
        if not isinstance(level, list):
            raise RequestError(f"{what}[{number}] must be a list of policies")
        levels.append([_policy(doc, f"{what}[{number}][{i}]") for i, doc in enumerate(level)])
    return levels


def _resource_account(arn: str) -> str:
    parts = arn.split(":", 5)
    return parts[4] if len(parts) == 6 and _ACCOUNT.match(parts[4]) else ""


def parse_request(raw: Any) -> Request:
    """A request object, checked whole; RequestError names the first thing wrong."""
    if not isinstance(raw, Mapping):
        raise RequestError("a request must be a JSON object")
    try:
        who = parse_caller(raw.get("principal"))
    except ValueError as exc:
        raise RequestError(str(exc)) from None
    action = raw.get("action")
    if not isinstance(action, str) or not _ACTION.match(action.strip()):
        raise RequestError("action must be a string 'service:Action'")
    resource = raw.get("resource")
    if not isinstance(resource, str) or not resource.strip():
        raise RequestError("resource must be a non-empty string (an ARN, or '*')")
    notes: list[str] = []
    account = raw.get("resource_account")
    if account is not None and (not isinstance(account, str) or not _ACCOUNT.match(account)):
        raise RequestError("resource_account must be a 12-digit account id")
    management = raw.get("management_account")
    if management is True:
        management = who.account
    if management not in (None, False, "") and (not isinstance(management, str) or not _ACCOUNT.match(management)):
        raise RequestError("management_account must be a 12-digit account id")
    if account is None:
        account = _resource_account(resource.strip())
    if not account:
        account = who.account
        if who.iam:
            notes.append("resource_account not given and the resource ARN names none: taken as the principal's")
    identity = raw.get("identity_policies", [])
    if identity is None:
        identity = []
    if not isinstance(identity, list):
        raise RequestError("identity_policies must be a list of policies")
    context = raw.get("context") or {}
    if not isinstance(context, Mapping) or not all(isinstance(k, str) for k in context):
        raise RequestError("context must be an object of condition keys")
    for key, value in context.items():
        values = value if isinstance(value, list) else [value]
        if not all(v is None or isinstance(v, str | int | float | bool) for v in values):
            raise RequestError(f"context[{key!r}] must be a string, number, boolean, null or a list of them")
    resource_policy = raw.get("resource_policy")
    if isinstance(resource_policy, list):
        resource_policies = [_policy(doc, f"resource_policy[{i}]") for i, doc in enumerate(resource_policy)]
    elif resource_policy is None:
        resource_policies = None
    else:
        resource_policies = [_policy(resource_policy, "resource_policy")]
    for i, rules in enumerate(resource_policies or []):
        _refuse_allow_not_principal(
            rules, "resource_policy" if len(resource_policies or []) == 1 else f"resource_policy[{i}]"
        )
    boundary = raw.get("permissions_boundary")
    session = raw.get("session_policy")
    return Request(
        who=_with_role(who, raw.get("role_arn")),
        action=action.strip(),
        resource=resource.strip(),
        resource_account=account,
        identity=[_policy(doc, f"identity_policies[{i}]") for i, doc in enumerate(identity)],
        boundary=None if boundary is None else _policy(boundary, "permissions_boundary"),
        resource_policy=resource_policies,
        scps=_levels(raw.get("scps"), "scps"),
        rcps=_levels(raw.get("rcps"), "rcps"),
        session=None if session is None else _policy(session, "session_policy"),
        context=dict(context),
        management_account=management or "",
        notes=notes,
        unknown=_partial(raw.get("partial_context", False), context),
        alias_keys=_alias_keys(action.strip(), resource.strip(), raw.get("key")),
    )


def _refuse_allow_not_principal(rules: list[Rule], label: str) -> None:
    for rule in rules:
        if rule.effect == "Allow" and rule.not_principals is not None:
            raise RequestError(
                f"{label} statement {rule.index}: NotPrincipal with Allow is not supported by AWS "
                "(IAM User Guide, 'AWS JSON policy elements: NotPrincipal'): name the principals in Principal"
            )


def _partial(value: Any, context: Mapping[str, Any]) -> frozenset[str] | None:
    """`partial_context`: false (the context is whole: a key not given is absent), true (every key
    not given is unknown) or the list of keys the context lacks (`aws:PrincipalTag/*` for every tag)."""
    if value is None or value is False:
        return frozenset()
    if value is True:
        return None
    if not isinstance(value, list) or not all(isinstance(k, str) and k.strip() for k in value):
        raise RequestError("partial_context must be true, false, or a list of the condition keys the context lacks")
    names = frozenset(k.strip().lower().removesuffix("*") for k in value)
    given = {k.lower() for k in context} & names
    if given:
        raise RequestError(f"partial_context names {sorted(given)[0]!r}, which context gives")
    return names


def _with_role(who: Caller, role: Any) -> Caller:
    """A session with its role's ARN (path included), when the request gives `role_arn`."""
    if role is None:
        return who
    if who.kind != "session":
        raise RequestError("role_arn is for a role session principal: the ARN of its role, with the role's path")
    try:
        found = parse_caller(role)
    except ValueError:
        found = None
    if found is None or (found.kind, found.account, found.name, found.partition) != (
        "role",
        who.account,
        who.name,
        who.partition,
    ):
        raise RequestError(f"role_arn must be the ARN of the session's role {who.name!r} in account {who.account}")
    return replace(who, role=found.arn)


def _alias_keys(action: str, resource: str, keys: Any) -> tuple[tuple[str, list[list[Rule]] | None], ...]:
    """The key(s) a KMS alias operation also needs permission on (UpdateAlias: the old and the new
    key), each with its own key policy when given (`{"arn": ..., "key_policy": ...}`), else the
    request's `resource_policy`."""
    alias = ":alias/" in resource and resource.split(":", 5)[2:3] == ["kms"]
    if keys is None:
        if action.lower() in KMS_ALIAS_ACTIONS and alias:
            raise RequestError(
                f"{action} is authorised on the alias and on its key (AWS KMS Developer Guide, "
                "'Controlling access to aliases'): give `key`, the key ARN (UpdateAlias: the old and the new key)"
            )
        return ()
    if action.lower() not in KMS_ALIAS_ACTIONS or not alias:
        raise RequestError("key is for a KMS alias operation (kms:CreateAlias, DeleteAlias, UpdateAlias) on an alias")
    found: list[tuple[str, list[list[Rule]] | None]] = []
    for i, item in enumerate(keys if isinstance(keys, list) else [keys]):
        arn, policy = (item.get("arn"), item.get("key_policy")) if isinstance(item, Mapping) else (item, None)
        if not isinstance(arn, str) or not arn.startswith("arn:") or ":key/" not in arn:
            raise RequestError(f"key[{i}] must be a KMS key ARN (arn:...:kms:REGION:ACCOUNT:key/ID) or an object")
        rules = None if policy is None else _policy(policy, f"key[{i}].key_policy")
        if rules is not None:
            _refuse_allow_not_principal(rules, f"key[{i}].key_policy")
        found.append((arn, None if rules is None else [rules]))
    if not found:
        raise RequestError("key must name at least one KMS key")
    return tuple(found)


def request_context(request: Request) -> Context:
    """The caller's context overlaid on the keys the request itself decides (principal, resource account)."""
    derived = request.who.context_keys()
    if request.resource_account:
        derived["aws:ResourceAccount"] = request.resource_account
        if request.service == "s3":
            derived["s3:ResourceAccount"] = request.resource_account
    return Context.build(request.context, derived, request.unknown)
