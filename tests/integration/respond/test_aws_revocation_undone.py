"""Session revocations re-verified on the account, as every other account action: a role's revocation
deleted and a user's edited behind BlastShield's back, found by `verify-account` and a collection,
audited once, the caller named from CloudTrail, and the two next steps (revoke again; acknowledge and
forget) on moto on loopback through the command line.

AWS documentation cited: IAM API Reference, "GetUserPolicy"
(https://docs.aws.amazon.com/IAM/latest/APIReference/API_GetUserPolicy.html) and "GetRolePolicy"
(https://docs.aws.amazon.com/IAM/latest/APIReference/API_GetRolePolicy.html): the inline policy's
document, URL-encoded, or `NoSuchEntity` when the user or role has no policy of that name; "DeleteUserPolicy"
(https://docs.aws.amazon.com/IAM/latest/APIReference/API_DeleteUserPolicy.html) and "DeleteRolePolicy"
(https://docs.aws.amazon.com/IAM/latest/APIReference/API_DeleteRolePolicy.html) remove it; "PutUserPolicy"
(https://docs.aws.amazon.com/IAM/latest/APIReference/API_PutUserPolicy.html) replaces the document of a
policy of the same name. IAM User Guide, "Revoking IAM role temporary security credentials"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html): sessions issued
before the revocation are denied only while the policy holding it is there. moto does not evaluate
`aws:TokenIssueTime`: these tests assert the documents moto holds and what BlastShield says and
records of them, never that an old session fails.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from blastshield_core.base.settings import load_settings
from blastshield_core.interfaces.cli import main
from blastshield_core.interfaces.service import open_services
from tests.helpers import aws_fake, aws_live
from tests.helpers.aws_live import ACCOUNT, MotoAccount
from tests.integration.respond.test_aws_undone_caller import MALLORY, _record
from tests.integration.respond.test_aws_user_sessions import (
    KEY_ROUTE,
    ROLE_CANDIDATE,
    USER_CANDIDATE,
    _account,
    _cli,
    _collected,
)

moto_server, moto_account, fake_endpoint = aws_live.moto_server, aws_live.moto_account, aws_fake.fake_endpoint

EDITED = {  # the user's revocation rewritten to revoke only sessions issued before 2020: today's work again
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Deny", "Action": ["*"], "Resource": ["*"],
                   "Condition": {"DateLessThan": {"aws:TokenIssueTime": "2020-01-01T00:00:00Z"}}}],
}  # fmt: skip
EVE = f"arn:aws:iam::{ACCOUNT}:user/eve"


def _contained(moto_account, tmp_path, capsys, monkeypatch) -> tuple[str, str, dict]:
    """The rules run on alice: her key deactivated, her own sessions and ops-role's revoked (completed)."""
    data, alert_id, _key = _collected(moto_account, tmp_path, capsys, monkeypatch)
    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    assert (code, run["state"]) == (0, "completed"), run
    assert [a["candidate_id"] for a in run["actions"]] == [f"block-route:{KEY_ROUTE}", USER_CANDIDATE, ROLE_CANDIDATE]
    return data, alert_id, run


def _issued_before(run: dict, candidate: str) -> str:
    """The revocation time the run wrote into the candidate's policy document."""
    [action] = [a for a in run["actions"] if a["candidate_id"] == candidate]
    document = json.loads(action["aws"]["plan"]["calls"][0]["params"]["PolicyDocument"])
    return document["Statement"][0]["Condition"]["DateLessThan"]["aws:TokenIssueTime"]


def _undone_events(data: str) -> list:
    services = open_services(load_settings(data_dir=data))
    try:
        return services.audit.events_of_kind("undone_on_account", 50)
    finally:
        services.close()


def _undo_both(moto_account) -> None:
    """Behind BlastShield's back: ops-role's revocation deleted, alice's edited."""
    iam = moto_account.client("iam")
    iam.delete_role_policy(RoleName="ops-role", PolicyName="AWSRevokeOlderSessions")
    iam.put_user_policy(UserName="alice", PolicyName="BlastShieldRevokeUserSessions", PolicyDocument=json.dumps(EDITED))


def test_revocations_deleted_and_edited_are_found_audited_once_and_a_held_one_holds(
    moto_account, tmp_path, capsys, monkeypatch
):
    data, alert_id, run = _contained(moto_account, tmp_path, capsys, monkeypatch)
    # while the account holds them, every revocation is re-read and holds (with the key), nothing recorded
    code, held = _cli(capsys, "verify-account", alert_id, "--data-dir", data)
    assert (code, held["undone"], held["unreadable"]) == (0, 0, 0), held
    states = {r["route_id"]: (r["state"], r["kind"]) for r in held["checked"]}
    assert states == {
        KEY_ROUTE: ("holds", "deactivate_access_key"),
        USER_CANDIDATE: ("holds", "revoke_user_sessions"),
        ROLE_CANDIDATE: ("holds", "revoke_role_sessions"),
    }
    assert all(r["run_id"] == run["run_id"] for r in held["checked"])
    assert _undone_events(data) == []

    _undo_both(moto_account)
    code, seen = _cli(capsys, "verify-account", "--all", "--data-dir", data)
    assert (code, seen["undone"], seen["unreadable"]) == (1, 2, 0), seen
    rows = {r["route_id"]: r for r in seen["checked"]}
    assert rows[KEY_ROUTE]["state"] == "holds"  # the key is still Inactive
    role, user = rows[ROLE_CANDIDATE], rows[USER_CANDIDATE]
    assert (role["state"], user["state"]) == ("undone", "undone")
    assert role["detail"] == (
        "inline policy AWSRevokeOlderSessions of role ops-role is absent on the account, not the revocation"
        " BlastShield set"
    )
    assert user["detail"].startswith(
        "inline policy BlastShieldRevokeUserSessions of alice is a different document on the account, not the"
        " session revocation BlastShield set (now: "
    )
    assert '"aws:TokenIssueTime": "2020-01-01T00:00:00Z"' in user["detail"]  # what the account holds instead
    assert role["issued_before"] == _issued_before(run, ROLE_CANDIDATE)
    assert user["issued_before"] == _issued_before(run, USER_CANDIDATE)
    assert role["caller"] == "caller unknown (no CloudTrail data imported)" and role["event_id"]
    assert role["alerts_reopened"] == [] and role["seen_at"]  # a revocation cuts no path: none comes back
    # the key still cuts alice's path: the alert has no qualifying path, the key's route stays blocked
    code, inv = _cli(capsys, "investigate", alert_id, "--data-dir", data)
    assert inv["status"] == "no_path", inv

    # audited once each, with what changed, when it was seen, the call it undid and the time it let through
    events = {e.route_id: e for e in _undone_events(data)}
    assert set(events) == {ROLE_CANDIDATE, USER_CANDIDATE}
    assert events[ROLE_CANDIDATE].run_id == run["run_id"]
    assert events[ROLE_CANDIDATE].data["what_changed"] == role["detail"]
    assert events[ROLE_CANDIDATE].data["seen_at"] == role["seen_at"]
    assert events[ROLE_CANDIDATE].data["issued_before"] == role["issued_before"]
    undid = events[ROLE_CANDIDATE].data["call"]
    assert undid.startswith("iam:PutRolePolicy(") and "PolicyName=AWSRevokeOlderSessions, RoleName=ops-role)" in undid
    assert f"sessions issued before {role['issued_before']} work again" in events[ROLE_CANDIDATE].summary
    code, again = _cli(capsys, "verify-account", alert_id, "--data-dir", data)
    assert code == 1 and len(_undone_events(data)) == 2, again
    rows = {r["route_id"]: r for r in again["checked"]}
    assert rows[ROLE_CANDIDATE]["already_reported"] is True and rows[ROLE_CANDIDATE]["seen_at"] == role["seen_at"]
    # the text says it, with the sessions that work again
    assert main(["verify-account", alert_id, "--data-dir", data]) == 1
    text = capsys.readouterr().out
    assert (
        f"UNDONE ON THE ACCOUNT, seen at {role['seen_at']}: {ROLE_CANDIDATE} (run {run['run_id']}, alert {alert_id}):"
        f" {role['detail']}; sessions issued before {role['issued_before']} work again; by caller unknown"
    ) in text
    assert f"holds: {KEY_ROUTE}" in text
    # the next collection's check reports the same, without recording them again
    code, collected = _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)
    assert code == 0, collected
    verification = collected["imported"]["account_verification"]
    assert verification["undone"] == 2 and len(_undone_events(data)) == 2
    assert {r["route_id"] for r in verification["checked"] if r.get("already_reported")} == {
        ROLE_CANDIDATE,
        USER_CANDIDATE,
    }


def test_the_caller_who_deleted_or_edited_a_revocation_is_named_from_cloudtrail(
    moto_account, tmp_path, capsys, monkeypatch
):
    data, alert_id, _run = _contained(moto_account, tmp_path, capsys, monkeypatch)
    _undo_both(moto_account)
    when = datetime.now(UTC) + timedelta(seconds=10)
    records = [
        _record("DeleteRolePolicy", when, MALLORY, {"roleName": "ops-role", "policyName": "AWSRevokeOlderSessions"}),
        _record("PutUserPolicy", when + timedelta(seconds=1), EVE,
                {"userName": "alice", "policyName": "BlastShieldRevokeUserSessions"}),
        # another policy of alice's: it undid nothing of BlastShield's
        _record("DeleteUserPolicy", when - timedelta(seconds=1), MALLORY,
                {"userName": "alice", "policyName": "assume-ops"}),
    ]  # fmt: skip
    trail = tmp_path / "cloudtrail-log.json"
    trail.write_text(json.dumps({"Records": records}))
    assert _cli(capsys, "import-aws", str(tmp_path / "c"), str(trail), "--data-dir", data)[0] == 0
    code, seen = _cli(capsys, "verify-account", alert_id, "--data-dir", data)
    assert code == 1, seen
    rows = {r["route_id"]: r for r in seen["checked"]}
    role, user = rows[ROLE_CANDIDATE], rows[USER_CANDIDATE]
    assert (role["caller"], role["caller_event"]) == (MALLORY, "DeleteRolePolicy")
    assert role["caller_event_time"] == when.replace(microsecond=0).isoformat()
    assert (user["caller"], user["caller_event"]) == (EVE, "PutUserPolicy")
    events = {e.route_id: e for e in _undone_events(data)}
    assert events[ROLE_CANDIDATE].data["caller"] == MALLORY
    assert f"by {MALLORY} (DeleteRolePolicy at {role['caller_event_time']})" in events[ROLE_CANDIDATE].summary
    assert events[USER_CANDIDATE].data["caller_event"] == "PutUserPolicy"


def test_revoke_again_or_acknowledge_and_forget(moto_account, tmp_path, capsys, monkeypatch):
    """The two next steps: ops-role's sessions revoked again (a new revocation, re-read afresh and
    holding); alice's edited revocation acknowledged and forgotten (nothing called on the account)."""
    data, alert_id, _run = _contained(moto_account, tmp_path, capsys, monkeypatch)
    _undo_both(moto_account)
    assert _cli(capsys, "verify-account", alert_id, "--data-dir", data)[0] == 1
    iam = moto_account.client("iam")
    start = datetime.now(UTC).replace(microsecond=0)
    code, done = _cli(capsys, "revoke-sessions", alert_id, "--candidate", ROLE_CANDIDATE, "--confirm",
                      "--data-dir", data)  # fmt: skip
    assert code == 0 and done["applied"] and done["api_verified"], done
    document = iam.get_role_policy(RoleName="ops-role", PolicyName="AWSRevokeOlderSessions")["PolicyDocument"]
    issued = document["Statement"][0]["Condition"]["DateLessThan"]["aws:TokenIssueTime"]
    assert datetime.strptime(issued, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC) >= start
    # the forget: no acknowledgement of stolen sessions needed (they already work again), nothing called
    code, forgot = _cli(capsys, "release", USER_CANDIDATE, "--reason", "owner rewrote it", "--confirm",
                        "--data-dir", data)  # fmt: skip
    assert code == 0 and forgot["state"] == "forgotten", forgot
    assert "nothing was called on the account" in forgot["message"]
    assert iam.get_user_policy(UserName="alice", PolicyName="BlastShieldRevokeUserSessions")["PolicyDocument"] == EDITED
    code, after = _cli(capsys, "verify-account", alert_id, "--data-dir", data)
    assert code == 0, after
    states = {r["route_id"]: r["state"] for r in after["checked"]}
    assert states == {KEY_ROUTE: "holds", ROLE_CANDIDATE: "holds"}  # the new revocation; the forgotten one gone
    assert [r["run_id"] for r in after["checked"] if r["route_id"] == ROLE_CANDIDATE] == [""]  # by revoke-sessions
    assert len(_undone_events(data)) == 2  # nothing new recorded


def test_an_unreadable_revocation_is_said_so_and_never_holds(fake_endpoint, tmp_path, capsys, monkeypatch):
    """GetRolePolicy denied by the account: the role's revocation is NOT READ (exit 1), never holds."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    _account(MotoAccount(fake_endpoint.url, tmp_path / "aws-config"))
    data = str(tmp_path / "db")
    assert _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)[0] == 0
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:alice", "--title", "t", "--data-dir", data)
    alert_id = opened["alert_id"]
    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    assert (code, run["state"]) == (0, "completed"), run
    fake_endpoint.spoil("GetRolePolicy", "denied")
    code, seen = _cli(capsys, "verify-account", alert_id, "--data-dir", data)
    assert (code, seen["undone"], seen["unreadable"]) == (1, 0, 1), seen
    [row] = [r for r in seen["checked"] if r["route_id"] == ROLE_CANDIDATE]
    assert row["state"] == "unreadable" and "the role policy could not be read" in row["detail"]
    assert "AccessDenied" in row["detail"]
    assert _undone_events(data) == []
    assert main(["verify-account", alert_id, "--data-dir", data]) == 1
    assert f"NOT READ: {ROLE_CANDIDATE} (run {run['run_id']}): the role policy could not be read" in (
        capsys.readouterr().out
    )


def test_without_any_profile_to_read_with_nothing_is_taken_as_holding(moto_account, tmp_path, capsys, monkeypatch):
    """Neither a respond nor a collect profile configured any more: every action, revocations included,
    is said unreadable (exit 1), and nothing is recorded undone."""
    data, alert_id, _run = _contained(moto_account, tmp_path, capsys, monkeypatch)
    monkeypatch.delenv("BLASTSHIELD_AWS_RESPOND_PROFILE")
    monkeypatch.delenv("BLASTSHIELD_AWS_COLLECT_PROFILE")
    code, seen = _cli(capsys, "verify-account", alert_id, "--data-dir", data)
    assert (code, seen["undone"], seen["unreadable"]) == (1, 0, 3), seen
    revocations = [r for r in seen["checked"] if r.get("revocation")]
    assert {r["route_id"] for r in revocations} == {USER_CANDIDATE, ROLE_CANDIDATE}
    assert all(r["state"] == "unreadable" and "nor a collect profile" in r["detail"] for r in revocations)
    assert _undone_events(data) == []
