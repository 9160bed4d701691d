"""Condition keys an escalation method decides by itself, and keys AWS documents as impossible for it.

The evaluator keeps a Condition's keys and makes the relationship conditional. Some keys are not
open for an escalation: the method fixes their value, or AWS documents what the request carries.
Before the method's actions are decided, each statement is specialised for the method
(`specialise`): a Condition block that cannot hold drops the statement (it never applies), one that
holds leaves the statement's other keys, and every other key stays undecided and named.

* `iam:PassedToService` (the service a role is passed to) is the method's service: the Lambda
  methods pass the role to `lambda.amazonaws.com`, EC2 to `ec2.amazonaws.com`, and so on
  (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_iam-condition-keys.html#ck_PassedToService).
* `iam:PolicyARN` (the managed policy attached) is, for the attach methods whose gain is
  administrator-equivalent access, AWS's `AdministratorAccess`; a Condition that allows it decides the
  statement, one that does not leaves the key undecided (another policy the Condition allows may still
  grant something: that is not guessed)
  (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_iam-condition-keys.html#ck_PolicyARN).
* `aws:SourceIp` is the requester's public address, and is absent when the request comes through a VPC
  endpoint (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-sourceip;
  "Only public IP addresses or public IP ranges are supported",
  https://repost.aws/knowledge-center/iam-restrict-access-policy). So an `IpAddress` test of it whose
  every range is private (RFC 1918, loopback, link-local, shared, IPv6 unique-local and link-local)
  never holds: the statement never applies, an Allow as a Deny.
* `iam:AssociatedResourceArn` (the resource a passed role is associated with) is a resource the
  method creates, whose name and Region the caller chooses: it is not decided.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..iam.conditions import Context, Operator, condition_holds
from ..iam.policy import Statement, statement_matches_action
from .catalogue import Method, Need

ADMINISTRATOR_ACCESS = "arn:aws:iam::aws:policy/AdministratorAccess"
_ATTACH = frozenset({"iam:AttachUserPolicy", "iam:AttachGroupPolicy", "iam:AttachRolePolicy"})
_PRIVATE = tuple(
    ipaddress.ip_network(n)
    for n in (
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "100.64.0.0/10",
        "fc00::/7",
        "fe80::/10",
        "::1/128",
    )
)
DECIDED_KEYS = frozenset({"iam:passedtoservice", "iam:policyarn", "aws:sourceip"})
REASONS = {
    "iam:passedtoservice": "iam:PassedToService decided by the method: the role is passed to {service}",
    "iam:policyarn": "iam:PolicyARN decided by the method: it attaches " + ADMINISTRATOR_ACCESS,
    "aws:sourceip": (
        "aws:SourceIp decided: a test of private ranges never holds (AWS: the requester's public address, "
        "absent through a VPC endpoint)"
    ),
}


def facts_for(method: Method, need: Need) -> tuple[dict[str, str], dict[str, str]]:
    """(keys the method decides either way, keys it decides only when their test holds) for one need."""
    decisive: dict[str, str] = {}
    hopeful: dict[str, str] = {}
    if need.action == "iam:PassRole" and method.service:
        decisive["iam:PassedToService"] = method.service
    if need.action in _ATTACH and method.gains == "admin":
        hopeful["iam:PolicyARN"] = ADMINISTRATOR_ACCESS
    return decisive, hopeful


def tests_decided_key(statements: list[Statement]) -> bool:
    return any(k.lower() in DECIDED_KEYS for s in statements for k in s.condition_keys)


def _private_only(values: Any) -> bool:
    texts = values if isinstance(values, list) else [values]
    try:
        networks = [ipaddress.ip_network(str(v).strip(), strict=False) for v in texts]
    except ValueError:
        return False
    return bool(networks) and all(
        any(n.version == p.version and n.subnet_of(p) for p in _PRIVATE)  # type: ignore[arg-type]
        for n in networks
    )


def never_from_source_ip(condition: Mapping[str, Any] | None) -> bool:
    """The Condition tests `aws:SourceIp` with plain `IpAddress` on private ranges only: it never holds."""
    for name, keys in (condition or {}).items():
        try:
            op = Operator.parse(str(name))
        except ValueError:
            continue
        if op.base != "ipaddress" or op.if_exists or op.set_op is not None or not isinstance(keys, Mapping):
            continue
        for key, values in keys.items():
            if str(key).lower() == "aws:sourceip" and _private_only(values):
                return True
    return False


def specialise(statements: list[Statement], decisive: dict[str, str], hopeful: dict[str, str]) -> list[Statement]:
    """The statements as they stand for the method's request (the same list when nothing changes)."""
    out: list[Statement] = []
    changed = False
    for s in statements:
        keys = {k.lower() for k in s.condition_keys}
        if not keys & DECIDED_KEYS or not s.condition:
            out.append(s)
            continue
        if "aws:sourceip" in keys and never_from_source_ip(s.condition):
            changed = True
            continue  # never applies
        new: Statement | None = s
        relevant = {k: v for k, v in decisive.items() if k.lower() in keys}
        hoped = {k: v for k, v in hopeful.items() if k.lower() in keys}
        if relevant or hoped:
            new = _decided(s, relevant, hoped)
        if new is not s:
            changed = True
        if new is not None:
            out.append(new)
    return out if changed else statements


def _decided(s: Statement, decisive: dict[str, str], hopeful: dict[str, str]) -> Statement | None:
    """The statement with the keys the method decides taken out of its open keys; None: it never applies."""
    try:
        result, missing = condition_holds(s.condition, Context.build(decisive, {}), variables=s.variables)
        if result is False and decisive:
            return None
        if hopeful:
            both = {**decisive, **hopeful}
            hoped, hoped_missing = condition_holds(s.condition, Context.build(both, {}), variables=s.variables)
            if hoped is not False:
                result, missing = hoped, hoped_missing
    except ValueError:
        return s  # a Condition the operators cannot read: left as it was
    remaining = tuple(sorted(missing)) if result is None else ()
    return s if remaining == s.condition_keys else replace(s, condition_keys=remaining)


def decided_for(
    statements: list[Statement], action: str, decisive: dict[str, str], hopeful: dict[str, str]
) -> set[str]:
    """The keys (lower case) the method decided in the statements that cover `action`."""
    out: set[str] = set()
    for s in statements:
        keys = {k.lower() for k in s.condition_keys} & DECIDED_KEYS
        if not keys or not s.condition or not statement_matches_action(s, action):
            continue
        if "aws:sourceip" in keys and never_from_source_ip(s.condition):
            out.add("aws:sourceip")
            continue
        relevant = {k: v for k, v in decisive.items() if k.lower() in keys}
        hoped = {k: v for k, v in hopeful.items() if k.lower() in keys}
        new = _decided(s, relevant, hoped) if relevant or hoped else s
        if new is None:
            out |= {k.lower() for k in relevant}
        elif new is not s:
            out |= keys - {k.lower() for k in new.condition_keys}
    return out


def reason_for(method: Method, decided: set[str] | frozenset[str]) -> str:
    """The edge's reason: what decided each key."""
    return "; ".join(REASONS[k].format(service=method.service) for k in sorted(decided))
