"""Every account write aimed at the principal the analyst saw, checked before it is sent, against
moto on loopback with two accounts.

Account 123456789012 is moto's default; 999988887777 is reached through a role assumed into it
(moto's STS gives credentials of the role's account). Each holds a user `alice` with an access key
reading a critical bucket, and a role `ops-role`. Every assertion is a boto3 read of moto's state.

AWS documentation cited: AWS STS API Reference, "GetCallerIdentity" (the account the calling
credentials belong to; no permission needed); IAM API Reference, "GetUser" and "GetRole" (the
principal's `Arn` and its unique `UserId` / `RoleId`); IAM User Guide, "IAM identifiers", "Unique
identifiers" (a user or role deleted and recreated with the same name gets a new unique id, so a
policy or a check that names the id does not apply to the new one).
"""

from __future__ import annotations

import json
from pathlib import Path

import boto3

from blastshield_core.interfaces.cli import main
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT, user_with_key_to_critical_bucket

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures

OTHER = "999988887777"


def _cli(capsys, *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    captured = capsys.readouterr()
    out = captured.out if captured.out.strip() else captured.err
    return code, json.loads(out) if out.strip().startswith("{") else {"text": out}


def _other_account(account) -> boto3.Session:
    """Account 999988887777 through a role assumed into it, as the AWS config's profile `other`."""
    creds = account.client("sts").assume_role(
        RoleArn=f"arn:aws:iam::{OTHER}:role/OrganizationAccountAccessRole", RoleSessionName="setup"
    )["Credentials"]
    with Path(account.config).open("a", encoding="utf-8") as config:
        config.write(
            f"[profile other]\nregion = us-east-1\nendpoint_url = {account.url}\n"
            f"aws_access_key_id = {creds['AccessKeyId']}\naws_secret_access_key = {creds['SecretAccessKey']}\n"
            f"aws_session_token = {creds['SessionToken']}\n"
        )
    return boto3.Session(profile_name="other")


class Other:
    """The other account as a `MotoAccount` helper sees one."""

    def __init__(self, account, session: boto3.Session):
        self.url, self.config, self._session = account.url, account.config, session

    def client(self, service: str, profile: str = "other"):
        return self._session.client(service)


def _ops_role(client) -> None:
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]}  # fmt: skip
    client.create_role(RoleName="ops-role", AssumeRolePolicyDocument=json.dumps(trust))


def _state(session_or_account) -> dict:
    """Every user's and role's inline policies and keys in one account, as boto3 reads them."""
    iam = session_or_account.client("iam")
    state = {"account": session_or_account.client("sts").get_caller_identity()["Account"]}
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
            name: iam.get_role_policy(RoleName=name, PolicyName=name)["PolicyDocument"]
            for name in iam.list_role_policies(RoleName=name)["PolicyNames"]
        }
    return state


def _two_accounts(moto_account, tmp_path, capsys, monkeypatch, *, other_keys_listed: bool = True):
    """Both accounts collected and imported into one graph; the alert is on 999988887777's alice.
    The respond profile signs in to 123456789012."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    user_with_key_to_critical_bucket(moto_account)
    _ops_role(moto_account.client("iam"))
    other = _other_account(moto_account)
    user_with_key_to_critical_bucket(Other(moto_account, other), bucket="other-jewels")
    _ops_role(other.client("iam"))
    data = str(tmp_path / "db")
    code, out = _cli(capsys, "collect-aws", "--out", str(tmp_path / "a"), "--import", "--data-dir", data)
    assert code == 0, out
    code, out = _cli(capsys, "collect-aws", "--profile", "other", "--out", str(tmp_path / "b"), "--import",
                     "--data-dir", data)  # fmt: skip
    assert code == 0 and out["accounts"] == [OTHER], out
    if not other_keys_listed:  # only the credential report: no key id of the other alice is known
        (tmp_path / "b" / OTHER / "iam-list-access-keys.json").unlink()
        code, out = _cli(capsys, "import-aws", str(tmp_path / "b" / OTHER), "--data-dir", data)
        assert code == 0, out
    code, opened = _cli(capsys, "alert", "open", f"{OTHER}:user:alice", "--title", "alice in the other account",
                        "--data-dir", data)  # fmt: skip
    assert code == 0, opened
    return data, opened["alert_id"], other


def test_a_cross_account_alert_with_a_key_id_is_refused_before_any_call(moto_account, tmp_path, capsys, monkeypatch):
    data, alert_id, other = _two_accounts(moto_account, tmp_path, capsys, monkeypatch)
    before = (_state(moto_account), _state(other))
    code, plan = _cli(capsys, "contain", alert_id, "--decider", "rules", "--plan", "--data-dir", data)
    assert code == 0
    [entry] = plan["plans"]
    aws = entry["aws"]
    assert aws["kind"] == "deactivate_access_key" and aws["target"]["account"] == OTHER
    assert aws["target"]["arn"] == f"arn:aws:iam::{OTHER}:user/alice" and aws["target"]["unique_id"]
    refused = [c for c in aws["checks"] if not c["ok"]]
    # the respond profile is another account's, and the read profile finds another account's alice
    assert [c["name"] for c in refused] == ["respond profile's account", "live principal"]
    assert f"signs in to account {ACCOUNT}, not {OTHER}" in refused[0]["detail"]
    assert f"arn:aws:iam::{ACCOUNT}:user/alice, not arn:aws:iam::{OTHER}:user/alice" in refused[1]["detail"]
    assert main(["contain", alert_id, "--decider", "rules", "--plan", "--data-dir", data]) == 0
    assert "check would refuse: respond profile's account" in capsys.readouterr().out
    code, out = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    assert code == 2 and out["message"].startswith("refused before any write, nothing was written"), out
    assert f"not {OTHER}, the target's" in out["message"]
    assert (_state(moto_account), _state(other)) == before  # neither alice was touched
    assert _cli(capsys, "runs", "--data-dir", data)[1]["runs"] == []


def test_a_cross_account_alert_with_no_key_id_is_refused_and_no_key_is_guessed(
    moto_account, tmp_path, capsys, monkeypatch
):
    data, alert_id, other = _two_accounts(moto_account, tmp_path, capsys, monkeypatch, other_keys_listed=False)
    before = (_state(moto_account), _state(other))
    code, plan = _cli(capsys, "contain", alert_id, "--decider", "rules", "--plan", "--data-dir", data)
    [entry] = [p for p in plan["plans"] if p["route_id"].endswith("access-key-1")]
    aws = entry["aws"]
    assert aws["kind"] == "deny_all_inline_policy"  # offered instead of a guessed key
    assert "none is guessed" in aws["side_effects"][0] and aws["calls"][0]["params"]["UserName"] == "alice"
    assert [c["name"] for c in aws["checks"] if not c["ok"]] == ["respond profile's account", "live principal"]
    code, out = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    assert code == 2 and f"signs in to account {ACCOUNT}, not {OTHER}" in out["message"], out
    assert (_state(moto_account), _state(other)) == before


def test_a_cross_account_role_revocation_is_refused_before_any_call(moto_account, tmp_path, capsys, monkeypatch):
    data, _, other = _two_accounts(moto_account, tmp_path, capsys, monkeypatch)
    code, opened = _cli(capsys, "alert", "open", f"{OTHER}:role:ops-role", "--title", "ops-role",
                        "--data-dir", data)  # fmt: skip
    alert_id = opened["alert_id"]
    before = (_state(moto_account), _state(other))
    candidate = f"revoke-sessions:{OTHER}:role:ops-role"
    code, out = _cli(capsys, "revoke-sessions", alert_id, "--candidate", candidate, "--confirm", "--data-dir", data)
    assert code == 2 and f"not {OTHER}, the target's" in out["message"], out
    assert (_state(moto_account), _state(other)) == before


def test_a_principal_recreated_since_collection_is_refused_by_name(moto_account, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    user_with_key_to_critical_bucket(moto_account)
    data = str(tmp_path / "db")
    assert _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)[0] == 0
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:alice", "--title", "t", "--data-dir", data)
    iam = moto_account.client("iam")
    key = iam.list_access_keys(UserName="alice")["AccessKeyMetadata"][0]["AccessKeyId"]
    iam.delete_access_key(UserName="alice", AccessKeyId=key)
    iam.delete_user_policy(UserName="alice", PolicyName="read-crown")
    iam.delete_user(UserName="alice")
    iam.create_user(UserName="alice")  # a namesake: same name and ARN, another unique id
    before = _state(moto_account)
    code, out = _cli(capsys, "contain", opened["alert_id"], "--decider", "rules", "--confirm", "--data-dir", data)
    assert code == 2 and "alice was recreated since collection" in out["message"], out
    assert _state(moto_account) == before


def test_the_readmes_five_lines_write_nothing_and_the_plan_names_the_missing_collection(
    moto_account, tmp_path, capsys, monkeypatch
):
    """Exports imported with `import-aws` (no recorded collection), a respond profile, `contain
    --confirm`: nothing is written in AWS (a write that cannot be verified is not sent)."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    user_with_key_to_critical_bucket(moto_account)
    exports = tmp_path / "exports"
    assert _cli(capsys, "collect-aws", "--out", str(exports), "--data-dir", str(tmp_path / "scratch"))[0] == 0
    data = str(tmp_path / "db")
    code, out = _cli(capsys, "import-aws", str(exports / ACCOUNT), "--data-dir", data)
    assert code == 0, out
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:alice", "--title", "t", "--data-dir", data)
    alert_id = opened["alert_id"]
    code, plan = _cli(capsys, "contain", alert_id, "--decider", "rules", "--plan", "--data-dir", data)
    [entry] = plan["plans"]
    assert f"no collection of account {ACCOUNT} is recorded" in entry["aws"]["read_error"]
    assert [c["name"] for c in entry["aws"]["checks"] if not c["ok"]] == ["target"]
    before = _state(moto_account)
    code, out = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    assert code == 2 and f"no collection of account {ACCOUNT} is recorded" in out["message"], out
    assert _state(moto_account) == before
    assert _cli(capsys, "runs", "--data-dir", data)[1]["runs"] == []
