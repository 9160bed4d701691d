"""The action service: the only module that writes to the scenario graph.

It knows one operation a run may take, `block_route`: mark one active session
route blocked, recording the run, the time and the actor on the route. The
check that the route is active and still on a qualifying path of the alert
happens inside the same write query, so two runs racing for one route cannot
both block it. Anything else is rejected with a reason and writes nothing.
Every result carries an `after` investigation from a fresh query.

The one other write is `release_route`, an audited admin action: it makes a
route BlastShield blocked active again (checked inside the write query), with
a reason, an actor and an explicit confirmation, recorded in the audit before
and after the write, and answers which alerts have qualifying paths again.

Both writes run only while the writer holds the graph's write lock, checked in
the same transaction as the write.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from ..base.actor import check_actor, local_actor
from ..graph.audit import AuditLog
from ..graph.model import is_valid_id
from ..graph.store import QueryFailed, Store
from ..graph.templates import template
from ..read.paths import SENSITIVE, Unknown
from ..read.tools import ReadTools
from ..results import ActionResult, AlertReopened, ReleaseResult, RelView, Status

__all__ = ["MAX_REASON", "OPERATIONS", "ActionService"]

OPERATIONS = frozenset({"block_route"})
MAX_REASON = 500
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class ActionService:
    """Holds the one allowlisted write."""

    def __init__(self, store: Store, tools: ReadTools):
        self.store = store
        self.tools = tools

    def execute(
        self,
        operation: Any,
        alert_id: Any,
        route_id: Any,
        run_id: str,
        *,
        tools: ReadTools | None = None,
        actor: str = "",
    ) -> ActionResult:
        """Run an operation by name; anything but `block_route` is refused. `tools` (a run's own)
        receives the traced reads of the validation and the `after` investigation."""
        if not isinstance(operation, str) or operation not in OPERATIONS:
            shown = operation[:64] if isinstance(operation, str) else type(operation).__name__
            return ActionResult(
                operation=shown,
                status="rejected",
                reason=f"operation {shown!r} is not allowlisted (only block_route)",
            )
        return self.block_route(alert_id, route_id, run_id, tools=tools, actor=actor)

    def _rejected(self, reason: str, alert_id: Any, route_id: Any, before: int | None = None) -> ActionResult:
        return ActionResult(
            operation="block_route",
            status="rejected",
            reason=reason,
            alert_id=alert_id if is_valid_id(alert_id) else None,
            route_id=route_id if is_valid_id(route_id) else None,
            paths_before=before,
        )

    def block_route(
        self, alert_id: Any, route_id: Any, run_id: str, *, tools: ReadTools | None = None, actor: str = ""
    ) -> ActionResult:
        """Block `route_id` if it is active and on a current qualifying path of `alert_id`."""
        reads = tools or self.tools
        if not is_valid_id(alert_id) or not is_valid_id(route_id):
            return self._rejected("invalid alert or route id", alert_id, route_id)
        if not is_valid_id(run_id):
            return self._rejected("invalid run id", alert_id, route_id)
        try:
            evidence = reads.evidence(alert_id)
        except Unknown as exc:
            return self._rejected(exc.message, alert_id, route_id)
        except QueryFailed as exc:
            return ActionResult(operation="block_route", status="failed", reason=str(exc), alert_id=alert_id)
        before = len(evidence.paths)
        try:
            with self.store.write_lock() as lock:
                rows = self.store.execute_locked_write(
                    lock,
                    template("block_route_on_path").text,
                    {
                        "source_id": evidence.alert.entity_id,
                        "route_id": route_id,
                        "sensitivities": SENSITIVE,
                        "run_id": run_id,
                        "at": datetime.now(UTC).isoformat(),
                        "actor": actor or local_actor(),
                    },
                )
        except QueryFailed as exc:
            return ActionResult(
                operation="block_route", status="failed", reason=str(exc), alert_id=alert_id, route_id=route_id
            )
        blocked = rows[0]["blocked"] if rows else 0
        if not blocked:
            return self._rejected(self._why_not(route_id), alert_id, route_id, before)
        # The block is written. A read-back that fails now must not hide that: the result
        # says applied, and the controller's own re-query reports the failure.
        source, rel_type, target = rows[0]["ends"][0]
        try:
            route = self.store.read("relationship_by_ends", {"source": source, "type": rel_type, "target": target})
        except QueryFailed:
            route = []
        relationship = (
            RelView(
                type=route[0]["type"],
                source=route[0]["source"],
                target=route[0]["target"],
                properties=route[0]["props"],
            )
            if route
            else None
        )
        after = reads.investigate_alert(alert_id)
        return ActionResult(
            operation="block_route",
            status="applied",
            reason=f"route {route_id} blocked",
            alert_id=alert_id,
            route_id=route_id,
            relationship=relationship,
            paths_before=before,
            after=after,
        )

    def _route_rows(self, route_id: str) -> list[dict[str, Any]]:
        """The route with this id: one BlastShield blocked is read from the blocked_by_run index (what
        a release acts on); any other needs a scan of the routes (no index holds every route id)."""
        return self.store.read("blocked_route", {"route_id": route_id}) or self.store.read(
            "routes_by_ids", {"route_ids": [route_id]}
        )

    def _why_not(self, route_id: str) -> str:
        try:
            rows = self._route_rows(route_id)
        except QueryFailed as exc:
            return f"route {route_id} was not blocked (reading why failed: {exc})"
        if not rows:
            return f"unknown route {route_id!r}"
        if rows[0]["props"].get("status") == "blocked":
            return f"route {route_id} is already blocked"
        return f"route {route_id} is not on a current qualifying path of this alert"

    def release_route(self, route_id: Any, reason: Any, *, confirm: Any = False, actor: Any = None) -> ReleaseResult:
        """Make a route BlastShield blocked active again: confirmed, with a reason and an actor,
        recorded in the audit before the write (intent) and after it (result), checked inside
        the write query, read back, and answered with the alerts whose paths come back."""
        actor = actor if actor is not None else local_actor()
        invalid = self._release_input_error(route_id, reason, confirm, actor)
        if invalid:
            return ReleaseResult(status=Status.INVALID_INPUT, message=invalid)
        try:
            rows = self._route_rows(route_id)
        except QueryFailed as exc:
            return ReleaseResult(status=Status.QUERY_FAILED, message=str(exc), route_id=route_id)
        if not rows:
            return ReleaseResult(status=Status.UNKNOWN_ROUTE, message=f"unknown route {route_id!r}", route_id=route_id)
        props = rows[0]["props"]
        if props.get("status") != "blocked" or not props.get("blocked_by_run"):
            state = "active" if props.get("status") != "blocked" else "blocked by the imported document"
            message = f"route {route_id} was not blocked by BlastShield (it is {state}); nothing was written"
            return ReleaseResult(status=Status.INVALID_INPUT, message=message, route_id=route_id)
        audit = AuditLog(self.store)
        blocked_by_run = props["blocked_by_run"]
        try:
            before = self._path_counts()
            audit.add_event(
                "release",
                actor,
                f"{actor} is releasing {route_id} (blocked by {blocked_by_run}): {reason}",
                {"status": "intended", "reason": reason, "blocked_by_run": blocked_by_run},
                graph=self.store.settings.graph,
                run_id=blocked_by_run,
                route_id=route_id,
            )
            with self.store.write_lock() as lock:
                released = self.store.execute_locked_write(lock, template("release_route").text, {"route_id": route_id})
            if not released:
                message = f"route {route_id} is no longer blocked by BlastShield (released meanwhile); nothing written"
                return ReleaseResult(status=Status.INVALID_INPUT, message=message, route_id=route_id)
            ends = {key: released[0][key] for key in ("source", "type", "target")}
            back = [r for r in self.store.read("relationship_by_ends", ends) if r["props"].get("route_id") == route_id]
            if not back or back[0]["props"].get("status") != "active":
                raise QueryFailed(f"route {route_id} did not read back as active after the release")
            after = self._path_counts()
        except QueryFailed as exc:
            return ReleaseResult(status=Status.QUERY_FAILED, message=str(exc), route_id=route_id)
        reopened = [
            AlertReopened(alert_id=alert_id, paths_before=before.get(alert_id, 0), paths_after=count)
            for alert_id, count in sorted(after.items())
            if count > before.get(alert_id, 0)
        ]
        result = ReleaseResult(
            status=Status.OK,
            message=f"route {route_id} released; {len(reopened)} alert(s) have qualifying paths again",
            route_id=route_id,
            state="released",
            blocked_by_run=blocked_by_run,
            actor=actor,
            reason=reason,
            alerts_reopened=reopened,
        )
        try:
            event = audit.add_event(
                "release",
                actor,
                f"{actor} released {route_id} (blocked by {blocked_by_run}): {reason}",
                {
                    "status": "released",
                    "reason": reason,
                    "blocked_by_run": blocked_by_run,
                    "blocked_at": released[0]["blocked_at"],
                    "blocked_by": released[0]["blocked_by"],
                    "alerts_reopened": [a.model_dump() for a in reopened],
                },
                graph=self.store.settings.graph,
                run_id=blocked_by_run,
                route_id=route_id,
            )
        except QueryFailed as exc:
            result.message += (
                f"; the result could not be recorded in the audit ({exc}); the intent to release is recorded"
            )
            return result
        result.event_id = event.event_id
        return result

    def blocked_routes(self) -> list[dict[str, str]]:
        """Every route BlastShield blocked (what `release_route` accepts): route id, run, actor, time."""
        return [
            {
                "route_id": row["route_id"],
                "blocked_by_run": row["blocked_by_run"],
                "blocked_by": row["blocked_by"],
                "blocked_at": row["blocked_at"] or "",
            }
            for row in self.store.read("blastshield_blocks")
        ]

    @staticmethod
    def _release_input_error(route_id: Any, reason: Any, confirm: Any, actor: Any) -> str:
        if not is_valid_id(route_id):
            return "invalid route id"
        if not isinstance(reason, str) or not reason.strip():
            return "a release needs a reason"
        if len(reason) > MAX_REASON or _CONTROL_RE.search(reason):
            return f"the reason must be printable text of at most {MAX_REASON} characters"
        if confirm is not True:
            return "a release needs explicit confirmation; nothing was written"
        try:
            check_actor(actor)
        except ValueError as exc:
            return str(exc)
        return ""

    def _path_counts(self) -> dict[str, int]:
        """Qualifying path count of every alert (from a fresh query)."""
        result = self.tools.list_alerts()
        if not result.status.is_answer:
            raise QueryFailed(f"listing alerts: {result.status.value}: {result.message}")
        return {a.id: a.path_count or 0 for a in result.alerts}

    @staticmethod
    def is_applied(result: ActionResult) -> bool:
        return (
            result.status == "applied"
            and result.after is not None
            and result.after.status
            in (
                Status.PATHS_FOUND,
                Status.NO_PATH,
            )
        )
