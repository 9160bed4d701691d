"""Who a principal is, as the recorded collection of its account says: the identity an account
action is aimed at (`respond/aws/`), never re-derived from an ARN's last part.

A user or role is found in the collection's authorization details by its full ARN (path included):
its name (`UserName` / `RoleName`), its ARN and the unique id AWS gave it (`UserId` `AIDA…`, `RoleId`
`AROA…`). A user's access key ids come only from `iam list-access-keys` of exactly that user.
An entry whose name and ARN disagree is refused, naming both."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..exports import EXPORT

__all__ = ["CollectedPrincipal", "IdentityUnknown", "collected_principal"]

GAAD_FILE = EXPORT["gaad"].path()
KEYS_FILE = EXPORT["access_keys"].path()
IDENTITY_FILE = EXPORT["caller_identity"].path()


class IdentityUnknown(ValueError):
    """The collection does not say who the principal is (or says two different things)."""


@dataclass(frozen=True)
class CollectedPrincipal:
    account: str
    principal: str  # "user" or "role"
    name: str
    arn: str
    unique_id: str
    access_key_ids: tuple[str, ...] = field(default_factory=tuple)  # a user's, oldest first


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IdentityUnknown(f"{path.name} of the collection cannot be read: {exc}") from None


def collected_principal(folder: str | Path, account: str, principal: str, arn: str) -> CollectedPrincipal:
    """The principal of `arn` in the collection `folder` of `account`. Raises IdentityUnknown."""
    folder = Path(folder)
    identity = folder / IDENTITY_FILE
    if identity.is_file():
        collected = str((_read(identity) or {}).get("Account") or "")
        if collected and collected != account:
            raise IdentityUnknown(f"the collection recorded for account {account} is of account {collected}")
    gaad = _read(folder / GAAD_FILE)
    entries, name_key, id_key = (
        (gaad.get("UserDetailList", []), "UserName", "UserId")
        if principal == "user"
        else (gaad.get("RoleDetailList", []), "RoleName", "RoleId")
    )
    found = [e for e in entries if isinstance(e, dict) and e.get("Arn") == arn]
    if not found:
        raise IdentityUnknown(f"{arn} is not in the collection of account {account}")
    if len(found) > 1:
        raise IdentityUnknown(f"{arn} is in the collection of account {account} {len(found)} times")
    entry = found[0]
    name, unique_id = str(entry.get(name_key) or ""), str(entry.get(id_key) or "")
    if not name or arn.rsplit("/", 1)[-1] != name:
        raise IdentityUnknown(f"the collection contradicts itself: {name_key} {name!r} with Arn {arn}")
    if not unique_id:
        raise IdentityUnknown(f"the collection gives no {id_key} for {arn}")
    keys: tuple[str, ...] = ()
    if principal == "user" and (folder / KEYS_FILE).is_file():
        listed = [
            k for k in (_read(folder / KEYS_FILE) or {}).get("AccessKeyMetadata", [])
            if isinstance(k, dict) and k.get("UserName") == name and k.get("AccessKeyId")
        ]  # fmt: skip
        listed.sort(key=lambda k: (str(k.get("CreateDate") or ""), str(k["AccessKeyId"])))
        keys = tuple(str(k["AccessKeyId"]) for k in listed)
    return CollectedPrincipal(account, principal, name, arn, unique_id, keys)
