"""The whole evaluation of one request, rule by rule, from tables of cases (no database).

Each case names the AWS documentation it comes from. IAM User Guide: "Policy evaluation
logic" (PEL, with its example of the user carlossalazar), "Cross-account policy evaluation
logic" (XA), "Permissions boundaries for IAM entities" (PB, with its ShirleyRodriguez
example), "Session policies" (SP), "AWS JSON policy elements: Principal" (PR), "IAM roles:
trust policies" (TR); AWS KMS Developer Guide "Key policies" (KMS); AWS Organizations User
Guide "Service control policies" (SCP) and "Resource control policies" (RCP).
"""

from __future__ import annotations

import json

import pytest

from blastshield_core.sources.aws.iam.evaluate import (
    ALLOWED,
    EXPLICITLY_DENIED,
    IMPLICITLY_DENIED,
    RequestError,
    evaluate_request,
    evaluate_requests,
)

A, B, MGMT = "123456789012", "444455556666", "999988887777"
CARLOS = f"arn:aws:iam::{A}:user/carlossalazar"
ALICE = f"arn:aws:iam::{A}:user/alice"
BOB_B = f"arn:aws:iam::{B}:user/bob"
ROLE = f"arn:aws:iam::{A}:role/app"
SESSION = f"arn:aws:sts::{A}:assumed-role/app/s1"
FED = f"arn:aws:sts::{A}:federated-user/carol"
SLR = f"arn:aws:iam::{A}:role/aws-service-role/ops.amazonaws.com/AWSServiceRoleForOps"
KEY = f"arn:aws:kms:us-east-1:{A}:key/1234abcd-12ab-34cd-56ef-1234567890ab"
OBJ = "arn:aws:s3:::carlossalazar/notes.txt"


def policy(*statements: dict) -> dict:
    return {"Version": "2012-10-17", "Statement": list(statements)}


def allow(action="s3:*", resource="*", **extra) -> dict:
    return {"Effect": "Allow", "Action": action, "Resource": resource, **extra}


def deny(action="s3:*", resource="*", **extra) -> dict:
    return {"Effect": "Deny", "Action": action, "Resource": resource, **extra}


def grant(principal, action="s3:*", resource="*", effect="Allow", **extra) -> dict:
    return {"Effect": effect, "Principal": principal, "Action": action, "Resource": resource, **extra}


def req(principal=ALICE, action="s3:GetObject", resource=OBJ, account=A, **fields) -> dict:
    request = {"principal": principal, "action": action, "resource": resource, "resource_account": account}
    request.update(fields)
    return request


FULL = policy(allow("*"))
CARLOS_POLICY = policy(
    {
        "Sid": "AllowS3ListRead",
        "Effect": "Allow",
        "Action": ["s3:GetBucketLocation", "s3:ListAllMyBuckets"],
        "Resource": "arn:aws:s3:::*",
    },
    {
        "Sid": "AllowS3Self",
        "Effect": "Allow",
        "Action": "s3:*",
        "Resource": ["arn:aws:s3:::carlossalazar/*", "arn:aws:s3:::carlossalazar"],
    },
    {"Sid": "DenyS3Logs", "Effect": "Deny", "Action": "s3:*", "Resource": "arn:aws:s3:::*log*"},
)
CARLOS_BUCKET = policy(grant({"AWS": CARLOS}, "s3:*", ["arn:aws:s3:::carlossalazar/*", "arn:aws:s3:::carlossalazar"]))
SHIRLEY_BOUNDARY = policy(allow(["s3:*", "cloudwatch:*", "ec2:*"]))
SHIRLEY_IDENTITY = policy(allow("iam:CreateUser", f"arn:aws:iam::{A}:user/*"))

CASES = [
    # --- PEL: identity-based policies, explicit and implicit deny
    ("PEL: no policy allows: implicit deny", req(), IMPLICITLY_DENIED),
    (
        "PEL: an identity policy allows",
        req(identity_policies=[policy(allow("s3:GetObject", "arn:aws:s3:::carlossalazar/*"))]),
        ALLOWED,
    ),
    (
        "PEL carlossalazar: DenyS3Logs denies the logs bucket",
        req(
            CARLOS,
            "s3:PutObject",
            "arn:aws:s3:::carlossalazar-logs/x",
            identity_policies=[CARLOS_POLICY],
            resource_policy=CARLOS_BUCKET,
        ),
        EXPLICITLY_DENIED,
    ),
    (
        "PEL carlossalazar: both allow his own bucket",
        req(CARLOS, "s3:PutObject", OBJ, identity_policies=[CARLOS_POLICY], resource_policy=CARLOS_BUCKET),
        ALLOWED,
    ),
    (
        "PEL: explicit vs implicit deny, iam:*Report",
        req(
            action="iam:GenerateCredentialReport",
            resource="*",
            identity_policies=[policy(allow(["iam:Get*", "iam:List*"]), deny("iam:*Report"))],
        ),
        EXPLICITLY_DENIED,
    ),
    (
        "PEL: explicit vs implicit deny, iam:CreatePolicy",
        req(
            action="iam:CreatePolicy",
            resource="*",
            identity_policies=[policy(allow(["iam:Get*", "iam:List*"]), deny("iam:*Report"))],
        ),
        IMPLICITLY_DENIED,
    ),
    (
        "PEL: NotAction allows all but the listed",
        req(
            action="iam:CreateUser",
            resource="*",
            identity_policies=[policy({"Effect": "Allow", "NotAction": "s3:*", "Resource": "*"})],
        ),
        ALLOWED,
    ),
    (
        "PEL: NotAction does not cover the listed",
        req(identity_policies=[policy({"Effect": "Allow", "NotAction": "s3:*", "Resource": "*"})]),
        IMPLICITLY_DENIED,
    ),
    (
        "PEL: NotResource excludes",
        req(
            identity_policies=[
                policy({"Effect": "Allow", "Action": "s3:*", "NotResource": "arn:aws:s3:::carlossalazar/*"})
            ]
        ),
        IMPLICITLY_DENIED,
    ),
    ("PEL: actions match case-insensitively", req(identity_policies=[policy(allow("S3:getobject", OBJ))]), ALLOWED),
    (
        "PEL: resources match case-sensitively",
        req(identity_policies=[policy(allow("s3:GetObject", "arn:aws:s3:::CarlosSalazar/*"))]),
        IMPLICITLY_DENIED,
    ),
    ("PEL: policy text as in exports", req(identity_policies=[json.dumps(policy(allow()))]), ALLOWED),
    ("PEL: the root user has full access in its account", req(f"arn:aws:iam::{A}:root"), ALLOWED),
    # --- PEL: resource-based policies within one account
    ("PEL: a resource policy naming the user grants alone", req(CARLOS, resource_policy=CARLOS_BUCKET), ALLOWED),
    (
        "PEL: a resource policy naming another user does not",
        req(ALICE, resource_policy=CARLOS_BUCKET),
        IMPLICITLY_DENIED,
    ),
    (
        "PR: naming the account delegates to identity policies",
        req(resource_policy=policy(grant({"AWS": f"arn:aws:iam::{A}:root"}))),
        IMPLICITLY_DENIED,
    ),
    (
        "PR: naming the account, identity allows",
        req(resource_policy=policy(grant({"AWS": A})), identity_policies=[FULL]),
        ALLOWED,
    ),
    (
        "PEL: a resource policy Deny naming the user",
        req(CARLOS, identity_policies=[FULL], resource_policy=policy(grant({"AWS": CARLOS}, effect="Deny"))),
        EXPLICITLY_DENIED,
    ),
    ("PR: Principal * grants everyone", req(resource_policy=policy(grant("*"))), ALLOWED),
    (
        "PR: anonymous caller, public bucket policy",
        req("*", resource_policy=policy(grant({"AWS": "*"}, "s3:GetObject", "arn:aws:s3:::carlossalazar/*"))),
        ALLOWED,
    ),
    ("PR: anonymous caller, no resource policy", req("*", identity_policies=[FULL]), IMPLICITLY_DENIED),
    (
        "PR: anonymous caller, policy naming an account",
        req("*", resource_policy=policy(grant({"AWS": A}))),
        IMPLICITLY_DENIED,
    ),
    (
        "PR: service principal named",
        req(
            "cloudtrail.amazonaws.com",
            "s3:PutObject",
            resource_policy=policy(grant({"Service": "cloudtrail.amazonaws.com"})),
        ),
        ALLOWED,
    ),
    (
        "PR: service principal not named",
        req(
            "config.amazonaws.com",
            "s3:PutObject",
            resource_policy=policy(grant({"Service": "cloudtrail.amazonaws.com"})),
        ),
        IMPLICITLY_DENIED,
    ),
    # --- PB: boundaries
    (
        "PB ShirleyRodriguez: boundary does not allow iam",
        req(
            action="iam:CreateUser",
            resource=f"arn:aws:iam::{A}:user/x",
            identity_policies=[SHIRLEY_IDENTITY],
            permissions_boundary=SHIRLEY_BOUNDARY,
        ),
        IMPLICITLY_DENIED,
    ),
    (
        "PB: identity and boundary both allow",
        req(identity_policies=[FULL], permissions_boundary=SHIRLEY_BOUNDARY),
        ALLOWED,
    ),
    ("PB: a boundary grants nothing alone", req(permissions_boundary=SHIRLEY_BOUNDARY), IMPLICITLY_DENIED),
    (
        "PB: a Deny in the boundary",
        req(identity_policies=[FULL], permissions_boundary=policy(allow("*"), deny("s3:GetObject"))),
        EXPLICITLY_DENIED,
    ),
    (
        "PEL: resource policy naming the user is not limited by the boundary",
        req(CARLOS, permissions_boundary=policy(allow("ec2:*")), resource_policy=CARLOS_BUCKET),
        ALLOWED,
    ),
    (
        "PEL: resource policy naming the role is limited by the boundary",
        req(SESSION, permissions_boundary=policy(allow("ec2:*")), resource_policy=policy(grant({"AWS": ROLE}))),
        IMPLICITLY_DENIED,
    ),
    (
        "PEL: resource policy naming the role, boundary allows: no identity needed",
        req(SESSION, permissions_boundary=policy(allow("s3:*")), resource_policy=policy(grant({"AWS": ROLE}))),
        ALLOWED,
    ),
    (
        "PEL: resource policy naming the session is not limited",
        req(
            SESSION,
            permissions_boundary=policy(allow("ec2:*")),
            session_policy=policy(allow("ec2:*")),
            resource_policy=policy(grant({"AWS": SESSION})),
        ),
        ALLOWED,
    ),
    (
        "PEL: a role ARN names every session of the role",
        req(SESSION, resource_policy=policy(grant({"AWS": ROLE}))),
        ALLOWED,
    ),
    (
        "PEL: another session's ARN does not name this one",
        req(SESSION, resource_policy=policy(grant({"AWS": f"arn:aws:sts::{A}:assumed-role/app/other"}))),
        IMPLICITLY_DENIED,
    ),
    (
        "PB: Deny with NotPrincipal always denies a principal with a boundary",
        req(
            CARLOS,
            identity_policies=[FULL],
            permissions_boundary=FULL,
            resource_policy=policy(
                {"Effect": "Deny", "NotPrincipal": {"AWS": CARLOS}, "Action": "s3:*", "Resource": "*"}
            ),
        ),
        EXPLICITLY_DENIED,
    ),
    (
        "PR: Deny with NotPrincipal spares the listed principal, its account listed too",
        req(
            CARLOS,
            identity_policies=[FULL],
            resource_policy=policy(
                {
                    "Effect": "Deny",
                    "NotPrincipal": {"AWS": [f"arn:aws:iam::{A}:root", CARLOS]},
                    "Action": "s3:*",
                    "Resource": "*",
                }
            ),
        ),
        ALLOWED,
    ),
    (
        "PR: Deny with NotPrincipal naming the user without its account spares nobody",
        req(
            CARLOS,
            identity_policies=[FULL],
            resource_policy=policy(
                {"Effect": "Deny", "NotPrincipal": {"AWS": CARLOS}, "Action": "s3:*", "Resource": "*"}
            ),
        ),
        EXPLICITLY_DENIED,
    ),
    (
        "PR: Deny with NotPrincipal denies the others",
        req(
            ALICE,
            identity_policies=[FULL],
            resource_policy=policy(
                {"Effect": "Deny", "NotPrincipal": {"AWS": CARLOS}, "Action": "s3:*", "Resource": "*"}
            ),
        ),
        EXPLICITLY_DENIED,
    ),
    # --- SP: session policies
    (
        "SP: a session policy limits the role's identity policies",
        req(SESSION, identity_policies=[FULL], session_policy=policy(allow("ec2:*"))),
        IMPLICITLY_DENIED,
    ),
    ("SP: both allow", req(SESSION, identity_policies=[FULL], session_policy=policy(allow("s3:GetObject"))), ALLOWED),
    ("SP: a session policy grants nothing alone", req(SESSION, session_policy=FULL), IMPLICITLY_DENIED),
    ("PEL: a role session without session policy", req(SESSION, identity_policies=[FULL]), ALLOWED),
    ("PEL: a federated user session needs a session policy", req(FED, identity_policies=[FULL]), IMPLICITLY_DENIED),
    ("PEL: a federated user session with one", req(FED, identity_policies=[FULL], session_policy=FULL), ALLOWED),
    (
        "PEL: a resource policy naming the federated user session",
        req(FED, resource_policy=policy(grant({"AWS": FED}))),
        ALLOWED,
    ),
    (
        "SP: a Deny in the session policy",
        req(SESSION, identity_policies=[FULL], session_policy=policy(allow("*"), deny("s3:GetObject"))),
        EXPLICITLY_DENIED,
    ),
    # --- XA: across accounts
    (
        "XA: resource policy names the account, identity allows",
        req(BOB_B, identity_policies=[FULL], resource_policy=policy(grant({"AWS": B}))),
        ALLOWED,
    ),
    (
        "XA: resource policy names the user, identity allows",
        req(BOB_B, identity_policies=[FULL], resource_policy=policy(grant({"AWS": BOB_B}))),
        ALLOWED,
    ),
    ("XA: the identity side alone", req(BOB_B, identity_policies=[FULL]), IMPLICITLY_DENIED),
    ("XA: the resource side alone", req(BOB_B, resource_policy=policy(grant({"AWS": BOB_B}))), IMPLICITLY_DENIED),
    (
        "XA: boundary limits the identity side",
        req(
            BOB_B,
            identity_policies=[FULL],
            permissions_boundary=policy(allow("ec2:*")),
            resource_policy=policy(grant({"AWS": BOB_B})),
        ),
        IMPLICITLY_DENIED,
    ),
    (
        "XA: a Deny on either side",
        req(
            BOB_B,
            identity_policies=[FULL],
            resource_policy=policy(grant({"AWS": B}), grant({"AWS": BOB_B}, effect="Deny")),
        ),
        EXPLICITLY_DENIED,
    ),
    (
        "XA: resource account from the ARN",
        req(BOB_B, "sqs:SendMessage", f"arn:aws:sqs:us-east-1:{A}:q", None, identity_policies=[FULL]),
        IMPLICITLY_DENIED,
    ),
    # --- TR: role trust policies
    (
        "TR: trust naming the user grants alone (same account)",
        req(
            ALICE,
            "sts:AssumeRole",
            ROLE,
            resource_policy=policy({"Effect": "Allow", "Principal": {"AWS": ALICE}, "Action": "sts:AssumeRole"}),
        ),
        ALLOWED,
    ),
    (
        "TR: trust naming the account needs an identity allow",
        req(
            ALICE,
            "sts:AssumeRole",
            ROLE,
            resource_policy=policy({"Effect": "Allow", "Principal": {"AWS": A}, "Action": "sts:AssumeRole"}),
        ),
        IMPLICITLY_DENIED,
    ),
    (
        "TR: trust naming the account, identity allows",
        req(
            ALICE,
            "sts:AssumeRole",
            ROLE,
            identity_policies=[policy(allow("sts:AssumeRole", ROLE))],
            resource_policy=policy({"Effect": "Allow", "Principal": {"AWS": A}, "Action": "sts:AssumeRole"}),
        ),
        ALLOWED,
    ),
    (
        "TR: identity allow without trust",
        req(
            ALICE,
            "sts:AssumeRole",
            ROLE,
            identity_policies=[FULL],
            resource_policy=policy(
                {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
            ),
        ),
        IMPLICITLY_DENIED,
    ),
    (
        "TR: identity allow, no trust policy given",
        req(ALICE, "sts:AssumeRole", ROLE, identity_policies=[FULL]),
        IMPLICITLY_DENIED,
    ),
    (
        "TR: across accounts both must allow",
        req(
            BOB_B,
            "sts:AssumeRole",
            ROLE,
            identity_policies=[FULL],
            resource_policy=policy({"Effect": "Allow", "Principal": {"AWS": BOB_B}, "Action": "sts:AssumeRole"}),
        ),
        ALLOWED,
    ),
    (
        "TR: across accounts the trust alone is not enough",
        req(
            BOB_B,
            "sts:AssumeRole",
            ROLE,
            resource_policy=policy({"Effect": "Allow", "Principal": {"AWS": BOB_B}, "Action": "sts:AssumeRole"}),
        ),
        IMPLICITLY_DENIED,
    ),
    (
        "TR: a service assumes its role",
        req(
            "ec2.amazonaws.com",
            "sts:AssumeRole",
            ROLE,
            resource_policy=policy(
                {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
            ),
        ),
        ALLOWED,
    ),
    # --- KMS: key policies
    (
        "KMS: identity policies alone never grant on a key",
        req(ALICE, "kms:Decrypt", KEY, identity_policies=[FULL]),
        IMPLICITLY_DENIED,
    ),
    (
        "KMS: the key policy enables IAM policies through the account",
        req(
            ALICE,
            "kms:Decrypt",
            KEY,
            identity_policies=[FULL],
            resource_policy=policy(grant({"AWS": f"arn:aws:iam::{A}:root"}, "kms:*")),
        ),
        ALLOWED,
    ),
    (
        "KMS: the account is enabled but no IAM policy allows",
        req(ALICE, "kms:Decrypt", KEY, resource_policy=policy(grant({"AWS": f"arn:aws:iam::{A}:root"}, "kms:*"))),
        IMPLICITLY_DENIED,
    ),
    (
        "KMS: a key policy naming the user grants alone",
        req(ALICE, "kms:Decrypt", KEY, resource_policy=policy(grant({"AWS": ALICE}, "kms:Decrypt"))),
        ALLOWED,
    ),
    (
        "KMS: a key policy naming someone else, identity allows",
        req(
            ALICE, "kms:Decrypt", KEY, identity_policies=[FULL], resource_policy=policy(grant({"AWS": CARLOS}, "kms:*"))
        ),
        IMPLICITLY_DENIED,
    ),
    (
        "KMS: another account needs the key policy and its own policies",
        req(
            BOB_B,
            "kms:Decrypt",
            KEY,
            identity_policies=[FULL],
            resource_policy=policy(grant({"AWS": f"arn:aws:iam::{B}:root"}, "kms:Decrypt")),
        ),
        ALLOWED,
    ),
    (
        "KMS: another account with the key policy alone",
        req(BOB_B, "kms:Decrypt", KEY, resource_policy=policy(grant({"AWS": f"arn:aws:iam::{B}:root"}, "kms:Decrypt"))),
        IMPLICITLY_DENIED,
    ),
    # --- SCP
    ("SCP: FullAWSAccess at every level", req(identity_policies=[FULL], scps=[[FULL], [FULL]]), ALLOWED),
    (
        "SCP: a level without an allow",
        req(identity_policies=[FULL], scps=[[FULL], [policy(allow("ec2:*"))]]),
        IMPLICITLY_DENIED,
    ),
    ("SCP: an SCP grants nothing", req(scps=[[FULL]]), IMPLICITLY_DENIED),
    (
        "SCP: a Deny at any level",
        req(identity_policies=[FULL], scps=[[FULL, policy(deny("s3:GetObject"))], [FULL]]),
        EXPLICITLY_DENIED,
    ),
    (
        "SCP: applies to the root user of a member account",
        req(f"arn:aws:iam::{A}:root", scps=[[policy(allow("ec2:*"))]]),
        IMPLICITLY_DENIED,
    ),
    (
        "SCP: the management account is exempt",
        req(identity_policies=[FULL], scps=[[policy(deny("*"))]], management_account=A),
        ALLOWED,
    ),
    ("SCP: service-linked roles are exempt", req(SLR, identity_policies=[FULL], scps=[[policy(deny("*"))]]), ALLOWED),
    (
        "SCP: limits a resource policy grant too",
        req(CARLOS, resource_policy=CARLOS_BUCKET, scps=[[policy(allow("ec2:*"))]]),
        IMPLICITLY_DENIED,
    ),
    (
        "SCP: not applied to service principals",
        req(
            "cloudtrail.amazonaws.com",
            resource_policy=policy(grant({"Service": "cloudtrail.amazonaws.com"})),
            scps=[[policy(deny("*"))]],
        ),
        ALLOWED,
    ),
    # --- RCP
    ("RCP: RCPFullAWSAccess at every level", req(identity_policies=[FULL], rcps=[[policy(grant("*", "*"))]]), ALLOWED),
    (
        "RCP: a level whose policy allows another service still has RCPFullAWSAccess",
        req(identity_policies=[FULL], rcps=[[policy(grant("*", "*"))], [policy(grant("*", "sqs:*"))]]),
        ALLOWED,
    ),
    (
        "RCP: deny outside the organisation",
        req(
            BOB_B,
            identity_policies=[FULL],
            resource_policy=policy(grant({"AWS": B})),
            rcps=[
                [
                    policy(
                        grant("*", "*"),
                        grant(
                            "*",
                            "s3:*",
                            effect="Deny",
                            Condition={"StringNotEqualsIfExists": {"aws:PrincipalOrgID": "o-1"}},
                        ),
                    )
                ]
            ],
            context={"aws:PrincipalOrgID": "o-2"},
        ),
        EXPLICITLY_DENIED,
    ),
    (
        "RCP: the same, for a principal of the organisation",
        req(
            BOB_B,
            identity_policies=[FULL],
            resource_policy=policy(grant({"AWS": B})),
            rcps=[
                [
                    policy(
                        grant("*", "*"),
                        grant(
                            "*",
                            "s3:*",
                            effect="Deny",
                            Condition={"StringNotEqualsIfExists": {"aws:PrincipalOrgID": "o-1"}},
                        ),
                    )
                ]
            ],
            context={"aws:PrincipalOrgID": "o-1"},
        ),
        ALLOWED,
    ),
    (
        "RCP: do not apply to service principals",
        req(
            "cloudtrail.amazonaws.com",
            resource_policy=policy(grant({"Service": "cloudtrail.amazonaws.com"})),
            rcps=[[policy(grant("*", "*", effect="Deny"))]],
        ),
        ALLOWED,
    ),
    (
        "RCP: do not affect the management account's resources",
        req(identity_policies=[FULL], rcps=[[policy(grant("*", "*", effect="Deny"))]], management_account=A),
        ALLOWED,
    ),
    (
        "RCP: apply only to their services",
        req(
            action="ec2:RunInstances",
            resource="*",
            identity_policies=[FULL],
            rcps=[[policy(grant("*", "*", effect="Deny"))]],
        ),
        ALLOWED,
    ),
    (
        "RCP: apply to anonymous callers",
        req("*", resource_policy=policy(grant("*")), rcps=[[policy(grant("*", "*", effect="Deny"))]]),
        EXPLICITLY_DENIED,
    ),
    # --- conditions with the request's own facts (policy variables, PrincipalArn, ResourceAccount)
    (
        "PV: ${aws:username} in a Resource",
        req(
            identity_policies=[policy(allow("s3:GetObject", "arn:aws:s3:::home/${aws:username}/*"))],
            resource="arn:aws:s3:::home/alice/x",
        ),
        ALLOWED,
    ),
    (
        "PV: ${aws:username} for another user's folder",
        req(
            identity_policies=[policy(allow("s3:GetObject", "arn:aws:s3:::home/${aws:username}/*"))],
            resource="arn:aws:s3:::home/bob/x",
        ),
        IMPLICITLY_DENIED,
    ),
    (
        "PV: no aws:username for a role session",
        req(
            SESSION,
            identity_policies=[policy(allow("s3:GetObject", "arn:aws:s3:::home/${aws:username}/*"))],
            resource="arn:aws:s3:::home/app/x",
        ),
        IMPLICITLY_DENIED,
    ),
    (
        "CK: aws:PrincipalArn of a session is its role (the request gives the role's ARN)",
        req(
            SESSION,
            identity_policies=[FULL],
            resource_policy=policy(grant("*", effect="Deny", Condition={"ArnNotEquals": {"aws:PrincipalArn": ROLE}})),
            role_arn=ROLE,
        ),
        ALLOWED,
    ),
    (
        "CK: aws:ResourceAccount from the request",
        req(identity_policies=[policy(allow(Condition={"StringEquals": {"aws:ResourceAccount": B}}))]),
        IMPLICITLY_DENIED,
    ),
]


@pytest.mark.parametrize(("source", "request_", "expected"), CASES, ids=[f"{i}-{c[0]}" for i, c in enumerate(CASES)])
def test_evaluation_table(source, request_, expected):
    answer = evaluate_request(request_)
    assert answer["decision"] == expected, (source, answer)
    assert answer["conditional"] is False
    assert answer["unknown_keys"] == []


MFA = {"Bool": {"aws:MultiFactorAuthPresent": "true"}}


def test_a_key_the_context_lacks_makes_the_answer_conditional_and_names_it():
    """CO: the request says its context lacks the key, so the Allow may or may not apply; the answer
    says which key."""
    answer = evaluate_request(
        req(identity_policies=[policy(allow(Condition=MFA))], partial_context=["aws:MultiFactorAuthPresent"])
    )
    assert (answer["decision"], answer["conditional"]) == (ALLOWED, True)
    assert answer["unknown_keys"] == ["aws:MultiFactorAuthPresent"]
    assert answer["if_keys_fail"] == IMPLICITLY_DENIED
    decided = evaluate_request(
        req(identity_policies=[policy(allow(Condition=MFA))], context={"aws:MultiFactorAuthPresent": "false"})
    )
    assert (decided["decision"], decided["conditional"]) == (IMPLICITLY_DENIED, False)


def test_an_undecided_deny_makes_an_allow_conditional():
    """PEL deny first: a Deny whose condition is unknown could still decide."""
    answer = evaluate_request(
        req(
            identity_policies=[FULL, policy(deny(Condition={"Bool": {"aws:SecureTransport": "false"}}))],
            partial_context=True,
        )
    )
    assert (answer["decision"], answer["conditional"], answer["if_keys_fail"]) == (ALLOWED, True, EXPLICITLY_DENIED)
    assert answer["unknown_keys"] == ["aws:SecureTransport"]


def test_an_unknown_key_that_cannot_change_the_decision_is_not_asked_for():
    """An unconditional Deny decides whatever the undecided Allow would do."""
    answer = evaluate_request(req(identity_policies=[policy(allow(Condition=MFA), deny())], partial_context=True))
    assert (answer["decision"], answer["conditional"], answer["unknown_keys"]) == (EXPLICITLY_DENIED, False, [])


def test_the_explanation_names_the_deciding_statement():
    answer = evaluate_request(
        req(CARLOS, "s3:PutObject", "arn:aws:s3:::carlossalazar-logs/x", identity_policies=[CARLOS_POLICY])
    )
    assert answer["explanation"] == [
        {"policy": "identity_policies[0]", "statement": 2, "sid": "DenyS3Logs", "effect": "Deny", "applies": "yes"}
    ]
    level = evaluate_request(req(identity_policies=[FULL], scps=[[FULL], [policy(allow("ec2:*"))]]))
    assert level["explanation"] == [{"policy": "scps[1]", "allows": False}]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"action": "s3:GetObject", "resource": OBJ}, "principal"),
        (req(principal="alice"), "principal 'alice'"),
        (req(action="GetObject"), "action"),
        (req(resource=""), "resource"),
        (req(account="12"), "resource_account"),
        (
            req(identity_policies=[{"Statement": [{"Effect": "Maybe", "Action": "*", "Resource": "*"}]}]),
            "identity_policies[0]",
        ),
        (req(identity_policies=["{not json"]), "not JSON"),
        (
            req(
                resource_policy={
                    "Statement": [{"Effect": "Allow", "Action": "*", "Condition": {"StringEqualz": {"k": "v"}}}]
                }
            ),
            "unknown condition operator",
        ),
        (req(scps=[["{}"]]), "scps[0][0]"),
        (req(context={"k": {"nested": 1}}), "context"),
        (["not", "an object"], "JSON object"),
    ],
)
def test_invalid_requests_are_refused_with_the_reason(bad, message):
    with pytest.raises(RequestError, match=message.replace("[", r"\[").replace("]", r"\]")):
        evaluate_request(bad)


def test_a_batch_answers_in_order_with_errors_in_place():
    answers, ok = evaluate_requests([req(identity_policies=[FULL]), {"principal": 3}, req()])
    assert ok is True
    assert [a.get("decision", "error" if "error" in a else None) for a in answers] == [
        ALLOWED,
        "error",
        IMPLICITLY_DENIED,
    ]
    single, ok = evaluate_requests({"principal": 3})
    assert ok is False and "principal" in single["error"]
