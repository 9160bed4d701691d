"""The action service: one allowlisted write, validated inside the write."""

from __future__ import annotations

import threading

import pytest

from blastshield_core import Status
from blastshield_core.read.paths import path_signature
from tests.conftest import graph_state

PRIMARY_PATH = ("contractor_11", "sess-c11-vpn", "bastion-01", "ops-role", "payments-vault")
ALTERNATE_PATH = ("contractor_11", "sess-c11-sso", "admin-console", "console-role", "payments-reader", "payments-vault")


def test_block_route_applies_and_reports_a_fresh_after(services):
    """Blocking the primary route leaves only the alternate path, seen by a fresh query."""
    result = services.actions.block_route("BH-CONTAINMENT-4001", "route-c11-primary", "run-test")
    assert result.status == "applied"
    assert result.paths_before == 2
    assert result.after.status is Status.PATHS_FOUND
    assert path_signature(result.after.paths) == {ALTERNATE_PATH}
    assert result.relationship.properties["status"] == "blocked"
    assert result.relationship.properties["blocked_by_run"] == "run-test"


@pytest.mark.parametrize(
    ("alert_id", "route_id", "reason"),
    [
        ("BH-CONTAINMENT-4001", "route-nope", "unknown route"),
        ("BH-CONTAINMENT-4001", "route-c11-stale", "already blocked"),
        ("BH-CONTAINMENT-4001", "route-dev07-a", "not on a current qualifying path"),
        ("BH-CONTAINMENT-4001", "route-c12-a", "not on a current qualifying path"),
        ("BH-0000", "route-c11-primary", "no alert"),
        ("BH-CONTAINMENT-4001", "x') DETACH DELETE n //", "invalid"),
        (None, "route-c11-primary", "invalid"),
    ],
)
def test_rejections_write_nothing(services, alert_id, route_id, reason):
    """Unknown, blocked, off-path routes and bad ids are rejected with a reason; the graph is unchanged."""
    before = graph_state(services.store)
    result = services.actions.block_route(alert_id, route_id, "run-test")
    assert result.status == "rejected"
    assert reason in result.reason
    assert graph_state(services.store) == before


@pytest.mark.parametrize("operation", ["delete_node", "unblock_route", "run_cypher", "", None, "block_route "])
def test_only_block_route_is_allowlisted(services, operation):
    """Any operation but block_route is refused and writes nothing."""
    before = graph_state(services.store)
    result = services.actions.execute(operation, "BH-CONTAINMENT-4001", "route-c11-primary", "run-test")
    assert result.status == "rejected" and "not allowlisted" in result.reason
    assert graph_state(services.store) == before


def test_second_block_of_the_same_route_is_rejected(services):
    """Once blocked, the same route cannot be blocked again."""
    assert services.actions.block_route("BH-CONTAINMENT-4001", "route-c11-primary", "r1").status == "applied"
    again = services.actions.block_route("BH-CONTAINMENT-4001", "route-c11-primary", "r2")
    assert again.status == "rejected" and "already blocked" in again.reason


def test_concurrent_blocks_of_one_route_apply_once(services):
    """Eight threads racing to block one route: exactly one applies."""
    results = []
    barrier = threading.Barrier(8)

    def worker(i: int) -> None:
        barrier.wait()
        results.append(services.actions.block_route("BH-CONTAINMENT-4001", "route-c11-alternate", f"run-{i}"))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.status for r in results) == ["applied"] + ["rejected"] * 7
    (row,) = services.store.read("routes_by_ids", {"route_ids": ["route-c11-alternate"]})
    winner = next(r for r in results if r.status == "applied")
    assert row["props"]["blocked_by_run"] == winner.relationship.properties["blocked_by_run"]
