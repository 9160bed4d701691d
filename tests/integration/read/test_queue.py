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
