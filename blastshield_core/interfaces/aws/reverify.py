"""Re-verifying an alert's account actions when the Containment page opens: in the background, bounded.

Opening the page asks `verify-account ALERT` again (`verify.verify_account`: one read of each object
BlastShield changed on the account, an undone action audited and re-synced) on a thread of a pool
listed in `base/pools` (ended with the others as the process ends), and waits for it at most
`REVERIFY_BOUND_S` seconds. A slow or unreachable account never holds the page: past the bound the page
is told "could not re-verify" with the time of the last verification that did answer, and the read
goes on in the background, one at a time per alert: a page run again while it is pending does not
wait for it again nor start another. Its answer, when it comes, is kept as that last verification. An alert with no
action applied on the account starts nothing.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from ...base.pools import track
from .account import account_releasable, revocations_in_force

if TYPE_CHECKING:
    from .view import ServicesView

__all__ = ["REVERIFY_BOUND_S", "Reverification", "applied_on_account", "reverify_account"]

REVERIFY_BOUND_S = 4.0  # how long opening the Containment page waits for the account
_WORKERS = 2

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pending: dict[tuple[str, str], Future[dict[str, Any]]] = {}
_last: dict[tuple[str, str], str] = {}  # (graph, alert) -> when the account last answered a re-verification


@dataclass(frozen=True)
class Reverification:
    """What opening the page found: `verified` (the account answered within the bound: `result` is
    `verify_account`'s answer), `timed_out` or `failed` (`error` says why; nothing was read in time),
    or `nothing` (no action of the alert is applied on the account)."""

    state: Literal["verified", "timed_out", "failed", "nothing"]
    result: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    # when the account last answered: a re-verification in this process, else the run's own verification
    last_verified_at: str = ""
    last_verified_by: Literal["re-verification", "the run's verification", ""] = ""

    @property
    def holds(self) -> bool:
        """Every action re-read now holds on the account (a fresh read, none undone or unreadable)."""
        return (
            self.state == "verified"
            and bool(self.result.get("checked"))
            and not self.result.get("undone")
            and not self.result.get("unreadable")
        )


def applied_on_account(services: ServicesView, alert_id: str) -> list[dict[str, Any]]:
    """The alert's actions applied on the account and not released (route, run, kind), its session
    revocations included (the revocation's candidate id as `route_id`, with `applied_at`). Reads the audit."""
    runs = {r.run_id for r in services.audit.list_runs() if r.alert_id == alert_id}
    return [entry for entry in account_releasable(services) if entry["run_id"] in runs] + [
        {
            "route_id": r["candidate_id"],
            "run_id": str(r.get("run_id") or ""),
            "kind": str(r.get("plan", {}).get("kind", "")),
            "applied_at": r["applied_at"],
        }
        for r in revocations_in_force(services)
        if r.get("alert_id") == alert_id
    ]


def _executor() -> ThreadPoolExecutor:
    global _pool  # noqa: PLW0603 - one pool per process, made on first use and listed for end_all
    with _lock:
        if _pool is None:
            _pool = track(ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="blastshield-reverify"))
        return _pool


def _verify(services: ServicesView, alert_id: str, actor: str, key: tuple[str, str]) -> dict[str, Any]:
    from .verify import verify_account

    result = verify_account(services, alert_id, actor)
    with _lock:
        _last[key] = datetime.now(UTC).isoformat(timespec="seconds")
    return result


def reverify_account(
    services: ServicesView, alert_id: str, actor: str, bound_s: float = REVERIFY_BOUND_S
) -> Reverification:
    """Re-verify on the account the alert's applied actions, waiting at most `bound_s` seconds.

    Raises QueryFailed when the audit cannot be read (which actions to re-verify is then unknown)."""
    applied = applied_on_account(services, alert_id)
    if not applied:
        return Reverification("nothing")
    key = (services.store.settings.graph, alert_id)
    pool = _executor()
    with _lock:
        future = _pending.get(key)
        waiting = future is not None and not future.done()
        if not waiting:
            future = pool.submit(_verify, services, alert_id, actor, key)
            _pending[key] = future
    assert future is not None
    try:  # a read still pending from an earlier opening was given its bound then: it is not waited for again
        result = future.result(timeout=0 if waiting else bound_s)
    except FutureTimeout:
        why = "an earlier re-verification is still waiting for it" if waiting else f"no answer within {bound_s:g} s"
        return Reverification(
            "timed_out", error=f"the account did not answer ({why})", **_last_seen(services, key, applied)
        )
    except Exception as exc:  # any failure is shown as one: never read as holding
        return Reverification("failed", error=f"{type(exc).__name__}: {exc}", **_last_seen(services, key, applied))
    return Reverification("verified", result=result, **_last_seen(services, key, applied))


def _last_seen(services: ServicesView, key: tuple[str, str], applied: list[dict[str, Any]]) -> dict[str, Any]:
    """When the account last answered for this alert: a re-verification, else the newest time a run
    applied and verified one of its actions there."""
    with _lock:
        last = _last.get(key, "")
    if last:
        return {"last_verified_at": last, "last_verified_by": "re-verification"}
    times = []  # a run applies and re-reads its actions on the account before it ends
    for run_id in {entry["run_id"] for entry in applied if entry["run_id"]}:
        run = services.audit.get(run_id)
        if run is not None and run.finished_at is not None:
            times.append(run.finished_at)
    # a revocation is re-read through the API as it is applied (by a run, or by `revoke-sessions`)
    times += [datetime.fromisoformat(e["applied_at"]) for e in applied if e.get("applied_at")]
    if not times:
        return {}
    return {
        "last_verified_at": max(times).astimezone(UTC).isoformat(timespec="seconds"),
        "last_verified_by": "the run's verification",
    }
