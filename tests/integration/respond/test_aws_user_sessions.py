"""Stolen sessions named and stoppable: a compromised access key, what it already issued, and the
revocations that stop it, against moto on loopback through the command line and the service.

alice's access key may assume `ops-role`, which reads a bucket tagged critical; bob may assume it
too. The alert is on alice. Deactivating her key stops new requests signed with it, not the
temporary credentials already obtained with it (IAM User Guide, "Disabling permissions for
temporary security credentials",
https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_disable-perms.html):
her `sts:GetSessionToken` sessions and the `ops-role` sessions assumed with the key. AWS's guidance
revokes them with an inline policy denying every action when `aws:TokenIssueTime` is earlier than the
revocation (IAM User Guide, "Revoking IAM role temporary security credentials",
https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html); that key is
present only in requests signed with temporary credentials (IAM User Guide, "AWS global condition
context keys", aws:TokenIssueTime,
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-tokenissuetime),
so the policy on alice stops her sessions and not her keys.

moto does not evaluate `aws:TokenIssueTime` (nor key status) when a request is made: these tests
assert the policy documents moto holds, as boto3 reads them back, never that an old session fails.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from blastshield_core.interfaces.cli import main
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT, iam_state

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures

ALICE = f"arn:aws:iam::{ACCOUNT}:user/alice"
OPS = f"arn:aws:iam::{ACCOUNT}:role/ops-role"
USER_CANDIDATE = f"revoke-sessions:{ACCOUNT}:user:alice"
ROLE_CANDIDATE = f"revoke-sessions:{ACCOUNT}:role:ops-role"
KEY_ROUTE = f"{ACCOUNT}:user:alice:access-key-1"


def _cli(capsys, *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    captured = capsys.readouterr()
    out = captured.out if captured.out.strip() else captured.err
    return code, json.loads(out) if out.strip().startswith("{") else {"text": out}


def _account(moto_account) -> str:
    """alice's key may assume ops-role (which reads a critical bucket), and so may bob's; the key id."""
    iam = moto_account.client("iam")
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "sts:AssumeRole"}]}  # fmt: skip
    iam.create_role(RoleName="ops-role", AssumeRolePolicyDocument=json.dumps(trust))
    read = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::crown-jewels/*"}]}  # fmt: skip
    iam.put_role_policy(RoleName="ops-role", PolicyName="read-crown", PolicyDocument=json.dumps(read))
    assume = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": OPS}]}
    key = ""
    for user in ("alice", "bob"):
        iam.create_user(UserName=user)
        made = iam.create_access_key(UserName=user)["AccessKey"]["AccessKeyId"]
        key = key or made
        iam.put_user_policy(UserName=user, PolicyName="assume-ops", PolicyDocument=json.dumps(assume))
    s3 = moto_account.client("s3")
    s3.create_bucket(Bucket="crown-jewels")
    s3.put_bucket_tagging(Bucket="crown-jewels", Tagging={"TagSet": [{"Key": "sensitivity", "Value": "critical"}]})
    return key


def _collected(moto_account, tmp_path, capsys, monkeypatch) -> tuple[str, str, str]:
    """The account collected and imported, an alert opened on alice: (data dir, alert id, key id)."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    key = _account(moto_account)
    data = str(tmp_path / "db")
    code, out = _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)
    assert code == 0, out
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:alice", "--title", "key leaked", "--data-dir", data)
    assert code == 0, opened
    return data, opened["alert_id"], key


def _revocation(document: dict, start: datetime, end: datetime) -> datetime:
    """A revocation document: Deny * on * when aws:TokenIssueTime is earlier than T; T, checked to be
    between `start` and `end` (to the second)."""
    [statement] = document["Statement"]
    assert statement["Effect"] == "Deny" and statement["Action"] == ["*"] and statement["Resource"] == ["*"]
    assert list(statement["Condition"]) == ["DateLessThan"]
    issued_before = datetime.strptime(
        statement["Condition"]["DateLessThan"]["aws:TokenIssueTime"], "%Y-%m-%dT%H:%M:%SZ"
    ).replace(tzinfo=UTC)
    assert start - timedelta(seconds=1) <= issued_before <= end
    return issued_before


def test_the_plan_names_the_issued_sessions_and_offers_both_revocations(moto_account, tmp_path, capsys, monkeypatch):
    data, alert_id, key = _collected(moto_account, tmp_path, capsys, monkeypatch)
    before = iam_state(moto_account)
    code, plan = _cli(capsys, "contain", alert_id, "--decider", "rules", "--plan", "--data-dir", data)
    assert code == 0, plan
    [route] = plan["plans"]
    assert route["aws"]["kind"] == "deactivate_access_key"
    assert route["aws"]["leaves_standing"] == [
        f"sessions alice already obtained with key {key} through sts:GetSessionToken (up to 36 h)",
        f"role sessions already assumed with key {key} (sts:AssumeRole, up to the role's maximum session"
        " duration, at most 12 h)",
    ]
    by_id = {r["id"]: r for r in plan["revocations"]}
    assert list(by_id) == [USER_CANDIDATE, ROLE_CANDIDATE]  # the user's own first, then the roles on its paths
    user, role = by_id[USER_CANDIDATE], by_id[ROLE_CANDIDATE]
    assert (user["kind"], user["principal"], user["arn"]) == ("revoke_user_sessions", "user", ALICE)
    assert (role["kind"], role["principal"], role["arn"]) == ("revoke_role_sessions", "role", OPS)
    assert (user["on_paths"], role["on_paths"]) == (False, True)  # the role is on alice's path, not her alert's own
    # the role's collateral: bob may assume ops-role too, and loses his sessions of it
    assert role["collateral"]["other_count"] == 1 and role["collateral"]["others"] == [
        f"arn:aws:iam::{ACCOUNT}:user/bob"
    ]
    assert "bob" in role["collateral"]["summary"] and "lose their sessions" in role["collateral"]["summary"]
    assert user["collateral"]["other_count"] == 0
    # the user revocation's exact call, aimed by unique id, and what it stops and leaves standing
    call = user["plan"]["calls"][0]
    assert call["api"] == "iam:PutUserPolicy" and call["params"]["UserName"] == "alice"
    assert call["params"]["PolicyName"] == "BlastShieldRevokeUserSessions"
    _revocation(json.loads(call["params"]["PolicyDocument"]), datetime.now(UTC) - timedelta(minutes=1),
                datetime.now(UTC))  # fmt: skip
    assert user["plan"]["target"]["unique_id"] == before["user/alice"]["id"]
    assert user["plan"]["stops"][0].startswith("every session alice obtained through sts:GetSessionToken")
    assert any("role sessions alice already assumed" in s for s in user["plan"]["leaves_standing"])
    assert [c["name"] for c in user["plan"]["checks"] if c["ok"]] == ["target", "respond profile's account",
                                                                        "live principal"]  # fmt: skip
    assert role["plan"]["calls"][0]["api"] == "iam:PutRolePolicy"
    assert role["plan"]["calls"][0]["params"]["PolicyName"] == "AWSRevokeOlderSessions"
    assert main(["contain", alert_id, "--decider", "rules", "--plan", "--data-dir", data]) == 0
    text = capsys.readouterr().out
    assert f"{USER_CANDIDATE}: revoke_user_sessions {ALICE} (cuts no path)" in text
    assert "collateral: 1 other principal(s) or workload(s) may assume ops-role and lose their sessions" in text
    assert f"does not stop: sessions alice already obtained with key {key} through sts:GetSessionToken" in text
    assert iam_state(moto_account) == before  # a plan writes nothing


def test_the_rules_run_stops_the_key_and_what_it_issued_and_release_removes_exactly_it(
    moto_account, tmp_path, capsys, monkeypatch
):
    data, alert_id, key = _collected(moto_account, tmp_path, capsys, monkeypatch)
    before = iam_state(moto_account)
    start = datetime.now(UTC)
    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    end = datetime.now(UTC)
    assert (code, run["state"]) == (0, "completed"), run
    # the key first (so it cannot obtain new sessions after the revocation), then what it issued
    assert [(a["candidate_id"], a["operation"]) for a in run["actions"]] == [
        (f"block-route:{KEY_ROUTE}", "block_route"),
        (USER_CANDIDATE, "revoke_user_sessions"),
        (ROLE_CANDIDATE, "revoke_role_sessions"),
    ]
    assert all(a["applied"] and a["api_verified"] and a["verified"] for a in run["actions"]), run
    assert [a["graph_verified"] for a in run["actions"]] == [True, False, False]  # a revocation cuts no path
    assert f"sessions issued before the revocation stopped (verified on the account): {ALICE}, {OPS}" in run["reason"]
    assert f"role sessions already assumed with key {key} of any role but {OPS}" in run["reason"]
    assert "sts:GetSessionToken" not in run["reason"]  # the user's own sessions are revoked
    proposals = [s["data"]["proposal"]["rationale"] for s in run["steps"] if s["kind"] == "proposal"]
    assert proposals[1].startswith("rules-v4: no qualifying path is left")
    after = iam_state(moto_account)
    assert after["user/alice"]["keys"] == {key: "Inactive"}
    user_doc = after["user/alice"]["policies"]["BlastShieldRevokeUserSessions"]
    role_doc = after["role/ops-role"]["policies"]["AWSRevokeOlderSessions"]
    _revocation(user_doc, start, end)
    _revocation(role_doc, start, end)
    assert after["user/bob"] == before["user/bob"]  # bob's own key and policies are untouched
    # the audit holds both revocations: release the user's, with the acknowledgement; exactly it goes
    code, out = _cli(capsys, "release", USER_CANDIDATE, "--reason", "rotated", "--confirm", "--data-dir", data)
    assert code == 2 and "re-enables the user's sessions issued before it" in out["message"], out
    assert iam_state(moto_account) == after
    code, released = _cli(capsys, "release", USER_CANDIDATE, "--reason", "rotated", "--confirm",
                          "--acknowledge-stolen-sessions", "--data-dir", data)  # fmt: skip
    assert code == 0 and released["api_verified"] is True, released
    assert released["call"] == {"api": "iam:DeleteUserPolicy",
                                "params": {"UserName": "alice", "PolicyName": "BlastShieldRevokeUserSessions"}}  # fmt: skip
    now = iam_state(moto_account)
    assert now["user/alice"]["policies"] == before["user/alice"]["policies"]  # assume-ops kept, the revocation gone
    assert now["role/ops-role"] == after["role/ops-role"] and now["user/alice"]["keys"] == {key: "Inactive"}


def test_within_the_cap_the_role_sessions_are_said_left_standing(moto_account, tmp_path, capsys, monkeypatch):
    """Cap 2: the key and the user's sessions; the role sessions assumed with the key are left standing,
    and the verdict, the incident report and the briefing evidence say so."""
    from blastshield_core.base.settings import load_settings
    from blastshield_core.brief.evidence import gather_evidence
    from blastshield_core.interfaces.service import open_services

    data, alert_id, key = _collected(moto_account, tmp_path, capsys, monkeypatch)
    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--max-actions", "2", "--confirm",
                     "--data-dir", data)  # fmt: skip
    assert (code, run["state"]) == (0, "completed"), run
    assert [a["candidate_id"] for a in run["actions"]] == [f"block-route:{KEY_ROUTE}", USER_CANDIDATE]
    standing = (
        f"already-issued credentials left standing until they expire: role sessions already assumed with key {key}"
        " (sts:AssumeRole"
    )
    assert standing in run["reason"], run["reason"]
    assert "AWSRevokeOlderSessions" not in str(iam_state(moto_account)["role/ops-role"])
    report = tmp_path / "report.md"
    assert main(["report", run["run_id"], "--out", str(report), "--data-dir", data]) == 0
    capsys.readouterr()
    assert standing in report.read_text()
    services = open_services(load_settings(environ={}, data_dir=data))
    try:
        record = services.audit.get(run["run_id"])
        evidence = gather_evidence(services.tools, alert_id, record)
    finally:
        services.close()
    assert evidence.run is not None and standing in evidence.run.reason
    assert evidence.revocations == {USER_CANDIDATE: True}
    # the role's sessions can still be revoked afterwards: offered, with bob named as collateral
    code, found = _cli(capsys, "candidates", alert_id, "--data-dir", data)
    assert [r["id"] for r in found["revocations"]] == [USER_CANDIDATE, ROLE_CANDIDATE], found


def test_the_service_revokes_a_users_sessions_and_refuses_a_changed_target(moto_account, tmp_path, capsys, monkeypatch):
    """Through the service facade (the dashboard's): the user revocation is planned, applied with its
    audit events, re-read; a principal recreated since collection (a new unique id) or a respond
    profile of another account is refused before any write, and moto is unchanged."""
    from blastshield_core.base.settings import load_settings
    from blastshield_core.interfaces.aws.account import AccountRefused
    from blastshield_core.interfaces.service import open_services, revocation_plans, revoke_role_sessions

    data, alert_id, _ = _collected(moto_account, tmp_path, capsys, monkeypatch)
    services = open_services(load_settings(data_dir=data))
    try:
        plans = {p["id"]: p["plan"] for p in revocation_plans(services, alert_id)}
        assert plans[USER_CANDIDATE].kind.value == "revoke_user_sessions" and not plans[USER_CANDIDATE].refusals
        start = datetime.now(UTC)
        done = revoke_role_sessions(services, alert_id, USER_CANDIDATE, confirm=True, max_actions=1, actor="tester")
        assert done["applied"] and done["api_verified"] and done["graph_verified"] is False, done
        _revocation(iam_state(moto_account)["user/alice"]["policies"]["BlastShieldRevokeUserSessions"], start,
                    datetime.now(UTC))  # fmt: skip
        events = [e for e in services.audit.events(limit=20) if e.route_id == USER_CANDIDATE]
        assert [e.data["status"] for e in events] == ["applied", "intended"]  # newest first
        # alice deleted and recreated behind BlastShield's back: same name and ARN, another unique id
        iam = moto_account.client("iam")
        for key in iam.list_access_keys(UserName="alice")["AccessKeyMetadata"]:
            iam.delete_access_key(UserName="alice", AccessKeyId=key["AccessKeyId"])
        for name in iam.list_user_policies(UserName="alice")["PolicyNames"]:
            iam.delete_user_policy(UserName="alice", PolicyName=name)
        iam.delete_user(UserName="alice")
        iam.create_user(UserName="alice")
        recreated = iam_state(moto_account)
        try:
            revoke_role_sessions(services, alert_id, USER_CANDIDATE, confirm=True, max_actions=1, actor="tester")
        except AccountRefused as exc:
            assert "alice was recreated since collection" in str(exc) and "nothing was written" in str(exc)
        else:
            raise AssertionError("a recreated user was revoked")
        assert iam_state(moto_account) == recreated
    finally:
        services.close()
    # the respond profile of another account: refused by the `respond profile's account` check
    _respond_elsewhere(moto_account, monkeypatch)
    services = open_services(load_settings(data_dir=data))
    try:
        [plan] = [p["plan"] for p in revocation_plans(services, alert_id) if p["id"] == ROLE_CANDIDATE]
        assert [c.name for c in plan.refusals] == ["respond profile's account"], plan.refusals
        before = iam_state(moto_account)
        try:
            revoke_role_sessions(services, alert_id, ROLE_CANDIDATE, confirm=True, max_actions=1, actor="tester")
        except AccountRefused as exc:
            assert f"not {ACCOUNT}, the target's" in str(exc)
        else:
            raise AssertionError("a write through another account's respond profile was sent")
        assert iam_state(moto_account) == before
    finally:
        services.close()


def _respond_elsewhere(moto_account, monkeypatch) -> None:
    """Point the respond profile at another account: credentials of a role assumed into 999988887777
    (moto's STS gives credentials of the role's account)."""
    creds = moto_account.client("sts").assume_role(
        RoleArn="arn:aws:iam::999988887777:role/OrganizationAccountAccessRole", RoleSessionName="elsewhere"
    )["Credentials"]
    with moto_account.config.open("a", encoding="utf-8") as config:
        config.write(
            f"[profile respond-elsewhere]\nregion = us-east-1\nendpoint_url = {moto_account.url}\n"
            f"aws_access_key_id = {creds['AccessKeyId']}\naws_secret_access_key = {creds['SecretAccessKey']}\n"
            f"aws_session_token = {creds['SessionToken']}\n"
        )
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond-elsewhere")


def test_a_run_stopped_at_the_cap_names_what_the_key_left_standing(moto_account, tmp_path, capsys, monkeypatch):
    """alice holds two keys (two routes to cut); with a cap of one the run stops after the first key,
    and its verdict still names the sessions that key already issued."""
    data, alert_id, key = _collected(moto_account, tmp_path, capsys, monkeypatch)
    second = moto_account.client("iam").create_access_key(UserName="alice")["AccessKey"]["AccessKeyId"]
    code, out = _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)
    assert code == 0, out
    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--max-actions", "1", "--confirm",
                     "--data-dir", data)  # fmt: skip
    assert (code, run["state"]) == (1, "stopped"), run
    [action] = run["actions"]
    cut = action["aws"]["plan"]["target"]["access_key_id"]
    assert cut in (key, second) and action["applied"] and action["api_verified"]
    assert run["reason"].startswith("action cap (1) reached with 1 path(s) remaining"), run["reason"]
    assert (
        f"already-issued credentials left standing until they expire: sessions alice already obtained with key {cut}"
        " through sts:GetSessionToken (up to 36 h)"
    ) in run["reason"]


def test_an_analyst_chooses_the_key_then_the_users_sessions(moto_account, tmp_path, capsys, monkeypatch):
    """The analyst's choices in order: the key cuts the path, then the revocation of alice's own sessions
    is still offered and taken; no further choice ends the run completed on its fresh no_path."""
    data, alert_id, key = _collected(moto_account, tmp_path, capsys, monkeypatch)
    code, run = _cli(capsys, "contain", alert_id, "--decider", "analyst", "--choose", f"block-route:{KEY_ROUTE}",
                     "--choose", USER_CANDIDATE, "--confirm", "--data-dir", data)  # fmt: skip
    assert (code, run["state"]) == (0, "completed"), run
    assert [a["candidate_id"] for a in run["actions"]] == [f"block-route:{KEY_ROUTE}", USER_CANDIDATE]
    assert f"role sessions already assumed with key {key} (sts:AssumeRole" in run["reason"]  # ops-role's: not revoked
    assert "BlastShieldRevokeUserSessions" in iam_state(moto_account)["user/alice"]["policies"]
    assert "AWSRevokeOlderSessions" not in iam_state(moto_account)["role/ops-role"]["policies"]


def test_an_analyst_who_ends_the_run_after_the_key_has_it_completed(moto_account, tmp_path, capsys, monkeypatch):
    """Through the service, as the dashboard drives an analyst run: after the key cuts the path the run
    waits with the revocations of what it issued on offer; ending it then completes it on its no_path,
    naming the sessions left standing."""
    from blastshield_core.base.settings import load_settings
    from blastshield_core.interfaces.aws.account import responder_for
    from blastshield_core.interfaces.service import AnalystDecider, open_services

    data, alert_id, key = _collected(moto_account, tmp_path, capsys, monkeypatch)
    services = open_services(load_settings(data_dir=data))
    try:
        services.controller.effector = responder_for(services)
        session = services.controller.start(alert_id, "analyst", 3, True, actor="analyst-1")
        session.advance(AnalystDecider([f"block-route:{KEY_ROUTE}"]))
        assert not session.run.state.terminal and session.latest is not None and session.latest.path_count == 0
        offered = session.offered(services.tools.get_response_candidates(alert_id))
        assert [r.id for r in offered.revocations] == [USER_CANDIDATE, ROLE_CANDIDATE]
        run = session.end()
    finally:
        services.close()
    assert run.state.value == "completed" and run.remaining_paths == 0, run.reason
    assert f"sessions alice already obtained with key {key} through sts:GetSessionToken" in run.reason
    assert "BlastShieldRevokeUserSessions" not in iam_state(moto_account)["user/alice"]["policies"]
