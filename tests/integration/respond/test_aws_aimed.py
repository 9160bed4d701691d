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
from tests.helpers.aws_live import ACCOUNT, iam_state, user_with_key_to_critical_bucket

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
    before = (iam_state(moto_account), iam_state(other))
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
    assert (iam_state(moto_account), iam_state(other)) == before  # neither alice was touched
    assert _cli(capsys, "runs", "--data-dir", data)[1]["runs"] == []


def test_a_cross_account_alert_with_no_key_id_is_refused_and_no_key_is_guessed(
    moto_account, tmp_path, capsys, monkeypatch
):
    data, alert_id, other = _two_accounts(moto_account, tmp_path, capsys, monkeypatch, other_keys_listed=False)
    before = (iam_state(moto_account), iam_state(other))
    code, plan = _cli(capsys, "contain", alert_id, "--decider", "rules", "--plan", "--data-dir", data)
    [entry] = [p for p in plan["plans"] if p["route_id"].endswith("access-key-1")]
    aws = entry["aws"]
    assert aws["kind"] == "deny_all_inline_policy"  # offered instead of a guessed key
    assert "none is guessed" in aws["side_effects"][0] and aws["calls"][0]["params"]["UserName"] == "alice"
    assert [c["name"] for c in aws["checks"] if not c["ok"]] == ["respond profile's account", "live principal"]
    code, out = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    assert code == 2 and f"signs in to account {ACCOUNT}, not {OTHER}" in out["message"], out
    assert (iam_state(moto_account), iam_state(other)) == before


def test_a_cross_account_role_revocation_is_refused_before_any_call(moto_account, tmp_path, capsys, monkeypatch):
    data, _, other = _two_accounts(moto_account, tmp_path, capsys, monkeypatch)
    code, opened = _cli(capsys, "alert", "open", f"{OTHER}:role:ops-role", "--title", "ops-role",
                        "--data-dir", data)  # fmt: skip
    alert_id = opened["alert_id"]
    before = (iam_state(moto_account), iam_state(other))
    candidate = f"revoke-sessions:{OTHER}:role:ops-role"
    code, out = _cli(capsys, "revoke-sessions", alert_id, "--candidate", candidate, "--confirm", "--data-dir", data)
    assert code == 2 and f"not {OTHER}, the target's" in out["message"], out
    assert (iam_state(moto_account), iam_state(other)) == before


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
    before = iam_state(moto_account)
    code, out = _cli(capsys, "contain", opened["alert_id"], "--decider", "rules", "--confirm", "--data-dir", data)
    assert code == 2 and "alice was recreated since collection" in out["message"], out
    assert iam_state(moto_account) == before


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
    before = iam_state(moto_account)
    code, out = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    assert code == 2 and f"no collection of account {ACCOUNT} is recorded" in out["message"], out
    assert iam_state(moto_account) == before
    assert _cli(capsys, "runs", "--data-dir", data)[1]["runs"] == []


def test_an_export_whose_name_and_arn_disagree_is_refused_at_import(moto_account, tmp_path, capsys, monkeypatch):
    """A user entry reading `UserName: eve` with `Arn …:user/alice` names two users at once (IAM API
    Reference, "UserDetail": the Arn ends with the user's path and name). The import refuses it with
    a warning naming both: no `eve` appears, so no containment can aim at alice through her."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    user_with_key_to_critical_bucket(moto_account)
    folder = tmp_path / "c"
    assert _cli(capsys, "collect-aws", "--out", str(folder), "--data-dir", str(tmp_path / "scratch"))[0] == 0
    gaad_path = folder / ACCOUNT / "iam-get-account-authorization-details.json"
    gaad = json.loads(gaad_path.read_text())
    [alice] = [u for u in gaad["UserDetailList"] if u["UserName"] == "alice"]
    alice["UserName"] = "eve"
    gaad_path.write_text(json.dumps(gaad))
    data = str(tmp_path / "db")
    code, imported = _cli(capsys, "import-aws", str(folder / ACCOUNT), "--data-dir", data)
    assert code == 0, imported
    [warning] = [w for w in imported["warnings"] if "refused" in w["message"]]
    assert "UserName 'eve'" in warning["message"] and f"arn:aws:iam::{ACCOUNT}:user/alice" in warning["message"]
    code, found = _cli(capsys, "entities", "eve", "--data-dir", data)
    assert found["matches"] == []
    before = iam_state(moto_account)
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:eve", "--title", "eve", "--data-dir", data)
    assert code == 3 and opened["status"] == "unknown_source", opened
    assert iam_state(moto_account) == before


def _carol_contained_twice(moto_account, tmp_path, capsys, monkeypatch) -> tuple[str, str, str, str]:
    """carol's key deactivated, then the deny-all policy for her console password: two of
    BlastShield's actions on one user. The data folder, the two routes and the key id."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    key = user_with_key_to_critical_bucket(moto_account, user="carol")
    moto_account.client("iam").create_login_profile(UserName="carol", Password="Correct-Horse-9!")
    data = str(tmp_path / "db")
    assert _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)[0] == 0
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:carol", "--title", "t", "--data-dir", data)
    key_route, console = f"{ACCOUNT}:user:carol:access-key-1", f"{ACCOUNT}:user:carol:console"
    code, run = _cli(capsys, "contain", opened["alert_id"], "--decider", "analyst", "--choose",
                     f"block-route:{key_route}", "--choose", f"block-route:{console}", "--confirm",
                     "--data-dir", data)  # fmt: skip
    assert code == 0, run
    kinds = [a["aws"]["plan"]["kind"] for a in run["actions"]]
    assert kinds == ["deactivate_access_key", "deny_all_inline_policy"], run
    assert all(a["applied"] and a["api_verified"] for a in run["actions"]), run
    return data, key_route, console, key


def test_release_order_is_explained_when_another_action_still_blocks_the_route(
    moto_account, tmp_path, capsys, monkeypatch
):
    """Releasing the key while BlastShield's deny-all still holds on the same user: the key is
    Active again, the route stays blocked (an explicit Deny overrides every Allow: IAM User Guide,
    "Policy evaluation logic"), and the release says which action still blocks it and the command
    that releases it; a retry says the same instead of blaming the imported document."""
    data, key_route, console, key = _carol_contained_twice(moto_account, tmp_path, capsys, monkeypatch)
    iam = moto_account.client("iam")
    code, released = _cli(capsys, "release", key_route, "--reason", "key cleared", "--confirm", "--data-dir", data)
    assert code == 0 and released["api_verified"] is True, released
    assert {k["AccessKeyId"]: k["Status"] for k in iam.list_access_keys(UserName="carol")["AccessKeyMetadata"]} == {
        key: "Active"
    }
    assert "BlastShieldDenyAll" in iam.list_user_policies(UserName="carol")["PolicyNames"]
    [blocking] = released["still_blocked_by"]
    assert blocking["route_id"] == console and blocking["kind"] == "deny_all_inline_policy"
    assert f"release {console} --reason TEXT --confirm" in released["release_order"]
    code, routes = _cli(capsys, "routes", _alert_of(capsys, data), "--data-dir", data)
    assert code == 0 and {r["route_id"]: r["status"] for r in routes["routes"]}[key_route] == "blocked"
    code, retry = _cli(capsys, "release", key_route, "--reason", "again", "--confirm", "--data-dir", data)
    assert code == 2 and "stays blocked by BlastShield's deny-all policy" in retry["message"], retry
    assert "imported document" not in retry["message"]
    code, released = _cli(capsys, "release", console, "--reason", "cleared", "--confirm", "--data-dir", data)
    assert code == 0 and "still_blocked_by" not in released, released
    assert iam.list_user_policies(UserName="carol")["PolicyNames"] == ["read-crown"]


def _alert_of(capsys, data: str) -> str:
    _, alerts = _cli(capsys, "alerts", "--data-dir", data)
    return next(a["id"] for a in alerts["alerts"] if a["entity_id"] == f"{ACCOUNT}:user:carol")


def test_a_release_from_an_audit_record_edited_in_the_database_is_refused(moto_account, tmp_path, capsys, monkeypatch):
    """After a real revocation on ops-role, someone who can write the database edits the applied event
    (another role, no document, an allow-all before-image). The release refuses (exit 2, naming the
    broken record) and changes nothing in moto: every user's and role's policies and keys are the same."""
    from blastshield_core.base.settings import load_settings
    from blastshield_core.interfaces.service import open_services

    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    iam = moto_account.client("iam")
    _ops_role(iam)
    _ops_role_low = {"Version": "2012-10-17", "Statement": []}
    iam.create_role(RoleName="low-priv-role", AssumeRolePolicyDocument=json.dumps(_ops_role_low))
    data = str(tmp_path / "db")
    assert _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)[0] == 0
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:role:ops-role", "--title", "t", "--data-dir", data)
    candidate = f"revoke-sessions:{ACCOUNT}:role:ops-role"
    code, done = _cli(capsys, "revoke-sessions", opened["alert_id"], "--candidate", candidate, "--confirm",
                      "--data-dir", data)  # fmt: skip
    assert code == 0 and done["applied"] and done["api_verified"], done
    services = open_services(load_settings(environ={}, data_dir=data))
    try:
        [event] = [e for e in services.audit.events(limit=50)
                   if e.kind == "revoke_sessions" and e.data.get("status") == "applied"]  # fmt: skip
        forged = json.loads(json.dumps(event.data))
        forged["plan"]["user"] = "low-priv-role"
        forged["plan"]["calls"][0]["params"]["RoleName"] = "low-priv-role"
        forged["plan"]["before_image"] = {"kind": "role_policy", "role": "low-priv-role", "existed": True,
                                          "policy_name": "AWSRevokeOlderSessions", "document": {
                                              "Version": "2012-10-17", "Statement": [
                                                  {"Effect": "Allow", "Action": "*", "Resource": "*"}]}}  # fmt: skip
        text = json.dumps(json.dumps(forged, sort_keys=True))[1:-1].replace("'", "\\'")  # a Cypher string
        services.store.command(
            "GRAPH.QUERY", services.store.settings.audit_graph,
            f"MATCH (e:Event {{event_id: '{event.event_id}'}}) SET e.data = '{text}'",
        )  # fmt: skip
    finally:
        services.close()
    before = iam_state(moto_account)
    code, out = _cli(capsys, "release", candidate, "--reason", "routine", "--confirm",
                     "--acknowledge-stolen-sessions", "--data-dir", data)  # fmt: skip
    assert code == 2 and "the audit does not verify" in out["message"], out
    assert event.event_id in out["message"]
    assert iam_state(moto_account) == before


def test_a_respond_profile_per_account_acts_only_in_its_account(moto_account, tmp_path, capsys, monkeypatch):
    """BLASTSHIELD_AWS_RESPOND_PROFILES maps 999988887777 to its own profile: the alert on its alice
    deactivates that alice's key and no other; an alert on 123456789012's alice, an account the file
    does not name, is contained in the graph only ("not applied in AWS"), never with the other
    account's credentials."""
    data, alert_id, other = _two_accounts(moto_account, tmp_path, capsys, monkeypatch)
    mapping = tmp_path / "respond-profiles.json"
    mapping.write_text(json.dumps({OTHER: {"respond": "other", "collect": "other"}}))
    monkeypatch.delenv("BLASTSHIELD_AWS_RESPOND_PROFILE")
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILES", str(mapping))
    home_before = iam_state(moto_account)
    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    assert code == 0 and run["state"] == "completed", run
    action, revocation = run["actions"]  # the key, then the user's sessions it issued, both in OTHER
    assert action["aws"]["applied_in_aws"] and action["api_verified"] and action["graph_verified"]
    assert action["aws"]["plan"]["target"]["account"] == OTHER
    assert revocation["operation"] == "revoke_user_sessions" and revocation["api_verified"]
    assert revocation["aws"]["plan"]["target"]["account"] == OTHER
    other_keys = other.client("iam").list_access_keys(UserName="alice")["AccessKeyMetadata"]
    assert [k["Status"] for k in other_keys] == ["Inactive"]
    assert iam_state(moto_account) == home_before  # 123456789012's alice keeps her key Active
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:alice", "--title", "home", "--data-dir", data)
    code, plan = _cli(capsys, "contain", opened["alert_id"], "--decider", "rules", "--plan", "--data-dir", data)
    [entry] = plan["plans"]
    assert entry["aws"]["applied_in_aws"] is False
    assert f"no respond profile for account {ACCOUNT}" in entry["aws"]["note"]
    other_before = iam_state(other)
    code, run = _cli(capsys, "contain", opened["alert_id"], "--decider", "rules", "--confirm", "--data-dir", data)
    assert (code, run["state"]) == (6, "graph_only") and "not applied in AWS" in run["reason"], run
    assert iam_state(moto_account) == home_before and iam_state(other) == other_before
    # a mapping that is not one names the entry, and nothing is done
    mapping.write_text(json.dumps({"12345": "respond"}))
    code, out = _cli(capsys, "contain", alert_id, "--decider", "rules", "--plan", "--data-dir", data)
    assert code == 2 and "'12345' is not a 12-digit account id" in out["message"], out
