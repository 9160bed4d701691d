"""The four families of evaluation rules where `policy-eval` disagreed with AWS, one table each,
written from the AWS documentation each case names (docs/policy-eval.md, "Families"):

* RCP: AWS Organizations User Guide, "Resource control policies (RCPs)"
  (https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_rcps.html) and
  "RCP evaluation" (.../orgs_manage_policies_rcps_evaluation.html): RCPFullAWSAccess is attached to
  the root, every OU and every account and cannot be detached; RCPs only restrict.
* GCI: AWS STS API Reference, "GetCallerIdentity"
  (https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html): no permissions
  are required, and an explicit Deny of sts:GetCallerIdentity does not stop it.
* ALIAS: AWS KMS Developer Guide, "Controlling access to aliases"
  (https://docs.aws.amazon.com/kms/latest/developerguide/alias-access.html): CreateAlias, DeleteAlias
  and UpdateAlias need permission on the alias (an IAM policy) and on the key (the key policy, or an
  IAM policy where the key policy lets IAM policies count); UpdateAlias on the old and the new key.
* ABSENT: IAM User Guide, "IAM JSON policy elements: Condition operators"
  (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html):
  a key not present in the request does not match, except for `...IfExists` (true), `Null` (true
  for "true"), and the negated operators (true); and "Single-valued vs. multivalued context keys"
  (.../reference_policies_condition-single-vs-multi-valued-context-keys.html): `ForAllValues:` is
  true and `ForAnyValue:` false when the key is missing.
"""

from __future__ import annotations

import pytest

from blastshield_core.sources.aws.iam.evaluate import (
    ALLOWED,
    EXPLICITLY_DENIED,
    IMPLICITLY_DENIED,
    RequestError,
    evaluate_request,
)

A, B = "111122223333", "444455556666"
ALICE = f"arn:aws:iam::{A}:user/alice"
SESSION = f"arn:aws:sts::{A}:assumed-role/app/s1"
OBJ = "arn:aws:s3:::bucket/key"
KEY = f"arn:aws:kms:us-east-1:{A}:key/1234abcd-12ab-34cd-56ef-1234567890ab"
NEW_KEY = f"arn:aws:kms:us-east-1:{A}:key/0987dcba-09fe-87dc-65ba-ab0987654321"
ALIAS = f"arn:aws:kms:us-east-1:{A}:alias/ExampleAlias"


def policy(*statements: dict) -> dict:
    return {"Version": "2012-10-17", "Statement": list(statements)}


def allow(action="*", resource="*", **extra) -> dict:
    return {"Effect": "Allow", "Action": action, "Resource": resource, **extra}


def deny(action="*", resource="*", **extra) -> dict:
    return {"Effect": "Deny", "Action": action, "Resource": resource, **extra}


def req(principal=ALICE, action="s3:GetObject", resource=OBJ, **fields) -> dict:
    return {"principal": principal, "action": action, "resource": resource, "resource_account": A, **fields}


FULL = policy(allow())
# the RCPs' own examples: a data perimeter denying principals outside the organisation
ORG_PERIMETER = policy(
    {
        "Effect": "Deny",
        "Principal": "*",
        "Action": ["s3:*", "sqs:*", "kms:*", "secretsmanager:*", "sts:*"],
        "Resource": "*",
        "Condition": {
            "StringNotEqualsIfExists": {"aws:PrincipalOrgID": "o-exampleorg"},
            "BoolIfExists": {"aws:PrincipalIsAWSService": "false"},
        },
    }
)
RCP_FULL_AWS_ACCESS = policy({"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*"})

RCP_CASES = [
    (
        "RCP: a level holding only a Deny does not deny by itself",
        req(identity_policies=[FULL], rcps=[[ORG_PERIMETER]], context={"aws:PrincipalOrgID": "o-exampleorg"}),
        ALLOWED,
    ),
    (
        "RCP: levels with no policy deny nothing (RCPFullAWSAccess)",
        req(identity_policies=[FULL], rcps=[[], []]),
        ALLOWED,
    ),
    (
        "RCP: root with RCPFullAWSAccess, OU with only a Deny",
        req(
            identity_policies=[FULL],
            rcps=[[RCP_FULL_AWS_ACCESS], [ORG_PERIMETER]],
            context={"aws:PrincipalOrgID": "o-exampleorg"},
        ),
        ALLOWED,
    ),
    (
        "RCP: the perimeter Deny applies to a principal outside the organisation",
        req(
            f"arn:aws:iam::{B}:user/mallory",
            identity_policies=[FULL],
            resource_policy=policy({"Effect": "Allow", "Principal": {"AWS": B}, "Action": "s3:*", "Resource": "*"}),
            rcps=[[ORG_PERIMETER]],
            context={"aws:PrincipalOrgID": "o-otherorg"},
        ),
        EXPLICITLY_DENIED,
    ),
    (
        "RCP: an RCP grants nothing: identity policies still must allow",
        req(rcps=[[RCP_FULL_AWS_ACCESS]]),
        IMPLICITLY_DENIED,
    ),
    (
        "RCP: unlike SCPs, where a level with only a Deny allows nothing",
        req(identity_policies=[FULL], scps=[[policy(deny("ec2:*"))]]),
        IMPLICITLY_DENIED,
    ),
]

GCI_CASES = [
    ("GCI: no policy needed", req(action="sts:GetCallerIdentity", resource="*"), ALLOWED),
    (
        "GCI: an explicit Deny does not stop it",
        req(action="sts:GetCallerIdentity", resource="*", identity_policies=[policy(deny("sts:GetCallerIdentity"))]),
        ALLOWED,
    ),
    (
        "GCI: a role session, with a session policy that allows nothing",
        req(
            SESSION, action="sts:GetCallerIdentity", resource="*", session_policy=policy(allow("ec2:DescribeInstances"))
        ),
        ALLOWED,
    ),
    (
        "GCI: an anonymous caller has no identity to ask about (a signed request)",
        {"principal": "*", "action": "sts:GetCallerIdentity", "resource": "*"},
        IMPLICITLY_DENIED,
    ),
]

# the key policy that lets IAM policies of the account count ("Default key policy")
KEY_POLICY_IAM = policy(
    {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{A}:root"}, "Action": "kms:*", "Resource": "*"}
)
KEY_POLICY_ALICE = policy(
    {
        "Effect": "Allow",
        "Principal": {"AWS": ALICE},
        "Action": ["kms:CreateAlias", "kms:DeleteAlias", "kms:UpdateAlias"],
        "Resource": "*",
    }
)
KEY_POLICY_NOBODY = policy(
    {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{A}:user/admin"}, "Action": "kms:*", "Resource": "*"}
)
# the guide's IAM policy example: kms:CreateAlias on the alias and on the key
ALIAS_AND_KEY = policy(allow("kms:CreateAlias", [ALIAS, KEY]))
ALIAS_ONLY = policy(allow("kms:CreateAlias", f"arn:aws:kms:us-east-1:{A}:alias/*"))

ALIAS_CASES = [
    (
        "ALIAS: IAM allows the alias and the key, the key policy lets IAM count",
        req(
            action="kms:CreateAlias",
            resource=ALIAS,
            key=KEY,
            identity_policies=[ALIAS_AND_KEY],
            resource_policy=KEY_POLICY_IAM,
        ),
        ALLOWED,
    ),
    (
        "ALIAS: IAM allows the alias only, the key policy lets IAM count: the key is not allowed",
        req(
            action="kms:CreateAlias",
            resource=ALIAS,
            key=KEY,
            identity_policies=[ALIAS_ONLY],
            resource_policy=KEY_POLICY_IAM,
        ),
        IMPLICITLY_DENIED,
    ),
    (
        "ALIAS: the key policy allows the user; IAM allows the alias",
        req(
            action="kms:CreateAlias",
            resource=ALIAS,
            key=KEY,
            identity_policies=[ALIAS_ONLY],
            resource_policy=KEY_POLICY_ALICE,
        ),
        ALLOWED,
    ),
    (
        "ALIAS: the key policy allows the user, but no IAM policy allows the alias",
        req(action="kms:CreateAlias", resource=ALIAS, key=KEY, resource_policy=KEY_POLICY_ALICE),
        IMPLICITLY_DENIED,
    ),
    (
        "ALIAS: IAM allows both, but the key policy neither names the user nor lets IAM count",
        req(
            action="kms:CreateAlias",
            resource=ALIAS,
            key=KEY,
            identity_policies=[ALIAS_AND_KEY],
            resource_policy=KEY_POLICY_NOBODY,
        ),
        IMPLICITLY_DENIED,
    ),
    (
        "ALIAS: a Deny on the alias decides",
        req(
            action="kms:DeleteAlias",
            resource=ALIAS,
            key=KEY,
            identity_policies=[FULL, policy(deny("kms:DeleteAlias", ALIAS))],
            resource_policy=KEY_POLICY_IAM,
        ),
        EXPLICITLY_DENIED,
    ),
    (
        "ALIAS: UpdateAlias needs the old and the new key",
        req(
            action="kms:UpdateAlias",
            resource=ALIAS,
            identity_policies=[FULL],
            key=[{"arn": KEY, "key_policy": KEY_POLICY_IAM}, {"arn": NEW_KEY, "key_policy": KEY_POLICY_NOBODY}],
        ),
        IMPLICITLY_DENIED,
    ),
    (
        "ALIAS: UpdateAlias with both keys allowed",
        req(
            action="kms:UpdateAlias",
            resource=ALIAS,
            identity_policies=[FULL],
            key=[{"arn": KEY, "key_policy": KEY_POLICY_IAM}, {"arn": NEW_KEY, "key_policy": KEY_POLICY_IAM}],
        ),
        ALLOWED,
    ),
]

MFA_ALLOW = policy(allow("s3:GetObject", Condition={"Bool": {"aws:MultiFactorAuthPresent": "true"}}))
ABSENT_CASES = [
    ("ABSENT: a key not in the context does not match", req(identity_policies=[MFA_ALLOW]), IMPLICITLY_DENIED),
    (
        "ABSENT: the same key present and true",
        req(identity_policies=[MFA_ALLOW], context={"aws:MultiFactorAuthPresent": True}),
        ALLOWED,
    ),
    (
        "ABSENT: ...IfExists is true for a missing key (the guide's BoolIfExists Deny of long-term keys)",
        req(
            identity_policies=[FULL, policy(deny(Condition={"BoolIfExists": {"aws:MultiFactorAuthPresent": "false"}}))]
        ),
        EXPLICITLY_DENIED,
    ),
    (
        "ABSENT: ...IfExists applies the operator when the key is present",
        req(
            identity_policies=[FULL, policy(deny(Condition={"BoolIfExists": {"aws:MultiFactorAuthPresent": "false"}}))],
            context={"aws:MultiFactorAuthPresent": "true"},
        ),
        ALLOWED,
    ),
    (
        "ABSENT: a negated operator is true for a missing key",
        req(
            identity_policies=[
                FULL,
                policy(deny(Condition={"StringNotEquals": {"aws:PrincipalOrgID": "o-exampleorg"}})),
            ]
        ),
        EXPLICITLY_DENIED,
    ),
    (
        "ABSENT: Null true holds for a missing key",
        req(identity_policies=[policy(allow(Condition={"Null": {"aws:TokenIssueTime": "true"}}))]),
        ALLOWED,
    ),
    (
        "ABSENT: Null false fails for a missing key",
        req(identity_policies=[policy(allow(Condition={"Null": {"aws:TokenIssueTime": "false"}}))]),
        IMPLICITLY_DENIED,
    ),
    (
        "ABSENT: ForAllValues is true for a missing key",
        req(identity_policies=[policy(allow(Condition={"ForAllValues:StringEquals": {"aws:TagKeys": ["env"]}}))]),
        ALLOWED,
    ),
    (
        "ABSENT: ForAnyValue is false for a missing key",
        req(identity_policies=[policy(allow(Condition={"ForAnyValue:StringEquals": {"aws:TagKeys": ["env"]}}))]),
        IMPLICITLY_DENIED,
    ),
    (
        "ABSENT: a policy variable for a missing key with no default matches nothing",
        req(
            identity_policies=[policy(allow("s3:GetObject", "arn:aws:s3:::bucket/${aws:PrincipalTag/team}"))],
            resource="arn:aws:s3:::bucket/",
        ),
        IMPLICITLY_DENIED,
    ),
    (
        "ABSENT: ...and with a default, the default",
        req(identity_policies=[policy(allow("s3:GetObject", "arn:aws:s3:::bucket/${aws:PrincipalTag/team, 'key'}"))]),
        ALLOWED,
    ),
]

CASES = RCP_CASES + GCI_CASES + ALIAS_CASES + ABSENT_CASES


@pytest.mark.parametrize(("source", "request_", "expected"), CASES, ids=[c[0] for c in CASES])
def test_family(source, request_, expected):
    answer = evaluate_request(request_)
    assert answer["decision"] == expected, (source, answer)
    assert (answer["conditional"], answer["unknown_keys"]) == (False, []), (source, answer)


# ---------------------------------------------------------------- the partial context


def test_a_context_that_says_it_lacks_a_key_makes_the_answer_conditional_on_it():
    answer = evaluate_request(req(identity_policies=[MFA_ALLOW], partial_context=["aws:MultiFactorAuthPresent"]))
    assert (answer["decision"], answer["conditional"], answer["if_keys_fail"]) == (ALLOWED, True, IMPLICITLY_DENIED)
    assert answer["unknown_keys"] == ["aws:MultiFactorAuthPresent"]
    # the same request with the key given is decided; another key called unknown changes nothing
    given = evaluate_request(req(identity_policies=[MFA_ALLOW], context={"aws:MultiFactorAuthPresent": "false"}))
    assert (given["decision"], given["conditional"]) == (IMPLICITLY_DENIED, False)
    other = evaluate_request(req(identity_policies=[MFA_ALLOW], partial_context=["aws:SourceIp"]))
    assert (other["decision"], other["conditional"]) == (IMPLICITLY_DENIED, False)


def test_a_partial_context_names_keys_by_prefix_or_all_of_them():
    team = policy(allow("s3:GetObject", Condition={"StringEquals": {"aws:PrincipalTag/team": "data"}}))
    by_prefix = evaluate_request(req(identity_policies=[team], partial_context=["aws:PrincipalTag/*"]))
    assert (by_prefix["conditional"], by_prefix["unknown_keys"]) == (True, ["aws:PrincipalTag/team"])
    every = evaluate_request(req(identity_policies=[team], partial_context=True))
    assert (every["decision"], every["conditional"]) == (ALLOWED, True)
    whole = evaluate_request(req(identity_policies=[team], partial_context=False))
    assert (whole["decision"], whole["conditional"]) == (IMPLICITLY_DENIED, False)


def test_a_missing_key_under_if_exists_is_undecided_only_when_the_context_says_so():
    no_mfa = policy(deny(Condition={"BoolIfExists": {"aws:MultiFactorAuthPresent": "false"}}))
    answer = evaluate_request(req(identity_policies=[FULL, no_mfa], partial_context=["aws:MultiFactorAuthPresent"]))
    assert (answer["decision"], answer["conditional"], answer["if_keys_fail"]) == (ALLOWED, True, EXPLICITLY_DENIED)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"partial_context": "yes"}, "partial_context must be"),
        ({"partial_context": ["aws:SourceIp", 3]}, "partial_context must be"),
        ({"partial_context": ["aws:SourceIp"], "context": {"aws:SourceIp": "10.0.0.1"}}, "which context gives"),
        ({"action": "kms:CreateAlias", "resource": ALIAS}, "give `key`"),
        ({"action": "kms:CreateAlias", "resource": ALIAS, "key": "alias/other"}, r"key\[0\] must be a KMS key ARN"),
        ({"action": "kms:CreateAlias", "resource": ALIAS, "key": []}, "at least one KMS key"),
        ({"key": KEY}, "key is for a KMS alias operation"),
        ({"action": "kms:CreateAlias", "resource": ALIAS, "key": {"arn": KEY, "key_policy": "{"}}, r"key\[0\]"),
    ],
)
def test_invalid_new_fields_are_refused_with_the_reason(fields, message):
    with pytest.raises(RequestError, match=message):
        evaluate_request(req(**fields))


def test_a_fact_the_request_cannot_tell_stays_unknown_in_a_whole_context():
    """aws:userid is in every signed request ("AWS global condition context keys"), but a user's
    unique id is not in its ARN: never taken as absent."""
    by_id = policy(allow("s3:GetObject", Condition={"StringEquals": {"aws:userid": "AIDAEXAMPLE"}}))
    answer = evaluate_request(req(identity_policies=[by_id]))
    assert (answer["decision"], answer["conditional"], answer["unknown_keys"]) == (ALLOWED, True, ["aws:userid"])
    given = evaluate_request(req(identity_policies=[by_id], context={"aws:userid": "AIDAEXAMPLE"}))
    assert (given["decision"], given["conditional"]) == (ALLOWED, False)
