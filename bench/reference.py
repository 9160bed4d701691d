"""The same answers as the read tools, computed in-process with networkx.

The reference graph holds every node and relationship of the imported
document with its properties; each answer filters relationships while it
traverses (a lazy `subgraph_view`), as the Cypher templates do, so both sides
start from the same graph and the same rules.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import networkx as nx

from blastshield_core.graph.model import GraphDocument
from blastshield_core.read.paths import BLAST_LABELS, SENSITIVE
from blastshield_core.results import MAX_DEPTH, PATH_CAP

__all__ = ["RefPaths", "Reference"]

Path = tuple[str, ...]


@dataclass(frozen=True)
class RefPaths:
    """Paths in answer order (shortest first, then by node ids), capped."""

    paths: list[Path]
    truncated: bool


def _order(paths: Iterable[list[str]], cap: int) -> RefPaths:
    ordered = sorted((tuple(p) for p in paths), key=lambda p: (len(p), p))
    return RefPaths(ordered[:cap], len(ordered) > cap)


class Reference:
    """networkx answers over one graph document."""

    def __init__(self, doc: GraphDocument, cap: int = PATH_CAP):
        self.cap = cap
        graph = nx.DiGraph()
        for node in doc.nodes:
            graph.add_node(node.id, label=node.label.value, sensitivity=node.properties.get("sensitivity"))
        for edge in doc.edges:
            graph.add_edge(edge.source, edge.target, type=edge.type.value, **edge.properties)
        self.graph = graph
        self.alerts = {a.id: a.entity_id for a in doc.alerts}
        self.sensitive = {
            n.id for n in doc.nodes if n.label.value == "DataAsset" and n.properties.get("sensitivity") in SENSITIVE
        }
        self.view = nx.subgraph_view(graph, filter_edge=self._qualifies)

    def _qualifies(self, u: str, v: str) -> bool:
        data = self.graph.edges[u, v]
        return data.get("status", "active") != "blocked" and data.get("permission", "allow") != "deny"

    def investigate(self, alert_id: str) -> RefPaths:
        """Qualifying paths of 1..6 relationships from the alert's entity to high/critical assets."""
        source = self.alerts[alert_id]
        targets = self.sensitive - {source}
        return _order(nx.all_simple_paths(self.view, source, targets, cutoff=MAX_DEPTH), self.cap)

    def blast_radius(self, alert_id: str) -> tuple[set[tuple[str, int]], set[str]]:
        """(id, hops) of workloads, roles and assets within 6 qualifying hops, and the on-path ids."""
        source = self.alerts[alert_id]
        evidence = self.investigate(alert_id)
        on_path = {n for p in evidence.paths for n in p[1:]}
        hops = nx.single_source_shortest_path_length(self.view, source, cutoff=MAX_DEPTH)
        labels = self.graph.nodes
        found = {(n, h) for n, h in hops.items() if h > 0 and labels[n]["label"] in BLAST_LABELS}
        return found, {n for n, _ in found if n in on_path}

    def shortest(self, source: str, target: str, max_hops: int = MAX_DEPTH) -> RefPaths:
        """All shortest qualifying paths of at most max_hops relationships."""
        if source == target:
            return RefPaths([], False)
        try:
            paths = list(nx.all_shortest_paths(self.view, source, target))
        except nx.NetworkXNoPath:
            return RefPaths([], False)
        if not paths or len(paths[0]) - 1 > max_hops:
            return RefPaths([], False)
        return _order(paths, self.cap)

    def candidates(self, alert_id: str) -> dict[str, list[int]]:
        """route_id -> indexes of the capped evidence paths it carries (active session routes only)."""
        evidence = self.investigate(alert_id)
        found: dict[str, list[int]] = {}
        for index, path in enumerate(evidence.paths):
            for u, v in pairwise(path):
                data: dict[str, Any] = self.graph.edges[u, v]
                route = data.get("route_id")
                if isinstance(route, str) and data.get("status", "active") == "active":
                    cut = found.setdefault(route, [])
                    if index not in cut:
                        cut.append(index)
        return found
