"""Opening the Containment page re-verifies on the account what BlastShield applied for the alert, in
the background and time-bounded (AppTest, moto on loopback, and a misbehaving endpoint in front of it).

AWS documentation cited: IAM User Guide, "Manage access keys for IAM users"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html): `UpdateAccessKey`
makes an Inactive key Active again, and `ListAccessKeys` reports each key's status. moto does not
enforce key status: these tests assert the status the account reports and what the page says of it.
"""

from __future__ import annotations

import json

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from blastshield_core.base.access import ALLOW_UNAUTHENTICATED_ENV
from blastshield_core.base.actor import local_actor
from blastshield_core.base.settings import load_settings
from blastshield_core.interfaces.cli import main
from blastshield_core.interfaces.service import open_services
from tests.app.test_app import ROOT, _close_cached_services, plain
from tests.app.test_app_access import ROLES, signed_in, texts
from tests.app.test_app_aws import ALICE, ROUTE, _collect_and_open, _key_status, _start_run, app
from tests.helpers import aws_fake, aws_live
from tests.helpers.aws_live import MotoAccount, user_with_key_to_critical_bucket
from tests.helpers.dashboard_token import RUN_BOUND_S, with_token

moto_server, moto_account, fake_endpoint = aws_live.moto_server, aws_live.moto_account, aws_fake.fake_endpoint
__all__ = ["app"]  # the fixture, shared with tests/app/test_app_aws.py


def _undone_events(data: str, run_id: str) -> list:
    services = open_services(load_settings(data_dir=data))
    try:
        return [e for e in services.audit.events_for_run(run_id) if e.kind == "undone_on_account"]
    finally:
        services.close()


def test_opening_the_page_finds_a_key_made_active_again_and_stops_saying_contained(
    app, moto_account, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    key = user_with_key_to_critical_bucket(moto_account)
    alert_id = _collect_and_open(app)
    _start_run(app, alert_id)
    # the run's rerun re-read the key on the account: it holds, so the page may say contained
    assert any("CONTAINED — completed" in s.value for s in app.success), texts(app)
    held = [plain(c.value) for c in app.caption if "Re-verified on the account at" in plain(c.value)]
    assert held and ROUTE in held[0] and held[0].endswith(f"({key}) holds."), held
    run_id = app.session_state["contain_last_run"]

    # behind BlastShield's back the key is made Active again; the page, opened again, reads it and says so
    moto_account.client("iam").update_access_key(UserName="alice", AccessKeyId=key, Status="Active")
    app.switch_page("pages/alerts.py").run()
    app.switch_page("pages/containment.py").run()
    assert not app.exception, app.exception
    shown = [plain(e.value) for e in app.error if "Undone on the account, seen at" in plain(e.value)]
    assert shown and f"access key {key} of alice is Active on the account, not Inactive" in shown[0], texts(app)
    assert not any("CONTAINED" in s.value for s in app.success), texts(app)
    banner = [plain(w.value) for w in app.warning if "the account does not confirm it now" in w.value]
    assert banner and f"`{ROUTE}` undone" in banner[0], texts(app)
    # audited once, by the dashboard's user, and the route is active again as the account says
    [event] = _undone_events(str(tmp_path / "data"), run_id)
    assert event.actor == local_actor() and event.route_id == ROUTE
    assert _key_status(moto_account, key) == "Active"
    capsys.readouterr()
    assert main(["routes", alert_id, "--data-dir", str(tmp_path / "data"), "--json"]) == 0
    routes = json.loads(capsys.readouterr().out)["routes"]
    assert next(r for r in routes if r["route_id"] == ROUTE)["status"] == "active"


@pytest.fixture
def slow_app(tmp_path, monkeypatch, fake_endpoint):
    for var in ("FALKORDB_URL", "BLASTSHIELD_GRAPH", "BLASTSHIELD_AUDIT_GRAPH", "GEMINI_API_KEY",
                ALLOW_UNAUTHENTICATED_ENV):  # fmt: skip
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("BLASTSHIELD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    st.cache_resource.clear()
    at = with_token(AppTest.from_file(str(ROOT / "app.py"), default_timeout=RUN_BOUND_S))
    yield at
    fake_endpoint.stop.set()  # the hung read ends, and its thread with it
    _close_cached_services()


def test_a_hung_account_is_bounded_and_never_read_as_contained(slow_app, fake_endpoint, tmp_path, capsys):
    account = MotoAccount(fake_endpoint.url, tmp_path / "aws-config")  # every call through the endpoint
    key = user_with_key_to_critical_bucket(account)
    data = str(tmp_path / "data")
    assert main(["collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data, "--json"]) == 0
    capsys.readouterr()
    assert main(["alert", "open", ALICE, "--title", "alice's key", "--data-dir", data, "--json"]) == 0
    alert_id = json.loads(capsys.readouterr().out)["alert_id"]
    app = slow_app
    app.run()
    app.switch_page("pages/containment.py").run()
    app.selectbox(key="contain_alert").set_value(alert_id).run()
    _start_run(app, alert_id)
    assert any("CONTAINED — completed" in s.value for s in app.success), texts(app)
    assert _key_status(account, key) == "Inactive"

    # the account stops answering ListAccessKeys: the page still ends, says it could not re-verify with the
    # time of the last verification, and no longer says contained
    fake_endpoint.spoil("ListAccessKeys", "hang")
    seen = fake_endpoint.seen["ListAccessKeys"]
    app.run(timeout=RUN_BOUND_S)
    assert not app.exception, app.exception
    assert fake_endpoint.seen["ListAccessKeys"] == seen + 1  # the re-verification was sent, and hangs
    stale = [plain(w.value) for w in app.warning if "Could not re-verify on the account" in plain(w.value)]
    assert stale and "no answer within 4 s" in stale[0] and "(re-verification)" in stale[0], texts(app)
    assert "last verified at 20" in stale[0]
    assert not any("CONTAINED" in s.value for s in app.success), texts(app)
    assert any("the account does not confirm it now" in w.value for w in app.warning)
    # run again while that read still hangs: not waited for again, and no second read is started
    app.run(timeout=RUN_BOUND_S)
    stale = [plain(w.value) for w in app.warning if "Could not re-verify on the account" in plain(w.value)]
    assert stale and "an earlier re-verification is still waiting for it" in stale[0], texts(app)
    assert fake_endpoint.seen["ListAccessKeys"] == seen + 1
    assert not any("CONTAINED" in s.value for s in app.success)


def test_a_viewer_opening_the_page_records_nothing(app, moto_account, tmp_path, monkeypatch, capsys):
    """What a re-verification finds undone is audited and re-synced (writes): it runs for the roles that
    may contain; a viewer is told so, and nothing is recorded."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    (tmp_path / "roles.toml").write_text(ROLES)
    monkeypatch.setenv("BLASTSHIELD_ROLES_FILE", str(tmp_path / "roles.toml"))
    key = user_with_key_to_critical_bucket(moto_account)
    data = str(tmp_path / "data")
    assert main(["collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data, "--json"]) == 0
    capsys.readouterr()
    assert main(["alert", "open", ALICE, "--title", "t", "--data-dir", data, "--json"]) == 0
    alert_id = json.loads(capsys.readouterr().out)["alert_id"]
    assert main(["contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data, "--json"]) == 0
    run_id = json.loads(capsys.readouterr().out)["run_id"]
    moto_account.client("iam").update_access_key(UserName="alice", AccessKeyId=key, Status="Active")
    signed_in(app, "viewer@example.com").run()
    app.switch_page("pages/containment.py").run()
    app.selectbox(key="contain_alert").set_value(alert_id).run()
    assert not app.exception, app.exception
    assert any("runs for responders and admins" in c.value for c in app.caption), texts(app)
    assert not [e for e in app.error if "Undone on the account" in plain(e.value)]
    services = open_services(load_settings(data_dir=data))
    try:
        assert not [e for e in services.audit.events_for_run(run_id) if e.kind == "undone_on_account"]
    finally:
        services.close()
