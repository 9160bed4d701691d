"""The queue's batched summaries equal what investigating each alert gives, column by column: alerts
on a few entities, and one alert on each of many distinct entities (the Alerts page's slowest shape)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from blastshield_core.graph.generate import GenerateOptions, generate
from blastshield_core.graph.ingest import import_document, parse_document
from blastshield_core.graph.store import Store
from blastshield_core.read import tools as read
from blastshield_core.read.rules import RULE_SET
from blastshield_core.read.tools import ReadTools
from blastshield_core.results import AlertSummary, Status

GONE = "wl-000003"  # its node is deleted after the import: its alert names an entity no longer in the graph
CONTAINED = "decoy-user-0000"  # its only session is blocked
AWS_SIGNALS = {"source": "guardduty", "severity": 8, "finding_type": "UnauthorizedAccess:IAMUser/Exfil"}


@pytest.fixture(scope="module")
def queue_store(base_store) -> Iterator[Store]:
    """A generated graph (hubs, cycles, blocked and denied grants) with alerts on about 200 entities."""
    graph = generate(GenerateOptions(edges=2_000, seed=5))
    entities = [node[0] for node in graph.nodes[::4]] + [CONTAINED, GONE]
    for k, entity in enumerate(entities):
        signals = AWS_SIGNALS if k % 17 == 0 else {"internet_exposed": True} if k % 3 == 0 else {}
        graph.alerts.append((f"Q-{k:04d}", f"queue alert {k}", entity, "queue_test", signals))
    view = base_store.for_graph(f"queue_{uuid.uuid4().hex[:8]}")
    import_document(view, parse_document(graph.to_document()))
    view.execute_write("MATCH (n:Entity {id: $id}) DETACH DELETE n", {"id": GONE})
    yield view
    for name in (view.settings.graph, view.settings.audit_graph):
        if view.graph_exists(name):
            view.command("GRAPH.DELETE", name)


@pytest.fixture(scope="module")
def distinct_store(base_store) -> Iterator[Store]:
    """A generated graph (dense: hub roles assuming many roles, so some entities have more paths
    than the cap) with one alert on each identity, workload and role, several chunks of entities."""
    graph = generate(GenerateOptions(edges=3_000, seed=11, dense=True))
    kinds = {"Identity": "identity_access_path", "Workload": "exposed_workload", "IAMRole": "excessive_iam_permissions"}
    entities = [(node[0], kinds[str(node[1])]) for node in graph.nodes if str(node[1]) in kinds]
    graph.alerts = [
        (f"D-{k:05d}", f"alert on {entity}", entity, kind, AWS_SIGNALS if k % 13 == 0 else {"mfa_disabled": k % 2 == 0})
        for k, (entity, kind) in enumerate(entities)
    ]
    view = base_store.for_graph(f"queue_d_{uuid.uuid4().hex[:8]}")
    import_document(view, parse_document(graph.to_document()))
    yield view
    for name in (view.settings.graph, view.settings.audit_graph):
        if view.graph_exists(name):
            view.command("GRAPH.DELETE", name)


def _investigated(tools: ReadTools, alert_id: str) -> AlertSummary:
    """The queue row an investigation of the alert at depth 6 implies."""
    result = tools.investigate_alert(alert_id, 6)
    if result.alert is None:
        found = tools.store.read("alert_by_id", {"id": alert_id})[0]["props"]
        return AlertSummary(
            id=alert_id,
            title=found["title"],
            entity_id=found["entity_id"],
            kind=found["kind"],
            risk_score=None,
            severity=None,
            rule_set=RULE_SET,
            path_count=None,
            status=result.status,
        )
    view = result.alert
    return AlertSummary(
        id=view.id,
        title=view.title,
        entity_id=view.entity_id,
        kind=view.kind,
        risk_score=view.risk_score,
        severity=view.severity,
        rule_set=view.rule_set,
        path_count=result.path_count,
        truncated=result.truncated,
        status=result.status,
    )


def _compare(tools: ReadTools) -> tuple[list[AlertSummary], list[AlertSummary]]:
    listed = tools.list_alerts()
    assert listed.status is Status.OK
    return listed.alerts, [_investigated(tools, a.id) for a in listed.alerts]


def test_batched_rows_equal_per_alert_investigation(queue_store):
    """Every row (status, paths, truncation, score, severity, rule set) equals the alert's own investigation."""
    batched, investigated = _compare(ReadTools(queue_store))
    assert len(batched) > 200 and batched == investigated
    statuses = {a.status for a in batched}
    assert {Status.PATHS_FOUND, Status.NO_PATH, Status.UNKNOWN_SOURCE} <= statuses
    assert {a.rule_set for a in batched} == {"demo-rules-v1", "aws-rules-v1"}


def test_a_cut_path_set_is_cut_where_the_investigation_cuts_it(queue_store, monkeypatch):
    """With a path cap of 3 and chunks of 16 entities, truncated rows still equal each investigation."""
    monkeypatch.setattr(read, "QUEUE_CHUNK", 16)
    batched, investigated = _compare(ReadTools(queue_store, path_cap=3))
    assert batched == investigated
    assert sum(a.truncated for a in batched) > 20


def test_an_alert_on_a_missing_entity_is_unknown_never_no_path(queue_store):
    """An alert whose entity is gone is unknown_source, unscored; a contained entity's alert is no_path."""
    rows = {a.entity_id: a for a in ReadTools(queue_store).list_alerts().alerts}
    gone, contained = rows[GONE], rows[CONTAINED]
    assert (gone.status, gone.path_count, gone.risk_score, gone.severity) == (Status.UNKNOWN_SOURCE, None, None, None)
    assert (contained.status, contained.path_count) == (Status.NO_PATH, 0) and contained.risk_score is not None


def test_one_alert_per_entity_rows_equal_each_investigation(distinct_store, monkeypatch):
    """Every alert on its own entity, read in chunks of 40 entities at once: each row equals the
    alert's own investigation, for entities under the path cap and over it (cut where the
    investigation cuts them), with and without paths."""
    monkeypatch.setattr(read, "QUEUE_CHUNK", 40)
    tools = ReadTools(distinct_store, path_cap=20)
    batched, investigated = _compare(tools)
    assert len(batched) == len({a.entity_id for a in batched}) > 3 * 40
    assert batched == investigated
    assert {Status.PATHS_FOUND, Status.NO_PATH} <= {a.status for a in batched}
    cut = [a for a in batched if a.truncated]
    assert cut and len(cut) < len(batched) and all(a.path_count == 20 for a in cut)
    assert any(a.status is Status.PATHS_FOUND and not a.truncated for a in batched)


def test_path_ends_are_the_investigations_ends_in_its_order(distinct_store):
    """Each entity's path ends are its investigation's, in the same order, cut after cap + 1."""
    tools = ReadTools(distinct_store, path_cap=20)
    ids = [a.entity_id for a in tools.list_alerts().alerts]
    ends = tools.path_ends(ids)
    sizes = []
    for entity in ids[:: max(1, len(ids) // 60)]:
        full = tools._paths("sensitive", 6, {"source_id": entity}, cap=1000)[0]
        expected = [(p.hops, p.nodes[-1].id, p.nodes[-1].properties["sensitivity"]) for p in full]
        assert [tuple(e) for e in ends[entity]] == expected[:21]
        sizes.append(len(expected))
    assert sum(n > 21 for n in sizes) > 5 and sum(0 < n <= 20 for n in sizes) > 5, sizes
