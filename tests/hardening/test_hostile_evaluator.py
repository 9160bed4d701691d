"""The policy evaluator's edge cases (HARDENING.md, "The evaluator's edge cases"), each in the shape
it was found: a `${*}` pattern that made the matcher backtrack, role paths in `aws:PrincipalArn`,
NotPrincipal, anonymous callers, and a request nested 100,000 deep.

Timing is held by a subprocess with a generous timeout (the shapes took 37 s and more than 100 s
before; they now take milliseconds), the answers by assertions on them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from blastshield_core.base.wildcard import compile_pattern
from blastshield_core.sources.aws.iam.conditions import LITERAL, Context, condition_holds, glob_match
from blastshield_core.sources.aws.iam.evaluate import (
    ALLOWED,
    EXPLICITLY_DENIED,
    IMPLICITLY_DENIED,
    RequestError,
    evaluate_request,
)
from tests.helpers.paths import ROOT

A = "123456789012"
STARRED = "*a" * 8 + "*${*}"  # eight `*a` pieces, then a literal star: the shape that took 37 s
SIXTY = "a" * 60


def _run(code: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,  # before: 37 s (policy-eval) and more than 100 s (import-aws); now milliseconds
        check=False,
    )


def policy(*statements: dict) -> dict:
    return {"Version": "2012-10-17", "Statement": list(statements)}


# ---------------------------------------------------------------- 4. `${*}` through the linear matcher


def test_a_literal_star_from_a_policy_variable_is_itself_and_the_rest_are_wildcards():
    """IAM User Guide, "IAM policy elements: Variables and tags" (special characters): `${*}` is a
    literal `*`; the other stars of the pattern stay wildcards."""
    condition = {"StringLike": {"aws:PrincipalTag/team": STARRED}}
    assert condition_holds(condition, Context.build({"aws:PrincipalTag/team": SIXTY + "*"}, {}))[0] is True
    assert condition_holds(condition, Context.build({"aws:PrincipalTag/team": SIXTY}, {}))[0] is False
    assert condition_holds(condition, Context.build({"aws:PrincipalTag/team": "b*"}, {}))[0] is False
    marked = "a" + LITERAL + "?" + "*" + LITERAL + "$"
    assert glob_match(marked, "a?xyz$") and not glob_match(marked, "abxyz$")
    # the compiled pattern holds no backtracking construct: each middle segment is an atomic group
    assert "(?>" in compile_pattern(STARRED.replace("${*}", LITERAL + "*"), True, LITERAL).pattern


def test_the_starred_string_like_request_is_answered_at_once_by_policy_eval(tmp_path):
    request = {
        "principal": f"arn:aws:iam::{A}:user/alice",
        "action": "s3:GetObject",
        "resource": "arn:aws:s3:::bucket/key",
        "identity_policies": [
            policy(
                {
                    "Effect": "Allow",
                    "Action": "s3:GetObject",
                    "Resource": "*",
                    "Condition": {"StringLike": {"aws:PrincipalTag/team": STARRED}},
                }
            )
        ],
        "context": {"aws:PrincipalTag/team": SIXTY},
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps([request, {**request, "context": {"aws:PrincipalTag/team": SIXTY + "*"}}]))
    done = _run(
        f"""
        import sys
        from blastshield_core.interfaces.cli import main
        sys.exit(main(["policy-eval", {str(path)!r}, "--json"]))
        """
    )
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    assert [a["decision"] for a in answers] == [IMPLICITLY_DENIED, ALLOWED]


def _export(tag: str) -> bytes:
    user = {
        "UserName": "alice",
        "UserId": "AIDA0000000000000001",
        "Arn": f"arn:aws:iam::{A}:user/alice",
        "Tags": [{"Key": "team", "Value": tag}],
        "UserPolicyList": [
            {
                "PolicyName": "team",
                "PolicyDocument": policy(
                    {
                        "Effect": "Allow",
                        "Action": "s3:GetObject",
                        "Resource": "arn:aws:s3:::data/*",
                        "Condition": {"StringLike": {"aws:PrincipalTag/team": STARRED}},
                    }
                ),
            }
        ],
        "GroupList": [],
        "AttachedManagedPolicies": [],
    }
    gaad = {"UserDetailList": [user], "GroupDetailList": [], "RoleDetailList": [], "Policies": []}
    return json.dumps(gaad).encode()


@pytest.mark.parametrize(
    ("tag", "reads"), [(SIXTY, False), (SIXTY + "*", True)], ids=["no-literal-star", "literal-star"]
)
def test_the_one_kilobyte_export_with_a_tag_condition_imports_at_once(tmp_path, tag, reads):
    """Before: this export (a user tag and an inline policy testing aws:PrincipalTag/team) kept
    `import-aws` busy for more than 100 s: the snapshot decides the tag condition with the matcher."""
    raw = _export(tag)
    assert len(raw) < 1100
    (tmp_path / "gaad.json").write_bytes(raw)
    (tmp_path / "buckets.json").write_text(json.dumps({"Buckets": [{"Name": "data"}]}))
    done = _run(
        f"""
        import json
        from pathlib import Path
        from blastshield_core.sources.aws.build.get import read_sources
        from blastshield_core.sources.aws.build.load import build_document
        folder = Path({str(tmp_path)!r})
        files = [(name, (folder / name).read_bytes()) for name in ("gaad.json", "buckets.json")]
        document, _ = build_document(read_sources(files))
        reads = [(e.source, e.target, e.properties) for e in document.edges if e.type == "CAN_READ"]
        print(json.dumps(reads, default=str))
        """
    )
    assert done.returncode == 0, done.stderr
    reads_found = json.loads(done.stdout)
    from_alice = [(source, props) for source, _, props in reads_found if "alice" in source]
    if reads:
        assert from_alice and all(not props.get("conditional") for _, props in from_alice), from_alice
    else:
        assert from_alice == []


# ---------------------------------------------------------------- 5. role paths in aws:PrincipalArn

SESSION = f"arn:aws:sts::{A}:assumed-role/R/s1"
TEAM_ROLE = f"arn:aws:iam::{A}:role/team/R"
FULL = policy({"Effect": "Allow", "Action": "*", "Resource": "*"})
TEAM_DENY = policy(
    {
        "Effect": "Deny",
        "Principal": "*",
        "Action": "s3:*",
        "Resource": "*",
        "Condition": {"ArnLike": {"aws:PrincipalArn": f"arn:aws:iam::{A}:role/team/*"}},
    }
)


def _req(principal: str, **fields) -> dict:
    return {
        "principal": principal,
        "action": "s3:GetObject",
        "resource": "arn:aws:s3:::bucket/key",
        "resource_account": A,
        **fields,
    }


def test_a_session_of_a_role_with_a_path_is_denied_by_an_arn_like_on_the_path():
    """IAM User Guide, "AWS global condition context keys", aws:PrincipalArn: for a role session it is
    the role's ARN, path included. Before: the path was dropped and the Deny missed (allowed)."""
    answer = evaluate_request(_req(SESSION, identity_policies=[FULL], resource_policy=TEAM_DENY, role_arn=TEAM_ROLE))
    assert (answer["decision"], answer["conditional"]) == (EXPLICITLY_DENIED, False)
    role = evaluate_request(_req(TEAM_ROLE, identity_policies=[FULL], resource_policy=TEAM_DENY))
    assert role["decision"] == EXPLICITLY_DENIED


def test_a_bare_session_arn_leaves_the_principal_arn_unknown_and_names_it():
    """A session ARN does not carry its role's path: the key is unknown, the answer conditional."""
    answer = evaluate_request(_req(SESSION, identity_policies=[FULL], resource_policy=TEAM_DENY))
    assert (answer["decision"], answer["conditional"], answer["if_keys_fail"]) == (ALLOWED, True, EXPLICITLY_DENIED)
    assert answer["unknown_keys"] == ["aws:PrincipalArn"]


SSO = "AWSReservedSSO_Admin_0123456789abcdef"
SSO_ALLOW = policy(
    {
        "Effect": "Allow",
        "Principal": "*",
        "Action": "s3:GetObject",
        "Resource": "*",
        "Condition": {"ArnLike": {"aws:PrincipalArn": "arn:aws:iam::*:role/aws-reserved/sso.amazonaws.com/*"}},
    }
)


def test_the_sso_allow_pattern_matches_a_session_whose_role_path_is_known():
    """The reverse error: the common `aws-reserved/sso.amazonaws.com/*` Allow was missed (denied)."""
    session = f"arn:aws:sts::{A}:assumed-role/{SSO}/alice@example.org"
    role = f"arn:aws:iam::{A}:role/aws-reserved/sso.amazonaws.com/{SSO}"
    answer = evaluate_request(_req(session, resource_policy=SSO_ALLOW, role_arn=role))
    assert (answer["decision"], answer["conditional"]) == (ALLOWED, False)
    unknown = evaluate_request(_req(session, resource_policy=SSO_ALLOW))
    assert (unknown["decision"], unknown["conditional"], unknown["if_keys_fail"]) == (ALLOWED, True, IMPLICITLY_DENIED)
    assert unknown["unknown_keys"] == ["aws:PrincipalArn"]
    given = evaluate_request(_req(session, resource_policy=SSO_ALLOW, context={"aws:PrincipalArn": role}))
    assert (given["decision"], given["conditional"]) == (ALLOWED, False)


@pytest.mark.parametrize(
    "role",
    [f"arn:aws:iam::{A}:role/team/Other", "arn:aws:iam::111111111111:role/team/R", f"arn:aws:iam::{A}:user/R"],
)
def test_a_role_arn_that_is_not_the_sessions_role_is_refused(role):
    with pytest.raises(RequestError, match="role_arn"):
        evaluate_request(_req(SESSION, role_arn=role))


# ---------------------------------------------------------------- 6. NotPrincipal


def _not_principal(*entries: str) -> dict:
    return policy({"Effect": "Deny", "NotPrincipal": {"AWS": list(entries)}, "Action": "s3:*", "Resource": "*"})


ROOT_ARN = f"arn:aws:iam::{A}:root"
ROLE_ARN = f"arn:aws:iam::{A}:role/R"
USER = f"arn:aws:iam::{A}:user/bob"


@pytest.mark.parametrize(
    ("principal", "entries", "expected"),
    [
        # IAM User Guide, "AWS JSON policy elements: NotPrincipal": the account must be listed too
        (USER, [USER], EXPLICITLY_DENIED),
        (USER, [ROOT_ARN, USER], ALLOWED),
        (USER, [A, USER], ALLOWED),
        (f"arn:aws:iam::{A}:user/alice", [ROOT_ARN, USER], EXPLICITLY_DENIED),
        # an assumed-role session: the account, then the role, then the session
        (SESSION, [ROLE_ARN], EXPLICITLY_DENIED),
        (SESSION, [ROLE_ARN, SESSION], EXPLICITLY_DENIED),
        (SESSION, [ROOT_ARN, ROLE_ARN], EXPLICITLY_DENIED),
        (SESSION, [ROOT_ARN, ROLE_ARN, SESSION], ALLOWED),
        (SESSION, [ROOT_ARN, TEAM_ROLE, SESSION], ALLOWED),  # the role by its ARN with a path
        (f"arn:aws:sts::{A}:assumed-role/R/s2", [ROOT_ARN, ROLE_ARN, SESSION], EXPLICITLY_DENIED),
        (A, [ROOT_ARN], ALLOWED),  # the root user is its account
    ],
)
def test_deny_with_not_principal_spares_only_a_caller_listed_at_every_level(principal, entries, expected):
    answer = evaluate_request(_req(principal, identity_policies=[FULL], resource_policy=_not_principal(*entries)))
    assert answer["decision"] == expected, answer


def test_allow_with_not_principal_is_refused_with_the_reason():
    """AWS does not support NotPrincipal with Allow; it was answered `allowed` for everyone else."""
    allow_others = policy({"Effect": "Allow", "NotPrincipal": {"AWS": USER}, "Action": "s3:*", "Resource": "*"})
    with pytest.raises(RequestError, match="NotPrincipal with Allow is not supported"):
        evaluate_request(_req(f"arn:aws:iam::{A}:user/alice", resource_policy=allow_others))


# ---------------------------------------------------------------- 7. anonymous callers

ANYONE = {"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*"}


@pytest.mark.parametrize(
    ("action", "resource"),
    [
        ("sts:AssumeRole", f"arn:aws:iam::{A}:role/open"),
        ("kms:Decrypt", f"arn:aws:kms:us-east-1:{A}:key/1234abcd-12ab-34cd-56ef-1234567890ab"),
        ("secretsmanager:GetSecretValue", f"arn:aws:secretsmanager:us-east-1:{A}:secret:s-AbCdEf"),
    ],
)
def test_an_anonymous_caller_cannot_make_a_request_that_must_be_signed(action, resource):
    """IAM User Guide, "AWS Signature Version 4 for API requests": requests are signed, except
    anonymous requests to Amazon S3 and some STS operations. Before: `Principal: "*"` allowed them."""
    answer = evaluate_request(
        {"principal": "*", "action": action, "resource": resource, "resource_policy": policy(ANYONE)}
    )
    assert (answer["decision"], answer["conditional"]) == (IMPLICITLY_DENIED, False)
    assert "signed request" in answer["reason"]


def test_an_anonymous_read_of_a_public_object_is_still_allowed():
    answer = evaluate_request(
        {
            "principal": "*",
            "action": "s3:GetObject",
            "resource": "arn:aws:s3:::public/x",
            "resource_policy": policy(ANYONE),
        }
    )
    assert answer["decision"] == ALLOWED
    private = evaluate_request({"principal": "*", "action": "s3:GetObject", "resource": "arn:aws:s3:::private/x"})
    assert private["decision"] == IMPLICITLY_DENIED


# ---------------------------------------------------------------- 9. a request nested 100,000 deep


@pytest.mark.parametrize("flags", [[], ["--json"]])
def test_a_request_nested_one_hundred_thousand_deep_exits_2_with_the_reason(tmp_path, flags):
    """Before: a RecursionError traceback and exit 1."""
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    done = subprocess.run(
        [sys.executable, "-m", "blastshield_core", "policy-eval", str(path), *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr + done.stdout
    said = json.loads(done.stdout)["error"] if flags else done.stderr
    assert "nested too deeply" in said


def test_a_policy_document_nested_too_deeply_inside_a_request_is_refused():
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(RequestError, match="nested too deeply"):
        evaluate_request(_req(USER, identity_policies=[deep]))


# ---------------------------------------------------------------- one reader for every policy


def test_an_identity_policy_aws_would_refuse_is_ignored_with_a_warning_as_a_resource_policy_is():
    """Identity policies were read by a laxer reader than resource policies: a statement with both
    Action and NotAction granted through its Action list. Now the one reader refuses it for both."""
    from blastshield_core.sources.aws.build.get import read_sources
    from blastshield_core.sources.aws.build.load import build_document

    both = policy({"Effect": "Allow", "Action": "s3:GetObject", "NotAction": "iam:*", "Resource": "*"})
    gaad = json.loads(_export(SIXTY + "*"))
    gaad["UserDetailList"][0]["UserPolicyList"] = [{"PolicyName": "both", "PolicyDocument": both}]
    buckets = json.dumps({"Buckets": [{"Name": "data"}]}).encode()
    document, report = build_document(read_sources([("gaad.json", json.dumps(gaad).encode()), ("b.json", buckets)]))
    assert [e for e in document.edges if e.type == "CAN_READ"] == []
    assert any(
        "policy document ignored: Statement[0] needs exactly one of Action and NotAction" in w["message"]
        for w in report.warnings
    ), report.warnings
