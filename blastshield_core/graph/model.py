"""The graph model: labels, relationship types, identifiers and the graph document.

Everything that crosses the import boundary is validated here, whole, before a
single write happens. The allowlists in this module are the only place labels
and relationship types come from when a query needs them.
"""

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from operator import attrgetter, eq, itemgetter, ne
from typing import TYPE_CHECKING, Annotated, Any, Literal, NamedTuple

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
)

from ..base.ids import ENTITY_ID_PATTERN

__all__ = [
    "ALERT_ID_PATTERN",
    "ANALYST_ALERT_KIND",
    "DOCUMENT_FORMAT",
    "DOCUMENT_NAME_PATTERN",
    "ENDPOINTS",
    "ENTITY_ID_PATTERN",
    "RESERVED_EDGE_PROPERTIES",
    "AlertSpec",
    "BuiltDocument",
    "Document",
    "DocumentError",
    "Edge",
    "EdgeRow",
    "EdgeSpec",
    "GraphDocument",
    "Label",
    "NodeSpec",
    "Permission",
    "RelStatus",
    "RelType",
    "Sensitivity",
    "domain_label",
    "is_valid_id",
]

DOCUMENT_FORMAT = "blastshield-graph/v1"

# Identifiers: a letter or digit, then letters, digits and `_ . : @ -`, at most 128.
# (defined in base.ids, which the results below the graph import too)
ALERT_ID_PATTERN = ENTITY_ID_PATTERN
DOCUMENT_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$"
ANALYST_ALERT_KIND = "analyst_investigation"  # the kind of an alert an analyst opens (analyst_alert)
PROPERTY_KEY_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"
_ID_RE = re.compile(ENTITY_ID_PATTERN)
# Control characters other than tab and newline are refused in stored text.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_PROPERTY_KEY_RE = re.compile(PROPERTY_KEY_PATTERN)

MAX_STRING = 4096
MAX_LIST = 256
# FalkorDB stores integers as signed 64-bit; a larger one would be silently clamped.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class Label(StrEnum):
    """Node labels of the identity-access graph."""

    IDENTITY = "Identity"
    SESSION = "Session"
    WORKLOAD = "Workload"
    IAM_ROLE = "IAMRole"
    DATA_ASSET = "DataAsset"


class RelType(StrEnum):
    """Directed relationship types: the traversal allowlist."""

    HAS_SESSION = "HAS_SESSION"
    CAN_ACCESS = "CAN_ACCESS"
    RUNS_AS = "RUNS_AS"
    CAN_ASSUME = "CAN_ASSUME"
    CAN_READ = "CAN_READ"
    CAN_ESCALATE = "CAN_ESCALATE"  # gains another principal's permissions by a privilege-escalation method


class Sensitivity(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class RelStatus(StrEnum):
    ACTIVE = "active"
    BLOCKED = "blocked"


class Permission(StrEnum):
    ALLOW = "allow"
    DENY = "deny"


# Which label a relationship type starts and ends at.
ENDPOINTS: dict[RelType, tuple[Label, Label]] = {
    RelType.HAS_SESSION: (Label.IDENTITY, Label.SESSION),
    RelType.CAN_ACCESS: (Label.SESSION, Label.WORKLOAD),
    RelType.RUNS_AS: (Label.WORKLOAD, Label.IAM_ROLE),
    RelType.CAN_ASSUME: (Label.IAM_ROLE, Label.IAM_ROLE),
    RelType.CAN_READ: (Label.IAM_ROLE, Label.DATA_ASSET),
    RelType.CAN_ESCALATE: (Label.IAM_ROLE, Label.IAM_ROLE),
}
ROUTED_TYPES = frozenset({RelType.HAS_SESSION, RelType.CAN_ACCESS})
# Relationship properties only the action service writes: who blocked a route, when,
# and from which run. A document cannot set them (a block is state BlastShield owns).
RESERVED_EDGE_PROPERTIES = frozenset({"blocked_by_run", "blocked_at", "blocked_by"})
PERMISSIONED_TYPES = frozenset({RelType.CAN_ASSUME, RelType.CAN_READ, RelType.CAN_ESCALATE})

# Storage label every entity also carries, so an id lookup uses one index.
ENTITY_STORAGE_LABEL = "Entity"
ALERT_STORAGE_LABEL = "Alert"


def is_valid_id(value: object) -> bool:
    """True for a string that is a well-formed entity or alert id."""
    return isinstance(value, str) and _ID_RE.fullmatch(value) is not None


def domain_label(labels: list[str]) -> str:
    """The model label among a stored node's labels (drops the storage label)."""
    for name in labels:
        if name != ENTITY_STORAGE_LABEL:
            return name
    return ENTITY_STORAGE_LABEL


class DocumentError(ValueError):
    """An imported document is invalid; `item` points at the offending part."""

    def __init__(self, item: str, message: str):
        super().__init__(f"{item}: {message}")
        self.item = item
        self.message = message


EntityId = Annotated[StrictStr, Field(pattern=ENTITY_ID_PATTERN)]


def _fits_int64(value: Any) -> Any:
    # Checked before the union: a strict float would otherwise take a too-large int, losing digits.
    if type(value) is int and not INT64_MIN <= value <= INT64_MAX:
        raise ValueError("integers must fit in 64 bits (-2**63 .. 2**63-1)")
    return value


Scalar = Annotated[StrictStr | StrictBool | StrictInt | StrictFloat, BeforeValidator(_fits_int64)]
PropertyValue = Scalar | Annotated[list[Scalar], Field(max_length=MAX_LIST)]


def _check_text(what: str, value: str) -> str:
    if _CONTROL_RE.search(value):
        raise ValueError(f"{what} contains control characters")
    return value


def _check_properties(props: dict[str, Any], reserved: set[str]) -> dict[str, Any]:
    for key, value in props.items():
        if not _PROPERTY_KEY_RE.fullmatch(key):
            raise ValueError(f"property name {key!r} is not allowed (letters, digits, _; at most 64)")
        if key in reserved:
            raise ValueError(f"property {key!r} is reserved and cannot be set in 'properties'")
        for item in value if isinstance(value, list) else (value,):
            if isinstance(item, str):
                if len(item) > MAX_STRING:
                    raise ValueError(f"property {key!r} is longer than {MAX_STRING} characters")
                if _CONTROL_RE.search(item):
                    raise ValueError(f"property {key!r} contains control characters")
            elif isinstance(item, float):
                if not math.isfinite(item):
                    raise ValueError(f"property {key!r} must be a finite number")
                if float(f"{item:.15g}") != item:
                    # FalkorDB answers doubles with 15 significant digits: this value would read back changed.
                    raise ValueError(f"property {key!r} has more than 15 significant digits ({item!r})")
    return props


class NodeSpec(BaseModel):
    """One node of a graph document."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: EntityId
    label: Label
    name: Annotated[StrictStr, Field(min_length=1, max_length=256)]
    properties: dict[str, PropertyValue] = Field(default_factory=dict)

    def model_post_init(self, _context: Any) -> None:
        _check_text("name", self.name)
        _check_properties(self.properties, {"id", "name", "label"})
        sensitivity = self.properties.get("sensitivity")
        if self.label is Label.DATA_ASSET and sensitivity not in {s.value for s in Sensitivity}:
            raise ValueError(
                f"DataAsset {self.id!r} needs properties.sensitivity of low|medium|high|critical, got {sensitivity!r}"
            )


class EdgeSpec(BaseModel):
    """One directed relationship of a graph document."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    source: EntityId
    type: RelType
    target: EntityId
    properties: dict[str, PropertyValue] = Field(default_factory=dict)

    def model_post_init(self, _context: Any) -> None:
        for key in sorted(RESERVED_EDGE_PROPERTIES & self.properties.keys()):
            raise ValueError(
                f"property {key!r} is reserved: only BlastShield sets it when a containment run blocks a route"
            )
        _check_properties(self.properties, set())
        props = self.properties
        status = props.setdefault("status", RelStatus.ACTIVE.value)
        if status not in {s.value for s in RelStatus}:
            raise ValueError(f"status must be active|blocked, got {status!r}")
        if "route_id" in props:
            if self.type not in ROUTED_TYPES:
                raise ValueError(f"route_id is only allowed on HAS_SESSION and CAN_ACCESS, not {self.type}")
            if not is_valid_id(props["route_id"]):
                raise ValueError(f"route_id {props['route_id']!r} is not a valid identifier")
        if self.type in PERMISSIONED_TYPES:
            permission = props.setdefault("permission", Permission.ALLOW.value)
            if permission not in {p.value for p in Permission}:
                raise ValueError(f"permission must be allow|deny, got {permission!r}")
        elif "permission" in props:
            raise ValueError(f"permission is only allowed on CAN_ASSUME, CAN_READ and CAN_ESCALATE, not {self.type}")

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.source, self.type.value, self.target)


class EdgeRow(NamedTuple):
    """One relationship as a plain tuple, what a source builds in bulk (an AWS account has 700,000 of them):
    the fields of `EdgeSpec`, read the same way. Checked by the import with `EdgeSpec`'s own rules before
    anything is written (`ingest.validated_document`)."""

    source: str
    type: RelType
    target: str
    properties: dict[str, Any]

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.source, str(self.type), self.target)

    def as_dict(self) -> dict[str, Any]:
        """The relationship as a document holds it (what `EdgeSpec.model_dump(mode="json")` gives)."""
        return {
            "source": self.source,
            "type": str(self.type),
            "target": self.target,
            "properties": dict(self.properties),
        }


Edge = EdgeSpec | EdgeRow


class AlertSpec(BaseModel):
    """One alert of a graph document: a signal about one entity."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: EntityId
    title: Annotated[StrictStr, Field(min_length=1, max_length=256)]
    entity_id: EntityId
    kind: Annotated[StrictStr, Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")]
    signals: dict[str, Scalar] = Field(default_factory=dict)

    def model_post_init(self, _context: Any) -> None:
        _check_text("title", self.title)
        _check_properties(self.signals, set())


def _edge_item(index: int, edge: Edge) -> str:
    return f"edges[{index}] ({edge.source} -{edge.type}-> {edge.target})"


def _distinct(*columns: list[Any]) -> bool:
    """No two rows of the columns are equal.

    Distinct hashes prove distinct rows (a set of ints is half the work of a set of tuples);
    only when two hashes collide are the rows themselves compared.
    """
    count = len(columns[0])
    if len(set(map(hash, zip(*columns, strict=True)))) == count:
        return True
    return len(set(zip(*columns, strict=True))) == count


def _edges_pass(edges: Sequence[Edge], known: dict[str, str]) -> bool:
    """True when every relationship passes `GraphDocument._check_edges` (which then names the first that does not).

    The same checks as whole-list passes (a large import has 700,000 relationships): ends of the
    right labels, no loop, no duplicate (source, type, target), no route id used twice.
    """
    want_source = {rel: source.value for rel, (source, _) in ENDPOINTS.items()}
    want_target = {rel: target.value for rel, (_, target) in ENDPOINTS.items()}
    sources = list(map(attrgetter("source"), edges))
    types = list(map(attrgetter("type"), edges))
    targets = list(map(attrgetter("target"), edges))
    # map/zip/all run these without Python code per relationship
    if not all(map(eq, map(known.get, sources), map(want_source.__getitem__, types))):
        return False
    if not all(map(eq, map(known.get, targets), map(want_target.__getitem__, types))):
        return False
    if any(map(eq, sources, targets)):
        return False
    if not _distinct(sources, types, targets):
        return False
    routes = [route for edge in edges if isinstance(route := edge.properties.get("route_id"), str)]
    return len(set(routes)) == len(routes)


class _Checks:
    """The checks across a document's items, for a parsed document and a built one alike."""

    if TYPE_CHECKING:  # what the checks read (declared by each document class)
        nodes: Sequence[NodeSpec]
        edges: Sequence[Edge]
        alerts: Sequence[AlertSpec]

    def check_internal(self, existing: dict[str, str] | None = None) -> None:
        """Cross-item checks. `existing` maps ids already in the graph to their label.

        Raises DocumentError naming the first offending item.
        """
        existing = existing or {}
        # whole-list passes first (a label is a StrEnum, equal to its text); the loop, which
        # names the first offending node, runs only when they fail
        labels: dict[str, str] = dict(
            zip(map(attrgetter("id"), self.nodes), map(attrgetter("label"), self.nodes), strict=True)
        )
        if len(labels) != len(self.nodes) or any(map(ne, map(existing.get, labels, labels.values()), labels.values())):
            self._check_nodes(existing)
        known: dict[str, str] = {**existing, **labels}
        if not _edges_pass(self.edges, known):
            self._check_edges(known)
        alert_ids: set[str] = set()
        for index, alert in enumerate(self.alerts):
            item = f"alerts[{index}] (id {alert.id!r})"
            if alert.id in alert_ids:
                raise DocumentError(item, "duplicate alert id")
            alert_ids.add(alert.id)
            if alert.entity_id not in known:
                raise DocumentError(item, f"entity_id {alert.entity_id!r} is not a node of the document or the graph")

    def _check_nodes(self, existing: dict[str, str]) -> None:
        """The nodes' cross-item checks one by one: raises DocumentError naming the first offender."""
        labels: dict[str, Label] = {}
        for index, node in enumerate(self.nodes):
            item = f"nodes[{index}] (id {node.id!r})"
            if node.id in labels:
                raise DocumentError(item, "duplicate node id")
            current = existing.get(node.id)
            if current is not None and current != node.label.value:
                raise DocumentError(item, f"id already exists in the graph as {current}, not {node.label}")
            labels[node.id] = node.label

    def _check_edges(self, known: dict[str, str]) -> None:
        """The relationships' cross-item checks one by one: raises DocumentError naming the first offender."""
        # This loop runs once per relationship: enum values are looked up once, and
        # the item text is built only for an error.
        ends = {rel: (source.value, target.value) for rel, (source, target) in ENDPOINTS.items()}
        seen_edges: set[tuple[str, str, str]] = set()
        seen_routes: dict[str, int] = {}
        for index, edge in enumerate(self.edges):
            source, rel, target = edge.source, edge.type, edge.target
            want_source, want_target = ends[rel]
            have_source, have_target = known.get(source), known.get(target)
            if have_source != want_source or have_target != want_target:
                for end, node_id, have, want in (
                    ("source", source, have_source, want_source),
                    ("target", target, have_target, want_target),
                ):
                    if have is None:
                        raise DocumentError(
                            _edge_item(index, edge), f"{end} {node_id!r} is not a node of the document or the graph"
                        )
                    if have != want:
                        message = f"{end} {node_id!r} is a {have}; {rel} needs a {want}"
                        raise DocumentError(_edge_item(index, edge), message)
            if source == target:
                raise DocumentError(_edge_item(index, edge), "a relationship cannot start and end at the same node")
            key = (source, rel, target)
            if key in seen_edges:
                raise DocumentError(_edge_item(index, edge), "duplicate relationship (same source, type and target)")
            seen_edges.add(key)
            route = edge.properties.get("route_id")
            if isinstance(route, str):
                if route in seen_routes:
                    raise DocumentError(
                        _edge_item(index, edge), f"route_id {route!r} is already used by edges[{seen_routes[route]}]"
                    )
                seen_routes[route] = index

    def referenced_ids(self) -> set[str]:
        """Every entity id the document names (nodes, edge ends, alert entities)."""
        ids = {n.id for n in self.nodes}
        for edge in self.edges:
            ids.update((edge.source, edge.target))
        ids.update(a.entity_id for a in self.alerts)
        return ids


class GraphDocument(_Checks, BaseModel):
    """A whole graph document (`blastshield-graph/v1`)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    format: Literal["blastshield-graph/v1"]
    name: Annotated[StrictStr, Field(pattern=DOCUMENT_NAME_PATTERN)]
    nodes: list[NodeSpec] = Field(default_factory=list)
    edges: list[EdgeSpec] = Field(default_factory=list)
    alerts: list[AlertSpec] = Field(default_factory=list)


@dataclass(eq=False)
class BuiltDocument(_Checks):
    """A graph document a source built in memory (the AWS import): nodes and alerts as their models,
    relationships as plain `EdgeRow` tuples, which the import checks with the model's own rules before it
    writes anything (`ingest.validated_document`). `as_data` is its JSON form (`GraphDocument.model_validate`
    of it is the document, validated whole)."""

    name: str
    nodes: list[NodeSpec]
    edges: list[EdgeRow]
    alerts: list[AlertSpec]
    format: str = DOCUMENT_FORMAT

    def validated(self) -> "BuiltDocument":
        """The document with its relationships checked by `EdgeSpec`'s own rules through the public
        `model_validate` (the import calls this before it writes anything); DocumentError names the first
        bad one.

        A source shares one properties dict between its relationships with equal properties (700,000
        relationships hold a few tens of thousands), and what `EdgeSpec` checks beyond the two ends depends
        only on the type and the properties: each distinct (type, properties) is validated once, with the
        first relationship holding it, and every end once (a `TypeAdapter` of the id type). A relationship
        keeps its properties unless validation adds to them (a default status or permission)."""
        rows = self.edges
        GraphDocument.model_validate({"format": self.format, "name": self.name})
        kinds = list(zip(map(itemgetter(1), rows), map(id, map(itemgetter(3), rows)), strict=True))
        # (the rows hold each properties dict alive, so no id is reused while `kinds` lives)
        first = dict(zip(reversed(kinds), range(len(rows) - 1, -1, -1), strict=True))
        changed: dict[tuple[Any, int], tuple[RelType, dict[str, Any]]] = {}
        for index in sorted(first.values()):
            row = rows[index]
            try:
                edge = EdgeSpec.model_validate(row.as_dict())
            except ValidationError as exc:
                raise DocumentError(_edge_item(index, row), _message(exc)) from None
            if edge.type is not row.type or edge.properties != row.properties:
                changed[kinds[index]] = (edge.type, edge.properties)
        ends = sorted(set(map(itemgetter(0), rows)).union(map(itemgetter(2), rows)))
        try:
            _IDS.validate_python(ends)
        except ValidationError as exc:
            bad = ends[exc.errors()[0]["loc"][0]]  # type: ignore[index]
            index = next(i for i, r in enumerate(rows) if bad in (r.source, r.target))
            raise DocumentError(_edge_item(index, rows[index]), f"{bad!r}: {_message(exc)}") from None
        if changed:
            fixed = changed.get
            rows = [EdgeRow(r[0], c[0], r[2], c[1]) if (c := fixed(k)) else r for r, k in zip(rows, kinds, strict=True)]
        return replace(self, edges=rows)

    def as_data(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "name": self.name,
            "nodes": [n.model_dump(mode="json") for n in self.nodes],
            "edges": [e.as_dict() for e in self.edges],
            "alerts": [a.model_dump(mode="json") for a in self.alerts],
        }


Document = GraphDocument | BuiltDocument
_IDS: TypeAdapter[list[str]] = TypeAdapter(list[EntityId])


def _message(exc: ValidationError) -> str:
    return str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
