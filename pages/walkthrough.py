"""Walkthrough: the story of BlastShield in six steps, each ticked once its outcome was seen."""

import streamlit as st

from blastshield_core.interfaces.service import (
    SAMPLE_BRIEFINGS,
    STEPS,
    EvidenceUnavailable,
    Permission,
    QueryFailed,
    check_sample_briefings,
    md_text,
    reset_demo,
)
from pages._auth import require
from pages._services import get_services, go_to, init_state, page_actor, record_seen, seen_log, show_status

init_state()
st.session_state.setdefault("walk_notice", None)

st.title(":material/tour: Five-minute walkthrough")
st.markdown(
    "BlastShield turns one alert into graph evidence and a constrained, verified response. Six steps show "
    "why that matters. Each button opens the right page already set up; do what the step says there, then "
    "come back here with **Walkthrough** in the navigation. A step is ticked only once its outcome has been "
    "shown to you in this session. No Gemini key is needed for any step."
)
svc = get_services()
if svc is None:
    st.stop()

log = seen_log()
outcomes = {o.step_id: o for o in log.outcomes()}
seen = sum(o.done for o in outcomes.values())
st.progress(seen / len(STEPS), text=f"{seen} of {len(STEPS)} outcomes seen")
st.caption(
    "Progress is kept while this browser tab stays open: **reloading the page restarts the tour** at 0 of "
    f"{len(STEPS)} (the graph keeps what the steps did; the last step restores it)."
)

if st.session_state.walk_notice:
    st.success(st.session_state.walk_notice)
    st.session_state.walk_notice = None


def sample_checks() -> None:
    """The briefing step: the samples, checked live, with the flags the checker raised."""
    if st.button(step.button, key="walk_check"):
        try:
            checks = check_sample_briefings(svc.briefer)
        except EvidenceUnavailable as exc:
            show_status(exc.status, exc.message)
        else:
            for check in checks:
                record_seen(check)
            st.rerun()
    latest = log.latest_checks()
    for sample in SAMPLE_BRIEFINGS:
        st.markdown(f"**Sample model briefing that {sample.title}:**\n\n> {sample.text}")
        check = latest.get(sample.id)
        if check is None:
            continue
        if check.flags:
            lines = [f"- `{f.kind.value}` — *{md_text(f.offending_text)}*: {md_text(f.evidence)}" for f in check.flags]
            st.error(
                f"**Refused: {len(check.flags)} flag(s)** against a fresh investigation "
                f"({check.evidence_status.value}, {check.evidence_paths} qualifying path(s)):\n" + "\n".join(lines)
            )
        else:
            st.success(
                f"No flag: this text matches a fresh investigation ({check.evidence_status.value}, "
                f"{check.evidence_paths} qualifying path(s))."
            )
    gemini_ok, gemini_why = svc.gemini().availability()
    st.caption(
        "**What Gemini adds.** With `GEMINI_API_KEY` set, Gemini writes each briefing as structured claims "
        "(and can be the containment decider, choosing among the server's candidates). The same checker holds "
        "its briefing against a fresh investigation; any flag means the analyst sees the labelled deterministic "
        "fallback with the flags instead. "
        + (f"Gemini is available here ({gemini_why})." if gemini_ok else f"Here: {gemini_why}.")
    )


def reset() -> None:
    """The last step: restore the scenarios for the next visitor."""
    if st.button(step.button, key="walk_reset") and require(Permission.RESET, "reset the scenarios"):
        try:
            restored = reset_demo(svc, actor=page_actor())
        except QueryFailed as exc:
            st.error(f"Reset failed: {md_text(exc)}")
        else:
            record_seen(restored)
            st.session_state.walk_notice = f"Scenarios restored: {', '.join(restored.loaded)}."
            st.rerun()


for number, step in enumerate(STEPS, 1):
    outcome = outcomes[step.id]
    with st.container(border=True):
        mark = ":green[:material/check_circle:]" if outcome.done else ":gray[:material/radio_button_unchecked:]"
        st.subheader(f"{mark} Step {number}. {step.title}", anchor=False)
        st.markdown(step.look)
        if step.id == "briefing":
            sample_checks()
        elif step.id == "reset":
            reset()
        elif st.button(step.button, key=f"walk_go_{step.id}"):
            go_to(step.page, step.query.as_params())
        if outcome.done:
            st.success(f"Seen: {outcome.detail}")
        else:
            st.caption(outcome.detail)
