"""The IAM policy evaluator, rule by rule, from tables of cases (no database)."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from blastshield_core.sources.aws.iam.policy import (
    Decision,
    Effect,
    PolicyFormatError,
    Principal,
    action_matches,
    arns_named,
    combine,
    decide,
    evaluate,
    may_assume,
    parse_policy,
    principal_matches,
    resource_matches,
    role_key,
    statement_matches_action,
    statement_matches_principal,
    statement_matches_resource,
)

A = "111111111111"
B = "222222222222"
ALICE = Principal(f"arn:aws:iam::{A}:user/alice", A, "user")
ROLE_X = Principal(f"arn:aws:iam::{A}:role/x", A, "role")
ROLE_B = Principal(f"arn:aws:iam::{B}:role/ops", B, "role")
# A role with a path, as IAM Identity Center makes them (`/aws-reserved/sso.amazonaws.com/`).
SSO = Principal(f"arn:aws:iam::{A}:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Admin_0123", A, "role")
EC2 = Principal("ec2.amazonaws.com", "", "service")
SAML = Principal(f"arn:aws:iam::{A}:saml-provider/okta", A, "federated")


def stmts(*statements: dict) -> list:
    return parse_policy({"Version": "2012-10-17", "Statement": list(statements)})


@pytest.mark.parametrize(
    ("pattern", "action", "expected"),
    [
        ("s3:GetObject", "s3:GetObject", True),
        ("S3:getobject", "s3:GetObject", True),
        ("s3:Get*", "s3:GetObject", True),
        ("s3:*", "s3:GetObject", True),
        ("*", "kms:Decrypt", True),
        ("s3:Get?bject", "s3:GetObject", True),
        ("s3:Put*", "s3:GetObject", False),
        ("s3:GetObject", "s3:GetObjectVersion", False),
        ("ssm:GetParameter*", "ssm:GetParametersByPath", True),
        ("sts:*", "sts:AssumeRole", True),
        ("sts:Assume*", "sts:AssumeRoleWithSAML", True),
    ],
)
def test_action_glob_is_case_insensitive(pattern, action, expected):
    """Action patterns match as case-insensitive globs (`*`, `?`)."""
    assert action_matches(pattern, action) is expected


@pytest.mark.parametrize(
    ("pattern", "arn", "expected"),
    [
        ("*", "arn:aws:s3:::b/k", True),
        ("arn:aws:s3:::b/*", "arn:aws:s3:::b/k", True),
        ("arn:aws:s3:::B/*", "arn:aws:s3:::b/k", False),
        ("arn:aws:iam::*:role/x", f"arn:aws:iam::{A}:role/x", True),
        (f"arn:aws:iam::{A}:role/?", f"arn:aws:iam::{A}:role/x", True),
        (f"arn:aws:iam::{A}:role/X", f"arn:aws:iam::{A}:role/x", False),
        ("arn:aws:s3:::b", "arn:aws:s3:::b/k", False),
    ],
)
def test_resource_glob_is_case_sensitive(pattern, arn, expected):
    """Resource patterns match ARNs as case-sensitive globs."""
    assert resource_matches(pattern, arn) is expected


@pytest.mark.parametrize(
    ("statement", "action", "expected"),
    [
        ({"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"}, "s3:GetObject", True),
        ({"Effect": "Allow", "NotAction": ["iam:*", "s3:*"], "Resource": "*"}, "s3:GetObject", False),
        ({"Effect": "Allow", "NotAction": "sts:AssumeRole", "Resource": "*"}, "sts:AssumeRole", False),
        ({"Effect": "Allow", "Action": ["iam:*", "s3:Get*"], "Resource": "*"}, "s3:GetObject", True),
    ],
)
def test_not_action(statement, action, expected):
    """NotAction covers every action the list does not match."""
    assert statement_matches_action(stmts(statement)[0], action) is expected


@pytest.mark.parametrize(
    ("statement", "arn", "expected"),
    [
        ({"Effect": "Allow", "Action": "*", "NotResource": "arn:aws:s3:::private/*"}, "arn:aws:s3:::public/k", True),
        ({"Effect": "Allow", "Action": "*", "NotResource": "arn:aws:s3:::private/*"}, "arn:aws:s3:::private/k", False),
        (
            {"Effect": "Allow", "Action": "*", "Resource": ["arn:aws:s3:::a/*", "arn:aws:s3:::b/*"]},
            "arn:aws:s3:::b/k",
            True,
        ),
        ({"Effect": "Allow", "Action": "*"}, "arn:aws:s3:::b/k", False),
    ],
)
def test_not_resource(statement, arn, expected):
    """NotResource covers every resource the list does not match; an identity statement needs a Resource."""
    assert statement_matches_resource(stmts(statement)[0], arn) is expected


@pytest.mark.parametrize(
    ("kind", "entry", "who", "expected"),
    [
        ("AWS", "*", ALICE, True),
        ("*", "*", ROLE_B, True),
        ("AWS", A, ALICE, True),
        ("AWS", B, ALICE, False),
        ("AWS", f"arn:aws:iam::{A}:root", ROLE_X, True),
        ("AWS", f"arn:aws:iam::{B}:root", ROLE_X, False),
        ("AWS", f"arn:aws:iam::{A}:user/alice", ALICE, True),
        ("AWS", f"arn:aws:iam::{A}:user/Alice", ALICE, False),
        ("AWS", f"arn:aws:sts::{A}:assumed-role/x/session-1", ROLE_X, True),
        ("AWS", f"arn:aws:sts::{A}:assumed-role/AWSReservedSSO_Admin_0123/alice@example.com", SSO, True),
        ("AWS", f"arn:aws:sts::{A}:assumed-role/AWSReservedSSO_Admin_0123/alice@example.com", ROLE_X, False),
        ("AWS", f"arn:aws:sts::{B}:assumed-role/AWSReservedSSO_Admin_0123/alice@example.com", SSO, False),
        ("AWS", f"arn:aws:iam::{A}:role/AWSReservedSSO_Admin_0123", SSO, False),  # a role ARN is exact, path and all
        ("AWS", f"arn:aws:iam::{A}:role/*", ROLE_X, True),
        ("Service", "EC2.amazonaws.com", EC2, True),
        ("Service", "lambda.amazonaws.com", EC2, False),
        ("AWS", A, EC2, False),
        ("Federated", f"arn:aws:iam::{A}:saml-provider/okta", SAML, True),
        ("Federated", f"arn:aws:iam::{A}:saml-provider/okta", ALICE, False),
    ],
)
def test_principal_matching(kind, entry, who, expected):
    """Principal entries: `*`, account id, root ARN, exact ARN, assumed-role session, wildcard, service, federated.

    A role session principal is `arn:aws:sts::ACCOUNT:assumed-role/ROLE-NAME/SESSION-NAME` (IAM User
    Guide, "AWS JSON policy elements: Principal", *Role session principals*): it names the role by its
    name alone, without the path the role's own ARN carries (IAM User Guide, "IAM identifiers": role
    ARNs hold the path, `role/application_abc/component_xyz/S3Access`; role names are unique in an
    account whatever their path), so it names the sessions of a role with a path too."""
    assert principal_matches(entry, kind, who) is expected


def test_not_principal_covers_everyone_else():
    """NotPrincipal in a Deny covers every principal it does not spare; it spares one only when its
    account is listed too ("AWS JSON policy elements: NotPrincipal")."""
    statement = stmts(
        {"Effect": "Deny", "NotPrincipal": {"AWS": [f"arn:aws:iam::{A}:root", ALICE.arn]}, "Action": "*"}
    )[0]
    assert statement_matches_principal(statement, ROLE_X) and not statement_matches_principal(statement, ALICE)
    bob = Principal(f"arn:aws:iam::{A}:user/bob", A, "user")
    assert statement_matches_principal(statement, bob)  # the account listed spares only the listed user
    alone = stmts({"Effect": "Deny", "NotPrincipal": {"AWS": ALICE.arn}, "Action": "*"})[0]
    assert statement_matches_principal(alone, ALICE)  # without the account, Alice is not spared


@pytest.mark.parametrize(
    ("entries", "spared"),
    [
        ([f"arn:aws:iam::{A}:role/x"], False),
        ([A, f"arn:aws:iam::{A}:role/x"], False),
        ([A, f"arn:aws:iam::{A}:role/x", f"arn:aws:sts::{A}:assumed-role/x/s1"], True),
        ([A, f"arn:aws:iam::{A}:role/path/x", f"arn:aws:sts::{A}:assumed-role/x/s1"], True),
        ([f"arn:aws:iam::{A}:root"], False),
        (["*"], True),
    ],
)
def test_not_principal_in_a_deny_spares_a_role_listed_with_its_account_and_a_session(entries, spared):
    statement = stmts({"Effect": "Deny", "NotPrincipal": {"AWS": entries}, "Action": "*"})[0]
    assert statement_matches_principal(statement, ROLE_X) is not spared
    root = Principal(f"arn:aws:iam::{A}:root", A, "root")
    assert statement_matches_principal(statement, root) is not (
        spared or f"arn:aws:iam::{A}:root" in entries or A in entries
    )


@pytest.mark.parametrize(
    ("statements", "expected"),
    [
        ([{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}], Effect.ALLOW),
        (
            [
                {"Effect": "Allow", "Action": "s3:*", "Resource": "*"},
                {"Effect": "Deny", "Action": "s3:Get*", "Resource": "*"},
            ],
            Effect.DENY,
        ),
        ([{"Effect": "Deny", "Action": "s3:*", "Resource": "*"}], Effect.DENY),
        ([{"Effect": "Allow", "Action": "s3:PutObject", "Resource": "*"}], Effect.NONE),
        ([], Effect.NONE),
    ],
)
def test_deny_over_allow(statements, expected):
    """An explicit Deny beats any Allow; no Allow is the implicit deny."""
    assert decide(stmts(*statements) if statements else [], "s3:GetObject", "arn:aws:s3:::b/k").effect is expected


@pytest.mark.parametrize(
    ("boundary", "expected"),
    [
        (None, Effect.ALLOW),
        ([{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}], Effect.ALLOW),
        ([{"Effect": "Allow", "Action": "ec2:*", "Resource": "*"}], Effect.NONE),
        (
            [
                {"Effect": "Allow", "Action": "*", "Resource": "*"},
                {"Effect": "Deny", "Action": "s3:*", "Resource": "*"},
            ],
            Effect.DENY,
        ),
    ],
)
def test_permissions_boundary_limits(boundary, expected):
    """A boundary must allow too: a boundary without the action gives none, a Deny in it denies."""
    identity = stmts({"Effect": "Allow", "Action": "*", "Resource": "*"})
    bound = stmts(*boundary) if boundary is not None else None
    assert evaluate(identity, "s3:GetObject", "arn:aws:s3:::b/k", boundary=bound).effect is expected


def test_conditional_allow_is_reported_with_keys():
    """An Allow with a Condition is a conditional allow naming the condition keys."""
    identity = stmts(
        {
            "Effect": "Allow",
            "Action": "s3:*",
            "Resource": "*",
            "Condition": {"Bool": {"aws:MultiFactorAuthPresent": "true"}},
        }
    )
    assert evaluate(identity, "s3:GetObject", "arn:aws:s3:::b/k") == Decision(
        Effect.ALLOW, True, ("aws:MultiFactorAuthPresent",)
    )


def test_conditional_deny_makes_an_allow_conditional():
    """A Deny with a Condition cannot be proven: the allow stays, conditional, with the deny's keys."""
    identity = stmts(
        {"Effect": "Allow", "Action": "s3:*", "Resource": "*"},
        {"Effect": "Deny", "Action": "*", "Resource": "*", "Condition": {"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}},
    )
    decision = evaluate(identity, "s3:GetObject", "arn:aws:s3:::b/k")
    assert (decision.effect, decision.conditional, decision.condition_keys) == (Effect.ALLOW, True, ("aws:SourceIp",))


def test_unconditional_allow_wins_over_a_conditional_one():
    """When both a conditional and an unconditional Allow apply, the answer is unconditional."""
    identity = stmts(
        {"Effect": "Allow", "Action": "s3:*", "Resource": "*", "Condition": {"Bool": {"aws:SecureTransport": "true"}}},
        {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"},
    )
    assert evaluate(identity, "s3:GetObject", "arn:aws:s3:::b/k") == Decision(Effect.ALLOW)


def test_combine_needs_every_allow():
    """combine: a deny anywhere denies, a missing allow is none, condition keys add up."""
    allow_c = Decision(Effect.ALLOW, True, ("k1",))
    assert combine(allow_c, Decision(Effect.ALLOW, True, ("k2",))) == Decision(Effect.ALLOW, True, ("k1", "k2"))
    assert combine(allow_c, Decision(Effect.NONE)).effect is Effect.NONE
    assert combine(Decision(Effect.NONE), Decision(Effect.DENY)).effect is Effect.DENY


def trust(*principals: dict, effect: str = "Allow", condition: dict | None = None) -> list:
    statements = [{"Effect": effect, "Principal": p, "Action": "sts:AssumeRole"} for p in principals]
    if condition:
        statements[0]["Condition"] = condition
    return stmts(*statements)


ASSUME_ANY = stmts({"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"})
TARGET = f"arn:aws:iam::{A}:role/target"


@pytest.mark.parametrize(
    ("case", "trust_policy", "who", "identity", "expected"),
    [
        ("exact ARN, same account, no identity allow", trust({"AWS": ALICE.arn}), ALICE, [], Effect.ALLOW),
        (
            "account root, same account, no identity allow",
            trust({"AWS": f"arn:aws:iam::{A}:root"}),
            ALICE,
            [],
            Effect.NONE,
        ),
        (
            "account root, same account, identity allow",
            trust({"AWS": f"arn:aws:iam::{A}:root"}),
            ALICE,
            ASSUME_ANY,
            Effect.ALLOW,
        ),
        ("account id, identity allow", trust({"AWS": A}), ROLE_X, ASSUME_ANY, Effect.ALLOW),
        ("star, identity allow", trust({"AWS": "*"}), ROLE_B, ASSUME_ANY, Effect.ALLOW),
        ("star, no identity allow", trust({"AWS": "*"}), ROLE_B, [], Effect.NONE),
        ("cross account exact ARN, no identity allow", trust({"AWS": ROLE_B.arn}), ROLE_B, [], Effect.NONE),
        ("cross account exact ARN, identity allow", trust({"AWS": ROLE_B.arn}), ROLE_B, ASSUME_ANY, Effect.ALLOW),
        (
            "cross account root, identity allow",
            trust({"AWS": f"arn:aws:iam::{B}:root"}),
            ROLE_B,
            ASSUME_ANY,
            Effect.ALLOW,
        ),
        ("other account root only", trust({"AWS": f"arn:aws:iam::{B}:root"}), ALICE, ASSUME_ANY, Effect.NONE),
        ("service principal is not a user", trust({"Service": "ec2.amazonaws.com"}), ALICE, ASSUME_ANY, Effect.NONE),
        (
            "identity Deny beats an exact trust",
            trust({"AWS": ALICE.arn}),
            ALICE,
            stmts({"Effect": "Deny", "Action": "sts:*", "Resource": "*"}),
            Effect.DENY,
        ),
        (
            "trust Deny beats identity allow",
            stmts(
                {"Effect": "Allow", "Principal": {"AWS": A}, "Action": "sts:AssumeRole"},
                {"Effect": "Deny", "Principal": {"AWS": ALICE.arn}, "Action": "sts:AssumeRole"},
            ),
            ALICE,
            ASSUME_ANY,
            Effect.DENY,
        ),
        (
            "NotAction identity allow covers sts",
            trust({"AWS": A}),
            ALICE,
            stmts({"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"}),
            Effect.ALLOW,
        ),
        (
            "NotResource identity allow excludes the role",
            trust({"AWS": A}),
            ALICE,
            stmts({"Effect": "Allow", "Action": "sts:AssumeRole", "NotResource": TARGET}),
            Effect.NONE,
        ),
        (
            "wildcard role ARN in identity policy",
            trust({"AWS": A}),
            ALICE,
            stmts({"Effect": "Allow", "Action": "sts:Assume*", "Resource": f"arn:aws:iam::{A}:role/tar*"}),
            Effect.ALLOW,
        ),
    ],
)
def test_may_assume(case, trust_policy, who, identity, expected):
    """The cross-account rule: trust and identity must both allow, except an exact ARN within one account."""
    assert may_assume(trust_policy, who, TARGET, A, identity).effect is expected, case


def test_may_assume_boundary_denies():
    """A boundary that denies sts:AssumeRole denies the assumption."""
    boundary = stmts(
        {"Effect": "Allow", "Action": "*", "Resource": "*"}, {"Effect": "Deny", "Action": "sts:*", "Resource": "*"}
    )
    decision = may_assume(trust({"AWS": A}), ALICE, TARGET, A, ASSUME_ANY, boundary=boundary)
    assert decision.effect is Effect.DENY


def test_may_assume_boundary_without_the_action_gives_none():
    """An account trust needs the identity allow, and a boundary that lacks sts:AssumeRole removes it."""
    boundary = stmts({"Effect": "Allow", "Action": "s3:*", "Resource": "*"})
    assert may_assume(trust({"AWS": A}), ALICE, TARGET, A, ASSUME_ANY, boundary=boundary).effect is Effect.NONE


def test_may_assume_conditional_trust():
    """A trust with a Condition gives a conditional allow with its keys."""
    policy = trust({"AWS": ALICE.arn}, condition={"StringEquals": {"sts:ExternalId": "x"}})
    assert may_assume(policy, ALICE, TARGET, A, []) == Decision(Effect.ALLOW, True, ("sts:ExternalId",))


@pytest.mark.parametrize(
    "document",
    [
        {"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}},
        json.dumps({"Statement": [{"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": ["*"]}]}),
        quote(json.dumps({"Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]})),
    ],
)
def test_parse_policy_accepts_objects_text_and_url_encoding(document):
    """Policy documents as objects, JSON text or URL-encoded text, with scalar-or-list values, read the same."""
    statement = parse_policy(document)[0]
    assert (statement.effect, statement.actions, statement.resources) == ("Allow", ("s3:GetObject",), ("*",))


@pytest.mark.parametrize(
    "document",
    [
        "not json",
        {"Version": "2012-10-17"},
        {"Statement": [{"Effect": "Maybe"}]},
        {"Statement": [{"Effect": "Allow", "Action": 3}]},
    ],
)
def test_parse_policy_refuses_non_policies(document):
    """Anything that is not a policy document is a PolicyFormatError (the importer turns it into a warning)."""
    with pytest.raises(PolicyFormatError):
        parse_policy(document)


def _statement(**fields) -> dict:
    return {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", **fields}]}


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (_statement(Action="s3:*", NotAction="iam:*", Resource="*"), "exactly one of Action and NotAction"),
        (_statement(Resource="*"), "exactly one of Action and NotAction"),
        (_statement(Action="s3:*", Resource="*", NotResource="x"), "both Resource and NotResource"),
        (_statement(Action="s3:*", Principal="*", NotPrincipal={"AWS": A}), "both Principal and NotPrincipal"),
        (_statement(Action="s3:*", Principal={}), "Principal must be"),
        (_statement(Action="s3:*", Resource="*", Condition={"StringEqualz": {"k": "v"}}), "unknown condition operator"),
        (_statement(Action="s3:*", Resource="*", Condition={"StringEquals": {"k": {"v": 1}}}), "values must be"),
        (_statement(Action="s3:*", Resource="*", Condition=["StringEquals"]), "Condition must be an object"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
)
def test_one_reader_one_strictness_for_every_policy(document, message):
    """Identity policies (`parse_policy`) and resource policies, trust policies and guardrails
    (`read_policy`) are read by the same reader: a statement AWS would refuse is refused by both,
    with the same reason (before, only `read_policy` refused Action together with NotAction)."""
    from blastshield_core.sources.aws.iam.evaluate_input import read_policy

    with pytest.raises(PolicyFormatError, match=message) as parsed:
        parse_policy(document)
    with pytest.raises(PolicyFormatError) as read:
        read_policy(document)
    assert str(read.value) == str(parsed.value)


def test_read_policy_rules_are_the_parsed_statements():
    from blastshield_core.sources.aws.iam.evaluate_input import Rule, read_policy

    document = {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "t", "Effect": "Allow", "Principal": {"AWS": A}, "Action": "sts:AssumeRole"},
            {
                "Effect": "Deny",
                "NotAction": "s3:*",
                "NotResource": "arn:aws:s3:::b/*",
                "Condition": {"Bool": {"k": "true"}},
            },
        ],
    }
    statements = parse_policy(document)
    assert read_policy(document) == [Rule.of(s, i) for i, s in enumerate(statements)]
    trust_rule, deny_rule = read_policy(document)
    assert (trust_rule.sid, trust_rule.resources, trust_rule.principals) == ("t", None, {"AWS": (A,)})
    assert (deny_rule.not_actions, deny_rule.not_resources, deny_rule.condition) == (
        ("s3:*",),
        ("arn:aws:s3:::b/*",),
        {"Bool": {"k": "true"}},
    )


NAMING_TRUSTS = [
    trust({"AWS": A}),
    trust({"AWS": f"arn:aws:iam::{A}:root"}),
    trust({"AWS": "*"}),
    trust({"AWS": ALICE.arn}),
    trust({"AWS": f"arn:aws:sts::{A}:assumed-role/x/session"}),
    stmts(
        {"Effect": "Allow", "Principal": {"AWS": A}, "Action": "sts:AssumeRole"},
        {"Effect": "Deny", "NotPrincipal": {"AWS": [ALICE.arn, B]}, "Action": "sts:AssumeRole"},
    ),
    stmts({"Effect": "Allow", "Principal": {"AWS": [A, ROLE_B.arn], "Service": "ec2.amazonaws.com"}, "Action": "*"}),
]
OTHERS = [
    Principal(f"arn:aws:iam::{A}:user/bob", A, "user"),
    Principal(f"arn:aws:iam::{A}:user/carol", A, "user"),
    Principal(f"arn:aws:iam::{A}:role/y", A, "role"),
    Principal(f"arn:aws:iam::{A}:role/z", A, "role"),
    Principal(f"arn:aws:iam::{B}:role/other", B, "role"),
    Principal(f"arn:aws:iam::{B}:role/more", B, "role"),
]


@pytest.mark.parametrize("trust_policy", NAMING_TRUSTS)
def test_principals_a_trust_does_not_name_get_one_answer_per_account_and_kind(trust_policy):
    """A user or role whose ARN the trust policy does not name answers as any other of its account and kind."""
    names, patterned = arns_named(trust_policy)
    assert not patterned
    for identity in ([], ASSUME_ANY):
        answers: dict[tuple[str, str], set[Decision]] = {}
        for who in [ALICE, ROLE_X, ROLE_B, *OTHERS]:
            decision = may_assume(trust_policy, who, TARGET, A, identity)
            key = (who.account, who.kind) if who.arn not in names else (who.arn, "")
            answers.setdefault(key, set()).add(decision)
        assert all(len(found) == 1 for found in answers.values()), answers


def test_arns_named_reads_sessions_and_patterns():
    """Exact ARNs and sessions (as their role) are named; accounts, roots and `*` are not; a glob is a pattern."""
    policy = stmts(
        {"Effect": "Allow", "Principal": {"AWS": [A, f"arn:aws:iam::{B}:root", "*", ALICE.arn]}, "Action": "*"},
        {"Effect": "Deny", "NotPrincipal": {"AWS": f"arn:aws:sts::{A}:assumed-role/x/s1"}, "Action": "*"},
    )
    assert arns_named(policy) == (frozenset({ALICE.arn, ROLE_X.arn}), False)
    assert arns_named(trust({"AWS": f"arn:aws:iam::{A}:role/t1-*"}))[1] is True
    # a session names its role without the path: as `role_key` writes the role's ARN
    sso_session = f"arn:aws:sts::{A}:assumed-role/AWSReservedSSO_Admin_0123/alice@example.com"
    assert arns_named(trust({"AWS": sso_session}))[0] == {role_key(SSO.arn)}
    assert role_key(SSO.arn) == f"arn:aws:iam::{A}:role/AWSReservedSSO_Admin_0123" and role_key(ALICE.arn) == ALICE.arn
