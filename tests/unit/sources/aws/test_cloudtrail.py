"""Reading CloudTrail events for the IAM changes that undo a containment action (sources/aws/cloudtrail.py).

AWS documentation cited: CloudTrail User Guide, "CloudTrail record contents"
(https://docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-event-reference-record-contents.html):
`eventTime` (UTC), `eventName`, `userIdentity.arn`, `requestParameters`, `recipientAccountId`, `errorCode`
when the call failed; AWS CLI Command Reference, "cloudtrail lookup-events" (`Events`, each with
`EventName`, `EventTime` and the record as JSON text in `CloudTrailEvent`).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from blastshield_core.sources.aws.cloudtrail import MAX_KEPT, iam_changes, undoing_change
from blastshield_core.sources.aws.exports import EXPORT

ACCOUNT = "123456789012"


def _record(name: str, time: str, who: str, **params) -> dict:
    return {
        "eventTime": time,
        "eventName": name,
        "eventSource": "iam.amazonaws.com",
        "userIdentity": {"arn": f"arn:aws:iam::{ACCOUNT}:user/{who}", "accountId": ACCOUNT},
        "requestParameters": params,
        "recipientAccountId": ACCOUNT,
        "eventID": f"{name}-{time}-{who}",
    }


def test_both_forms_are_recognised_and_read_alike():
    rec = _record(
        "UpdateAccessKey", "2026-12-01T10:00:00Z", "bob", userName="alice", accessKeyId="AKIA1", status="Active"
    )
    log = {"Records": [rec, _record("GetUser", "2026-12-01T10:00:01Z", "bob", userName="alice")]}
    lookup = {"Events": [{"EventName": "UpdateAccessKey", "EventTime": 1764583200, "CloudTrailEvent": json.dumps(rec)}]}
    recognise = EXPORT["cloudtrail"].recognise
    assert recognise is not None and recognise(log) and recognise(lookup)
    assert not recognise({"Records": [{"name": "x"}]}) and not recognise({"Events": [{"Id": 1}]})
    (from_log, read_log), (from_lookup, read_lookup) = iam_changes([log]), iam_changes([lookup])
    assert (read_log, read_lookup) == (2, 1)  # GetUser is read, not kept: it changes nothing
    assert from_log == from_lookup
    [change] = from_log
    assert (change.caller_arn, change.event_time, change.access_key_id, change.status, change.account) == (
        f"arn:aws:iam::{ACCOUNT}:user/bob", "2026-12-01T10:00:00+00:00", "AKIA1", "Active", ACCOUNT
    )  # fmt: skip
    # the same event in two files is one change
    assert iam_changes([log, lookup])[0] == from_log


def test_a_failed_call_or_a_record_without_time_is_not_kept():
    failed = {**_record("DeleteUserPolicy", "2026-12-01T10:00:00Z", "eve", userName="carol", policyName="P"),
              "errorCode": "AccessDenied"}  # fmt: skip
    timeless = {**_record("DeleteUserPolicy", "2026-12-01T10:00:00Z", "eve", userName="carol", policyName="P"),
                "eventTime": "yesterday"}  # fmt: skip
    assert iam_changes([{"Records": [failed, timeless, "not a record"]}]) == ([], 2)  # two records read


def test_the_first_change_after_the_action_on_that_target_is_the_one_that_undid_it():
    records = [
        _record("UpdateAccessKey", "2026-12-01T09:00:00Z", "early", userName="alice", accessKeyId="AKIA1", status="Active"),
        _record("UpdateAccessKey", "2026-12-01T10:01:00Z", "other", userName="alice", accessKeyId="AKIA2", status="Active"),
        _record("UpdateAccessKey", "2026-12-01T10:02:00Z", "bs", userName="alice", accessKeyId="AKIA1", status="Inactive"),
        _record("UpdateAccessKey", "2026-12-01T10:05:00Z", "first", userName="alice", accessKeyId="AKIA1", status="Active"),
        _record("UpdateAccessKey", "2026-12-01T10:09:00Z", "second", userName="alice", accessKeyId="AKIA1", status="Active"),
        _record("DeleteRolePolicy", "2026-12-01T10:03:00Z", "r", roleName="deploy", policyName="BlastShieldDenyAll"),
        _record("PutUserPolicy", "2026-12-01T10:04:00Z", "u", userName="carol", policyName="BlastShieldDenyAll"),
    ]  # fmt: skip
    changes, _ = iam_changes([{"Records": records}])
    after = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    key = undoing_change(changes, kind="deactivate_access_key", account=ACCOUNT, principal="user", name="alice",
                         access_key_id="AKIA1", after=after)  # fmt: skip
    assert key is not None and key.caller_arn.endswith("user/first")
    rewritten = undoing_change(changes, kind="deny_all_inline_policy", account=ACCOUNT, principal="user",
                               name="carol", policy_name="BlastShieldDenyAll", after=after)  # fmt: skip
    assert rewritten is not None and rewritten.event_name == "PutUserPolicy"
    role = undoing_change(changes, kind="deny_all_inline_policy", account=ACCOUNT, principal="role", name="deploy",
                          policy_name="BlastShieldDenyAll", after=after)  # fmt: skip
    assert role is not None and role.event_name == "DeleteRolePolicy"
    # another account, or nothing after the action: no caller is guessed
    assert undoing_change(changes, kind="deactivate_access_key", account="210987654321", principal="user",
                          name="alice", access_key_id="AKIA1", after=after) is None  # fmt: skip
    assert undoing_change(changes, kind="deactivate_access_key", account=ACCOUNT, principal="user", name="alice",
                          access_key_id="AKIA1", after=datetime(2026, 12, 2, tzinfo=UTC)) is None  # fmt: skip


def test_one_import_keeps_the_newest_changes_only():
    records = [
        _record("UpdateAccessKey", f"2026-12-01T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z", f"u{i}",
                userName="alice", accessKeyId="AKIA1", status="Active")
        for i in range(MAX_KEPT + 10)
    ]  # fmt: skip
    kept, read = iam_changes([{"Records": records}])
    assert read == MAX_KEPT + 10 and len(kept) == MAX_KEPT
    assert kept[0].caller_arn.endswith("/u10") and kept[-1].caller_arn.endswith(f"/u{MAX_KEPT + 9}")
