"""Trust: `CAN_ASSUME` from trust policies (indexed by the principal they name) and identity
policies, and the principals outside the export that trust policies name."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..iam.policy import (
    ASSUME_ACTION,
    Principal,
    Statement,
    arns_named,
    decide,
    may_assume,
    resource_matches,
    role_key,
    statement_matches_action,
)
from .builder import Evaluation
from .common import _ACCOUNT_RE, _arn_account, _Principal, _Role, entity_id
from .policy_sets import _UNSET
from .report import AwsImportReport
from .state import EdgeSink, Inventory


@dataclass
class _TrustIndex:
    """Trust policies indexed by the principal they name, so no principal is compared with every role."""

    known: set[str]
    by_arn: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    by_account: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    anyone: list[str] = field(default_factory=list)
    patterns: list[tuple[str, str]] = field(default_factory=list)
    outside: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))


class CanAssume:
    """The edge family of `CAN_ASSUME`: trust and identity policies of every principal it is given, and the
    chains of the principals outside the export that trust policies name."""

    def __init__(self, inv: Inventory, sink: EdgeSink, ev: Evaluation, report: AwsImportReport):
        self.inv = inv
        self.sink = sink
        self.ev = ev
        self.cache = ev.cache
        self.report = report

    def warn(self, file: str, item: str, message: str) -> None:
        self.report.warn(file, item, message)

    def run(self, principals: list[_Principal]) -> None:
        """`CAN_ASSUME` for `principals` (the imported ones and what escalation gains)."""
        # a session's ARN names its role without the path: those entries are indexed by `role_key`
        index = _TrustIndex(known=set(self.inv.roles) | set(self.inv.users) | {role_key(arn) for arn in self.inv.roles})
        by_arn, by_account, anyone = index.by_arn, index.by_account, index.anyone
        patterns, outside = index.patterns, index.outside
        for role_arn, role in self.inv.roles.items():
            for stmt in role.trust:
                if stmt.effect != "Allow" or not statement_matches_action(stmt, ASSUME_ACTION):
                    continue
                if stmt.not_principals is not None:
                    anyone.append(role_arn)
                for kind, entries in (stmt.principals or {}).items():
                    for entry in entries:
                        self.index_trust(role, kind, entry, index)
        anyone_set = set(anyone)
        # roles trusting an account or anyone, by account (one set per account, shared by its principals)
        shared = {account: set(arns) | anyone_set for account, arns in by_account.items()}
        for principal in principals:
            assume = self.ev.derived(
                principal, "assume", lambda p: [s for s in p.statements if self.ev.covers(s, ASSUME_ACTION)]
            )
            wants = any(s.effect == "Allow" for s in assume)
            key = role_key(principal.arn)
            candidates = set(by_arn.get(principal.arn, ()))
            if key != principal.arn:
                candidates.update(by_arn.get(key, ()))
            if wants:
                # trust by account, `*` or a pattern also needs an identity allow: only roles its
                # sts:AssumeRole grants name are candidates (found by ARN, or by glob once per pattern)
                pool = shared.get(principal.account, anyone_set)
                named = {r for pattern, r in patterns if resource_matches(pattern, principal.arn)}
                if named - pool:
                    pool = pool | named
                candidates.update(self.granted(assume, principal.account, pool))
            if not candidates:
                continue
            policy_set = self.ev.policy_set(assume, principal.boundary, (ASSUME_ACTION,))
            who = principal.who
            found: list[tuple[str, dict[str, Any]]] = []
            ordered = sorted(candidates)
            for role_arn, matched in zip(ordered, policy_set.keys(ordered), strict=True):
                role = self.inv.roles[role_arn]
                if role.principal.node == principal.node:
                    continue
                own = policy_set.decided(matched)[0]
                # the answer depends on the principal only through its account and kind, unless the
                # trust policy names its ARN or holds a pattern (see policy.arns_named)
                if role.named is None:
                    role.named = arns_named(role.trust)
                names, patterned = role.named
                specific = principal.arn if patterned or principal.arn in names or key in names else None
                cache_key = (
                    role_arn,
                    principal.account,
                    principal.kind,
                    specific,
                    own.effect,
                    own.conditional,
                    own.condition_keys,
                )
                clean = self.cache.assume_props.get(cache_key, _UNSET)
                if clean is _UNSET:
                    decision = may_assume(
                        role.trust,
                        who,
                        role_arn,
                        role.principal.account,
                        principal.statements,
                        boundary=principal.boundary,
                        own=own,
                    )
                    clean = self.cache.assume_props[cache_key] = self.sink.decision_props("CAN_ASSUME", decision)
                if clean is not None:
                    found.append((role.principal.node, clean))
            self.sink.fan_out(principal.node, "CAN_ASSUME", found)
        for key, role_arns in outside.items():
            self.outside_principal(key, role_arns)

    def granted(self, statements: list[Statement], account: str, pool: set[str]) -> set[str]:
        """The role ARNs in `pool` that an Allow statement for sts:AssumeRole may name (a superset; evaluation
        decides). `statements` cover sts:AssumeRole; what a pattern names in the pool is found once per
        (pattern, account)."""
        if not pool:
            return set()
        out: set[str] = set()
        for stmt in statements:
            if stmt.effect != "Allow":
                continue
            if stmt.not_resources is not None or "*" in stmt.resources:
                return set(pool)
            for pattern in stmt.resources:
                if "*" in pattern or "?" in pattern:
                    key = (pattern, account)
                    found = self.cache.granted.get(key)
                    if found is None or found[0] is not pool:
                        found = (pool, [a for a in self.ev.glob_cache(pattern) if a in pool])
                        self.cache.granted[key] = found
                    out.update(found[1])
                elif pattern in pool:
                    out.add(pattern)
        return out

    def index_trust(self, role: _Role, kind: str, entry: str, index: _TrustIndex) -> None:
        by_arn, by_account, anyone = index.by_arn, index.by_account, index.anyone
        patterns, outside, known = index.patterns, index.outside, index.known
        role_arn = role.principal.arn
        if kind == "Service":
            return
        if kind == "Federated":
            outside[f"federated|{entry}"].append(role_arn)
            return
        if kind == "*" or entry == "*":
            anyone.append(role_arn)
            outside["anyone|*"].append(role_arn)
            return
        if kind != "AWS":
            self.warn(role.file, f"role {role_arn} trust policy", f"principal type {kind} is not modelled")
            return
        account = entry if _ACCOUNT_RE.match(entry) else _arn_account(entry)
        if account is None:
            self.warn(
                role.file,
                f"role {role_arn} trust policy",
                f"principal {entry} is not an ARN or account id (a deleted principal's id?): ignored",
            )
            return
        if _ACCOUNT_RE.match(entry) or entry.endswith(":root"):
            by_account[account].append(role_arn)
            if account not in self.inv.accounts:
                outside[f"account|{account}"].append(role_arn)
            return
        if "*" in entry or "?" in entry:
            patterns.append((entry, role_arn))
            return
        session_role = re.sub(
            r"^arn:(aws[\w-]*):sts::(\d{12}):assumed-role/([^/]+)/.*$", r"arn:\1:iam::\2:role/\3", entry
        )
        by_arn[session_role].append(role_arn)
        if account not in self.inv.accounts:
            outside[f"arn|{entry}"].append(role_arn)
        elif session_role not in known:
            self.warn(role.file, f"role {role_arn} trust policy", f"principal {entry} is not in the export")

    def outside_principal(self, key: str, role_arns: list[str]) -> None:
        kind, name = key.split("|", 1)
        if kind == "federated":
            account = _arn_account(name) or "federated"
            who = Principal(name, account, "federated")
            slug, label = (
                entity_id(account, "federated", name.rsplit("/", 1)[-1]),
                f"federated {name.rsplit('/', 1)[-1]}",
            )
        elif kind == "anyone":
            account, who = "any", Principal("*", "*", "user")
            slug, label = "any-aws-principal", "any AWS principal (*)"
        elif kind == "account":
            account, who = name, Principal(f"arn:aws:iam::{name}:root", name, "root")
            slug, label = entity_id(name, "account"), f"account {name} (not imported)"
        else:
            account = _arn_account(name) or "unknown"
            who = Principal(name, account, "role" if ":role/" in name else "user")
            slug, label = (
                entity_id(account, "principal", name.split(":", 5)[-1].replace("/", ":")),
                f"{name.split(':', 5)[-1]} ({account}, not imported)",
            )
        common = {"arn": name if kind != "account" else f"arn:aws:iam::{name}:root", "account": account}
        snapshot = sorted({self.inv.roles[r].principal.account for r in role_arns})
        common["aws_snapshot"] = snapshot[0]
        identity = self.sink.node(slug, "Identity", label, aws_kind=f"outside_{kind}", **common)
        session = self.sink.node(
            entity_id(slug, "credential"),
            "Session",
            f"{label} credential",
            aws_kind="outside_credential",
            assumed=True,
            **common,
        )
        api = self.sink.node(
            entity_id(slug, "api"), "Workload", f"{label} (API calls)", aws_kind="outside_api", **common
        )
        role_like = self.sink.node(
            entity_id(slug, "policies"),
            "IAMRole",
            f"{label} (policies not imported)",
            aws_kind="outside_policies",
            **common,
        )
        self.sink.edge(identity, "HAS_SESSION", session, route_id=session)
        self.sink.edge(session, "CAN_ACCESS", api)
        self.sink.edge(api, "RUNS_AS", role_like)
        for role_arn in sorted(set(role_arns)):
            role = self.inv.roles[role_arn]
            decision = decide(role.trust, ASSUME_ACTION, role_arn, who)
            self.sink.decision_edge(role_like, "CAN_ASSUME", role.principal.node, decision, basis="trust policy only")
