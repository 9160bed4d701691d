"""Guardrails on a dense generated graph: capped answers, timeouts, no retried writes."""

from __future__ import annotations

import time
import uuid

import pytest
import redis

from blastshield_core import QueryFailed, Status, Store, import_document, load_settings, parse_document
from blastshield_core.graph.generate import GenerateOptions, generate
from blastshield_core.read.tools import ReadTools
from blastshield_core.results import PATH_CAP


@pytest.fixture(scope="module")
def dense(base_store):
    """A dense generated graph (hubs assuming dozens of roles) and its hub alerts."""
    view = base_store.for_graph(f"dense_{uuid.uuid4().hex[:8]}")
    graph = generate(GenerateOptions(edges=10_000, seed=7, dense=True))
    import_document(view, parse_document(graph.to_document()))
    hub_alerts = [a[0] for a in graph.alerts if a[2] in set(graph.hubs)]
    yield view, hub_alerts
    view.command("GRAPH.DELETE", view.settings.graph)


def test_dense_answers_are_capped_and_flagged(dense):
    """On a hub the path answer stops at the cap, says truncated, and comes back quickly."""
    view, hub_alerts = dense
    tools = ReadTools(view)
    started = time.monotonic()
    result = tools.investigate_alert(hub_alerts[0])
    assert time.monotonic() - started < 5
    assert result.status is Status.PATHS_FOUND
    assert (result.truncated, result.path_count, len(result.paths), result.path_cap) == (
        True,
        PATH_CAP,
        PATH_CAP,
        PATH_CAP,
    )
    assert f"{PATH_CAP}+" in result.message


def test_dense_candidates_say_truncated(dense):
    """Candidates built from a capped path list say so."""
    view, hub_alerts = dense
    result = ReadTools(view).get_response_candidates(hub_alerts[0])
    assert result.status is Status.OK and result.truncated


def test_dense_blast_radius_answers(dense):
    """Blast radius on a hub answers by frontier expansion, within 6 hops, quickly."""
    view, hub_alerts = dense
    started = time.monotonic()
    result = ReadTools(view).get_blast_radius(hub_alerts[0])
    assert time.monotonic() - started < 5
    assert result.status is Status.OK and result.entities
    assert max(e.hops for e in result.entities) <= 6 and result.critical_paths_truncated


def test_timed_out_query_is_query_failed(dense):
    """A query ended by the server-side timeout is query_failed, never no_path."""
    view, hub_alerts = dense
    tiny = view.for_graph(view.settings.graph)
    tiny.settings = tiny.settings.model_copy(update={"query_timeout_ms": 1})
    tools = ReadTools(tiny)
    results = [tools.investigate_alert(alert_id) for alert_id in hub_alerts]
    assert all(r.status is Status.QUERY_FAILED for r in results)
    assert any("timed out" in r.message.lower() for r in results)
    assert not any(r.paths for r in results)


def test_write_is_not_retried_after_socket_timeout(loopback_server):
    """A write whose reply is late fails after one socket timeout and runs at most once: never re-sent."""
    store = Store(load_settings(environ={}, falkordb_url=loopback_server.url, query_timeout_ms=100))
    graph = f"retry_{uuid.uuid4().hex[:8]}"
    admin = redis.Redis.from_url(loopback_server.url)
    try:
        store.execute_write("CREATE (:Probe {n: 0})", graph=graph)
        admin.execute_command("CLIENT", "PAUSE", int(store.settings.socket_timeout_s * 1000) + 1500, "WRITE")
        started = time.monotonic()
        with pytest.raises(QueryFailed):
            store.execute_write("CREATE (:Probe {n: 1})", graph=graph)
        assert time.monotonic() - started < store.settings.socket_timeout_s + 1
        admin.execute_command("CLIENT", "UNPAUSE")
        time.sleep(0.3)
        rows = store.read_text("MATCH (p:Probe) RETURN count(p) AS n", graph=graph)
        assert rows[0]["n"] in (1, 2)  # the server drops or runs the one copy it got
    finally:
        admin.execute_command("CLIENT", "UNPAUSE")
        admin.delete(graph)
        admin.close()
        store.close()
