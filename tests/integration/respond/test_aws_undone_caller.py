"""Who undid a containment action: the caller CloudTrail recorded, named in the `undone_on_account` event.

moto records no CloudTrail events for IAM calls, so the test writes the CloudTrail log file AWS would
deliver, in the documented record format, and imports it with the collection. AWS documentation cited:
CloudTrail User Guide, "CloudTrail record contents"
(https://docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-event-reference-record-contents.html):
`eventTime`, `eventName`, `userIdentity.arn`, `requestParameters`, `recipientAccountId`, and `errorCode`
on a call that failed; IAM API Reference, "UpdateAccessKey" (`UserName`, `AccessKeyId`, `Status`) and
"DeleteUserPolicy" (`UserName`, `PolicyName`). The key's status and the user's policies are what moto
reports; moto does not enforce them.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from blastshield_core.base.settings import load_settings
from blastshield_core.interfaces.cli import main
from blastshield_core.interfaces.service import open_services
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT, user_with_key_to_critical_bucket
from tests.integration.respond.test_aws_undone import ROUTE, _cli, _contained, route_row

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures

MALLORY = f"arn:aws:sts::{ACCOUNT}:assumed-role/admin/mallory"


def _record(name: str, when: datetime, caller: str, params: dict, **extra) -> dict:
    return {
        "eventVersion": "1.08",
        "userIdentity": {"type": "AssumedRole", "arn": caller, "accountId": ACCOUNT},
        "eventTime": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "eventSource": "iam.amazonaws.com",
        "eventName": name,
        "requestParameters": params,
        "eventID": f"{name}-{when.timestamp():.0f}-{caller.rsplit('/', 1)[-1]}",
        "recipientAccountId": ACCOUNT,
        **extra,
    }


def _undone_event(data: str, run_id: str):
    services = open_services(load_settings(data_dir=data))
    try:
        [event] = [e for e in services.audit.events_for_run(run_id) if e.kind == "undone_on_account"]
    finally:
        services.close()
    return event


def test_the_caller_who_reenabled_the_key_is_named_from_cloudtrail(moto_account, tmp_path, capsys, monkeypatch):
    key, data, alert_id, run = _contained(moto_account, tmp_path, capsys, monkeypatch)
    acted = datetime.now(UTC)
    moto_account.client("iam").update_access_key(UserName="alice", AccessKeyId=key, Status="Active")
    later = acted + timedelta(seconds=30)
    records = [
        # before the action: the key was Active then anyway, this undid nothing
        _record("UpdateAccessKey", acted - timedelta(days=1), f"arn:aws:iam::{ACCOUNT}:user/early",
                {"userName": "alice", "accessKeyId": key, "status": "Active"}),
        # after it, but refused: changed nothing
        _record("UpdateAccessKey", later - timedelta(seconds=5), f"arn:aws:iam::{ACCOUNT}:user/eve",
                {"userName": "alice", "accessKeyId": key, "status": "Active"}, errorCode="AccessDenied"),
        # another key, and BlastShield's own deactivation
        _record("UpdateAccessKey", later - timedelta(seconds=3), f"arn:aws:iam::{ACCOUNT}:user/other",
                {"userName": "alice", "accessKeyId": "AKIAOTHERKEY00000000", "status": "Active"}),
        _record("UpdateAccessKey", acted, f"arn:aws:sts::{ACCOUNT}:assumed-role/respond/blastshield",
                {"userName": "alice", "accessKeyId": key, "status": "Inactive"}),
        _record("UpdateAccessKey", later, MALLORY, {"userName": "alice", "accessKeyId": key, "status": "Active"}),
        _record("UpdateAccessKey", later + timedelta(minutes=5), f"arn:aws:iam::{ACCOUNT}:user/second",
                {"userName": "alice", "accessKeyId": key, "status": "Active"}),
    ]  # fmt: skip
    trail = tmp_path / "cloudtrail-log.json"
    trail.write_text(json.dumps({"Records": records}))
    code, imported = _cli(capsys, "import-aws", str(tmp_path / "c"), str(trail), "--data-dir", data)
    assert code == 0, imported
    assert [f["kind"] for f in imported["files"] if f["file"].endswith("cloudtrail-log.json")] == ["cloudtrail"]

    code, seen = _cli(capsys, "verify-account", alert_id, "--data-dir", data)
    assert code == 1, seen
    row = route_row(seen)
    assert (row["route_id"], row["state"]) == (ROUTE, "undone")
    # the first successful call after the action that made the key Active again
    assert (row["caller"], row["caller_event"]) == (MALLORY, "UpdateAccessKey")
    assert row["caller_event_time"] == later.replace(microsecond=0).isoformat()
    event = _undone_event(data, run["run_id"])
    assert (event.data["caller"], event.data["caller_event_time"]) == (MALLORY, row["caller_event_time"])
    assert f"by {MALLORY} (UpdateAccessKey at {row['caller_event_time']})" in event.summary
    assert main(["verify-account", alert_id, "--data-dir", data]) == 1
    assert f"; by {MALLORY} (UpdateAccessKey at " in capsys.readouterr().out


def test_without_cloudtrail_the_caller_is_unknown_and_said_so(moto_account, tmp_path, capsys, monkeypatch):
    key, data, alert_id, run = _contained(moto_account, tmp_path, capsys, monkeypatch)
    moto_account.client("iam").update_access_key(UserName="alice", AccessKeyId=key, Status="Active")
    code, seen = _cli(capsys, "verify-account", alert_id, "--data-dir", data)
    assert code == 1 and route_row(seen)["caller"] == "caller unknown (no CloudTrail data imported)"
    assert "caller_event" not in route_row(seen)
    event = _undone_event(data, run["run_id"])
    assert event.data["caller"] == "caller unknown (no CloudTrail data imported)"


def test_the_caller_who_deleted_the_deny_policy_is_named_from_lookup_events(
    moto_account, tmp_path, capsys, monkeypatch
):
    """carol's console password is contained with the deny-all inline policy; mallory deletes it. The
    CloudTrail events come as `aws cloudtrail lookup-events` prints them (each record as JSON text)."""
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    iam = moto_account.client("iam")
    user_with_key_to_critical_bucket(moto_account, user="carol")
    iam.create_login_profile(UserName="carol", Password="Correct-Horse-9!")
    data, out = str(tmp_path / "db"), str(tmp_path / "c")
    assert _cli(capsys, "collect-aws", "--out", out, "--import", "--data-dir", data)[0] == 0
    _, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:carol", "--title", "t", "--data-dir", data)
    code, run = _cli(capsys, "contain", opened["alert_id"], "--decider", "rules", "--max-actions", "5", "--confirm",
                     "--data-dir", data)  # fmt: skip
    assert (code, run["state"]) == (0, "completed"), run
    iam.delete_user_policy(UserName="carol", PolicyName="BlastShieldDenyAll")
    when = datetime.now(UTC) + timedelta(seconds=10)
    deleted = _record("DeleteUserPolicy", when, MALLORY, {"userName": "carol", "policyName": "BlastShieldDenyAll"})
    other = _record("DeleteUserPolicy", when, MALLORY, {"userName": "carol", "policyName": "read-crown"})
    events = [
        {"EventId": r["eventID"], "EventName": r["eventName"], "EventTime": r["eventTime"],
         "Username": "mallory", "CloudTrailEvent": json.dumps(r)}
        for r in (other, deleted)
    ]  # fmt: skip
    trail = tmp_path / "lookup-events.json"
    trail.write_text(json.dumps({"Events": events}))
    assert _cli(capsys, "import-aws", out, str(trail), "--data-dir", data)[0] == 0
    code, seen = _cli(capsys, "verify-account", opened["alert_id"], "--data-dir", data)
    assert code == 1, seen
    [row] = [r for r in seen["checked"] if r["state"] == "undone"]
    assert row["kind"] == "deny_all_inline_policy"
    assert (row["caller"], row["caller_event"]) == (MALLORY, "DeleteUserPolicy")
    assert row["caller_event_time"] == when.replace(microsecond=0).isoformat()
