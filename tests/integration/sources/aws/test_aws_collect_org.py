"""`collect-aws --organization --member-role` against moto's Organizations and STS on loopback.

AWS documentation cited: Organizations "Accessing member accounts in your organization" (a member
account created through Organizations has the role `OrganizationAccountAccessRole`, which the
management account assumes; a collector assumes a read-only role of its own choosing the same
way) and STS `AssumeRole`. moto's STS answers `AssumeRole` with credentials of the role's account,
so every call made with them lands in the member account's state.
"""

from __future__ import annotations

import json

import boto3

from blastshield_core.interfaces.cli import main
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT, user_with_key_to_critical_bucket

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures

ROLE = "BlastShieldReadOnly"


def _member(account, name: str) -> tuple[str, boto3.Session]:
    """A member account created through moto's Organizations, its read-only role, and a session in it."""
    org = account.client("organizations")
    status = org.create_account(Email=f"{name}@example.com", AccountName=name)["CreateAccountStatus"]
    member_id = org.describe_create_account_status(CreateAccountRequestId=status["Id"])["CreateAccountStatus"][
        "AccountId"
    ]
    creds = account.client("sts").assume_role(
        RoleArn=f"arn:aws:iam::{member_id}:role/OrganizationAccountAccessRole", RoleSessionName="setup"
    )["Credentials"]
    session = boto3.Session(
        aws_access_key_id=creds["AccessKeyId"],
        aws_secret_access_key=creds["SecretAccessKey"],
        aws_session_token=creds["SessionToken"],
        region_name="us-east-1",
    )
    iam = session.client("iam", endpoint_url=account.url)
    trust = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "sts:AssumeRole"}
        ],
    }
    iam.create_role(RoleName=ROLE, AssumeRolePolicyDocument=json.dumps(trust))
    iam.create_user(UserName=f"{name}-admin")
    return member_id, session


def test_organization_collection_assumes_the_member_role_in_each_account(moto_account, tmp_path, capsys, monkeypatch):
    # a safety net: a call that escaped the configured endpoint would meet a closed loopback port
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    user_with_key_to_critical_bucket(moto_account)
    moto_account.client("organizations").create_organization(FeatureSet="ALL")
    first, _ = _member(moto_account, "payments")
    second, _ = _member(moto_account, "analytics")
    assert ACCOUNT not in (first, second) and first != second
    data, out = str(tmp_path / "db"), tmp_path / "c"
    code = main(["collect-aws", "--organization", "--member-role", ROLE, "--out", str(out), "--import",
                 "--data-dir", data, "--json"])  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert sorted(report["accounts"]) == sorted([ACCOUNT, first, second])
    assert report["calls"]["sts:AssumeRole"] == 2 and report["calls"]["organizations:ListAccounts"] == 1
    for member, name in ((first, "payments"), (second, "analytics")):
        identity = json.loads((out / member / "sts-get-caller-identity.json").read_text())
        assert identity["Account"] == member and f"assumed-role/{ROLE}/blastshield-collect" in identity["Arn"]
        gaad = json.loads((out / member / "iam-get-account-authorization-details.json").read_text())
        assert [u["UserName"] for u in gaad["UserDetailList"]] == [f"{name}-admin"]  # the member's own IAM
    mine = json.loads((out / ACCOUNT / "iam-get-account-authorization-details.json").read_text())
    assert [u["UserName"] for u in mine["UserDetailList"]] == ["alice"]
    assert sorted(report["imported"]["accounts"]) == sorted([ACCOUNT, first, second])


def test_organization_collection_of_chosen_accounts_and_a_refused_role(moto_account, tmp_path, capsys, monkeypatch):
    """`--accounts` limits the members; a member whose role cannot be assumed is a warning naming
    sts:AssumeRole, and the rest is collected."""
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    moto_account.client("organizations").create_organization(FeatureSet="ALL")
    first, _ = _member(moto_account, "payments")
    second, _ = _member(moto_account, "analytics")
    code = main(["collect-aws", "--organization", "--member-role", ROLE, "--accounts", first, "--out",
                 str(tmp_path / "c"), "--json"])  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and sorted(report["accounts"]) == sorted([ACCOUNT, first])
    assert not (tmp_path / "c" / second).exists()
    assert main(["collect-aws", "--organization", "--out", str(tmp_path / "d"), "--json"]) == 2
    assert "--organization needs --member-role NAME" in capsys.readouterr().out
