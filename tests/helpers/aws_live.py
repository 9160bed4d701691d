"""A moto server on loopback as the AWS account, and an AWS config that points profiles at it.

The profiles reach moto through botocore's configured endpoint (`endpoint_url` in the AWS config
file), as BLASTSHIELD_AWS_COLLECT_PROFILE and BLASTSHIELD_AWS_RESPOND_PROFILE do in production.

One moto server serves the whole test session (one per worker when the suite runs in parallel):
`moto_endpoint` starts it, and `tests/conftest.py` offers it with `moto_server` and `moto_account` to
every test. `moto_account` resets it (moto's reset API) before and after each test, so tests stay
independent. A module may still import the fixtures (`moto_server = aws_live.moto_server`): they are
the same fixtures and reach the same server. boto3 and moto are imported when first used, so the
unit tests do not load them.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import boto3

ACCOUNT = "123456789012"  # moto's default account
RESET_BOUND_S = 120.0  # the longest wait for moto's reset to answer


@dataclass
class MotoAccount:
    url: str
    config: Path

    def session(self, profile: str = "collect") -> boto3.Session:
        import boto3

        return boto3.Session(profile_name=profile)

    def client(self, service: str, profile: str = "collect"):
        return self.session(profile).client(service)

    def reset(self) -> None:
        """moto's reset, waited for until it answers (0.2-0.5 s beside four busy processes; the bound, only
        against a server that hangs, is generous for a machine shared by several suites)."""
        request = urllib.request.Request(f"{self.url}/moto-api/reset", method="POST")
        urllib.request.urlopen(request, timeout=RESET_BOUND_S).close()


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    """The session's one moto server on loopback (a free port): its URL."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


@pytest.fixture(scope="session")
def moto_server(moto_endpoint: str) -> str:
    """The URL of the session's moto server (`moto_account` gives a test a fresh account on it)."""
    return moto_endpoint


@pytest.fixture
def moto_account(moto_server, tmp_path, monkeypatch) -> Iterator[MotoAccount]:
    """A fresh moto account; profiles `collect` and `respond` point at it through the AWS config."""
    config = tmp_path / "aws-config"
    config.write_text(
        "".join(
            f"[profile {name}]\nregion = us-east-1\nendpoint_url = {moto_server}\n"
            f"aws_access_key_id = AKIA{name.upper():0<16}\naws_secret_access_key = secret-{name}\n"
            for name in ("collect", "respond")
        ),
        encoding="utf-8",
    )
    for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.delenv("BLASTSHIELD_AWS_RESPOND_PROFILE", raising=False)
    monkeypatch.setenv("BLASTSHIELD_AWS_COLLECT_PROFILE", "collect")
    account = MotoAccount(moto_server, config)
    account.reset()
    yield account
    account.reset()


def user_with_key_to_critical_bucket(account: MotoAccount, user: str = "alice", bucket: str = "crown-jewels") -> str:
    """A user whose access key reads a bucket tagged critical; the key id."""
    iam = account.client("iam")
    iam.create_user(UserName=user)
    key = iam.create_access_key(UserName=user)["AccessKey"]["AccessKeyId"]
    policy = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{bucket}/*"}],
    }
    iam.put_user_policy(UserName=user, PolicyName="read-crown", PolicyDocument=json.dumps(policy))
    s3 = account.client("s3")
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_tagging(Bucket=bucket, Tagging={"TagSet": [{"Key": "sensitivity", "Value": "critical"}]})
    return key


def iam_state(session_or_account: Any) -> dict[str, Any]:
    """Every user's and role's inline policies (and every user's keys) in one account, as boto3 reads
    them: what a test compares before and after a command to show what it wrote."""
    iam = session_or_account.client("iam")
    state: dict[str, Any] = {"account": session_or_account.client("sts").get_caller_identity()["Account"]}
    for user in iam.list_users()["Users"]:
        name = user["UserName"]
        state[f"user/{name}"] = {
            "id": user["UserId"],
            "policies": {p: iam.get_user_policy(UserName=name, PolicyName=p)["PolicyDocument"]
                         for p in iam.list_user_policies(UserName=name)["PolicyNames"]},
            "keys": {k["AccessKeyId"]: k["Status"] for k in iam.list_access_keys(UserName=name)["AccessKeyMetadata"]},
        }  # fmt: skip
    for role in iam.list_roles()["Roles"]:
        name = role["RoleName"]
        state[f"role/{name}"] = {
            "id": role["RoleId"],
            "policies": {p: iam.get_role_policy(RoleName=name, PolicyName=p)["PolicyDocument"]
                         for p in iam.list_role_policies(RoleName=name)["PolicyNames"]},
        }  # fmt: skip
    return state
