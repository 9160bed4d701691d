"""Containment on the AWS account, end to end against a moto server on loopback.

AWS documentation cited: IAM User Guide "Managing access keys for IAM users" (deactivate a key
with `UpdateAccessKey` `Status=Inactive`; an inactive key can be made active again, a deleted one
cannot) and the AWS Security Incident Response Guide (contain a compromised credential by
deactivating it first, keeping it for investigation). moto does not enforce key status, so no test
asserts that an inactive key's requests fail; the tests assert the state change and the re-reads.
"""

from __future__ import annotations

import json

from blastshield_core.interfaces.cli import main
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT, user_with_key_to_critical_bucket

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures

ROUTE = f"{ACCOUNT}:user:alice:access-key-1"


def _cli(capsys, *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip().startswith("{") else {}


def _key_status(account, key: str) -> str:
    keys = account.client("iam").list_access_keys(UserName="alice")["AccessKeyMetadata"]
    return next(k["Status"] for k in keys if k["AccessKeyId"] == key)


def _contained(moto_account, tmp_path, capsys, monkeypatch, *, respond: bool = True) -> tuple[str, str, dict]:
    if respond:
        monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    key = user_with_key_to_critical_bucket(moto_account)
    data = str(tmp_path / "db")
    code, collected = _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)
    assert code == 0 and collected["imported"]["counts"]["nodes"]["Session"] == 1
    code, opened = _cli(
        capsys, "alert", "open", f"{ACCOUNT}:user:alice", "--title", "alice's key used from a new network",
        "--data-dir", data,
    )  # fmt: skip
    assert code == 0, opened
    alert_id = opened.get("alert", {}).get("id") or opened.get("alert_id") or opened["id"]
    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    return key, data, {"code": code, "run": run, "alert_id": alert_id}


def test_contain_deactivates_the_key_verifies_then_release_restores_it(moto_account, tmp_path, capsys, monkeypatch):
    key, data, result = _contained(moto_account, tmp_path, capsys, monkeypatch)
    run, alert_id = result["run"], result["alert_id"]
    assert result["code"] == 0, run
    assert run["state"] == "completed"
    assert _key_status(moto_account, key) == "Inactive"  # on the account, and never deleted
    # the key, then the sessions it already issued (rules-v4): the user's own GetSessionToken sessions
    assert [a["operation"] for a in run["actions"]] == ["block_route", "revoke_user_sessions"], run
    action = run["actions"][0]
    assert action["route_id"] == ROUTE
    assert (action["applied"], action["api_verified"], action["graph_verified"], action["verified"]) == (
        True, True, True, True,
    )  # fmt: skip
    aws = action["aws"]
    assert aws["applied_in_aws"] is True and aws["request_id"]
    assert aws["plan"]["calls"] == [
        {"api": "iam:UpdateAccessKey", "params": {"UserName": "alice", "AccessKeyId": key, "Status": "Inactive"}}
    ]
    assert aws["plan"]["before_image"]["status"] == "Active"
    assert "applied and verified on the AWS account" in run["reason"]
    # intent (with the before-image) before the call, the request id after it
    code, full = _cli(capsys, "run", run["run_id"], "--data-dir", data)
    kinds = [s["kind"] for s in full["steps"]]
    assert kinds.index("intent") < kinds.index("aws_call") < kinds.index("resync") < kinds.index("requery")
    intent = next(s for s in full["steps"] if s["kind"] == "intent")
    assert intent["data"]["before_image"] == {
        "kind": "access_key", "user": "alice", "access_key_id": key, "status": "Active",
    }  # fmt: skip
    assert main(["run", run["run_id"], "--data-dir", data]) == 0
    text = capsys.readouterr().out
    assert "AWS iam:UpdateAccessKey: applied True, api_verified True, graph_verified True, request " in text
    assert "[aws_call] iam:UpdateAccessKey" in text
    report = tmp_path / "report.md"
    assert main(["report", run["run_id"], "--out", str(report), "--data-dir", data]) == 0
    capsys.readouterr()
    text = report.read_text()
    assert f"on the AWS account: `iam:UpdateAccessKey` (UserName=alice, AccessKeyId={key}, Status=Inactive)" in text
    assert f"request id `{aws['request_id']}`" in text and '"status": "Active"' in text and "Not applied" not in text
    # the route's status comes from the account: the re-collected graph has it blocked, no path
    code, inv = _cli(capsys, "investigate", alert_id, "--data-dir", data)
    assert inv["status"] == "no_path"
    # release: the key is Active again and the path is back
    code, released = _cli(capsys, "release", ROUTE, "--reason", "false positive", "--confirm", "--data-dir", data)
    assert code == 0, released
    assert released["api_verified"] is True and released["request_id"]
    assert _key_status(moto_account, key) == "Active"
    code, inv = _cli(capsys, "investigate", alert_id, "--data-dir", data)
    assert inv["status"] == "paths_found" and inv["path_count"] >= 1
    assert [a["alert_id"] for a in released["alerts_reopened"]] == [alert_id]


def test_release_refuses_when_the_key_changed_behind_blastshield(moto_account, tmp_path, capsys, monkeypatch):
    key, data, result = _contained(moto_account, tmp_path, capsys, monkeypatch)
    assert result["run"]["state"] == "completed"
    iam = moto_account.client("iam")
    iam.delete_access_key(UserName="alice", AccessKeyId=key)  # someone else removed it meanwhile
    new = iam.create_access_key(UserName="alice")["AccessKey"]["AccessKeyId"]
    code = main(["release", ROUTE, "--reason", "done", "--confirm", "--data-dir", data])
    err = capsys.readouterr().err
    assert code == 2
    assert "someone else changed it" in err and key in err
    assert _key_status(moto_account, new) == "Active"  # nothing was touched


def test_release_refuses_when_the_key_was_reactivated_elsewhere(moto_account, tmp_path, capsys, monkeypatch):
    key, data, result = _contained(moto_account, tmp_path, capsys, monkeypatch)
    assert result["run"]["state"] == "completed"
    moto_account.client("iam").update_access_key(UserName="alice", AccessKeyId=key, Status="Active")
    code = main(["release", ROUTE, "--reason", "done", "--confirm", "--data-dir", data])
    assert code == 2
    assert "is Active on the account, not Inactive" in capsys.readouterr().err


def test_without_a_respond_profile_the_run_says_not_applied_in_aws(moto_account, tmp_path, capsys, monkeypatch):
    key, data, result = _contained(moto_account, tmp_path, capsys, monkeypatch, respond=False)
    run = result["run"]
    # its own state and exit code: planned in the graph, the key still works on the account
    assert (result["code"], run["state"]) == (6, "graph_only"), run
    assert run["reason"].startswith("planned in the graph; the credentials still work on the account")
    assert "not applied in AWS" in run["reason"]
    assert main(["run", run["run_id"], "--data-dir", data]) == 0
    text = capsys.readouterr().out
    assert "GRAPH_ONLY" in text and "PLANNED IN THE GRAPH ONLY: the credentials still work on the account" in text
    [action] = run["actions"]
    assert action["aws"]["applied_in_aws"] is False and action["api_verified"] is False
    assert "no respond profile" in action["aws"]["note"]
    assert _key_status(moto_account, key) == "Active"  # the account was not touched
    # the incident report and the briefing say it plainly too
    report = tmp_path / "report.md"
    assert main(["report", run["run_id"], "--out", str(report), "--data-dir", data]) == 0
    capsys.readouterr()
    text = report.read_text()
    assert "**Not applied in AWS:** `" + ROUTE + "` blocked in the graph only" in text
    assert "This run is not containment of the account." in text and "**not applied in AWS**: " in text
    code, brief = _cli(capsys, "brief", result["alert_id"], "--run", run["run_id"], "--data-dir", data)
    assert brief["label"] == "fallback" and "Not applied in AWS: `" + ROUTE + "`" in brief["markdown"]
    # the graph-only block is released in the graph, as any route BlastShield blocked
    code, released = _cli(capsys, "release", ROUTE, "--reason", "graph only", "--confirm", "--data-dir", data)
    assert code == 0 and released["state"] == "released" and "aws" not in released


def test_plan_names_the_exact_call_and_executes_nothing(moto_account, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    key = user_with_key_to_critical_bucket(moto_account)
    data = str(tmp_path / "db")
    assert _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)[0] == 0
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:alice", "--title", "t", "--data-dir", data)
    alert_id = opened.get("alert", {}).get("id") or opened.get("alert_id") or opened["id"]
    code, plan = _cli(capsys, "contain", alert_id, "--decider", "rules", "--plan", "--data-dir", data)
    assert code == 0
    [entry] = plan["plans"]
    aws = entry["aws"]
    assert aws["calls"][0]["params"] == {"UserName": "alice", "AccessKeyId": key, "Status": "Inactive"}
    assert aws["reversibility"].startswith("exact") and aws["side_effects"]
    assert _key_status(moto_account, key) == "Active"
    code, runs = _cli(capsys, "runs", "--data-dir", data)
    assert runs["runs"] == []


def _carol_reads(account, key: str, secret: str) -> str:
    """carol's own request, signed with her key, under moto's IAM enforcement: 'ok' or the error code."""
    import boto3
    from botocore.exceptions import ClientError

    s3 = boto3.client(
        "s3",
        endpoint_url=account.url,
        region_name="us-east-1",
        aws_access_key_id=key,
        aws_secret_access_key=secret,
    )
    try:
        s3.get_object(Bucket="crown-jewels", Key="plans.txt")["Body"].read()
    except ClientError as exc:
        return exc.response["Error"]["Code"]
    return "ok"


def test_console_password_gets_a_deny_all_policy_that_moto_enforces(moto_account, tmp_path, capsys, monkeypatch):
    """A console password is contained with an explicit deny-all inline policy (an explicit Deny
    overrides every Allow: IAM "Policy evaluation logic"), which also stops the user's keys. With
    moto's IAM enforcement switched on (`moto.settings.INITIAL_NO_AUTH_ACTION_COUNT`), carol's own
    request fails after it, and works again after the release."""
    import moto.settings

    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    iam = moto_account.client("iam")
    user_with_key_to_critical_bucket(moto_account, user="carol")
    iam.create_login_profile(UserName="carol", Password="Correct-Horse-9!")
    moto_account.client("s3").put_object(Bucket="crown-jewels", Key="plans.txt", Body=b"secret")
    created = iam.create_access_key(UserName="carol")["AccessKey"]  # a second key, to sign carol's requests
    data = str(tmp_path / "db")
    assert _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)[0] == 0
    with monkeypatch.context() as m:
        m.setattr(moto.settings, "INITIAL_NO_AUTH_ACTION_COUNT", 0)
        assert _carol_reads(moto_account, created["AccessKeyId"], created["SecretAccessKey"]) == "ok"
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:carol", "--title", "t", "--data-dir", data)
    alert_id = opened.get("alert", {}).get("id") or opened.get("alert_id") or opened["id"]
    code, plan = _cli(capsys, "contain", alert_id, "--decider", "rules", "--plan", "--data-dir", data)
    console = next(p["aws"] for p in plan["plans"] if p["route_id"].endswith(":console"))
    assert console["kind"] == "deny_all_inline_policy"
    assert console["calls"][0]["api"] == "iam:PutUserPolicy"
    assert any("also stops every access key of carol" in s for s in console["side_effects"])
    assert console["before_image"] == {
        "kind": "inline_policy", "user": "carol", "policy_name": "BlastShieldDenyAll", "document": None,
        "login_profile": True, "existed": False,
    }  # fmt: skip
    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--max-actions", "5", "--confirm",
                     "--data-dir", data)  # fmt: skip
    assert code == 0 and run["state"] == "completed", run
    denied = [a for a in run["actions"] if a["aws"]["plan"]["kind"] == "deny_all_inline_policy"]
    assert denied and all(a["api_verified"] and a["graph_verified"] for a in run["actions"])
    assert sorted(iam.list_user_policies(UserName="carol")["PolicyNames"]) == ["BlastShieldDenyAll", "read-crown"]
    assert iam.get_login_profile(UserName="carol")["LoginProfile"]["UserName"] == "carol"  # kept
    with monkeypatch.context() as m:
        m.setattr(moto.settings, "INITIAL_NO_AUTH_ACTION_COUNT", 0)
        assert _carol_reads(moto_account, created["AccessKeyId"], created["SecretAccessKey"]) == "AccessDenied"
    route = denied[0]["route_id"]
    code, released = _cli(capsys, "release", route, "--reason", "cleared", "--confirm", "--data-dir", data)
    assert code == 0, released
    assert released["call"]["api"] == "iam:DeleteUserPolicy" and released["api_verified"] is True
    assert iam.list_user_policies(UserName="carol")["PolicyNames"] == ["read-crown"]
    with monkeypatch.context() as m:
        m.setattr(moto.settings, "INITIAL_NO_AUTH_ACTION_COUNT", 0)
        assert _carol_reads(moto_account, created["AccessKeyId"], created["SecretAccessKey"]) == "ok"


def test_only_an_unconditional_deny_of_everything_blocks_every_credential():
    from blastshield_core.sources.aws.iam.deny_all import denies_everything
    from blastshield_core.sources.aws.iam.policy import parse_policy

    def policy(**statement) -> list:
        return parse_policy({"Version": "2012-10-17", "Statement": [{"Effect": "Deny", **statement}]})

    assert denies_everything(policy(Action="*", Resource="*"))
    assert not denies_everything(policy(Action="s3:*", Resource="*"))
    assert not denies_everything(policy(Action="*", Resource="arn:aws:s3:::x/*"))
    assert not denies_everything(policy(NotAction="iam:*", Resource="*"))
    assert not denies_everything(
        policy(Action="*", Resource="*", Condition={"Bool": {"aws:MultiFactorAuthPresent": "false"}})
    )
    assert not denies_everything(parse_policy({"Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))


def test_every_call_each_profile_makes_is_allowed_by_its_documented_policy(moto_account, tmp_path, capsys, monkeypatch):
    """Containment of a key and of a console password, a role session revocation, and the releases
    of all three, with botocore's `before-call` event recording every operation per profile: each
    call of the respond profile is allowed by docs/aws-live.md's responder policy and each call of
    the collect profile (plans' reads, re-reads, re-collection) by the collector policy, as the
    project's policy evaluator decides them on the principal the call names (IAM's resource for a
    user's or role's operations is that user or role; Service Authorization Reference, "Actions
    defined by AWS Identity and Access Management"). Recorded from botocore's
    `before-parameter-build` event, which carries each call's own parameters."""
    import boto3

    from blastshield_core.interfaces.aws import account as aws_account
    from blastshield_core.sources.aws.iam.policy import Effect, evaluate, parse_policy
    from tests.integration.respond.test_aws_revoke import _role_to_critical_bucket
    from tests.integration.sources.aws.test_aws_collect import doc_policy

    observed: dict[str, set[tuple[str, str]]] = {"collect": set(), "respond": set()}

    def session(profile):
        made = boto3.Session(profile_name=profile or None)

        def record(model, params, **_):
            who = f"user/{params['UserName']}" if "UserName" in params else f"role/{params.get('RoleName', '*')}"
            observed[profile].add((f"iam:{model.name}", f"arn:aws:iam::{ACCOUNT}:{who}"))

        made.events.register("before-parameter-build.iam", record)
        return made

    monkeypatch.setattr(aws_account, "_session", session)
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    iam = moto_account.client("iam")
    user_with_key_to_critical_bucket(moto_account, user="carol")
    iam.create_login_profile(UserName="carol", Password="Correct-Horse-9!")
    _role_to_critical_bucket(moto_account)
    data = str(tmp_path / "db")
    assert _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)[0] == 0
    for entity in ("user:carol", "role:deploy"):
        code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:{entity}", "--title", "t", "--data-dir", data)
        alert_id = opened.get("alert_id") or opened["id"]
        code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--max-actions", "5", "--confirm",
                         "--data-dir", data)  # fmt: skip
        assert run["actions"] and all(a["applied"] and a["api_verified"] for a in run["actions"]), run
        for action in run["actions"]:
            extra = ["--acknowledge-stolen-sessions"] if action["operation"] == "revoke_role_sessions" else []
            code, released = _cli(capsys, "release", action["route_id"], "--reason", "r", "--confirm", *extra,
                                  "--data-dir", data)  # fmt: skip
            assert code == 0, released
    writes = {"iam:UpdateAccessKey", "iam:PutUserPolicy", "iam:DeleteUserPolicy", "iam:PutRolePolicy",
              "iam:DeleteRolePolicy"}  # fmt: skip
    assert writes <= {action for action, _ in observed["respond"]}  # each write was made, by the respond profile
    assert not writes & {action for action, _ in observed["collect"]}  # and never by the collect profile
    assert {action for action, _ in observed["respond"]} == writes  # the respond profile only writes
    for profile, policy in (("respond", "responder-policy"), ("collect", "collector-policy")):
        statements = parse_policy(doc_policy(policy))
        for action, principal in sorted(observed[profile]):
            resource = "*" if policy == "collector-policy" else principal
            assert evaluate(statements, action, resource).effect is Effect.ALLOW, (profile, action, resource)
