"""The synthetic AWS account generator: its files have the shapes AWS returns.

A small account is built with boto3 against moto (`mock_aws`); its responses,
serialised as the AWS CLI prints them, give the key sets and value types per kind
of record. Every generated record of that kind must carry those keys with the same
types, and every generated key must be a member of the AWS API's own response
model (botocore's service definition) — which also covers GuardDuty findings,
which moto cannot produce.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import urllib.parse
import zipfile
from collections import defaultdict
from datetime import datetime
from typing import Any

import boto3
import pytest
from botocore.model import ListShape, MapShape, Shape, StructureShape

from blastshield_core.interfaces import cli
from blastshield_core.sources.aws.synthetic.generate import (
    AWS_FILES,
    AwsGenerateOptions,
    generate_aws,
    write_aws_collection,
)

ACCOUNT = "123456789012"
DOCUMENT_KEYS = {"PolicyDocument", "AssumeRolePolicyDocument", "Document"}
PAGINATION_KEYS = {"IsTruncated", "Marker", "NextMarker", "NextToken", "ContinuationToken", "Prefix"}
SMALL = AwsGenerateOptions(users=40, roles=60, policies=40, buckets=12, instances=6, functions=6, findings=10, seed=3)
OPERATIONS = {
    "gaad": ("iam", "GetAccountAuthorizationDetails"),
    "credential_report": ("iam", "GetCredentialReport"),
    "instances": ("ec2", "DescribeInstances"),
    "functions": ("lambda", "ListFunctions"),
    "buckets": ("s3", "ListBuckets"),
    "findings": ("guardduty", "GetFindings"),
}


def _as_cli(value: Any) -> Any:
    """A boto3 response as the AWS CLI prints it: times as ISO text, blobs as base64, no metadata."""
    if isinstance(value, dict):
        return {k: _as_cli(v) for k, v in value.items() if k != "ResponseMetadata" and k not in PAGINATION_KEYS}
    if isinstance(value, list):
        return [_as_cli(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    return value


def _policy(statements: list[dict]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


@pytest.fixture(scope="module")
def moto_files(tmp_path_factory) -> dict[str, Any]:
    """A small account built through boto3 against moto, as the CLI would have written it."""
    from moto import mock_aws

    with mock_aws():
        iam = boto3.client("iam", region_name="us-east-1")
        managed = iam.create_policy(
            PolicyName="reader",
            PolicyDocument=_policy([{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]),
        )["Policy"]["Arn"]
        iam.create_policy_version(
            PolicyArn=managed,
            PolicyDocument=_policy([{"Effect": "Allow", "Action": "s3:Get*", "Resource": "*"}]),
            SetAsDefault=True,
        )
        iam.create_group(GroupName="devs")
        iam.put_group_policy(
            GroupName="devs",
            PolicyName="assume",
            PolicyDocument=_policy([{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}]),
        )
        iam.attach_group_policy(GroupName="devs", PolicyArn=managed)
        for name, boundary in (("alice", None), ("bob", managed)):
            extra = {"PermissionsBoundary": boundary} if boundary else {}
            iam.create_user(UserName=name, Tags=[{"Key": "team", "Value": "t0"}], **extra)
            iam.add_user_to_group(GroupName="devs", UserName=name)
            iam.put_user_policy(
                UserName=name,
                PolicyName="deny",
                PolicyDocument=_policy([{"Effect": "Deny", "NotAction": "s3:*", "Resource": "*"}]),
            )
            iam.attach_user_policy(UserName=name, PolicyArn=managed)
            iam.create_access_key(UserName=name)
            iam.create_login_profile(UserName=name, Password="Abcdefgh1!xyz")
        trust = _policy(
            [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]
        )
        iam.create_role(
            RoleName="app",
            AssumeRolePolicyDocument=trust,
            Tags=[{"Key": "team", "Value": "t0"}],
            PermissionsBoundary=managed,
        )
        iam.put_role_policy(
            RoleName="app",
            PolicyName="inline",
            PolicyDocument=_policy([{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]),
        )
        iam.attach_role_policy(RoleName="app", PolicyArn=managed)
        iam.create_instance_profile(InstanceProfileName="app")
        iam.add_role_to_instance_profile(InstanceProfileName="app", RoleName="app")
        iam.generate_credential_report()
        files = {
            "gaad": iam.get_account_authorization_details(),
            "credential_report": iam.get_credential_report(),
        }
        ec2 = boto3.client("ec2", region_name="us-east-1")
        ec2.run_instances(
            ImageId="ami-12c6146b",
            MinCount=1,
            MaxCount=1,
            IamInstanceProfile={"Name": "app"},
            TagSpecifications=[{"ResourceType": "instance", "Tags": [{"Key": "Name", "Value": "web"}]}],
        )
        files["instances"] = ec2.describe_instances()
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as archive:
            archive.writestr("index.py", "def handler(event, context):\n    return None\n")
        lam = boto3.client("lambda", region_name="us-east-1")
        lam.create_function(
            FunctionName="fn",
            Runtime="python3.12",
            Role=f"arn:aws:iam::{ACCOUNT}:role/app",
            Handler="index.handler",
            Code={"ZipFile": buf.getvalue()},
        )
        files["functions"] = lam.list_functions()
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="bucket-one")
        files["buckets"] = s3.list_buckets()
    return {key: _as_cli(value) for key, value in files.items()}


@pytest.fixture(scope="module")
def generated() -> dict[str, Any]:
    files = generate_aws(SMALL)
    return {key: files[name] for key, name in AWS_FILES.items()}


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return {str: "string", list: "array", dict: "object", type(None): "null"}[type(value)]


def _shapes(data: Any) -> dict[str, dict[str, set[str]]]:
    """Per record path (e.g. `RoleDetailList[].InstanceProfileList[]`): every key seen and its value types."""
    found: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            record = found[path]
            for key, item in value.items():
                record[key].add(_json_type(item))
                if key not in DOCUMENT_KEYS:  # policy documents are free-form JSON
                    walk(item, f"{path}.{key}")
        elif isinstance(value, list):
            for item in value:
                walk(item, f"{path}[]")

    walk(data, "")
    return found


@pytest.mark.parametrize("kind", ["gaad", "credential_report", "instances", "functions", "buckets"])
def test_records_carry_moto_keys_with_moto_types(kind, moto_files, generated):
    """Every kind of record moto returns is generated with at least its keys, each of the same JSON type."""
    want, have = _shapes(moto_files[kind]), _shapes(generated[kind])
    problems = []
    for path, keys in want.items():
        if path not in have:
            problems.append(f"{path or 'top'}: no such records generated")
            continue
        for key, types in keys.items():
            if key not in have[path]:
                problems.append(f"{path}.{key}: missing")
            elif have[path][key] != types:
                problems.append(f"{path}.{key}: {sorted(have[path][key])} generated, AWS gives {sorted(types)}")
    assert problems == []


def _check_against_model(value: Any, shape: Shape, path: str, problems: list[str]) -> None:
    if isinstance(shape, StructureShape):
        if not isinstance(value, dict):
            problems.append(f"{path}: {_json_type(value)}, the model has a structure")
            return
        for key, item in value.items():
            if key not in shape.members:
                problems.append(f"{path}.{key}: not a member of {shape.name}")
            elif key not in DOCUMENT_KEYS:
                _check_against_model(item, shape.members[key], f"{path}.{key}", problems)
        problems.extend(f"{path}.{key}: required, missing" for key in shape.required_members if key not in value)
    elif isinstance(shape, ListShape):
        if not isinstance(value, list):
            problems.append(f"{path}: {_json_type(value)}, the model has a list")
            return
        for item in value:
            _check_against_model(item, shape.member, f"{path}[]", problems)
    elif isinstance(shape, MapShape):
        if not isinstance(value, dict):
            problems.append(f"{path}: {_json_type(value)}, the model has a map")
    else:
        expected = {
            "string": "string",
            "timestamp": "string",
            "blob": "string",
            "integer": "number",
            "long": "number",
            "double": "number",
            "float": "number",
            "boolean": "boolean",
        }[shape.type_name]
        if _json_type(value) != expected:
            problems.append(f"{path}: {_json_type(value)}, the model has {shape.type_name}")


@pytest.mark.parametrize("kind", sorted(OPERATIONS))
def test_every_generated_key_is_in_the_aws_api_model(kind, generated):
    """Each generated key is a member of the API's response shape, with its type and every required member."""
    service, operation = OPERATIONS[kind]
    shape = boto3.client(service, region_name="us-east-1").meta.service_model.operation_model(operation).output_shape
    problems: list[str] = []
    _check_against_model(generated[kind], shape, operation, problems)
    assert problems == []


def test_model_check_can_fail(generated):
    """The model check is real: an unknown key and a wrong type are reported."""
    shape = boto3.client("s3", region_name="us-east-1").meta.service_model.operation_model("ListBuckets").output_shape
    bad = {"Buckets": [{"Name": 7, "Colour": "red"}], "Owner": {}}
    problems: list[str] = []
    _check_against_model(bad, shape, "ListBuckets", problems)
    assert len(problems) == 2


def test_credential_report_columns_match_moto(moto_files, generated):
    """The decoded credential report has exactly moto's (AWS's) CSV columns, and a row per user plus the root."""

    def rows(report):
        return list(csv.DictReader(io.StringIO(base64.b64decode(report["Content"]).decode())))

    want, have = rows(moto_files["credential_report"]), rows(generated["credential_report"])
    assert list(have[0]) == list(want[0])
    assert len(have) == SMALL.users + 1
    assert have[0]["user"] == "<root_account>"
    assert {r["access_key_1_active"] for r in have[1:]} == {"true", "false"}


def _statements(gaad: dict) -> list[dict]:
    docs = [v["Document"] for p in gaad["Policies"] for v in p["PolicyVersionList"]]
    for kind, key in (
        ("UserDetailList", "UserPolicyList"),
        ("GroupDetailList", "GroupPolicyList"),
        ("RoleDetailList", "RolePolicyList"),
    ):
        docs += [p["PolicyDocument"] for record in gaad[kind] for p in record[key]]
    return [s for doc in docs for s in doc["Statement"]]


def test_policies_hold_the_hard_cases(generated):
    """Deny, NotAction, NotResource, conditions, action and resource wildcards and boundaries all occur."""
    statements = _statements(generated["gaad"])
    assert any(s["Effect"] == "Deny" for s in statements)
    assert any("NotAction" in s for s in statements)
    assert any("NotResource" in s for s in statements)
    assert any("Condition" in s for s in statements)
    assert any("*" in str(s.get("Action", "")) for s in statements)
    assert any(str(s.get("Resource", "")).endswith("*") for s in statements)
    users_roles = generated["gaad"]["UserDetailList"] + generated["gaad"]["RoleDetailList"]
    assert any("PermissionsBoundary" in r for r in users_roles)
    assert any(p["PolicyName"] == "AdministratorAccess" for p in generated["gaad"]["Policies"])


def test_trust_policies_name_every_kind_of_principal(generated):
    """Trust policies name services, roles, users, the account, another account, a SAML provider and `*`."""
    principals = [
        s["Principal"] for r in generated["gaad"]["RoleDetailList"] for s in r["AssumeRolePolicyDocument"]["Statement"]
    ]
    text = json.dumps(principals)
    assert '"Service"' in text and '"Federated"' in text and '"AWS": "*"' in text
    assert ":role/" in text and ":user/" in text
    assert f"arn:aws:iam::{SMALL.partner_account_id}:root" in text
    assert f"arn:aws:iam::{SMALL.account_id}:root" in text or f'"AWS": "{SMALL.account_id}"' in text


def test_references_resolve(generated):
    """Instance profiles, function roles, group members and attached policies point at what the account holds."""
    gaad = generated["gaad"]
    profiles = {p["Arn"] for r in gaad["RoleDetailList"] for p in r["InstanceProfileList"]}
    roles = {r["Arn"] for r in gaad["RoleDetailList"]}
    policies = {p["Arn"] for p in gaad["Policies"]}
    groups = {g["GroupName"] for g in gaad["GroupDetailList"]}
    for reservation in generated["instances"]["Reservations"]:
        for instance in reservation["Instances"]:
            if "IamInstanceProfile" in instance:
                assert instance["IamInstanceProfile"]["Arn"] in profiles
    assert all(f["Role"] in roles for f in generated["functions"]["Functions"])
    for record in gaad["UserDetailList"] + gaad["GroupDetailList"] + gaad["RoleDetailList"]:
        assert {p["PolicyArn"] for p in record["AttachedManagedPolicies"]} <= policies
    assert {g for u in gaad["UserDetailList"] for g in u["GroupList"]} <= groups


def test_same_seed_same_files_other_seed_other_files():
    """The same options give the same data; another seed gives another account."""
    assert generate_aws(SMALL) == generate_aws(SMALL)
    assert generate_aws(SMALL) != generate_aws(SMALL.model_copy(update={"seed": 4}))


def test_messy_accounts_have_what_real_exports_have():
    """With messy, some documents are URL-encoded text, a policy is absent and the report names an unknown user."""
    files = generate_aws(SMALL.model_copy(update={"messy": True, "users": 1000, "roles": 600, "policies": 200}))
    gaad = files[AWS_FILES["gaad"]]
    encoded = [p for r in gaad["RoleDetailList"] for p in [r["AssumeRolePolicyDocument"]] if isinstance(p, str)]
    assert encoded and json.loads(urllib.parse.unquote(encoded[0]))["Statement"]
    known = {p["Arn"] for p in gaad["Policies"]}
    attached = {
        a["PolicyArn"] for r in gaad["UserDetailList"] + gaad["RoleDetailList"] for a in r["AttachedManagedPolicies"]
    }
    assert attached - known
    report = base64.b64decode(files[AWS_FILES["credential_report"]]["Content"]).decode()
    assert "departed.user" in report and "departed.user" not in json.dumps(gaad)


def test_cli_generate_aws_writes_the_collection(tmp_path, capsys):
    """`generate-aws` writes the six files and reports the counts."""
    code = cli.main(
        [
            "generate-aws",
            "--users",
            "20",
            "--roles",
            "10",
            "--policies",
            "15",
            "--buckets",
            "5",
            "--seed",
            "2",
            "--out",
            str(tmp_path / "acct"),
            "--json",
        ]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["users"], report["roles"], report["buckets"]) == (20, 10, 5)
    assert sorted(p.name for p in (tmp_path / "acct").iterdir()) == sorted(AWS_FILES.values())
    gaad = json.loads((tmp_path / "acct" / AWS_FILES["gaad"]).read_text())
    assert len(gaad["UserDetailList"]) == 20


def test_cli_generate_aws_refuses_bad_sizes(tmp_path, capsys):
    """Negative or absurd sizes are invalid input (exit 2), nothing written."""
    code = cli.main(["generate-aws", "--users", "-1", "--out", str(tmp_path / "acct"), "--json"])
    assert code == 2
    assert json.loads(capsys.readouterr().out)["status"] == "invalid_input"
    assert not (tmp_path / "acct").exists()


def test_write_reports_sizes(tmp_path):
    """write_aws_collection reports every file with its size in bytes."""
    report = write_aws_collection(SMALL, tmp_path)
    assert report.files == {name: (tmp_path / name).stat().st_size for name in AWS_FILES.values()}
