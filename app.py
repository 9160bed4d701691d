"""BlastShield dashboard entry point: navigation and the one cached service object."""

from pathlib import Path

import streamlit as st

from pages._auth import gate

# The page icon is a bundled file, served from the dashboard's own origin (a Material icon here is
# fetched from a public font host: offline it fails, and it tells a third party the dashboard is open).
st.set_page_config(
    page_title="BlastShield", page_icon=str(Path(__file__).parent / "assets" / "shield.png"), layout="wide"
)
# Beyond loopback without sign-in nothing is served; with sign-in, only to a user with a role.
if not gate():
    st.stop()

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
