"""The read-only tools. Every query is a named template run with GRAPH.RO_QUERY.

Each tool takes raw values, validates them into a pydantic input (bad input is
`invalid_input`, never a query), answers from the graph, and is traced whether
it succeeded, failed or was refused.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from ..graph.model import Label
from ..graph.store import QueryFailed, Store, decode_cell
from ..graph.templates import path_template
from ..results import (
    DEFAULT_DEPTH,
    MAX_DEPTH,
    PATH_CAP,
    AccessPath,
    AlertInput,
    AlertsResult,
    AlertSummary,
    AlertView,
    BlastRadiusResult,
    CandidatesResult,
    EvidenceGraphResult,
    GraphRel,
    InvestigateInput,
    InvestigationResult,
    PathInput,
    RouteStatus,
    RouteStatusResult,
    ShortestPathResult,
    Status,
    ToolResult,
)
from .candidates import build_candidates, candidate_id, role_session_collateral
from .paths import (
    BLAST_LABELS,
    SENSITIVE,
    AlertRecord,
    Evidence,
    Unknown,
    _alert_record,
    _count,
    _deepening,
    _node,
    _paths_from_graph_records,
    _paths_from_records,
    _qualifies,
    _signals,
    describe_input_error,
    path_signature,
)
from .reach import Reached, ReachMixin, _critical_paths, _Links, _side_reads
from .rules import RULE_SET, PathEnd, assess, evidence_points, score_for, signal_factors
from .trace import Tracer

# `candidate_id` and `path_signature` (from `candidates` and `paths`) are named here for importers of this module.
__all__ = [
    "SENSITIVE",
    "Evidence",
    "Reached",
    "ReadTools",
    "Unknown",
    "build_candidates",
    "candidate_id",
    "describe_input_error",
    "path_signature",
]

# The alert queue reads its entities' path ends in chunks of this many ids (one query each).
QUEUE_CHUNK = 100
# The drawn neighbourhood holds at most this many relationships (paths are always drawn whole).
GRAPH_RELATIONSHIP_CAP = 300

R = TypeVar("R", bound=ToolResult)
_summaries: TypeAdapter[list[AlertSummary]] | None = None  # the queue's rows, validated in one call (made on first use)


def _summary_list() -> TypeAdapter[list[AlertSummary]]:
    global _summaries  # noqa: PLW0603 - made once, on first use: read commands other than `alerts` never need it
    if _summaries is None:
        _summaries = TypeAdapter(list[AlertSummary])
    return _summaries


class ReadTools(ReachMixin):
    """The read-only tools over one store. Safe to share between threads."""

    def __init__(self, store: Store, tracer: Tracer | None = None, path_cap: int = PATH_CAP):
        self.store = store
        self.tracer = tracer or Tracer()
        self.path_cap = path_cap

    # -- plumbing ------------------------------------------------------------
    def _run(
        self,
        tool: str,
        result_cls: type[R],
        input_cls: type[BaseModel] | None,
        raw: dict[str, Any],
        body: Callable[[Any], R],
    ) -> R:
        started = time.perf_counter()
        traced_input = raw
        try:
            if input_cls is not None:
                validated = input_cls.model_validate(raw)
                traced_input = validated.model_dump()
            else:
                validated = None
            result = body(validated)
        except ValidationError as exc:
            result = result_cls(tool=tool, status=Status.INVALID_INPUT, message=describe_input_error(exc))
        except Unknown as exc:
            result = result_cls(tool=tool, status=exc.status, message=exc.message)
        except QueryFailed as exc:
            result = result_cls(tool=tool, status=Status.QUERY_FAILED, message=str(exc))
        self.tracer.record(tool, traced_input, result.status, _count(result), (time.perf_counter() - started) * 1000)
        return result

    def _paths(
        self,
        kind: str,
        depth: int,
        params: dict[str, Any],
        *,
        include_blocked: bool = False,
        exclude_routes: Iterable[str] = (),
        cap: int | None = None,
    ) -> tuple[list[AccessPath], bool]:
        cap = cap or self.path_cap
        query = dict(params)
        query.update(
            include_blocked=include_blocked,
            exclude_routes=sorted(exclude_routes),
            limit=cap + 1,
        )
        if kind == "sensitive":
            query["sensitivities"] = SENSITIVE
        names, records = self.store.read_records(path_template(kind, depth).name, query)
        paths = _paths_from_records(records, names.index("nodes"), names.index("rels")) if records else []
        return paths[:cap], len(paths) > cap

    def evidence(self, alert_id: str, *, exclude_routes: Iterable[str] = ()) -> Evidence:
        """The standard investigation (depth 6) of an alert, fresh from the graph, in one query.

        Raises QueryFailed, or Unknown for an unknown alert or entity.
        """
        names, records = self.store.read_records(
            "alert_evidence",
            {
                "id": alert_id,
                "sensitivities": SENSITIVE,
                "exclude_routes": sorted(exclude_routes),
                "limit": self.path_cap + 1,
            },
        )
        kind_at = names.index("kind") if records else 0
        by_kind: dict[str, list[list[Any]]] = {"alert": [], "schema": [], "path": []}
        for record in records:
            by_kind[record[kind_at][1]].append(record)
        if not by_kind["alert"]:
            raise Unknown(Status.UNKNOWN_ALERT, f"no alert with id {alert_id!r}")
        head = {name: decode_cell(cell) for name, cell in zip(names, by_kind["alert"][0], strict=True)}
        alert = _alert_record(head["props"])
        if head["id"] is None:
            raise Unknown(Status.UNKNOWN_SOURCE, f"no entity with id {alert.entity_id!r} in the graph")
        entity = _node({"id": head["id"], "labels": head["labels"], "props": head["entity_props"]})
        paths = []
        if by_kind["path"]:
            schema = {name: decode_cell(cell) for name, cell in zip(names, by_kind["schema"][0], strict=True)}
            nodes_at, rels_at = names.index("nodes"), names.index("rels")
            paths = _paths_from_graph_records(
                by_kind["path"], nodes_at, rels_at, first=entity, keys=schema["props"], types=schema["labels"]
            )
        return Evidence(alert=alert, entity=entity, paths=paths[: self.path_cap], truncated=len(paths) > self.path_cap)

    def _alert_view(self, evidence: Evidence) -> AlertView:
        assessment = assess(evidence.alert.signals, evidence.paths)
        return AlertView(
            id=evidence.alert.id,
            title=evidence.alert.title,
            entity_id=evidence.alert.entity_id,
            entity_label=evidence.entity.label,
            kind=evidence.alert.kind,
            signals=evidence.alert.signals,
            risk_score=assessment.score,
            severity=assessment.severity,
            rule_set=assessment.rule_set,
            factors=assessment.factors,
        )

    # -- tools ---------------------------------------------------------------
    def alert_choices(self) -> list[tuple[str, str]]:
        """(id, title) of every alert, ordered by id: one query, no investigation (for pickers).

        Raises QueryFailed."""
        return [(row["props"]["id"], row["props"].get("title", "")) for row in self.store.read("list_alerts")]

    def path_ends(self, entity_ids: Iterable[str]) -> dict[str, list[PathEnd]]:
        """The ends of the standard investigation's qualifying paths (depth 6, shortest first,
        at most `path_cap` + 1, exactly those `evidence` reads) for many entities, in bounded
        chunks of `QUEUE_CHUNK` ids, several chunks at a time. An id missing from the answer
        is not in the graph; an entity with no qualifying path maps to an empty list.

        Raises QueryFailed if any chunk fails: a partial answer is never returned."""
        found: dict[str, list[PathEnd]] = {}
        for part in self._path_end_chunks(entity_ids):
            found.update(part)
        return found

    def _path_end_chunks(
        self, entity_ids: Iterable[str], open_routes: Collection[str] = ()
    ) -> Iterator[dict[str, list[PathEnd]]]:
        """`path_ends` chunk by chunk, each as soon as it is read (in order), so a caller can
        work on one while the server reads the next. With `open_routes`, as the account sees
        them: a relationship blocked in the graph whose route is among them still qualifies.

        Raises QueryFailed if a chunk fails."""
        ids = sorted(set(entity_ids))
        chunks = [ids[i : i + QUEUE_CHUNK] for i in range(0, len(ids), QUEUE_CHUNK)]
        params: dict[str, Any] = {"sensitivities": SENSITIVE, "limit": self.path_cap + 1}
        template = "alert_path_ends"
        if open_routes:
            template, params["open_routes"] = "alert_path_ends_on_account", sorted(open_routes)

        def chunk(part: list[str]) -> dict[str, list[PathEnd]]:
            rows = self.store.read(template, {"entity_ids": part, **params})
            return {row["entity_id"]: [PathEnd(int(h), a, str(s)) for h, a, s in row["ends"]] for row in rows}

        if len(chunks) <= 1:
            yield from map(chunk, chunks)
            return
        yield from _side_reads().map(chunk, chunks)

    def list_alerts(self, open_routes: Collection[str] = ()) -> AlertsResult:
        """Every alert with its computed score and count of qualifying paths.

        The same summary an investigation of each alert gives (`investigate_alert`: status,
        path count, truncation, score, severity, rule set), read for all alerts in a few
        batched queries: each distinct entity's path ends once (`path_ends`), its evidence
        rules' points once, worked out chunk by chunk while the server reads the next chunk,
        each distinct set of signals once, and the rows validated in one call.

        `open_routes` are routes blocked in the graph that the account does not hold blocked (in
        the graph only, or undone on the account): an alert with more qualifying paths when they
        count as open gets them as `open_on_account`, scored by the same rules
        (`account_risk_score`, `account_severity`)."""

        def body(_: None) -> AlertsResult:
            rows = self.store.read("queue_alerts")
            cap = self.path_cap
            evidence: dict[str, tuple[int, int, bool]] = {}  # entity: evidence points, path count, truncated
            on_account: dict[str, tuple[int, int]] = {}  # entity: evidence points, path count on the account
            if rows:
                for part in self._path_end_chunks(row["entity_id"] or "" for row in rows):
                    for entity_id, ends in part.items():
                        evidence[entity_id] = (evidence_points(ends[:cap]), min(len(ends), cap), len(ends) > cap)
                if open_routes:
                    for part in self._path_end_chunks((row["entity_id"] or "" for row in rows), open_routes):
                        for entity_id, ends in part.items():
                            if min(len(ends), cap) > evidence.get(entity_id, (0, 0, False))[1]:
                                on_account[entity_id] = (evidence_points(ends[:cap]), min(len(ends), cap))
            signal_rules: dict[str | None, tuple[str, int]] = {}  # raw signals: rule set, signal points
            specs: list[dict[str, Any]] = []
            for row in rows:
                entity_id = row["entity_id"] or ""
                spec: dict[str, Any] = {
                    "id": row["id"],
                    "title": row["title"] or "",
                    "entity_id": entity_id,
                    "kind": row["kind"] or "",
                    "rule_set": RULE_SET,
                }
                found = evidence.get(entity_id)
                if found is None:
                    spec.update(risk_score=None, severity=None, path_count=None, status=Status.UNKNOWN_SOURCE)
                else:
                    points, path_count, truncated = found
                    raw = row["signals"] if isinstance(row["signals"], str) else None  # stored as JSON text
                    if raw not in signal_rules:
                        rule_set, factors = signal_factors(_signals(raw))
                        signal_rules[raw] = (rule_set, sum(f.points for f in factors))
                    rule_set, signal_points = signal_rules[raw]
                    score, severity = score_for(points + signal_points)
                    spec.update(
                        risk_score=score,
                        severity=severity,
                        rule_set=rule_set,
                        path_count=path_count,
                        truncated=truncated,
                        status=Status.PATHS_FOUND if path_count else Status.NO_PATH,
                    )
                    if entity_id in on_account:
                        account_points, open_paths = on_account[entity_id]
                        account_score, account_severity = score_for(account_points + signal_points)
                        spec.update(
                            open_on_account=open_paths,
                            account_risk_score=account_score,
                            account_severity=account_severity,
                        )
                specs.append(spec)
            return AlertsResult(tool="list_alerts", status=Status.OK, alerts=_summary_list().validate_python(specs))

        return self._run("list_alerts", AlertsResult, None, {}, body)

    def investigate_alert(self, alert_id: Any, depth: Any = DEFAULT_DEPTH) -> InvestigationResult:
        """Every qualifying path from the alert's entity to a high/critical asset, shortest first."""

        def body(inp: InvestigateInput) -> InvestigationResult:
            ev = self.evidence(inp.alert_id)
            if inp.depth == MAX_DEPTH:
                paths, truncated = ev.paths, ev.truncated
            else:
                paths, truncated = self._paths("sensitive", inp.depth, {"source_id": ev.alert.entity_id})
            found = bool(paths)
            message = (
                f"{len(paths)}{'+' if truncated else ''} qualifying path(s) within {inp.depth} hops"
                if found
                else f"no qualifying path from {ev.alert.entity_id} to a high/critical asset within {inp.depth} hops"
            )
            return InvestigationResult(
                tool="investigate_alert",
                status=Status.PATHS_FOUND if found else Status.NO_PATH,
                message=message,
                alert=self._alert_view(ev),
                depth=inp.depth,
                paths=paths,
                path_count=len(paths),
                truncated=truncated,
                path_cap=self.path_cap,
            )

        return self._run(
            "investigate_alert", InvestigationResult, InvestigateInput, {"alert_id": alert_id, "depth": depth}, body
        )

    def get_blast_radius(self, alert_id: Any) -> BlastRadiusResult:
        """Workloads, roles and assets reachable over qualifying relationships within 6 hops."""

        def body(inp: AlertInput) -> BlastRadiusResult:
            # One breadth-first expansion answers both questions: what the entity reaches, and,
            # from the relationships it read, the critical paths (those `evidence` reads; on a
            # dense graph the path query cost as much as the expansion). Alert, entity and
            # expansion are read at one graph version.
            def read() -> tuple[AlertRecord, list[Reached], _Links, dict[int, str]]:
                rows = self.store.read("alert_by_id", {"id": inp.alert_id})
                if not rows:
                    raise Unknown(Status.UNKNOWN_ALERT, f"no alert with id {inp.alert_id!r}")
                alert = _alert_record(rows[0]["props"])
                if not self.store.read("entities_by_ids", {"ids": [alert.entity_id]}):
                    raise Unknown(Status.UNKNOWN_SOURCE, f"no entity with id {alert.entity_id!r} in the graph")
                links: _Links = {}
                names: dict[int, str] = {}
                return alert, self._expand(alert.entity_id, [], links, names), links, names

            alert, reached, links, names = self._at_one_version(read, f"reads of alert {inp.alert_id!r}")
            start = next((node for node, entity in names.items() if entity == alert.entity_id), None)
            sensitive = {r.id for r in reached if r.label == Label.DATA_ASSET and r.sensitivity in SENSITIVE}
            targets = {node for node, entity in names.items() if entity in sensitive}
            paths, truncated = _critical_paths(start, links, targets, names, self.path_cap)
            on_path = {entity for path in paths for entity in path[1:]}
            # Plain rows validated in one call: thousands of entities on a dense graph.
            found = [
                {"id": r.id, "label": r.label, "name": r.name, "hops": r.hops, "on_critical_path": r.id in on_path}
                for r in reached
                if r.label in BLAST_LABELS
            ]
            found.sort(key=lambda e: (BLAST_LABELS.index(e["label"]), e["hops"], e["id"]))
            by_label = dict.fromkeys(BLAST_LABELS, 0)
            for entity in found:
                by_label[str(entity["label"])] += 1
            return BlastRadiusResult(
                tool="get_blast_radius",
                status=Status.OK,
                message=f"{len(found)} workload/role/asset entities reachable within {MAX_DEPTH} hops",
                alert_id=alert.id,
                entity_id=alert.entity_id,
                entities=found,
                by_label=by_label,
                critical_paths_truncated=truncated,
            )

        return self._run("get_blast_radius", BlastRadiusResult, AlertInput, {"alert_id": alert_id}, body)

    def find_shortest_access_path(
        self, source_id: Any, target_id: Any, max_hops: Any = DEFAULT_DEPTH
    ) -> ShortestPathResult:
        """All shortest qualifying paths from source to target within max_hops (1..6)."""

        def body(inp: PathInput) -> ShortestPathResult:
            known = {row["id"] for row in self.store.read("entities_by_ids", {"ids": [inp.source_id, inp.target_id]})}
            if inp.source_id not in known:
                raise Unknown(Status.UNKNOWN_SOURCE, f"no entity with id {inp.source_id!r} in the graph")
            if inp.target_id not in known:
                raise Unknown(Status.UNKNOWN_TARGET, f"no entity with id {inp.target_id!r} in the graph")
            common = {"source_id": inp.source_id, "target_id": inp.target_id, "max_hops": inp.max_hops}
            if inp.source_id == inp.target_id:
                return ShortestPathResult(
                    tool="find_shortest_access_path",
                    status=Status.NO_PATH,
                    message="source and target are the same entity; a path needs at least one relationship",
                    **common,
                )
            # Iterative deepening: the first depth with any path gives the shortest ones.
            # The depth-d template returns paths of 1..d relationships shortest first, so
            # one query covers every depth up to SHORTEST_FIRST_DEPTH; the shortest are
            # the leading rows of the smallest length, and they were truncated only when
            # the cap + 1 rows are all of that length.
            for depth in _deepening(inp.max_hops):
                paths, _ = self._paths(
                    "target", depth, {"source_id": inp.source_id, "target_id": inp.target_id}, cap=self.path_cap + 1
                )
                if paths:
                    hops = paths[0].hops
                    shortest = [p for p in paths if p.hops == hops]
                    truncated = len(shortest) > self.path_cap
                    shortest = shortest[: self.path_cap]
                    return ShortestPathResult(
                        tool="find_shortest_access_path",
                        status=Status.PATHS_FOUND,
                        message=f"{len(shortest)}{'+' if truncated else ''} shortest path(s) of {hops} hops",
                        hops=hops,
                        paths=shortest,
                        path_count=len(shortest),
                        truncated=truncated,
                        path_cap=self.path_cap,
                        **common,
                    )
            return ShortestPathResult(
                tool="find_shortest_access_path",
                status=Status.NO_PATH,
                message=f"no qualifying path from {inp.source_id} to {inp.target_id} within {inp.max_hops} hops",
                **common,
            )

        raw = {"source_id": source_id, "target_id": target_id, "max_hops": max_hops}
        return self._run("find_shortest_access_path", ShortestPathResult, PathInput, raw, body)

    def get_containment_route_statuses(self, alert_id: Any, graph_only: Iterable[str] = ()) -> RouteStatusResult:
        """Session routes the alert's paths use or used, with status and paths carried now.

        `graph_only` names the routes blocked in the graph only (an AWS-backed route whose block was
        not applied on the account): such a route reads so, and the paths it is the only block on
        count as open on the account (`open_on_account`)."""
        in_graph_only = frozenset(graph_only)

        def body(inp: AlertInput) -> RouteStatusResult:
            ev = self.evidence(inp.alert_id)
            all_paths, all_truncated = self._paths(
                "sensitive", MAX_DEPTH, {"source_id": ev.alert.entity_id}, include_blocked=True
            )
            # open on the account: every block on the path is one in the graph only (or it has none)
            on_account = [
                p
                for p in all_paths
                if all(
                    r.properties.get("route_id") in in_graph_only
                    for r in p.relationships
                    if r.properties.get("status") == "blocked"
                )
            ]
            routes: dict[str, RouteStatus] = {}
            for path in all_paths + ev.paths:
                for rel in path.relationships:
                    route = rel.properties.get("route_id")
                    if isinstance(route, str) and route not in routes:
                        routes[route] = RouteStatus(
                            route_id=route,
                            type=rel.type,
                            source=rel.source,
                            target=rel.target,
                            status=str(rel.properties.get("status", "active")),
                            paths_carried=sum(1 for p in ev.paths if route in p.route_ids),
                            graph_only=route in in_graph_only,
                            paths_open_on_account=sum(1 for p in on_account if route in p.route_ids),
                        )
            ordered = sorted(routes.values(), key=lambda r: (-r.paths_carried, r.status != "active", r.route_id))
            graph_only_note = (
                f"; {len(on_account)} path(s) open on the account ({len(on_account) - len(ev.paths)} through a"
                " route blocked in the graph only)"
                if len(on_account) > len(ev.paths)
                else ""
            )
            return RouteStatusResult(
                tool="get_containment_route_statuses",
                status=Status.OK,
                message=f"{len(ordered)} route(s); {len(ev.paths)} qualifying path(s) now" + graph_only_note,
                alert_id=ev.alert.id,
                routes=ordered,
                qualifying_paths=len(ev.paths),
                open_on_account=len(on_account),
                truncated=ev.truncated or all_truncated,
            )

        return self._run("get_containment_route_statuses", RouteStatusResult, AlertInput, {"alert_id": alert_id}, body)

    def get_evidence_graph(self, alert_id: Any, depth: Any = DEFAULT_DEPTH) -> EvidenceGraphResult:
        """The neighbourhood of the alert's entity within depth hops, blocked and denied
        relationships included (marked), with the qualifying paths at that depth: what the
        dashboard draws."""

        def body(inp: InvestigateInput) -> EvidenceGraphResult:
            ev = self.evidence(inp.alert_id)
            if inp.depth == MAX_DEPTH:
                paths, truncated = ev.paths, ev.truncated
            else:
                paths, truncated = self._paths("sensitive", inp.depth, {"source_id": ev.alert.entity_id})
            on_path = {(r.source, r.type, r.target) for p in paths for r in p.relationships}
            nodes = {ev.entity.id: ev.entity}
            rels: dict[tuple[str, str, str], GraphRel] = {}
            frontier = [ev.entity.id]
            cap = GRAPH_RELATIONSHIP_CAP
            for _hop in range(inp.depth):
                if not frontier or len(rels) >= cap:
                    break
                rows = self.store.read(
                    "expand_frontier_any_status", {"frontier": frontier, "limit": cap - len(rels) + 1}
                )
                next_frontier = []
                for row in rows:
                    key = (row["source"], row["type"], row["id"])
                    if key in rels:
                        continue
                    if len(rels) >= cap:
                        truncated = True
                        break
                    props = dict(row["rel_props"])
                    rels[key] = GraphRel(
                        type=row["type"],
                        source=row["source"],
                        target=row["id"],
                        properties=props,
                        qualifying=_qualifies(props),
                        on_path=key in on_path,
                    )
                    if row["id"] not in nodes:
                        nodes[row["id"]] = _node(row)
                        next_frontier.append(row["id"])
                frontier = next_frontier
            for path in paths:  # paths are drawn whole even if the neighbourhood was capped
                for node in path.nodes:
                    nodes.setdefault(node.id, node)
                for rel in path.relationships:
                    rels.setdefault(
                        (rel.source, rel.type, rel.target),
                        GraphRel(**rel.model_dump(), qualifying=True, on_path=True),
                    )
            return EvidenceGraphResult(
                tool="get_evidence_graph",
                status=Status.PATHS_FOUND if paths else Status.NO_PATH,
                message=f"{len(nodes)} entities, {len(rels)} relationships within {inp.depth} hops;"
                f" {len(paths)} qualifying path(s)",
                alert_id=ev.alert.id,
                entity_id=ev.entity.id,
                depth=inp.depth,
                nodes=list(nodes.values()),
                relationships=list(rels.values()),
                paths=paths,
                path_count=len(paths),
                truncated=truncated,
                relationship_cap=cap,
            )

        raw = {"alert_id": alert_id, "depth": depth}
        return self._run("get_evidence_graph", EvidenceGraphResult, InvestigateInput, raw, body)

    def _cut_at_credentials(self, ev: Evidence) -> list[AccessPath]:
        """For an alert on an imported AWS user: its qualifying paths cut only at credential routes
        (every blocked relationship on them a session route: a key made inactive, a deny-all policy, a
        block). Sessions issued along them before the cut (role sessions assumed with a key deactivated
        since) keep working until they expire. [] for other alerts."""
        props = ev.entity.properties
        if ev.entity.label != "Identity" or props.get("aws_kind") != "user":
            return []
        every, _ = self._paths("sensitive", MAX_DEPTH, {"source_id": ev.entity.id}, include_blocked=True)
        live = path_signature(ev.paths)
        return [
            p
            for p in every
            if p.node_ids not in live
            and all(
                r.properties.get("route_id")
                for r in p.relationships
                if r.properties.get("status", "active") == "blocked"
            )
        ]

    def get_response_candidates(self, alert_id: Any) -> CandidatesResult:
        """Allowlisted actions the current evidence supports: block one active session route,
        each with its collateral (what other identities would lose)."""

        def body(inp: AlertInput) -> CandidatesResult:
            ev = self.evidence(inp.alert_id)
            result = build_candidates(ev, self.path_cap, self._cut_at_credentials(ev))
            baseline: dict[str, list[Reached]] = {}
            for cand in result.candidates:
                cand.collateral = self.candidate_collateral(
                    cand.route_id, ev.alert.entity_id, baseline, relationship=cand.relationship
                )
            for revocation in result.revocations:
                if revocation.principal == "role":
                    revocation.collateral = role_session_collateral(self.store, revocation, ev.entity)
            return result

        return self._run("get_response_candidates", CandidatesResult, AlertInput, {"alert_id": alert_id}, body)
