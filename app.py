"""BlastShield dashboard entry point: navigation and the one cached service object."""

from pathlib import Path

import streamlit as st

from blastshield_core.interfaces.service import Permission
from pages._auth import current_access, gate

# The page icon is a bundled file, served from the dashboard's own origin (a Material icon here is
# fetched from a public font host: offline it fails, and it tells a third party the dashboard is open).
st.set_page_config(
    page_title="BlastShield", page_icon=str(Path(__file__).parent / "assets" / "shield.png"), layout="wide"
)
# Beyond loopback without sign-in nothing is served; with sign-in, only to a user with a role.
if not gate():
    st.stop()

pages = [
    st.Page("pages/walkthrough.py", title="Walkthrough", icon=":material/tour:"),
    st.Page("pages/alerts.py", title="Alerts", icon=":material/notifications:", default=True),
    st.Page("pages/graph.py", title="Path graph", icon=":material/hub:"),
    st.Page("pages/containment.py", title="Containment", icon=":material/block:"),
    st.Page("pages/audit.py", title="Audit", icon=":material/history:"),
]
# Importing and collecting AWS accounts writes the graph: the page is listed for whoever may import
# (the admin role); the page itself and each of its writes check the permission again.
if current_access().can(Permission.IMPORT):
    pages.insert(2, st.Page("pages/aws.py", title="AWS accounts", icon=":material/cloud_upload:"))
navigation = st.navigation(pages)
navigation.run()
