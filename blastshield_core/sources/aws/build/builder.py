"""The state of one AWS transform and what every part of it uses: writing nodes and
relationships, and the evaluation shared between principals with the same policies."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ....graph.model import Label, NodeSpec
from ..iam.policy import Decision, Effect, Statement, statement_matches_action
from .common import _MODELLED_ACTIONS, _built, _clean_props, _date, _Principal, _Role, _text
from .get import AwsSources, SourceFile
from .policy_sets import _covered, _PolicySet, _sorted_matches
from .report import AwsImportReport


class _BuilderBase:
    """The builder's state and shared steps; the parts of `transform._Builder` extend it."""

    def __init__(self, sources: AwsSources, sensitivity: Sequence[tuple[str, str]]):
        self.sources = sources
        self.sensitivity = list(sensitivity)
        self.report = AwsImportReport(skipped=list(sources.skipped), skipped_beyond=sources.skipped_beyond)
        self.nodes: dict[str, NodeSpec] = {}
        self.edges: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.alerts: dict[str, dict[str, Any]] = {}
        self.accounts: dict[str, str] = {}  # account -> its GAAD file
        self.managed: dict[str, list[Statement] | None] = {}  # policy ARN -> statements (None: unreadable)
        self.roles: dict[str, _Role] = {}  # role ARN -> role
        self.role_names: dict[tuple[str, str], str] = {}  # (account, role name) -> ARN
        self.users: dict[str, _Principal] = {}  # user ARN -> its role-like principal
        self.user_by_name: dict[tuple[str, str], str] = {}
        self.user_sessions: dict[str, list[str]] = defaultdict(list)  # user ARN -> session ids
        self.profiles: dict[str, str] = {}  # instance profile ARN -> role ARN
        self.buckets: dict[str, dict[str, dict[str, str]]] = defaultdict(dict)  # account -> bucket -> tags
        self.bucket_accounts: set[str] = set()
        self.workloads: list[tuple[str, str, str]] = []  # (node id, kind, ARN)
        self.outside: dict[str, str] = {}  # outside principal key -> its role-like node
        self._globbed: dict[str, list[str]] = {}  # pattern -> matching role / bucket-object ARNs
        self._all_arns: list[str] = []
        self._stmt_services: dict[int, tuple[str, ...]] = {}  # id(statement) -> data services it may grant
        self._stmt_actions: dict[int, frozenset[str]] = {}  # id(statement) -> the modelled actions it covers
        self._policy_sets: dict[tuple[Any, ...], _PolicySet] = {}
        self._derived: dict[tuple[Any, ...], Any] = {}  # see derived()
        self._pattern_candidates: dict[tuple[str, str, str, str], list[tuple[str, str]]] = {}
        self._statement_candidates: dict[tuple[int, str, str], list[tuple[str, str]]] = {}
        self._decision_props: dict[tuple[Any, ...], dict[str, Any]] = {}  # stored properties per decision
        self._assume_props: dict[tuple[Any, ...], dict[str, Any] | None] = {}  # see can_assume
        self._plain_props: dict[str, dict[str, Any]] = {}  # stored properties of a type's plain relationship
        self._hits: dict[tuple[int, str], set[str]] = {}  # (id(statement), workload kind) -> ARNs it names
        self._pattern_hits: dict[tuple[str, str], set[str]] = {}  # (pattern, workload kind) -> ARNs it matches
        self._granted: dict[tuple[str, str], tuple[set[str], list[str]]] = {}  # (pattern, account) -> pool, ARNs
        # what the escalation methods look at (escalate.py)
        self.groups: dict[str, tuple[str, str, list[Statement]]] = {}  # group ARN -> account, name, statements
        self.group_by_name: dict[tuple[str, str], str] = {}  # (account, group name) -> ARN
        self.user_groups: dict[str, list[str]] = {}  # user ARN -> its group ARNs
        self.attached_arns: dict[str, list[str]] = {}  # user / role ARN -> managed policy ARNs (a user's groups' too)
        self.policy_versions: dict[str, list[tuple[str, list[Statement]]]] = {}  # policy ARN -> other versions
        self.boundary_arns: dict[int, str] = {}  # id(boundary statements) -> the boundary policy's ARN
        self.credentials: dict[str, tuple[bool, int]] = {}  # user ARN -> (console password, access keys)
        self.function_roles: list[tuple[str, str, str]] = []  # (function node, function ARN, role ARN)
        self.gained: dict[tuple[str, ...], _Principal] = {}  # what escalation gains, evaluated as principals

    # ------------------------------------------------------------ helpers

    def role_named(self, arn: str) -> str:
        """The imported role's ARN, path included, for an ARN that names it without the path (as a session
        of it does, and so `policy.arns_named`); any other ARN as it is."""
        if arn in self.roles or ":role/" not in arn:
            return arn
        account, name = (arn.split(":")[4], arn.rsplit("/", 1)[-1])
        return self.role_names.get((account, name), arn)

    def warn(self, file: str, item: str, message: str) -> None:
        self.report.warn(file, item, message)

    def node(self, node_id: str, label: str, name: str, **props: Any) -> str:
        clean = _clean_props(props)
        if node_id in self.nodes:
            self.nodes[node_id].properties.update(clean)
        else:
            text = _text(name, 256) or node_id
            self.nodes[node_id] = _built(NodeSpec, id=node_id, label=Label(label), name=text, properties=clean)
        return node_id

    def edge(self, source: str, rel: str, target: str, **props: Any) -> None:
        if props:
            self.put_edge(source, rel, target, self.edge_props(rel, props))
            return
        plain = self._plain_props.get(rel)  # one shared dict per type for relationships without properties
        if plain is None:
            plain = self._plain_props[rel] = self.edge_props(rel, {})
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

    def created(self, file: str, item: str, value: Any) -> str | None:
        try:
            return _date(value)
        except ValueError as exc:
            self.warn(file, item, str(exc))
            return None

    def default_account(self, source: SourceFile) -> str:
        """The account of the GAAD in the same folder, else the only one, else the first."""
        same = [f for f in self.sources.of("gaad") if f.folder == source.folder]
        for gaad in same:
            for account, file in self.accounts.items():
                if file == gaad.name:
                    return account
        return next(iter(self.accounts))

    def decision_edge(self, source: str, rel: str, target: str, decision: Decision, **extra: Any) -> None:
        clean = self.decision_props(rel, decision, **extra)
        if clean is not None:
            self.put_edge(source, rel, target, clean)

    def decision_props(self, rel: str, decision: Decision, **extra: Any) -> dict[str, Any] | None:
        """The stored properties of a relationship for `decision` (None: no allow, no relationship); one
        dict per distinct decision, shared by its relationships (a stored properties dict is never changed:
        `put_edge` replaces, and the bulk load packs each shared dict once)."""
        if decision.effect is Effect.NONE:
            return None
        key = (rel, decision, *((k, tuple(v) if isinstance(v, list) else v) for k, v in extra.items()))
        clean = self._decision_props.get(key)
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
            self._decision_props[key] = clean
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

    # ------------------------------------------------------------ evaluation

    def principals(self) -> list[_Principal]:
        return [r.principal for r in self.roles.values()] + list(self.users.values()) + list(self.gained.values())

    def glob_cache(self, pattern: str) -> list[str]:
        """What a pattern matches among all role ARNs and bucket object ARNs, computed once per pattern.

        The ARNs are kept sorted, so only those starting with the pattern's literal prefix are tried.
        """
        found = self._globbed.get(pattern)
        if found is None:
            found = self._globbed[pattern] = list(_sorted_matches(pattern, self._universe()))
        return found

    def _universe(self) -> list[str]:
        if not self._all_arns:
            self._all_arns = sorted(
                [*self.roles, *(f"arn:aws:s3:::{b}/*" for buckets in self.buckets.values() for b in buckets)]
            )
        return self._all_arns

    def actions_of(self, stmt: Statement) -> frozenset[str]:
        """The modelled actions the statement covers (kept per statement)."""
        found = self._stmt_actions.get(id(stmt))
        if found is None:
            found = self._stmt_actions[id(stmt)] = _covered(stmt.actions, stmt.not_actions)
        return found

    def covers(self, stmt: Statement, action: str) -> bool:
        """`statement_matches_action`, answered from a per-statement set for the modelled actions."""
        if action not in _MODELLED_ACTIONS:
            return statement_matches_action(stmt, action)
        found = self._stmt_actions.get(id(stmt))
        if found is None:
            found = _covered(stmt.actions, stmt.not_actions)
            self._stmt_actions[id(stmt)] = found
        return action in found

    def derived(self, principal: _Principal, what: str, make: Callable[[_Principal], Any]) -> Any:
        """`make(principal)`, computed once for all principals with the same statements and boundary."""
        if principal.ids is None:
            principal.ids = (
                tuple(map(id, principal.statements)),
                None if principal.boundary is None else id(principal.boundary),
            )
        key = (principal.ids, what)
        found = self._derived.get(key, ...)
        if found is ...:
            found = make(principal)
            self._derived[key] = found
        return found

    def policy_set(
        self, statements: list[Statement], boundary: list[Statement] | None, actions: tuple[str, ...]
    ) -> _PolicySet:
        """The prepared policy set, shared by every principal with the same statements and boundary."""
        key = (tuple(map(id, statements)), None if boundary is None else id(boundary), actions)
        found = self._policy_sets.get(key)
        if found is None:
            found = _PolicySet(statements, boundary, actions, self.covers)
            self._policy_sets[key] = found
        return found
