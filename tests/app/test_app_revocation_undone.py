"""A session revocation undone on the account, on the Containment page (AppTest, moto on loopback):
found by the page's re-verification, the run no longer shown contained, and both next steps (revoke
again; acknowledge and forget) working; the Audit page lists both kinds of revocation.

AWS documentation cited: IAM API Reference, "DeleteRolePolicy"
(https://docs.aws.amazon.com/IAM/latest/APIReference/API_DeleteRolePolicy.html) and "DeleteUserPolicy"
(https://docs.aws.amazon.com/IAM/latest/APIReference/API_DeleteUserPolicy.html) remove an inline policy;
"GetUserPolicy" (https://docs.aws.amazon.com/IAM/latest/APIReference/API_GetUserPolicy.html) reads its
document back, or `NoSuchEntity`. IAM User Guide, "Revoking IAM role temporary security credentials"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html). moto does not
evaluate `aws:TokenIssueTime`: these tests assert the documents moto holds and what the pages say.
"""

from __future__ import annotations

import json

from blastshield_core.base.actor import local_actor
from blastshield_core.base.settings import load_settings
from blastshield_core.interfaces.cli import main
from blastshield_core.interfaces.service import open_services
from tests.app.test_app import plain, table
from tests.app.test_app_access import texts
from tests.app.test_app_aws import app
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT
from tests.integration.respond.test_aws_revocation_undone import EDITED
from tests.integration.respond.test_aws_user_sessions import ROLE_CANDIDATE, USER_CANDIDATE, _account

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures
__all__ = ["app"]  # the fixture, shared with tests/app/test_app_aws.py


def _undone_events(data: str) -> list:
    services = open_services(load_settings(data_dir=data))
    try:
        return services.audit.events_of_kind("undone_on_account", 50)
    finally:
        services.close()


def _reopen(app) -> None:
    app.switch_page("pages/alerts.py").run()
    app.switch_page("pages/containment.py").run()
    assert not app.exception, app.exception


def _undone_shown(app) -> list[str]:
    return [plain(e.value) for e in app.error if "Session revocation undone on the account" in plain(e.value)]


def test_an_undone_revocation_is_shown_with_both_next_steps(app, moto_account, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    _account(moto_account)
    data = str(tmp_path / "data")
    assert main(["collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data, "--json"]) == 0
    capsys.readouterr()
    assert main(["alert", "open", f"{ACCOUNT}:user:alice", "--title", "key leaked", "--data-dir", data, "--json"]) == 0
    alert_id = json.loads(capsys.readouterr().out)["alert_id"]
    app.run()
    app.switch_page("pages/containment.py").run()
    app.selectbox(key="contain_alert").set_value(alert_id).run()
    app.radio(key="contain_decider").set_value("rules").run()
    app.checkbox(key="contain_confirm").check().run()
    app.button(key="contain_start").click().run()
    assert not app.exception, app.exception
    # the key, alice's own sessions and ops-role's: every one re-read on the account and holding
    assert any("CONTAINED — completed" in s.value for s in app.success), texts(app)
    held = " ".join(plain(c.value) for c in app.caption if "Re-verified on the account at" in plain(c.value))
    assert f"{ROLE_CANDIDATE}` (ops-role) holds" in held and f"{USER_CANDIDATE}` (alice) holds" in held, held
    run_id = app.session_state["contain_last_run"]
    iam = moto_account.client("iam")

    # ops-role's revocation deleted behind BlastShield's back: the page, opened again, reads it and says so
    iam.delete_role_policy(RoleName="ops-role", PolicyName="AWSRevokeOlderSessions")
    _reopen(app)
    [shown] = _undone_shown(app)
    assert f"{ROLE_CANDIDATE}` (run {run_id}): inline policy AWSRevokeOlderSessions of role ops-role is absent" in (
        shown
    ), shown
    assert "work again. Next: **revoke again**, or acknowledge and forget the revocation." in shown
    [event] = _undone_events(data)
    issued_before = event.data["issued_before"]
    assert f"(no CloudTrail data imported). Sessions issued before {issued_before} work again" in shown
    assert (event.route_id, event.actor, event.run_id) == (ROLE_CANDIDATE, local_actor(), run_id)
    assert not any("CONTAINED" in s.value for s in app.success), texts(app)
    banner = [plain(w.value) for w in app.warning if "the account does not confirm it now" in w.value]
    assert banner and f"`{ROLE_CANDIDATE}` undone" in banner[0], texts(app)

    # the queue badges the alert (its paths stay cut: the key holds)
    app.switch_page("pages/alerts.py").run()
    queue = table(app, "alert", "score").set_index("alert")
    assert queue.loc[alert_id, "severity"].endswith("⚠ undone on the account")
    app.switch_page("pages/containment.py").run()
    assert not app.exception, app.exception

    # next step 1: revoke again (its own confirmation); the new revocation is re-read and holds
    assert app.button(key="contain_revoke_again_0").disabled
    app.checkbox(key="contain_revoke_again_confirm_0").check().run()
    app.button(key="contain_revoke_again_0").click().run()
    assert not app.exception, app.exception
    assert any(f"Revoked {ROLE_CANDIDATE} again: iam:PutRolePolicy" in plain(s.value) for s in app.success), texts(app)
    document = iam.get_role_policy(RoleName="ops-role", PolicyName="AWSRevokeOlderSessions")["PolicyDocument"]
    assert document["Statement"][0]["Condition"]["DateLessThan"]["aws:TokenIssueTime"] >= issued_before
    assert not _undone_shown(app)
    assert any("CONTAINED — completed" in s.value for s in app.success), texts(app)

    # alice's revocation edited: found undone; next step 2: acknowledged and forgotten, nothing called
    iam.put_user_policy(UserName="alice", PolicyName="BlastShieldRevokeUserSessions", PolicyDocument=json.dumps(EDITED))
    _reopen(app)
    [shown] = _undone_shown(app)
    assert f"{USER_CANDIDATE}` (run {run_id}): inline policy BlastShieldRevokeUserSessions of alice is a different" in (
        shown
    )
    assert len(_undone_events(data)) == 2
    assert app.button(key="contain_forget_revocation_0").disabled  # a reason first
    app.text_input(key="contain_forget_revocation_reason_0").set_value("the owner rewrote it").run()
    app.button(key="contain_forget_revocation_0").click().run()
    assert not app.exception, app.exception
    assert any("and forgot it" in plain(s.value) for s in app.success), texts(app)
    assert not _undone_shown(app)
    assert iam.get_user_policy(UserName="alice", PolicyName="BlastShieldRevokeUserSessions")["PolicyDocument"] == EDITED
    # the run's own revocation of alice's sessions no longer holds: never shown contained
    assert not any("CONTAINED" in s.value for s in app.success), texts(app)
    banner = [plain(w.value) for w in app.warning if "the account does not confirm it now" in w.value]
    assert banner and f"`{USER_CANDIDATE}` not re-read" in banner[0], texts(app)

    # the Audit page lists both kinds of revocation, with the undone ones
    app.switch_page("pages/audit.py").run()
    assert not app.exception, app.exception
    title = " ".join(plain(m.value) for m in app.markdown if "Session revocations on the AWS account" in m.value)
    assert "roles' sessions and users' own" in title and f"in force now: {ROLE_CANDIDATE}" in title, title
    rows = table(app, "revocation", "status", "request id").to_dict("records")
    assert {r["revocation"] for r in rows} == {ROLE_CANDIDATE, USER_CANDIDATE}
    assert [r["revocation"] for r in rows if r["status"] == "undone_on_account"] == [USER_CANDIDATE, ROLE_CANDIDATE]
