"""Condition operators, set operators and policy variables, table by table (no database).

Each case names the AWS documentation it comes from: the IAM User Guide's "IAM JSON policy
elements: Condition operators" (CO), "Creating a condition with multiple keys or values"
(MV) and "IAM policy elements: Variables and tags" (PV).
"""

from __future__ import annotations

import pytest

from blastshield_core.sources.aws.iam.conditions import ABSENT, UNKNOWN, Context, condition_holds, substitute
from blastshield_core.sources.aws.iam.policy import PolicyFormatError


def ctx(**given) -> Context:
    return Context.build({k.replace("__", ":").replace("_SL_", "/"): v for k, v in given.items()}, {})


def holds(condition: dict, context: Context, variables: bool = True):
    return condition_holds(condition, context, variables=variables)


CASES = [
    # (source, condition, context, expected)
    (
        "CO String: StringEquals is case-sensitive",
        {"StringEquals": {"aws:PrincipalTag/job-category": "iamuser-admin"}},
        {"aws:PrincipalTag/job-category": "iamuser-admin"},
        True,
    ),
    (
        "CO String: StringEquals is case-sensitive",
        {"StringEquals": {"aws:PrincipalTag/job-category": "iamuser-admin"}},
        {"aws:PrincipalTag/job-category": "IAMuser-admin"},
        False,
    ),
    (
        "CO String: StringEqualsIgnoreCase",
        {"StringEqualsIgnoreCase": {"aws:PrincipalTag/job": "Admin"}},
        {"aws:PrincipalTag/job": "ADMIN"},
        True,
    ),
    (
        "CO String: StringNotEqualsIgnoreCase",
        {"StringNotEqualsIgnoreCase": {"aws:PrincipalTag/job": "Admin"}},
        {"aws:PrincipalTag/job": "admin"},
        False,
    ),
    (
        "CO String: StringNotEquals",
        {"StringNotEquals": {"aws:RequestedRegion": ["us-east-1", "eu-west-1"]}},
        {"aws:RequestedRegion": "ap-south-1"},
        True,
    ),
    (
        "CO String: StringNotEquals is NOR over values",
        {"StringNotEquals": {"aws:RequestedRegion": ["us-east-1", "eu-west-1"]}},
        {"aws:RequestedRegion": "eu-west-1"},
        False,
    ),
    (
        "CO String: StringLike * anywhere",
        {"StringLike": {"s3:prefix": ["", "home/", "home/*"]}},
        {"s3:prefix": "home/david/"},
        True,
    ),
    ("CO String: StringLike ? one character", {"StringLike": {"s3:prefix": "home/?"}}, {"s3:prefix": "home/ab"}, False),
    (
        "CO String: StringLike is case-sensitive",
        {"StringLike": {"s3:prefix": "Home/*"}},
        {"s3:prefix": "home/x"},
        False,
    ),
    ("CO String: StringNotLike", {"StringNotLike": {"s3:prefix": "private/*"}}, {"s3:prefix": "public/x"}, True),
    (
        "CO: key absent, negated operator is true",
        {"StringNotLike": {"s3:prefix": "private/*"}},
        {"s3:prefix": None},
        True,
    ),
    ("CO: key absent, the values do not match", {"StringLike": {"s3:prefix": "*"}}, {"s3:prefix": None}, False),
    (
        "CO Numeric: NumericLessThanEquals s3:max-keys 10",
        {"NumericLessThanEquals": {"s3:max-keys": "10"}},
        {"s3:max-keys": "10"},
        True,
    ),
    (
        "CO Numeric: NumericLessThanEquals s3:max-keys 10",
        {"NumericLessThanEquals": {"s3:max-keys": "10"}},
        {"s3:max-keys": 11},
        False,
    ),
    ("CO Numeric: NumericEquals decimals", {"NumericEquals": {"k:n": "1.50"}}, {"k:n": "1.5"}, True),
    ("CO Numeric: NumericNotEquals", {"NumericNotEquals": {"k:n": "3"}}, {"k:n": "4"}, True),
    ("CO Numeric: NumericGreaterThan", {"NumericGreaterThan": {"k:n": "3"}}, {"k:n": "3"}, False),
    ("CO Numeric: NumericGreaterThanEquals", {"NumericGreaterThanEquals": {"k:n": "3"}}, {"k:n": "3"}, True),
    ("CO Numeric: NumericLessThan", {"NumericLessThan": {"k:n": "3"}}, {"k:n": "-1"}, True),
    (
        "CO Numeric: a value that is not a number does not match",
        {"NumericLessThan": {"k:n": "3"}},
        {"k:n": "abc"},
        False,
    ),
    (
        "CO Date: DateGreaterThan aws:TokenIssueTime 2020",
        {"DateGreaterThan": {"aws:TokenIssueTime": "2020-01-01T00:00:01Z"}},
        {"aws:TokenIssueTime": "2020-06-01T00:00:00Z"},
        True,
    ),
    (
        "CO Date: DateGreaterThan aws:TokenIssueTime 2020",
        {"DateGreaterThan": {"aws:TokenIssueTime": "2020-01-01T00:00:01Z"}},
        {"aws:TokenIssueTime": "2019-12-31T23:59:59Z"},
        False,
    ),
    (
        "CO Date: epoch time against ISO 8601",
        {"DateLessThan": {"aws:CurrentTime": "2021-01-01T00:00:00Z"}},
        {"aws:CurrentTime": "1577836800"},
        True,
    ),
    (
        "CO Date: DateEquals",
        {"DateEquals": {"aws:CurrentTime": "2020-01-01"}},
        {"aws:CurrentTime": "2020-01-01T00:00:00Z"},
        True,
    ),
    (
        "CO Date: DateNotEquals",
        {"DateNotEquals": {"aws:CurrentTime": "2020-01-01T00:00:00Z"}},
        {"aws:CurrentTime": "2020-01-02T00:00:00Z"},
        True,
    ),
    (
        "CO Date: DateLessThanEquals",
        {"DateLessThanEquals": {"aws:EpochTime": "1600000000"}},
        {"aws:EpochTime": 1600000000},
        True,
    ),
    (
        "CO Date: DateGreaterThanEquals",
        {"DateGreaterThanEquals": {"aws:EpochTime": "1600000000"}},
        {"aws:EpochTime": 1599999999},
        False,
    ),
    (
        "CO Boolean: Bool aws:SecureTransport false",
        {"Bool": {"aws:SecureTransport": "false"}},
        {"aws:SecureTransport": False},
        True,
    ),
    (
        "CO Boolean: Bool aws:SecureTransport false",
        {"Bool": {"aws:SecureTransport": "false"}},
        {"aws:SecureTransport": "true"},
        False,
    ),
    (
        "CO Binary: BinaryEquals compares the base-64 value",
        {"BinaryEquals": {"k:b": "QmluYXJ5VmFsdWVJbkJhc2U2NA=="}},
        {"k:b": "QmluYXJ5VmFsdWVJbkJhc2U2NA=="},
        True,
    ),
    ("CO Binary: BinaryEquals", {"BinaryEquals": {"k:b": "QmluYXJ5VmFsdWVJbkJhc2U2NA=="}}, {"k:b": "b3RoZXI="}, False),
    (
        "CO IP: IpAddress 203.0.113.0/24",
        {"IpAddress": {"aws:SourceIp": "203.0.113.0/24"}},
        {"aws:SourceIp": "203.0.113.7"},
        True,
    ),
    (
        "CO IP: IpAddress 203.0.113.0/24",
        {"IpAddress": {"aws:SourceIp": "203.0.113.0/24"}},
        {"aws:SourceIp": "198.51.100.1"},
        False,
    ),
    (
        "CO IP: IPv6 range beside IPv4",
        {"IpAddress": {"aws:SourceIp": ["203.0.113.0/24", "2001:DB8:1234:5678::/64"]}},
        {"aws:SourceIp": "2001:db8:1234:5678::9"},
        True,
    ),
    (
        "CO IP: an address without prefix is /32",
        {"IpAddress": {"aws:SourceIp": "203.0.113.5"}},
        {"aws:SourceIp": "203.0.113.6"},
        False,
    ),
    (
        "CO IP: NotIpAddress",
        {"NotIpAddress": {"aws:SourceIp": "203.0.113.0/24"}},
        {"aws:SourceIp": "198.51.100.1"},
        True,
    ),
    (
        "CO ARN: ArnEquals aws:SourceArn",
        {"ArnEquals": {"aws:SourceArn": "arn:aws:sns:us-east-1:123456789012:TOPIC"}},
        {"aws:SourceArn": "arn:aws:sns:us-east-1:123456789012:TOPIC"},
        True,
    ),
    (
        "CO ARN: ArnLike matches part by part",
        {"ArnLike": {"aws:SourceArn": "arn:aws:someservice:*:111122223333:finance/*"}},
        {"aws:SourceArn": "arn:aws:someservice:us-east-2:999999999999:store/abc:111122223333:finance/document.txt"},
        False,
    ),
    (
        "CO ARN: StringLike matches where ArnLike does not",
        {"StringLike": {"aws:SourceArn": "arn:aws:someservice:*:111122223333:finance/*"}},
        {"aws:SourceArn": "arn:aws:someservice:us-east-2:999999999999:store/abc:111122223333:finance/document.txt"},
        True,
    ),
    (
        "CO ARN: ArnLike with wildcards",
        {"ArnLike": {"aws:PrincipalArn": "arn:aws:iam::*:role/admin-*"}},
        {"aws:PrincipalArn": "arn:aws:iam::111122223333:role/admin-x"},
        True,
    ),
    (
        "CO ARN: ArnNotLike",
        {"ArnNotLike": {"aws:PrincipalArn": "arn:aws:iam::*:role/admin-*"}},
        {"aws:PrincipalArn": "arn:aws:iam::111122223333:role/ops"},
        True,
    ),
    (
        "CO ARN: ArnNotEquals key absent is true",
        {"ArnNotEquals": {"aws:SourceArn": "arn:aws:sns:*:*:*"}},
        {"aws:SourceArn": None},
        True,
    ),
    (
        "CO IfExists: key absent is true",
        {"StringLikeIfExists": {"ec2:InstanceType": ["t1.*", "t2.*", "m3.*"]}},
        {"ec2:InstanceType": None},
        True,
    ),
    (
        "CO IfExists: key present is tested",
        {"StringLikeIfExists": {"ec2:InstanceType": ["t1.*", "t2.*", "m3.*"]}},
        {"ec2:InstanceType": "c5.large"},
        False,
    ),
    (
        "CO IfExists: StringNotEqualsIfExists absent is true",
        {"StringNotEqualsIfExists": {"aws:PrincipalOrgID": "o-123"}},
        {"aws:PrincipalOrgID": None},
        True,
    ),
    (
        "CO Null: true when the key is absent",
        {"Null": {"aws:TokenIssueTime": "true"}},
        {"aws:TokenIssueTime": None},
        True,
    ),
    (
        "CO Null: true when the key is absent",
        {"Null": {"aws:TokenIssueTime": "true"}},
        {"aws:TokenIssueTime": "2020-01-01T00:00:00Z"},
        False,
    ),
    (
        "CO Null: false when the key is present",
        {"Null": {"aws:TokenIssueTime": "false"}},
        {"aws:TokenIssueTime": "2020-01-01T00:00:00Z"},
        True,
    ),
    (
        "MV ForAllValues: every request value matches",
        {"ForAllValues:StringLike": {"aws:TagKeys": ["key1*"]}},
        {"aws:TagKeys": ["key1", "key1a"]},
        True,
    ),
    (
        "MV ForAllValues: one value outside fails",
        {"ForAllValues:StringLike": {"aws:TagKeys": ["key1*"]}},
        {"aws:TagKeys": ["key1", "key2"]},
        False,
    ),
    (
        "MV ForAllValues: true when the key is absent",
        {"ForAllValues:StringEquals": {"aws:TagKeys": ["a"]}},
        {"aws:TagKeys": None},
        True,
    ),
    (
        "MV ForAllValues: true for an empty set",
        {"ForAllValues:StringEquals": {"aws:TagKeys": ["a"]}},
        {"aws:TagKeys": []},
        True,
    ),
    (
        "MV ForAnyValue: one value matches",
        {"ForAnyValue:StringEquals": {"aws:TagKeys": ["environment", "cost-center"]}},
        {"aws:TagKeys": ["owner", "environment"]},
        True,
    ),
    (
        "MV ForAnyValue: false when the key is absent",
        {"ForAnyValue:StringEquals": {"aws:TagKeys": ["a"]}},
        {"aws:TagKeys": None},
        False,
    ),
    (
        "MV ForAnyValue: false for an empty set",
        {"ForAnyValue:StringEquals": {"aws:TagKeys": ["a"]}},
        {"aws:TagKeys": []},
        False,
    ),
    (
        "MV ForAllValues:StringNotEquals: none of the request values listed",
        {"ForAllValues:StringNotEquals": {"aws:TagKeys": ["secret"]}},
        {"aws:TagKeys": ["a", "b"]},
        True,
    ),
    (
        "MV ForAnyValue:StringNotEquals: some request value not listed",
        {"ForAnyValue:StringNotEquals": {"aws:TagKeys": ["a"]}},
        {"aws:TagKeys": ["a"]},
        False,
    ),
    (
        "CO: several keys in one operator must all hold",
        {"StringEquals": {"sns:Protocol": "https", "k:x": "1"}},
        {"sns:Protocol": "https", "k:x": "2"},
        False,
    ),
    (
        "CO: several operators must all hold",
        {"StringEquals": {"sns:Protocol": "https"}, "Bool": {"aws:SecureTransport": "true"}},
        {"sns:Protocol": "https", "aws:SecureTransport": "true"},
        True,
    ),
    (
        "PV: key names are case-insensitive",
        {"StringEquals": {"AWS:PRINCIPALTAG/Dept": "hr"}},
        {"aws:principaltag/dept": "hr"},
        True,
    ),
    (
        "PV Condition: ${aws:username} in StringLike",
        {"StringLike": {"s3:prefix": ["${aws:username}/*"]}},
        {"s3:prefix": "david/docs", "aws:username": "david"},
        True,
    ),
    (
        "PV Condition: ${aws:username} in StringLike",
        {"StringLike": {"s3:prefix": ["${aws:username}/*"]}},
        {"s3:prefix": "carol/docs", "aws:username": "david"},
        False,
    ),
    (
        "PV default value for an absent key",
        {"StringEquals": {"k:who": "${aws:userid, 'anonymous'}"}},
        {"k:who": "anonymous", "aws:userid": None},
        True,
    ),
    ("PV ${*} is a literal asterisk", {"StringLike": {"k:v": "a${*}b"}}, {"k:v": "axb"}, False),
    ("PV ${*} is a literal asterisk", {"StringLike": {"k:v": "a${*}b"}}, {"k:v": "a*b"}, True),
    (
        "PV an absent variable without default matches nothing",
        {"StringEquals": {"k:v": "${aws:username}"}},
        {"k:v": "", "aws:username": None},
        False,
    ),
]


@pytest.mark.parametrize(
    ("source", "condition", "given", "expected"), CASES, ids=[f"{i}-{c[0]}" for i, c in enumerate(CASES)]
)
def test_condition_table(source, condition, given, expected):
    result, missing = holds(condition, Context.build(given, {}))
    assert result is expected, source
    assert missing == set()


@pytest.mark.parametrize(
    "condition",
    [
        {"StringEquals": {"aws:PrincipalOrgID": "o-1"}},
        {"StringNotEquals": {"aws:PrincipalOrgID": "o-1"}},
        {"StringEqualsIfExists": {"aws:PrincipalOrgID": "o-1"}},
        {"Null": {"aws:PrincipalOrgID": "true"}},
        {"ForAllValues:StringEquals": {"aws:PrincipalOrgID": "o-1"}},
        {"ForAnyValue:StringEquals": {"aws:PrincipalOrgID": "o-1"}},
    ],
)
def test_a_key_the_context_does_not_mention_is_undecided_and_named(condition):
    """A key neither given nor known absent is never guessed, whatever the operator's missing-key rule."""
    result, missing = holds(condition, ctx())
    assert result is None
    assert missing == {"aws:PrincipalOrgID"}


def test_a_false_key_decides_even_when_another_is_unknown():
    """Keys in a condition are ANDed (CO): one known false answers false, with no key to ask for."""
    result, missing = holds(
        {"StringEquals": {"aws:PrincipalOrgID": "o-1", "sns:Protocol": "https"}}, ctx(sns__Protocol="http")
    )
    assert (result, missing) == (False, set())


def test_an_unknown_variable_makes_the_test_undecided():
    """PV: `${aws:PrincipalTag/team}` with no such key given names the key."""
    result, missing = holds({"StringEquals": {"k:v": "${aws:PrincipalTag/team}"}}, Context.build({"k:v": "x"}, {}))
    assert result is None
    assert missing == {"aws:PrincipalTag/team"}


def test_variables_are_literal_without_version_2012():
    """PV: without Version 2012-10-17, `${aws:username}` is literal text."""
    context = Context.build({"k:v": "${aws:username}", "aws:username": "david"}, {})
    assert holds({"StringEquals": {"k:v": "${aws:username}"}}, context, variables=False) == (True, set())
    assert holds({"StringEquals": {"k:v": "${aws:username}"}}, context, variables=True) == (False, set())


def test_absent_marker_from_the_request_facts():
    """A key the request's own facts mark absent counts as absent (IfExists is then true)."""
    context = Context.build({}, {"aws:username": ABSENT})
    assert holds({"StringEqualsIfExists": {"aws:username": "x"}}, context) == (True, set())


@pytest.mark.parametrize(
    "condition",
    [{"StringEqualz": {"k": "v"}}, {"NullIfExists": {"k": "true"}}, {"ForSomeValues:StringLike": {"k": "v"}}],
)
def test_unknown_operators_are_errors(condition):
    with pytest.raises(PolicyFormatError):
        holds(condition, ctx())


def test_a_whole_context_makes_a_key_not_given_absent_and_a_partial_one_names_it():
    """The request's mode: a key not given is absent unless the context says it lacks it (a name, or a
    prefix ending in `/`); the graph's mode (`unknown` None) leaves every key not given unknown."""
    mfa = {"Bool": {"aws:MultiFactorAuthPresent": "true"}}
    whole = Context.build({}, {}, frozenset())
    assert holds(mfa, whole) == (False, set())
    assert holds({"BoolIfExists": {"aws:MultiFactorAuthPresent": "true"}}, whole) == (True, set())
    lacking = Context.build({}, {}, frozenset({"aws:multifactorauthpresent"}))
    assert holds(mfa, lacking) == (None, {"aws:MultiFactorAuthPresent"})
    by_prefix = Context.build({}, {}, frozenset({"aws:principaltag/"}))
    assert holds({"StringEquals": {"aws:PrincipalTag/team": "x"}}, by_prefix) == (None, {"aws:PrincipalTag/team"})
    assert holds(mfa, by_prefix) == (False, set())
    assert holds(mfa, Context.build({}, {})) == (None, {"aws:MultiFactorAuthPresent"})


def test_a_fact_marked_unknown_stays_unknown_in_a_whole_context_until_given():
    context = Context.build({}, {"aws:PrincipalArn": UNKNOWN}, frozenset())
    like = {"ArnLike": {"aws:PrincipalArn": "arn:aws:iam::*:role/team/*"}}
    assert holds(like, context) == (None, {"aws:PrincipalArn"})
    given = Context.build(
        {"aws:PrincipalArn": "arn:aws:iam::1:role/team/R"}, {"aws:PrincipalArn": UNKNOWN}, frozenset()
    )
    assert holds(like, given) == (True, set())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("home/${aws:username}/x", "home/david/x"),
        ("${aws:username, 'nobody'}-${aws:PrincipalTag/team, 'none'}", "david-none"),
        ("${aws:PrincipalTag/team,'none'}", "none"),
        ("a${*}b${?}c${$}", "a*b?c$"),
        ("${aws:username", "${aws:username"),  # no closing brace: literal text
        ("${${aws:username}", None),  # the key `${aws:username` is not given: absent, no default
    ],
)
def test_policy_variables_are_read_in_one_pass(text, expected):
    context = Context.build({"aws:username": "david"}, {}, frozenset())
    assert substitute(text, context, set()) == expected


def test_a_planted_run_of_variable_openings_is_read_in_linear_time():
    """`${` repeated with no closing brace was scanned from every opening (quadratic); one pass now."""
    import time

    text = "${" * 50_000 + "x"
    context = Context.build({}, {}, frozenset())
    started = time.perf_counter()
    for _ in range(20):
        assert substitute(text, context, set()) == text
    assert time.perf_counter() - started < 5.0  # generous on a loaded machine: it takes about a millisecond
