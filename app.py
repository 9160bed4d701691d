"""BlastShield dashboard entry point: navigation and the one cached service object."""

import streamlit as st

st.set_page_config(page_title="BlastShield", page_icon=":material/shield:", layout="wide")

navigation = st.navigation(
    [
        st.Page("pages/walkthrough.py", title="Walkthrough", icon=":material/tour:"),
        st.Page("pages/alerts.py", title="Alerts", icon=":material/notifications:", default=True),
        st.Page("pages/graph.py", title="Path graph", icon=":material/hub:"),
        st.Page("pages/containment.py", title="Containment", icon=":material/block:"),
        st.Page("pages/audit.py", title="Audit", icon=":material/history:"),
    ]
)
navigation.run()
