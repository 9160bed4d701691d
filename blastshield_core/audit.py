"""The audit of containment runs, persisted in FalkorDB (a graph of its own).

Each run and each of its steps is written as it happens, so the record of what
was done survives a crash or a restart; nothing about a run lives only in
process memory. Writes go only to the audit graph (`Store.execute_audit_write`).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from .results import RunAction, RunRecord, RunState, RunStep, TraceEntry
from .store import QueryFailed, Store

__all__ = ["RUN_ID_PATTERN", "AuditLog"]

RUN_ID_PATTERN = r"^run-[0-9]{8}T[0-9]{6}-[0-9a-f]{6}$"


def _dt(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


class AuditLog:
    """Runs and steps in the audit graph."""

    def __init__(self, store: Store):
        self.store = store
        self._indexed = False

    def _ensure_index(self) -> None:
        if self._indexed:
            return
        try:
            self.store.execute_audit_write("audit_run_index")
        except QueryFailed as exc:
            if "already indexed" not in str(exc).lower():
                raise
        self._indexed = True

    def create(self, run: RunRecord) -> None:
        self._ensure_index()
        self.store.execute_audit_write(
            "audit_create_run",
            {
                "run_id": run.run_id,
                "alert_id": run.alert_id,
                "decider": run.decider,
                "max_actions": run.max_actions,
                "state": run.state.value,
                "reason": run.reason,
                "started_at": run.started_at.isoformat(),
                "remaining_paths": -1 if run.remaining_paths is None else run.remaining_paths,
                "actions": "[]",
            },
        )

    def update(self, run: RunRecord) -> None:
        self.store.execute_audit_write(
            "audit_update_run",
            {
                "run_id": run.run_id,
                "state": run.state.value,
                "reason": run.reason,
                "finished_at": run.finished_at.isoformat() if run.finished_at else "",
                "remaining_paths": -1 if run.remaining_paths is None else run.remaining_paths,
                "actions": json.dumps([a.model_dump(mode="json") for a in run.actions]),
            },
        )

    def add_step(self, run_id: str, step: RunStep) -> None:
        self.store.execute_audit_write(
            "audit_add_step",
            {
                "run_id": run_id,
                "seq": step.seq,
                "kind": step.kind,
                "at": step.at.isoformat(),
                "summary": step.summary,
                "data": json.dumps(step.data, default=str),
                "trace": json.dumps([t.model_dump(mode="json") for t in step.trace]),
            },
        )

    @staticmethod
    def _run(props: dict[str, Any], steps: list[RunStep] | None = None) -> RunRecord:
        remaining = props.get("remaining_paths", -1)
        return RunRecord(
            run_id=props["run_id"],
            alert_id=props["alert_id"],
            decider=props["decider"],
            max_actions=props["max_actions"],
            state=RunState(props["state"]),
            reason=props.get("reason", ""),
            actions=[RunAction.model_validate(a) for a in json.loads(props.get("actions") or "[]")],
            remaining_paths=None if remaining is None or remaining < 0 else remaining,
            started_at=_dt(props["started_at"]),
            finished_at=_dt(props.get("finished_at")),
            steps=steps or [],
        )

    def list_runs(self, limit: int = 200) -> list[RunRecord]:
        return [self._run(row["run"]) for row in self.store.read_audit("audit_list_runs", {"limit": limit})]

    def get(self, run_id: str) -> RunRecord | None:
        rows = self.store.read_audit("audit_get_run", {"run_id": run_id})
        if not rows:
            return None
        steps = []
        for row in self.store.read_audit("audit_get_steps", {"run_id": run_id}):
            s = row["step"]
            steps.append(
                RunStep(
                    seq=s["seq"],
                    kind=s["kind"],
                    at=_dt(s["at"]),
                    summary=s["summary"],
                    data=json.loads(s.get("data") or "{}"),
                    trace=[TraceEntry.model_validate(t) for t in json.loads(s.get("trace") or "[]")],
                )
            )
        return self._run(rows[0]["run"], steps)
