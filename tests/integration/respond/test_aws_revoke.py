"""Revoking an AWS role's active sessions, against a moto server on loopback.

AWS documentation cited: IAM User Guide, "Revoking IAM role temporary security credentials": the
console's "Revoke active sessions" attaches to the role an inline policy named
AWSRevokeOlderSessions that denies all actions when aws:TokenIssueTime is before the revocation
time. These tests assert the policy on the account, its re-read and its exact release; they do not
assert that moto refuses an older session's requests (that is AWS's enforcement of the condition).
"""

from __future__ import annotations

import json

from blastshield_core.interfaces.cli import main
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures

NAME = "AWSRevokeOlderSessions"


def _cli(capsys, *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    captured = capsys.readouterr()
    out = captured.out if captured.out.strip() else captured.err
    return code, json.loads(out) if out.strip().startswith("{") else {"text": out}


def _role_to_critical_bucket(account, role: str = "deploy") -> None:
    iam = account.client("iam")
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]}  # fmt: skip
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))
    read = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::crown-jewels/*"}]}  # fmt: skip
    iam.put_role_policy(RoleName=role, PolicyName="read-crown", PolicyDocument=json.dumps(read))
    s3 = account.client("s3")
    s3.create_bucket(Bucket="crown-jewels")
    s3.put_bucket_tagging(Bucket="crown-jewels", Tagging={"TagSet": [{"Key": "sensitivity", "Value": "critical"}]})


def _policy(account, role: str = "deploy"):
    iam = account.client("iam")
    if NAME not in iam.list_role_policies(RoleName=role)["PolicyNames"]:
        return None
    return iam.get_role_policy(RoleName=role, PolicyName=NAME)["PolicyDocument"]


def _alert_on_role(moto_account, tmp_path, capsys, role_entity_suffix: str = "role:deploy") -> tuple[str, str, str]:
    _role_to_critical_bucket(moto_account)
    data = str(tmp_path / "db")
    code, collected = _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)
    assert code == 0, collected
    entity = f"{ACCOUNT}:{role_entity_suffix}"
    code, opened = _cli(capsys, "alert", "open", entity, "--title", "GuardDuty: role session used from Tor",
                        "--data-dir", data)  # fmt: skip
    assert code == 0, opened
    alert_id = opened.get("alert", {}).get("id") or opened.get("alert_id") or opened["id"]
    return data, alert_id, f"revoke-sessions:{entity}"


def test_revoke_plan_confirm_verify_and_release_with_acknowledgement(moto_account, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    data, alert_id, candidate = _alert_on_role(moto_account, tmp_path, capsys)
    code, plan = _cli(capsys, "revoke-sessions", alert_id, "--plan", "--data-dir", data)
    assert code == 0
    [entry] = plan["plans"]
    assert entry["id"] == candidate and entry["arn"] == f"arn:aws:iam::{ACCOUNT}:role/deploy"
    call = entry["plan"]["calls"][0]
    assert call["api"] == "iam:PutRolePolicy" and call["params"]["PolicyName"] == NAME
    [statement] = json.loads(call["params"]["PolicyDocument"])["Statement"]
    assert statement["Effect"] == "Deny" and statement["Action"] == ["*"] and statement["Resource"] == ["*"]
    assert list(statement["Condition"]["DateLessThan"]) == ["aws:TokenIssueTime"]
    assert entry["plan"]["before_image"] == {
        "kind": "role_policy", "role": "deploy", "policy_name": NAME, "existed": False, "document": None,
    }  # fmt: skip
    assert _policy(moto_account) is None  # the plan executes nothing

    # the same confirmation and cap as a containment run; only a server-derived candidate
    code, refused = _cli(capsys, "revoke-sessions", alert_id, "--candidate", candidate, "--data-dir", data)
    assert code == 2 and "explicit confirmation" in refused["message"]
    code, refused = _cli(capsys, "revoke-sessions", alert_id, "--candidate", candidate, "--max-actions", "0",
                         "--confirm", "--data-dir", data)  # fmt: skip
    assert code == 2 and "cap" in refused["message"]
    code, refused = _cli(capsys, "revoke-sessions", alert_id, "--candidate", f"revoke-sessions:{ACCOUNT}:role:other",
                         "--confirm", "--data-dir", data)  # fmt: skip
    assert code == 2 and "not among the current candidates" in refused["message"]
    assert _policy(moto_account) is None

    code, done = _cli(capsys, "revoke-sessions", alert_id, "--candidate", candidate, "--confirm", "--data-dir", data)
    assert code == 0, done
    assert (done["applied"], done["api_verified"], done["graph_verified"]) == (True, True, False)
    assert done["request_id"] and "does not cut the role's qualifying paths" in done["note"]
    assert done["remaining_paths"] >= 1  # new sessions keep the role's permissions: the paths remain
    assert _policy(moto_account) == json.loads(done["plan"]["calls"][0]["params"]["PolicyDocument"])

    # release needs the acknowledgement that it re-enables the stolen sessions
    code, refused = _cli(capsys, "release", candidate, "--reason", "cleared", "--confirm", "--data-dir", data)
    assert code == 2 and "re-enables the role's sessions issued before it, stolen ones included" in refused["message"]
    assert _policy(moto_account) is not None
    code, released = _cli(capsys, "release", candidate, "--reason", "cleared", "--confirm",
                          "--acknowledge-stolen-sessions", "--data-dir", data)  # fmt: skip
    assert code == 0, released
    assert released["call"]["api"] == "iam:DeleteRolePolicy" and released["api_verified"] is True
    assert released["request_id"] and _policy(moto_account) is None

    # the audit: intent with the before-image before the call, the request id after it, the release
    from blastshield_core import load_settings, open_services

    services = open_services(load_settings(environ={}, data_dir=tmp_path / "db"))
    try:
        events = [e for e in reversed(services.audit.events(limit=50)) if e.kind == "revoke_sessions"]
    finally:
        services.close()
    assert [e.data["status"] for e in events] == ["intended", "applied", "release_intended", "released"]
    assert events[0].data["before_image"]["existed"] is False
    assert events[1].data["request_id"] == done["request_id"]
    assert events[3].data["request_id"] == released["request_id"]


def test_release_restores_an_earlier_policy_and_refuses_drift(moto_account, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    data, alert_id, candidate = _alert_on_role(moto_account, tmp_path, capsys)
    earlier = {"Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Action": ["*"], "Resource": ["*"],
               "Condition": {"DateLessThan": {"aws:TokenIssueTime": "2020-01-01T00:00:00Z"}}}]}  # fmt: skip
    iam = moto_account.client("iam")
    iam.put_role_policy(RoleName="deploy", PolicyName=NAME, PolicyDocument=json.dumps(earlier))
    code, done = _cli(capsys, "revoke-sessions", alert_id, "--candidate", candidate, "--confirm", "--data-dir", data)
    assert code == 0 and done["plan"]["before_image"]["document"] == earlier
    # someone edits the revocation behind BlastShield's back: release refuses and changes nothing
    edited = {**earlier, "Statement": [{**earlier["Statement"][0], "Action": ["s3:*"]}]}
    iam.put_role_policy(RoleName="deploy", PolicyName=NAME, PolicyDocument=json.dumps(edited))
    code, refused = _cli(capsys, "release", candidate, "--reason", "r", "--confirm", "--acknowledge-stolen-sessions",
                         "--data-dir", data)  # fmt: skip
    assert code == 2 and "someone else changed it" in refused["message"]
    assert _policy(moto_account) == edited
    # put back what BlastShield set: the release restores the earlier document exactly
    iam.put_role_policy(RoleName="deploy", PolicyName=NAME, PolicyDocument=done["plan"]["calls"][0]["params"]
                        ["PolicyDocument"])  # fmt: skip
    code, released = _cli(capsys, "release", candidate, "--reason", "r", "--confirm", "--acknowledge-stolen-sessions",
                          "--data-dir", data)  # fmt: skip
    assert code == 0 and released["call"]["api"] == "iam:PutRolePolicy"
    assert _policy(moto_account) == earlier


def test_no_candidate_for_a_user_and_not_applied_without_a_respond_profile(moto_account, tmp_path, capsys):
    moto_account.client("iam").create_user(UserName="bob")
    data, alert_id, candidate = _alert_on_role(moto_account, tmp_path, capsys)
    code, done = _cli(capsys, "revoke-sessions", alert_id, "--candidate", candidate, "--confirm", "--data-dir", data)
    assert code == 1 and done["applied"] is False and done["applied_in_aws"] is False
    assert done["note"].startswith("not applied in AWS") and "no respond profile" in done["note"]
    assert _policy(moto_account) is None
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:bob", "--title", "bob", "--data-dir", data)
    assert code == 0, opened
    on_bob = opened.get("alert", {}).get("id") or opened.get("alert_id") or opened["id"]
    code, plan = _cli(capsys, "revoke-sessions", on_bob, "--plan", "--data-dir", data)
    # a user is not a role: its only revocation is of its own sessions, never of the alert's role
    assert code == 0 and [(p["id"], p["kind"]) for p in plan["plans"]] == [
        (f"revoke-sessions:{ACCOUNT}:user:bob", "revoke_user_sessions")
    ], plan
    code, refused = _cli(capsys, "revoke-sessions", on_bob, "--candidate", candidate, "--confirm", "--data-dir", data)
    assert code == 2 and "not among the current candidates" in refused["message"]


def test_responder_policy_allows_the_revocation_and_the_collector_policy_does_not():
    """docs/aws-live.md's policies, fed to the project's policy evaluator."""
    from blastshield_core.respond.aws.responder import RESPONDER_WRITES
    from blastshield_core.sources.aws.iam.policy import Effect, evaluate, parse_policy
    from tests.integration.sources.aws.test_aws_collect import doc_policy

    role = f"arn:aws:iam::{ACCOUNT}:role/deploy"
    responder = parse_policy(doc_policy("responder-policy"))
    collector = parse_policy(doc_policy("collector-policy"))
    for action in ("iam:PutRolePolicy", "iam:DeleteRolePolicy"):
        assert evaluate(responder, action, role).effect is Effect.ALLOW, action
    assert evaluate(collector, "iam:GetRolePolicy", role).effect is Effect.ALLOW  # the plan's and re-read's read
    assert {"iam:PutRolePolicy", "iam:DeleteRolePolicy"} <= set(RESPONDER_WRITES)
    for action in RESPONDER_WRITES:
        assert evaluate(collector, action, role).effect is not Effect.ALLOW, action
    for action in ("iam:DeleteRole", "iam:UpdateAssumeRolePolicy", "iam:AttachRolePolicy"):
        assert evaluate(responder, action, role).effect is not Effect.ALLOW, action
