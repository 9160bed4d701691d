"""The audit of containment runs and admin actions, persisted in FalkorDB (a graph of its own).

Each run and each of its steps is written as it happens, so the record of what
was done survives a crash or a restart; nothing about a run lives only in
process memory. Imports, resets and releases are recorded as events with
their actor. Writes go only to the audit graph (`Store.execute_audit_write`).

Tamper evidence: every record (run, step, event) is appended to one hash chain.
A record's hash covers its content and the previous record's hash; a step also
names the previous record of its own run (`run_prev_hash`). The append is a
compare-and-set on the chain head inside the write query, so concurrent
writers never fork the chain. `verify` recomputes it from the first record.
"""

from __future__ import annotations

import json
import secrets
import socket
import threading
from datetime import UTC, datetime
from typing import Any

import psutil
from pydantic import BaseModel

from ..results import RouteRelease, RunAction, RunOwner, RunRecord, RunState, RunStep, TraceEntry
from .anchor import AnchorError, AnchorLog
from .audit_chain import (
    GENESIS_HASH,
    RECORD_VERSION,
    RUN_SHOWN,
    AuditVerification,
    ChainBreak,
    chain_hash,
)
from .audit_chain import content as _content
from .store import QueryFailed, Store

__all__ = [
    "GENESIS_HASH",
    "RUN_ID_PATTERN",
    "AuditEvent",
    "AuditLog",
    "AuditVerification",
    "ChainBreak",
    "owner_gone",
    "this_process",
]

RUN_ID_PATTERN = r"^run-[0-9]{8}T[0-9]{6}-[0-9a-f]{6}$"
CAS_ATTEMPTS = 64  # appends retried when another writer moved the chain head first


def _dt(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _now() -> datetime:
    return datetime.now(UTC)


def owner_gone(owner: RunOwner) -> bool:
    """True only when this host can tell the owning process is gone (or its pid was reused)."""
    if owner.host != socket.gethostname():
        return False  # another machine's process: never marked from here
    try:
        proc = psutil.Process(owner.pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return True
        return f"{proc.create_time():.3f}" != owner.started
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:
        return False


def this_process() -> RunOwner:
    """This process as a run owner."""
    proc = psutil.Process()
    return RunOwner(pid=proc.pid, host=socket.gethostname(), started=f"{proc.create_time():.3f}")


class AuditEvent(BaseModel):
    """An admin action in the audit: an import, a reset, or a route release."""

    event_id: str
    kind: str
    at: datetime
    actor: str
    graph: str
    run_id: str
    route_id: str
    summary: str
    data: dict[str, Any]


class AuditLog:
    """Runs, steps and admin events in the audit graph, on one hash chain."""

    def __init__(self, store: Store):
        self.store = store
        self.anchor = AnchorLog.for_settings(store.settings)
        self._indexed = False
        self._run_last: dict[str, tuple[int, str]] = {}  # run id -> (last step seq, last record hash)
        self._guard = threading.Lock()

    def _ensure_index(self) -> None:
        if self._indexed:
            return
        for name in ("audit_run_index", "audit_event_index"):
            try:
                self.store.execute_audit_write(name)
            except QueryFailed as exc:
                if "already indexed" not in str(exc).lower():
                    raise
        rows = self.store.execute_audit_write("audit_chain_init", {"genesis": GENESIS_HASH})
        if rows and rows[0]["seq"] > 0 and self.anchor.path is not None and not self.anchor.exists():
            # a chain from before its anchor log: anchored from its head on (trusted on first use)
            self._anchor(rows[0]["seq"], rows[0]["hash"], adopted=True)
        self._indexed = True

    def _anchor(self, seq: int, record_hash: str, *, adopted: bool = False) -> None:
        try:
            self.anchor.append(seq, record_hash, adopted=adopted)
        except AnchorError as exc:
            raise QueryFailed(f"audit record {seq} is written but not anchored: {exc}") from None

    # -- the chain ---------------------------------------------------------------
    def head(self) -> tuple[int, str]:
        """The chain head: the last record's sequence number and hash (0 and the genesis hash when empty)."""
        rows = self.store.read_audit("audit_chain_head")
        return (rows[0]["seq"], rows[0]["hash"]) if rows else (0, GENESIS_HASH)

    def _append(self, template_name: str, label: str, params: dict[str, Any]) -> str | None:
        """Append one record with a compare-and-set on the chain head; its hash, or None when
        the template's own condition (not the head) refused the write."""
        self._ensure_index()
        for _ in range(CAS_ATTEMPTS):
            prev_seq, prev_hash = self.head()
            record_hash = chain_hash(prev_hash, _content(label, params))
            full = {
                **params,
                "prev_seq": prev_seq,
                "prev_hash": prev_hash,
                "chain_seq": prev_seq + 1,
                "hash": record_hash,
            }
            if self.store.execute_audit_write(template_name, full):
                self._anchor(prev_seq + 1, record_hash)
                return record_hash
            if self.head() == (prev_seq, prev_hash):
                return None  # the head did not move: the write's own condition failed
        raise QueryFailed(f"the audit chain head kept moving; {label} not written after {CAS_ATTEMPTS} attempts")

    def _last_of_run(self, run_id: str) -> tuple[int, str]:
        with self._guard:
            known = self._run_last.get(run_id)
        if known is not None:
            return known
        rows = self.store.read_audit("audit_run_last", {"run_id": run_id})
        if not rows:
            raise QueryFailed(f"run {run_id} is not in the audit")
        row = rows[0]
        if row["seq"] is None:
            return 0, row["run_hash"] or GENESIS_HASH
        return row["seq"], row["step_hash"] or GENESIS_HASH

    # -- runs ----------------------------------------------------------------------
    def create(self, run: RunRecord) -> None:
        owner = run.owner or this_process()
        params = {
            "run_id": run.run_id,
            "alert_id": run.alert_id,
            "decider": run.decider,
            "max_actions": run.max_actions,
            "state": run.state.value,
            "reason": run.reason,
            "started_at": run.started_at.isoformat(),
            "remaining_paths": -1 if run.remaining_paths is None else run.remaining_paths,
            "actions": "[]",
            "actor": run.actor,
            "owner_pid": owner.pid,
            "owner_host": owner.host,
            "owner_started": owner.started,
            "finished_at": run.finished_at.isoformat() if run.finished_at else "",
            "v": RECORD_VERSION,
        }
        params["created"] = json.dumps({name: params[name] for name in RUN_SHOWN}, sort_keys=True)
        record_hash = self._append("audit_create_run", "Run", params)
        if record_hash is None:  # pragma: no cover - the create has no condition besides the head
            raise QueryFailed(f"run {run.run_id} was not recorded")
        with self._guard:
            self._run_last[run.run_id] = (0, record_hash)

    def update(self, run: RunRecord) -> None:
        """Change what the run shows (state, reason, actions, remaining paths, end time): a chained
        `RunUpdate` record, and the run's own copy of those fields, in one write."""
        params = {
            "run_id": run.run_id,
            "state": run.state.value,
            "reason": run.reason,
            "finished_at": run.finished_at.isoformat() if run.finished_at else "",
            "remaining_paths": -1 if run.remaining_paths is None else run.remaining_paths,
            "actions": json.dumps([a.model_dump(mode="json") for a in run.actions]),
            "v": RECORD_VERSION,
        }
        if self._append("audit_update_run", "RunUpdate", params) is None:
            raise QueryFailed(f"run {run.run_id} is not in the audit; its update was not written")
        if run.state.terminal:
            with self._guard:
                self._run_last.pop(run.run_id, None)

    def add_step(self, run_id: str, step: RunStep) -> None:
        _, run_prev = self._last_of_run(run_id)
        params = {
            "run_id": run_id,
            "seq": step.seq,
            "kind": step.kind,
            "at": step.at.isoformat(),
            "summary": step.summary,
            "data": json.dumps(step.data, default=str),
            "trace": json.dumps([t.model_dump(mode="json") for t in step.trace]),
            "run_prev_hash": run_prev,
            "v": RECORD_VERSION,
        }
        record_hash = self._append("audit_add_step", "Step", params)
        if record_hash is None:
            raise QueryFailed(f"run {run_id} is not in the audit; step {step.seq} not written")
        with self._guard:
            self._run_last[run_id] = (step.seq, record_hash)

    def end_running(self, run_id: str, state: RunState, kind: str, summary: str, data: dict[str, Any]) -> bool:
        """End a run still marked running (interrupted, abandoned) with one closing step; False if
        it was no longer running (another process ended it first)."""
        last_seq, run_prev = self._last_of_run(run_id)
        at = _now().isoformat()
        params = {
            "run_id": run_id,
            "seq": last_seq + 1,
            "kind": kind,
            "at": at,
            "summary": summary,
            "data": json.dumps({**data, "state": state.value}, default=str),
            "trace": "[]",
            "run_prev_hash": run_prev,
            "v": RECORD_VERSION,
            "state": state.value,
            "reason": summary,
        }
        ended = self._append("audit_end_running_run", "Step", params) is not None
        with self._guard:
            self._run_last.pop(run_id, None)
        return ended

    def recover_interrupted(self) -> list[str]:
        """Runs left `running` by a process that is gone become `interrupted`, with their last step
        named. A run whose owner is alive, or on another host, or unrecorded, is left alone."""
        ended = []
        for row in self.store.read_audit("audit_running_runs"):
            props = row["run"]
            if props.get("owner_pid") is None:
                continue
            owner = RunOwner(
                pid=props["owner_pid"], host=props.get("owner_host") or "", started=props.get("owner_started") or ""
            )
            if not owner_gone(owner):
                continue
            run_id = props["run_id"]
            steps = self.store.read_audit("audit_get_steps", {"run_id": run_id})
            last = steps[-1]["step"] if steps else None
            last_text = f"step {last['seq']} ({last['kind']}: {last['summary']})" if last else "no step"
            summary = (
                f"interrupted: the process running it (pid {owner.pid} on {owner.host}) is gone;"
                f" last step written: {last_text}"
            )
            data = {
                "owner_pid": owner.pid,
                "owner_host": owner.host,
                "last_step": last["seq"] if last else None,
                "last_kind": last["kind"] if last else None,
            }
            if self.end_running(run_id, RunState.INTERRUPTED, "interrupted", summary, data):
                ended.append(run_id)
        return ended

    # -- events ----------------------------------------------------------------------
    def add_event(
        self,
        kind: str,
        actor: str,
        summary: str,
        data: dict[str, Any],
        *,
        graph: str = "",
        run_id: str = "",
        route_id: str = "",
    ) -> AuditEvent:
        """Record an admin action (import, reset, release) with its actor."""
        event = AuditEvent(
            event_id=f"evt-{_now().strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(4)}",
            kind=kind,
            at=_now(),
            actor=actor,
            graph=graph,
            run_id=run_id,
            route_id=route_id,
            summary=summary,
            data=data,
        )
        params = {**event.model_dump(mode="json"), "data": json.dumps(data, default=str, sort_keys=True)}
        params["at"] = event.at.isoformat()
        params["v"] = RECORD_VERSION
        self._append("audit_add_event", "Event", params)
        return event

    @staticmethod
    def _event(props: dict[str, Any]) -> AuditEvent:
        return AuditEvent.model_validate({**props, "data": json.loads(props.get("data") or "{}")})

    def events(self, limit: int = 200) -> list[AuditEvent]:
        return [self._event(r["event"]) for r in self.store.read_audit("audit_list_events", {"limit": limit})]

    def events_of_kind(self, kind: str, limit: int = 50) -> list[AuditEvent]:
        """Events of one kind, newest first, at most `limit`."""
        rows = self.store.read_audit("audit_events_of_kind", {"kind": kind, "limit": limit})
        return [self._event(r["event"]) for r in rows]

    def events_for_run(self, run_id: str) -> list[AuditEvent]:
        """Events naming a run: releases of the routes it blocked."""
        return [self._event(r["event"]) for r in self.store.read_audit("audit_events_for_run", {"run_id": run_id})]

    # -- reading ---------------------------------------------------------------------
    @staticmethod
    def _run(props: dict[str, Any], steps: list[RunStep] | None = None) -> RunRecord:
        remaining = props.get("remaining_paths", -1)
        owner = None
        if props.get("owner_pid") is not None:
            owner = RunOwner(
                pid=props["owner_pid"], host=props.get("owner_host") or "", started=props.get("owner_started") or ""
            )
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
            actor=props.get("actor") or "",
            owner=owner,
        )

    def list_runs(self, limit: int = 200) -> list[RunRecord]:
        return [self._run(row["run"]) for row in self.store.read_audit("audit_list_runs", {"limit": limit})]

    def latest_run_id(self, alert_id: str) -> str | None:
        """The id of the alert's newest run, or None when it has none."""
        rows = self.store.read_audit("audit_latest_run_of_alert", {"alert_id": alert_id})
        return str(rows[0]["run_id"]) if rows else None

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
        run = self._run(rows[0]["run"], steps)
        run.releases = [
            RouteRelease(
                route_id=e.route_id, actor=e.actor, at=e.at, reason=e.data.get("reason", ""), event_id=e.event_id
            )
            for e in self.events_for_run(run_id)
            if e.kind == "release" and e.data.get("status") == "released"
        ]
        return run

    # -- verification ----------------------------------------------------------------
    def verify(self, expect_head: str | None = None) -> AuditVerification:
        """Recompute the chain and compare it with the anchor log (and `expect_head`, a record
        hash kept elsewhere): see `audit_verify.verify`."""
        from .audit_verify import verify

        return verify(self, expect_head)
