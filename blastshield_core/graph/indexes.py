"""The indexes of a scenario graph (templates/write.cypher), and creating them.

An import builds them on its new graph (`ingest`). A graph made before one of them was added
(the blocked_by_run indexes came after the first imports) gets the ones it lacks when the
product opens it (`add_missing_indexes`, from `interfaces.service.open_services`), and an
upsert's copy of the graph gets them before it is written.
"""

from __future__ import annotations

import re

from .store import QueryFailed, Store
from .templates import template

__all__ = ["INDEXES", "NODE_INDEXES", "RELATIONSHIP_INDEXES", "add_missing_indexes", "ensure_indexes", "index_key"]

NODE_INDEXES = ("create_entity_index", "create_alert_index")
RELATIONSHIP_INDEXES = ("create_route_block_index_session", "create_route_block_index_access")
INDEXES = (*NODE_INDEXES, *RELATIONSHIP_INDEXES)

_INDEX_RE = re.compile(r"CREATE INDEX FOR (?:\(\w+:(\w+)\)|\(\)-\[\w+:(\w+)\]-\(\)) ON \(\w+\.(\w+)\)")


def index_key(name: str) -> tuple[str, str]:
    """The label (or relationship type) and property that index template `name` indexes."""
    match = _INDEX_RE.fullmatch(template(name).text)
    if match is None:
        raise ValueError(f"template {name!r} does not create one index on one property")
    return match.group(1) or match.group(2), match.group(3)


def ensure_indexes(store: Store, graph: str, names: tuple[str, ...] = INDEXES) -> None:
    """Create the indexes `names` on `graph`; one it already has is left as it is."""
    for name in names:
        try:
            store.execute_write(template(name).text, graph=graph)
        except QueryFailed as exc:
            if "already indexed" not in str(exc).lower():
                raise


def add_missing_indexes(store: Store, graph: str | None = None) -> list[str]:
    """Create the indexes an existing `graph` (default: the store's) lacks; the names created.
    Nothing is written when it has them all, or when it does not exist (an import makes it).
    A new index builds in the background, queries scanning until then (`Store.wait_for_indexes`)."""
    graph = graph or store.settings.graph
    if not store.graph_exists(graph):
        return []
    present = {(row["label"], prop) for row in store.read("index_status", graph=graph) for prop in row["properties"]}
    missing = tuple(name for name in INDEXES if index_key(name) not in present)
    ensure_indexes(store, graph, missing)
    return list(missing)
