"""Small random graph documents and an independent path oracle, for exactness tests.

`small_graph_document(seed)` builds a valid `blastshield-graph/v1` document with
one alert: a few identities, sessions, workloads, roles (with CAN_ASSUME
cycles) and assets, some relationships blocked or denied, session routes on
most but not all HAS_SESSION / CAN_ACCESS relationships, and sometimes an alert
on a workload, whose paths carry no route at all. The functions below compute
qualifying paths and minimum cuts from the document alone, in plain Python,
without the database or the code under test.
"""

from __future__ import annotations

import random
from itertools import combinations, permutations

SENSITIVE = {"high", "critical"}
EdgeKey = tuple[str, str, str]


def small_graph_document(seed: int) -> dict:
    """A small valid graph document with one alert (`ALERT-<seed>`), reproducible from `seed`."""
    rng = random.Random(seed)
    layers = {
        "Identity": [f"i{k}" for k in range(rng.randint(1, 2))],
        "Session": [f"s{k}" for k in range(rng.randint(2, 4))],
        "Workload": [f"w{k}" for k in range(rng.randint(2, 4))],
        "IAMRole": [f"r{k}" for k in range(rng.randint(2, 4))],
        "DataAsset": [f"a{k}" for k in range(rng.randint(2, 4))],
    }
    nodes = []
    for label, ids in layers.items():
        for index, node_id in enumerate(ids):
            props: dict = {"seed": seed}
            if label == "DataAsset":
                props["sensitivity"] = "critical" if index == 0 else rng.choice(["low", "medium", "high", "critical"])
            nodes.append({"id": node_id, "label": label, "name": f"{label} {node_id}", "properties": props})

    edges = []
    routes = 0

    def add(source: str, rel_type: str, target: str, route_p: float = 0.0, deny_p: float = 0.0) -> None:
        nonlocal routes
        props: dict = {"status": "blocked" if rng.random() < 0.08 else "active"}
        if rng.random() < route_p:
            routes += 1
            props["route_id"] = f"route-{seed}-{routes}"
        if rel_type in ("CAN_ASSUME", "CAN_READ"):
            props["permission"] = "deny" if rng.random() < deny_p else "allow"
        edges.append({"source": source, "type": rel_type, "target": target, "properties": props})

    for session in layers["Session"]:
        owners = rng.sample(layers["Identity"], k=min(len(layers["Identity"]), rng.choice([1, 1, 2])))
        for owner in owners:
            add(owner, "HAS_SESSION", session, route_p=0.8)
    for session in layers["Session"]:
        for workload in layers["Workload"]:
            if rng.random() < 0.55:
                add(session, "CAN_ACCESS", workload, route_p=0.5)
    for workload in layers["Workload"]:
        for role in layers["IAMRole"]:
            if rng.random() < 0.45:
                add(workload, "RUNS_AS", role)
    for a, b in permutations(layers["IAMRole"], 2):
        if rng.random() < 0.25:
            add(a, "CAN_ASSUME", b, deny_p=0.1)
    for role in layers["IAMRole"]:
        for asset in layers["DataAsset"]:
            if rng.random() < 0.5:
                add(role, "CAN_READ", asset, deny_p=0.1)

    entity = layers["Workload"][0] if rng.random() < 0.2 else layers["Identity"][0]
    return {
        "format": "blastshield-graph/v1",
        "name": f"small-{seed}",
        "nodes": nodes,
        "edges": edges,
        "alerts": [
            {
                "id": f"ALERT-{seed}",
                "title": f"Small graph alert {seed}",
                "entity_id": entity,
                "kind": "identity_access_path",
                "signals": {"seed": seed, "off_hours_login": seed % 2 == 0},
            }
        ],
    }


def qualifying_paths(doc: dict, source: str, depth: int = 6, exclude_routes: frozenset[str] = frozenset()) -> list:
    """Every qualifying path (as a tuple of edge keys) from `source`, by depth-first search over the document."""
    sensitivity = {n["id"]: n["properties"].get("sensitivity") for n in doc["nodes"]}
    out: dict[str, list[EdgeKey]] = {}
    for edge in doc["edges"]:
        props = edge["properties"]
        if props.get("status", "active") == "blocked" or props.get("permission", "allow") == "deny":
            continue
        if props.get("route_id") in exclude_routes:
            continue
        out.setdefault(edge["source"], []).append((edge["source"], edge["type"], edge["target"]))
    found = []

    def walk(node: str, visited: list[str], rels: list[EdgeKey]) -> None:
        if rels and sensitivity.get(node) in SENSITIVE:
            found.append(tuple(rels))
        if len(rels) == depth:
            return
        for key in out.get(node, []):
            if key[2] not in visited:
                walk(key[2], [*visited, key[2]], [*rels, key])

    walk(source, [source], [])
    return found


def route_of(doc: dict) -> dict[EdgeKey, str]:
    """Edge key → route id, for every routed edge."""
    return {
        (e["source"], e["type"], e["target"]): e["properties"]["route_id"]
        for e in doc["edges"]
        if "route_id" in e["properties"]
    }


def brute_force_minimum(paths: list[tuple[EdgeKey, ...]], allowed: set[EdgeKey] | None = None) -> int:
    """The size of the smallest edge set (from `allowed`, default all) meeting every path, by trying every subset."""
    sets = [frozenset(p) if allowed is None else frozenset(p) & allowed for p in paths]
    universe = sorted(set().union(*sets)) if sets else []
    for size in range(len(universe) + 1):
        for combo in combinations(universe, size):
            chosen = set(combo)
            if all(s & chosen for s in sets):
                return size
    raise AssertionError("no subset meets every path (an empty path set?)")
