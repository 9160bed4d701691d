"""Containment: choose a decider, confirm, run with live progress, and read the verdict."""

import streamlit as st

from blastshield_core.interfaces.service import (
    NOT_APPLIED,
    RULES_PLAYBOOK,
    AccountRefused,
    AnalystDecider,
    Permission,
    QueryFailed,
    RunRefused,
    RunSeen,
    RunState,
    Status,
    account_plans,
    account_releasable,
    applied_on_account,
    md_code,
    md_text,
    release_on_account,
    release_revocation,
    responder_for,
    reverify_account,
    revocation_plans,
    revocations_in_force,
    revoke_role_sessions,
)
from pages._auth import current_access, require
from pages._graphview import LEGEND, draw
from pages._services import (
    alert_picker,
    analyst_done,
    get_services,
    init_state,
    page_actor,
    query_state,
    record_seen,
    release_form,
    run_state_message,
    settle_runs,
    show_briefing,
    show_status,
    step_rows,
    trace_rows,
    wait_for_analyst,
)

init_state()
query_state(decider="contain_decider", cap="contain_cap")
st.session_state.setdefault("contain_session", None)
st.session_state.setdefault("contain_last_run", None)
st.session_state.setdefault("contain_before", None)

st.title(":material/block: Containment")
st.caption(
    "The decider only proposes; the server re-derives candidates and rejects anything else; one action "
    "service writes; the graph is asked again after every action. Only a fresh *no qualifying path* completes a run."
)
svc = get_services()
if svc is None:
    st.stop()

settle_runs(svc)
session = st.session_state.contain_session
if session is not None and session.run.state.terminal:  # abandoned after waiting too long
    st.warning(f"The analyst run {session.run.run_id} was {session.run.state.value}: {md_text(session.run.reason)}")
    st.session_state.contain_last_run = session.run.run_id
    st.session_state.contain_session = session = None
alert_id = alert_picker(svc, "contain_alert")
if alert_id is None:
    st.stop()
if session is not None and session.run.alert_id != alert_id:
    st.info(f"An analyst run on {md_text(session.run.alert_id)} is waiting for your choice below.")

candidates = svc.tools.get_response_candidates(alert_id)
st.subheader("Current response candidates")
if candidates.status is not Status.OK:
    show_status(candidates.status, candidates.message)
elif not candidates.candidates:
    if candidates.qualifying_paths and candidates.revocations:
        st.warning(
            f"{md_text(candidates.message)}. No session route can cut these paths: a run can revoke the role's "
            "active sessions (planned below), which stops stolen sessions and cuts no path, so the run then stops."
        )
    elif candidates.qualifying_paths:
        st.warning(f"{md_text(candidates.message)}. A run would stop: route blocking cannot cut these paths.")
    else:
        st.info("No qualifying path now: a run would complete at once with zero actions.")
else:
    st.dataframe(
        [
            {
                "route": c.route_id,
                "paths cut": c.paths_cut,
                "remaining if applied": c.remaining_if_applied,
                "collateral (others who lose access)": c.collateral.summary if c.collateral else "—",
                "relationship": f"{c.relationship.source} -{c.relationship.type}-> {c.relationship.target}",
                "why": c.reason,
                "candidate": c.id,
            }
            for c in candidates.candidates
        ],
        hide_index=True,
        width="stretch",
        key="contain_candidates",
        # what a responder weighs first (within 1,400 px): the route, what it cuts, who else loses access
        column_config={
            "route": st.column_config.TextColumn(width="medium"),
            "paths cut": st.column_config.NumberColumn(width="small"),
            "remaining if applied": st.column_config.NumberColumn("remaining", width="small"),
            "collateral (others who lose access)": st.column_config.TextColumn("collateral", width="medium"),
            "relationship": st.column_config.TextColumn(width="medium"),
        },
    )


def show_checks(plan) -> None:
    """What BlastShield checks before it writes, as the command line's `--plan` shows it."""
    if plan.checks:
        st.markdown(
            "**Before any write:**\n"
            + "\n".join(
                f"- {'✅' if c.ok else '❌ would refuse:'} {md_text(c.name)}: {md_text(c.detail)}" for c in plan.checks
            )
        )


refusals: list[str] = []  # plans on the account whose checks do not hold: a run would write nothing
effector = None
if candidates.status is Status.OK and candidates.candidates:
    try:
        effector = responder_for(svc)
    except ValueError as exc:
        st.error(f"**AWS responding is misconfigured:** {md_text(exc)}. Nothing on the account can be planned.")
    else:
        # The plan reads the account (the key ids, the policies now): once per alert and candidate set.
        plan_key = (alert_id, tuple(c.route_id for c in candidates.candidates), effector.applies)
        cached = st.session_state.get("contain_plans")
        if not cached or cached[0] != plan_key:
            cached = (plan_key, account_plans(svc, alert_id, effector)[1])
            st.session_state.contain_plans = cached
        on_account = [p.aws for p in cached[1] if p.aws is not None]
        refusals += [f"{p.route_id}: {c.name}: {c.detail}" for p in on_account if p.applied_in_aws for c in p.refusals]
        if on_account:
            st.subheader("Plan on the AWS account")
            st.caption("What blocking each AWS-backed candidate does, read from the account now. Nothing is executed.")
            for plan in on_account:
                with st.container(border=True):
                    st.markdown(f"**{md_text(plan.route_id)}** · {md_text(plan.kind.value)}")
                    if not plan.applied_in_aws:
                        st.warning(
                            f"**{NOT_APPLIED}** (graph only): {md_text(plan.note)}. The route would be blocked in "
                            "the graph only; the credential keeps working on the account."
                        )
                    for call in plan.calls:
                        st.code(call.text(), language=None)
                    st.markdown(
                        "\n".join(
                            [f"- side effect: {md_text(e)}" for e in plan.side_effects]
                            + [f"- stops: {md_text(e)}" for e in plan.stops]
                            + [f"- **does not stop**: {md_text(e)}" for e in plan.leaves_standing]
                        )
                    )
                    st.markdown(f"**Reversibility:** {md_text(plan.reversibility)}")
                    if plan.read_error:
                        st.error(f"The before-image could not be read, so nothing would be called: "
                                 f"{md_text(plan.read_error)}")  # fmt: skip
                    show_checks(plan)
                    st.json(plan.before_image or {"before_image": "not read (no AWS session)"}, expanded=False)

revocations: list = []
if candidates.status is Status.OK and candidates.revocations:
    # The plan reads the role's policy on the account: once per alert and candidate set, as the routes' plans.
    revoke_key = (alert_id, tuple(r.id for r in candidates.revocations))
    cached_revoke = st.session_state.get("contain_revoke_plans")
    if not cached_revoke or cached_revoke[0] != revoke_key:
        try:
            cached_revoke = (revoke_key, revocation_plans(svc, alert_id))
        except AccountRefused as exc:
            cached_revoke = (revoke_key, [])
            st.error(md_text(exc))
        st.session_state.contain_revoke_plans = cached_revoke
    revocations = cached_revoke[1]
    refusals += [f"{r['id']}: {c.name}: {c.detail}" for r in revocations if r["plan"].applied_in_aws
                 for c in r["plan"].refusals]  # fmt: skip
for revoke in revocations:
    own = revoke.get("principal") == "user"
    st.subheader("Revoke the user's own issued sessions" if own else "Revoke the role's active sessions")
    st.caption(
        "A candidate of the run below (the rules playbook takes it when no route can be blocked on a role's alert, "
        "or after a user's key was deactivated; as the analyst you choose it; Gemini may choose it), with the run's "
        "confirmation and cap. Nothing is executed here; the run plans it again when it executes it, with the "
        "revocation time then and the before-image read then."
    )
    plan = revoke["plan"]
    with st.container(border=True):
        st.markdown(f"**{md_text(revoke['id'])}** · {md_text(revoke['reason'])}")
        if revoke.get("collateral"):
            st.markdown(f"Collateral: {md_text(revoke['collateral']['summary'])}")
        if not plan.applied_in_aws:
            st.warning(f"**{NOT_APPLIED}**: {md_text(plan.note)}. Nothing would be changed on the account.")
        for call in plan.calls:
            st.code(call.text(), language=None)
        st.markdown(
            "\n".join(
                [f"- side effect: {md_text(e)}" for e in plan.side_effects]
                + [f"- stops: {md_text(e)}" for e in plan.stops]
                + [f"- **does not stop**: {md_text(e)}" for e in plan.leaves_standing]
            )
        )
        st.markdown(f"**Reversibility:** {md_text(plan.reversibility)}")
        if plan.read_error:
            st.error(f"The before-image could not be read, so nothing would be called: {md_text(plan.read_error)}")
        show_checks(plan)
        st.json(plan.before_image or {"before_image": "not read (no AWS session)"}, expanded=False)
in_force = [r for r in revocations_in_force(svc) if r["alert_id"] == alert_id]
if in_force:
    with st.expander("Release a session revocation (audited)", expanded=False):
        chosen = st.selectbox("Revocation", [r["candidate_id"] for r in in_force], key="revoke_release_id")
        why = st.text_input("Reason (recorded in the audit)", key="revoke_release_reason", max_chars=500)
        sure = st.checkbox("I confirm the release", key="revoke_release_confirm")
        ack = st.checkbox("I acknowledge: releasing re-enables the role's sessions issued before the revocation, "
                          "stolen ones included", key="revoke_release_ack")  # fmt: skip
        if st.button("Release the revocation", key="revoke_release", disabled=not (sure and why.strip())) and require(
            Permission.CONTAIN, "release a session revocation"
        ):
            try:
                out = release_revocation(svc, chosen, why, sure, page_actor(), acknowledge=ack)
            except AccountRefused as exc:
                st.error(f"**Release refused, nothing changed.** {md_text(exc)}")
            else:
                if out is not None:
                    st.session_state.contain_revoke_plans = None  # the role's policy changed: plan afresh
                    read = "verified" if out["api_verified"] else "NOT confirmed"
                    st.success(
                        f"Released {md_text(chosen)}: {md_text(out['call']['api'])} (request "
                        f"{md_text(out['request_id'])}); re-read through the API: {read}."
                    )

# What BlastShield applied on the account for this alert is read again there on every opening, in the
# background and bounded (`reverify_account`): an undone action is found and audited before the routes
# below are shown; a slow or unreachable account is said so, and nothing below reads it as holding.
reverified = None
try:
    if current_access().can(Permission.CONTAIN):
        reverified = reverify_account(svc, alert_id, page_actor())
    elif applied_on_account(svc, alert_id):  # what it finds undone is recorded and re-synced: a write
        st.caption("Re-verifying this alert's actions on the AWS account runs for responders and admins.")
except QueryFailed as exc:
    show_status(Status.QUERY_FAILED, f"which account actions to re-verify: {exc}")
if reverified is not None and reverified.state in ("timed_out", "failed"):
    last = (
        f"last verified at {md_text(reverified.last_verified_at)} ({md_text(reverified.last_verified_by)})"
        if reverified.last_verified_at
        else "never verified on the account"
    )
    st.warning(
        f"**Could not re-verify on the account:** {md_text(reverified.error)}; {last}. Until it answers, nothing"
        " here says the account still holds what BlastShield applied."
    )
elif reverified is not None and reverified.state == "verified":
    for row in reverified.result.get("checked", []):
        if row["state"] == "holds":
            st.caption(
                f"Re-verified on the account at {md_text(row['seen_at'])}: {md_code(row['route_id'])}"
                f" ({md_text(row['subject'])}) holds."
            )
        elif row["state"] == "unreadable":
            st.warning(
                f"**Could not re-verify** {md_code(row['route_id'])} on the account: {md_text(row['detail'])}"
                + (f"; last verified at {md_text(reverified.last_verified_at)}" if reverified.last_verified_at else "")
                + "."
            )
try:
    graph_only = svc.graph_only_blocks()
except QueryFailed:
    graph_only = {}
routes_now = svc.tools.get_containment_route_statuses(alert_id, graph_only)
alert_routes = {r.route_id for r in routes_now.routes} if routes_now.status is Status.OK else set()
mine_graph_only = sorted(r for r in graph_only if r in alert_routes)
if mine_graph_only:
    st.warning(
        f"**{md_text(', '.join(mine_graph_only))}: blocked in the graph only** — planned in the graph; the credentials"
        f" still work on the account. **{routes_now.open_on_account}** qualifying path(s) are open on the account."
    )
try:
    releasable = [b for b in svc.actions.blocked_routes() if b["route_id"] in alert_routes]
    releasable += [
        {"route_id": a["route_id"], "blocked_by_run": a["run_id"], "blocked_by": f"on the AWS account ({a['kind']})"}
        for a in account_releasable(svc)
        if a["route_id"] in alert_routes
    ]
except QueryFailed as exc:
    releasable = []
    show_status(Status.QUERY_FAILED, str(exc))
if releasable:
    st.caption(
        "Blocked by BlastShield on this alert's routes: "
        + ", ".join(
            f"{md_code(b['route_id'])} (run {md_text(b['blocked_by_run'])}, by {md_text(b['blocked_by'] or '—')}"
            + ("; blocked in the graph only)" if b["route_id"] in graph_only else ")")
            for b in releasable
        )
    )
release_form(svc, [b["route_id"] for b in releasable], key="contain")

# Containment undone on the account behind BlastShield's back (verify-account, or a collection, saw it)
try:
    undone_here = [u for u in svc.undone_on_account() if u["alert_id"] == alert_id]
except QueryFailed as exc:
    undone_here = []
    show_status(Status.QUERY_FAILED, str(exc))
for i, u in enumerate(u for u in undone_here if u.get("revocation")):
    again = f"Sessions issued before {md_text(u['issued_before'])} work again" if u.get("issued_before") else (
        "The sessions it stopped work again"
    )  # fmt: skip
    st.error(
        f"**Session revocation undone on the account, seen at {md_text(u['seen_at'])}:** {md_code(u['route_id'])}"
        + (f" (run {md_text(u['run_id'])})" if u.get("run_id") else "")
        + f": {md_text(u['what_changed'])}; by {md_text(u.get('caller') or 'caller unknown')}"
        + (f" ({md_text(u['caller_event'])} at {md_text(u['caller_event_time'])})" if u.get("caller_event") else "")
        + f". {again}. Next: **revoke again**, or acknowledge and forget the revocation."
    )
    left, right = st.columns(2)
    with left:
        sure = st.checkbox("I confirm: revoke again (every such session issued before now stops)",
                           key=f"contain_revoke_again_confirm_{i}")  # fmt: skip
        if st.button("Revoke again", key=f"contain_revoke_again_{i}", disabled=not sure) and require(
            Permission.CONTAIN, "revoke sessions"
        ):
            try:
                done = revoke_role_sessions(svc, alert_id, u["route_id"], confirm=True, max_actions=1,
                                            actor=page_actor())  # fmt: skip
            except (AccountRefused, QueryFailed) as exc:
                st.error(f"**Not revoked, nothing changed.** {md_text(exc)}")
            else:
                st.session_state.contain_revoke_plans = None  # the principal's policy changed: plan afresh
                read = "verified" if done["api_verified"] else "NOT confirmed"
                call = next((c.get("api", "") for c in done.get("plan", {}).get("calls", [])), "")
                st.session_state.contain_forget_notice = (
                    f"Revoked {md_text(u['route_id'])} again: {md_text(call)} (request {md_text(done['request_id'])});"
                    f" re-read through the API: {read}."
                    if done["applied"]
                    else f"Not revoked: {md_text(done.get('error') or done.get('note') or '')}."
                )
                st.rerun()
    with right:
        why = st.text_input("Reason (recorded in the audit)", key=f"contain_forget_revocation_reason_{i}",
                            max_chars=500)  # fmt: skip
        forget = st.button("Acknowledge and forget the revocation", key=f"contain_forget_revocation_{i}",
                           disabled=not why.strip())  # fmt: skip
        if forget and require(Permission.CONTAIN, "acknowledge an undone revocation"):
            try:
                done = release_revocation(svc, u["route_id"], why, True, page_actor(), acknowledge=True)
            except (AccountRefused, QueryFailed) as exc:
                st.error(f"**Not recorded, nothing changed.** {md_text(exc)}")
            else:
                if done is not None:
                    st.session_state.contain_forget_notice = md_text(done.get("message", "")) + "."
                st.rerun()
for i, u in enumerate(u for u in undone_here if not u.get("revocation")):
    st.error(
        f"**Undone on the account, seen at {md_text(u['seen_at'])}:** {md_code(u['route_id'])} (run"
        f" {md_text(u['run_id'])}): {md_text(u['what_changed'])}; by {md_text(u.get('caller') or 'caller unknown')}"
        + (f" ({md_text(u['caller_event'])} at {md_text(u['caller_event_time'])})" if u.get("caller_event") else "")
        + ". The route is active again and its paths are"
        " open. Next: **contain again** (start a run below), or acknowledge and forget the block."
    )
    why = st.text_input("Reason (recorded in the audit)", key=f"contain_forget_reason_{i}", max_chars=500)
    if st.button("Acknowledge and forget the block", key=f"contain_forget_{i}", disabled=not why.strip()) and require(
        Permission.CONTAIN, "acknowledge an undone block"
    ):
        try:
            done = release_on_account(svc, u["route_id"], why, True, page_actor())
        except (AccountRefused, QueryFailed) as exc:
            st.error(f"**Not recorded, nothing changed.** {md_text(exc)}")
        else:
            if done is not None:
                st.session_state.contain_forget_notice = md_text(done["message"]) + "."
            st.rerun()
forget_notice = st.session_state.pop("contain_forget_notice", None)
if forget_notice:
    st.success(forget_notice)

st.subheader("Run")
gemini_ok, gemini_why = svc.gemini().availability()
labels = {
    "rules": "Rules playbook (rules-v4)",
    "analyst": "Analyst — you choose each action",
    "gemini": f"Gemini ({md_text(gemini_why)})" if gemini_ok else f"Gemini — unavailable: {md_text(gemini_why)}",
}
decider = st.radio("Decider", ["rules", "analyst", "gemini"], key="contain_decider", format_func=labels.get)
if decider == "rules":
    st.caption(RULES_PLAYBOOK)
if decider == "gemini" and not gemini_ok:
    st.warning(f"Gemini is unavailable ({md_text(gemini_why)}). It is never replaced silently: choose another decider.")
st.session_state.setdefault("contain_cap", 3)  # the default through the state: `?cap=` sets it (see graph.py)
cap = st.number_input("Action cap (1-10)", min_value=1, max_value=10, step=1, key="contain_cap")
confirm_text = "I confirm: this run may block session routes in the graph"
if any(r.get("principal") == "user" for r in revocations):
    confirm_text += (
        " and revoke sessions already issued on the AWS account, the user's own and those of the roles above"
        " (every such session issued before now stops)"
    )
elif revocations:
    confirm_text += " and revoke the role's active sessions on the AWS account (every session issued before now stops)"
confirm = st.checkbox(confirm_text, key="contain_confirm")
if not current_access().can(Permission.CONTAIN):
    st.caption("Containment runs need the responder or admin role.")
blocked_reason = None
if refusals:
    blocked_reason = "Refused before any write, nothing would be written: " + md_text("; ".join(refusals))
elif not confirm:
    blocked_reason = "Tick the confirmation to enable the run."
elif decider == "gemini" and not gemini_ok:
    blocked_reason = "Gemini is unavailable."
elif session is not None:
    blocked_reason = "Finish or end the analyst run in progress first."
elif candidates.status is Status.OK and not candidates.qualifying_paths:
    blocked_reason = "Nothing to contain: no qualifying path now (fresh query)."
start = st.button("Start containment run", key="contain_start", type="primary", disabled=blocked_reason is not None)
if blocked_reason:
    st.caption(blocked_reason)

finished = False
if start and require(Permission.CONTAIN, "run containment"):
    try:
        svc.controller.effector = responder_for(svc)  # the profiles as configured now
    except ValueError as exc:
        st.error(f"**AWS responding is misconfigured:** {md_text(exc)}. Nothing was done.")
        st.stop()
    st.session_state.contain_plans = st.session_state.contain_revoke_plans = None  # the account changes: plan afresh
    st.session_state.contain_before = svc.tools.get_evidence_graph(alert_id, 6)
    with st.status(f"Containment run on {md_text(alert_id)} ({decider})…", expanded=True) as progress:

        def on_step(run, step):
            progress.write(f"**{step.seq}. {md_text(step.kind)}** — {md_text(step.summary)}")

        try:
            session = svc.controller.start(alert_id, decider, int(cap), confirm, on_step=on_step, actor=page_actor())
        except RunRefused as exc:
            progress.update(label="Run refused: nothing was done", state="error")
            st.error(md_text(exc))
        else:
            if decider == "analyst" and not session.run.state.terminal:
                session.on_step = None
                st.session_state.contain_session = session
                wait_for_analyst(svc, session)
                progress.update(label="Waiting for your choice", state="running")
            else:
                chosen = svc.decider(decider)
                while not session.run.state.terminal:
                    session.advance(chosen)
                st.session_state.contain_last_run = session.run.run_id
                ok = session.run.state is RunState.COMPLETED  # graph_only is never shown as done
                progress.update(label=f"Run {session.run.state.value}", state="complete" if ok else "error")
                finished = True
    session = st.session_state.contain_session
    if finished:
        st.rerun()  # the candidates and the Start button above are drawn afresh, after the run's blocks

if session is not None:
    st.subheader(f"Analyst run {md_text(session.run.run_id)}: your choice")
    for step in session.run.steps:
        st.markdown(f"**{step.seq}. {md_text(step.kind)}** — {md_text(step.summary)}")
    current = session.offered(svc.tools.get_response_candidates(session.run.alert_id))
    picks = (
        [(c.id, f"Block {md_text(c.route_id)} (cuts {c.paths_cut})") for c in current.candidates]
        + [(r.id, f"Revoke the active sessions of {md_text(r.role)} (cuts no path)") for r in current.revocations]
        if current.status is Status.OK
        else []
    )
    for i, (pick, label) in enumerate(picks):
        if st.button(label, key=f"contain_pick_{i}") and require(Permission.CONTAIN, "block routes"):
            session.advance(AnalystDecider([pick]))
            if session.run.state.terminal:
                analyst_done(svc, session.run.run_id)
                st.session_state.contain_last_run = session.run.run_id
                st.session_state.contain_session = None
            else:
                wait_for_analyst(svc, session)
            st.rerun()
    if st.button("End run", key="contain_end") and require(Permission.CONTAIN, "end a containment run"):
        session.end()
        analyst_done(svc, session.run.run_id)
        st.session_state.contain_last_run = session.run.run_id
        st.session_state.contain_session = None
        st.rerun()

run_id = st.session_state.contain_last_run
if run_id and session is None:
    run = svc.audit.get(run_id)
    if run is None:
        st.error(f"Run {md_text(run_id)} is not in the audit.")
        st.stop()
    st.divider()
    remaining = "unknown" if run.remaining_paths is None else run.remaining_paths
    # what the run applied on the account: its route actions and its session revocations, each re-read now
    on_account = {a.route_id for a in run.actions if a.aws is not None and a.aws.applied_in_aws and a.applied}
    checked = {r["route_id"]: r["state"] for r in (reverified.result.get("checked", []) if reverified else [])}
    if run.state is RunState.COMPLETED and on_account and not all(checked.get(r) == "holds" for r in on_account):
        # a run that acted on the account reads "contained" only while a fresh read of the account says so
        st.warning(
            f"### COMPLETED in the graph — the account does not confirm it now\n{md_text(run.reason)}. Re-read on"
            " the account now: "
            + ", ".join(f"{md_code(r)} {checked.get(r, 'not re-read')}" for r in sorted(on_account))
            + ". Not shown as contained until the account answers that it holds."
        )
    elif run.state is RunState.COMPLETED:
        st.success(f"### CONTAINED — completed\n{md_text(run.reason)}. Remaining qualifying paths: **0**.")
    elif run.state is RunState.STOPPED:
        st.warning(f"### NOT CONTAINED — stopped\n{md_text(run.reason)}. Remaining qualifying paths: **{remaining}**.")
    elif run_state_message(run)[0] == "warning":
        st.warning(run_state_message(run)[1])
    elif run_state_message(run)[0] == "error":
        st.error(run_state_message(run)[1])
    else:
        st.error(f"### FAILED\n{md_text(run.reason)}. Nothing here means contained.")
    record_seen(RunSeen.from_run(run))
    m1, m2, m3 = st.columns(3)
    m1.metric("Actions", len(run.actions))
    m2.metric("Verified", sum(a.verified for a in run.actions))
    m3.metric("Remaining paths", remaining)
    st.caption(
        f"Run `{run.run_id}` on {md_text(run.alert_id)} · decider {md_text(run.decider)} · cap {run.max_actions}"
        f" · started by {md_text(run.actor or '—')}"
    )
    if run.actions:
        rows = [a.model_dump(exclude={"aws"}) for a in run.actions]
        st.dataframe(rows, hide_index=True, width="stretch", key="contain_actions")
    aws_actions = [a for a in run.actions if a.aws is not None]
    if aws_actions:
        st.markdown("**On the AWS account** — both verifications: re-read through the API, then asked in the graph")
        st.dataframe(
            [
                {
                    "route": a.route_id,
                    "call": a.aws.call.api if a.aws.call else "—",
                    "in AWS": "applied" if a.aws.applied_in_aws else NOT_APPLIED,
                    "applied on the account": bool(a.applied and a.aws.applied_in_aws),
                    "api_verified": a.api_verified,
                    "graph_verified": a.graph_verified,
                    "request id": a.aws.request_id or "—",
                    "re-sync": a.aws.resync or "—",
                }
                for a in aws_actions
            ],
            hide_index=True,
            width="stretch",
            key="contain_aws_actions",
        )
        if any(a.operation in ("revoke_role_sessions", "revoke_user_sessions") for a in aws_actions):
            st.caption(
                "A session revocation is verified on the account only (`graph_verified` is false): it stops the "
                "sessions issued before it and cuts no qualifying path, so it never contains the paths."
            )
        graph_only = [
            a.route_id for a in aws_actions if a.aws and not a.aws.applied_in_aws and a.operation == "block_route"
        ]
        why = next((a.aws.note for a in aws_actions if a.aws and not a.aws.applied_in_aws), "")
        if graph_only:
            st.warning(
                f"**{NOT_APPLIED}:** {md_text(', '.join(graph_only))} blocked in the graph only "
                f"({md_text(why)}); the credentials still work on "
                "the account. This run is not containment of the account."
            )
    before = st.session_state.contain_before
    after = svc.tools.get_evidence_graph(run.alert_id, 6)
    left, right = st.columns(2)
    with left:
        st.markdown("**Before the run**")
        if before is not None and before.alert_id == run.alert_id:
            draw(before.nodes, before.relationships, graph_id=f"before-{run.run_id}", start=before.entity_id,
                 height=380)  # fmt: skip
        else:
            st.caption("Not captured in this session.")
    with right:
        st.markdown("**Now (fresh query)**")
        show_status(after.status, after.message)
        draw(after.nodes, after.relationships, graph_id=f"after-{run.run_id}", start=after.entity_id, height=380)
    st.caption(LEGEND)
    with st.expander("Steps", expanded=False):
        st.dataframe(step_rows(run), hide_index=True, width="stretch", key="contain_steps")
    st.subheader("Tool trace")
    st.dataframe(trace_rows(run), hide_index=True, width="stretch", key="contain_trace")
    st.subheader("Briefing")
    show_briefing(svc, run.alert_id, run.run_id, key="contain_briefing")
