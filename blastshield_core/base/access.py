"""Who may do what on the dashboard: exposure, roles and permissions (pure, no Streamlit).

- **Exposure.** On a loopback address without sign-in the local user has every role. On any other
  address sign-in is required; without it the dashboard refuses to serve unless the operator sets
  `BLASTSHIELD_ALLOW_UNAUTHENTICATED=1`, and then every page carries a warning.
- **Roles.** A small TOML or JSON file maps signed-in users (by email) and group claims to `viewer`
  (read everything), `responder` (also containment runs and route release) and `admin` (also
  import, export, reset). A user matching several entries gets the highest role; a user matching
  none gets no role and sees nothing.
"""

import ipaddress
import json
import tomllib
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = [
    "ALLOW_UNAUTHENTICATED_ENV",
    "VIEWER_MAX_ALERTS",
    "Access",
    "Exposure",
    "Permission",
    "Role",
    "RolesConfig",
    "RolesError",
    "decide_exposure",
    "is_loopback",
    "load_roles",
    "local_access",
    "role_for",
]

ALLOW_UNAUTHENTICATED_ENV = "BLASTSHIELD_ALLOW_UNAUTHENTICATED"
# Alerts a viewer may combine in one multi-alert view (responders and admins: the tool's own cap).
VIEWER_MAX_ALERTS = 5


class Role(StrEnum):
    VIEWER = "viewer"
    RESPONDER = "responder"
    ADMIN = "admin"


class Permission(StrEnum):
    READ = "read"
    CONTAIN = "contain"  # containment runs and route release
    IMPORT = "import"
    EXPORT = "export"
    RESET = "reset"


_RANK = {Role.VIEWER: 0, Role.RESPONDER: 1, Role.ADMIN: 2}
_GRANTS: dict[Role, frozenset[Permission]] = {
    Role.VIEWER: frozenset({Permission.READ}),
    Role.RESPONDER: frozenset({Permission.READ, Permission.CONTAIN}),
    Role.ADMIN: frozenset(Permission),
}


class RolesError(ValueError):
    """The roles file is missing, unreadable or invalid."""


Email = Annotated[str, Field(min_length=3, max_length=320, pattern=r"^[^@\s]+@[^@\s]+$")]
Group = Annotated[str, Field(min_length=1, max_length=256)]


class RolesConfig(BaseModel):
    """The roles file: `[users]` email = role, `[groups]` group = role, the claim holding groups."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    users: dict[Email, Role] = {}
    groups: dict[Group, Role] = {}
    groups_claim: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_:./-]{0,63}$")] = "groups"

    @field_validator("users")
    @classmethod
    def _lower(cls, value: dict[str, Role]) -> dict[str, Role]:
        return {email.lower(): role for email, role in value.items()}


def load_roles(path: Path) -> RolesConfig:
    """The roles file at `path` (`.json` is JSON, anything else TOML), validated whole."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RolesError(f"cannot read the roles file {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(raw) if path.suffix.lower() == ".json" else tomllib.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise RolesError(f"the roles file {path} is not valid {path.suffix.lstrip('.') or 'TOML'}: {exc}") from None
    try:
        return RolesConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise RolesError(f"the roles file {path} is invalid: {problems}") from None


def role_for(claims: Mapping[str, object], config: RolesConfig) -> Role | None:
    """The highest role the signed-in user's email or groups map to; None when nothing matches.

    The email counts only when the provider did not mark it unverified (`email_verified: false`).
    """
    found: list[Role] = []
    email = claims.get("email")
    if isinstance(email, str) and claims.get("email_verified", True) is not False:
        role = config.users.get(email.lower())
        if role is not None:
            found.append(role)
    groups = claims.get(config.groups_claim)
    if isinstance(groups, str):
        groups = [groups]
    if isinstance(groups, list | tuple):
        found.extend(config.groups[g] for g in groups if isinstance(g, str) and g in config.groups)
    return max(found, key=_RANK.__getitem__, default=None)


class Access(BaseModel):
    """The user a page acts for and what they may do."""

    model_config = ConfigDict(frozen=True)

    user: str
    role: Role | None
    signed_in: bool

    def can(self, permission: Permission) -> bool:
        return self.role is not None and permission in _GRANTS[self.role]

    @property
    def alerts_combined_cap(self) -> int | None:
        """The most alerts this user may combine in one view; None: the tool's own cap."""
        return None if self.role in (Role.RESPONDER, Role.ADMIN) else VIEWER_MAX_ALERTS


def local_access(user: str) -> Access:
    """The local user on a loopback dashboard without sign-in: every role."""
    return Access(user=user, role=Role.ADMIN, signed_in=False)


def is_loopback(address: str | None) -> bool:
    """True only for an address that binds loopback alone; unset (every interface) is not."""
    if not address:
        return False
    host = address.strip().strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Exposure(StrEnum):
    LOCAL = "local"  # loopback, no sign-in: the local user has every role
    SIGN_IN = "sign_in"  # sign-in configured: roles from the roles file
    REFUSED = "refused"  # beyond loopback without sign-in: serve nothing
    OPEN = "open"  # beyond loopback without sign-in, explicitly allowed: warn on every page


def decide_exposure(address: str | None, sign_in_configured: bool, environ: Mapping[str, str]) -> Exposure:
    """How the dashboard may serve on `address`."""
    if sign_in_configured:
        return Exposure.SIGN_IN
    if is_loopback(address):
        return Exposure.LOCAL
    if environ.get(ALLOW_UNAUTHENTICATED_ENV, "").strip().lower() in ("1", "true", "yes"):
        return Exposure.OPEN
    return Exposure.REFUSED
