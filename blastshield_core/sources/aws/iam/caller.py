"""Who makes a request, and the request-context keys that follow from it.

From the IAM User Guide: "AWS JSON policy elements: Principal" (which entries name whom),
"Policy variables" (the principal key values table: `aws:username`, `aws:userid`,
`aws:PrincipalType`) and "AWS global condition context keys" (`aws:PrincipalArn`,
`aws:PrincipalAccount`, `aws:PrincipalIsAWSService`, `aws:PrincipalServiceName`,
`aws:ResourceAccount`). Nothing here reads files or touches a store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .conditions import ABSENT, UNKNOWN

__all__ = ["Caller", "Naming", "not_principal_spares", "parse_caller", "principal_entry_names"]

_ACCOUNT = re.compile(r"^\d{12}$")
_ARN = re.compile(r"^arn:(aws[\w-]*):(iam|sts)::(\d{12}):(.+)$")
_WEB_IDENTITY = {"accounts.google.com", "graph.facebook.com", "www.amazon.com", "cognito-identity.amazonaws.com"}


@dataclass(frozen=True)
class Caller:
    """The principal of a request.

    kind: user | role | session (an assumed-role session) | federated_user | root |
    service | federated (a SAML / OIDC provider) | anonymous."""

    kind: str
    arn: str  # the ARN (service or provider name for those kinds, "*" when anonymous)
    account: str = ""
    partition: str = "aws"
    name: str = ""  # user name, role name (of a session too), federated user name
    session: str = ""
    role: str = ""  # a session's role ARN with its path, when the request says it (a session ARN does not)

    @property
    def role_arn(self) -> str:
        """The role's ARN with its path, for a role or a session whose role is known; "" when unknown
        (a session ARN names the role without its path)."""
        if self.kind == "role":
            return self.arn
        return self.role if self.kind == "session" else ""

    @property
    def service_linked(self) -> bool:
        """A service-linked role (path `/aws-service-role/`, names `AWSServiceRoleFor...`) or one of its sessions."""
        if self.kind == "role" and ":role/aws-service-role/" in self.arn:
            return True
        return self.kind in ("role", "session") and self.name.startswith("AWSServiceRoleFor")

    @property
    def iam(self) -> bool:
        """A principal of an account (user, role, session, federated user, root): SCPs may apply."""
        return self.kind in ("user", "role", "session", "federated_user", "root")

    def context_keys(self) -> dict[str, Any]:
        """The global keys the request carries because of who makes it (ABSENT where documented absent)."""
        keys: dict[str, Any] = {}
        if self.kind == "anonymous":
            for key in ("aws:PrincipalArn", "aws:PrincipalAccount", "aws:username", "aws:userid"):
                keys[key] = ABSENT
            keys["aws:PrincipalType"] = "Anonymous"
            keys["aws:PrincipalIsAWSService"] = "false"
            keys["aws:PrincipalServiceName"] = ABSENT
            return keys
        if self.kind == "service":
            keys["aws:PrincipalIsAWSService"] = "true"
            keys["aws:PrincipalServiceName"] = self.arn
            keys["aws:username"] = ABSENT
            return keys
        if self.kind == "federated":
            return keys
        keys["aws:PrincipalIsAWSService"] = "false"
        keys["aws:PrincipalServiceName"] = ABSENT
        keys["aws:PrincipalAccount"] = self.account
        if self.kind in ("user", "role", "session"):
            keys["aws:userid"] = UNKNOWN  # present in every request, but its unique id is not in the ARN
        if self.kind == "user":
            keys.update({"aws:PrincipalArn": self.arn, "aws:PrincipalType": "User", "aws:username": self.name})
        elif self.kind in ("role", "session"):
            # "AWS global condition context keys", aws:PrincipalArn: for a role session, the ARN of the
            # role (with its path); a session ARN does not carry the path, so unless the request says
            # it the key is unknown, never the path-less guess
            keys["aws:PrincipalArn"] = self.role_arn or UNKNOWN
            keys.update({"aws:PrincipalType": "AssumedRole", "aws:username": ABSENT})
        elif self.kind == "federated_user":
            keys.update({"aws:PrincipalArn": self.arn, "aws:PrincipalType": "FederatedUser", "aws:username": ABSENT})
            keys["aws:userid"] = f"{self.account}:{self.name}"
        elif self.kind == "root":
            keys.update({"aws:PrincipalArn": self.arn, "aws:PrincipalType": "Account", "aws:username": ABSENT})
            keys["aws:userid"] = self.account
        return keys


def parse_caller(text: Any) -> Caller:
    """A principal as the request names it: an ARN, a 12-digit account (its root user), a
    service principal (`name.amazonaws.com`), a SAML/OIDC provider, or `*` (anonymous).

    Raises ValueError with the reason for anything else."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("principal must be a non-empty string")
    text = text.strip()
    if text == "*":
        return Caller("anonymous", "*")
    if _ACCOUNT.match(text):
        return Caller("root", f"arn:aws:iam::{text}:root", text, "aws")
    found = _ARN.match(text)
    if found:
        partition, service, account, rest = found.groups()
        kind, _, path = rest.partition("/")
        if service == "iam" and rest == "root":
            return Caller("root", text, account, partition)
        if service == "iam" and kind == "user" and path:
            return Caller("user", text, account, partition, path.rsplit("/", 1)[-1])
        if service == "iam" and kind == "role" and path:
            return Caller("role", text, account, partition, path.rsplit("/", 1)[-1])
        if service == "iam" and kind in ("saml-provider", "oidc-provider") and path:
            return Caller("federated", text, account, partition)
        if service == "sts" and kind == "assumed-role":
            role, _, session = path.partition("/")
            if role and session:
                return Caller("session", text, account, partition, role, session)
        if service == "sts" and kind == "federated-user" and path:
            return Caller("federated_user", text, account, partition, path)
        raise ValueError(f"principal {text!r} is not a user, role, role session, federated user or root ARN")
    if text.lower() in _WEB_IDENTITY:
        return Caller("federated", text)
    if re.match(r"^[a-z0-9][a-z0-9.-]*\.amazonaws\.com(\.cn)?$", text.lower()):
        return Caller("service", text.lower())
    raise ValueError(
        f"principal {text!r} is not an ARN, a 12-digit account, a service principal (name.amazonaws.com) or '*'"
    )


class Naming:
    """How a Principal entry names the caller (the strongest way wins)."""

    NONE = 0
    ACCOUNT = 1  # by its account (12-digit id or the account's root ARN): a delegation to the account
    ROLE = 2  # a role session named by its role's ARN
    DIRECT = 3  # by its own ARN, or by "*"


def _arn_parts(entry: str) -> tuple[str, str, str] | None:
    found = _ARN.match(entry)
    return (found[2], found[3], found[4]) if found else None


def names_caller(kind: str, entry: str, who: Caller) -> int:
    """How one Principal entry (`kind` AWS / Service / Federated / CanonicalUser / *) names `who`."""
    if kind == "*" or (kind == "AWS" and entry == "*"):
        return Naming.DIRECT
    if kind == "Service":
        return Naming.DIRECT if who.kind == "service" and entry.lower() == who.arn else Naming.NONE
    if kind == "Federated":
        return Naming.DIRECT if who.kind == "federated" and entry == who.arn else Naming.NONE
    if kind != "AWS" or not who.iam:
        return Naming.NONE
    if _ACCOUNT.match(entry):
        return (Naming.DIRECT if who.kind == "root" else Naming.ACCOUNT) if entry == who.account else Naming.NONE
    parts = _arn_parts(entry)
    if parts is None:
        return Naming.NONE
    service, account, rest = parts
    if account != who.account:
        return Naming.NONE
    if service == "iam" and rest == "root":
        return Naming.DIRECT if who.kind == "root" else Naming.ACCOUNT
    if entry == who.arn:
        return Naming.DIRECT if who.kind != "role" else Naming.ROLE
    if service == "iam" and rest.startswith("role/") and who.kind == "session":
        return Naming.ROLE if rest.rsplit("/", 1)[-1] == who.name else Naming.NONE
    return Naming.NONE


def principal_entry_names(block: dict[str, tuple[str, ...]] | None, who: Caller) -> int:
    """The strongest way any entry of a Principal / NotPrincipal block names `who`."""
    if not block:
        return Naming.NONE
    return max((names_caller(kind, entry, who) for kind, entries in block.items() for entry in entries), default=0)


def not_principal_spares(block: dict[str, tuple[str, ...]] | None, who: Caller) -> bool:
    """A `NotPrincipal` block (in a Deny) spares `who`: "AWS JSON policy elements: NotPrincipal".

    AWS may check the account first, then the user, or, for an assumed-role session, the account,
    then the role, then the session: each of those must be listed, so naming only a user's ARN, or
    only a session's role, spares nobody. A role given as the principal stands for a session of it,
    spared only when the account, the role and a session of that role are all listed. The root user
    is its account; a service or an identity provider is spared by its own entry; `*` spares all."""
    if not block:
        return False
    entries = [(kind, entry) for kind, names in block.items() for entry in names]
    if any(kind == "*" or (kind == "AWS" and entry == "*") for kind, entry in entries):
        return True
    if not who.iam:
        return any(names_caller(kind, entry, who) == Naming.DIRECT for kind, entry in entries)
    aws = [entry for kind, entry in entries if kind == "AWS"]
    account = any(e in (who.account, f"arn:{who.partition}:iam::{who.account}:root") for e in aws)
    if not account:
        return False
    if who.kind == "root":
        return True
    if who.kind in ("user", "federated_user"):
        return who.arn in aws
    sessions = f"arn:{who.partition}:sts::{who.account}:assumed-role/{who.name}/"
    role = any(
        (parts := _arn_parts(e)) is not None
        and parts[0] == "iam"
        and parts[1] == who.account
        and parts[2].startswith("role/")
        and parts[2].rsplit("/", 1)[-1] == who.name
        for e in aws
    )
    if who.kind == "session":
        return role and who.arn in aws
    return role and any(e.startswith(sessions) for e in aws)
