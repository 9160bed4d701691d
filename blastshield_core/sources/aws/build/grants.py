"""Data grants: `CAN_READ` from identity policies to data assets (S3 buckets, secrets and KMS keys as
their listings hold them, and tables, parameters, secrets and keys as policies name them), with each
asset's sensitivity."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..iam.policy import Decision, Effect, Statement, as_list, resource_matches
from .builder import Evaluation, created, default_account
from .common import (
    _ARN_RE,
    DATA_ACTIONS,
    DEFAULT_SENSITIVITY,
    LEVELS,
    SENSITIVITY_TAGS,
    _arn_account,
    _Principal,
    _tags,
    entity_id,
)
from .policy_sets import _data_services, _PolicySet, _sorted_matches
from .report import AwsImportReport
from .state import EdgeSink, Inventory

# Secrets Manager appends "-" and six random characters to a secret's name in its ARN; AWS recommends
# granting one secret as `secret:NAME-??????` (Secrets Manager User Guide, "Permissions reference for
# AWS Secrets Manager" and "Permissions policy examples"): such a pattern names the secret NAME only.
_NAME_SUFFIX = "-??????"
_LISTINGS = (("secret", "secrets", "SecretList", "ARN"), ("kms_key", "kms_keys", "Keys", "KeyArn"))
_LISTED_SERVICES = frozenset({"secretsmanager", "kms"})  # the services whose resources a listing holds


def _resource_key(kind: str, arn: str) -> str:
    """The part of a secret's or key's ARN its asset id is made of: the secret's name with its suffix
    (as the resource policies' files give it), the key's id."""
    if kind == "secret" and ":secret:" in arn:
        return arn.split(":secret:", 1)[-1]
    found = _ARN_RE.match(arn)
    return found[5].split(":", 1)[-1].split("/", 1)[-1] if found else arn


def _suffix_named(pattern: str) -> str | None:
    """The secret name a `secret:NAME-??????` pattern names (None for any other pattern)."""
    name = pattern.split(":secret:", 1)[-1] if ":secret:" in pattern else ""
    if not name.endswith(_NAME_SUFFIX):
        return None
    name = name[: -len(_NAME_SUFFIX)]
    return name if name and "*" not in name and "?" not in name else None


class DataReader:
    """The read steps of buckets, secrets and KMS keys: what a grant or a resource policy may reach."""

    def __init__(self, inv: Inventory, report: AwsImportReport):
        self.inv = inv
        self.report = report

    def warn(self, file: str, item: str, message: str) -> None:
        self.report.warn(file, item, message)

    def read_buckets(self) -> None:
        for source in self.inv.sources.of("buckets"):
            account = default_account(self.inv, source)
            self.inv.bucket_accounts.add(account)
            for bucket in as_list(source.data.get("Buckets")):
                if not isinstance(bucket, dict) or not isinstance(bucket.get("Name"), str):
                    self.warn(source.name, "Buckets", "bucket without Name ignored")
                    continue
                self.inv.buckets[account][bucket["Name"]] = _tags(bucket.get("Tags"))
                created(self.report, source.name, f"bucket {bucket['Name']}", bucket.get("CreationDate"))

    def read_secrets_and_keys(self) -> None:
        """Every secret of `list-secrets` (with its tags) and key of `list-keys`: a data asset of its own
        when a grant or its policy reaches it; the listing bounds what a wildcard grant reaches."""
        for kind, export, items, arn_key in _LISTINGS:
            for source in self.inv.sources.of(export):
                account = default_account(self.inv, source)
                self.inv.listed_accounts[kind].add(account)
                for index, entry in enumerate(as_list(source.data.get(items))):
                    arn = entry.get(arn_key) if isinstance(entry, dict) else None
                    if not isinstance(arn, str) or not arn.startswith("arn:") or arn.count(":") < 5:
                        self.warn(source.name, f"{items}[{index}]", f"entry without an {arn_key} ignored")
                        continue
                    owner = _arn_account(arn) or account
                    name = str(entry.get("Name") or entry.get("KeyId") or _resource_key(kind, arn))
                    self.inv.listed[kind][arn] = (owner, name, _tags(entry.get("Tags")))
                    self.inv.listed_regions[(kind, owner)].add(arn.split(":")[3])
        for kind, found in self.inv.listed.items():
            self.inv.listed_sorted[kind] = sorted(found)


class Assets:
    """The data asset nodes, each made once with its sensitivity (for grants, and for what a resource policy
    names)."""

    def __init__(self, inv: Inventory, sink: EdgeSink):
        self.inv = inv
        self.sink = sink

    def listed_candidates(self, principal: _Principal, service: str, kind: str, pattern: str) -> list[tuple[str, str]]:
        """(asset node, ARN to evaluate) for a secret or key pattern: the listed ones of its account it
        matches, each read on its own ARN; the secret or key it names when the listing lacks it; and,
        for a wildcard the listing cannot bound (no listing of the account, or a region it holds
        nothing in), the service's catch-all asset as well."""
        account = _arn_account(pattern) or principal.account
        listed = self.inv.listed[kind]
        out = [
            (self.resource_node(kind, listed[arn][0], arn, listed[arn][1], listed[arn][2]), arn)
            for arn in _sorted_matches(pattern, self.inv.listed_sorted.get(kind, ()))
            if listed[arn][0] == account
        ]
        if "*" not in pattern and "?" not in pattern:
            asset = None if out else self.named_asset(principal, service, kind, pattern)
            if asset:
                out.append((asset, pattern))
            return out
        named = _suffix_named(pattern) if kind == "secret" else None
        if named is not None:
            if not out:
                out.append((self.resource_node(kind, account, pattern, named, {}, key=named), pattern))
            return out
        parts = pattern.split(":")
        region = parts[3] if len(parts) > 4 else "*"
        bounded = account in self.inv.listed_accounts[kind] and region in self.inv.listed_regions[(kind, account)]
        if not bounded:
            out.append((self.wildcard_asset(account, service), pattern))
        return out

    def resource_node(
        self,
        kind: str,
        account: str,
        arn: str,
        name: str,
        tags: Mapping[str, str],
        *,
        key: str | None = None,
        snapshot: str | None = None,
    ) -> str:
        """The asset of a secret or key (or of a table or parameter a policy names), made once, its
        sensitivity from its tags."""
        node = entity_id(account, kind, key if key is not None else _resource_key(kind, arn))
        if node not in self.sink.nodes:
            level, why = self.sensitivity_of(arn, kind, tags)
            self.sink.node(
                node,
                "DataAsset",
                name,
                arn=arn,
                aws_kind=kind,
                account=account,
                aws_snapshot=snapshot or account,
                sensitivity=level,
                sensitivity_source=why,
            )
        return node

    def sensitivity_of(self, arn: str, kind: str, tags: Mapping[str, str]) -> tuple[str, str]:
        for key in SENSITIVITY_TAGS:
            value = tags.get(key, "").lower()
            if value in LEVELS:
                return value, f"tag {key}"
        for pattern, level in self.inv.sensitivity:
            if resource_matches(pattern, arn):
                return level, f"--sensitivity {pattern}"
        return DEFAULT_SENSITIVITY.get(kind, "medium"), "default"

    def bucket_node(self, account: str, bucket: str, tags: Mapping[str, str]) -> str:
        arn = f"arn:aws:s3:::{bucket}"
        node = entity_id(account, "bucket", bucket)
        if node not in self.sink.nodes:
            level, why = self.sensitivity_of(arn, "bucket", tags)
            self.sink.node(
                node,
                "DataAsset",
                bucket,
                arn=arn,
                aws_kind="bucket",
                account=account,
                aws_snapshot=account,
                sensitivity=level,
                sensitivity_source=why,
            )
        return node

    def named_asset(self, principal: _Principal, service: str, kind: str, arn: str) -> str | None:
        if service == "s3":
            rest = arn[len("arn:aws:s3:::") :] if arn.startswith("arn:aws:s3:::") else ""
            if "/" not in rest:
                return None  # the bucket itself: object reads need bucket/key
            bucket = rest.split("/")[0]
            owner = next((a for a, b in self.inv.buckets.items() if bucket in b), principal.account)
            return self.bucket_node(owner, bucket, self.inv.buckets[owner].get(bucket, {}))
        account = _arn_account(arn) or principal.account
        name = _resource_key(kind, arn)
        return self.resource_node(kind, account, arn, name, {}, snapshot=principal.account)

    def wildcard_asset(self, account: str, service: str) -> str:
        node = entity_id(account, "all", service)
        if node not in self.sink.nodes:
            arn = f"arn:aws:{service}:*:{account}:*" if service != "s3" else "arn:aws:s3:::*"
            level, why = self.sensitivity_of(arn, "wildcard", {})
            self.sink.node(
                node,
                "DataAsset",
                f"all {service} data in {account} (wildcard grant)",
                arn=arn,
                aws_kind=f"{service}_wildcard",
                account=account,
                aws_snapshot=account,
                sensitivity=level,
                sensitivity_source=why,
                wildcard=True,
            )
        return node


def read_props(sink: EdgeSink, actions: tuple[str, ...], decisions: tuple[Decision, ...]) -> dict[str, Any] | None:
    """The stored properties of CAN_READ for the decisions on a data service's actions (None: no allow)."""
    best: Decision | None = None
    allowed: list[str] = []
    for action, d in zip(actions, decisions, strict=True):
        if d.effect is Effect.ALLOW:
            allowed.append(action)
            if best is None or (best.conditional and not d.conditional):
                best = d
        elif d.effect is Effect.DENY and best is None:
            best = d
    if best is None:
        return None
    if best.effect is Effect.DENY and allowed:
        best = decisions[actions.index(allowed[0])]
    return sink.decision_props("CAN_READ", best, actions=allowed)


class CanRead:
    """The edge family of `CAN_READ` from identity policies: each principal's data reads in its account."""

    def __init__(self, inv: Inventory, sink: EdgeSink, ev: Evaluation, assets: Assets):
        self.inv = inv
        self.sink = sink
        self.ev = ev
        self.cache = ev.cache
        self.assets = assets

    def data_statements(self, statements: list[Statement]) -> dict[str, list[Statement]]:
        """The statements that may grant a data-read action, by service (each statement classified once)."""
        out: dict[str, list[Statement]] = {}
        for stmt in statements:
            services = self.cache.stmt_services.get(id(stmt))
            if services is None:
                services = self.cache.stmt_services[id(stmt)] = _data_services(stmt.actions, stmt.not_actions)
                self.cache.hold(stmt)
            for service in services:
                out.setdefault(service, []).append(stmt)
        return out

    def run(self, principals: list[_Principal]) -> None:
        """`CAN_READ` for `principals` (the imported ones and what escalation gains)."""
        for principal in principals:
            relevant = self.ev.derived(principal, "read", lambda p: self.data_statements(p.statements))
            for service, statements in relevant.items():
                if not any(s.effect == "Allow" for s in statements):
                    continue
                kind, actions = DATA_ACTIONS[service]
                policy_set = self.ev.policy_set(statements, principal.boundary, actions)
                key = ("read", principal.account)
                found = policy_set.results.get(key)
                if found is None:
                    found = self.read_edges(principal, service, kind, statements, policy_set)
                    policy_set.results[key] = found
                self.sink.fan_out(principal.node, "CAN_READ", found)

    def read_edges(
        self, principal: _Principal, service: str, kind: str, statements: list[Statement], policy_set: _PolicySet
    ) -> list[tuple[str, dict[str, Any]]]:
        """(asset node, stored properties) for one policy set's reads in the principal's account."""
        out: list[tuple[str, dict[str, Any]]] = []
        answer, make = policy_set.answer_for, self.read_props
        candidates = self.read_candidates(principal, service, kind, statements)
        keys = policy_set.keys([test_arn for _, test_arn in candidates])
        for (target, _), key in zip(candidates, keys, strict=True):
            clean = answer(key, make)
            if clean is not None:
                out.append((target, clean))
        return out

    def read_props(self, actions: tuple[str, ...], decisions: tuple[Decision, ...]) -> dict[str, Any] | None:
        """`read_props` into this family's sink (what a policy set's answer is made with)."""
        return read_props(self.sink, actions, decisions)

    def read_candidates(
        self, principal: _Principal, service: str, kind: str, statements: list[Statement]
    ) -> list[tuple[str, str]]:
        """(asset node, ARN to evaluate) for every asset an Allow statement may reach."""
        lists = [self.statement_candidates(principal, service, kind, s) for s in statements if s.effect == "Allow"]
        if len(lists) == 1:
            return lists[0]
        out: dict[str, str] = {}
        for found in lists:
            for asset, test in found:
                out.setdefault(asset, test)
        return list(out.items())

    def statement_candidates(
        self, principal: _Principal, service: str, kind: str, stmt: Statement
    ) -> list[tuple[str, str]]:
        """`read_candidates` for one Allow statement (kept per statement, service and account)."""
        key = (id(stmt), service, principal.account)
        out = self.cache.statement_candidates.get(key)
        if out is not None:
            return out
        self.cache.hold(stmt)
        merged: dict[str, str] = {}
        for pattern in stmt.resources if stmt.not_resources is None else ("*",):
            found = self.cache.pattern_candidates.get((pattern, service, kind, principal.account))
            if found is None:
                found = self.pattern_candidates(principal, service, kind, pattern)
                self.cache.pattern_candidates[(pattern, service, kind, principal.account)] = found
            for asset, test in found:
                merged.setdefault(asset, test)
        out = self.cache.statement_candidates[key] = list(merged.items())
        return out

    def pattern_candidates(self, principal: _Principal, service: str, kind: str, pattern: str) -> list[tuple[str, str]]:
        """(asset node, ARN to evaluate), in order, for one Resource pattern of an Allow statement.

        Depends only on the pattern, the service and the principal's account (kept per those).
        """
        out: list[tuple[str, str]] = []
        if (
            pattern != "*"
            and not pattern.startswith(f"arn:aws:{service}:")
            and not re.match(rf"^arn:[\w-]+:{service}:", pattern)
        ):
            return out
        if service in _LISTED_SERVICES:
            return self.assets.listed_candidates(principal, service, kind, pattern)
        if "*" not in pattern and "?" not in pattern:
            asset = self.assets.named_asset(principal, service, kind, pattern)
            if asset:
                out.append((asset, pattern))
            return out
        if service == "s3" and principal.account in self.inv.bucket_accounts:
            own = self.inv.buckets[principal.account]
            for test in self.ev.glob_cache(pattern):
                bucket = test[13:-2] if test.startswith("arn:aws:s3:::") else None
                if bucket in own:
                    out.append((self.assets.bucket_node(principal.account, bucket, own[bucket]), test))
            prefix = pattern[13:].split("/", maxsplit=1)[0] if pattern.startswith("arn:aws:s3:::") else ""
            if prefix in own and "/" in pattern[13:]:  # a grant on a prefix of one bucket
                out.append((self.assets.bucket_node(principal.account, prefix, own[prefix]), pattern))
            if pattern.startswith("arn:aws:s3:::") and "*" not in pattern[13:].split("/", maxsplit=1)[0]:
                bucket = pattern[13:].split("/", maxsplit=1)[0]
                if bucket and bucket not in self.inv.buckets[principal.account]:
                    asset = self.assets.named_asset(principal, service, kind, pattern)
                    if asset:
                        out.append((asset, pattern))
            return out
        if (
            service == "s3"
            and pattern.startswith("arn:aws:s3:::")
            and "*" not in pattern[13:].split("/", maxsplit=1)[0]
        ):
            asset = self.assets.named_asset(principal, service, kind, pattern)
            if asset:
                out.append((asset, pattern))
            return out
        account = _arn_account(pattern) or principal.account
        out.append((self.assets.wildcard_asset(account, service), pattern))
        return out
