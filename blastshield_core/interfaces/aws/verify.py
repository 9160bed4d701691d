"""Noticing containment undone on the account: what BlastShield applied, compared with what the
account holds now.

`verify-account [ALERT|--all]` re-reads only the objects BlastShield changed (one read each, through
the read profile: `AccountAction.still_holds`) for every account action a run applied and no release
restored, and every session revocation applied and not released (a role's or a user's own, in a run
or by `revoke-sessions`). An action the account no longer holds (a key made Active again, the deny-all
policy or a revocation's policy deleted or edited) gives an audited `undone_on_account` event naming
what changed and when it was seen; for a route action the principal's slice is then re-collected and
re-synced, so the route reads as the account says (active), and the alerts whose qualifying paths came
back are named (a revocation cuts no path: its sessions issued before it work again). An action
already reported undone is not reported again. An object that cannot be read is said so, never read
as holding.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ...results.account import AccountOutcome, AccountPlan
from .account import (
    UNDONE,
    UNDONE_READ,
    _account_action,
    account_releasable,
    responder_for,
    revocation_undone_event,
    revocations_in_force,
    undone_event,
)
from .callers import action_time, undone_by

CALLER_FIELDS = ("caller", "caller_event", "caller_event_time")  # who undid it, from CloudTrail (`callers.py`)

if TYPE_CHECKING:
    from ...graph.audit import AuditEvent
    from ...respond.aws.responder import AccountResponder
    from .view import ServicesView

__all__ = ["UNDONE", "undone_event", "undone_revocations", "undone_standing", "verify_account"]


def _runs_of(services: ServicesView, alert_id: str | None) -> set[str] | None:
    if alert_id is None:
        return None
    return {r.run_id for r in services.audit.list_runs() if r.alert_id == alert_id}


def verify_account(services: ServicesView, alert_id: str | None, actor: str) -> dict[str, Any]:
    """Compare every applied, unreleased account action (of `alert_id`'s runs, or all) with the
    account now. Raises ValueError for a profile that is not in the AWS config."""
    effector = responder_for(services)
    runs = _runs_of(services, alert_id)
    checked: list[dict[str, Any]] = []
    for entry in account_releasable(services):
        if runs is not None and entry["run_id"] not in runs:
            continue
        found = _account_action(services, entry["route_id"])
        if found is None:
            continue
        run, aws = found
        holds, detail = effector.still_holds(aws.plan)
        seen_at = datetime.now(UTC).isoformat(timespec="seconds")
        row: dict[str, Any] = {
            "route_id": entry["route_id"],
            "run_id": run.run_id,
            "alert_id": run.alert_id,
            "kind": aws.plan.kind.value,
            "subject": aws.plan.subject(),
            "state": "holds" if holds else "undone" if holds is False else "unreadable",
            "detail": detail,
            "seen_at": seen_at,
        }
        if holds is False:
            earlier = undone_event(services, run.run_id, entry["route_id"])
            if earlier is not None:
                row.update(seen_at=earlier.data.get("seen_at", ""), already_reported=True)
                row.update({k: earlier.data[k] for k in CALLER_FIELDS if k in earlier.data})
            else:
                row.update(undone_by(services, aws.plan, action_time(run, entry["route_id"])))
                row.update(_report_undone(services, effector, aws, row, actor))
        checked.append(row)
    checked += _revocation_rows(services, effector, alert_id, actor)
    undone = [r for r in checked if r["state"] == "undone"]
    unreadable = [r for r in checked if r["state"] == "unreadable"]
    return {
        "status": "ok",
        "alert_id": alert_id,
        "checked": checked,
        "undone": len(undone),
        "unreadable": len(unreadable),
        "message": f"{len(checked)} account action(s) re-read: {len(undone)} undone on the account,"
        f" {len(unreadable)} could not be read",
    }


def _revocation_rows(
    services: ServicesView, effector: AccountResponder, alert_id: str | None, actor: str
) -> list[dict[str, Any]]:
    """Every applied, unreleased session revocation (of `alert_id`, or all), re-read on the account: its
    policy there with the exact document BlastShield wrote holds; deleted or edited, it is undone
    (audited once per applied revocation); unreadable, it is said so."""
    from ...respond.aws.actions import revoked_before

    rows: list[dict[str, Any]] = []
    for entry in revocations_in_force(services):
        if alert_id is not None and entry.get("alert_id") != alert_id:
            continue
        seen_at = datetime.now(UTC).isoformat(timespec="seconds")
        row: dict[str, Any] = {
            "route_id": entry["candidate_id"],
            "run_id": str(entry.get("run_id") or ""),
            "alert_id": entry.get("alert_id", ""),
            "revocation": True,
            "applied_event": entry["event_id"],
            "applied_at": entry["applied_at"],
            "seen_at": seen_at,
        }
        try:
            plan = AccountPlan.model_validate(entry["plan"])
        except (KeyError, ValueError) as exc:
            rows.append({**row, "kind": "", "subject": "", "state": "unreadable",
                         "detail": f"the audit event {entry['event_id']} holds no readable plan ({exc})"})  # fmt: skip
            continue
        holds, detail = effector.still_holds(plan)
        row.update(
            kind=plan.kind.value,
            subject=plan.subject(),
            issued_before=revoked_before(plan),
            state="holds" if holds else "undone" if holds is False else "unreadable",
            detail=detail,
        )
        if holds is False:
            earlier = revocation_undone_event(services, row["route_id"], entry["event_id"])
            if earlier is not None:
                row.update(seen_at=earlier.data.get("seen_at", ""), already_reported=True)
                row.update({k: earlier.data[k] for k in CALLER_FIELDS if k in earlier.data})
            else:
                row.update(undone_by(services, plan, datetime.fromisoformat(entry["applied_at"])))
                row["event_id"] = _report_undone_revocation(services, plan, row, actor)
            row["alerts_reopened"] = []  # a revocation cuts no path: no path comes back with it
        rows.append(row)
    return rows


def _caller_said(row: dict[str, Any]) -> str:
    return f"; by {row['caller']}" + (
        f" ({row['caller_event']} at {row['caller_event_time']})" if "caller_event" in row else ""
    )


def _report_undone_revocation(services: ServicesView, plan: AccountPlan, row: dict[str, Any], actor: str) -> str:
    """Audit a session revocation found undone (once per applied revocation); its event id."""
    again = f"; sessions issued before {row['issued_before']} work again" if row["issued_before"] else ""
    event = services.audit.add_event(
        UNDONE,
        actor,
        f"session revocation {row['route_id']} undone on the account, seen at {row['seen_at']}: {row['detail']}"
        f"{again}{_caller_said(row)}",
        {
            "status": UNDONE,
            "what_changed": row["detail"],
            "seen_at": row["seen_at"],
            **{k: row[k] for k in CALLER_FIELDS if k in row},
            "kind": plan.kind.value,
            "call": plan.calls[0].text() if plan.calls else "",
            "aws": True,
            "revocation": True,
            "applied_event": row["applied_event"],
            "alert_id": row["alert_id"],
            "issued_before": row["issued_before"],
        },
        graph=services.store.settings.graph,
        run_id=row["run_id"],
        route_id=row["route_id"],
    )
    return event.event_id


def undone_revocations(services: ServicesView) -> list[dict[str, Any]]:
    """The session revocations recorded undone on the account and not revoked again nor forgotten:
    revocation, run, alert, what changed, when it was seen, the time before which sessions work again.
    Reads the audit."""
    in_force = revocations_in_force(services)
    if not in_force:  # most audits: no second read
        return []
    undone: dict[tuple[str, Any], AuditEvent] = {}  # one read of the undone events, not one per revocation
    for e in services.audit.events_of_kind(UNDONE, UNDONE_READ):  # newest first: the newest is kept
        undone.setdefault((e.route_id, e.data.get("applied_event")), e)
    out: list[dict[str, Any]] = []
    for entry in in_force:
        event = undone.get((entry["candidate_id"], entry["event_id"]))
        if event is not None:
            out.append(
                {
                    "route_id": entry["candidate_id"],
                    "run_id": event.run_id,
                    "alert_id": entry.get("alert_id", ""),
                    "revocation": True,
                    "what_changed": event.data.get("what_changed", ""),
                    "seen_at": event.data.get("seen_at", ""),
                    "issued_before": event.data.get("issued_before", ""),
                    **{k: event.data[k] for k in CALLER_FIELDS if k in event.data},
                }
            )
    return out


def _report_undone(
    services: ServicesView, effector: AccountResponder, aws: AccountOutcome, row: dict[str, Any], actor: str
) -> dict[str, Any]:
    """Audit the undone action, re-sync the principal's slice, and name the alerts whose paths came back."""
    before = services.actions._path_counts()
    event = services.audit.add_event(
        UNDONE,
        actor,
        f"{row['route_id']} (run {row['run_id']}) undone on the account, seen at {row['seen_at']}: {row['detail']}"
        f"{_caller_said(row)}",
        {
            "status": UNDONE,
            "what_changed": row["detail"],
            "seen_at": row["seen_at"],
            **{k: row[k] for k in CALLER_FIELDS if k in row},
            "kind": aws.plan.kind.value,
            "call": aws.call.text() if aws.call else "",
            "aws": True,
        },
        graph=services.store.settings.graph,
        run_id=row["run_id"],
        route_id=row["route_id"],
    )
    why = effector.resync(aws.plan)
    after = services.actions._path_counts()
    reopened = [
        {"alert_id": a, "paths_before": before.get(a, 0), "paths_after": n}
        for a, n in sorted(after.items())
        if n > before.get(a, 0)
    ]
    return {"event_id": event.event_id, "resync": why or "re-synced", "alerts_reopened": reopened}


def undone_standing(services: ServicesView) -> list[dict[str, Any]]:
    """The account actions recorded undone on the account and not yet contained again or forgotten
    (the newest unreleased action on each route is the undone one): route, run, alert, what changed,
    when it was seen. Reads the audit only."""
    out: list[dict[str, Any]] = []
    for entry in account_releasable(services):
        found = _account_action(services, entry["route_id"])
        if found is None:
            continue
        run, _aws = found
        event = undone_event(services, run.run_id, entry["route_id"])
        if event is not None:
            out.append(
                {
                    "route_id": entry["route_id"],
                    "run_id": run.run_id,
                    "alert_id": run.alert_id,
                    "what_changed": event.data.get("what_changed", ""),
                    "seen_at": event.data.get("seen_at", ""),
                    **{k: event.data[k] for k in CALLER_FIELDS if k in event.data},
                }
            )
    return out + undone_revocations(services)
