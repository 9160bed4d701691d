"""Exposure, roles and permissions (blastshield_core.base.access): pure rules, no dashboard."""

from __future__ import annotations

import pytest

from blastshield_core.base.access import (
    ALLOW_UNAUTHENTICATED_ENV,
    Access,
    Exposure,
    Permission,
    Role,
    RolesConfig,
    RolesError,
    decide_exposure,
    is_loopback,
    load_roles,
    local_access,
    role_for,
)

CONFIG = RolesConfig(
    users={"Ann@Example.com": Role.VIEWER, "bob@example.com": Role.ADMIN},
    groups={"soc-responders": Role.RESPONDER},
)


@pytest.mark.parametrize(
    ("address", "expected"),
    [("127.0.0.1", True), ("127.0.0.2", True), ("::1", True), ("[::1]", True), ("localhost", True),
     ("0.0.0.0", False), ("::", False), ("", False), (None, False), ("10.0.0.5", False), ("example.com", False)],
)  # fmt: skip
def test_is_loopback(address, expected):
    """Only loopback addresses count as local; unset means every interface."""
    assert is_loopback(address) is expected


def test_exposure_local_on_loopback_without_sign_in():
    """Loopback without sign-in serves the local user."""
    assert decide_exposure("127.0.0.1", False, {}) is Exposure.LOCAL


def test_exposure_refused_beyond_loopback_without_sign_in():
    """Every interface without sign-in is refused."""
    assert decide_exposure("0.0.0.0", False, {}) is Exposure.REFUSED
    assert decide_exposure(None, False, {ALLOW_UNAUTHENTICATED_ENV: "0"}) is Exposure.REFUSED


def test_exposure_open_only_with_the_override():
    """The documented override serves beyond loopback without sign-in."""
    assert decide_exposure("0.0.0.0", False, {ALLOW_UNAUTHENTICATED_ENV: "1"}) is Exposure.OPEN


def test_exposure_sign_in_wherever_configured():
    """Configured sign-in applies on loopback too."""
    assert decide_exposure("127.0.0.1", True, {}) is Exposure.SIGN_IN
    assert decide_exposure("0.0.0.0", True, {}) is Exposure.SIGN_IN


def test_role_by_email_is_case_insensitive():
    """An email in the users table maps to its role whatever its case."""
    assert role_for({"email": "ann@EXAMPLE.com"}, CONFIG) is Role.VIEWER


def test_role_by_group_claim():
    """A group in the groups claim maps to its role."""
    assert role_for({"email": "c@example.com", "groups": ["x", "soc-responders"]}, CONFIG) is Role.RESPONDER


def test_highest_role_wins():
    """A user matched by email and group gets the higher role."""
    assert role_for({"email": "ann@example.com", "groups": "soc-responders"}, CONFIG) is Role.RESPONDER


def test_unverified_email_is_ignored():
    """An email the provider marks unverified grants nothing."""
    assert role_for({"email": "bob@example.com", "email_verified": False}, CONFIG) is None


def test_unknown_user_has_no_role():
    """Nobody not in the file gets a role."""
    assert role_for({"email": "mallory@example.com", "groups": ["other"]}, CONFIG) is None


@pytest.mark.parametrize(
    ("role", "allowed"),
    [(Role.VIEWER, {Permission.READ}),
     (Role.RESPONDER, {Permission.READ, Permission.CONTAIN}),
     (Role.ADMIN, set(Permission)),
     (None, set())],
)  # fmt: skip
def test_permissions_by_role(role, allowed):
    """viewer reads; responder also contains; admin also imports, exports, resets; no role nothing."""
    access = Access(user="u", role=role, signed_in=True)
    assert {p for p in Permission if access.can(p)} == allowed


def test_local_user_has_every_role():
    """Without sign-in on loopback the local user may do everything."""
    assert all(local_access("me").can(p) for p in Permission)


def test_load_roles_toml_and_json(tmp_path):
    """The roles file is read as TOML, or JSON by its suffix."""
    (tmp_path / "r.toml").write_text('groups_claim = "roles"\n[users]\n"a@x.org" = "admin"\n')
    (tmp_path / "r.json").write_text('{"groups": {"g": "viewer"}}')
    assert load_roles(tmp_path / "r.toml").users == {"a@x.org": Role.ADMIN}
    assert load_roles(tmp_path / "r.json").groups == {"g": Role.VIEWER}


@pytest.mark.parametrize(
    "text",
    ['[users]\n"a@x.org" = "root"\n', '[users]\n"not-an-email" = "admin"\n', "owners = {}\n", "[users\n"],
)
def test_load_roles_rejects_invalid(tmp_path, text):
    """An unknown role, a malformed email, an unknown key or broken TOML is rejected whole."""
    path = tmp_path / "roles.toml"
    path.write_text(text)
    with pytest.raises(RolesError, match="roles file"):
        load_roles(path)


def test_load_roles_missing_file(tmp_path):
    """A missing roles file is an error, never an empty grant."""
    with pytest.raises(RolesError, match="cannot read"):
        load_roles(tmp_path / "absent.toml")
