"""Who undid a containment action on the account, from the CloudTrail events imported.

`import-aws` keeps, in the audit, the IAM changes of the CloudTrail events it read that can undo an
action (`sources/aws/cloudtrail.py`, events `cloudtrail_import`). When `verify-account` finds an action
undone, its `undone_on_account` event names the first such change after the action was made on the
same target (the key made Active with `UpdateAccessKey`; the deny-all policy, or a session
revocation's policy, deleted or rewritten with `DeleteUserPolicy`/`DeleteRolePolicy`/`Put…Policy`):
the caller's `userIdentity.arn` and the event's time.
Without CloudTrail data imported, or none of it naming the change, it says so: it never guesses.
"""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime
from typing import TYPE_CHECKING

from ...results import RunRecord
from ...results.account import AccountPlan
from ...sources.aws.cloudtrail import CLOUDTRAIL_EVENT, IamChange, undoing_change

if TYPE_CHECKING:
    from .view import ServicesView

__all__ = ["NOT_IN_CLOUDTRAIL", "NO_CLOUDTRAIL", "action_time", "undone_by"]

NO_CLOUDTRAIL = "caller unknown (no CloudTrail data imported)"
NOT_IN_CLOUDTRAIL = "caller unknown (the CloudTrail data imported names no such change)"
IMPORTS_READ = 50  # the newest CloudTrail imports searched


def action_time(run: RunRecord, route_id: str) -> datetime:
    """When the run acted on the route (its `action` step), else when the run started."""
    times = [s.at for s in run.steps if s.kind == "action" and s.data.get("route_id") == route_id]
    return times[0] if times else run.started_at


def _policy_name(plan: AccountPlan) -> str:
    return next((c.params["PolicyName"] for c in plan.calls if "PolicyName" in c.params), "")


def undone_by(services: ServicesView, plan: AccountPlan, after: datetime) -> dict[str, str]:
    """The undone event's `caller`, `caller_event` and `caller_event_time` (the first change CloudTrail
    recorded after `after`, when BlastShield applied `plan`), or `caller` saying why it is unknown.
    Reads the audit."""
    imports = services.audit.events_of_kind(CLOUDTRAIL_EVENT, IMPORTS_READ)
    if not imports:
        return {"caller": NO_CLOUDTRAIL}
    known = {f.name for f in fields(IamChange)}
    changes = [
        IamChange(**{k: str(v) for k, v in c.items() if k in known})
        for event in imports
        for c in event.data.get("changes", [])
        if isinstance(c, dict) and known <= set(c)
    ]
    target = plan.target
    change = undoing_change(
        changes,
        kind=plan.kind.value,
        account=plan.account,
        principal=target.principal if target else "user",
        name=target.name if target else plan.user,
        access_key_id=plan.subject(),
        policy_name=_policy_name(plan),
        after=after,
    )
    if change is None:
        return {"caller": NOT_IN_CLOUDTRAIL}
    return {
        "caller": change.caller_arn or "caller unknown (the CloudTrail record names no userIdentity.arn)",
        "caller_event": change.event_name,
        "caller_event_time": change.event_time,
    }
