"""Role session revocation as a candidate inside a containment run, against a moto server on loopback.

The second allowlisted action kind: the deciders (rules, analyst, Gemini) choose it only among the
server-derived candidates, with the run's confirmation and cap; the intent with the before-image is
in the run's audit before the call; the call is verified by re-reading the role policy; the graph is
asked again, and the run never completes on a revocation (it cuts no path).

AWS documentation cited: IAM User Guide, "Revoking IAM role temporary security credentials": the
console's "Revoke active sessions" attaches to the role an inline policy named
AWSRevokeOlderSessions that denies all actions when aws:TokenIssueTime is earlier than the
revocation, so sessions issued before it fail and sessions issued after it keep the role's
permissions. These tests assert the policy on the account, its re-read and its exact release; they
do not assert that moto refuses an older session's requests (AWS's enforcement of the condition).
"""

from __future__ import annotations

import json

import pytest
from pydantic import SecretStr

from blastshield_core import load_settings, open_services
from blastshield_core.interfaces.aws.account import responder
from blastshield_core.interfaces.mcp_server import build_mcp_server
from blastshield_core.interfaces.service import build_services
from blastshield_core.respond.decide import AnalystDecider, RulesDecider
from blastshield_core.results import RunState
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT
from tests.helpers.gemini_fake import FakeGemini, call, json_text
from tests.integration.respond.test_aws_revoke import NAME, _alert_on_role, _cli, _policy

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures

ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/deploy"


def _services(tmp_path, **settings):
    services = open_services(load_settings(environ={}, data_dir=tmp_path / "db"))
    if settings:
        services = build_services(services.store, services.settings.model_copy(update=settings))
    services.controller.effector = responder(services, services.settings)
    return services


def test_rules_run_revokes_the_role_sessions_verified_on_the_account_and_stops(
    moto_account, tmp_path, capsys, monkeypatch
):
    """`contain --decider rules --confirm` on an alert on a role: the playbook revokes its sessions
    once (no route can be blocked), the policy reads back on the account, the paths remain, and the
    run stops, never `completed`. `release` restores it only with the acknowledgement."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    data, alert_id, candidate = _alert_on_role(moto_account, tmp_path, capsys)
    code, plan = _cli(capsys, "contain", alert_id, "--decider", "rules", "--plan", "--data-dir", data)
    assert code == 0 and plan["revocations"][0]["id"] == candidate
    assert plan["revocations"][0]["plan"]["calls"][0]["api"] == "iam:PutRolePolicy"
    assert _policy(moto_account) is None  # the plan executes nothing

    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    assert code == 1, run  # stopped: not contained
    assert run["state"] == "stopped"
    assert "revoked and verified on the AWS account" in run["reason"] and "cuts no qualifying path" in run["reason"]
    assert run["remaining_paths"] >= 1
    [action] = run["actions"]
    assert action["operation"] == "revoke_role_sessions" and action["route_id"] == candidate
    assert (action["status"], action["applied"], action["api_verified"], action["graph_verified"]) == (
        "applied", True, True, False,
    )  # fmt: skip
    assert action["verified"] is True and action["aws"]["request_id"]
    assert action["paths_before"] == action["paths_after"] == run["remaining_paths"]  # a revocation cuts no path
    document = json.loads(action["aws"]["plan"]["calls"][0]["params"]["PolicyDocument"])
    assert _policy(moto_account) == document
    [statement] = document["Statement"]
    assert statement["Effect"] == "Deny" and list(statement["Condition"]["DateLessThan"]) == ["aws:TokenIssueTime"]

    kinds = [s["kind"] for s in run["steps"]]
    intent = kinds.index("intent")
    assert kinds[intent : intent + 3] == ["intent", "aws_call", "action"]  # intent before effect
    assert run["steps"][intent]["data"]["before_image"] == {
        "kind": "role_policy", "role": "deploy", "policy_name": NAME, "existed": False, "document": None,
    }  # fmt: skip
    proposal = next(s for s in run["steps"] if s["kind"] == "proposal")
    assert proposal["data"]["proposal"]["candidate_id"] == candidate
    assert proposal["data"]["proposal"]["rationale"].startswith("rules-v4: no session route cuts")
    # offered once: the second decision had no candidate left, so nothing was revoked twice
    assert [s["data"]["candidates"] for s in run["steps"] if s["kind"] == "candidates"] == [[candidate], []]

    # the run's revocation is in the revocations' audit too, so `release` finds it
    services = open_services(load_settings(environ={}, data_dir=tmp_path / "db"))
    try:
        events = [e for e in reversed(services.audit.events(limit=50)) if e.kind == "revoke_sessions"]
    finally:
        services.close()
    assert [(e.data["status"], e.run_id) for e in events] == [("intended", run["run_id"]), ("applied", run["run_id"])]
    assert events[1].data["request_id"] == action["aws"]["request_id"]
    code, refused = _cli(capsys, "release", candidate, "--reason", "cleared", "--confirm", "--data-dir", data)
    assert code == 2 and "stolen ones included" in refused["message"] and _policy(moto_account) is not None
    code, released = _cli(capsys, "release", candidate, "--reason", "cleared", "--confirm",
                          "--acknowledge-stolen-sessions", "--data-dir", data)  # fmt: skip
    assert code == 0 and released["call"]["api"] == "iam:DeleteRolePolicy" and _policy(moto_account) is None


def test_the_cap_counts_a_revocation_and_without_a_respond_profile_nothing_is_changed(
    moto_account, tmp_path, capsys, monkeypatch
):
    data, alert_id, _ = _alert_on_role(moto_account, tmp_path, capsys)
    # no respond profile: the revocation is planned and refused, "not applied in AWS", nothing changed
    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    assert code == 1 and run["state"] == "stopped", run
    assert run["reason"].startswith("action rejected: not applied in AWS") and "no respond profile" in run["reason"]
    [action] = run["actions"]
    assert (action["status"], action["applied"], action["operation"]) == ("rejected", False, "revoke_role_sessions")
    intent = next(s for s in run["steps"] if s["kind"] == "intent")
    assert "not applied in AWS" in intent["summary"]
    assert "aws_call" not in [s["kind"] for s in run["steps"]] and _policy(moto_account) is None

    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--max-actions", "1", "--confirm",
                     "--data-dir", data)  # fmt: skip
    assert code == 1 and run["state"] == "stopped"
    assert run["reason"].startswith("action cap (1) reached") and "revoked and verified" in run["reason"]
    assert _policy(moto_account) is not None


def test_the_analyst_chooses_a_revocation_and_only_a_current_candidate(moto_account, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    _, alert_id, candidate = _alert_on_role(moto_account, tmp_path, capsys)
    services = _services(tmp_path)
    try:
        other = f"revoke-sessions:{ACCOUNT}:role:other"
        run = services.controller.run(alert_id, AnalystDecider([other]), 3, True)
        assert run.state is RunState.STOPPED and "not among the current candidates" in run.reason
        assert run.actions == [] and _policy(moto_account) is None
        run = services.controller.run(alert_id, AnalystDecider([candidate, candidate]), 3, True)
        assert run.state is RunState.STOPPED and [a.operation for a in run.actions] == ["revoke_role_sessions"]
        assert _policy(moto_account) is not None and run.actions[0].api_verified is True
        # offered once in a run: with nothing else to offer, the run stops before asking again
        assert run.reason.startswith("1 path(s) remain but none passes") and "were revoked and verified" in run.reason
        assert [s.kind for s in run.steps].count("proposal") == 1
    finally:
        services.close()


def test_candidates_list_the_revocation_for_an_aws_role_only(moto_account, tmp_path, capsys):
    """`get_response_candidates` (and so the MCP tool) lists the revocation beside the route blocks;
    `select_response_candidate` counts it as a current candidate. A scenario role has none."""
    import asyncio

    from mcp import Client

    _, alert_id, candidate = _alert_on_role(moto_account, tmp_path, capsys)
    services = _services(tmp_path)
    try:
        found = services.tools.get_response_candidates(alert_id)
        assert found.candidates == [] and [r.id for r in found.revocations] == [candidate]
        [revoke] = found.revocations
        assert (revoke.arn, revoke.role, revoke.paths_cut) == (ROLE_ARN, "deploy", 0)
        assert revoke.remaining_if_applied == found.qualifying_paths >= 1 and found.ids() == [candidate]

        async def through_mcp():
            async with Client(build_mcp_server(services.tools)) as session:
                listed = await session.call_tool("get_response_candidates", {"alert_id": alert_id})
                chosen = await session.call_tool(
                    "select_response_candidate", {"alert_id": alert_id, "candidate_id": candidate, "rationale": "r"}
                )
                return listed.structured_content, chosen.structured_content

        listed, chosen = asyncio.run(through_mcp())
        assert [r["id"] for r in listed["revocations"]] == [candidate]
        assert chosen["among_current_candidates"] is True
    finally:
        services.close()


def test_no_revocation_for_a_scenario_role(services):
    """A role of the built-in scenarios is not an AWS role (no `aws_kind`, no ARN): no revocation."""
    from blastshield_core.sources.analyst_alert import build_request, open_alert

    opened = open_alert(services.store, build_request("orders-svc-role", "look at the role"))
    found = services.tools.get_response_candidates(opened.alert_id)
    assert found.status.is_answer and found.revocations == []
    run = services.controller.run(opened.alert_id, RulesDecider(), 3, True)
    assert run.actions == [] and run.state in (RunState.STOPPED, RunState.COMPLETED)


@pytest.fixture
def fake_gemini():
    fake = FakeGemini()
    yield fake
    fake.stop()


def test_gemini_sees_the_revocation_and_can_choose_it(moto_account, tmp_path, capsys, monkeypatch, fake_gemini):
    """The real google-genai client against the loopback Gemini API: the prompt lists the revocation
    under `revocations`, the model proposes it through select_response_candidate, the server
    re-validates it and the run revokes on the account. Nothing the model is sent holds the
    profiles' keys or secrets."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    _, alert_id, candidate = _alert_on_role(moto_account, tmp_path, capsys)
    services = _services(
        tmp_path, gemini_api_key=SecretStr("test-key"), gemini_base_url=fake_gemini.url, gemini_timeout_s=20.0
    )
    try:
        fake_gemini.add(
            call("get_response_candidates", {"alert_id": alert_id}),
            call("select_response_candidate", {"alert_id": alert_id, "candidate_id": candidate,
                                               "rationale": "stolen role session"}),
        )  # fmt: skip
        run = services.controller.run(alert_id, services.gemini(), 3, True)
    finally:
        services.close()
    assert run.state is RunState.STOPPED, run.reason
    assert [(a.operation, a.applied, a.api_verified) for a in run.actions] == [("revoke_role_sessions", True, True)]
    prompt = fake_gemini.requests[0]["contents"][0]["parts"][0]["text"]
    evidence = json.loads(prompt.split("as JSON data:\n", 1)[1])
    assert [r["id"] for r in evidence["revocations"]] == [candidate] and evidence["candidates"] == []
    sent = json.dumps(fake_gemini.requests)
    assert "AKIA" not in sent and "secret-respond" not in sent  # no credential reaches the model
    assert _policy(moto_account) is not None


def test_a_before_image_that_cannot_be_read_refuses_the_run_and_calls_nothing(
    moto_account, tmp_path, capsys, monkeypatch
):
    """With moto's IAM enforcement switched on (`moto.settings.INITIAL_NO_AUTH_ACTION_COUNT`), the
    profiles' keys are unknown to the account and every call is refused: the plan cannot read the
    role, its identity or the role policy's before-image, so the run is refused before its first
    write (exit 2, each reason named), no run is recorded and nothing is called, never a half-made
    change or a traceback."""
    import moto.settings

    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    data, alert_id, candidate = _alert_on_role(moto_account, tmp_path, capsys)
    with monkeypatch.context() as m:
        m.setattr(moto.settings, "INITIAL_NO_AUTH_ACTION_COUNT", 0)
        code, refused = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    assert code == 2 and refused["status"] == "invalid_input", refused
    assert refused["message"].startswith("refused before any write, nothing was written: " + candidate)
    assert "sts:GetCallerIdentity failed" in refused["message"] and "iam:GetRole deploy failed" in refused["message"]
    assert _policy(moto_account) is None
    code, runs = _cli(capsys, "runs", "--data-dir", data)
    assert runs["runs"] == []


def test_a_guardduty_finding_on_an_assumed_role_session_ends_in_a_revocation(
    moto_account, tmp_path, capsys, monkeypatch
):
    """From the finding to the account: GuardDuty's IAM finding types have Resource Type AccessKey,
    and for a role session `AccessKeyDetails.UserType` is `AssumedRole` with the role's name
    (GuardDuty User Guide, "GuardDuty IAM finding types" and the finding's `AccessKeyDetails`). The
    import opens the alert on the role; the rules run revokes the role's sessions, as IAM advises for
    role sessions ("Disabling permissions for temporary security credentials": revoke the role's
    temporary security credentials so that whoever assumed it must request new ones). moto has no
    GuardDuty findings, so the collected folder gets the finding in the shape GetFindings returns."""
    from tests.integration.respond.test_aws_revoke import _role_to_critical_bucket

    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    _role_to_critical_bucket(moto_account)
    data, out = str(tmp_path / "db"), tmp_path / "c"
    code, collected = _cli(capsys, "collect-aws", "--out", str(out), "--import", "--data-dir", data)
    assert code == 0, collected  # a recorded collection: the role's unique id, and a write that can be verified
    finding = {
        "Id": "4ec7d5a1e9f0c0ffee", "AccountId": ACCOUNT, "Region": "us-east-1", "Severity": 8,
        "Type": "UnauthorizedAccess:IAMUser/InstanceCredentialExfiltration.OutsideAWS",
        "Title": "Credentials for instance role deploy used from an external IP address.",
        "Resource": {"ResourceType": "AccessKey", "AccessKeyDetails": {
            "AccessKeyId": "ASIAEXAMPLEEXAMPLE00", "PrincipalId": "AROAEXAMPLE:i-0abc", "UserName": "deploy",
            "UserType": "AssumedRole"}},
        "Service": {"Action": {"ActionType": "AWS_API_CALL"}, "Count": 4},
        "CreatedAt": "2026-12-02T10:00:00.000Z", "UpdatedAt": "2026-12-02T10:05:00.000Z",
        "SchemaVersion": "2.0", "Arn": f"arn:aws:guardduty:us-east-1:{ACCOUNT}:detector/d/finding/4ec7d5a1e9f0c0ffee",
    }  # fmt: skip
    (out / ACCOUNT / "guardduty-get-findings.json").write_text(json.dumps({"Findings": [finding]}))
    code, imported = _cli(capsys, "import-aws", str(out / ACCOUNT), "--data-dir", data)
    assert code == 0, imported
    alert_id = f"gd:{finding['Id']}"
    code, found = _cli(capsys, "candidates", alert_id, "--data-dir", data)
    assert code == 0 and found["candidates"] == []
    assert [r["id"] for r in found["revocations"]] == [f"revoke-sessions:{ACCOUNT}:role:deploy"]
    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    assert run["state"] == "stopped" and [a["operation"] for a in run["actions"]] == ["revoke_role_sessions"]
    assert run["actions"][0]["api_verified"] is True and _policy(moto_account) is not None
    assert "AKIA" not in json.dumps(run) and "ASIAEXAMPLE" not in json.dumps(run["actions"])


# What a briefing of a revocation run may truthfully say, and what it may not. A revocation stops the
# role's sessions issued before it (IAM User Guide, "Revoking IAM role temporary security credentials")
# and cuts no path: whoever may assume the role still can, so the alert stays exposed.
TRUTHFUL = [
    "The run revoked the active sessions of role deploy on the AWS account ({candidate}) and verified it;"
    " {n} qualifying path(s) remain, so the alert is still exposed.",
    "Sessions issued before the revocation are now denied by the AWSRevokeOlderSessions policy. The role keeps"
    " its permissions, and the path to the bucket remains open.",
    "The role's existing sessions were revoked. This cuts no path: the alert is not contained.",
    "Stolen credentials of {arn} are revoked; new sessions can still assume the role, so access remains.",
    "The run stopped after revoking the role's sessions: {n} qualifying path(s) remain.",
    "The role can still read arn:aws:s3:::crown-jewels/* through its inline policy.",
]
FALSE = [
    ("The role's sessions were revoked and the alert is contained.", "false_containment"),
    ("The run completed: the role's sessions were revoked.", "false_containment"),
    ("The role's sessions were not revoked; nothing was done on the account.", "false_exposure"),
    ("No qualifying path remains after the revocation.", "false_containment"),
    ("The run revoked the sessions of arn:aws:iam::{account}:role/other-role.", "unknown_entity"),
    ("The role can read arn:aws:s3:::other-bucket/*.", "unknown_entity"),
]


def test_a_briefing_of_a_revocation_run_is_held_against_the_run_and_the_paths(
    moto_account, tmp_path, capsys, monkeypatch, fake_gemini
):
    """After a rules run revoked the role's sessions: a truthful briefing (the sessions were revoked, the
    paths remain, the role named by its ARN) passes the checker, and the model's is shown as the model's;
    one that calls the revocation containment, the run completed, the sessions not revoked or names
    another role's ARN is flagged. Without a revocation in the run a "sessions revoked" claim is still
    a containment claim held against the paths."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    data, alert_id, candidate = _alert_on_role(moto_account, tmp_path, capsys)
    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    assert code == 1 and run["state"] == "stopped" and run["remaining_paths"] >= 1
    services = _services(
        tmp_path, gemini_api_key=SecretStr("test-key"), gemini_base_url=fake_gemini.url, gemini_timeout_s=20.0
    )
    try:
        briefer = services.briefer
        evidence = briefer.evidence(alert_id, run["run_id"])
        assert evidence.arns[ROLE_ARN] == f"{ACCOUNT}:role:deploy"
        assert evidence.revocations == {candidate: True}
        fill = {"candidate": candidate, "n": run["remaining_paths"], "arn": ROLE_ARN, "account": ACCOUNT}
        for text in TRUTHFUL:
            assert briefer.check(alert_id, text.format(**fill), evidence) == [], text
        for text, kind in FALSE:
            flags = briefer.check(alert_id, text.format(**fill), evidence)
            assert kind in {f.kind.value for f in flags}, (text, flags)
        # without the run, "the sessions were revoked" is no action of it: a containment claim, and false
        assert "false_containment" in {f.kind.value for f in briefer.check(alert_id, TRUTHFUL[2].split(".")[0])}

        prose = TRUTHFUL[0].format(**fill) + " " + TRUTHFUL[3].format(**fill)
        fake_gemini.add(json_text({
            "entity_ids": [f"{ACCOUNT}:role:deploy", ROLE_ARN], "path_count": run["remaining_paths"],
            "containment_state": "exposed", "prose": prose,
        }))  # fmt: skip
        briefing = briefer.brief(alert_id, run["run_id"])
        assert (briefing.label, briefing.flags) == ("model", []), briefing.flags
    finally:
        services.close()
