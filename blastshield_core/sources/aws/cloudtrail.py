"""CloudTrail events: who changed, on the account, what BlastShield had set there.

`import-aws` reads CloudTrail events in either form AWS gives them: `aws cloudtrail lookup-events`
output (`{"Events": [{"EventName", "EventTime", "CloudTrailEvent": "<the record as JSON text>"}]}`) or a
CloudTrail log file (`{"Records": [record, ...]}`). Of the records it keeps only the IAM calls that
undo a containment action (`UNDOING`): `UpdateAccessKey` (a key made Active again), `DeleteUserPolicy`,
`DeleteRolePolicy`, and `PutUserPolicy`/`PutRolePolicy` (the deny policy rewritten), each with the
caller's `userIdentity.arn`, the event's time and the call's parameters. A call that failed (it has an
`errorCode`) changed nothing and is not kept. The import records what it kept in the audit (an event
`cloudtrail_import`), and an `undone_on_account` event names the caller from it
(`interfaces/aws/verify.py`).

Record fields as the CloudTrail User Guide documents them: "CloudTrail record contents"
(https://docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-event-reference-record-contents.html).
Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "CLOUDTRAIL_EVENT",
    "MAX_KEPT",
    "UNDOING",
    "IamChange",
    "iam_changes",
    "undoing_change",
]

CLOUDTRAIL_EVENT = "cloudtrail_import"  # the audit event an import records the kept changes in
UNDOING = frozenset({"UpdateAccessKey", "DeleteUserPolicy", "DeleteRolePolicy", "PutUserPolicy", "PutRolePolicy"})
MAX_KEPT = 5000  # changes kept from one import (the newest); more are counted, not kept


@dataclass(frozen=True)
class IamChange:
    """One IAM call that can undo a containment action, as CloudTrail recorded it."""

    event_name: str
    event_time: str  # ISO 8601, UTC
    caller_arn: str  # userIdentity.arn ('' when the record has none)
    account: str  # recipientAccountId
    user_name: str = ""
    role_name: str = ""
    access_key_id: str = ""
    status: str = ""  # UpdateAccessKey's status
    policy_name: str = ""
    event_id: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    @property
    def at(self) -> datetime:
        return _time(self.event_time) or datetime.min.replace(tzinfo=UTC)


def _time(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, UTC)
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _records(data: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    for record in data.get("Records") or []:
        if isinstance(record, dict):
            yield record
    for event in data.get("Events") or []:
        if not isinstance(event, dict):
            continue
        text = event.get("CloudTrailEvent")
        try:
            record = json.loads(text) if isinstance(text, str) else None
        except ValueError:
            record = None
        if isinstance(record, dict):
            yield {**record, "eventTime": record.get("eventTime") or event.get("EventTime")}


def _change(record: Mapping[str, Any]) -> IamChange | None:
    name = record.get("eventName")
    if name not in UNDOING or record.get("errorCode"):
        return None
    when = _time(record.get("eventTime"))
    if when is None:
        return None
    params, identity = record.get("requestParameters"), record.get("userIdentity")
    params = params if isinstance(params, dict) else {}
    identity = identity if isinstance(identity, dict) else {}
    return IamChange(
        event_name=str(name),
        event_time=when.astimezone(UTC).isoformat(timespec="seconds"),
        caller_arn=str(identity.get("arn") or ""),
        account=str(record.get("recipientAccountId") or identity.get("accountId") or ""),
        user_name=str(params.get("userName") or ""),
        role_name=str(params.get("roleName") or ""),
        access_key_id=str(params.get("accessKeyId") or ""),
        status=str(params.get("status") or ""),
        policy_name=str(params.get("policyName") or ""),
        event_id=str(record.get("eventID") or ""),
    )


def iam_changes(files: Iterable[Mapping[str, Any]]) -> tuple[list[IamChange], int]:
    """The undoing IAM changes of CloudTrail files' data, oldest first (at most MAX_KEPT, the newest),
    and how many records were read."""
    found: dict[tuple[str, str, str], IamChange] = {}
    read = 0
    for data in files:
        for record in _records(data):
            read += 1
            change = _change(record)
            if change is not None:  # the same event in two files is one change
                found[(change.event_id, change.event_time, change.event_name)] = change
    ordered = sorted(found.values(), key=lambda c: (c.at, c.event_id))
    return ordered[-MAX_KEPT:], read


def undoing_change(
    changes: Sequence[IamChange],
    *,
    kind: str,
    account: str,
    principal: str,
    name: str,
    access_key_id: str = "",
    policy_name: str = "",
    after: datetime,
) -> IamChange | None:
    """The first change after `after` that undid an action of `kind` ("deactivate_access_key": the key
    made Active; an inline policy kind: `policy_name` deleted or rewritten on the user or role `name`)."""
    for change in sorted(changes, key=lambda c: c.at):
        if change.at <= after or (change.account and account and change.account != account):
            continue
        if kind == "deactivate_access_key":
            if (
                change.event_name == "UpdateAccessKey"
                and change.status == "Active"
                and change.access_key_id == access_key_id
                and (not change.user_name or change.user_name == name)
            ):
                return change
            continue
        events = ("DeleteUserPolicy", "PutUserPolicy") if principal == "user" else ("DeleteRolePolicy", "PutRolePolicy")
        held = change.user_name if principal == "user" else change.role_name
        if change.event_name in events and held == name and change.policy_name == policy_name:
            return change
    return None
