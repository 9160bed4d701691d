"""Shared page plumbing: the one cached service object, the selected alert, state messages.

Nothing here queries the graph itself; it only calls blastshield_core.
"""

from __future__ import annotations

import weakref

import streamlit as st

from blastshield_core.interfaces.service import (
    AccountRefused,
    AlertInputError,
    DocumentError,
    Permission,
    QueryFailed,
    SettingsError,
    Status,
    account_releasable,
    build_request,
    is_valid_id,
    load_settings,
    local_actor,
    md_code,
    md_text,
    open_alert,
    open_services,
    release_needs_acknowledgement,
    release_on_account,
    safe_markdown,
)

SEVERITY_BADGE = {"critical": "■■■■ critical", "high": "■■■□ high", "medium": "■■□□ medium", "low": "■□□□ low"}


@st.cache_resource(show_spinner="Opening the graph…")
def services():
    return open_services(load_settings(), seed_if_empty=True)


def get_services():
    """The services, or None after showing why they could not be opened."""
    from pages._auth import page_banner

    page_banner()  # every page calls this first: the open-dashboard warning or who is signed in
    try:
        return services()
    except SettingsError as exc:
        st.error(f"Settings problem: {md_text(exc)}")
    except QueryFailed as exc:
        st.error(
            f"**The graph database is unavailable.** {md_text(exc)}\n\n"
            "Check `FALKORDB_URL` (or unset it to use the embedded database) and reload."
        )
    return None


def init_state() -> None:
    """Session keys shared across pages, initialised once. `?alert=ID` in the URL selects an alert."""
    st.session_state.setdefault("selected_alert", None)
    wanted = st.query_params.get("alert")
    if wanted and is_valid_id(wanted) and st.session_state.get("_query_alert") != wanted:
        st.session_state._query_alert = wanted
        st.session_state.selected_alert = wanted
        for key in ("alerts_select", "graph_alert", "contain_alert"):
            st.session_state.pop(key, None)


def alert_picker(svc, key: str) -> str | None:
    """A selectbox of alert ids that follows (and updates) the selected alert."""
    init_state()
    try:
        choices = svc.tools.alert_choices()  # ids and titles only: no investigation per alert on every rerun
    except QueryFailed as exc:
        show_status(Status.QUERY_FAILED, str(exc))
        return None
    ids = [alert_id for alert_id, _ in choices]
    if not ids:
        st.info("No alerts in the graph. Import a document or reset the scenarios on the Alerts page.")
        return None
    current = st.session_state.selected_alert
    if key not in st.session_state or st.session_state[key] not in ids:
        st.session_state[key] = current if current in ids else ids[0]
    labels = {alert_id: f"{alert_id} · {title}" for alert_id, title in choices}
    chosen = st.selectbox("Alert", ids, key=key, format_func=lambda i: labels.get(i, i))
    st.session_state.selected_alert = chosen
    return chosen


def show_status(status: Status, message: str, depth: int | None = None, *, exposure: bool = True) -> None:
    """One clear message per result state; none of them reads as safe."""
    message = md_text(message)  # messages carry ids, names and typed input: text, never Markdown
    if status is Status.PATHS_FOUND:
        if exposure:
            st.error(f"**Exposed:** {message}", icon=":material/warning:")
        else:
            st.warning(f"**Path found:** {message}", icon=":material/route:")
    elif status is Status.NO_PATH:
        bound = f" within {depth} hops" if depth else ""
        st.info(
            f"**No qualifying path{bound}** (fresh query). {message}. This is not a statement that the entity "
            "is safe: only modelled, active, allowed relationships were searched.",
            icon=":material/search:",
        )
    elif status in (Status.UNKNOWN_ALERT, Status.UNKNOWN_SOURCE, Status.UNKNOWN_TARGET):
        st.warning(f"**Unknown ({status.value}):** {message}. This is not a 'no path' answer.", icon=":material/help:")
    elif status is Status.INVALID_INPUT:
        st.error(f"**Invalid input:** {message}. Nothing was queried.", icon=":material/block:")
    elif status is Status.QUERY_FAILED:
        st.error(f"**Query failed:** {message}. Nothing can be concluded from this answer.", icon=":material/error:")
    else:
        st.caption(message)


def show_briefing(svc, alert_id: str, run_id: str | None = None, *, key: str) -> None:
    """The briefing shown to an analyst: the model's (checked) or the labelled fallback, with flags.

    Kept per alert/run in the session so a rerun does not ask the model again.
    """
    from blastshield_core.interfaces.service import EvidenceUnavailable

    cache = st.session_state.setdefault("briefings", {})
    cache_key = (key, alert_id, run_id)
    if st.button("Write a fresh briefing", key=f"{key}_refresh"):
        cache.pop(cache_key, None)
    if cache_key not in cache:
        try:
            cache[cache_key] = svc.briefer.brief(alert_id, run_id)
        except EvidenceUnavailable as exc:
            show_status(exc.status, exc.message)
            return
    briefing = cache[cache_key]
    show_containment_banner(svc, alert_id)
    if briefing.label == "model":
        st.success(f"**Model briefing ({briefing.model}) — checked against a fresh investigation, no contradiction.**")
    else:
        st.warning(f"**Deterministic fallback briefing** — reason: {md_text(briefing.reason)}")
    if briefing.flags:
        st.error(f"The model's briefing was not shown: {len(briefing.flags)} claim(s) contradict the graph.")
        st.dataframe(
            [{"kind": f.kind.value, "claim": f.offending_text, "evidence": f.evidence} for f in briefing.flags],
            hide_index=True,
            width="stretch",
            key=f"{key}_flags",
        )
    with st.container(border=True):
        st.markdown(safe_markdown(briefing.markdown))  # formatting kept; no link, image or HTML


def show_containment_banner(svc, alert_id: str) -> None:
    """The containment state above a briefing: asked of the graph on every render, never taken from the briefing."""
    banner = svc.briefer.containment_banner(alert_id)
    when = banner.checked_at.strftime("%H:%M:%S UTC")
    if banner.containment_state == "exposed":
        st.error(f"**Not contained (fresh query, {when}):** {md_text(banner.message)}.", icon=":material/warning:")
    elif banner.containment_state == "contained":
        st.success(f"**Contained (fresh query, {when}):** {md_text(banner.message)}.", icon=":material/verified:")
    else:
        show_status(banner.status, banner.message)


def step_rows(run) -> list[dict]:
    return [{"#": s.seq, "step": s.kind, "summary": s.summary, "at": s.at.isoformat()} for s in run.steps]


def trace_rows(run) -> list[dict]:
    """Every traced tool call of a run, by step."""
    return [
        {
            "step": s.seq,
            "tool": t.tool,
            "input": str(t.input),
            "status": t.status.value,
            "results": t.result_count,
            "ms": t.duration_ms,
            "at": t.at.isoformat(),
        }
        for s in run.steps
        for t in s.trace
    ]


def open_alert_on(svc, entity_id: str, title: str, *, switch: bool = False) -> None:
    """Open an analyst alert on a resolved entity and select it in the queue on the next run, shown
    there with a notice (with `switch`, from another page: the Alerts page is opened); or say why not."""
    try:
        opened = open_alert(svc.store, build_request(entity_id, title), actor=page_actor())
    except AlertInputError as exc:
        st.error(f"**Invalid input, nothing written.** {md_text(exc)}")
    except (DocumentError, QueryFailed) as exc:
        st.error(f"**Could not open the alert, nothing written.** {md_text(exc)}")
    else:
        st.session_state.alerts_open_matches = None
        st.session_state.alerts_pending_select = opened.alert_id
        st.session_state.alerts_notice = (
            "success",
            f"Opened alert **{md_text(opened.alert_id)}** on {md_code(opened.entity_id)} ({opened.entity_label}); "
            "it is selected.",
        )
        if switch:
            st.switch_page("pages/alerts.py")
        st.rerun()


def page_actor() -> str:
    """Who is acting in this dashboard session: every page write passes this as its actor.

    The signed-in user when sign-in is configured, else the local operating-system user."""
    from pages._auth import current_user

    return current_user() or local_actor()


class _WaitingRunGuard:
    """Held in one dashboard session's state while its analyst run waits for a choice: when the
    session's state is dropped (the session ended), the run is abandoned."""

    def __init__(self, svc, run_id: str):
        self.run_id = run_id
        weakref.finalize(self, svc.waiting.abandon, run_id)


def wait_for_analyst(svc, session) -> None:
    """Register an analyst run that now waits in this dashboard session."""
    svc.waiting.wait(session)
    guard = st.session_state.get("contain_waiting_guard")
    if guard is None or guard.run_id != session.run.run_id:  # a replaced guard would abandon its run
        st.session_state.contain_waiting_guard = _WaitingRunGuard(svc, session.run.run_id)


def analyst_done(svc, run_id: str) -> None:
    """The analyst run no longer waits (ended or finished)."""
    svc.waiting.done(run_id)  # first: the guard dropped next then finds nothing to abandon
    st.session_state.pop("contain_waiting_guard", None)


def settle_runs(svc) -> list[str]:
    """Runs no one will finish: analyst runs that waited past the limit (in any session) become
    `abandoned`, runs of processes that are gone (a killed CLI run) become `interrupted`; their ids."""
    ended = svc.waiting.sweep()
    try:
        ended += svc.audit.recover_interrupted()
    except QueryFailed:
        pass  # the pages report an unreachable database themselves
    return ended


def run_state_message(run) -> tuple[str, str]:
    """(kind, text) for a run's state; interrupted, abandoned and graph_only are never read as contained."""
    remaining = "unknown" if run.remaining_paths is None else run.remaining_paths
    if run.state.value == "interrupted":
        return "error", f"### INTERRUPTED\n{md_text(run.reason)}. Nothing here means contained."
    if run.state.value == "graph_only":
        return "warning", (
            f"### PLANNED IN THE GRAPH ONLY — graph_only\nPlanned in the graph; the credentials still work on the"
            f" account. This run is not containment of the account. {md_text(run.reason)}."
        )
    if run.state.value == "abandoned":
        return "warning", f"### ABANDONED\n{md_text(run.reason)}. Remaining qualifying paths: **{remaining}**."
    return "", ""


def _may(permission: Permission, what: str) -> bool:
    """The server-side role check of pages._auth (imported late, as get_services does)."""
    from pages._auth import require

    return require(permission, what)


def release_form(svc, route_ids: list[str], *, key: str) -> None:
    """Release a route BlastShield blocked: choose it, give a reason, confirm; the answer is shown.
    A route a run changed on the AWS account is restored there (its before-image), or refused."""
    notice = st.session_state.pop(f"{key}_release_notice", None)
    if notice:  # the released route has left the list: say what happened before returning
        st.success(notice)
    if not route_ids:
        return
    on_account = {a["route_id"]: a for a in account_releasable(svc)}
    with st.expander("Release a blocked route (audited)", expanded=False):
        route = st.selectbox("Route", route_ids, key=f"{key}_release_route")
        reason = st.text_input("Reason (recorded in the audit)", key=f"{key}_release_reason", max_chars=500)
        sure = st.checkbox(
            "I confirm: this route becomes active again and its qualifying paths come back",
            key=f"{key}_release_confirm",
        )
        acknowledge = False
        if route in on_account:
            st.caption(f"Changed on the AWS account by run {md_text(on_account[route]['run_id'])}: release restores "
                       "the before-image there, or refuses if someone else changed it since.")  # fmt: skip
            needs = release_needs_acknowledgement(on_account[route]["kind"])
            if needs:
                acknowledge = st.checkbox(f"I acknowledge: {needs}", key=f"{key}_release_ack")
        if st.button("Release route", key=f"{key}_release", disabled=not (sure and reason.strip())) and _may(
            Permission.CONTAIN, "release routes"
        ):
            if route in on_account:
                try:
                    done = release_on_account(svc, route, reason, sure, page_actor(), acknowledge=acknowledge)
                except AccountRefused as exc:
                    st.error(f"**Release refused, nothing changed.** {md_text(exc)}")
                    return
                except QueryFailed as exc:
                    show_status(Status.QUERY_FAILED, str(exc))
                    return
                if done is not None and done["state"] == "forgotten":  # undone on the account: acknowledged
                    st.session_state[f"{key}_release_notice"] = md_text(done["message"]) + "."
                    st.rerun()
                if done is not None:
                    reopened = ", ".join(
                        f"{md_text(a['alert_id'])} ({a['paths_before']} → {a['paths_after']})"
                        for a in done["alerts_reopened"]
                    )
                    st.session_state[f"{key}_release_notice"] = (
                        f"Released **{md_text(route)}** on the AWS account as {md_text(done['actor'])}: "
                        f"{md_text(done['call']['api'])} (request {md_text(done['request_id'])}); re-read through "
                        f"the API: {'verified' if done['api_verified'] else 'NOT confirmed'}; graph re-sync: "
                        f"{md_text(done['resync'])}. Alerts with qualifying paths again: {reopened or 'none'}."
                    )
                    st.rerun()
            result = svc.actions.release_route(route, reason, confirm=sure, actor=page_actor())
            if result.status is Status.OK:
                reopened = ", ".join(
                    f"{md_text(a.alert_id)} ({a.paths_before} → {a.paths_after})" for a in result.alerts_reopened
                )
                st.session_state[f"{key}_release_notice"] = (
                    f"Released **{md_text(route)}** as {md_text(result.actor)} (blocked by "
                    f"{md_text(result.blocked_by_run)}). Alerts with qualifying paths again: {reopened or 'none'}."
                )
                st.rerun()
            else:
                show_status(result.status, result.message)


# -- query parameters and what the walkthrough reads back -------------------------------

PAGE_FILES = {"graph": "pages/graph.py", "containment": "pages/containment.py", "walkthrough": "pages/walkthrough.py"}


def query_state(**widgets: str) -> None:
    """Initial widget values from the URL (`?depth=`, `?decider=`, `?cap=`), set once per arrival.

    `query_state(depth="graph_depth")` sets the `graph_depth` widget from `?depth=` the first time
    the page sees that value; afterwards the widget works normally. Invalid values are ignored."""
    from blastshield_core.interfaces.service import PageQuery

    query = PageQuery.from_params(st.query_params.to_dict())
    applied = st.session_state.setdefault("_query_applied", {})
    for name, key in widgets.items():
        value = getattr(query, name)
        # Applied again when the widget's state is gone: Streamlit drops the state of a widget that a
        # finished run did not draw (a first run on a cold server that stopped before it), and the
        # widget would then show its default instead of the value in the URL.
        if value is not None and (applied.get(key) != value or key not in st.session_state):
            applied[key] = value
            st.session_state[key] = value


def go_to(page: str, params: dict[str, str]) -> None:
    """Switch to a page with query parameters that it applies afresh (an arrival)."""
    st.session_state.pop("_query_applied", None)
    st.session_state.pop("_query_alert", None)
    st.switch_page(PAGE_FILES[page], query_params=params)


def seen_log():
    """What the pages rendered in this session (read by the walkthrough's check marks)."""
    from blastshield_core.interfaces.service import SeenLog

    return st.session_state.setdefault("walkthrough_seen", SeenLog())


def record_seen(item) -> None:
    """Record what a page just rendered (a `blastshield_core.interfaces.walkthrough` record)."""
    seen_log().record(item)
