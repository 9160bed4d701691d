"""Containment undone on the account behind BlastShield's back, noticed by `verify-account`.

AWS documentation cited: IAM User Guide, "Manage access keys for IAM users"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html): an Inactive key
can be made Active again with `UpdateAccessKey`, by anyone allowed to call it. IAM User Guide,
"Policy evaluation logic" (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html):
an explicit Deny stops only while the policy holding it is there. moto does not enforce key status;
these tests assert what the account reports (the key's status, the user's inline policies) and what
BlastShield says and records about it.
"""

from __future__ import annotations

import json

from blastshield_core.base.settings import load_settings
from blastshield_core.interfaces.cli import main
from blastshield_core.interfaces.service import open_services
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT, user_with_key_to_critical_bucket

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures

ROUTE = f"{ACCOUNT}:user:alice:access-key-1"
USER_REVOCATION = f"revoke-sessions:{ACCOUNT}:user:alice"  # the rules take alice's own sessions after her key


def route_row(payload: dict) -> dict:
    """The key route's row of a verification (the revocation of alice's sessions is re-read beside it)."""
    [row] = [r for r in payload["checked"] if r["route_id"] == ROUTE]
    return row


def _cli(capsys, *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip().startswith("{") else {}


def _contained(moto_account, tmp_path, capsys, monkeypatch) -> tuple[str, str, str, dict]:
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    key = user_with_key_to_critical_bucket(moto_account)
    data = str(tmp_path / "db")
    assert _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)[0] == 0
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:alice", "--title", "alice's key", "--data-dir", data)
    assert code == 0, opened
    code, run = _cli(capsys, "contain", opened["alert_id"], "--decider", "rules", "--confirm", "--data-dir", data)
    assert (code, run["state"]) == (0, "completed"), run
    return key, data, opened["alert_id"], run


def test_a_key_reenabled_behind_blastshield_is_noticed_audited_and_the_route_active_again(
    moto_account, tmp_path, capsys, monkeypatch
):
    key, data, alert_id, run = _contained(moto_account, tmp_path, capsys, monkeypatch)
    # while the account holds the block, verify-account says so and records nothing
    code, held = _cli(capsys, "verify-account", alert_id, "--data-dir", data)
    assert code == 0 and held["undone"] == 0, held
    row = route_row(held)
    assert (row["route_id"], row["state"], row["subject"]) == (ROUTE, "holds", key)

    moto_account.client("iam").update_access_key(UserName="alice", AccessKeyId=key, Status="Active")
    code, seen = _cli(capsys, "verify-account", "--all", "--data-dir", data)
    assert code == 1 and seen["undone"] == 1, seen
    row = route_row(seen)
    assert row["state"] == "undone" and row["run_id"] == run["run_id"] and row["alert_id"] == alert_id
    assert f"access key {key} of alice is Active on the account, not Inactive" in row["detail"]
    assert row["resync"] == "re-synced" and row["seen_at"]
    assert row["alerts_reopened"] == [{"alert_id": alert_id, "paths_before": 0, "paths_after": 1}]
    # the route is active again, as the account says, and the alert has its path back
    code, inv = _cli(capsys, "investigate", alert_id, "--data-dir", data)
    assert inv["status"] == "paths_found" and inv["path_count"] == 1
    code, routes = _cli(capsys, "routes", alert_id, "--data-dir", data)
    assert next(r for r in routes["routes"] if r["route_id"] == ROUTE)["status"] == "active"
    # the event is in the audit, once: a second verification reports it without recording it again
    code, again = _cli(capsys, "verify-account", alert_id, "--data-dir", data)
    assert code == 1 and route_row(again)["already_reported"] is True
    assert route_row(again)["seen_at"] == row["seen_at"]
    services = open_services(load_settings(data_dir=data))
    try:
        [event] = [e for e in services.audit.events_for_run(run["run_id"]) if e.kind == "undone_on_account"]
    finally:
        services.close()
    assert (event.route_id, event.data["seen_at"], event.data["what_changed"]) == (ROUTE, row["seen_at"], row["detail"])
    assert event.data["call"] == f"iam:UpdateAccessKey(UserName=alice, AccessKeyId={key}, Status=Inactive)"
    assert main(["verify-account", alert_id, "--data-dir", data]) == 1
    text = capsys.readouterr().out
    assert f"UNDONE ON THE ACCOUNT, seen at {row['seen_at']}: {ROUTE}" in text


def test_verify_account_refuses_bad_input_and_an_unknown_alert(moto_account, tmp_path, capsys, monkeypatch):
    _key, data, alert_id, _run = _contained(moto_account, tmp_path, capsys, monkeypatch)
    code, out = _cli(capsys, "verify-account", "--data-dir", data)
    assert code == 2 and "ALERT_ID or --all" in out["message"]
    code, out = _cli(capsys, "verify-account", alert_id, "--all", "--data-dir", data)
    assert code == 2
    code, out = _cli(capsys, "verify-account", "AN-NOPE", "--data-dir", data)
    assert code == 3 and out["status"] == "unknown_alert", out


def test_a_deny_all_policy_deleted_behind_blastshield_is_noticed(moto_account, tmp_path, capsys, monkeypatch):
    """carol's console password is contained with the deny-all inline policy; someone deletes it."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    iam = moto_account.client("iam")
    user_with_key_to_critical_bucket(moto_account, user="carol")
    iam.create_login_profile(UserName="carol", Password="Correct-Horse-9!")
    data = str(tmp_path / "db")
    assert _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)[0] == 0
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:carol", "--title", "t", "--data-dir", data)
    alert_id = opened["alert_id"]
    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--max-actions", "5", "--confirm",
                     "--data-dir", data)  # fmt: skip
    assert (code, run["state"]) == (0, "completed"), run
    [console] = [a["route_id"] for a in run["actions"] if a["aws"]["plan"]["kind"] == "deny_all_inline_policy"]
    assert _cli(capsys, "verify-account", alert_id, "--data-dir", data)[0] == 0

    iam.delete_user_policy(UserName="carol", PolicyName="BlastShieldDenyAll")
    code, seen = _cli(capsys, "verify-account", alert_id, "--data-dir", data)
    assert code == 1, seen
    [row] = [r for r in seen["checked"] if r["state"] == "undone"]
    assert row["route_id"] == console and row["kind"] == "deny_all_inline_policy"
    assert "inline policy BlastShieldDenyAll of carol is absent on the account" in row["detail"]
    assert row["alerts_reopened"] and row["alerts_reopened"][0]["alert_id"] == alert_id
    code, inv = _cli(capsys, "investigate", alert_id, "--data-dir", data)
    assert inv["status"] == "paths_found", inv


def test_the_next_collection_notices_the_undone_key(moto_account, tmp_path, capsys, monkeypatch):
    key, data, alert_id, run = _contained(moto_account, tmp_path, capsys, monkeypatch)
    code, collected = _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)
    assert code == 0 and collected["imported"]["account_verification"]["undone"] == 0  # still Inactive: holds
    moto_account.client("iam").update_access_key(UserName="alice", AccessKeyId=key, Status="Active")
    code, collected = _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)
    assert code == 0, collected
    verification = collected["imported"]["account_verification"]
    row = route_row(verification)
    assert (row["state"], row["route_id"], row["run_id"]) == ("undone", ROUTE, run["run_id"])
    assert f"access key {key} of alice is Active on the account" in row["detail"] and row["event_id"]
    # verify-account afterwards finds the same event, not a new one
    code, again = _cli(capsys, "verify-account", alert_id, "--data-dir", data)
    assert code == 1 and route_row(again)["already_reported"] is True
    assert route_row(again)["seen_at"] == row["seen_at"]


def test_release_of_an_undone_action_acknowledges_and_forgets_it_or_contain_again(
    moto_account, tmp_path, capsys, monkeypatch
):
    """Release is no longer a dead end: an undone action's release is acknowledged and forgotten
    (nothing called on the account), and the alert can be contained again."""
    key, data, alert_id, _run = _contained(moto_account, tmp_path, capsys, monkeypatch)
    iam = moto_account.client("iam")
    iam.update_access_key(UserName="alice", AccessKeyId=key, Status="Active")
    assert _cli(capsys, "verify-account", alert_id, "--data-dir", data)[0] == 1
    # contain again: the route is active, so the rules take it once more and the key is Inactive again
    code, again = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    assert (code, again["state"]) == (0, "completed"), again
    keys = iam.list_access_keys(UserName="alice")["AccessKeyMetadata"]
    assert [k["Status"] for k in keys] == ["Inactive"]
    assert _cli(capsys, "verify-account", alert_id, "--data-dir", data)[0] == 0  # the new action holds
    # undone a second time; this time the analyst acknowledges it and forgets the block
    iam.update_access_key(UserName="alice", AccessKeyId=key, Status="Active")
    assert _cli(capsys, "verify-account", alert_id, "--data-dir", data)[0] == 1
    code, forgot = _cli(capsys, "release", ROUTE, "--reason", "owner re-enabled it", "--confirm", "--data-dir", data)
    assert code == 0 and forgot["state"] == "forgotten", forgot
    assert "nothing was called on the account" in forgot["message"]
    assert [k["Status"] for k in iam.list_access_keys(UserName="alice")["AccessKeyMetadata"]] == ["Active"]
    code, after = _cli(capsys, "verify-account", alert_id, "--data-dir", data)
    # no route action of BlastShield's stands any more; the second run's revocation of alice's sessions holds
    assert code == 0 and [(r["route_id"], r["state"]) for r in after["checked"]] == [(USER_REVOCATION, "holds")]
