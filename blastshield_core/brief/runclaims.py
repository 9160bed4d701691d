"""Judging the claims a briefing makes about the run: its end state and its session revocations.

Each function answers None when the claim holds, or (false_containment | false_exposure, the evidence)
when the run record contradicts it, as `judge.py` does for the account and the relationships. The run
is the one the evidence was gathered for (`EvidenceSummary.run`); without one, claims about its state
are not read.
"""

from __future__ import annotations

from ..results import RunState
from .evidence import EvidenceSummary

__all__ = ["Verdict", "judge_revocation", "judge_run_state", "strip_run_reason"]

Verdict = tuple[str, str] | None


def judge_run_state(ev: EvidenceSummary, value: object) -> Verdict:
    """ "The run completed" / "did not complete" / "Run: stopped": only a fresh "no qualifying path" completes
    a run."""
    run = ev.run
    if run is None:
        return None
    if value not in ("completed", "not_completed"):
        if run.state.value != value:  # "Run state: stopped" on a run that ended otherwise
            kind = "false_exposure" if run.state is RunState.COMPLETED else "false_containment"
            return kind, f"run {run.run_id} is {run.state.value} ({run.reason})"
        return None
    if value == "not_completed" and run.state is RunState.COMPLETED:
        return "false_exposure", f"run {run.run_id} is completed ({run.reason})"
    if value == "completed" and run.state is not RunState.COMPLETED:
        return (
            "false_containment",
            f"run {run.run_id} is {run.state.value} ({run.reason}); a fresh investigation"
            f" ({ev.status.value}) finds {ev.path_count} qualifying path(s)",
        )
    return None


def judge_revocation(ev: EvidenceSummary, value: object) -> Verdict:
    """ "The role's sessions were revoked": true when the run applied a revocation on the account.

    A revocation stops the role's sessions issued before it and cuts no path; a claim of it is a claim
    about the action, checked against the run's actions (and "not revoked" against none applied)."""
    applied = any(ev.revocations.values())
    if (value == "contained") == applied:
        return None
    assert ev.run is not None  # revocations come from the run
    done = ", ".join(f"{c}: {'applied' if a else 'not applied'}" for c, a in ev.revocations.items())
    return (
        "false_containment" if value == "contained" else "false_exposure",
        f"run {ev.run.run_id} revoked role sessions: {done}; a revocation cuts no path and a fresh"
        f" investigation finds {ev.path_count} qualifying path(s)",
    )


def strip_run_reason(text: str, evidence: EvidenceSummary) -> str:
    """The run's recorded reason, on its own `Recorded reason:` line, is quoted data, not a claim."""
    if evidence.run is None or not evidence.run.reason:
        return text
    return text.replace(f"Recorded reason: {evidence.run.reason}", "Recorded reason: (quoted)")
