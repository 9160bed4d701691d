"""The live account on the dashboard (AppTest) against a moto server on loopback: Collect from AWS
on the AWS accounts page, the plan above the confirmation and the verdict with both verifications on the
Containment page, before-images, request ids and releases on the Audit page, and who may execute.

AWS documentation cited: IAM User Guide "Managing access keys for IAM users" (`UpdateAccessKey`
`Status=Inactive` deactivates a key, which can be made active again). moto does not enforce key
status, so these tests assert the state change on the account and the re-reads, not that the
key's requests fail.
"""

from __future__ import annotations

import json
import os

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Block

from blastshield_core.base.access import ALLOW_UNAUTHENTICATED_ENV
from blastshield_core.interfaces.cli import main
from tests.app.test_app import ROOT, _close_cached_services, open_page, plain, table
from tests.app.test_app_access import ROLES, signed_in, texts
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT, user_with_key_to_critical_bucket
from tests.helpers.dashboard_token import RUN_BOUND_S, with_token

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures

ALICE = f"{ACCOUNT}:user:alice"
ROUTE = f"{ALICE}:access-key-1"
# AppTest waits for each run's script to end (a state); its bound only ends a run that hangs. The run that
# collects from moto and imports takes about 4 s on a quiet machine of two cores and 15-20 s beside four busy
# processes: the 90 s it had was within reach of a machine shared by several suites at once.


@pytest.fixture
def app(tmp_path, monkeypatch, moto_account):
    for var in ("FALKORDB_URL", "BLASTSHIELD_GRAPH", "BLASTSHIELD_AUDIT_GRAPH", "GEMINI_API_KEY",
                ALLOW_UNAUTHENTICATED_ENV):  # fmt: skip
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("BLASTSHIELD_DATA_DIR", str(tmp_path / "data"))
    st.cache_resource.clear()
    at = with_token(AppTest.from_file(str(ROOT / "app.py"), default_timeout=RUN_BOUND_S))
    yield at
    _close_cached_services()


def _key_status(account, key: str) -> str:
    keys = account.client("iam").list_access_keys(UserName="alice")["AccessKeyMetadata"]
    return next(k["Status"] for k in keys if k["AccessKeyId"] == key)


def _in_order(node) -> list:
    """The page's elements in the order they are drawn."""
    if not isinstance(node, Block):
        return [node]
    out = []
    for index in sorted(node.children):
        out.extend(_in_order(node.children[index]))
    return out


def _collect_and_open(at) -> str:
    """Collect from AWS on the AWS accounts page, then open an alert on alice on the Alerts page; the alert id."""
    open_page(at, "pages/aws.py")
    writing = "respond (can write: the respond profile)"
    expected = ["collect", writing if os.environ.get("BLASTSHIELD_AWS_RESPOND_PROFILE") else "respond"]
    assert at.selectbox(key="aws_collect_profile").options == expected
    assert at.selectbox(key="aws_collect_profile").value == "collect"  # BLASTSHIELD_AWS_COLLECT_PROFILE
    assert at.multiselect(key="aws_collect_regions").value == ["us-east-1"]
    at.button(key="aws_collect").click().run()
    assert not at.exception, at.exception
    notice = " ".join(plain(s.value) for s in at.success)
    assert f"Collected from AWS with profile collect and imported account(s) {ACCOUNT}" in notice
    calls = {r["call"]: r["count"] for r in table(at, "call", "count").to_dict("records")}
    assert calls["iam:ListAccessKeys"] == 1 and calls["sts:GetCallerIdentity"] == 1
    nodes = {r["name"]: r["count"] for r in table(at, "kind", "name", "count").to_dict("records")}
    assert nodes["Session"] == 1  # the import report: alice's access key
    assert any("What to do next" in m.value for m in at.markdown)  # as after an import: the principals first
    at.switch_page("pages/alerts.py").run()
    at.text_input(key="alerts_open_entity").set_value(ALICE)
    at.text_input(key="alerts_open_title").set_value("alice's key used from a new network")
    at.button(key="alerts_open_submit").click().run()
    assert not at.exception, at.exception
    return at.selectbox(key="alerts_select").value


def _start_run(at, alert_id: str) -> None:
    at.switch_page("pages/containment.py").run()
    assert at.selectbox(key="contain_alert").value == alert_id
    at.radio(key="contain_decider").set_value("rules").run()
    at.checkbox(key="contain_confirm").check().run()
    at.button(key="contain_start").click().run()
    assert not at.exception, at.exception


def test_collect_plan_contain_audit_and_release_on_the_account(app, moto_account, monkeypatch):
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    key = user_with_key_to_critical_bucket(moto_account)
    alert_id = _collect_and_open(app)

    # the plan, read from the account, above the confirmation; nothing executed yet
    app.switch_page("pages/containment.py").run()
    assert not app.exception, app.exception
    call = f"iam:UpdateAccessKey(UserName=alice, AccessKeyId={key}, Status=Inactive)"
    # the key's call, then the revocation of the user's own issued sessions (a candidate of its own)
    codes = [c.value for c in app.code]
    assert codes[0] == call and len(codes) == 2, codes
    assert codes[1].startswith("iam:PutUserPolicy(UserName=alice, PolicyName=BlastShieldRevokeUserSessions"), codes
    assert "aws:TokenIssueTime" in codes[1]
    assert "Revoke the user's own issued sessions" in [h.value for h in app.subheader]
    assert (
        "revoke sessions already issued on the AWS account, the user's own" in app.checkbox(key="contain_confirm").label
    )
    drawn = _in_order(app.main)
    plan_at = next(i for i, e in enumerate(drawn) if e.type == "code" and e.value == call)
    confirm_at = next(i for i, e in enumerate(drawn) if getattr(e, "key", None) == "contain_confirm")
    assert plan_at < confirm_at
    assert any("Reversibility:" in plain(m.value) and "exact" in m.value for m in app.markdown)
    # the sessions already issued with the key are named as not stopped by it
    assert any(f"sessions alice already obtained with key {key} through sts:GetSessionToken" in plain(m.value)
               and "does not stop" in m.value for m in app.markdown)  # fmt: skip
    # what BlastShield checks before it writes, as `contain --plan` lists it: every check holds here
    checklist = "\n".join(plain(m.value) for m in app.markdown if "Before any write" in m.value)
    for check in ("target", "respond profile's account: signs in to 123456789012", "live principal", "verification"):
        assert check in checklist, checklist
    assert "would refuse" not in checklist
    assert _key_status(moto_account, key) == "Active"

    _start_run(app, alert_id)
    assert any("CONTAINED — completed" in s.value for s in app.success), texts(app)
    assert _key_status(moto_account, key) == "Inactive"  # on the account
    # the key, then (rules-v4) the user's sessions it already issued, revoked and re-read on the account
    row, revoked = table(app, "api_verified", "graph_verified", "request id").to_dict("records")
    assert (revoked["call"], revoked["api_verified"], revoked["graph_verified"]) == ("iam:PutUserPolicy", True, False)
    assert (row["route"], row["call"], row["in AWS"]) == (ROUTE, "iam:UpdateAccessKey", "applied")
    assert (row["applied on the account"], row["api_verified"], row["graph_verified"]) == (True, True, True)
    assert row["request id"] != "—"
    assert "not applied in AWS" not in texts(app)

    # the Audit page: the before-image and the request id, then a release restores the key
    app.switch_page("pages/audit.py").run()
    assert not app.exception, app.exception
    [audited] = [r for r in table(app, "route", "before-image", "request id").to_dict("records") if r["route"] == ROUTE]
    assert json.loads(audited["before-image"]) == {
        "access_key_id": key, "kind": "access_key", "status": "Active", "user": "alice",
    }  # fmt: skip
    assert audited["request id"] == row["request id"]
    assert app.selectbox(key="audit_release_route").options == [ROUTE]
    app.text_input(key="audit_release_reason").set_value("false positive").run()
    app.checkbox(key="audit_release_confirm").check().run()
    app.button(key="audit_release").click().run()
    assert not app.exception, app.exception
    assert any("on the AWS account" in plain(s.value) and alert_id in plain(s.value) for s in app.success), texts(app)
    assert _key_status(moto_account, key) == "Active"
    events = table(app, "route", "call", "status", "request id", "before-image").to_dict("records")
    releases = [r for r in events if r["route"] == ROUTE]  # beside them, the run's revocation events
    assert sorted(r["status"] for r in releases) == ["intended", "released"], events
    done = next(r for r in releases if r["status"] == "released")
    assert done["call"] == "iam:UpdateAccessKey" and done["request id"] != "—" and done["api_verified"] is True
    assert json.loads(done["before-image"])["status"] == "Active"


def test_without_a_respond_profile_the_dashboard_says_not_applied_in_aws(app, moto_account):
    key = user_with_key_to_critical_bucket(moto_account)
    alert_id = _collect_and_open(app)
    app.switch_page("pages/containment.py").run()
    assert any(
        "not applied in AWS" in w.value and "no respond profile is configured" in plain(w.value) for w in app.warning
    ), texts(app)
    _start_run(app, alert_id)
    [row] = table(app, "api_verified", "graph_verified", "request id").to_dict("records")
    assert row["in AWS"] == "not applied in AWS" and row["api_verified"] is False and row["request id"] == "—"
    assert row["applied on the account"] is False  # never an "applied" box beside "not applied in AWS"
    # its own state, amber: planned in the graph, never contained or completed
    assert not any("CONTAINED" in s.value or "completed" in s.value for s in app.success), texts(app)
    banner = [plain(w.value) for w in app.warning if "PLANNED IN THE GRAPH ONLY" in w.value]
    assert banner and "graph_only" in banner[0] and "the credentials still work on the account" in banner[0]
    # the route reads "blocked in the graph only", and its path is still open on the account
    route_note = [plain(w.value) for w in app.warning if "blocked in the graph only" in plain(w.value)]
    assert any(ROUTE in n and "**1** qualifying path(s) are open on the account" in n for n in route_note), route_note
    app.switch_page("pages/alerts.py").run()
    assert not app.exception, app.exception
    queue = table(app, "alert", "score").set_index("alert")
    assert queue.loc[alert_id, "qualifying paths"] == "1 open on the account (blocked in the graph only)"
    app.switch_page("pages/containment.py").run()
    verdict = [plain(w.value) for w in app.warning if "This run is not containment of the account" in plain(w.value)]
    assert verdict and ROUTE in verdict[0] and "the credentials still work on the account" in verdict[0]
    assert _key_status(moto_account, key) == "Active"  # the account was not touched
    app.switch_page("pages/audit.py").run()
    [audited] = table(app, "before-image", "request id").to_dict("records")
    assert audited["in AWS"].startswith("not applied in AWS") and audited["request id"] == "—"


@pytest.mark.parametrize(("email", "allowed"), [("viewer@example.com", False), ("responder@example.com", True)])
def test_only_responders_and_admins_execute_a_plan(app, moto_account, tmp_path, *, monkeypatch, capsys, email, allowed):
    """The plan is shown to every role; executing it needs the responder or admin role."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    (tmp_path / "roles.toml").write_text(ROLES)
    monkeypatch.setenv("BLASTSHIELD_ROLES_FILE", str(tmp_path / "roles.toml"))
    key = user_with_key_to_critical_bucket(moto_account)
    data = str(tmp_path / "data")
    assert main(["collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data, "--json"]) == 0
    capsys.readouterr()
    assert main(["alert", "open", ALICE, "--title", "t", "--data-dir", data, "--json"]) == 0
    opened = json.loads(capsys.readouterr().out)
    alert_id = opened.get("alert", {}).get("id") or opened.get("alert_id") or opened["id"]
    signed_in(app, email).run()
    app.switch_page("pages/containment.py").run()
    assert not app.exception, app.exception
    app.selectbox(key="contain_alert").set_value(alert_id).run()
    codes = [c.value for c in app.code]  # the key's call, then the revocation of the user's issued sessions
    assert codes[0] == f"iam:UpdateAccessKey(UserName=alice, AccessKeyId={key}, Status=Inactive)", codes
    assert codes[1].startswith("iam:PutUserPolicy(UserName=alice, PolicyName=BlastShieldRevokeUserSessions"), codes
    app.radio(key="contain_decider").set_value("rules").run()
    app.checkbox(key="contain_confirm").check().run()
    app.button(key="contain_start").click().run()
    assert not app.exception, app.exception
    if allowed:
        assert any("CONTAINED — completed" in s.value for s in app.success), texts(app)
        assert _key_status(moto_account, key) == "Inactive"
    else:
        assert "Not allowed" in texts(app) and "may not run containment" in texts(app)
        assert _key_status(moto_account, key) == "Active"  # nothing was executed


def test_collection_job_reports_each_call_per_account_and_refuses_an_unknown_profile(moto_account, tmp_path):
    """The dashboard's progress bars are fed per account and per call; a profile that is not in the
    AWS config is refused before anything is collected or written."""
    from blastshield_core import load_settings, open_services
    from blastshield_core.interfaces.aws.account import CollectionJob, account_calls

    user_with_key_to_critical_bucket(moto_account)
    settings = load_settings(environ={}, data_dir=tmp_path / "data")
    services = open_services(settings)
    try:
        before = services.store.read("list_alerts")
        refused = CollectionJob("no-such-profile", ["us-east-1"], tmp_path / "x", "tester", services.store, settings)
        assert list(refused.start().progress()) == []
        assert refused.result is None and "'no-such-profile' is not in the AWS config" in refused.error
        assert not (tmp_path / "x").exists() and services.store.read("list_alerts") == before
        job = CollectionJob("collect", ["us-east-1"], tmp_path / "c", "tester", services.store, settings)
        events = list(job.start().progress())
        done = {e["call"] for e in events if e["account"] == ACCOUNT and e["state"] == "done"}
        assert done <= set(account_calls()) and {"iam:GetAccountAuthorizationDetails", "iam:ListAccessKeys"} <= done
        assert any(e["call"] == "sts:GetCallerIdentity" and e["state"] == "done" for e in events)
        assert events[-1] == {"account": "", "call": "import", "item": "", "state": "calling"}
        assert job.result["accounts"] == [ACCOUNT] and job.result["imported"]["counts"]["nodes"]["Session"] == 1
    finally:
        services.close()


def _role_to_critical_bucket(account) -> None:
    from tests.integration.respond.test_aws_revoke import _role_to_critical_bucket as make

    make(account)


def test_revoke_role_sessions_on_the_dashboard_then_release_with_acknowledgement(app, moto_account, monkeypatch):
    """An alert on a role: the Containment page shows the revocation's plan; a containment run (the
    rules playbook, the run's confirmation and cap) revokes the sessions, verified on the account and
    never presented as containment; the release needs the acknowledgement; the Audit page lists it."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    _role_to_critical_bucket(moto_account)
    iam = moto_account.client("iam")
    open_page(app, "pages/aws.py")
    app.selectbox(key="aws_collect_profile").set_value("collect")
    app.button(key="aws_collect").click().run()
    app.switch_page("pages/alerts.py").run()
    app.text_input(key="alerts_open_entity").set_value(f"{ACCOUNT}:role:deploy")
    app.text_input(key="alerts_open_title").set_value("GuardDuty: role session used from Tor")
    app.button(key="alerts_open_submit").click().run()
    assert not app.exception, app.exception
    app.switch_page("pages/containment.py").run()
    assert not app.exception, app.exception
    [code] = [c.value for c in app.code if "iam:PutRolePolicy" in c.value]
    assert "RoleName=deploy, PolicyName=AWSRevokeOlderSessions" in code and "aws:TokenIssueTime" in code
    assert iam.list_role_policies(RoleName="deploy")["PolicyNames"] == ["read-crown"]  # the plan executes nothing
    assert app.button(key="contain_start").disabled  # the run's confirmation
    confirm = app.checkbox(key="contain_confirm")
    assert "revoke the role's active sessions on the AWS account" in confirm.label
    app.radio(key="contain_decider").set_value("rules").run()
    app.checkbox(key="contain_confirm").check().run()
    app.button(key="contain_start").click().run()
    assert not app.exception, app.exception
    assert any("NOT CONTAINED — stopped" in w.value and "revoked and verified" in w.value for w in app.warning)
    [row] = table(app, "route", "call", "api_verified").to_dict("records")
    assert (row["call"], row["applied on the account"], row["api_verified"], row["graph_verified"]) == (
        "iam:PutRolePolicy", True, True, False,
    )  # fmt: skip
    assert row["request id"] != "—"
    assert sorted(iam.list_role_policies(RoleName="deploy")["PolicyNames"]) == ["AWSRevokeOlderSessions", "read-crown"]

    app.text_input(key="revoke_release_reason").set_value("cleared").run()
    app.checkbox(key="revoke_release_confirm").check().run()
    app.button(key="revoke_release").click().run()  # without the acknowledgement: refused
    assert any("stolen ones included" in plain(e.value) for e in app.error), texts(app)
    assert "AWSRevokeOlderSessions" in iam.list_role_policies(RoleName="deploy")["PolicyNames"]
    app.checkbox(key="revoke_release_ack").check().run()
    app.button(key="revoke_release").click().run()
    assert any("iam:DeleteRolePolicy" in plain(s.value) and "verified" in s.value for s in app.success), texts(app)
    assert iam.list_role_policies(RoleName="deploy")["PolicyNames"] == ["read-crown"]

    app.switch_page("pages/audit.py").run()
    assert not app.exception, app.exception
    rows = table(app, "revocation", "status", "request id").to_dict("records")
    # newest first; the release without the acknowledgement was refused before anything was recorded or called
    assert [r["status"] for r in rows] == ["released", "release_intended", "applied", "intended"]
    assert rows[0]["request id"] != "—" and rows[2]["request id"] != "—"
    assert json.loads(next(r for r in rows if r["status"] == "intended")["before-image"])["existed"] is False


def test_a_viewer_sees_the_revocation_plan_but_cannot_execute_it(app, moto_account, tmp_path, *, monkeypatch, capsys):
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    (tmp_path / "roles.toml").write_text(ROLES)
    monkeypatch.setenv("BLASTSHIELD_ROLES_FILE", str(tmp_path / "roles.toml"))
    _role_to_critical_bucket(moto_account)
    data = str(tmp_path / "data")
    assert main(["collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data, "--json"]) == 0
    capsys.readouterr()
    assert main(["alert", "open", f"{ACCOUNT}:role:deploy", "--title", "t", "--data-dir", data, "--json"]) == 0
    opened = json.loads(capsys.readouterr().out)
    alert_id = opened.get("alert", {}).get("id") or opened.get("alert_id") or opened["id"]
    signed_in(app, "viewer@example.com").run()
    app.switch_page("pages/containment.py").run()
    app.selectbox(key="contain_alert").set_value(alert_id).run()
    assert any("AWSRevokeOlderSessions" in c.value for c in app.code)
    app.radio(key="contain_decider").set_value("rules").run()
    app.checkbox(key="contain_confirm").check().run()
    app.button(key="contain_start").click().run()
    assert "may not run containment" in texts(app)
    assert moto_account.client("iam").list_role_policies(RoleName="deploy")["PolicyNames"] == ["read-crown"]


def test_the_containment_page_shows_what_would_be_refused_and_starts_nothing(app, moto_account, monkeypatch):
    """alice deleted and recreated with the same name after the collection: the plan's checklist
    says the live principal "would refuse" (recreated since collection), the run cannot be started
    and the reason is shown, and alice's new user is untouched."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    key = user_with_key_to_critical_bucket(moto_account)
    _collect_and_open(app)
    iam = moto_account.client("iam")
    iam.delete_access_key(UserName="alice", AccessKeyId=key)
    iam.delete_user_policy(UserName="alice", PolicyName="read-crown")
    iam.delete_user(UserName="alice")
    iam.create_user(UserName="alice")
    app.switch_page("pages/containment.py").run()
    assert not app.exception, app.exception
    checklist = "\n".join(plain(m.value) for m in app.markdown if "Before any write" in m.value)
    assert "would refuse: live principal: alice was recreated since collection" in checklist, checklist
    app.checkbox(key="contain_confirm").check().run()
    assert app.button(key="contain_start").disabled
    assert any("Refused before any write" in plain(c.value) for c in app.caption), texts(app)
    assert iam.list_user_policies(UserName="alice")["PolicyNames"] == []
    assert iam.list_access_keys(UserName="alice")["AccessKeyMetadata"] == []


def test_containment_undone_on_the_account_is_shown_with_its_next_steps(
    app, moto_account, tmp_path, monkeypatch, capsys
):
    """The key is made Active again behind BlastShield's back (IAM User Guide, "Manage access keys for
    IAM users": UpdateAccessKey re-enables an Inactive key); verify-account records it, the queue
    badges the alert and the Containment page offers acknowledging and forgetting the block."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    key = user_with_key_to_critical_bucket(moto_account)
    alert_id = _collect_and_open(app)
    _start_run(app, alert_id)
    assert any("CONTAINED — completed" in s.value for s in app.success), texts(app)
    moto_account.client("iam").update_access_key(UserName="alice", AccessKeyId=key, Status="Active")
    data = str(tmp_path / "data")
    assert main(["verify-account", alert_id, "--data-dir", data, "--json"]) == 1
    seen = json.loads(capsys.readouterr().out)["checked"][0]
    assert seen["state"] == "undone"
    app.switch_page("pages/alerts.py").run()
    assert not app.exception, app.exception
    queue = table(app, "alert", "score").set_index("alert")
    assert queue.loc[alert_id, "severity"].endswith("⚠ undone on the account")
    app.switch_page("pages/containment.py").run()
    assert not app.exception, app.exception
    shown = [plain(e.value) for e in app.error if "Undone on the account, seen at" in plain(e.value)]
    assert shown and seen["seen_at"] in shown[0] and "is Active on the account" in shown[0], texts(app)
    assert "contain again" in shown[0]
    assert app.button(key="contain_forget_0").disabled  # a reason first
    app.text_input(key="contain_forget_reason_0").set_value("the owner re-enabled it").run()
    app.button(key="contain_forget_0").click().run()
    assert not app.exception, app.exception
    assert any("forgot the block" in plain(s.value) for s in app.success), texts(app)
    assert not [e for e in app.error if "Undone on the account" in plain(e.value)]
    assert _key_status(moto_account, key) == "Active"  # nothing was called on the account
