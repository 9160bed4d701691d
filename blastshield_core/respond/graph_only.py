"""Blocks made in the graph only: AWS-backed routes a run blocked without changing the account.

Without a respond profile a run blocks an AWS-backed route in the graph (the plan says "not applied
in AWS"): the credentials still work on the account, so the graph's `blocked` is not the account's
truth. Such a block is told apart by its run's record, not by a property of its own: the route
carries `blocked_by_run` (which every import keeps, `preserved_blocks`), and that run's action on the
route says `applied_in_aws: false`. So a re-collection keeps the mark with the block itself.

A route of the seed's synthetic scenarios has no account plan (`RunAction.aws` is None): its block
is the world's, and it is never graph-only."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from ..results import RunRecord

__all__ = ["GRAPH_ONLY_TEXT", "graph_only_blocks", "graph_only_in_run"]

GRAPH_ONLY_TEXT = "blocked in the graph only"


class _Runs(Protocol):
    def get(self, run_id: str) -> RunRecord | None: ...


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
