"""The alert queue: computed once per graph version, never stale after a write, paged in the core."""

from __future__ import annotations

from blastshield_core.graph.ingest import import_document
from blastshield_core.graph.model import GraphDocument
from blastshield_core.read.queue import QueueQuery


def _paths(page, alert_id):
    return next(a.path_count for a in page.alerts if a.id == alert_id)


def test_rerun_reuses_the_summaries_of_the_same_version(services):
    """Two pages at one graph version summarise every alert once."""
    first = services.queue.page()
    again = services.queue.page(QueueQuery(sort="id", descending=False))
    assert services.queue.computed == 1 and first.version == again.version
    assert [a.id for a in again.alerts] == sorted(a.id for a in first.alerts) and first.total == 4


def test_a_block_changes_what_the_queue_shows_next(services):
    """After a block the next page shows the alert's remaining paths, from a new version."""
    before = services.queue.page()
    result = services.actions.block_route("BH-CONTAINMENT-4001", "route-c11-primary", "run-test")
    assert result.status == "applied"
    after = services.queue.page()
    assert after.version > before.version and services.queue.computed == 2
    assert _paths(after, "BH-CONTAINMENT-4001") < _paths(before, "BH-CONTAINMENT-4001")


def test_an_import_changes_what_the_queue_shows_next(services):
    """An imported alert appears on the next page."""
    before = services.queue.page()
    doc = GraphDocument.model_validate(
        {
            "format": "blastshield-graph/v1",
            "name": "queue-extra",
            "nodes": [{"id": "queue-user", "label": "Identity", "name": "Queue user", "properties": {}}],
            "edges": [],
            "alerts": [{"id": "BH-QUEUE-1", "title": "queue test", "entity_id": "queue-user", "kind": "k"}],
        }
    )
    import_document(services.store, doc)
    after = services.queue.page(QueueQuery(text="queue-user"))
    assert after.version > before.version and [a.id for a in after.alerts] == ["BH-QUEUE-1"]
    assert after.total == before.total + 1


def test_sort_filter_and_page_in_the_core(services):
    """Severity filter, risk order and offset/limit slice the queue with the counts a pager needs."""
    everything = services.queue.page(QueueQuery(limit=500))
    high = [a for a in everything.alerts if a.severity == "high"]
    page = services.queue.page(QueueQuery(severity="high", limit=1, offset=1))
    assert (page.total, page.matched, len(page.alerts)) == (4, len(high), 1)
    assert page.alerts[0].id == sorted(high, key=lambda a: (a.risk_score, a.path_count, a.id), reverse=True)[1].id


def test_a_block_undone_on_the_account_that_the_graph_still_holds_ranks_the_alert_open(services):
    """A route whose block was found undone on the account (`undone_on_account`) while the graph still
    holds it blocked (its re-sync could not run) cuts nothing on the account: the queue ranks the alert
    by the paths open there and their score, the same as before the run, never as "0 paths"."""
    alert = "BH-CONTAINMENT-4001"
    before = {a.id: a for a in services.queue.page(QueueQuery(limit=500)).alerts}
    session = services.controller.start(alert, "rules", 3, True, actor="tester")
    while not session.run.state.terminal:
        session.advance(services.decider("rules"))
    assert session.run.state.value == "completed"
    contained = {a.id: a for a in services.queue.page(QueueQuery(limit=500)).alerts}
    assert (contained[alert].path_count, contained[alert].open_on_account) == (0, None)
    assert services.account_open_blocks() == {}  # blocks in the world of the scenarios: held
    # the audit records the first route's block undone on the account; the graph still holds it
    route = session.run.actions[0].route_id
    services.audit.add_event(
        "undone_on_account", "tester", f"{route} undone", {"status": "undone_on_account", "seen_at": "now"},
        graph=services.store.settings.graph, run_id=session.run.run_id, route_id=route,
    )  # fmt: skip
    assert services.account_open_blocks() == {route: "undone"}
    page = services.queue.page(QueueQuery(limit=500))
    reopened = next(a for a in page.alerts if a.id == alert)
    assert reopened.path_count == 0  # the graph's answer is unchanged
    assert reopened.open_on_account == 1  # the path through the undone block is open on the account
    assert reopened.queue_score() == reopened.account_risk_score > contained[alert].risk_score
    assert reopened.account_risk_score <= before[alert].risk_score
    order = [a.id for a in page.alerts]
    assert order == [a.id for a in sorted(page.alerts, key=lambda a: (a.queue_score(), a.queue_paths(), a.id),
                                          reverse=True)]  # fmt: skip
    assert order.index(alert) < order.index("BH-1042")  # ranked by the account's score, no longer last
