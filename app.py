"""BlastShield dashboard entry point: navigation and the one cached service object."""

import streamlit as st

st.set_page_config(page_title="BlastShield", page_icon="🛡️", layout="wide")

navigation = st.navigation([st.Page("pages/alerts.py", title="Alerts", icon="🚨", default=True)])
navigation.run()
