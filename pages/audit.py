"""Audit: persisted runs with their steps, evidence counts and trace; export an incident report."""

import json

import streamlit as st

from blastshield_core.interfaces.service import (
    NOT_APPLIED,
    EvidenceUnavailable,
    QueryFailed,
    account_releasable,
    md_text,
    render_markdown,
    revocations_in_force,
    safe_markdown,
)
from pages._services import (
    get_services,
    init_state,
    release_form,
    run_state_message,
    settle_runs,
    step_rows,
    trace_rows,
)

init_state()
st.title(":material/history: Audit")
st.caption("Every containment run and each of its steps, persisted in FalkorDB as they happen (they survive restarts).")
svc = get_services()
if svc is None:
    st.stop()
settle_runs(svc)

try:  # a revocation's own events, and its being found undone on the account (`verify-account`)
    revocation_events = [
        e
        for e in svc.audit.events(limit=200)
        if e.kind == "revoke_sessions" or (e.kind == "undone_on_account" and e.data.get("revocation"))
    ]
    undone = {u["route_id"] for u in svc.undone_on_account() if u.get("revocation")}
    in_force = {r["candidate_id"] for r in revocations_in_force(svc)} - undone
except QueryFailed as exc:
    revocation_events, in_force, undone = [], set(), set()
    st.error(f"Could not read the session revocations: {md_text(exc)}")
if revocation_events:
    st.markdown(
        "**Session revocations on the AWS account (roles' sessions and users' own)** — intent with the"
        " before-image, the call's request id, releases, undone on the account (in force now:"
        f" {md_text(', '.join(sorted(in_force)) or 'none')}; undone on the account:"
        f" {md_text(', '.join(sorted(undone)) or 'none')})"
    )
    st.dataframe(
        [
            {
                "at": e.at.isoformat(timespec="seconds"),
                "revocation": e.route_id,
                "status": e.data.get("status"),  # `undone_on_account` for a revocation found undone
                "actor": e.actor,
                "request id": e.data.get("request_id") or "—",
                "api_verified": e.data.get("api_verified"),
                "before-image": json.dumps(e.data.get("before_image") or {}, sort_keys=True),
                "summary": e.summary,
            }
            for e in revocation_events
        ],
        hide_index=True,
        width="stretch",
        key="audit_revocations",
    )
try:
    runs = svc.audit.list_runs()
except QueryFailed as exc:
    st.error(f"Could not read the audit: {md_text(exc)}")
    st.stop()
if not runs:
    st.info("No runs yet. Start one on the Containment page.")
    st.stop()

st.dataframe(
    [
        {
            "run": r.run_id,
            "alert": r.alert_id,
            "state": r.state.value,
            "actor": r.actor or "—",
            "decider": r.decider,
            "actions": len(r.actions),
            "verified": sum(a.verified for a in r.actions),
            "remaining paths": r.remaining_paths,
            "started": r.started_at.isoformat(timespec="seconds"),
        }
        for r in runs
    ],
    hide_index=True,
    width="stretch",
    key="audit_runs",
)
ids = [r.run_id for r in runs]
default = st.session_state.get("contain_last_run")
run_id = st.selectbox("Run", ids, index=ids.index(default) if default in ids else 0, key="audit_run")
run = svc.audit.get(run_id)
if run is None:
    st.error(f"Run {md_text(run_id)} is not in the audit.")
    st.stop()

st.subheader(f"{run.run_id} — {run.state.value.upper()}")
st.markdown(
    f"**Alert** {md_text(run.alert_id)} · **decider** {md_text(run.decider)} · **cap** {run.max_actions} · "
    f"**reason** {md_text(run.reason)}"
)
st.markdown(
    f"**Started by** {md_text(run.actor or '—')}"
    + (f" · **process** {run.owner.pid} on {md_text(run.owner.host)}" if run.owner else "")
)
kind, text = run_state_message(run)
if kind == "error":
    st.error(text)
elif kind == "warning":
    st.warning(text)
for rel in run.releases:
    st.info(
        f"**Released later:** {md_text(rel.route_id)} by {md_text(rel.actor)} at "
        f"{rel.at.isoformat(timespec='seconds')} — {md_text(rel.reason)}",
        icon=":material/lock_open:",
    )
try:
    still_blocked = [b["route_id"] for b in svc.actions.blocked_routes() if b["blocked_by_run"] == run.run_id]
    still_blocked += [a["route_id"] for a in account_releasable(svc) if a["run_id"] == run.run_id]
except QueryFailed as exc:
    still_blocked = []
    st.error(f"Could not read the blocked routes: {md_text(exc)}")
release_form(svc, still_blocked, key="audit")
counts = [
    {"action": a.step, "route": a.route_id, "status": a.status, "verified": a.verified,
     "paths before": a.paths_before, "paths after": a.paths_after}
    for a in run.actions
]  # fmt: skip
if counts:
    st.markdown("**Evidence counts per action**")
    st.dataframe(counts, hide_index=True, width="stretch", key="audit_counts")
aws_actions = [(a, a.aws) for a in run.actions if a.aws is not None]
if aws_actions:
    st.markdown("**On the AWS account** — the before-image read before the call, and AWS's request id")
    st.dataframe(
        [
            {
                "route": a.route_id,
                "call": " ".join(c.text() for c in aws.plan.calls),
                "in AWS": "applied" if aws.applied_in_aws else f"{NOT_APPLIED}: {aws.note}",
                "request id": aws.request_id or "—",
                "applied": a.applied,
                "api_verified": a.api_verified,
                "graph_verified": a.graph_verified,
                "before-image": json.dumps(aws.plan.before_image or {}, sort_keys=True),
            }
            for a, aws in aws_actions
        ],
        hide_index=True,
        width="stretch",
        key="audit_aws_actions",
    )
try:
    account_releases = [e for e in svc.audit.events_for_run(run.run_id) if e.data.get("aws")]
except QueryFailed as exc:
    account_releases = []
    st.error(f"Could not read the releases: {md_text(exc)}")
if account_releases:
    st.markdown("**Releases on the AWS account** — intent, then the restore (or the refusal and why)")
    st.dataframe(
        [
            {
                "at": e.at.isoformat(timespec="seconds"),
                "route": e.route_id,
                "status": e.data.get("status"),
                "actor": e.actor,
                # a release's call, or the call an `undone_on_account` event says was undone (its text)
                "call": c.get("api", "—") if isinstance(c := e.data.get("call"), dict) else c or "—",
                "request id": e.data.get("request_id") or "—",
                "api_verified": e.data.get("api_verified"),
                "before-image": json.dumps(e.data.get("before_image") or {}, sort_keys=True),
                "reason": e.data.get("reason", ""),
            }
            for e in account_releases
        ],
        hide_index=True,
        width="stretch",
        key="audit_aws_releases",
    )
st.markdown("**Steps**")
st.dataframe(step_rows(run), hide_index=True, width="stretch", key="audit_steps")
st.markdown("**Tool trace**")
st.dataframe(trace_rows(run), hide_index=True, width="stretch", key="audit_trace")
with st.expander("Admin actions (imports, resets, releases)", expanded=False):
    try:
        events = svc.audit.events(limit=50)
    except QueryFailed as exc:
        events = []
        st.error(f"Could not read the admin actions: {md_text(exc)}")
    st.dataframe(
        [{"at": e.at.isoformat(timespec="seconds"), "kind": e.kind, "actor": e.actor, "summary": e.summary}
         for e in events],
        hide_index=True,
        width="stretch",
        key="audit_events",
    )  # fmt: skip
st.subheader("Incident report")


def _report(fmt: str) -> str:
    """Built only when asked for: a report carries a briefing, which may call the model."""
    try:
        report = svc.reporter.report(run.run_id)
    except (EvidenceUnavailable, QueryFailed) as exc:
        return f"Could not build the report: {exc}"
    return render_markdown(report) if fmt == "md" else report.model_dump_json(indent=2)


left, right = st.columns(2)
left.download_button(
    "Download incident report (Markdown)",
    lambda: _report("md"),
    file_name=f"{run.run_id}.md",
    mime="text/markdown",
    key="audit_export_md",
)
right.download_button(
    "Download incident report (JSON)",
    lambda: _report("json"),
    file_name=f"{run.run_id}.json",
    mime="application/json",
    key="audit_export_json",
)
if st.toggle("Preview the report", key="audit_preview"):
    st.markdown(safe_markdown(_report("md")))  # formatting kept; no link, image or HTML from the data
