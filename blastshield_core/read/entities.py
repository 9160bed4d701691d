"""Entity search: find entities by id, name or ARN, best matches first, and resolve what a
person typed (an id, an ARN or a name) to one entity, or say plainly it is ambiguous or unknown.

Every answer keeps apart: found, ambiguous (several match: they are listed), unknown (nothing
matches exactly: the closest are listed), invalid input (said in words, never as a pattern) and
query failure. None of them means "safe"."""

from __future__ import annotations

import difflib
import json
import re

from pydantic import BaseModel, Field

from ..graph.model import Label, domain_label
from ..graph.store import QueryFailed, Store
from ..results import Status

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "MAX_QUERY",
    "EntityMatch",
    "EntityResolution",
    "EntitySearchResult",
    "resolve_entity",
    "search_entities",
]

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_QUERY = 256
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_TOKENS = re.compile(r"[A-Za-z0-9_.@-]{3,}")
# An AWS access key id: 20 characters, `AKIA` for a long-term key of an IAM user, `ASIA` for a
# temporary key issued by AWS STS (IAM User Guide, "IAM identifiers", unique ID prefixes).
ACCESS_KEY_ID = re.compile(r"(AKIA|ASIA)[A-Z0-9]{16}")
# Alert signals that name an access key: GuardDuty's `access_key_id` (sources/aws/build/findings.py).
_KEY_SIGNALS = ("access_key_id",)
# When an ARN names several nodes (a user's Identity, its API calls, its policies, its sessions),
# the one the ARN stands for comes first.
_LABEL_ORDER = {
    Label.IDENTITY.value: 0,
    Label.IAM_ROLE.value: 1,
    Label.WORKLOAD.value: 2,
    Label.DATA_ASSET.value: 3,
    Label.SESSION.value: 4,
}
_MATCH = {0: "exact", 1: "starts with", 2: "in the name", 3: "in the id or ARN"}


class EntityMatch(BaseModel):
    """One entity found: its id, label, name, ARN and account (None when it has none)."""

    id: str
    label: str
    name: str
    arn: str | None = None
    account: str | None = None
    match: str = ""


class EntitySearchResult(BaseModel):
    """Entities whose id, name or ARN contains the query, best first, at most `limit`."""

    tool: str = "search_entities"
    status: Status
    message: str = ""
    query: str = ""
    matches: list[EntityMatch] = Field(default_factory=list)
    truncated: bool = False
    limit: int = DEFAULT_LIMIT


class EntityResolution(BaseModel):
    """What a typed id, ARN or name stands for. `status` is `ok` with `entity` set; `unknown_source`
    when nothing or several match (`ambiguous` says which, `matches` lists the closest or all);
    `invalid_input` or `query_failed` with a message in words."""

    status: Status
    message: str = ""
    text: str = ""
    entity: EntityMatch | None = None
    ambiguous: bool = False
    matches: list[EntityMatch] = Field(default_factory=list)


class _Invalid(ValueError):
    pass


def _clean_query(text: object) -> str:
    if not isinstance(text, str):
        raise _Invalid("the search must be text")
    text = text.strip()
    if not text:
        raise _Invalid("type an entity id, an ARN or a name to search for")
    if len(text) > MAX_QUERY:
        raise _Invalid(f"the search is {len(text)} characters long; at most {MAX_QUERY}")
    if _CONTROL.search(text):
        raise _Invalid("the search holds control characters (a line break or a tab?); type it on one line")
    return text


def _check_filters(label: str | None, account: str | None, limit: object) -> None:
    if label is not None and label not in _LABEL_ORDER:
        raise _Invalid(f"unknown label {label!r}: one of {', '.join(_LABEL_ORDER)}")
    if account is not None and (not isinstance(account, str) or not account.strip() or len(account) > 64):
        raise _Invalid("the account must be an account id (for AWS, 12 digits)")
    if type(limit) is not int or not 1 <= limit <= MAX_LIMIT:
        raise _Invalid(f"the limit must be a whole number from 1 to {MAX_LIMIT}")


def _rows_to_matches(rows: list[dict]) -> list[EntityMatch]:
    return [
        EntityMatch(
            id=row["id"],
            label=domain_label(row["labels"]),
            name=row["name"] or row["id"],
            arn=row.get("arn"),
            account=None if row.get("account") is None else str(row["account"]),
            match=_MATCH.get(row.get("rank", 3), ""),
        )
        for row in rows
    ]


def _search(store: Store, q: str, label: str | None, account: str | None, limit: int) -> list[EntityMatch]:
    rows = store.read("search_entities", {"q": q.lower(), "label": label, "account": account, "limit": limit})
    return _rows_to_matches(rows)


def search_entities(
    store: Store,
    query: str,
    *,
    label: str | None = None,
    account: str | None = None,
    limit: int = DEFAULT_LIMIT,
) -> EntitySearchResult:
    """Entities whose id, name or ARN contains `query` (any case), best first: exact matches, then
    those starting with it, then those with it in the name, then anywhere; at most `limit` (1..100)."""
    try:
        text = _clean_query(query)
        _check_filters(label, account, limit)
    except _Invalid as exc:
        return EntitySearchResult(status=Status.INVALID_INPUT, message=str(exc), query=str(query)[:MAX_QUERY])
    try:
        found = _search(store, text, label, account, limit + 1)
        if ACCESS_KEY_ID.fullmatch(text):
            keyed = [m for m in _by_access_key(store, text, limit + 1) if label in (None, m.label)]
            keyed = [m for m in keyed if account is None or m.account == account]
            found = [*keyed, *(m for m in found if m.id not in {k.id for k in keyed})]
    except QueryFailed as exc:
        return EntitySearchResult(status=Status.QUERY_FAILED, message=str(exc), query=text, limit=limit)
    truncated = len(found) > limit
    found = found[:limit]
    if found:
        more = "; more match: narrow the search" if truncated else ""
        message = f"{len(found)} entit{'y' if len(found) == 1 else 'ies'} match {text!r}{more}"
    else:
        message = f"no entity's id, name or ARN contains {text!r}"
    return EntitySearchResult(
        status=Status.OK, message=message, query=text, matches=found, truncated=truncated, limit=limit
    )


def _closest(store: Store, text: str, limit: int) -> list[EntityMatch]:
    """The entities closest to `text` when none contains it: those containing one of its words
    (the last part of an ARN first), ordered by likeness of name and id."""
    words = sorted(set(_TOKENS.findall(re.split(r"[/:]", text)[-1]) + _TOKENS.findall(text)), key=len, reverse=True)
    words = words[:2] or [text]
    pool: dict[str, EntityMatch] = {}
    # the words, then their three-letter pieces, then their two-letter pieces, until enough are found
    for size in (0, 3, 2):
        pieces = (
            words
            if size == 0
            else list(dict.fromkeys(w[i : i + size] for w in words for i in range(len(w) - size + 1)))
        )
        for piece in pieces[:8]:
            for match in _search(store, piece, None, None, 50):
                pool.setdefault(match.id, match)
        if len(pool) >= limit:
            break
    lowered = text.lower()

    def likeness(m: EntityMatch) -> float:
        return max(
            difflib.SequenceMatcher(None, lowered, m.name.lower()).ratio(),
            difflib.SequenceMatcher(None, lowered, m.id.lower()).ratio(),
            difflib.SequenceMatcher(None, lowered, (m.arn or "").lower()).ratio(),
        )

    ranked = sorted(pool.values(), key=lambda m: (-likeness(m), m.id))[:limit]
    for match in ranked:
        match.match = "closest"
    return ranked


def resolve_entity(store: Store, text: object, *, limit: int = 10) -> EntityResolution:
    """The one entity `text` stands for: an exact id; else an exact ARN (the principal itself when
    the ARN also names its sessions or policies); else an exact name, any case, held by one entity.
    Several with that ARN or name: ambiguous, all listed. None: unknown, the closest listed."""
    try:
        typed = _clean_query(text)
    except _Invalid as exc:
        return EntityResolution(status=Status.INVALID_INPUT, message=str(exc), text=str(text)[:MAX_QUERY])
    try:
        # An exact id first, through the id index: the search below reads every entity (about
        # 0.3 s at 1M relationships), and an entity whose id is the text is the answer it gives.
        by_index = _rows_to_matches(store.read("entity_match_by_id", {"id": typed}))
        if by_index:
            return EntityResolution(status=Status.OK, text=typed, entity=by_index[0], message=f"entity {typed}")
        if ACCESS_KEY_ID.fullmatch(typed):
            return _resolve_access_key(store, typed, limit)
        found = _search(store, typed, None, None, 200)
        exact = [m for m in found if m.match == "exact"]
        by_id = [m for m in exact if m.id == typed]
        if by_id:
            return EntityResolution(status=Status.OK, text=typed, entity=by_id[0], message=f"entity {by_id[0].id}")
        by_arn = [m for m in exact if m.arn is not None and m.arn.lower() == typed.lower()]
        if by_arn:
            best = min(_LABEL_ORDER.get(m.label, 9) for m in by_arn)
            top = [m for m in by_arn if _LABEL_ORDER.get(m.label, 9) == best]
            if len(top) == 1:
                return EntityResolution(status=Status.OK, text=typed, entity=top[0], message=f"entity {top[0].id}")
            return _ambiguous(typed, top, "ARN", limit)
        by_name = [m for m in exact if m.name.lower() == typed.lower()]
        by_id_any_case = [m for m in exact if m.id.lower() == typed.lower()]
        named = by_name or by_id_any_case
        if len(named) == 1:
            return EntityResolution(status=Status.OK, text=typed, entity=named[0], message=f"entity {named[0].id}")
        if named:
            return _ambiguous(typed, named, "name", limit)
        closest = found[:limit] if found else _closest(store, typed, limit)
    except QueryFailed as exc:
        return EntityResolution(status=Status.QUERY_FAILED, message=str(exc), text=typed)
    if closest:
        listed = ", ".join(m.id for m in closest)
        message = f"no entity has the id, ARN or name {typed!r}; closest: {listed}"
    else:
        message = f"no entity has the id, ARN or name {typed!r}, and none is close to it"
    return EntityResolution(status=Status.UNKNOWN_SOURCE, message=message, text=typed, matches=closest)


def _ambiguous(typed: str, matches: list[EntityMatch], what: str, limit: int) -> EntityResolution:
    shown = matches[:limit]
    listed = ", ".join(f"{m.id} ({m.label})" for m in shown)
    more = f" and {len(matches) - len(shown)} more" if len(matches) > len(shown) else ""
    return EntityResolution(
        status=Status.UNKNOWN_SOURCE,
        message=f"{len(matches)} entities have the {what} {typed!r}: {listed}{more}; give the id",
        text=typed,
        ambiguous=True,
        matches=shown,
    )


def _by_access_key(store: Store, key: str, limit: int) -> list[EntityMatch]:
    """The credential sessions (key routes) of access key `key`, from `iam list-access-keys`."""
    found = _rows_to_matches(store.read("sessions_by_access_key", {"key": key, "limit": limit}))
    for match in found:
        match.match = "access key"
    return found


def _alerts_naming_key(store: Store, key: str, limit: int) -> list[tuple[str, str]]:
    """(alert id, entity id) of the alerts whose signals name access key `key` exactly."""
    named = []
    for row in store.read("alerts_naming_access_key", {"key": key, "limit": limit}):
        try:
            signals = json.loads(row["signals"] or "{}")
        except (TypeError, ValueError):
            continue
        if isinstance(signals, dict) and any(signals.get(field) == key for field in _KEY_SIGNALS):
            named.append((str(row["id"]), str(row["entity_id"])))
    return named


def _resolve_access_key(store: Store, key: str, limit: int) -> EntityResolution:
    """An access key id: the key route of the user that holds it (a collection lists it); else the
    entity an alert's record links it to (a temporary `ASIA...` key, or a key not collected);
    else unknown, without unrelated "closest" entities: a key id is not a name to be near."""
    held = _by_access_key(store, key, limit)
    if len(held) == 1:
        return EntityResolution(
            status=Status.OK, text=key, entity=held[0], message=f"access key {key}: key route {held[0].id}"
        )
    if held:
        return _ambiguous(key, held, "access key id", limit)
    linked = _alerts_naming_key(store, key, 50)
    entities = list(dict.fromkeys(entity for _, entity in linked))
    matches = [m for entity in entities for m in _rows_to_matches(store.read("entity_match_by_id", {"id": entity}))]
    kind = "a temporary key issued to" if key.startswith("ASIA") else "a key of"
    if len(matches) == 1:
        alerts = ", ".join(alert for alert, _ in linked)
        matches[0].match = "access key in an alert"
        return EntityResolution(
            status=Status.OK,
            text=key,
            entity=matches[0],
            message=f"access key {key}: {kind} {matches[0].id} (named by alert {alerts}); no collection lists it",
        )
    if matches:
        return _ambiguous(key, matches, "access key id (in alerts)", limit)
    what = (
        "a temporary key (ASIA...) is known only when an imported GuardDuty finding names it"
        if key.startswith("ASIA")
        else "a key id is known from `iam list-access-keys` of a collection, or from an imported finding"
    )
    return EntityResolution(
        status=Status.UNKNOWN_SOURCE,
        text=key,
        message=f"no collected access key and no alert has the id {key!r} ({what})",
    )
