"""What the snapshot knows of a request, for the families that decide conditions, resource policies and
guardrails again (identity_conditions.py, policy_edges.py): the caller a principal is, the ARN, account and
exported tags a read of an asset is decided on, and the context's facts (the organisation, the principal's
and the resource's tags)."""

from __future__ import annotations

from typing import Any

from ..iam.caller import Caller, parse_caller
from ..iam.policy import statement_matches_action
from .common import _Principal
from .state import EdgeSink, EvaluationCache, Inventory


class Requests:
    """The facts of requests, read from the frozen inventory and the asset nodes the sink holds; callers are
    kept in the evaluation cache."""

    def __init__(self, inv: Inventory, sink: EdgeSink, cache: EvaluationCache):
        self.inv = inv
        self.sink = sink
        self.cache = cache

    def facts(
        self, principal: _Principal | None, keys: frozenset[str], resource_tags: dict[str, str] | None
    ) -> dict[str, Any]:
        """The context the snapshot decides: the organisation, the principal's and the resource's tags
        (a tag not among exported tags is known absent; without exported tags, unknown)."""
        facts: dict[str, Any] = {}
        org = self.inv.organization
        if principal is None:  # anyone: no organisation, no tags
            for key in keys:
                if key.startswith(("aws:principalorgid", "aws:principalorgpaths", "aws:principaltag/")):
                    facts[key] = None
        else:
            if org is not None and org.id and principal.account in org.members:
                facts["aws:PrincipalOrgID"] = org.id
            tags = self.inv.principal_tags.get(principal.arn)
            if tags is not None and not self.takes_session_tags(principal):
                for key in keys:
                    if key.startswith("aws:principaltag/"):
                        facts[key] = tags.get(key.split("/", 1)[1])
        if resource_tags is not None:
            lowered = {k.lower(): v for k, v in resource_tags.items()}
            for key in keys:
                if key.startswith("aws:resourcetag/"):
                    facts[key] = lowered.get(key.split("/", 1)[1])
        return facts

    def takes_session_tags(self, principal: _Principal) -> bool:
        """A role whose trust policy allows `sts:TagSession`: whoever assumes it may pass session tags,
        which add to and override the role's tags as `aws:PrincipalTag`, so its tags do not decide."""
        if principal.kind != "role":
            return False
        role = self.inv.roles.get(principal.arn)
        return role is not None and any(
            s.effect == "Allow" and statement_matches_action(s, "sts:TagSession") for s in role.trust
        )

    def caller(self, principal: _Principal) -> Caller:
        who = self.cache.callers.get(principal.arn)
        if who is None:
            try:
                who = parse_caller(principal.arn)
            except ValueError:  # an ARN real exports get wrong (no account): the principal as the GAAD holds it
                who = Caller(principal.kind, principal.arn, principal.account, "aws", principal.name)
            self.cache.callers[principal.arn] = who
        return who

    def test_arn(self, target: str) -> tuple[str, str, dict[str, str] | None]:
        """The ARN a read of the asset is decided on, its account, and its exported tags."""
        props = self.sink.nodes[target].properties
        arn, account = str(props["arn"]), str(props["account"])
        if props.get("aws_kind") == "bucket":  # an object read: any object of the bucket
            return f"{arn}/*", account, self.inv.buckets.get(account, {}).get(arn.split(":::", 1)[-1]) or None
        policy = self.inv.resource_policies.get(target)
        return arn, account, policy.tags if policy else None
