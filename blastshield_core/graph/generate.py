"""Synthetic identity-access graphs of a chosen size, for scale tests and the benchmark.

`generate(GenerateOptions(edges=N, seed=S))` builds a compact plan of about N
relationships (exactly N when N is large enough for the role structure) and
`GeneratedGraph.write(path)` streams it as a `blastshield-graph/v1` document,
one item per line, without ever holding the whole document as dicts.

Shape: teams of identities, each with 1-3 sessions reaching 1-4 of the team's
workloads; workloads run as team roles (some as global hub roles); roles form
assumption chains with back-edges (cycles) and read a spread of assets; about
5% of relationships are blocked and some grants denied; decoys (blocked
sessions, denied critical assets, an isolated honeypot) exercise the filters.
`dense` makes hubs assume dozens of roles and lets many roles assume a hub,
which makes the number of paths explode. The same options give the same bytes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from .ingest import paused_gc
from .model import DOCUMENT_FORMAT, Label, RelType

__all__ = ["GenerateOptions", "GeneratedGraph", "generate", "write_generated"]

BLOCKED_RATE = 0.05
DENIED_RATE = 0.06
TEAM_SIZE = 200  # identities per team: sessions reach the team's workloads, which run as its roles
SENSITIVITIES = (("low", 0.40), ("medium", 0.30), ("high", 0.20), ("critical", 0.10))
SIGNALS = ("internet_exposed", "wildcard_policy", "impossible_travel", "off_hours_login", "mfa_disabled")
ENVIRONMENTS = ("prod", "staging", "dev")

# Edge flags in the compact plan.
ACTIVE, BLOCKED, DENIED = 0, 1, 2


class GenerateOptions(BaseModel):
    """What to generate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    edges: Annotated[int, Field(ge=100, le=5_000_000, description="about this many relationships")]
    seed: int = 0
    dense: bool = False
    name: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")] | None = None

    @property
    def document_name(self) -> str:
        return self.name or f"generated-{self.edges}-s{self.seed}{'-dense' if self.dense else ''}"


@dataclass
class GeneratedGraph:
    """A generated graph as compact lists; `write` streams it as a document."""

    options: GenerateOptions
    # (id, label, name, properties)
    nodes: list[tuple[str, Label, str, dict[str, Any]]] = field(default_factory=list)
    # (source, type, target, flag, route_id or None)
    edges: list[tuple[str, RelType, str, int, str | None]] = field(default_factory=list)
    # (id, title, entity_id, kind, signals)
    alerts: list[tuple[str, str, str, str, dict[str, bool]]] = field(default_factory=list)
    hubs: list[str] = field(default_factory=list)

    def edge_properties(self, edge: tuple[str, RelType, str, int, str | None]) -> dict[str, Any]:
        _, rel_type, _, flag, route = edge
        props: dict[str, Any] = {"status": "blocked" if flag == BLOCKED else "active"}
        if route is not None:
            props["route_id"] = route
        if rel_type in (RelType.CAN_ASSUME, RelType.CAN_READ):
            props["permission"] = "deny" if flag == DENIED else "allow"
        return props

    def lines(self) -> Iterator[str]:
        """The document as text, one node, relationship or alert per line."""
        dumps = json.JSONEncoder(separators=(",", ":"), sort_keys=True).encode
        yield f'{{"format":{dumps(DOCUMENT_FORMAT)},"name":{dumps(self.options.document_name)},\n"nodes":[\n'
        for index, (node_id, label, name, props) in enumerate(self.nodes):
            sep = ",\n" if index else ""
            yield sep + dumps({"id": node_id, "label": label.value, "name": name, "properties": props})
        yield '\n],\n"edges":[\n'
        for index, edge in enumerate(self.edges):
            sep = ",\n" if index else ""
            yield sep + dumps(
                {"source": edge[0], "type": edge[1].value, "target": edge[2], "properties": self.edge_properties(edge)}
            )
        yield '\n],\n"alerts":[\n'
        for index, (alert_id, title, entity, kind, signals) in enumerate(self.alerts):
            sep = ",\n" if index else ""
            yield sep + dumps({"id": alert_id, "title": title, "entity_id": entity, "kind": kind, "signals": signals})
        yield "\n]}\n"

    def write(self, path: str | Path) -> int:
        """Write the document to `path`; the number of bytes written."""
        size = 0
        with open(path, "w", encoding="utf-8", newline="\n") as out:
            for chunk in self.lines():
                out.write(chunk)
                size += len(chunk)
        return size

    def to_document(self) -> dict[str, Any]:
        """The document as decoded JSON (for small graphs and tests)."""
        return json.loads("".join(self.lines()))


def _block(count: int, teams: int, team: int) -> range:
    """The slice of `count` items belonging to `team` (every team gets at least one)."""
    lo = team * count // teams
    hi = max(lo + 1, (team + 1) * count // teams)
    return range(lo, min(hi, count))


def _sensitivity(rng: random.Random) -> str:
    roll = rng.random()
    for name, share in SENSITIVITIES:
        if roll < share:
            return name
        roll -= share
    return SENSITIVITIES[-1][0]


def generate(options: GenerateOptions) -> GeneratedGraph:
    """Build a graph of about `options.edges` relationships, deterministic for the seed."""
    with paused_gc():
        return _generate(options)


def _generate(options: GenerateOptions) -> GeneratedGraph:
    rng = random.Random(options.seed)  # noqa: S311 - synthetic data, reproducible by design
    target = options.edges
    dense = options.dense
    graph = GeneratedGraph(options)
    nodes, edges = graph.nodes, graph.edges

    # Sizes: an identity brings about 7.4 relationships (sessions, access, its share of roles and grants).
    est_identities = max(8, target * 10 // 74)
    teams = max(1, est_identities // TEAM_SIZE)
    n_workloads = max(6, est_identities // 2)
    n_roles = max(8, est_identities // 6)
    n_assets = max(6, n_roles // 2)
    n_hubs = max(3, n_roles // 150) if dense else max(2, n_roles // 400)
    n_decoys = max(2, est_identities // 400)

    def role_id(j: int) -> str:
        return f"hub-role-{j:03d}" if j < n_hubs else f"role-{j:06d}"

    def flag(permissioned: bool) -> int:
        roll = rng.random()
        if roll < BLOCKED_RATE:
            return BLOCKED
        if permissioned and roll < BLOCKED_RATE + DENIED_RATE:
            return DENIED
        return ACTIVE

    # Assets, roles and workloads.
    for j in range(n_assets):
        nodes.append((f"asset-{j:06d}", Label.DATA_ASSET, f"asset {j}", {"sensitivity": _sensitivity(rng)}))
    for j in range(n_roles):
        nodes.append((role_id(j), Label.IAM_ROLE, role_id(j), {"hub": j < n_hubs}))
    graph.hubs = [role_id(j) for j in range(n_hubs)]
    for j in range(n_workloads):
        env = ENVIRONMENTS[j % len(ENVIRONMENTS)]
        nodes.append((f"wl-{j:06d}", Label.WORKLOAD, f"workload {j}", {"environment": env}))

    hub_use = 0.15 if dense else 0.05
    for j in range(n_workloads):
        team = j * teams // n_workloads
        roles = _block(n_roles, teams, team)
        picks = {rng.choice(roles)}
        if rng.random() < 0.2:
            picks.add(rng.choice(roles))
        if rng.random() < hub_use:
            picks.add(rng.randrange(n_hubs))
        for r in sorted(picks):
            edges.append((f"wl-{j:06d}", RelType.RUNS_AS, role_id(r), flag(False), None))

    for j in range(n_roles):
        if j < n_hubs:
            fan = rng.randint(30, 60) if dense else rng.randint(6, 12)
            picks = set(rng.sample(range(n_roles), min(fan, n_roles - 1) + 1)) - {j}
            reads = set(rng.sample(range(n_assets), min(3, n_assets)))
        else:
            team = j * teams // n_roles
            roles = _block(n_roles, teams, team)
            picks = set()
            if j + 1 in roles and rng.random() < 0.6:
                picks.add(j + 1)  # chains
            if rng.random() < 0.4:
                picks.add(rng.choice(roles))
            if rng.random() < 0.08 and j - 3 in roles:
                picks.add(j - rng.randint(2, 3))  # back-edges: cycles
            if rng.random() < (0.12 if dense else 0.01):
                picks.add(rng.randrange(n_hubs))
            picks.discard(j)
            assets = _block(n_assets, teams, team)
            reads = {rng.choice(assets) for _ in range(rng.choice((0, 1, 1, 1, 2, 3)))}
        for r in sorted(picks):
            edges.append((role_id(j), RelType.CAN_ASSUME, role_id(r), flag(True), None))
        for a in sorted(reads):
            edges.append((role_id(j), RelType.CAN_READ, f"asset-{a:06d}", flag(True), None))

    # Decoys: identities whose only session is blocked, critical assets behind denied
    # grants, and an isolated honeypot workload.
    for d in range(n_decoys):
        ident, sess, asset = f"decoy-user-{d:04d}", f"decoy-sess-{d:04d}", f"decoy-asset-{d:04d}"
        nodes.append((ident, Label.IDENTITY, f"decoy user {d}", {"decoy": True}))
        nodes.append((sess, Label.SESSION, f"decoy session {d}", {"decoy": True}))
        nodes.append((asset, Label.DATA_ASSET, f"decoy asset {d}", {"sensitivity": "critical", "decoy": True}))
        edges.append((ident, RelType.HAS_SESSION, sess, BLOCKED, f"route-{sess}"))
        wl = rng.randrange(n_workloads)
        edges.append((sess, RelType.CAN_ACCESS, f"wl-{wl:06d}", ACTIVE, f"route-{sess}-w{wl}"))
        edges.append((role_id(rng.randrange(n_hubs, n_roles)), RelType.CAN_READ, asset, DENIED, None))
    nodes.append(("honeypot-wl", Label.WORKLOAD, "honeypot workload", {"decoy": True}))

    # Identities until the relationship budget is spent.
    identities: list[str] = []
    i = 0
    n_sessions = 0
    while len(edges) < target:
        team = min(teams - 1, i * teams // est_identities)
        ident = f"user-{i:07d}"
        nodes.append((ident, Label.IDENTITY, f"user {i}", {"team": f"team-{team}"}))
        identities.append(ident)
        workloads = _block(n_workloads, teams, team)
        for _ in range(rng.choice((1, 1, 2, 2, 2, 3))):
            if len(edges) >= target:
                break
            sess = f"sess-{n_sessions:07d}"
            n_sessions += 1
            nodes.append((sess, Label.SESSION, sess, {}))
            edges.append((ident, RelType.HAS_SESSION, sess, flag(False), f"route-{sess}"))
            for w in sorted(rng.sample(workloads, min(len(workloads), rng.randint(1, 4)))):
                if len(edges) >= target:
                    break
                edges.append((sess, RelType.CAN_ACCESS, f"wl-{w:06d}", flag(False), f"route-{sess}-w{w}"))
        i += 1

    # Alerts on varied entities: identities, workloads, roles (hubs among them).
    n_alerts = min(120, max(36, target // 500))
    kinds = (
        (Label.IDENTITY, "identity_access_path", "Suspicious session for {}"),
        (Label.WORKLOAD, "exposed_workload", "Exposed workload {}"),
        (Label.IAM_ROLE, "excessive_iam_permissions", "Excessive permissions on {}"),
    )
    for k in range(n_alerts):
        roll = k % 5
        label, kind, title = kinds[0 if roll < 3 else roll - 2]
        if label is Label.IDENTITY:
            entity = rng.choice(identities) if identities else f"decoy-user-{0:04d}"
        elif label is Label.WORKLOAD:
            entity = f"wl-{rng.randrange(n_workloads):06d}"
        else:
            entity = role_id(rng.randrange(n_hubs) if k % 10 == 4 else rng.randrange(n_hubs, n_roles))
        signals = {name: True for name in SIGNALS if rng.random() < 0.2}
        graph.alerts.append((f"GEN-{k:05d}", title.format(entity), entity, kind, signals))
    return graph


def write_generated(options: GenerateOptions, path: str | Path) -> GeneratedGraph:
    """Generate and write in one step; the plan is returned for reporting."""
    graph = generate(options)
    graph.write(path)
    return graph
