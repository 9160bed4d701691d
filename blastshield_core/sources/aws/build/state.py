"""The state of one AWS build, in three parts with one job each.

* `Inventory`: what the exports say (principals and their policies, workloads, buckets, resource
  policies, the organisation), filled by the read steps and frozen before the first edge family runs
  (`freeze`: no field is rebound after it);
* `EdgeSink`: what the build writes (nodes, relationships by (source, type, target), alerts), the
  rule by which a second reason for a relationship merges with the first, and the stored properties
  shared by relationships with equal ones;
* `EvaluationCache`: answers kept between principals and resources alike. A cache keyed by an
  object's identity holds the object (`hold`), so no id is reused while the cache lives.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ....graph.model import Label, NodeSpec
from ..iam.caller import Caller
from ..iam.evaluate_input import Rule
from ..iam.policy import Decision, Effect, Statement
from .common import _clean_props, _Principal, _Role, _text
from .get import AwsSources
from .organizations import Organization
from .policy_sets import _PolicySet
from .resource_policies import ResourcePolicy


@dataclass
class Inventory:
    """What the exports say, read once (the read steps of `transform.READ_STEPS`), then frozen."""

    sources: AwsSources
    sensitivity: list[tuple[str, str]]
    accounts: dict[str, str] = field(default_factory=dict)  # account -> its GAAD file
    managed: dict[str, list[Statement] | None] = field(
        default_factory=dict
    )  # policy ARN -> statements (None: unreadable)
    roles: dict[str, _Role] = field(default_factory=dict)  # role ARN -> role
    role_names: dict[tuple[str, str], str] = field(default_factory=dict)  # (account, role name) -> ARN
    users: dict[str, _Principal] = field(default_factory=dict)  # user ARN -> its role-like principal
    user_by_name: dict[tuple[str, str], str] = field(default_factory=dict)
    user_sessions: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # user ARN -> sessions
    profiles: dict[str, str] = field(default_factory=dict)  # instance profile ARN -> role ARN
    buckets: dict[str, dict[str, dict[str, str]]] = field(
        default_factory=lambda: defaultdict(dict)
    )  # account -> bucket -> tags
    bucket_accounts: set[str] = field(default_factory=set)
    # secrets (`list-secrets`) and KMS keys (`list-keys`): kind (secret | kms_key) -> ARN -> (account,
    # name, tags); the accounts each listing covers, and the regions it holds resources in
    listed: dict[str, dict[str, tuple[str, str, dict[str, str]]]] = field(
        default_factory=lambda: {"secret": {}, "kms_key": {}}
    )
    listed_accounts: dict[str, set[str]] = field(default_factory=lambda: {"secret": set(), "kms_key": set()})
    listed_regions: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    listed_sorted: dict[str, list[str]] = field(default_factory=dict)  # kind -> its listed ARNs, sorted
    workloads: list[tuple[str, str, str]] = field(default_factory=list)  # (node id, kind, ARN)
    groups: dict[str, tuple[str, str, list[Statement]]] = field(
        default_factory=dict
    )  # group ARN -> account, name, statements
    group_by_name: dict[tuple[str, str], str] = field(default_factory=dict)  # (account, group name) -> ARN
    user_groups: dict[str, list[str]] = field(default_factory=dict)  # user ARN -> its group ARNs
    attached_arns: dict[str, list[str]] = field(default_factory=dict)  # user / role ARN -> managed policy ARNs
    policy_versions: dict[str, list[tuple[str, list[Statement]]]] = field(default_factory=dict)  # ARN -> other versions
    boundary_arns: dict[int, str] = field(default_factory=dict)  # id(boundary statements, held in `managed`) -> ARN
    credentials: dict[str, tuple[bool, int]] = field(default_factory=dict)  # user ARN -> (console password, keys)
    function_roles: list[tuple[str, str, str]] = field(default_factory=list)  # (function node, ARN, role ARN)
    listed_keys: dict[tuple[str, str], list[dict[str, Any]]] | None = None  # `iam list-access-keys`, when read
    organization: Organization | None = None
    resource_policies: dict[str, ResourcePolicy] = field(default_factory=dict)  # asset node -> its policy
    principal_tags: dict[str, dict[str, str] | None] = field(default_factory=dict)  # principal ARN -> tags
    guardrail_keys: frozenset[str] = frozenset()  # the condition keys the guardrails test (lower case)
    guardrails_per_principal: bool = False  # a guardrail tests the principal's own keys
    frozen: bool = False

    def freeze(self) -> None:
        """The read steps are over: the edge families read the inventory and rebind none of it."""
        self.frozen = True

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "frozen", False):
            raise AttributeError(f"the inventory is frozen: {name} is read by the edge families, not set")
        object.__setattr__(self, name, value)


class EdgeSink:
    """The nodes, relationships and alerts the build writes.

    Relationships are kept by (source, type, target) with their stored properties; a stored properties
    dict is never changed once stored (`put_edge` replaces), so relationships with equal properties
    share one dict (`plain`, `decided`) and the bulk load packs each shared dict once."""

    def __init__(self) -> None:
        self.nodes: dict[str, NodeSpec] = {}
        self.edges: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.alerts: dict[str, dict[str, Any]] = {}
        self.plain: dict[str, dict[str, Any]] = {}  # stored properties of a type's plain relationship
        self.decided: dict[tuple[Any, ...], dict[str, Any]] = {}  # stored properties per decision (and use)

    def node(self, node_id: str, label: str, name: str, **props: Any) -> str:
        clean = _clean_props(props)
        if node_id in self.nodes:
            self.nodes[node_id].properties.update(clean)
        else:
            text = _text(name, 256) or node_id
            # built through the model's public constructor from values already valid (the id from `entity_id`,
            # the name and properties cleaned): the model's own checks of the name and properties run on it
            # (`model_post_init`); properties added later are cleaned the same way (`_clean_props`)
            self.nodes[node_id] = NodeSpec.model_construct(id=node_id, label=Label(label), name=text, properties=clean)
        return node_id

    def edge(self, source: str, rel: str, target: str, **props: Any) -> None:
        if props:
            self.put_edge(source, rel, target, self.edge_props(rel, props))
            return
        plain = self.plain.get(rel)  # one shared dict per type for relationships without properties
        if plain is None:
            plain = self.plain[rel] = self.edge_props(rel, {})
        self.put_edge(source, rel, target, plain)

    @staticmethod
    def edge_props(rel: str, props: Mapping[str, Any]) -> dict[str, Any]:
        """A relationship's properties as stored: cleaned, with the default status and permission."""
        clean = _clean_props(props)
        clean.setdefault("status", "active")
        if rel in ("CAN_ASSUME", "CAN_READ", "CAN_ESCALATE"):
            clean.setdefault("permission", "allow")
        return clean

    def put_edge(self, source: str, rel: str, target: str, clean: dict[str, Any]) -> None:
        """Store a relationship with its stored properties (`edge_props`); a second reason merges."""
        key = (source, rel, target)
        current = self.edges.get(key)
        if current is not None:
            # a second reason for the same relationship: an unconditional allow wins, keys add up
            if current.get("permission") == "deny" or clean.get("permission") == "deny":
                if clean.get("permission") != "deny":
                    return
            elif current.get("conditional") and not clean.get("conditional"):
                pass
            else:
                return
        self.edges[key] = clean

    def decision_edge(self, source: str, rel: str, target: str, decision: Decision, **extra: Any) -> None:
        clean = self.decision_props(rel, decision, **extra)
        if clean is not None:
            self.put_edge(source, rel, target, clean)

    def decision_props(self, rel: str, decision: Decision, **extra: Any) -> dict[str, Any] | None:
        """The stored properties of a relationship for `decision` (None: no allow, no relationship); one
        dict per distinct decision, shared by its relationships."""
        if decision.effect is Effect.NONE:
            return None
        key = (rel, decision, *((k, tuple(v) if isinstance(v, list) else v) for k, v in extra.items()))
        clean = self.decided.get(key)
        if clean is None:
            if decision.effect is Effect.DENY:
                clean = self.edge_props(rel, {"permission": "deny", **extra})
            else:
                clean = self.edge_props(
                    rel,
                    {
                        "permission": "allow",
                        "conditional": decision.conditional or None,
                        "condition_keys": list(decision.condition_keys),
                        **extra,
                    },
                )
            self.decided[key] = clean
        return clean

    def fan_out(self, source: str, rel: str, found: list[tuple[str, dict[str, Any]]]) -> None:
        """`put_edge(source, rel, target, props)` for each (target, props)."""
        edges = self.edges
        for target, clean in found:
            key = (source, rel, target)
            if key in edges:
                self.put_edge(source, rel, target, clean)
            else:
                edges[key] = clean


class EvaluationCache:
    """Answers shared between principals with the same policies and resources alike (each read by one
    edge family or helper; see where it is used). Entries keyed by `id(...)` hold their object: a key
    is made with `hold` when the entry is stored."""

    def __init__(self) -> None:
        self._held: dict[int, Any] = {}
        self.globbed: dict[str, list[str]] = {}  # pattern -> matching role / bucket-object ARNs
        self.all_arns: list[str] = []
        self.stmt_services: dict[int, tuple[str, ...]] = {}  # id(statement) -> data services it may grant
        self.stmt_actions: dict[int, frozenset[str]] = {}  # id(statement) -> the modelled actions it covers
        self.policy_sets: dict[tuple[Any, ...], _PolicySet] = {}
        self.derived: dict[tuple[Any, ...], Any] = {}  # see `builder.Evaluation.derived`
        self.pattern_candidates: dict[tuple[str, str, str, str], list[tuple[str, str]]] = {}
        self.statement_candidates: dict[tuple[int, str, str], list[tuple[str, str]]] = {}
        self.assume_props: dict[tuple[Any, ...], dict[str, Any] | None] = {}  # see trust.CanAssume
        self.hits: dict[tuple[int, str], set[str]] = {}  # (id(statement), workload kind) -> ARNs it names
        self.pattern_hits: dict[tuple[str, str], set[str]] = {}  # (pattern, workload kind) -> ARNs it matches
        self.granted: dict[tuple[str, str], tuple[set[str], list[str]]] = {}  # (pattern, account) -> pool, ARNs
        # the identity conditions (identity_conditions.py)
        self.rules: dict[int, list[Rule] | None] = {}  # id(statements) -> their rules
        self.tests_known: dict[Any, bool] = {}
        self.identity_answers: dict[Any, dict[str, Any] | None] = {}
        self.callers: dict[str, Caller] = {}  # principal ARN -> the caller it is in a request
        # resource policies and guardrails (policy_edges.py)
        self.answers: dict[tuple[Any, ...], Any] = {}
        self.causes: dict[tuple[Any, ...], bool] = {}  # answer's key -> the answer was a guardrail's
        self.signatures: dict[int, tuple[dict[str, Any], str]] = {}  # id(properties) -> (them, signature)
        self.bounds: dict[tuple[int, str, str], tuple[bool, ...]] = {}  # (id(boundary), asset, service) -> allows
        self.bounds_everywhere: dict[int, bool] = {}  # id(boundary) -> every statement names Resource "*"
        self.guardrail_hits: dict[Any, list[Any]] = {}  # the guardrail levels (resource_policies.Level) per request

    def hold(self, *objects: Any) -> None:
        """Keep `objects` alive as long as the cache: their ids are in its keys."""
        for obj in objects:
            self._held[id(obj)] = obj

    def ids(self, statements: Sequence[Statement], boundary: Sequence[Statement] | None) -> tuple[Any, ...]:
        """The identity key of a list of statements and a boundary, the objects held."""
        self.hold(*statements)
        if boundary is not None:
            self.hold(boundary)
        return (tuple(map(id, statements)), None if boundary is None else id(boundary))
