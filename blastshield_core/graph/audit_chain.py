"""The audit's hash chain: what each kind and version of record hashes, and how.

Every record (Run, Step, Event, RunUpdate) is appended to one chain: its hash is sha256 over the
previous record's hash and its content as canonical JSON. The fields a record's content holds
depend on its kind and version (`v`, itself hashed from version 2 on), so a chain written by an
earlier version keeps verifying while newer records hash more.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, Field

__all__ = [
    "CHAIN_PAGE",
    "GENESIS_HASH",
    "RECORD_KINDS",
    "RECORD_VERSION",
    "RUN_SHOWN",
    "STATE_STEPS",
    "AuditVerification",
    "ChainBreak",
    "chain_hash",
    "content",
    "hashed_fields",
    "record_id",
    "record_version",
]

GENESIS_HASH = "0" * 64
CHAIN_PAGE = 5000
STATE_STEPS = frozenset({"verdict", "interrupted"})  # steps that carry a run's final state


def chain_hash(prev_hash: str, content: dict[str, Any]) -> str:
    """sha256 over the previous hash and the record's content as canonical JSON."""
    body = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{prev_hash}\n{body}".encode()).hexdigest()


# What each kind of record's hash covers (the stored property names), by record version. A
# record's version `v` is itself hashed from version 2 on, so it cannot be lowered to hash less.
# Version 1 Runs left out what a run shows once it ends (state, reason, remaining paths, actions,
# end time): version 2 hashes them as created (`created`, a JSON object never changed afterwards),
# and every later change is a chained `RunUpdate`; the run's own copy must equal the last of them.
RECORD_VERSION = 2
RUN_SHOWN = ("state", "reason", "remaining_paths", "actions", "finished_at")  # what a run's updates change
_RUN_FIELDS = (
    "run_id",
    "alert_id",
    "decider",
    "max_actions",
    "started_at",
    "actor",
    "owner_pid",
    "owner_host",
    "owner_started",
)
_STEP_FIELDS = ("run_id", "seq", "kind", "at", "summary", "data", "trace", "run_prev_hash")
_EVENT_FIELDS = ("event_id", "kind", "at", "actor", "graph", "run_id", "route_id", "summary", "data")
_FIELDS: dict[str, dict[int, tuple[str, ...]]] = {
    "Run": {1: _RUN_FIELDS, 2: (*_RUN_FIELDS, "created", "v")},
    "Step": {1: _STEP_FIELDS, 2: (*_STEP_FIELDS, "v")},
    "Event": {1: _EVENT_FIELDS, 2: (*_EVENT_FIELDS, "v")},
    "RunUpdate": {2: ("run_id", *RUN_SHOWN, "v")},
}
RECORD_KINDS = frozenset(_FIELDS)


def record_version(props: dict[str, Any]) -> int:
    version = props.get("v")
    return version if isinstance(version, int) and not isinstance(version, bool) else 1


def hashed_fields(label: str, props: dict[str, Any]) -> tuple[str, ...] | None:
    """The fields a record's hash covers, by its kind and version (None: no such kind or version)."""
    return _FIELDS.get(label, {}).get(record_version(props))


def content(label: str, props: dict[str, Any]) -> dict[str, Any]:
    fields = hashed_fields(label, props)
    if fields is None:
        raise ValueError(f"no {label} record of version {props.get('v')!r}")
    return {"record": label, **{name: props.get(name) for name in fields}}


class ChainBreak(BaseModel):
    """The first record whose chain does not hold."""

    chain_seq: int
    record: str  # Run, Step, Event, or ChainHead
    id: str
    reason: str


class AuditVerification(BaseModel):
    """The result of recomputing the audit's hash chain."""

    intact: bool
    records: int
    head_seq: int
    head_hash: str
    broken: ChainBreak | None = None
    unchained: int = 0  # runs, steps, events and run updates without a chain position (never shown)
    unchained_records: list[str] = Field(default_factory=list)  # the first of them, named
    anchor: str = "not configured"  # compared, missing, not configured
    anchor_file: str | None = None
    anchored_seq: int = 0  # the last record the anchor log holds
    expected_head: str | None = None  # the hash `--expect-head` asked for, found in the chain when intact
    legacy_runs: int = 0  # runs from before version 2 never updated since: their shown fields are not covered


def record_id(label: str, props: dict[str, Any]) -> str:
    if label == "Step":
        return f"{props.get('run_id')} step {props.get('seq')}"
    if label == "Event":
        return str(props.get("event_id"))
    if label == "RunUpdate":
        return f"{props.get('run_id')} update"
    return str(props.get("run_id"))
