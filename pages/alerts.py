"""Alerts: the queue, with computed scores and the count of qualifying paths."""

import streamlit as st

from pages._services import get_services

st.title("🛡️ BlastShield — alert queue")
st.markdown(
    "Each alert names one entity in a synthetic identity-access graph held in FalkorDB. "
    "BlastShield follows **qualifying paths** (active, allowed, no node twice, at most 6 hops) "
    "from that entity to high or critical data, scores the alert with the rule set shown, "
    "and lists what a containment action could cut. Unknown, invalid and failed answers are "
    "shown as such — never as *safe*."
)

svc = get_services()
if svc is not None:
    result = svc.tools.list_alerts()
    if result.status.value != "ok":
        st.error(f"Could not list alerts ({result.status.value}): {result.message}")
    elif not result.alerts:
        st.info("No alerts in the graph. Load the scenarios with `python -m blastshield_core seed`.")
    else:
        st.dataframe(
            [
                {
                    "alert": a.id,
                    "title": a.title,
                    "severity": a.severity or a.status.value,
                    "score": a.risk_score,
                    "rule set": a.rule_set,
                    "entity": a.entity_id,
                    "qualifying paths": a.path_count,
                }
                for a in result.alerts
            ],
            hide_index=True,
            width="stretch",
            key="alerts_table",
        )
        st.caption(f"Graph: {svc.settings.mode} FalkorDB at {svc.store.location}")
