"""The dashboard's one cached service object (shared by every session)."""

import streamlit as st

from blastshield_core import QueryFailed, SettingsError, load_settings, open_services


@st.cache_resource(show_spinner="Opening the graph…")
def services():
    return open_services(load_settings(), seed_if_empty=True)


def get_services():
    """The services, or None after showing why they could not be opened."""
    try:
        return services()
    except SettingsError as exc:
        st.error(f"Settings problem: {exc}")
    except QueryFailed as exc:
        st.error(f"The graph database is unavailable: {exc}")
    return None
