"""The indexes of a scenario graph (graph/indexes.py): a graph made before one of them was added
(the blocked_by_run indexes, which releases and imports read) gets it, from `add_missing_indexes`
and when the product opens it; a graph that has them all, or does not exist yet, is not written.

`add_missing_indexes` runs on the embedded store and on the loopback server (the `store` fixture)."""

from __future__ import annotations

from blastshield_core import seed
from blastshield_core.graph.indexes import INDEXES, add_missing_indexes, index_key


def _drop_block_indexes(store) -> None:
    for rel in ("HAS_SESSION", "CAN_ACCESS"):
        store.execute_write(f"DROP INDEX FOR ()-[r:{rel}]-() ON (r.blocked_by_run)")


def _indexed(store) -> set[tuple[str, str]]:
    return {(row["label"], prop) for row in store.read("index_status") for prop in row["properties"]}


def test_a_graph_made_before_the_block_indexes_gets_them(store):
    """A graph without the blocked_by_run indexes (made before they were added) gets them, and the
    release's look-ups then read them; a graph that has every index, or none yet, is not written."""
    assert add_missing_indexes(store) == [] and not store.graph_exists(store.settings.graph)
    seed(store)
    _drop_block_indexes(store)
    plan = store.command("GRAPH.EXPLAIN", store.settings.graph, "CYPHER route_id='x' " + _blocked_route_text())
    assert not any("Index Scan" in line for line in plan)
    assert add_missing_indexes(store) == ["create_route_block_index_session", "create_route_block_index_access"]
    assert store.wait_for_indexes()
    assert _indexed(store) >= {index_key(name) for name in INDEXES}
    plan = store.command("GRAPH.EXPLAIN", store.settings.graph, "CYPHER route_id='x' " + _blocked_route_text())
    assert sum("Edge By Index Scan" in line for line in plan) == 2
    version = store.graph_version()
    assert add_missing_indexes(store) == [] and store.graph_version() == version


def test_opening_the_product_on_an_older_graph_adds_its_indexes(tmp_path):
    """`open_services` (the dashboard, the command line's writes) gives an older graph its indexes."""
    from blastshield_core import Store, load_settings
    from blastshield_core.interfaces.service import open_services

    settings = load_settings(environ={}, data_dir=tmp_path)
    store = Store(settings)
    try:
        seed(store)
        _drop_block_indexes(store)
        assert ("HAS_SESSION", "blocked_by_run") not in _indexed(store)
    finally:
        store.close()
    services = open_services(settings)
    try:
        assert _indexed(services.store) >= {index_key(name) for name in INDEXES}
        assert {row["status"] for row in services.store.read("index_status")} == {"OPERATIONAL"}
    finally:
        services.close()


def _blocked_route_text() -> str:
    from blastshield_core.graph.templates import template

    return template("blocked_route").text
