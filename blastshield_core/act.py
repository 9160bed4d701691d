"""The action service: the only module that writes to the scenario graph.

It knows one operation, `block_route`: mark one active session route blocked.
The check that the route is active and still on a qualifying path of the
alert happens inside the same write query, so two runs racing for one route
cannot both block it. Anything else is rejected with a reason and writes
nothing. Every result carries an `after` investigation from a fresh query.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from .model import is_valid_id
from .read import SENSITIVE, ReadTools, Unknown
from .results import ActionResult, RelView, Status
from .store import QueryFailed, Store
from .templates import template

__all__ = ["OPERATIONS", "ActionService"]

OPERATIONS = frozenset({"block_route"})


class ActionService:
    """Holds the one allowlisted write."""

    def __init__(self, store: Store, tools: ReadTools):
        self.store = store
        self.tools = tools

    def execute(
        self, operation: Any, alert_id: Any, route_id: Any, run_id: str, *, tools: ReadTools | None = None
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
        return self.block_route(alert_id, route_id, run_id, tools=tools)

    def _rejected(self, reason: str, alert_id: Any, route_id: Any, before: int | None = None) -> ActionResult:
        return ActionResult(
            operation="block_route",
            status="rejected",
            reason=reason,
            alert_id=alert_id if is_valid_id(alert_id) else None,
            route_id=route_id if is_valid_id(route_id) else None,
            paths_before=before,
        )

    def block_route(self, alert_id: Any, route_id: Any, run_id: str, *, tools: ReadTools | None = None) -> ActionResult:
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
            with self.store.write_lock():
                rows = self.store.execute_write(
                    template("block_route_on_path").text,
                    {
                        "source_id": evidence.alert.entity_id,
                        "route_id": route_id,
                        "sensitivities": SENSITIVE,
                        "run_id": run_id,
                        "at": datetime.now(UTC).isoformat(),
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

    def _why_not(self, route_id: str) -> str:
        try:
            rows = self.store.read("routes_by_ids", {"route_ids": [route_id]})
        except QueryFailed as exc:
            return f"route {route_id} was not blocked (reading why failed: {exc})"
        if not rows:
            return f"unknown route {route_id!r}"
        if rows[0]["props"].get("status") == "blocked":
            return f"route {route_id} is already blocked"
        return f"route {route_id} is not on a current qualifying path of this alert"

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
