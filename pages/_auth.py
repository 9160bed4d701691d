"""Who is using the dashboard and what they may do: the page side of blastshield_core.base.access.

`gate()` runs in app.py before any page: it refuses to serve beyond loopback without sign-in and
asks for sign-in when it is configured. `page_banner()` (called by every page through
`get_services()`) shows the open-dashboard warning or the signed-in user and role. Pages call
`require(permission, what)` in the code path of every write (not only to hide a button), and
`current_user()` names the actor.
"""

from __future__ import annotations

import getpass
import os
import sys

import streamlit as st
from streamlit import config as st_config

from blastshield_core.interfaces.service import (
    ALLOW_UNAUTHENTICATED_ENV,
    Access,
    Exposure,
    Permission,
    Role,
    RolesError,
    SettingsError,
    UntrustedLocation,
    decide_exposure,
    ensure_token,
    load_roles,
    load_settings,
    local_access,
    md_code,
    md_text,
    role_for,
    token_matches,
    token_path,
)

__all__ = ["current_access", "current_user", "exposure", "gate", "page_banner", "require", "sign_in_configured"]

SIGN_IN_HELP = (
    "Configure sign-in: add an `[auth]` section to `.streamlit/secrets.toml` (`redirect_uri`, `cookie_secret`, "
    "`client_id`, `client_secret`, `server_metadata_url` of your OpenID Connect provider) and map users to roles "
    "in the roles file (`BLASTSHIELD_ROLES_FILE`, default `.streamlit/roles.toml`). See README, *Sharing the "
    f"dashboard*. Or serve on loopback only (the default), or set `{ALLOW_UNAUTHENTICATED_ENV}=1` to serve "
    "without sign-in anyway."
)


def sign_in_configured() -> bool:
    """True when `.streamlit/secrets.toml` has an `[auth]` section."""
    try:
        return "auth" in st.secrets
    except Exception:  # no secrets file at all
        return False


def _provider() -> str | None:
    """The provider to pass to `st.login`: None for a flat `[auth]`, else the first `[auth.NAME]`."""
    section = st.secrets["auth"]
    if "client_id" in section:
        return None
    return next((name for name, value in section.items() if hasattr(value, "keys")), None)


def _address() -> str | None:
    """The address the server listens on (`server.address`; unset means every interface)."""
    return st_config.get_option("server.address")


def exposure() -> Exposure:
    return decide_exposure(_address(), sign_in_configured(), os.environ)


def _logged_in() -> bool:
    return st.user.get("is_logged_in") is True


def _local_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "local"


def _roles_problem() -> str | None:
    try:
        load_roles(load_settings().roles_file)
    except (RolesError, SettingsError) as exc:
        return str(exc)
    return None


def current_access() -> Access:
    """The user this session acts for and their role, derived afresh on the server for every call."""
    mode = exposure()
    if mode is Exposure.LOCAL:
        return local_access(_local_user())
    if mode is Exposure.OPEN:
        return Access(user="unauthenticated", role=Role.ADMIN, signed_in=False)  # the operator chose it
    if mode is Exposure.REFUSED or not _logged_in():
        return Access(user="anonymous", role=None, signed_in=False)
    claims = st.user.to_dict()
    user = str(claims.get("email") or claims.get("preferred_username") or claims.get("sub") or "unknown")
    try:
        roles = load_roles(load_settings().roles_file)
    except (RolesError, SettingsError):
        return Access(user=user, role=None, signed_in=True)
    return Access(user=user, role=role_for(claims, roles), signed_in=True)


def current_user() -> str:
    """The actor name for audit records: the signed-in email, or the local OS user without sign-in."""
    return current_access().user


def require(permission: Permission, what: str) -> bool:
    """Check, on the server, that the current user may do this; say so on the page when not."""
    access = current_access()
    if access.can(permission):
        return True
    role = access.role.value if access.role else "no role"
    st.error(f"**Not allowed:** {md_text(access.user)} ({role}) may not {what}. Nothing was done.")
    return False


def _refused() -> None:
    st.title("BlastShield: sign-in required")
    st.error(
        f"This dashboard is served on {md_code(_address() or 'every interface')}, "
        f"beyond loopback, without sign-in, so it serves nothing. {SIGN_IN_HELP}"
    )


def _sign_in() -> None:
    st.title("BlastShield")
    st.write("Sign in to see the alert queue.")
    if st.button("Sign in", key="auth_login", type="primary"):
        st.login(_provider())


def _no_role() -> None:
    access = current_access()
    st.title("BlastShield")
    problem = _roles_problem()
    st.error(
        f"Signed in as {md_code(access.user)}, but no role is granted to this account"
        + (f" ({md_text(problem)})" if problem else "")
        + ". Ask an administrator to add you to the roles file."
    )
    if st.button("Sign out", key="auth_logout_norole"):
        st.logout()


def _only(page_fn, title: str) -> bool:
    st.navigation([st.Page(page_fn, title=title, default=True)], position="hidden").run()
    return False


def _token() -> str:
    """This dashboard's token (made, and its URL printed in the server's log, when there is none yet)."""
    settings = load_settings()
    path = token_path(settings.data_dir, settings.token_file)
    token, made = ensure_token(path)
    if made:
        print(f"BlastShield dashboard: a new token was made in {path}; start the dashboard with `make run`",
              file=sys.stderr, flush=True)  # fmt: skip
    return token


def _served_under_token() -> bool:
    """On loopback without sign-in: the server serves every URL under the token (`server.baseUrlPath`,
    set by `make run`), so a session exists only for a browser that opened the token's URL. Nothing
    the session sends (a query parameter, a cookie) can stand in for it: another local user's page
    on 127.0.0.1 reads or forges those."""
    served = str(st_config.get_option("server.baseUrlPath") or "").strip("/")
    return token_matches(served, _token())


def _token_required(problem: str | None = None) -> None:
    st.title("BlastShield: token required")
    st.error(
        "This dashboard belongs to the user who started it, and is served only under the URL with its token. "
        "Start it with `make run` (or `python -m blastshield_core.interfaces.dashboard_run`) and open the URL "
        "it prints (the token is kept in a file only that user can read)." + (f" {md_text(problem)}" if problem else "")
    )


def gate() -> bool:
    """Decide whether pages may be served to this session; when not, render the one page that explains why."""
    mode = exposure()
    if mode is Exposure.REFUSED:
        return _only(_refused, "Sign-in required")
    if mode is Exposure.LOCAL:
        try:
            if not _served_under_token():
                return _only(_token_required, "Token required")
        except (UntrustedLocation, SettingsError, OSError) as exc:
            problem = str(exc)
            return _only(lambda: _token_required(problem), "Token required")
    if mode is Exposure.SIGN_IN:
        if not _logged_in():
            return _only(_sign_in, "Sign in")
        access = current_access()
        if access.role is None:
            return _only(_no_role, "No role")
    return True


def page_banner() -> None:
    """On every page: the open-dashboard warning, or who is signed in with which role."""
    mode = exposure()
    if mode is Exposure.OPEN:
        st.warning(
            f"**Open dashboard:** served beyond loopback without sign-in ({ALLOW_UNAUTHENTICATED_ENV} is set). "
            "Anyone who can reach it can import, reset and run containment.",
            icon=":material/lock_open:",
        )
    elif mode is Exposure.SIGN_IN:
        access = current_access()
        st.sidebar.caption(f"Signed in as {md_code(access.user)} · role **{access.role or 'none'}**")
        if st.sidebar.button("Sign out", key="auth_logout"):
            st.logout()
