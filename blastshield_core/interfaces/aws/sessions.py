"""Session revocation on the account (a role's, or a user's own), audited: plan, intent with the
before-image, the call and its request id, the re-read; release only with the acknowledgement that
it re-enables the sessions the revocation stopped. Shared by the command line (`revoke-sessions`,
`release`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .account import (
    AccountRefused,
    account_plans,
    responder_for,
    revocation_undone_event,
    revocations_in_force,
    verified_record,
)

if TYPE_CHECKING:
    from ...graph.audit import AuditEvent
    from ...respond.aws.responder import AccountResponder
    from ...respond.effector import AccountEffector
    from ..service import Services
    from .view import ServicesView

__all__ = [
    "prewrite_refusals",
    "release_revocation",
    "revocation_plans",
    "revocations_in_force",
    "revoke_role_sessions",
]

MAX_ACTIONS = 10


def _revoker(services: Services) -> AccountResponder:
    try:
        return responder_for(services)
    except ValueError as exc:
        raise AccountRefused(f"{exc}; nothing was done") from None


def _revocation_candidates(services: Services, alert_id: str) -> list[dict[str, Any]]:
    """The alert's session revocations as the server derives them for a run (`get_response_candidates`),
    each as the revoker plans it; [] for an alert without any, an unknown one, or a failed read."""
    from ...read.candidates import revocation_target

    found = services.tools.get_response_candidates(alert_id)
    return [revocation_target(r) for r in found.revocations] if found.status.is_answer else []


def revocation_plans(
    services: Services, alert_id: str, effector: AccountEffector | None = None
) -> list[dict[str, Any]]:
    """The alert's server-derived revocation candidates, each with its plan under `plan` (an
    `AccountPlan`, with the account responder `effector`, else the configured one). Reads only."""
    candidates = _revocation_candidates(services, alert_id)
    if not candidates:  # most alerts: no AWS session is opened
        return []
    revoker = effector if effector is not None else _revoker(services)
    return [{**c, "plan": revoker.plan_revocation(c)} for c in candidates]


def prewrite_refusals(services: Services, alert_id: str, effector: AccountEffector) -> list[str]:
    """Why a run on this alert would be refused before its first write on an account: each
    candidate's plan that would act on an account and whose checks (or before-image) do not hold.
    [] when every such plan holds, or none acts on an account. Reads only."""
    _, plans = account_plans(services, alert_id, effector)
    on_account = [p.aws for p in plans if p.aws is not None and p.aws.applied_in_aws]
    # the revocations of the alert's own principal; a role on a user's paths is checked when it is chosen
    on_account += [
        r["plan"]
        for r in revocation_plans(services, alert_id, effector)
        if r["plan"].applied_in_aws and not r.get("on_paths")
    ]
    refused: list[str] = []
    for plan in on_account:
        why = [f"{c.name}: {c.detail}" for c in plan.refusals]
        if not why and not plan.before_image:
            why = [plan.read_error or "the account could not be read"]
        refused += [f"{plan.route_id}: {w}" for w in why]
    return refused


def revoke_role_sessions(
    services: Services, alert_id: str, candidate_id: object, *, confirm: object, max_actions: object, actor: str
) -> dict[str, Any]:
    """Revoke the sessions of the role a candidate names. Refused (nothing changed) without
    confirmation, with a cap outside 1..10, or for anything but a current server-derived candidate."""
    from ...respond.aws.revoke import revoke_with_audit

    if confirm is not True:
        raise AccountRefused("revoking a role's sessions needs explicit confirmation; nothing was done")
    if not isinstance(max_actions, int) or isinstance(max_actions, bool) or not 1 <= max_actions <= MAX_ACTIONS:
        raise AccountRefused(f"the action cap must be 1 to {MAX_ACTIONS}; nothing was done")
    candidates = {c["id"]: c for c in _revocation_candidates(services, alert_id)}
    if candidate_id not in candidates:
        raise AccountRefused(
            f"{candidate_id!r} is not among the current candidates of {alert_id!r}"
            f" ({', '.join(candidates) or 'none'}); nothing was done"
        )
    candidate = candidates[candidate_id]
    revoker = _revoker(services)
    plan = revoker.plan_revocation(candidate)
    if plan.applied_in_aws and plan.refusals:
        why = "; ".join(f"{c.name}: {c.detail}" for c in plan.refusals)
        raise AccountRefused(f"refused before any write, nothing was written: {why}")

    def remaining() -> int | None:
        after = services.tools.investigate_alert(alert_id)
        return after.path_count if after.status.is_answer else None

    return revoke_with_audit(
        revoker,
        plan,
        candidate,
        services.audit,
        graph=services.store.settings.graph,
        actor=actor,
        alert_id=alert_id,
        remaining=remaining,
    )


def _latest_revocation(services: ServicesView, candidate_id: str) -> tuple[str, dict[str, Any]] | None:
    """The newest applied revocation of this candidate not released since (from the audit): its
    event id and data."""
    for event in services.audit.events_of_kind("revoke_sessions", 1000):  # newest first, as `revocations_in_force`
        if event.route_id != candidate_id:
            continue
        if event.data.get("status") == "released":
            return None
        if event.data.get("status") == "applied":
            return event.event_id, event.data
    return None


def _forget_undone_revocation(
    services: ServicesView, candidate_id: str, reason: str, actor: str, *, undone: AuditEvent
) -> dict[str, Any]:
    """Acknowledge a revocation undone on the account and forget it: nothing is called on the account
    (it no longer holds the policy BlastShield wrote); the audit records the release as forgotten."""
    seen_at = undone.data.get("seen_at", "")
    summary = (
        f"{actor} acknowledged that the session revocation {candidate_id} was undone on the account (seen at"
        f" {seen_at}) and forgot it"
    )
    services.audit.add_event(
        "revoke_sessions",
        actor,
        f"{summary}: {reason}",
        {"status": "released", "reason": reason, "aws": True, "forgotten": True, "undone_event": undone.event_id},
        graph=services.store.settings.graph,
        run_id=undone.run_id,
        route_id=candidate_id,
    )
    return {
        "status": "ok",
        "state": "forgotten",
        "candidate_id": candidate_id,
        "actor": actor,
        "reason": reason,
        "aws": True,
        "undone_seen_at": seen_at,
        "message": summary + "; nothing was called on the account",
    }


def release_revocation(
    services: Services, candidate_id: str, reason: object, confirm: object, actor: str, *, acknowledge: object
) -> dict[str, Any] | None:
    """Restore the before-image of the newest unreleased revocation (None: there is none).
    Refused without the acknowledgement, and on drift (audited); nothing changed then. One recorded
    undone on the account (`verify-account`) is acknowledged and forgotten: nothing is called."""
    from ...respond.act import ActionService
    from ...respond.aws.responder import DriftRefused, release_needs_acknowledgement
    from ...results.account import AccountPlan

    latest = _latest_revocation(services, candidate_id)
    if latest is None:
        return None
    event_id, applied = latest
    invalid = ActionService._release_input_error(candidate_id, reason, confirm, actor)
    if invalid:
        raise AccountRefused(invalid)
    undone = revocation_undone_event(services, candidate_id, event_id)
    if undone is not None:  # the account no longer holds it: nothing to restore, the revocation is forgotten
        return _forget_undone_revocation(services, candidate_id, str(reason), actor, undone=undone)
    try:
        plan = AccountPlan.model_validate(applied["plan"])
    except (KeyError, ValueError) as exc:
        raise AccountRefused(f"the audit event {event_id} holds no readable plan ({exc}); nothing was done") from None
    needs = release_needs_acknowledgement(plan.kind)
    if acknowledge is not True:
        raise AccountRefused(f"{needs}: acknowledge it to release; nothing was done")
    revoker = _revoker(services)
    verified_record(services, revoker, candidate_id, plan, f"the audit event {event_id}")
    graph = services.store.settings.graph
    services.audit.add_event(
        "revoke_sessions",
        actor,
        f"{actor} is releasing the revocation {candidate_id}: {reason}",
        {"status": "release_intended", "reason": reason, "before_image": plan.before_image,
         "acknowledged": needs, "aws": True},
        graph=graph,
        route_id=candidate_id,
    )  # fmt: skip
    try:
        outcome = revoker.release(plan)
    except DriftRefused as exc:
        services.audit.add_event(
            "revoke_sessions",
            actor,
            f"release of {candidate_id} refused: {exc}",
            {"status": "release_refused", "reason": str(exc), "aws": True},
            graph=graph,
            route_id=candidate_id,
        )
        raise AccountRefused(f"release refused: {exc}") from None
    payload = {
        "status": "ok",
        "state": "released",
        "candidate_id": candidate_id,
        "actor": actor,
        "reason": reason,
        "acknowledged": needs,
        "before_image": plan.before_image,
        **outcome.model_dump(mode="json"),
    }
    services.audit.add_event(
        "revoke_sessions",
        actor,
        f"{actor} released the revocation {candidate_id} (request {outcome.request_id}): {reason}",
        {**payload, "status": "released", "aws": True},
        graph=graph,
        route_id=candidate_id,
    )
    return payload
