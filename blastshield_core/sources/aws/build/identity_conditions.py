"""Conditions in identity policies decided by the snapshot's own facts.

The transform's evaluator (`policy.py`, `policy_sets.py`) keeps only a statement's condition
keys and marks the relationship conditional. This builder part takes each conditional
`CAN_READ` and `CAN_ASSUME` and decides it again, statement by statement, with the condition
operators of `conditions.py`, in a context that holds what the snapshot knows about the
request: who asks (`aws:PrincipalArn`, `aws:PrincipalAccount`, `aws:PrincipalType`,
`aws:username`), the organisation (`aws:PrincipalOrgID`), exported tags (`aws:PrincipalTag/*`,
`aws:ResourceTag/*`) and the resource's account (`aws:ResourceAccount`, `s3:ResourceAccount`).
Every other key stays unknown. The relationship then becomes unconditional, a deny, or is
gone; when an unknown key still matters it stays conditional with only those keys named.

Runs before `policy_edges.FollowPolicies`, which decides resource policies and guardrails on
the identity side found here. The mapping choices are in docs/aws-import.md ("Conditions the
snapshot decides").
"""

from __future__ import annotations

from typing import Any

from ..iam import decision
from ..iam.evaluate_input import Request, Rule, request_context, scan
from ..iam.policy import ASSUME_ACTION, Decision, Effect, PolicyFormatError, Statement
from .common import DATA_ACTIONS, _Principal
from .facts import Requests
from .grants import read_props
from .report import AwsImportReport
from .resource_policies import request_for
from .state import EdgeSink, EvaluationCache, Inventory

_KIND_SERVICE = {kind: service for service, (kind, _) in DATA_ACTIONS.items()}
# the keys the snapshot may know (lower case; a prefix ends with "/")
KNOWN_KEYS = (
    "aws:principalarn",
    "aws:principalaccount",
    "aws:principalorgid",
    "aws:principaltag/",
    "aws:principaltype",
    "aws:username",
    "aws:resourceaccount",
    "aws:resourcetag/",
    "s3:resourceaccount",
)


def knowable(key: str) -> bool:
    """The snapshot may decide this condition key (names are case-insensitive)."""
    key = key.lower()
    return any(key == k or (k.endswith("/") and key.startswith(k)) for k in KNOWN_KEYS)


def identity_decision(identity: list[Rule], boundary: list[Rule] | None, request: Request) -> Decision:
    """The identity policies limited by the boundary, each statement's Condition decided in the
    request's context: an explicit Deny decides; both must allow; what an unknown key leaves open
    makes the answer conditional, naming the keys of the statements left undecided."""
    context = request_context(request)
    sides = [scan(identity, "identity_policies", request, context)]
    if boundary is not None:
        sides.append(scan(boundary, "permissions_boundary", request, context))
    tallies = [decision.Tally() for _ in sides]
    for tally, hits in zip(tallies, sides, strict=True):
        for position, hit in enumerate(hits):
            tally.add(position, hit)
    best = decision.every(t.outcome(True) for t in tallies)
    worst = decision.every(t.outcome(False) for t in tallies)
    keys = {k for t in tallies for k in t.keys(decision.Mode.CONTEXT)}
    # evaluated in the snapshot's context, drawn in the graph: only an allow is conditional
    return decision.settle(best, worst, keys, decision.Mode.UNDECIDED)


def object_tests(bucket_arn: str, statements: list[Statement]) -> list[str]:
    """The key-prefix patterns of `bucket_arn` the statements name (`arn:aws:s3:::B/prefix/*`), each
    standing for an object under that prefix (a pattern matches its own text)."""
    inside = bucket_arn + "/"
    return sorted(
        {
            p
            for s in statements
            for p in s.resources + (s.not_resources or ())
            if p.startswith(inside) and p != inside + "*"
        }
    )


def best_of(decisions: list[Decision]) -> Decision:
    """The widest answer over several objects of one asset: an unconditional allow, else a conditional
    one, else a deny, else none."""
    allows = [d for d in decisions if d.effect is Effect.ALLOW]
    if allows:
        return min(allows, key=lambda d: d.conditional)
    return next((d for d in decisions if d.effect is Effect.DENY), Decision(Effect.NONE))


class IdentityConditions:
    """The edge family that decides again the conditional `CAN_READ` and `CAN_ASSUME` the families before
    it wrote, by the snapshot's facts."""

    def __init__(
        self, inv: Inventory, sink: EdgeSink, cache: EvaluationCache, report: AwsImportReport, requests: Requests
    ):
        self.inv = inv
        self.sink = sink
        self.cache = cache
        self.report = report
        self.requests = requests

    def run(self, principals: list[_Principal]) -> None:
        """Decide again each conditional CAN_READ and CAN_ASSUME whose principal's policies test a
        key the snapshot may know; count what changed."""
        by_node = {p.node: p for p in principals}
        counts = self.report.policy_counts
        for key, props in list(self.sink.edges.items()):
            source, rel, target = key
            if rel not in ("CAN_READ", "CAN_ASSUME") or not props.get("conditional"):
                continue
            principal = by_node.get(source)
            if principal is None or not self._tests_known_keys(principal, target if rel == "CAN_ASSUME" else None):
                continue
            if rel == "CAN_READ":
                new = self._read_decided(principal, target, props)
            else:
                new = self._assume_decided(principal, target, props)
            if new is props:
                continue
            if new is None:
                del self.sink.edges[key]
                counts["edges_removed_by_conditions"] += 1
            else:
                self.sink.edges[key] = new
                if new.get("permission") == "deny":
                    counts["edges_denied_by_conditions"] += 1
                elif not new.get("conditional"):
                    counts["edges_unconditional_by_conditions"] += 1

    # ------------------------------------------------------------ inputs

    def _rules_of(self, statements: list[Statement] | None) -> list[Rule] | None:
        if statements is None:
            return None
        found = self.cache.rules.get(id(statements), ...)
        if found is ...:
            found = [Rule.of(s, i) for i, s in enumerate(statements)]
            self.cache.rules[id(statements)] = found
            self.cache.hold(statements)
        return found

    def _tests_known_keys(self, principal: _Principal, role_node: str | None) -> bool:
        """Some statement of the principal's policies (or of the role's trust policy) tests a key
        the snapshot may know."""
        role = self._role_of_node(role_node) if role_node else None
        cache = (tuple(map(id, principal.statements)), id(principal.boundary), id(role.trust) if role else None)
        found = self.cache.tests_known.get(cache)
        if found is None:
            statements = principal.statements + (principal.boundary or []) + (role.trust if role else [])
            found = any(knowable(k) for s in statements if s.condition for k in s.condition_keys)
            self.cache.tests_known[cache] = found
            self.cache.hold(*principal.statements, principal.boundary, role.trust if role else None)
        return found

    def _role_of_node(self, node: str) -> Any:
        arn = self.sink.nodes[node].properties.get("arn") if node in self.sink.nodes else None
        return self.inv.roles.get(arn) if isinstance(arn, str) else None

    def _context_for(self, principal: _Principal, tags: dict[str, str] | None) -> dict[str, Any]:
        statements = principal.statements + (principal.boundary or [])
        keys = frozenset(k.lower() for s in statements for k in s.condition_keys)
        return self.requests.facts(principal, keys, tags)

    # ------------------------------------------------------------ reads and assumptions

    def _read_decided(self, principal: _Principal, target: str, props: dict[str, Any]) -> dict[str, Any] | None:
        asset = self.sink.nodes.get(target)
        if asset is None or asset.properties.get("wildcard"):
            return props
        service = _KIND_SERVICE.get(str(asset.properties.get("aws_kind") or ""))
        if service is None:
            return props
        resource, account, tags = self.requests.test_arn(target)
        facts = self._context_for(principal, tags)
        who = self.requests.caller(principal)
        cache = ("read", target, id(props), tuple(map(id, principal.statements)), id(principal.boundary), who.arn)
        answers = self.cache.identity_answers
        if cache in answers:
            return answers[cache]
        self.cache.hold(props, *principal.statements, principal.boundary)
        try:
            identity = self._rules_of(principal.statements) or []
            boundary = self._rules_of(principal.boundary)
            actions = DATA_ACTIONS[service][1]
            tests = [resource]
            if asset.properties.get("aws_kind") == "bucket":  # a grant on a key prefix reads part of it
                tests += object_tests(resource[:-2], principal.statements)
            decisions = []
            for action in actions:
                found = []
                for test in tests:
                    request = request_for(who, action, test, account, facts=facts, bounded=boundary is not None)
                    found.append(identity_decision(identity, boundary, request))
                decisions.append(best_of(found))
        except (PolicyFormatError, ValueError, TypeError):
            answers[cache] = props  # a Condition the operators cannot read: left as it was
            return props
        new = read_props(self.sink, actions, tuple(decisions))
        if new is not None and new == props:
            new = props
        answers[cache] = new
        return new

    def _assume_decided(self, principal: _Principal, target: str, props: dict[str, Any]) -> dict[str, Any] | None:
        from ..iam.evaluate import decide as evaluate_decide  # the whole evaluator: the trust policy's special rules

        role = self._role_of_node(target)
        if role is None:
            return props
        role_arn, account = role.principal.arn, role.principal.account
        facts = self._context_for(principal, self.inv.principal_tags.get(role_arn))
        who = self.requests.caller(principal)
        try:
            trust = self._rules_of(role.trust) or []
            request = Request(
                who=who,
                action=ASSUME_ACTION,
                resource=role_arn,
                resource_account=account,
                identity=[self._rules_of(principal.statements) or []],
                boundary=self._rules_of(principal.boundary),
                resource_policy=[trust],
                scps=[],
                rcps=[],
                session=None,
                context=facts,
            )
            answer = evaluate_decide(request)
        except (PolicyFormatError, ValueError, TypeError):
            return props
        if answer["decision"] == "explicitly_denied":
            return self.sink.edge_props("CAN_ASSUME", {"permission": "deny"})
        if answer["decision"] != "allowed":
            return None
        new = {**props, "conditional": answer["conditional"] or None, "condition_keys": answer["unknown_keys"]}
        new = self.sink.edge_props("CAN_ASSUME", new)
        return props if new == props else new
