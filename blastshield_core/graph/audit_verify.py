"""`audit verify`: recompute the audit's hash chain and compare it with the anchor log.

What it checks, in chain order: every record's kind and version, its sequence number (no gap),
its link to the previous record's hash, its hash over its content, the link of a step to the
previous record of its own run, and its hash against the anchor log's for that sequence number
(a rewrite, even one that recomputed every hash). Then: the head names the last record; the
chain is not shorter than the anchor log says (truncation); no record lies past the anchor log's
last (added outside BlastShield); what every run shows (state, reason, remaining paths, actions,
end time) equals what the chain last recorded for it; a run's state equals its closing step's;
no run, step, event or run update lies outside the chain; and, with `expect_head`, a record of
the chain has that hash (a head kept elsewhere, e.g. from an incident report).

What it cannot detect: someone who controls both the database and the anchor log (they can
rewrite both consistently), and records removed or rewritten before the anchor log existed or
was adopted (the first `adopted` line trusts the chain as it was then). See HARDENING.md.
"""

from __future__ import annotations

import json
from typing import Any

from .anchor import AnchorError
from .audit_chain import (
    CHAIN_PAGE,
    GENESIS_HASH,
    RECORD_KINDS,
    RUN_SHOWN,
    STATE_STEPS,
    AuditVerification,
    ChainBreak,
    chain_hash,
    hashed_fields,
    record_version,
)
from .audit_chain import content as _content
from .audit_chain import record_id as _record_id

__all__ = ["UNCHAINED_NAMED", "verify"]

UNCHAINED_NAMED = 20  # records without a chain position named in the answer


class _Broken(Exception):
    def __init__(self, seq: int, label: str, ident: str, reason: str):
        self.chain_break = ChainBreak(chain_seq=seq, record=label, id=ident, reason=reason)


def _shown(props: dict[str, Any]) -> dict[str, Any]:
    return {name: props.get(name) for name in RUN_SHOWN}


def verify(audit: Any, expect_head: str | None = None) -> AuditVerification:
    """Verify `audit` (an `audit.AuditLog`: its store, anchor log and head)."""
    result = AuditVerification(intact=True, records=0, head_seq=0, head_hash=GENESIS_HASH, expected_head=expect_head)
    try:
        _verify(audit, expect_head, result)
    except _Broken as exc:
        result.intact = False
        result.broken = exc.chain_break
    return result


def _anchors(audit: Any, result: AuditVerification) -> dict[int, tuple[str, str]] | None:
    """The anchor log as seq -> (hash, time); None when there is none to compare with."""
    log = audit.anchor
    result.anchor_file = str(log.path) if log.path is not None else None
    if log.path is None:
        result.anchor = "not configured"
        return None
    if not log.exists():
        result.anchor = "missing"
        return None
    result.anchor = "compared"
    try:
        entries = log.entries()
    except AnchorError as exc:
        raise _Broken(0, "AnchorLog", str(log.path), str(exc)) from None
    anchors: dict[int, tuple[str, str]] = {}
    for entry in entries:
        known = anchors.get(entry.seq)
        if known is not None and known[0] != entry.hash:
            raise _Broken(
                entry.seq,
                "AnchorLog",
                str(log.path),
                f"the anchor log holds two hashes for record {entry.seq} (at {known[1]} and {entry.at}):"
                " the chain was rewritten or cut back and appended to again",
            )
        anchors[entry.seq] = (entry.hash, entry.at)
    result.anchored_seq = max(anchors, default=0)
    return anchors


def _verify(audit: Any, expect_head: str | None, result: AuditVerification) -> None:
    store = audit.store
    anchors = _anchors(audit, result)
    head_seq, head_hash = audit.head()
    result.head_seq, result.head_hash = head_seq, head_hash
    expected_prev, expected_seq = GENESIS_HASH, 1
    run_last: dict[str, str] = {}
    run_state_step: dict[str, str] = {}
    runs: dict[str, tuple[int, dict[str, Any]]] = {}
    shown: dict[str, dict[str, Any]] = {}  # what the chain last recorded each run shows
    found_expected = False

    skip = 0
    while True:
        page = store.read_audit("audit_chain_page", {"skip": skip, "limit": CHAIN_PAGE})
        for row in page:
            label, props = row["label"], row["props"]
            seq = props.get("chain_seq")
            ident = _record_id(label, props)
            if label not in RECORD_KINDS:
                raise _Broken(seq, label, ident, "not an audit record kind")
            if hashed_fields(label, props) is None:
                raise _Broken(seq, label, ident, f"no {label} record has version {record_version(props)}")
            if seq != expected_seq:
                raise _Broken(seq, label, ident, f"expected record {expected_seq} here: a record is missing")
            if props.get("prev_hash") != expected_prev:
                raise _Broken(seq, label, ident, "does not link to the previous record's hash")
            if chain_hash(expected_prev, _content(label, props)) != props.get("hash"):
                raise _Broken(seq, label, ident, "its content does not match its hash (edited)")
            if anchors is not None and seq in anchors and anchors[seq][0] != props["hash"]:
                raise _Broken(
                    seq,
                    label,
                    ident,
                    f"its hash differs from the one the anchor log recorded at {anchors[seq][1]}:"
                    " the chain was rewritten up to here (hashes recomputed)",
                )
            if props["hash"] == expect_head:
                found_expected = True
            run_id = props.get("run_id")
            if label == "Run":
                run_last[run_id] = props["hash"]
                runs[run_id] = (seq, props)
                if record_version(props) >= 2:
                    shown[run_id] = json.loads(props.get("created") or "{}")
            elif label == "RunUpdate":
                if run_id not in runs:
                    raise _Broken(seq, label, ident, "updates a run that is not on the chain before it")
                shown[run_id] = _shown(props)
            elif label == "Step":
                if run_last.get(run_id) != props.get("run_prev_hash"):
                    raise _Broken(seq, label, ident, "does not link to the previous record of its run")
                run_last[run_id] = props["hash"]
                if props.get("kind") in STATE_STEPS:
                    run_state_step[run_id] = json.loads(props.get("data") or "{}").get("state", "")
                if props.get("kind") == "interrupted" and run_id in shown:  # `end_running` ends it in one write
                    shown[run_id].update(
                        state=run_state_step[run_id], reason=props.get("summary"), finished_at=props.get("at")
                    )
            expected_prev, expected_seq = props["hash"], expected_seq + 1
            result.records += 1
        if len(page) < CHAIN_PAGE:
            break
        skip += CHAIN_PAGE
    last_seq = expected_seq - 1
    if (head_seq, head_hash) != (last_seq, expected_prev):
        raise _Broken(head_seq, "ChainHead", "head", f"the head does not match the last record ({last_seq})")
    _compare_with_anchor(audit, anchors, last_seq, result)
    for run_id, (seq, props) in runs.items():
        if run_id in shown:
            for name in RUN_SHOWN:
                if props.get(name) != shown[run_id].get(name):
                    raise _Broken(
                        seq,
                        "Run",
                        run_id,
                        f"its shown {name} {props.get(name)!r} differs from what the chain recorded"
                        f" ({shown[run_id].get(name)!r}): edited",
                    )
        else:
            result.legacy_runs += 1
        state = props.get("state")
        recorded = run_state_step.get(run_id)
        if state != "running" and recorded is not None and state != recorded:
            raise _Broken(seq, "Run", run_id, f"state {state!r} differs from its closing step's {recorded!r}")
    _unchained(audit, result)
    if expect_head is not None and not found_expected:
        raise _Broken(
            head_seq,
            "ExpectedHead",
            expect_head,
            "no record of the chain has this hash: the chain was cut back or rewritten since that head was kept",
        )


def _compare_with_anchor(
    audit: Any, anchors: dict[int, tuple[str, str]] | None, last_seq: int, result: AuditVerification
) -> None:
    if anchors is None:
        if result.anchor == "missing" and last_seq > 0:
            raise _Broken(
                last_seq,
                "AnchorLog",
                result.anchor_file or "",
                f"there is no anchor log, but the chain holds {last_seq} record(s): it was removed, or the"
                " chain was written elsewhere (the next audit record anchors the chain as it is now)",
            )
        return
    if result.anchored_seq > last_seq:
        at = anchors[result.anchored_seq][1]
        raise _Broken(
            last_seq,
            "ChainHead",
            "head",
            f"the chain ends at record {last_seq} but the anchor log recorded record {result.anchored_seq}"
            f" at {at}: records were removed (truncated)",
        )
    if last_seq > result.anchored_seq:
        raise _Broken(
            result.anchored_seq + 1,
            "AnchorLog",
            result.anchor_file or "",
            f"records {result.anchored_seq + 1}..{last_seq} are not in the anchor log: written outside"
            " BlastShield, or their anchor was never written",
        )


def _unchained(audit: Any, result: AuditVerification) -> None:
    rows = audit.store.read_audit("audit_unchained", {"limit": UNCHAINED_NAMED})
    total = rows[0]["total"] if rows else 0
    if not total:
        return
    names = [f"{item['label']} {_record_id(item['label'], item['props'])}" for item in rows[0]["some"]]
    result.unchained, result.unchained_records = total, names
    first = rows[0]["some"][0]
    raise _Broken(
        0,
        first["label"],
        _record_id(first["label"], first["props"]),
        f"{total} record(s) have no chain position and are not covered by it (never shown): {', '.join(names)}",
    )
