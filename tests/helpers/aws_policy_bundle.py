"""Exports with resource policies and an organisation, collected with boto3 from moto and written in
cloudmapper's per-resource layout. (moto's server mode needs flask, which the environment lacks; the
in-process mock gives the same responses, as in tests/helpers/aws_bundle.py.)

Account A (123456789012, the organisation's management account) owns the buckets, a secret and
two keys; account B (created in the organisation by moto, moved to the OU `workloads`) holds the
role `partner`. Only shapes
come from moto: what AWS would decide is the product's evaluation, checked by the tests.
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
REGION = "us-east-1"
ORG_ONLY_BUCKET = "org-only"


def _clients(account: str):
    import boto3

    base = boto3.Session(region_name=REGION, aws_access_key_id="AKIATESTING", aws_secret_access_key="x")
    if account != A:
        creds = base.client("sts").assume_role(RoleArn=f"arn:aws:iam::{account}:role/setup", RoleSessionName="setup")[
            "Credentials"
        ]
        base = boto3.Session(
            region_name=REGION,
            aws_access_key_id=creds["AccessKeyId"],
            aws_secret_access_key=creds["SecretAccessKey"],
            aws_session_token=creds["SessionToken"],
        )
    return base.client


def _plain(value):
    return json.loads(json.dumps(value, default=str))


def _write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = _plain(data)
    if isinstance(data, dict):
        data.pop("ResponseMetadata", None)
    path.write_text(json.dumps(data))


def _gaad(client, folder: Path) -> None:
    gaad = client("iam").get_account_authorization_details()
    _write(folder / "iam-get-account-authorization-details.json", gaad)


def _get(resource: str, action: str = "s3:GetObject", principal=None, **extra) -> dict:
    return {"Effect": "Allow", "Principal": principal or {"AWS": "*"}, "Action": action, "Resource": resource, **extra}


def _account_a(client, folder: Path, b: str) -> dict:
    iam, s3 = client("iam"), client("s3")
    trust = doc({"Effect": "Allow", "Principal": {"AWS": A}, "Action": "sts:AssumeRole"})
    iam.create_role(RoleName="named-role", AssumeRolePolicyDocument=trust)
    iam.create_user(UserName="reader")
    iam.put_user_policy(
        UserName="reader",
        PolicyName="reads",
        PolicyDocument=doc(
            {"Effect": "Allow", "Action": ["s3:GetObject", "kms:Decrypt"], "Resource": "*"},
        ),
    )
    iam.create_user(UserName="tagged", Tags=[{"Key": "team", "Value": "data"}])
    iam.create_user(UserName="untagged", Tags=[{"Key": "team", "Value": "web"}])
    named_role = f"arn:aws:iam::{A}:role/named-role"
    reader = f"arn:aws:iam::{A}:user/reader"
    policies = {
        "team-data": doc(_get("arn:aws:s3:::team-data/*", principal={"AWS": named_role})),
        "locked": doc(
            {"Effect": "Deny", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::locked/*"}
        ),
        ORG_ONLY_BUCKET: doc(
            _get(
                f"arn:aws:s3:::{ORG_ONLY_BUCKET}/*",
                Condition={"StringEquals": {"aws:PrincipalOrgID": "ORG_ID"}},
            )
        ),
        "public-site": doc(_get("arn:aws:s3:::public-site/*", principal="*")),
        "by-tag": doc(_get("arn:aws:s3:::by-tag/*", Condition={"StringEquals": {"aws:PrincipalTag/team": "data"}})),
        "shared-data": doc(_get("arn:aws:s3:::shared-data/*", principal={"AWS": f"arn:aws:iam::{b}:root"})),
        "a-only": doc(_get("arn:aws:s3:::a-only/*", principal={"AWS": reader})),
        "vpc-only": doc(
            _get("arn:aws:s3:::vpc-only/*", Condition={"StringEquals": {"aws:SourceVpce": "vpce-1a2b3c4d"}})
        ),
    }
    for bucket in [*policies, "uncollected"]:
        s3.create_bucket(Bucket=bucket)
    _write(folder / "s3-list-buckets.json", s3.list_buckets())
    return {"policies": policies, "s3": s3, "iam": iam}


def _resource_policies(client, folder: Path, made: dict, org_id: str, b: str) -> None:
    s3 = made["s3"]
    for bucket, policy in made["policies"].items():
        s3.put_bucket_policy(Bucket=bucket, Policy=policy.replace("ORG_ID", org_id))
        _write(folder / "s3-get-bucket-policy" / bucket, s3.get_bucket_policy(Bucket=bucket))
    sm = client("secretsmanager")
    shared = sm.create_secret(Name="shared-secret", SecretString="x")
    sm.create_secret(Name="no-policy-secret", SecretString="y")
    sm.put_resource_policy(
        SecretId="shared-secret",
        ResourcePolicy=doc(
            {
                "Effect": "Allow",
                "Principal": {"AWS": f"arn:aws:iam::{b}:role/partner"},
                "Action": "secretsmanager:GetSecretValue",
                "Resource": "*",
            }
        ),
    )
    _write(folder / "secretsmanager-list-secrets.json", sm.list_secrets())
    for name in ("shared-secret", "no-policy-secret"):
        _write(folder / "secretsmanager-get-resource-policy" / name, sm.get_resource_policy(SecretId=name))
    kms = client("kms")
    account_key = kms.create_key(Description="default key policy: the account")["KeyMetadata"]["KeyId"]
    role_key = kms.create_key(
        Description="only the named role",
        Policy=doc(
            {
                "Effect": "Allow",
                "Principal": {"AWS": f"arn:aws:iam::{A}:role/named-role"},
                "Action": "kms:*",
                "Resource": "*",
            }
        ),
    )["KeyMetadata"]["KeyId"]
    _write(folder / "kms-list-keys.json", kms.list_keys())
    for key in (account_key, role_key):
        _write(folder / "kms-get-key-policy" / key, kms.get_key_policy(KeyId=key, PolicyName="default"))
    made["iam"].put_user_policy(
        UserName="reader",
        PolicyName="keys",
        PolicyDocument=doc(
            {
                "Effect": "Allow",
                "Action": "kms:Decrypt",
                "Resource": [f"arn:aws:kms:{REGION}:{A}:key/{k}" for k in (account_key, role_key)],
            }
        ),
    )
    made["secret_arn"] = shared["ARN"]
    made["keys"] = {"account": account_key, "role": role_key}


def _account_b(client, folder: Path, made: dict, b: str) -> None:
    iam = client("iam")
    iam.create_role(
        RoleName="partner",
        AssumeRolePolicyDocument=doc({"Effect": "Allow", "Principal": {"AWS": b}, "Action": "sts:AssumeRole"}),
    )
    iam.put_role_policy(
        RoleName="partner",
        PolicyName="reads",
        PolicyDocument=doc(
            {
                "Effect": "Allow",
                "Action": "s3:GetObject",
                "Resource": [
                    "arn:aws:s3:::shared-data/*",
                    "arn:aws:s3:::uncollected/*",
                    "arn:aws:s3:::a-only/*",
                    f"arn:aws:s3:::{ORG_ONLY_BUCKET}/*",
                ],
            },
            {"Effect": "Allow", "Action": "secretsmanager:GetSecretValue", "Resource": made["secret_arn"]},
        ),
    )
    _gaad(client, folder)


@cache
def policy_bundle() -> Path:
    """Write the bundle once: a/ (account A with its resource policies), b/ (account B), org/ (the
    organisation: B in the OU `workloads`, an SCP denying secrets reads at the OU)."""
    from moto import mock_aws

    root = Path(tempfile.mkdtemp(prefix="blastshield-respol-"))
    atexit.register(shutil.rmtree, root, True)
    with mock_aws():
        client_a = _clients(A)
        org = client_a("organizations")
        org_id = org.create_organization(FeatureSet="ALL")["Organization"]["Id"]
        b = org.create_account(AccountName="b", Email="b@example.com")["CreateAccountStatus"]["AccountId"]
        made = _account_a(client_a, root / "a", b)
        _resource_policies(client_a, root / "a", made, org_id, b)
        _gaad(client_a, root / "a")
        _account_b(_clients(b), root / "b", made, b)
        _collect_org(org, root / "org", b)
        made.update(org_id=org_id, b=b)
        (root / "facts.json").write_text(json.dumps({k: made[k] for k in ("secret_arn", "keys", "org_id", "b")}))
    return root


def _collect_org(org, folder: Path, b: str) -> None:
    """The organisation's exports: A manages it; B sits in the OU `workloads` with an SCP that denies
    secrets reads; every level keeps the AWS-managed FullAWSAccess."""
    root = org.list_roots()["Roots"][0]["Id"]
    ou = org.create_organizational_unit(ParentId=root, Name="workloads")["OrganizationalUnit"]["Id"]
    org.move_account(AccountId=b, SourceParentId=root, DestinationParentId=ou)
    deny = org.create_policy(
        Name="no-secrets",
        Description="deny secrets reads",
        Type="SERVICE_CONTROL_POLICY",
        Content=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Action": "secretsmanager:*", "Resource": "*"}]}
        ),
    )["Policy"]["PolicySummary"]["Id"]
    org.attach_policy(PolicyId=deny, TargetId=ou)
    org.enable_policy_type(RootId=root, PolicyType="SERVICE_CONTROL_POLICY")
    _write(folder / "organizations-describe-organization.json", org.describe_organization())
    _write(folder / "organizations-list-roots.json", org.list_roots())
    for target in (ou, b):
        if target not in _targets(org, "p-FullAWSAccess"):
            org.attach_policy(PolicyId="p-FullAWSAccess", TargetId=target)
    policies = org.list_policies(Filter="SERVICE_CONTROL_POLICY")
    _write(folder / "organizations-list-policies-SERVICE_CONTROL_POLICY.json", policies)
    for summary in policies["Policies"]:
        _write(folder / "organizations-describe-policy" / summary["Id"], org.describe_policy(PolicyId=summary["Id"]))
        _write(
            folder / "organizations-list-targets-for-policy" / summary["Id"],
            org.list_targets_for_policy(PolicyId=summary["Id"]),
        )
    for child in (ou, b, A):
        _write(folder / "organizations-list-parents" / child, org.list_parents(ChildId=child))


def _targets(org, policy: str) -> set[str]:
    return {t["TargetId"] for t in org.list_targets_for_policy(PolicyId=policy)["Targets"]}


def facts() -> dict:
    return json.loads((policy_bundle() / "facts.json").read_text())
