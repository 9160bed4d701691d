"""Access keys as `iam list-access-keys` lists them: ids and a status that is current.

The credential report gives neither key ids nor a fresh status (AWS generates it at most every
four hours). When a collection holds `iam-list-access-keys.json` (`AccessKeyMetadata`, each
entry with its `UserName`) for a user, that user's access-key sessions come from the listing:
the keys in order of creation are `access-key-1` and `access-key-2` (the credential report's
order), each with its `access_key_id` and `active` from its `Status`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from .get import AwsSources, SourceFile

__all__ = ["listed_access_keys"]


def listed_access_keys(
    sources: AwsSources, account_of: Callable[[SourceFile], str]
) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(account, user name) -> the user's listed keys, oldest first."""
    keys: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for source in sources.of("access_keys"):
        account = account_of(source)
        for entry in source.data.get("AccessKeyMetadata", []):
            if not isinstance(entry, dict) or not entry.get("UserName") or not entry.get("AccessKeyId"):
                continue
            keys[(account, str(entry["UserName"]))].append(entry)
    for listed in keys.values():
        listed.sort(key=lambda e: (str(e.get("CreateDate") or ""), str(e["AccessKeyId"])))
    return dict(keys)
