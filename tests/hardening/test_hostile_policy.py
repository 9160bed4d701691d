"""Hostile policy documents: wildcards that cannot backtrack, AWS's size bounds, statements in near-linear time.

Figures (before -> after, this machine): a resource pattern with 16 stars kept `import-aws` busy for
more than 120 s -> milliseconds; 8 stars against a 40-character ARN 1.4 s -> under 1 ms; one policy
of 16,000 statements naming 16,000 buckets 59 s -> refused with a warning in 0.01 s, and the same
statements split into policies AWS accepts 59 s -> 1 s (see HARDENING.md, "Hostile exports").
"""

from __future__ import annotations

import json
import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from blastshield_core.base.wildcard import compile_pattern, match
from blastshield_core.sources.aws.build import policy_sets
from blastshield_core.sources.aws.build.get import read_sources
from blastshield_core.sources.aws.build.load import build_document
from blastshield_core.sources.aws.build.policy_sets import _PolicySet
from blastshield_core.sources.aws.iam.bounds import (
    AWS_MANAGED_POLICY_CHARS,
    MAX_PATTERN,
    MAX_POLICY_CHARS,
    MAX_STATEMENTS,
)
from blastshield_core.sources.aws.iam.policy import (
    Principal,
    action_matches,
    evaluate,
    parse_policy,
    principal_matches,
    resource_matches,
    statement_matches_action,
)

A = "111111111111"


def _backtracking(pattern: str, case_sensitive: bool) -> re.Pattern[str]:
    """The translation the matcher replaced (`*` -> `.*`, `?` -> `.`), as the semantics to keep."""
    parts = ("." * (c == "?") or ".*" * (c == "*") or re.escape(c) for c in pattern)
    return re.compile("".join(parts), re.DOTALL | (0 if case_sensitive else re.IGNORECASE))


# ---------------------------------------------------------------- the matcher


@settings(max_examples=600, deadline=None, derandomize=True, database=None)
@given(
    pattern=st.text(alphabet="ab*?A/:\n.", max_size=12),
    text=st.text(alphabet="abAB/:\n.", max_size=14),
    case_sensitive=st.booleans(),
)
def test_matcher_agrees_with_the_backtracking_translation(pattern, text, case_sensitive):
    expected = _backtracking(pattern, case_sensitive).fullmatch(text) is not None
    assert (compile_pattern(pattern, case_sensitive).fullmatch(text) is not None) == expected
    assert match(pattern, text, case_sensitive) == expected
    if case_sensitive:
        assert resource_matches(pattern, text) == expected
    else:
        assert action_matches(pattern, text) == expected


def test_matcher_cases_by_hand():
    assert match("arn:aws:s3:::b*/*", "arn:aws:s3:::bucket/key")
    assert not match("arn:aws:s3:::b*/*", "arn:aws:s3:::bucket")
    assert match("a?c", "abc") and not match("a?c", "ac")
    assert match("*", "") and match("**", "x\ny") and not match("", "x")
    assert match("S3:Get*", "s3:getobject", case_sensitive=False)
    assert not match("S3:Get*", "s3:getobject")
    assert compile_pattern("a*b*c").fullmatch("aXbYc") and not compile_pattern("a*b*c").fullmatch("aXbYcd")


def test_fifty_stars_against_two_thousand_characters_finish_in_well_under_a_second():
    """Before: 8 stars against a 40-character ARN took 1.4 s, each star about four times more."""
    arn = "arn:aws:s3:::" + "a" * 2000
    patterns = ["arn:aws:s3:::" + "*a" * 50 + "*z", "*a" * 50 + "?" * 60 + "b", "*a?" * 50 + "b"]
    who = Principal(f"arn:aws:iam::{A}:role/" + "a" * 2000, A, "role")
    started = time.perf_counter()
    for pattern in patterns:
        assert not resource_matches(pattern, arn)
        assert not action_matches(pattern, arn)
        assert not match(pattern, arn)  # the matcher for Like conditions
        assert not principal_matches(pattern, "AWS", who)
    assert resource_matches("arn:aws:s3:::" + "*a" * 50 + "*", arn)
    assert match("arn:aws:s3:::" + "*a" * 50 + "*", arn)
    assert time.perf_counter() - started < 1.0


def _gaad(*policies: tuple[str, dict], users: int = 1) -> bytes:
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": A}, "Action": "sts:*"}]}
    return json.dumps(
        {
            "UserDetailList": [
                {
                    "UserName": f"u{j}",
                    "UserId": f"AIDA{j:016d}",
                    "Arn": f"arn:aws:iam::{A}:user/u{j}",
                    "UserPolicyList": [{"PolicyName": name, "PolicyDocument": doc} for name, doc in policies],
                    "GroupList": [],
                    "AttachedManagedPolicies": [],
                }
                for j in range(users)
            ],
            "GroupDetailList": [],
            "RoleDetailList": [
                {
                    "RoleName": "target",
                    "RoleId": "AROA0000000000000001",
                    "Arn": f"arn:aws:iam::{A}:role/target",
                    "AssumeRolePolicyDocument": trust,
                    "RolePolicyList": [],
                    "AttachedManagedPolicies": [],
                }
            ],
            "Policies": [],
        }
    ).encode()


def test_a_planted_sixteen_star_pattern_imports_at_once():
    """Before: a 2.5 KB export with this pattern kept `import-aws` busy for more than 120 s."""
    pattern = "arn:aws:s3:::" + "".join(f"*{c}" for c in "abcdefghijklmnop")
    trust_pattern = f"arn:aws:iam::{A}:" + "*r" * 16
    doc = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*et*O*b*j*", "Resource": pattern}]}
    raw = _gaad(("planted", doc))
    raw = raw.replace(f'"AWS": "{A}"'.encode(), f'"AWS": "{trust_pattern}"'.encode())
    buckets = json.dumps({"Buckets": [{"Name": "a" * 40 + "z"}, {"Name": "bucket-" + "x" * 50}]}).encode()
    started = time.perf_counter()
    document, report = build_document(read_sources([("gaad.json", raw), ("buckets.json", buckets)]))
    assert time.perf_counter() - started < 10.0  # generous on a loaded machine; it takes milliseconds
    assert report.accounts == [A]
    assert document.nodes


# ---------------------------------------------------------------- AWS's bounds


def _warnings_for(document) -> list[dict[str, str]]:
    _, report = build_document(read_sources([("gaad.json", _gaad(("big", document)))]))
    return [w for w in report.warnings if "policy document ignored" in w["message"]]


def test_documents_beyond_aws_bounds_are_warnings_naming_the_item():
    many = {"Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}] * (MAX_STATEMENTS + 1)}
    long_doc = {"Statement": [{"Effect": "Allow", "Action": [f"s3:Get{i:06d}" for i in range(1200)], "Resource": "*"}]}
    long_pattern = {"Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "arn:" + "*" * MAX_PATTERN}]}
    deep_text = "[" * 9000 + "]" * 9000
    long_text = " " * (4 * MAX_POLICY_CHARS) + "{}"
    for document, said in (
        (many, f"{MAX_STATEMENTS + 1} statements"),
        (long_doc, "characters without whitespace"),
        (long_pattern, f"a pattern of {MAX_PATTERN + 4} characters"),
        (deep_text, "nested too deeply"),
        (long_text, f"{len(long_text)} characters"),
    ):
        found = _warnings_for(document)
        assert len(found) == 1, (said, found)
        assert "inline big" in found[0]["item"], found
        assert said in found[0]["message"], found


def _managed(*policies: tuple[str, dict]) -> bytes:
    """A GAAD whose user u0 has the managed policies attached, listed in `Policies` as the CLI writes them."""
    gaad = json.loads(_gaad())
    gaad["UserDetailList"][0]["AttachedManagedPolicies"] = [
        {"PolicyName": arn.rsplit("/", 1)[-1], "PolicyArn": arn} for arn, _ in policies
    ]
    gaad["Policies"] = [
        {
            "PolicyName": arn.rsplit("/", 1)[-1],
            "Arn": arn,
            "DefaultVersionId": "v1",
            "PolicyVersionList": [{"VersionId": "v1", "IsDefaultVersion": True, "Document": doc}],
        }
        for arn, doc in policies
    ]
    return json.dumps(gaad).encode()


def test_an_aws_managed_policy_beyond_the_customer_quotas_is_evaluated():
    """AWS managed policies are AWS's own: the character limits of IAM User Guide, "IAM and AWS STS quotas"
    bound the policies an account writes, and AWS's exceed them (a real export's `ReadOnlyAccess` has
    46,948 characters without whitespace, `AWSSupportServiceRolePolicy` 81,373). One of 20,000 characters is evaluated
    (its sts:AssumeRole gives the edge); the same document as a customer managed policy is ignored with a
    warning, and an AWS managed one beyond its own bound too."""
    actions = ["sts:AssumeRole", *(f"svc{i:04d}:Describe*" for i in range(1000))]
    big = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": actions, "Resource": "*"}]}
    assert MAX_POLICY_CHARS < len(json.dumps(big, separators=(",", ":"))) < AWS_MANAGED_POLICY_CHARS
    edge = (f"{A}:user:u0:policies", "CAN_ASSUME", f"{A}:role:target")
    for arn, evaluated in (
        ("arn:aws:iam::aws:policy/ReadOnlyAccess", True),
        ("arn:aws-us-gov:iam::aws:policy/ReadOnlyAccess", True),
        (f"arn:aws:iam::{A}:policy/big", False),
    ):
        document, report = build_document(read_sources([("gaad.json", _managed((arn, big)))]))
        ignored = [w for w in report.warnings if "policy document ignored" in w["message"]]
        assert (edge in {(e.source, e.type.value, e.target) for e in document.edges}) is evaluated, arn
        assert (ignored == []) is evaluated, (arn, ignored)
    huge = {"Statement": [{"Effect": "Allow", "Action": actions * 60, "Resource": "*"}]}
    _, report = build_document(read_sources([("gaad.json", _managed(("arn:aws:iam::aws:policy/Huge", huge)))]))
    [ignored] = [w for w in report.warnings if "policy document ignored" in w["message"]]
    assert "an AWS managed policy may have 1048576" in ignored["message"], ignored


def test_a_document_within_the_bounds_is_evaluated():
    statements = [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": f"arn:aws:iam::{A}:role/target"}]
    assert _warnings_for({"Statement": statements * 100}) == []


# ---------------------------------------------------------------- statements in near-linear time

ACTIONS = ("s3:GetObject", "s3:ListBucket", "sts:AssumeRole")
RESOURCES = ["arn:aws:s3:::a", "arn:aws:s3:::a/k", "arn:aws:s3:::b/k", "arn:aws:s3:::ab", "arn:aws:iam::1:role/r"]
_statement = st.fixed_dictionaries(
    {
        "Effect": st.sampled_from(["Allow", "Deny"]),
        "Action": st.sampled_from(["*", "s3:*", "s3:Get*", "sts:AssumeRole", "s3:List?ucket"]),
        "Resource": st.lists(
            st.sampled_from(
                ["*", "arn:aws:s3:::a", "arn:aws:s3:::a*", "arn:aws:s3:::*/k", "*:role/?", "arn:aws:s3:::b/k"]
            ),
            min_size=1,
            max_size=2,
        ),
    },
    optional={"Condition": st.sampled_from([{"Bool": {"aws:SecureTransport": "true"}}, {"StringLike": {"s3:x": "y"}}])},
)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(identity=st.lists(_statement, max_size=8), boundary=st.none() | st.lists(_statement, max_size=4))
def test_policy_set_answers_as_evaluate(identity, boundary):
    """The summarised decisions (`_PolicySet.keys` + `decided`) equal evaluating every statement in order."""
    own = parse_policy({"Statement": identity}) if identity else []
    limit = None if boundary is None else parse_policy({"Statement": boundary}) if boundary else []
    prepared = _PolicySet(own, limit, ACTIONS, statement_matches_action)
    for resource, key in zip(RESOURCES, prepared.keys(RESOURCES), strict=True):
        assert key == prepared.key(resource)
        expected = tuple(evaluate(own, action, resource, boundary=limit) for action in ACTIONS)
        assert prepared.decided(key) == expected, (resource, key)


def test_statements_cost_their_matches_not_every_other_statement(monkeypatch):
    """Statements each naming their own bucket: the work grows with the statements, not their square.

    Before: one policy of 1,000 / 4,000 / 16,000 such statements evaluated in 0.24 / 2.7 / 59 s (every
    statement's Resource tried on every candidate ARN, every statement visited for every resource).
    """
    counts = {"added": 0, "tested": 0}
    add, starting = policy_sets._Matched.add, policy_sets._SortedArns.starting

    def counting_add(self, position, stmt):
        counts["added"] += 1
        return add(self, position, stmt)

    def counting_starting(self, prefix):
        found = starting(self, prefix)
        counts["tested"] += len(found)
        return found

    monkeypatch.setattr(policy_sets._Matched, "add", counting_add)
    monkeypatch.setattr(policy_sets._SortedArns, "starting", counting_starting)
    for n in (500, 2000):
        counts.update(added=0, tested=0)
        statements = [
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::b{i}/*"} for i in range(n)
        ]
        statements.append({"Effect": "Deny", "Action": "s3:*", "Resource": "arn:aws:s3:::b1*/x"})
        own = parse_policy({"Statement": statements})
        prepared = _PolicySet(own, None, ACTIONS, statement_matches_action)
        arns = [f"arn:aws:s3:::b{i}/k" for i in range(n)]
        keys = prepared.keys(arns)
        decisions = [prepared.decided(key) for key in keys]
        assert decisions[3][0].allowed and not decisions[3][1].allowed
        # each statement tests the ARNs its literal prefix allows (b1/ also starts b1*, b10/... ), and
        # each resource's decision visits the statements that name it
        assert counts["tested"] <= 3 * n, (n, counts)
        assert counts["added"] <= 2 * n, (n, counts)
