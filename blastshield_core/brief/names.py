"""Names in a briefing that read as entity ids: the patterns the checker skips (types, dates, versions, units),
the edit distance to a known id, and the shapes of names that read as ids although none is one edit away."""

from __future__ import annotations

import re

__all__ = ["DATE_RE", "REL_LIKE_RE", "REL_PREFIX_RE", "UNIT_RE", "VERSION_RE", "distance", "reads_as_id"]

REL_LIKE_RE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$|^[a-z]+(?:_[a-z]+)+$")
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}")
VERSION_RE = re.compile(r"^v?\d+(?:\.\d+)+[a-z]?$")
# An AWS API action as a policy names it (service prefix, colon, the action: "iam:UpdateAccessKey", "s3:Get*"):
# an operation, not an entity.
ACTION_RE = re.compile(r"^[a-z][a-z0-9-]*:[A-Z][A-Za-z0-9]*\*?$")
UNIT_RE = re.compile(r"^\d+[-.]?[A-Za-z]{1,6}$")  # 5-hop, 24h, 2nd


def _split(text: str) -> frozenset[str]:
    return frozenset(text.split())


REL_PREFIX_RE = re.compile(r"^(?:can|has|have|runs?|may|owns?|member|assumes?|reads?|writes?|admin|is)_")
# Last parts that make a hyphenated name read as a resource id ("billing-db"), first parts that make it an
# id ("sess-..."), and English prefixes that make it a word ("multi-role", "cross-account").
_RESOURCE_WORDS = _split(
    "db vault role gw svc api bucket ledger pii console runner worker cache reader cluster lake sso vpn admin "
    "poweruser bastion queue topic database vm"
)
_ID_PREFIXES = _split("sess route arn svc iam vpc sg subnet prod")
_ENGLISH_PREFIXES = _split(
    "multi cross non pre post re co sub self anti semi over under inter intra de un super single dual least "
    "full read write any all per same other third first low high mid role"
)


def distance(a: str, b: str, limit: int = 2) -> int:
    """Levenshtein distance, stopping early above `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        if min(cur) > limit:
            return limit + 1
        prev = cur
    return prev[-1]


def reads_as_id(token: str, known_parts: set[tuple[str, ...]]) -> bool:
    """A name that reads as an entity id although no known id is one edit away.

    Narrowly: ARN-like text; a known id extended by whole parts ("customer-db-replica",
    "prod-customer-db", "payments-vault.internal"); or a hyphenated name whose first part is an id prefix
    ("sess-...", "route-...") or whose last part is a resource word ("billing-db", "ledger-admin"), unless
    its first part is an English prefix ("multi-role", "cross-account"). A known id cut short
    ("build-runner") and ordinary hyphenated English ("off-hours", "read-only") are not ids.
    """
    low = token.lower()
    if low.startswith("arn:"):
        return True
    parts = [p for p in re.split(r"[-_.:/]+", low) if p]
    if len(parts) < 2:
        return False
    whole = tuple(parts)
    variant = False
    for known in known_parts:
        n = len(known)
        if len(parts) > n and known in {whole[i : i + n] for i in range(len(parts) - n + 1)}:
            return True  # a known id with parts added
        if len(parts) <= n and whole in {known[i : i + len(parts)] for i in range(n - len(parts) + 1)}:
            return False  # a known id cut short
        # a known id with its last or first part swapped ("build-runner-prod")
        variant = variant or (min(len(parts), n) >= 3 and (whole[:2] == known[:2] or whole[-2:] == known[-2:]))
    if variant:
        return True
    if parts[0] in _ENGLISH_PREFIXES:
        return False
    return parts[0] in _ID_PREFIXES or parts[-1] in _RESOURCE_WORDS
