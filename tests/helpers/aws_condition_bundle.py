"""An account whose identity policies test condition keys the snapshot knows (and one it does not),
collected with boto3 from moto (shapes only: what AWS would decide is the product's evaluation,
checked by tests/integration/sources/aws/test_aws_identity_conditions.py).

Users carry tags; buckets carry tags (merged into the bucket list from get-bucket-tagging, as a
collector adds them); roles carry tags and trust policies with conditions.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from functools import cache
from pathlib import Path

from tests.helpers.aws_bundle import doc

A = "123456789012"
OTHER = "111111111111"
REGION = "us-east-1"


def _get(resource: str, **extra) -> dict:
    return {"Effect": "Allow", "Action": "s3:GetObject", "Resource": resource, **extra}


# user -> (tags, statements of its inline policy)
USERS: dict[str, tuple[dict[str, str], list[dict]]] = {
    "alice": ({"team": "data"}, []),  # the managed policy team-data below
    "bob": ({"team": "web"}, []),
    "carol": ({}, []),  # the group policy by user name
    "dave": ({}, []),
    "erin": ({}, [_get("*", Condition={"StringEquals": {"s3:ResourceAccount": A}})]),
    "frank": ({}, [_get("*", Condition={"StringEquals": {"aws:ResourceAccount": OTHER}})]),
    "gina": (
        {"team": "data"},
        [
            _get(
                "arn:aws:s3:::team-data/*",
                Condition={
                    "StringEquals": {"aws:PrincipalTag/team": "data"},
                    "IpAddress": {"aws:SourceIp": "10.0.0.0/8"},
                },
            )
        ],
    ),
    "hank": (
        {"team": "web"},
        [
            _get("*"),
            {
                "Effect": "Deny",
                "Action": "s3:GetObject",
                "Resource": "arn:aws:s3:::team-data/*",
                "Condition": {"StringNotEquals": {"aws:PrincipalTag/team": "data"}},
            },
        ],
    ),
    "ivy": ({}, [_get("*", Condition={"StringEquals": {"aws:ResourceTag/classification": "public"}})]),
    "jack": (
        {},
        [
            {"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": f"arn:aws:iam::{A}:role/ops"},
            {
                "Effect": "Allow",
                "Action": "sts:AssumeRole",
                "Resource": "*",
                "Condition": {"StringEquals": {"aws:ResourceTag/env": "prod"}},
            },
        ],
    ),
    "kate": ({}, [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": f"arn:aws:iam::{A}:role/ops"}]),
    "lee": (
        {},
        [_get("arn:aws:s3:::team-data/*", Condition={"StringEquals": {"aws:PrincipalType": "AssumedRole"}})],
    ),
    "mona": (
        {},
        [_get("arn:aws:s3:::team-data/reports/*", Condition={"StringEquals": {"aws:username": "mona"}})],
    ),
}
BUCKETS = {"team-data": "restricted", "open-data": "public"}


def _write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.loads(json.dumps(data, default=str))
    if isinstance(data, dict):
        data.pop("ResponseMetadata", None)
    path.write_text(json.dumps(data))


def _tags(values: dict[str, str]) -> list[dict[str, str]]:
    return [{"Key": k, "Value": v} for k, v in values.items()]


@cache
def condition_bundle() -> Path:
    """Write the account once under a temporary folder and return it."""
    import boto3
    from moto import mock_aws

    root = Path(tempfile.mkdtemp(prefix="blastshield-conditions-"))
    atexit.register(shutil.rmtree, root, True)
    with mock_aws():
        session = boto3.Session(region_name=REGION, aws_access_key_id="AKIATESTING", aws_secret_access_key="x")
        iam, s3 = session.client("iam"), session.client("s3")
        team = iam.create_policy(
            PolicyName="team-data",
            PolicyDocument=doc(
                _get("arn:aws:s3:::team-data/*", Condition={"StringEquals": {"aws:PrincipalTag/team": "data"}})
            ),
        )["Policy"]["Arn"]
        iam.create_group(GroupName="homes")
        iam.put_group_policy(
            GroupName="homes",
            PolicyName="by-name",
            PolicyDocument=doc(_get("arn:aws:s3:::team-data/*", Condition={"StringEquals": {"aws:username": "carol"}})),
        )
        for name, (tags, statements) in USERS.items():
            iam.create_user(UserName=name, **({"Tags": _tags(tags)} if tags else {}))
            if statements:
                iam.put_user_policy(UserName=name, PolicyName="own", PolicyDocument=doc(*statements))
        for name in ("alice", "bob"):
            iam.attach_user_policy(UserName=name, PolicyArn=team)
        for name in ("carol", "dave"):
            iam.add_user_to_group(GroupName="homes", UserName=name)
        account = doc({"Effect": "Allow", "Principal": {"AWS": A}, "Action": "sts:AssumeRole"})
        iam.create_role(RoleName="deploy", AssumeRolePolicyDocument=account, Tags=_tags({"env": "prod"}))
        iam.create_role(RoleName="sandbox", AssumeRolePolicyDocument=account, Tags=_tags({"env": "dev"}))
        iam.create_role(
            RoleName="ops",
            AssumeRolePolicyDocument=doc(
                {
                    "Effect": "Allow",
                    "Principal": {"AWS": A},
                    "Action": "sts:AssumeRole",
                    "Condition": {"ArnEquals": {"aws:PrincipalArn": f"arn:aws:iam::{A}:user/jack"}},
                }
            ),
        )
        # a role whose callers may pass session tags: its own tags do not decide aws:PrincipalTag
        iam.create_role(
            RoleName="tag-session",
            AssumeRolePolicyDocument=doc(
                {"Effect": "Allow", "Principal": {"AWS": A}, "Action": ["sts:AssumeRole", "sts:TagSession"]}
            ),
            Tags=_tags({"team": "data"}),
        )
        iam.create_role(RoleName="fixed-tags", AssumeRolePolicyDocument=account, Tags=_tags({"team": "data"}))
        for role in ("tag-session", "fixed-tags"):
            iam.attach_role_policy(RoleName=role, PolicyArn=team)
        listing = s3.list_buckets()
        for bucket, classification in BUCKETS.items():
            s3.create_bucket(Bucket=bucket)
            s3.put_bucket_tagging(Bucket=bucket, Tagging={"TagSet": _tags({"classification": classification})})
        listing = s3.list_buckets()
        for entry in listing["Buckets"]:
            entry["Tags"] = s3.get_bucket_tagging(Bucket=entry["Name"])["TagSet"]
        _write(root / "a" / "s3-list-buckets.json", listing)
        _write(root / "a" / "iam-get-account-authorization-details.json", iam.get_account_authorization_details())
    return root
