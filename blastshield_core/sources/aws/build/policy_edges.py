"""Edges follow resource policies and organisation guardrails: the builder part that reads bucket,
secret and key policies and the organisation, then decides again every data read and role
assumption they bear on (`resource_policies.decide_read`, `decide_guarded`), adds the reads a
resource policy grants on its own, and links public grants to the node that stands for anyone.

The mapping choices are in docs/aws-import.md ("Resource policies and guardrails").
"""

from __future__ import annotations

from typing import Any

from ..iam.caller import Caller
from ..iam.evaluate_input import Rule
from ..iam.policy import ASSUME_ACTION, Effect, as_list, decide
from .builder import default_account
from .common import DATA_ACTIONS, _Principal, _tags, entity_id
from .facts import Requests
from .get import SourceFile
from .grants import Assets
from .organizations import read_organization
from .report import AwsImportReport
from .resource_policies import (
    Level,
    Read,
    ResourcePolicy,
    Side,
    decide_guarded,
    decide_read,
    guardrail_hits,
    read_resource_policies,
    referenced_keys,
    request_for,
)
from .state import EdgeSink, EvaluationCache, Inventory

_KIND_SERVICE = {kind: service for service, (kind, _) in DATA_ACTIONS.items()}
ANYONE = "any-aws-principal"


_SAME = object()  # a cached answer that leaves the relationship's properties as they were


def _signature(props: dict[str, Any]) -> str:
    """What a decision depends on in a relationship's properties: all of them, as text (so equal
    properties of different relationships share one cached answer)."""
    return repr(sorted(props.items()))


class ResourcePolicyReader:
    """The read step of resource policies, the organisation and the principals' tags."""

    def __init__(self, inv: Inventory, report: AwsImportReport):
        self.inv = inv
        self.report = report

    def warn(self, file: str, item: str, message: str) -> None:
        self.report.warn(file, item, message)

    def run(self) -> None:
        self.inv.organization = read_organization(self.inv.sources, self.warn)
        found = read_resource_policies(self.inv.sources, self._bucket_owner, self._default_account, self.warn)
        for (account, kind, name), policy in found.items():
            self.inv.resource_policies[entity_id(account, kind, name)] = policy
        for source in self.inv.sources.of("gaad"):
            for key in ("UserDetailList", "RoleDetailList"):
                for entry in as_list(source.data.get(key)):
                    if isinstance(entry, dict) and isinstance(entry.get("Arn"), str):
                        tags = entry.get("Tags")
                        self.inv.principal_tags[entry["Arn"]] = None if tags is None else _tags(tags)
        counts = self.report.policy_counts
        for policy in self.inv.resource_policies.values():
            counts["resource_policies_read"][policy.kind] += 1
        if self.inv.organization is not None:
            counts["scps_read"] = self.inv.organization.read["scp"]
            counts["rcps_read"] = self.inv.organization.read["rcp"]
        guardrail_rules = [
            rule
            for levels in (self.inv.organization.levels.values() if self.inv.organization else ())
            for level in levels
            for policy_rules in level
            for rule in policy_rules
        ]
        self.inv.guardrail_keys = referenced_keys(guardrail_rules)
        self.inv.guardrails_per_principal = any(
            k.startswith(("aws:principalarn", "aws:principaltag/", "aws:username", "aws:userid"))
            for k in self.inv.guardrail_keys
        )

    def _bucket_owner(self, bucket: str, source: SourceFile) -> str:
        owner = next((a for a, b in self.inv.buckets.items() if bucket in b), None)
        return owner or default_account(self.inv, source)

    def _default_account(self, source: SourceFile) -> str:
        return default_account(self.inv, source)


class FollowPolicies:
    """The edge family that decides again each `CAN_READ` and `CAN_ASSUME` a resource policy or guardrail
    bears on, adds the reads resource policies grant on their own, and links public grants to anyone."""

    def __init__(
        self,
        inv: Inventory,
        sink: EdgeSink,
        cache: EvaluationCache,
        report: AwsImportReport,
        *,
        requests: Requests,
        assets: Assets,
    ):
        self.inv = inv
        self.sink = sink
        self.cache = cache
        self.report = report
        self.requests = requests
        self.assets = assets
        self._guarded = False  # the last answer was a guardrail's (set with each answer, read right after)

    def run(self, principals: list[_Principal]) -> None:
        """Decide again each read and assumption a resource policy or guardrail bears on; add what
        resource policies grant on their own; count what changed."""
        by_node = {p.node: p for p in principals}
        self._guarded = False
        counts = self.report.policy_counts
        org = self.inv.organization
        for key, props in list(self.sink.edges.items()):
            source, rel, target = key
            if rel not in ("CAN_READ", "CAN_ASSUME") or props.get("permission") == "deny":
                continue
            principal = by_node.get(source)
            if principal is None:
                continue
            if rel == "CAN_READ":
                new = self._read_again(principal, target, props)
            elif org is not None:
                new = self._assume_again(principal, target, props)
            else:
                continue
            if new is props:
                continue
            cause = "guardrails" if rel == "CAN_ASSUME" or self._guarded else "resource_policies"
            if new is None:
                del self.sink.edges[key]
                counts[f"edges_removed_by_{cause}"] += 1
            else:
                self.sink.edges[key] = new
                if new.get("permission") == "deny":
                    counts[f"edges_denied_by_{cause}"] += 1
                if new.get("basis") == "identity policy only":
                    counts["edges_identity_policy_only"] += 1
        self._grants_of_resource_policies(by_node)

    def _levels(self, account: str, kind: str) -> list[list[list[Rule]]]:
        return self.inv.organization.guardrails(account, kind) if self.inv.organization is not None else []

    def _read_again(self, principal: _Principal, target: str, props: dict[str, Any]) -> dict[str, Any] | None:
        asset = self.sink.nodes.get(target)
        if asset is None or asset.properties.get("wildcard"):
            return props
        kind, account = str(asset.properties.get("aws_kind") or ""), str(asset.properties.get("account") or "")
        service = _KIND_SERVICE.get(kind)
        policy = self.inv.resource_policies.get(target)
        scps, rcps = self._levels(principal.account, "scp"), self._levels(account, "rcp")
        if service is None or not (policy or scps or rcps or kind == "kms_key" or account != principal.account):
            return props
        # a principal is answered alone when the policy tests its own keys or names it; the others
        # of its account and kind share one answer
        per_principal = (policy is not None and policy.keyed) or self.inv.guardrails_per_principal
        cache = (
            self._signature(props),  # edges of equal properties share one answer (a principal's own keys aside)
            target,
            principal.account,
            principal.kind,
            principal.arn if per_principal or principal.arn in (policy.named if policy else ()) else "",
            self._bounds(principal, target, service),  # what the boundary allows here, not which boundary
            self.requests.caller(principal).service_linked,
        )
        if cache not in self.cache.answers:
            answer = self._read_props(principal, target, service, props=props, policy=policy, scps=scps, rcps=rcps)
            self.cache.answers[cache] = _SAME if answer is props else answer
            self.cache.causes[cache] = self._guarded
        self._guarded = self.cache.causes[cache]
        found = self.cache.answers[cache]
        return props if found is _SAME else found

    def _read_alone(self, principal: _Principal, target: str, policy: ResourcePolicy) -> dict[str, Any] | None:
        """`_read_again` for a principal without an identity grant on the asset."""
        scps, rcps = self._levels(principal.account, "scp"), self._levels(policy.account, "rcp")
        named = policy.keyed or principal.arn in policy.named
        cache = (
            0,
            target,
            principal.account,
            principal.kind,
            principal.arn if named or self.inv.guardrails_per_principal else "",
            self._bounds(principal, target, _KIND_SERVICE[policy.kind]),
            self.requests.caller(principal).service_linked,
        )
        if cache not in self.cache.answers:
            service = _KIND_SERVICE[policy.kind]
            self.cache.answers[cache] = self._read_props(
                principal, target, service, props=None, policy=policy, scps=scps, rcps=rcps
            )
        return self.cache.answers[cache]

    def _signature(self, props: dict[str, Any]) -> str:
        """`_signature`, kept per properties object (many relationships share one); the object is kept
        with it, so its id cannot be reused while the memo lives."""
        memo = self.cache.signatures
        found = memo.get(id(props))
        if found is None:
            found = memo[id(props)] = (props, _signature(props))
        return found[1]

    def _bounds(self, principal: _Principal, target: str, service: str) -> tuple[bool, ...] | None:
        """Whether the principal's permissions boundary allows each of the service's data actions on
        the asset (None: no boundary), kept per boundary and asset: principals under one boundary share it."""
        if principal.boundary is None:
            return None
        memo = self.cache.bounds
        boundary = principal.boundary
        # a boundary whose every statement names Resource "*" answers alike for every asset
        everywhere = self.cache.bounds_everywhere
        anywhere = everywhere.get(id(boundary))
        if anywhere is None:
            self.cache.hold(boundary)
            anywhere = everywhere[id(boundary)] = all(
                st.resources == ("*",) and st.not_resources is None for st in boundary
            )
        key = (id(boundary), "" if anywhere else target, service)
        found = memo.get(key)
        if found is None:
            resource = self.requests.test_arn(target)[0]
            found = memo[key] = tuple(
                decide(boundary, action, resource).effect is Effect.ALLOW for action in DATA_ACTIONS[service][1]
            )
        return found

    def _read_props(
        self,
        principal: _Principal | None,
        target: str,
        service: str,
        *,
        props: dict[str, Any] | None,
        policy: ResourcePolicy | None,
        scps: list[list[list[Rule]]],
        rcps: list[list[list[Rule]]],
    ) -> dict[str, Any] | None:
        """The stored properties of CAN_READ after both sides (None: no relationship)."""
        resource, account, tags = self.requests.test_arn(target)
        who = Caller("anonymous", "*") if principal is None else self.requests.caller(principal)
        keys = (policy.keys if policy else frozenset()) | self.inv.guardrail_keys
        facts = self.requests.facts(principal, keys, tags)
        allowed = set((props or {}).get("actions", ()))
        side_allow = "maybe" if (props or {}).get("conditional") else "yes"
        side_keys = tuple((props or {}).get("condition_keys", ()))
        answers: list[tuple[str, Read]] = []
        bounds = None if principal is None else self._bounds(principal, target, service)
        for number, action in enumerate(DATA_ACTIONS[service][1]):
            side = Side(side_allow if action in allowed else "no", False, side_keys)
            bounded = bounds is not None
            boundary_ok = True if bounds is None else bounds[number]
            request = request_for(who, action, resource, account, facts=facts, bounded=bounded)
            hits = self._guardrail_cache(who, principal, facts, scps, rcps)
            answers.append(
                (
                    action,
                    decide_read(
                        request, side, policy=policy, scps=scps, rcps=rcps, boundary_ok=boundary_ok, guardrail_hits=hits
                    ),
                )
            )
        return self._props_of(answers, props)

    def _guardrail_cache(self, who: Caller, principal: _Principal | None, facts: dict[str, Any], scps: Any, rcps: Any):
        """The guardrails' hits for a request, kept per (caller's kind and account, the principal's ARN
        when a guardrail tests the principal's own keys, action, resource and its account, facts): the
        SCP levels are the caller's account's and the RCP levels the resource account's, so they
        depend on nothing else, and principals and identity answers alike share one scan."""
        store = self.cache.guardrail_hits
        fixed = (
            bool(scps),  # the levels themselves follow from the caller's and the resource's accounts
            bool(rcps),
            who.kind,
            who.account,
            who.service_linked,
            who.arn if self.inv.guardrails_per_principal or principal is None else "",
            tuple(sorted((k, v if isinstance(v, str | None) else repr(v)) for k, v in facts.items())),
        )

        def hits(request: Any, context: Any) -> list[Level]:
            key = (*fixed, request.action, request.resource, request.resource_account)
            found = store.get(key)
            if found is None:
                found = store[key] = guardrail_hits(request, context, scps, rcps)
            return found

        return hits

    def _props_of(self, answers: list[tuple[str, Read]], props: dict[str, Any] | None) -> dict[str, Any] | None:
        allowed = [(a, r) for a, r in answers if r.effect == "allow"]
        self._guarded = not allowed and any(r.basis == "guardrail" for _, r in answers)
        if not allowed:
            if any(r.effect == "deny" for _, r in answers) and props is not None:
                return self.sink.edge_props("CAN_READ", {"permission": "deny"})
            return None
        best = min((r for _, r in allowed), key=lambda r: r.conditional)
        new = self.sink.edge_props(
            "CAN_READ",
            {
                "permission": "allow",
                "conditional": best.conditional or None,
                "condition_keys": best.keys,
                "actions": [a for a, _ in allowed],
                "basis": best.basis or None,
            },
        )
        if new == props:
            return props
        shared = self.sink.decided.setdefault(("CAN_READ", "followed", repr(sorted(new.items()))), new)
        return shared

    def _assume_again(self, principal: _Principal, target: str, props: dict[str, Any]) -> dict[str, Any] | None:
        role = self.sink.nodes.get(target)
        if role is None:
            return props
        account = str(role.properties.get("account", ""))
        scps, rcps = self._levels(principal.account, "scp"), self._levels(account, "rcp")
        if not (scps or rcps):
            return props
        who = self.requests.caller(principal)
        cache = (
            self._signature(props),
            "assume",
            account if not self.inv.guardrails_per_principal else target,
            principal.account,
            principal.kind,
            principal.arn if self.inv.guardrails_per_principal else "",
            who.service_linked,
        )
        if cache not in self.cache.answers:
            facts = self.requests.facts(principal, self.inv.guardrail_keys, None)
            side = Side("maybe" if props.get("conditional") else "yes", False, tuple(props.get("condition_keys", ())))
            request = request_for(who, ASSUME_ACTION, str(role.properties["arn"]), account, facts=facts, bounded=False)
            read = decide_guarded(request, side, scps, rcps)
            new: object
            if read.effect == "deny":
                new = self.sink.edge_props("CAN_ASSUME", {"permission": "deny"})
            elif read.effect == "none":
                new = None
            else:
                new = {**props, "conditional": read.conditional or None, "condition_keys": read.keys}
                new = self.sink.edge_props("CAN_ASSUME", new)
                if new == props:
                    new = _SAME
            self.cache.answers[cache] = new
        found = self.cache.answers[cache]
        return props if found is _SAME else found

    def _grants_of_resource_policies(self, by_node: dict[str, _Principal]) -> None:
        counts = self.report.policy_counts
        by_arn = {p.arn: p for p in by_node.values()}
        by_account: dict[str, list[_Principal]] = {}
        for p in by_node.values():
            by_account.setdefault(p.account, []).append(p)
        for target, policy in sorted(self.inv.resource_policies.items()):
            allows = [r for r in policy.rules if r.effect == "Allow" and r.principals]
            if not allows:
                continue
            service = _KIND_SERVICE[policy.kind]
            everyone = any(
                "*" in entries for r in allows for kind, entries in (r.principals or {}).items() if kind in ("AWS", "*")
            )
            self._asset_for(target, policy)
            scps_none: list[list[list[Rule]]] = []
            rcps = self._levels(policy.account, "rcp")
            candidates = [by_arn[a] for a in policy.named if a in by_arn and by_arn[a].account == policy.account]
            if everyone:
                public = self._read_props(None, target, service, props=None, policy=policy, scps=scps_none, rcps=rcps)
                if public is not None and public.get("permission") != "deny":
                    anyone = self._anyone(policy.account)
                    self.sink.put_edge(anyone, "CAN_READ", target, public)
                    counts["edges_added_by_resource_policies"] += 1
                    if not public.get("conditional"):
                        self.sink.nodes[target].properties["public"] = True
                        counts["public_assets"] += 1
                        continue
                candidates = by_account.get(policy.account, [])
            for principal in candidates:
                key = (principal.node, "CAN_READ", target)
                if key in self.sink.edges:
                    continue  # decided already with its identity side
                new = self._read_alone(principal, target, policy)
                if new is not None and new.get("permission") != "deny":
                    self.sink.edges[key] = new
                    counts["edges_added_by_resource_policies"] += 1

    def _asset_for(self, target: str, policy: ResourcePolicy) -> None:
        """The asset node of a resource whose policy was collected (made as grants.py makes it)."""
        if target in self.sink.nodes:
            return
        if policy.kind == "bucket":
            tags = self.inv.buckets.get(policy.account, {}).get(policy.name, {})
            self.assets.bucket_node(policy.account, policy.name, tags)
            return
        listed = self.inv.listed.get(policy.kind, {}).get(policy.arn)
        if listed is not None:  # the listing's name and tags
            name, tags = listed[1], listed[2]
        else:
            name, tags = policy.name, {k.lower(): v for k, v in (policy.tags or {}).items()}
        self.assets.resource_node(policy.kind, policy.account, policy.arn, name, tags, key=policy.name)

    def _anyone(self, account: str) -> str:
        """The role-like node of the chain that stands for anyone (as trust.py makes it for `*`)."""
        role_like = entity_id(ANYONE, "policies")
        if role_like in self.sink.nodes:
            return role_like
        common = {"arn": "*", "account": "any", "aws_snapshot": account}
        label = "any AWS principal (*)"
        identity = self.sink.node(ANYONE, "Identity", label, aws_kind="outside_anyone", **common)
        session = self.sink.node(
            entity_id(ANYONE, "credential"),
            "Session",
            f"{label} credential",
            aws_kind="outside_credential",
            assumed=True,
            **common,
        )
        api = self.sink.node(
            entity_id(ANYONE, "api"), "Workload", f"{label} (API calls)", aws_kind="outside_api", **common
        )
        self.sink.node(role_like, "IAMRole", f"{label} (policies not imported)", aws_kind="outside_policies", **common)
        self.sink.edge(identity, "HAS_SESSION", session, route_id=session)
        self.sink.edge(session, "CAN_ACCESS", api)
        self.sink.edge(api, "RUNS_AS", role_like)
        return role_like
