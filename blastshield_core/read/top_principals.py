"""What to do after an AWS import: the principals with the most qualifying paths to high or
critical data, so that an import without GuardDuty findings still leads somewhere.

The paths are those of the standard investigation (depth 6, at most the path cap per principal,
read in bounded chunks by `ReadTools.path_ends`): the count shown is the one an alert opened on
the principal would find."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from ..graph.model import domain_label
from ..graph.store import QueryFailed
from ..results import Status
from .tools import ReadTools

__all__ = ["MAX_PRINCIPALS", "TopPrincipal", "TopPrincipalsResult", "top_principals"]

MAX_PRINCIPALS = 5000  # principals looked at per call; beyond it the answer says it is partial


class TopPrincipal(BaseModel):
    id: str
    label: str
    name: str
    arn: str | None = None
    account: str | None = None
    paths: int  # qualifying paths to high or critical data (at most the path cap)
    more: bool = False  # more paths than the cap
    critical: int = 0  # of them, to critical data
    assets: int = 0  # distinct assets they end at


class TopPrincipalsResult(BaseModel):
    status: Status
    message: str = ""
    accounts: list[str] = Field(default_factory=list)
    principals: list[TopPrincipal] = Field(default_factory=list)
    looked_at: int = 0
    partial: bool = False


def top_principals(tools: ReadTools, accounts: Sequence[str], limit: int = 10) -> TopPrincipalsResult:
    """The `limit` principals of `accounts` with the most qualifying paths to high or critical data
    (ties: more to critical data, then by id); those with none are left out."""
    accounts = sorted(set(accounts))
    try:
        rows = tools.store.read("principals_of_accounts", {"accounts": accounts, "limit": MAX_PRINCIPALS + 1})
        partial = len(rows) > MAX_PRINCIPALS
        rows = rows[:MAX_PRINCIPALS]
        ends = tools.path_ends([row["id"] for row in rows])
    except QueryFailed as exc:
        return TopPrincipalsResult(status=Status.QUERY_FAILED, message=str(exc), accounts=accounts)
    found = []
    for row in rows:
        paths = ends.get(row["id"]) or []
        if not paths:
            continue
        shown = paths[: tools.path_cap]
        found.append(
            TopPrincipal(
                id=row["id"],
                label=domain_label(row["labels"]),
                name=row["name"] or row["id"],
                arn=row.get("arn"),
                account=None if row.get("account") is None else str(row["account"]),
                paths=len(shown),
                more=len(paths) > tools.path_cap,
                critical=sum(1 for p in shown if p.sensitivity == "critical"),
                assets=len({p.asset_id for p in shown}),
            )
        )
    found.sort(key=lambda p: (-p.paths, -p.critical, p.id))
    top = found[:limit]
    if top:
        message = (
            f"{len(found)} of {len(rows)} principals have qualifying paths to high or critical data;"
            f" the {len(top)} with the most are listed"
        )
    else:
        message = f"none of the {len(rows)} principals has a qualifying path to high or critical data within 6 hops"
    if partial:
        message += f" (only the first {MAX_PRINCIPALS} principals by id were looked at)"
    return TopPrincipalsResult(
        status=Status.OK, message=message, accounts=accounts, principals=top, looked_at=len(rows), partial=partial
    )
