"""The AWS import's shared evaluation gives exactly the document a straightforward evaluation gives.

`_Reference` keeps the plain way: every principal's policies evaluated with `policy.evaluate`
/ `may_assume` for every candidate resource, no sharing between principals or resources.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from blastshield_core.graph.ingest import paused_gc
from blastshield_core.sources.aws import read_sources
from blastshield_core.sources.aws.build.grants import Assets, CanRead
from blastshield_core.sources.aws.build.policy_sets import _resource_filter
from blastshield_core.sources.aws.build.transform import ACCESS_ACTIONS, DATA_ACTIONS, _Builder, build_from_sources
from blastshield_core.sources.aws.build.trust import CanAssume, _TrustIndex
from blastshield_core.sources.aws.build.workloads import CanAccess
from blastshield_core.sources.aws.iam.policy import (
    ASSUME_ACTION,
    Decision,
    Effect,
    evaluate,
    may_assume,
    resource_list_filter,
    resource_list_matcher,
    resource_matches,
    statement_matches_action,
)
from blastshield_core.sources.aws.synthetic.generate import AwsGenerateOptions, write_aws_collection


class _ReferenceAssume(CanAssume):
    """`CAN_ASSUME` without any sharing: one `may_assume` per principal and candidate role."""

    def run(self, principals) -> None:
        index = _TrustIndex(known=set(self.inv.roles) | set(self.inv.users))
        for role_arn, role in self.inv.roles.items():
            for stmt in role.trust:
                if stmt.effect != "Allow" or not statement_matches_action(stmt, ASSUME_ACTION):
                    continue
                if stmt.not_principals is not None:
                    index.anyone.append(role_arn)
                for kind, entries in (stmt.principals or {}).items():
                    for entry in entries:
                        self.index_trust(role, kind, entry, index)
        for principal in principals:
            candidates = set(index.by_arn.get(principal.arn, ()))
            if any(s.effect == "Allow" and statement_matches_action(s, ASSUME_ACTION) for s in principal.statements):
                pool = set(index.by_account.get(principal.account, ())) | set(index.anyone)
                pool |= {r for pattern, r in index.patterns if resource_matches(pattern, principal.arn)}
                candidates |= {r for r in pool if self._may_name(principal.statements, r)}
            for role_arn in sorted(candidates):
                role = self.inv.roles[role_arn]
                if role.principal.node == principal.node:
                    continue
                decision = may_assume(
                    role.trust,
                    principal.who,
                    role_arn,
                    role.principal.account,
                    principal.statements,
                    boundary=principal.boundary,
                )
                self.sink.decision_edge(principal.node, "CAN_ASSUME", role.principal.node, decision)
        for key, role_arns in index.outside.items():
            self.outside_principal(key, role_arns)

    @staticmethod
    def _may_name(statements, role_arn: str) -> bool:
        return any(
            s.effect == "Allow"
            and statement_matches_action(s, ASSUME_ACTION)
            and (s.not_resources is not None or any(resource_matches(p, role_arn) for p in s.resources))
            for s in statements
        )


class _ReferenceRead(CanRead):
    """`CAN_READ` without any sharing: one `evaluate` per principal, action and candidate asset."""

    def run(self, principals) -> None:
        for principal in principals:
            for service, (kind, actions) in DATA_ACTIONS.items():
                statements = [s for s in principal.statements if any(statement_matches_action(s, a) for a in actions)]
                if not any(s.effect == "Allow" for s in statements):
                    continue
                for target, test_arn in self.read_candidates(principal, service, kind, statements):
                    best: Decision | None = None
                    allowed: list[str] = []
                    for action in actions:
                        d = evaluate(principal.statements, action, test_arn, boundary=principal.boundary)
                        if d.effect is Effect.ALLOW:
                            allowed.append(action)
                            if best is None or (best.conditional and not d.conditional):
                                best = d
                        elif d.effect is Effect.DENY and best is None:
                            best = d
                    if best is None:
                        continue
                    if best.effect is Effect.DENY and allowed:
                        best = evaluate(principal.statements, allowed[0], test_arn, boundary=principal.boundary)
                    self.sink.decision_edge(principal.node, "CAN_READ", target, best, actions=allowed)


class _ReferenceAccess(CanAccess):
    """`CAN_ACCESS` without any sharing: one `evaluate` per user, action and workload."""

    def run(self) -> None:
        for user in self.inv.users.values():
            for kind, actions in ACCESS_ACTIONS.items():
                for node, wkind, arn in self.inv.workloads:
                    if wkind != kind or not arn:
                        continue
                    allowed: list[str] = []
                    best: Decision | None = None
                    for action in actions:
                        d = evaluate(user.statements, action, arn, boundary=user.boundary)
                        if d.effect is Effect.ALLOW:
                            allowed.append(action)
                            if best is None or (best.conditional and not d.conditional):
                                best = d
                    if best is None:
                        continue
                    for session in self.inv.user_sessions.get(user.arn, []):
                        self.sink.edge(
                            session,
                            "CAN_ACCESS",
                            node,
                            actions=allowed,
                            conditional=best.conditional or None,
                            condition_keys=list(best.condition_keys),
                        )


class _Reference(_Builder):
    """The build with the three reference families in place of the shared evaluation."""

    def can_assume(self) -> None:
        _ReferenceAssume(self.inv, self.sink, self.ev, self.report).run(self.principals)

    def can_read(self) -> None:
        _ReferenceRead(self.inv, self.sink, self.ev, Assets(self.inv, self.sink)).run(self.principals)

    def can_access(self) -> None:
        _ReferenceAccess(self.inv, self.sink, self.ev).run()


def _sets(doc) -> tuple[set[str], set[str]]:
    nodes = {json.dumps(n.model_dump(mode="json"), sort_keys=True) for n in doc.nodes}
    edges = {json.dumps(e.as_dict(), sort_keys=True) for e in doc.edges}
    return nodes, edges


@pytest.fixture(scope="module", params=[False, True], ids=["tidy", "messy"])
def account(request, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("aws-fast")
    options = AwsGenerateOptions(users=200, roles=80, policies=120, buckets=40, seed=7, messy=request.param)
    write_aws_collection(options, folder)
    return folder


def test_shared_evaluation_gives_the_reference_document(account: Path) -> None:
    """The import's document has exactly the reference evaluation's nodes and relationships."""
    sources = read_sources([account])
    fast, report = build_from_sources(sources)
    reference = _Reference(sources, [])
    with paused_gc():
        slow = reference.build()
    fast_nodes, fast_edges = _sets(fast)
    slow_nodes, slow_edges = _sets(slow)
    assert report.counts["relationships"].get("CAN_READ") and report.counts["relationships"].get("CAN_ASSUME")
    assert fast_nodes == slow_nodes
    assert fast_edges == slow_edges
    assert report.warnings == reference.report.warnings


PATTERNS = [
    "arn:aws:s3:::team-1-*/*",
    "arn:aws:s3:::team-?-data/*",
    "arn:aws:s3:::exact/key",
    "arn:aws:iam::111122223333:role/t1-*",
    "*",
    "arn:aws:s3:::a.b/*",
]
ARNS = [
    "arn:aws:s3:::team-1-data/x",
    "arn:aws:s3:::team-2-data/*",
    "arn:aws:s3:::TEAM-1-data/x",
    "arn:aws:s3:::exact/key",
    "arn:aws:s3:::exact/keys",
    "arn:aws:iam::111122223333:role/t1-admin",
    "arn:aws:iam::111122223333:role/t10-admin",
    "arn:aws:s3:::axb/1",
    "arn:aws:s3:::a.b/1\nx",
]


def test_resource_list_matcher_agrees_with_resource_matches() -> None:
    """The compiled test for a Resource list answers as `resource_matches` on each pattern does."""
    lists = [tuple(PATTERNS[i : i + n]) for n in (1, 2, 3) for i in range(len(PATTERNS) - n + 1)]
    globs = [p for p in PATTERNS if p != "*" and ("*" in p or "?" in p)]
    lists += [tuple(c) for n in (2, 3, 4) for c in itertools.combinations(globs, n)]
    for patterns in [*lists, tuple(p for p in PATTERNS if p != "*")]:
        matches = resource_list_matcher(patterns)
        for arn in ARNS:
            assert matches(arn) == any(resource_matches(p, arn) for p in patterns), (patterns, arn)


def test_resource_list_filter_agrees_with_resource_matches() -> None:
    """Filtering a list of ARNs keeps exactly those some pattern of the Resource list matches."""
    lists = [tuple(PATTERNS[i : i + n]) for n in (1, 2, 3) for i in range(len(PATTERNS) - n + 1)]
    for patterns in [*lists, tuple(p for p in PATTERNS if p != "*"), ("exact/key", "arn:aws:s3:::exact/keys")]:
        kept = resource_list_filter(patterns)(ARNS)
        assert kept == {arn for arn in ARNS if any(resource_matches(p, arn) for p in patterns)}, patterns


def test_statement_filter_agrees_with_statement_matches_resource() -> None:
    """A statement's filter (Resource, NotResource, or none) keeps the ARNs the statement covers."""
    from blastshield_core.sources.aws.iam.policy import parse_policy, statement_matches_resource

    for statement in (
        {"Effect": "Allow", "Action": "*", "Resource": PATTERNS[:3]},
        {"Effect": "Deny", "Action": "*", "NotResource": PATTERNS[:2]},
        {"Effect": "Allow", "Action": "*"},
        {"Effect": "Allow", "Principal": "*", "Action": "*"},
    ):
        (stmt,) = parse_policy({"Statement": [statement]})
        assert _resource_filter(stmt)(ARNS) == {a for a in ARNS if statement_matches_resource(stmt, a)}, statement
