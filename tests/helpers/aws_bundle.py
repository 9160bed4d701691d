"""A two-account AWS export bundle built with boto3 against moto, so every file has AWS's exact shape.

Account A (111111111111, "prod") holds the cases of the mapping; account B
(222222222222, "partner") holds mallory, whose role `ops` may assume A's
`cross-in`, which reads the `crown-jewels` bucket. The bundle is built once per
test process (moto is slow to start) and removed at exit.
"""

from __future__ import annotations

import atexit
import base64
import json
import shutil
import tempfile
from functools import cache
from pathlib import Path

A = "111111111111"
B = "222222222222"
REGION = "us-east-1"


def doc(*statements: dict) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def allow(action, resource="*", **extra) -> dict:
    return {"Effect": "Allow", "Action": action, "Resource": resource, **extra}


def trust(principal, **extra) -> str:
    return doc({"Effect": "Allow", "Principal": principal, "Action": "sts:AssumeRole", **extra})


def _session(account: str):
    import boto3

    base = boto3.Session(region_name=REGION, aws_access_key_id="AKIATESTING", aws_secret_access_key="x")
    if account == "123456789012":
        return base
    creds = base.client("sts").assume_role(RoleArn=f"arn:aws:iam::{account}:role/setup", RoleSessionName="setup")[
        "Credentials"
    ]
    return boto3.Session(
        region_name=REGION,
        aws_access_key_id=creds["AccessKeyId"],
        aws_secret_access_key=creds["SecretAccessKey"],
        aws_session_token=creds["SessionToken"],
    )


def _role(iam, name, trust_doc, *statements, profile=False, boundary=None):
    kwargs = {"PermissionsBoundary": boundary} if boundary else {}
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=trust_doc, **kwargs)
    if statements:
        iam.put_role_policy(RoleName=name, PolicyName=f"{name}-inline", PolicyDocument=doc(*statements))
    if profile:
        iam.create_instance_profile(InstanceProfileName=f"{name}-profile")
        iam.add_role_to_instance_profile(InstanceProfileName=f"{name}-profile", RoleName=name)


USER_BOUNDARIES = {"dave": "bound-sts", "erin": "bound-s3"}


def _user(iam, name, *statements, keys=1, console=False):
    iam.create_user(UserName=name)
    if statements:
        iam.put_user_policy(UserName=name, PolicyName=f"{name}-inline", PolicyDocument=doc(*statements))
    made = [iam.create_access_key(UserName=name)["AccessKey"]["AccessKeyId"] for _ in range(keys)]
    if console:
        iam.create_login_profile(UserName=name, Password="Secret-pass-1234")
    return made


def _account_a(session) -> dict:
    iam = session.client("iam")
    pol = iam.create_policy(
        PolicyName="dev-read", PolicyDocument=doc(allow("s3:GetObject", "arn:aws:s3:::dev-bucket/*"))
    )
    iam.create_policy(PolicyName="bound-sts", PolicyDocument=doc(allow("sts:*")))
    iam.create_policy(PolicyName="bound-s3", PolicyDocument=doc(allow("s3:*")))
    iam.create_group(GroupName="devs")
    iam.attach_group_policy(GroupName="devs", PolicyArn=pol["Policy"]["Arn"])
    iam.put_group_policy(
        GroupName="devs",
        PolicyName="devs-inline",
        PolicyDocument=doc(allow("kms:Decrypt", f"arn:aws:kms:{REGION}:{A}:key/k-1")),
    )
    root = {"AWS": f"arn:aws:iam::{A}:root"}
    # roles
    _role(iam, "app-web", trust(root), allow("s3:GetObject", "arn:aws:s3:::prod-*/*"))
    _role(iam, "app-deny", trust(root))
    _role(iam, "app-trustdeny", doc(
        {"Effect": "Allow", "Principal": root, "Action": "sts:AssumeRole"},
        {"Effect": "Deny", "Principal": {"AWS": f"arn:aws:iam::{A}:user/alice"}, "Action": "sts:AssumeRole"},
    ))  # fmt: skip
    _role(iam, "app-secret", trust({"AWS": A}), allow("secretsmanager:GetSecretValue"))
    _role(
        iam,
        "bob-direct",
        trust({"AWS": f"arn:aws:iam::{A}:user/bob"}),
        allow("sts:AssumeRole", f"arn:aws:iam::{A}:role/chain-2"),
    )
    _role(
        iam,
        "chain-2",
        trust({"AWS": f"arn:aws:iam::{A}:role/bob-direct"}),
        allow("sts:AssumeRole", f"arn:aws:iam::{A}:role/chain-3"),
    )
    _role(
        iam,
        "chain-3",
        trust({"AWS": f"arn:aws:iam::{A}:role/chain-2"}),
        allow("s3:GetObject", "arn:aws:s3:::crown-jewels/*"),
    )
    _role(
        iam,
        "ec2-role",
        trust({"Service": "ec2.amazonaws.com"}),
        allow("s3:GetObject", "arn:aws:s3:::prod-data/*"),
        profile=True,
    )
    _role(
        iam,
        "lambda-role",
        trust({"Service": "lambda.amazonaws.com"}),
        allow("dynamodb:Query", f"arn:aws:dynamodb:{REGION}:{A}:table/orders"),
    )
    _role(iam, "public-role", trust({"AWS": "*"}), allow("s3:GetObject", "arn:aws:s3:::prod-logs/*"))
    _role(
        iam,
        "bounded-ok",
        trust({"Service": "ecs-tasks.amazonaws.com"}),
        allow("sts:AssumeRole"),
        boundary=f"arn:aws:iam::{A}:policy/bound-sts",
    )
    _role(
        iam,
        "bounded-no",
        trust({"Service": "ecs-tasks.amazonaws.com"}),
        allow("sts:AssumeRole"),
        boundary=f"arn:aws:iam::{A}:policy/bound-s3",
    )
    _role(
        iam,
        "cross-in",
        trust({"AWS": f"arn:aws:iam::{B}:role/ops"}),
        allow("s3:GetObject", "arn:aws:s3:::crown-jewels/*"),
    )
    # users
    _user(iam, "alice", allow("sts:AssumeRole", f"arn:aws:iam::{A}:role/app-*"), keys=2, console=True)
    iam.add_user_to_group(GroupName="devs", UserName="alice")
    keys = iam.list_access_keys(UserName="alice")["AccessKeyMetadata"]
    iam.update_access_key(UserName="alice", AccessKeyId=keys[1]["AccessKeyId"], Status="Inactive")
    _user(iam, "bob")
    _user(
        iam,
        "carol",
        allow("sts:AssumeRole"),
        {"Effect": "Deny", "Action": "sts:AssumeRole", "Resource": f"arn:aws:iam::{A}:role/app-deny"},
    )
    _user(iam, "dave", allow("sts:AssumeRole", f"arn:aws:iam::{A}:role/app-web"))
    _user(iam, "erin", allow("sts:AssumeRole", f"arn:aws:iam::{A}:role/app-web"))
    _user(iam, "frank", {"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"})
    _user(
        iam, "gina", {"Effect": "Allow", "Action": "sts:AssumeRole", "NotResource": f"arn:aws:iam::{A}:role/app-secret"}
    )
    _user(
        iam,
        "henry",
        allow(
            "sts:AssumeRole",
            f"arn:aws:iam::{A}:role/app-web",
            Condition={"Bool": {"aws:MultiFactorAuthPresent": "true"}},
        ),
    )
    _user(iam, "ivan", allow(["ssm:StartSession", "lambda:UpdateFunctionCode"]))
    # workloads, buckets
    s3 = session.client("s3")
    for bucket in ("prod-data", "prod-logs", "crown-jewels", "dev-bucket"):
        s3.create_bucket(Bucket=bucket)
    ec2 = session.client("ec2")
    image = "ami-12c6146b"  # one of moto's default images (listing them all is slow)
    ec2.run_instances(ImageId=image, MinCount=1, MaxCount=1, IamInstanceProfile={"Name": "ec2-role-profile"})
    lam = session.client("lambda")
    lam.create_function(
        FunctionName="orders-fn",
        Runtime="python3.12",
        Role=f"arn:aws:iam::{A}:role/lambda-role",
        Handler="x.handler",
        Code={"ZipFile": b"PK\x05\x06" + b"\x00" * 18},
    )
    return _collect(session, with_workloads=True)


def _account_b(session) -> dict:
    iam = session.client("iam")
    _role(
        iam, "ops", trust({"AWS": f"arn:aws:iam::{B}:root"}), allow("sts:AssumeRole", f"arn:aws:iam::{A}:role/cross-in")
    )
    _user(iam, "mallory", allow("sts:AssumeRole", f"arn:aws:iam::{B}:role/ops"))
    return _collect(session, with_workloads=False)


def _plain(value):
    return json.loads(json.dumps(value, default=str))


def _collect(session, *, with_workloads: bool) -> dict:
    iam = session.client("iam")
    gaad = iam.get_account_authorization_details()
    gaad.pop("ResponseMetadata", None)
    # moto's GAAD leaves out PermissionsBoundary (and moto keeps none for users); AWS includes it in
    # this shape: take roles' from get-role, and add the users' this bundle asked for
    for user in gaad["UserDetailList"]:
        if user["UserName"] in USER_BOUNDARIES:
            arn = f"arn:aws:iam::{A}:policy/{USER_BOUNDARIES[user['UserName']]}"
            user["PermissionsBoundary"] = {
                "PermissionsBoundaryType": "PermissionsBoundaryPolicy",
                "PermissionsBoundaryArn": arn,
            }
    for role in gaad["RoleDetailList"]:
        bound = iam.get_role(RoleName=role["RoleName"])["Role"].get("PermissionsBoundary")
        if bound:
            role["PermissionsBoundary"] = bound
    iam.generate_credential_report()
    report = iam.get_credential_report()
    out = {
        "gaad": _plain(gaad),
        "report": {
            "Content": base64.b64encode(report["Content"]).decode(),
            "ReportFormat": "text/csv",
            "GeneratedTime": str(report["GeneratedTime"]),
        },
    }
    if with_workloads:
        for key, call in (
            ("instances", lambda: session.client("ec2").describe_instances()),
            ("functions", lambda: session.client("lambda").list_functions()),
            ("buckets", lambda: session.client("s3").list_buckets()),
        ):
            data = call()
            data.pop("ResponseMetadata", None)
            out[key] = _plain(data)
    return out


def finding_on_user(account: str, user: str, finding_id: str = "5ab6d0aa2c9f3e0f1a2b3c4d5e6f7a8b") -> dict:
    """A GuardDuty finding in the documented get-findings shape, on a user's access key."""
    return {
        "Findings": [
            {
                "AccountId": account,
                "Arn": f"arn:aws:guardduty:{REGION}:{account}:detector/d/finding/{finding_id}",
                "Id": finding_id,
                "Region": REGION,
                "Resource": {
                    "AccessKeyDetails": {
                        "AccessKeyId": "AKIAEXAMPLE",
                        "PrincipalId": "AIDAEXAMPLE",
                        "UserName": user,
                        "UserType": "IAMUser",
                    },
                    "ResourceType": "AccessKey",
                },
                "Service": {"Action": {"ActionType": "AWS_API_CALL"}, "Count": 3},
                "Severity": 8,
                "Title": f"API calls from a known malicious IP by {user}",
                "Type": "UnauthorizedAccess:IAMUser/MaliciousIPCaller",
                "UpdatedAt": "2026-11-30T12:00:00.000Z",
            },
            {
                "AccountId": account,
                "Id": "0000aaaa1111bbbb2222cccc3333dddd",
                "Resource": {"ResourceType": "Instance", "InstanceDetails": {"InstanceId": "i-0000000000000dead"}},
                "Severity": 2,
                "Title": "finding on an instance not in the export",
                "Type": "Recon:EC2/PortProbeUnprotectedPort",
            },
        ]
    }


@cache
def bundle_dir() -> Path:
    """Write the two-account bundle once: prod/ (every export) and partner/ (GAAD, report), plus findings."""
    from moto import mock_aws

    root = Path(tempfile.mkdtemp(prefix="blastshield-aws-"))
    atexit.register(shutil.rmtree, root, True)
    with mock_aws():
        prod = _account_a(_session(A))
        partner = _account_b(_session(B))
    for folder, data in (("prod", prod), ("partner", partner)):
        (root / folder).mkdir()
        (root / folder / "gaad.json").write_text(json.dumps(data["gaad"]))
        for key in ("instances", "functions", "buckets"):
            if key in data:
                (root / folder / f"{key}.json").write_text(json.dumps(data[key]))
    # the credential report names a user the GAAD does not hold; prod's is decoded text, partner's base64
    prod_text = base64.b64decode(prod["report"]["Content"]).decode()
    prod_text += f"\nghost,arn:aws:iam::{A}:user/ghost,N/A,false,N/A,N/A,N/A,false,true,2026-01-01T00:00:00+00:00,N/A,N/A,N/A,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A"
    (root / "prod" / "report.json").write_text(json.dumps({**prod["report"], "Content": prod_text}))
    (root / "partner" / "report.json").write_text(json.dumps(partner["report"]))
    (root / "partner" / "findings.json").write_text(json.dumps(finding_on_user(B, "mallory")))
    (root / "partner" / "notes.json").write_text(json.dumps({"note": "not an export"}))
    return root


SENSITIVITY = {"arn:aws:s3:::crown-jewels": "critical", "arn:aws:s3:::prod-*": "high"}
