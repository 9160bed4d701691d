"""Blocks made in the graph only: AWS-backed routes a run blocked without changing the account.

Without a respond profile a run blocks an AWS-backed route in the graph (the plan says "not applied
in AWS"): the credentials still work on the account, so the graph's `blocked` is not the account's
truth. Such a block is told apart by its run's record, not by a property of its own: the route
carries `blocked_by_run` (which every import keeps, `preserved_blocks`), and that run's action on the
route says `applied_in_aws: false`. So a re-collection keeps the mark with the block itself.

A route of the seed's synthetic scenarios has no account plan (`RunAction.aws` is None): its block
is the world's, and it is never graph-only."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from ..results import RunRecord

__all__ = ["GRAPH_ONLY_TEXT", "UNDONE_EVENT", "account_open_blocks", "graph_only_blocks", "graph_only_in_run"]

GRAPH_ONLY_TEXT = "blocked in the graph only"
UNDONE_EVENT = "undone_on_account"  # the audit event of an account action found undone on the account


class _Event(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def route_id(self) -> str: ...


class _Runs(Protocol):
    def get(self, run_id: str) -> RunRecord | None: ...


class _RunsAndEvents(_Runs, Protocol):
    def events_for_run(self, run_id: str) -> Sequence[_Event]: ...


def graph_only_in_run(run: RunRecord) -> list[str]:
    """The AWS-backed routes `run` blocked in the graph only (not applied on the account)."""
    return [
        a.route_id
        for a in run.actions
        if a.aws is not None and not a.aws.applied_in_aws and a.operation == "block_route" and a.status == "applied"
    ]


def graph_only_blocks(blocks: Iterable[Mapping[str, Any]], audit: _Runs) -> dict[str, str]:
    """Of the routes BlastShield blocked (`blocks`: the graph's `blastshield_blocks` rows, each with
    `route_id` and `blocked_by_run`), those blocked in the graph only: route id -> the run.

    Reads the runs that made them; raises QueryFailed as that read does."""
    found: dict[str, str] = {}
    runs: dict[str, RunRecord | None] = {}
    for block in blocks:
        run_id = str(block["blocked_by_run"])
        if run_id not in runs:
            runs[run_id] = audit.get(run_id)
        run = runs[run_id]
        if run is not None and block["route_id"] in graph_only_in_run(run):
            found[str(block["route_id"])] = run_id
    return found


def account_open_blocks(blocks: Iterable[Mapping[str, Any]], audit: _RunsAndEvents) -> dict[str, str]:
    """Of the routes BlastShield blocked in the graph, those the account does not hold blocked: route
    id -> "graph_only" (never applied on the account) or "undone" (applied, then found undone on the
    account, `undone_on_account`, and the graph's block not yet re-synced). Their paths are open on
    the account; the alert queue ranks them as such.

    Reads the runs and their events; raises QueryFailed as those reads do."""
    rows = list(blocks)
    found = {route: "graph_only" for route in graph_only_blocks(rows, audit)}
    events: dict[str, set[str]] = {}
    for block in rows:
        route, run_id = str(block["route_id"]), str(block["blocked_by_run"])
        if route in found:
            continue
        if run_id not in events:
            events[run_id] = {e.route_id for e in audit.events_for_run(run_id) if e.kind == UNDONE_EVENT}
        if route in events[run_id]:
            found[route] = "undone"
    return found
