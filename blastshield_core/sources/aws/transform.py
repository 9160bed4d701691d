"""Transform: parsed AWS exports -> one graph document and warnings. Pure: no I/O, no store.

The mapping and the reason for each choice are in docs/aws-import.md. In short:

* an IAM user is an `Identity` with one `Session` per credential (console
  password, access key 1, access key 2; inactive ones blocked), each reaching
  the user's own API `Workload`, which `RUNS_AS` a role-like `IAMRole` node that
  carries the user's own and group policies;
* a role is an `IAMRole`; an EC2 instance or Lambda function is a `Workload`
  that `RUNS_AS` its role;
* `CAN_ASSUME` comes from trust policies (indexed by principal) and identity
  policies, `CAN_READ` from data-read actions, `CAN_ACCESS` from what a user's
  credentials may do to an instance or function;
* GuardDuty findings become alerts.
"""

from __future__ import annotations

import base64
import binascii
import csv
import hashlib
import io
import re
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from ...graph.ingest import paused_gc
from ...graph.model import (
    ENTITY_ID_PATTERN,
    MAX_LIST,
    MAX_STRING,
    EdgeSpec,
    GraphDocument,
    Label,
    NodeSpec,
    RelType,
)
from .get import AwsSources, SourceFile
from .policy import (
    ASSUME_ACTION,
    Decision,
    Effect,
    PolicyFormatError,
    Principal,
    Statement,
    arns_named,
    as_list,
    combine,
    decide,
    decide_matched,
    may_assume,
    parse_policy,
    resource_list_filter,
    resource_list_matcher,
    resource_matches,
    statement_matches_action,
    statement_matches_resource,
)
from .report import AwsImportReport

__all__ = [
    "ACCESS_ACTIONS",
    "DATA_ACTIONS",
    "DEFAULT_SENSITIVITY",
    "build_from_sources",
    "entity_id",
    "parse_sensitivity",
]

_ID_RE = re.compile(ENTITY_ID_PATTERN)
_BAD_ID_CHARS = re.compile(r"[^A-Za-z0-9_.:@-]")
_ARN_RE = re.compile(r"^arn:(aws[\w-]*):([\w-]+):([\w-]*):(\d{12}|aws)?:(.+)$")
_ACCOUNT_RE = re.compile(r"^\d{12}$")

# The data-read actions, by service: the asset kind they read and the actions.
DATA_ACTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "s3": ("bucket", ("s3:GetObject", "s3:GetObjectVersion")),
    "dynamodb": ("table", ("dynamodb:GetItem", "dynamodb:Query", "dynamodb:Scan", "dynamodb:BatchGetItem")),
    "secretsmanager": ("secret", ("secretsmanager:GetSecretValue",)),
    "ssm": ("parameter", ("ssm:GetParameter", "ssm:GetParameters", "ssm:GetParametersByPath")),
    "kms": ("kms_key", ("kms:Decrypt",)),
}
# What lets a credential reach a workload.
ACCESS_ACTIONS: dict[str, tuple[str, ...]] = {
    "instance": ("ssm:StartSession", "ssm:SendCommand", "ec2-instance-connect:SendSSHPublicKey"),
    "function": ("lambda:UpdateFunctionCode",),
}
# Every action the evaluation asks about (statements are classified against these once).
_MODELLED_ACTIONS = frozenset(
    [ASSUME_ACTION]
    + [a for _, actions in DATA_ACTIONS.values() for a in actions]
    + [a for actions in ACCESS_ACTIONS.values() for a in actions]
)
# Without a tag or a --sensitivity rule.
DEFAULT_SENSITIVITY: dict[str, str] = {
    "wildcard": "critical",
    "secret": "high",
    "kms_key": "high",
    "bucket": "medium",
    "table": "medium",
    "parameter": "medium",
}
SENSITIVITY_TAGS = ("sensitivity", "data-classification", "classification")
LEVELS = ("low", "medium", "high", "critical")
_EMPTY_DATES = {"", "N/A", "no_information", "not_supported"}


def entity_id(*parts: str) -> str:
    """A valid entity id from parts joined with `:`.

    Characters outside `[A-Za-z0-9_.:@-]` become `_`; when anything was replaced,
    or the id would exceed 128 characters, it is cut to 119 and a `.` and the first
    8 hex digits of the SHA-1 of the original text are appended, so distinct
    inputs keep distinct ids.
    """
    raw = ":".join(parts)
    clean = _BAD_ID_CHARS.sub("_", raw)
    if clean != raw or len(clean) > 128 or not clean[:1].isalnum():
        digest = hashlib.sha1(raw.encode(), usedforsecurity=False).hexdigest()[:8]
        clean = ("x" if not clean[:1].isalnum() else "") + clean[:119] + "." + digest
    assert _ID_RE.fullmatch(clean), clean
    return clean


def parse_sensitivity(data: Any) -> list[tuple[str, str]]:
    """A --sensitivity mapping (ARN glob -> level, in order) as rules; ValueError if malformed."""
    if not isinstance(data, dict):
        raise ValueError("the sensitivity file must be a JSON object mapping ARN patterns to low|medium|high|critical")
    rules = []
    for pattern, level in data.items():
        if level not in LEVELS:
            raise ValueError(f"sensitivity for {pattern!r} must be low|medium|high|critical, got {level!r}")
        rules.append((str(pattern), str(level)))
    return rules


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _built(cls: type[Any], **values: Any) -> Any:
    """A model instance from values this module built valid (what model_construct does, minus its
    model_post_init re-check, which cost more than the evaluation on a large account). A test
    validates a whole built document through the model."""
    obj = cls.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    object.__setattr__(obj, "__pydantic_fields_set__", set(values))
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


def _built_edges(edges: Mapping[tuple[str, str, str], dict[str, Any]]) -> list[EdgeSpec]:
    """`_built(EdgeSpec, ...)` for every relationship, with the per-object steps inlined (700,000 of them)."""
    types = {t: RelType(t) for t in {t for _, t, _ in edges}}
    new, put = EdgeSpec.__new__, object.__setattr__
    # the model's slots, set through their descriptors
    set_fields = EdgeSpec.__pydantic_fields_set__.__set__  # type: ignore[attr-defined]
    set_extra = EdgeSpec.__pydantic_extra__.__set__  # type: ignore[attr-defined]
    set_private = EdgeSpec.__pydantic_private__.__set__  # type: ignore[attr-defined]
    out: list[EdgeSpec] = []
    append = out.append
    every = {"source", "type", "target", "properties"}  # one set for all: every field is set, none is ever added
    for (source, rel, target), props in edges.items():
        obj = new(EdgeSpec)
        put(obj, "__dict__", {"source": source, "type": types[rel], "target": target, "properties": props})
        set_fields(obj, every)
        set_extra(obj, None)
        set_private(obj, None)
        append(obj)
    return out


def _text(value: str, limit: int = MAX_STRING) -> str:
    """Text as the model accepts it: no control characters, at most `limit` characters."""
    if _CONTROL.search(value):
        value = _CONTROL.sub(" ", value)
    return value[:limit]


def _clean_props(props: Mapping[str, Any]) -> dict[str, Any]:
    """Properties as the model accepts them: scalars or lists of strings, text cleaned, empty ones dropped."""
    out: dict[str, Any] = {}
    for key, value in props.items():
        if value is None or value == []:
            continue
        if isinstance(value, str):
            out[key] = _text(value)
        elif isinstance(value, list):
            out[key] = [_text(str(v)) for v in value[:MAX_LIST]]
        elif isinstance(value, bool | int):
            out[key] = value
        else:
            out[key] = _text(str(value))
    return out


def _obj(value: Any) -> dict[str, Any]:
    """A value that should be an object, or an empty one."""
    return value if isinstance(value, dict) else {}


def _arn_account(arn: str) -> str | None:
    found = _ARN_RE.match(arn) if isinstance(arn, str) else None
    if found and found[4] and found[4] != "aws":
        return found[4]
    return None


def _tags(value: Any) -> dict[str, str]:
    tags: dict[str, str] = {}
    for tag in as_list(value):
        if isinstance(tag, dict) and "Key" in tag:
            tags[str(tag["Key"]).lower()] = str(tag.get("Value", ""))
    if isinstance(value, dict) and not tags:  # Lambda's {"key": "value"} shape
        tags = {str(k).lower(): str(v) for k, v in value.items()}
    return tags


def _date(value: Any) -> str | None:
    """A date in any of the formats AWS exports use, as ISO text; None when empty; ValueError if unreadable."""
    if value is None or (isinstance(value, str) and value.strip() in _EMPTY_DATES):
        return None
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value / (1000 if value > 1e11 else 1)).isoformat()
    text = str(value).strip()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).isoformat()
    except ValueError:
        pass
    for fmt in ("%Y-%m-%dT%H:%M:%S.%f%z", "%a, %d %b %Y %H:%M:%S %Z", "%d/%m/%Y %H:%M:%S", "%Y-%m-%d %H:%M:%S.%f"):
        try:
            return datetime.strptime(text, fmt).isoformat()
        except ValueError:
            continue
    raise ValueError(f"unreadable date {text[:40]!r}")


@dataclass
class _Principal:
    """A role, or the role-like node of a user: what it may do."""

    node: str
    arn: str
    account: str
    kind: str  # role | user
    name: str
    statements: list[Statement] = field(default_factory=list)
    boundary: list[Statement] | None = None
    ids: tuple[Any, ...] | None = None  # (ids of statements, id of boundary): principals alike share work

    @property
    def who(self) -> Principal:
        return Principal(self.arn, self.account, self.kind)


@dataclass
class _Role:
    principal: _Principal
    trust: list[Statement]
    services: list[str]
    file: str
    named: tuple[frozenset[str], bool] | None = None  # policy.arns_named(trust), once


@dataclass
class _TrustIndex:
    """Trust policies indexed by the principal they name, so no principal is compared with every role."""

    known: set[str]
    by_arn: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    by_account: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    anyone: list[str] = field(default_factory=list)
    patterns: list[tuple[str, str]] = field(default_factory=list)
    outside: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))


def _universal(stmt: Statement) -> bool:
    """The statement's Resource covers every ARN (`*`), so it never tells two resources apart."""
    return stmt.not_resources is None and "*" in stmt.resources


def _never(_arn: str) -> bool:
    return False


def _resource_matcher(stmt: Statement) -> Callable[[str], bool]:
    """`statement_matches_resource(stmt, arn)` as one compiled test."""
    if stmt.not_resources is not None:
        inner = resource_list_matcher(stmt.not_resources)
        return lambda arn: not inner(arn)
    if not stmt.resources:
        return (lambda _arn: True) if stmt.principals is not None else _never
    return resource_list_matcher(stmt.resources)


def _resource_filter(stmt: Statement) -> Callable[[Sequence[str]], set[str]]:
    """The ARNs among a list that `statement_matches_resource(stmt, arn)` accepts."""
    if stmt.not_resources is not None:
        inner = resource_list_filter(stmt.not_resources)
        return lambda arns: set(arns) - inner(arns)
    if not stmt.resources:
        return set if stmt.principals is not None else (lambda _arns: set())
    return resource_list_filter(stmt.resources)


class _PolicySet:
    """A principal's identity statements and boundary, prepared once for a fixed list of actions.

    `evaluate` looks at a resource only through which statements' Resource matches it, so the
    answers are kept by that set of statements: resources no specific statement names share one
    answer, and principals with the same policies share this object (see `_Builder.policy_set`).
    """

    def __init__(
        self,
        identity: Sequence[Statement],
        boundary: Sequence[Statement] | None,
        actions: tuple[str, ...],
        covers: Any,
    ):
        self.actions = actions
        varying: dict[int, int] = {}  # id(statement) -> its place in self.varying
        self.varying: list[Statement] = []

        def place(stmt: Statement) -> tuple[Statement, int]:
            if _universal(stmt):
                return stmt, -1
            if id(stmt) not in varying:
                varying[id(stmt)] = len(self.varying)
                self.varying.append(stmt)
            return stmt, varying[id(stmt)]

        # per action: the statements covering it (in policy order), each with its place in
        # self.varying (-1: its Resource is `*`), for the identity policies and the boundary
        self.per_action: list[tuple[list[tuple[Statement, int]], list[tuple[Statement, int]] | None]] = []
        for action in actions:
            own = [place(s) for s in identity if covers(s, action)]
            limit = None if boundary is None else [place(s) for s in boundary if covers(s, action)]
            self.per_action.append((own, limit))
        self._memo: dict[tuple[int, ...], tuple[Decision, ...]] = {}
        self._answers: dict[tuple[int, ...], Any] = {}
        self._matchers: list[Callable[[str], bool]] | None = None
        self._filters: list[Callable[[Sequence[str]], set[str]]] | None = None
        self.results: dict[Any, Any] = {}  # per-use results shared by the principals of this set

    def key(self, resource: str) -> tuple[int, ...]:
        """The places (in `varying`) of the statements whose Resource covers `resource`."""
        if self._matchers is None:
            self._matchers = [_resource_matcher(stmt) for stmt in self.varying]
        matchers = self._matchers
        if not matchers:
            return ()
        if len(matchers) == 1:
            return (0,) if matchers[0](resource) else ()
        return tuple([i for i, matches in enumerate(matchers) if matches(resource)])

    def keys(self, resources: Sequence[str]) -> list[tuple[int, ...]]:
        """`key` of each resource, found statement by statement over the whole list."""
        if self._filters is None:
            self._filters = [_resource_filter(stmt) for stmt in self.varying]
        if not self._filters:
            return [()] * len(resources)
        places: dict[str, list[int]] = {}
        for i, keep in enumerate(self._filters):
            for resource in keep(resources):
                places.setdefault(resource, []).append(i)
        none: list[int] = []
        return [tuple(places.get(resource, none)) for resource in resources]

    def answer_for(self, key: tuple[int, ...], make: Callable[[tuple[str, ...], tuple[Decision, ...]], Any]) -> Any:
        """`answer` for a resource whose `key` is known."""
        found = self._answers.get(key, _UNSET)
        if found is _UNSET:
            found = self._answers[key] = make(self.actions, self.decided(key))
        return found

    def answer(self, resource: str, make: Callable[[tuple[str, ...], tuple[Decision, ...]], Any]) -> Any:
        """`make(self.actions, self.decisions(resource))`, made once per set of statements covering the resource.

        One policy set serves one use (its actions are that use's), so `make` is always the same.
        """
        key = self.key(resource)
        found = self._answers.get(key, _UNSET)
        if found is _UNSET:
            found = self._answers[key] = make(self.actions, self.decided(key))
        return found

    def decisions(self, resource: str) -> tuple[Decision, ...]:
        """`evaluate` for each action on `resource`, in the order of `actions`."""
        return self.decided(self.key(resource))

    def decided(self, key: tuple[int, ...]) -> tuple[Decision, ...]:
        """`decisions` for a resource whose `key` is known."""
        found = self._memo.get(key)
        if found is None:
            hit = set(key)
            found = tuple(
                _limited(
                    decide_matched([s for s, i in own if i < 0 or i in hit]),
                    None if limit is None else decide_matched([s for s, i in limit if i < 0 or i in hit]),
                )
                for own, limit in self.per_action
            )
            self._memo[key] = found
        return found


_UNSET: Any = object()


def _limited(decision: Decision, limit: Decision | None) -> Decision:
    """`evaluate`'s last step: the identity decision limited by the boundary's, when there is a boundary."""
    if limit is None:
        return decision
    if decision.effect is Effect.DENY or limit.effect is Effect.DENY:
        return Decision(Effect.DENY)
    return combine(decision, limit)


@lru_cache(maxsize=65536)
def _covered(actions: tuple[str, ...], not_actions: tuple[str, ...] | None) -> frozenset[str]:
    """The modelled actions a statement with this Action / NotAction covers (one answer per distinct list)."""
    stmt = Statement(effect="Allow", actions=actions, not_actions=not_actions)
    return frozenset(a for a in _MODELLED_ACTIONS if statement_matches_action(stmt, a))


@lru_cache(maxsize=65536)
def _data_services(actions: tuple[str, ...], not_actions: tuple[str, ...] | None) -> tuple[str, ...]:
    """The data services a statement with this Action / NotAction may grant a read of (one answer per list)."""
    covered = _covered(actions, not_actions)
    return tuple(service for service, (_, reads) in DATA_ACTIONS.items() if not covered.isdisjoint(reads))


class _Targets:
    """The workloads of one kind: (node, ARN) in order, their ARNs sorted, and each ARN's places."""

    def __init__(self, pairs: list[tuple[str, str]]):
        self.pairs = pairs
        self.sorted_arns = sorted({arn for _, arn in pairs})
        self.places: dict[str, list[int]] = defaultdict(list)
        for index, (_, arn) in enumerate(pairs):
            self.places[arn].append(index)


class _Builder:
    def __init__(self, sources: AwsSources, sensitivity: Sequence[tuple[str, str]]):
        self.sources = sources
        self.sensitivity = list(sensitivity)
        self.report = AwsImportReport(skipped=list(sources.skipped))
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

    # ------------------------------------------------------------ helpers

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
        if rel in ("CAN_ASSUME", "CAN_READ"):
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

    def statements(self, file: str, item: str, document: Any) -> list[Statement]:
        try:
            return parse_policy(document)
        except PolicyFormatError as exc:
            self.warn(file, item, f"policy document ignored: {exc}")
            return []

    def managed_statements(self, file: str, item: str, arn: str) -> list[Statement]:
        found = self.managed.get(arn, ...)
        if found is ...:
            self.warn(file, item, f"managed policy {arn} is not in any Policies list: its permissions are unknown")
            self.managed[arn] = None
            return []
        return found or []

    def sensitivity_of(self, arn: str, kind: str, tags: Mapping[str, str]) -> tuple[str, str]:
        for key in SENSITIVITY_TAGS:
            value = tags.get(key, "").lower()
            if value in LEVELS:
                return value, f"tag {key}"
        for pattern, level in self.sensitivity:
            if resource_matches(pattern, arn):
                return level, f"--sensitivity {pattern}"
        return DEFAULT_SENSITIVITY.get(kind, "medium"), "default"

    # ------------------------------------------------------------ GAAD

    def gaad_account(self, source: SourceFile) -> str | None:
        data = source.data
        for key, arn_key in (("UserDetailList", "Arn"), ("RoleDetailList", "Arn"), ("GroupDetailList", "Arn")):
            for entry in as_list(data.get(key)):
                account = _arn_account(entry.get(arn_key, "")) if isinstance(entry, dict) else None
                if account:
                    return account
        for entry in as_list(data.get("Policies")):
            account = _arn_account(entry.get("Arn", "")) if isinstance(entry, dict) else None
            if account:
                return account
        return None

    def read_policies(self, source: SourceFile) -> None:
        for index, policy in enumerate(as_list(source.data.get("Policies"))):
            item = f"Policies[{index}]"
            if not isinstance(policy, dict) or not isinstance(policy.get("Arn"), str):
                self.warn(source.name, item, "policy without an Arn ignored")
                continue
            item = f"policy {policy['Arn']}"
            versions = [v for v in as_list(policy.get("PolicyVersionList")) if isinstance(v, dict)]
            default = [v for v in versions if v.get("IsDefaultVersion") is True]
            if not default and policy.get("DefaultVersionId"):
                default = [v for v in versions if v.get("VersionId") == policy["DefaultVersionId"]]
            if not default:
                self.warn(source.name, item, "no default policy version: its permissions are unknown")
                self.managed[policy["Arn"]] = None
                continue
            self.managed[policy["Arn"]] = self.statements(source.name, item, default[0].get("Document"))

    def attached(self, file: str, item: str, entry: Mapping[str, Any]) -> list[Statement]:
        out: list[Statement] = []
        for ref in as_list(entry.get("AttachedManagedPolicies")):
            arn = ref.get("PolicyArn") if isinstance(ref, dict) else None
            if isinstance(arn, str):
                out += self.managed_statements(file, item, arn)
        return out

    def inline(self, file: str, item: str, entry: Mapping[str, Any], key: str) -> list[Statement]:
        out: list[Statement] = []
        for policy in as_list(entry.get(key)):
            if isinstance(policy, dict):
                out += self.statements(
                    file, f"{item} inline {policy.get('PolicyName', '?')}", policy.get("PolicyDocument")
                )
        return out

    def boundary(self, file: str, item: str, entry: Mapping[str, Any]) -> list[Statement] | None:
        ref = entry.get("PermissionsBoundary")
        if not isinstance(ref, dict) or not ref.get("PermissionsBoundaryArn"):
            return None
        arn = ref["PermissionsBoundaryArn"]
        if self.managed.get(arn) is None:
            self.warn(file, item, f"permissions boundary {arn} is not in the export: treated as no boundary")
            return None
        return self.managed[arn]

    def read_gaad(self, source: SourceFile, account: str) -> None:
        data = source.data
        groups: dict[str, list[Statement]] = {}
        for entry in as_list(data.get("GroupDetailList")):
            if not isinstance(entry, dict) or "GroupName" not in entry:
                continue
            item = f"group {entry['GroupName']}"
            groups[entry["GroupName"]] = self.inline(source.name, item, entry, "GroupPolicyList") + self.attached(
                source.name, item, entry
            )
        for index, entry in enumerate(as_list(data.get("RoleDetailList"))):
            if not isinstance(entry, dict) or not isinstance(entry.get("Arn"), str) or "RoleName" not in entry:
                self.warn(source.name, f"RoleDetailList[{index}]", "role without Arn or RoleName ignored")
                continue
            self.read_role(source, account, entry)
        for index, entry in enumerate(as_list(data.get("UserDetailList"))):
            if not isinstance(entry, dict) or not isinstance(entry.get("Arn"), str) or "UserName" not in entry:
                self.warn(source.name, f"UserDetailList[{index}]", "user without Arn or UserName ignored")
                continue
            self.read_user(source, account, entry, groups)

    def created(self, file: str, item: str, value: Any) -> str | None:
        try:
            return _date(value)
        except ValueError as exc:
            self.warn(file, item, str(exc))
            return None

    def read_role(self, source: SourceFile, account: str, entry: Mapping[str, Any]) -> None:
        arn, name = entry["Arn"], str(entry["RoleName"])
        item = f"role {arn}"
        node = entity_id(account, "role", name)
        statements = self.inline(source.name, item, entry, "RolePolicyList") + self.attached(source.name, item, entry)
        principal = _Principal(node, arn, account, "role", name, statements, self.boundary(source.name, item, entry))
        trust_doc = entry.get("AssumeRolePolicyDocument")
        trust = self.statements(source.name, f"{item} trust policy", trust_doc) if trust_doc is not None else []
        services = sorted({s for st in trust if st.effect == "Allow" for s in (st.principals or {}).get("Service", ())})
        self.roles[arn] = _Role(principal, trust, services, source.name)
        self.role_names[(account, name)] = arn
        for profile in as_list(entry.get("InstanceProfileList")):
            if isinstance(profile, dict) and isinstance(profile.get("Arn"), str):
                self.profiles[profile["Arn"]] = arn
        tags = _tags(entry.get("Tags"))
        self.node(
            node,
            "IAMRole",
            name,
            arn=arn,
            aws_kind="role",
            account=account,
            aws_snapshot=account,
            path=entry.get("Path"),
            created=self.created(source.name, item, entry.get("CreateDate")),
            trusted_services=services,
            permissions_boundary=_obj(entry.get("PermissionsBoundary")).get("PermissionsBoundaryArn"),
            owner=tags.get("owner"),
        )

    def read_user(
        self, source: SourceFile, account: str, entry: Mapping[str, Any], groups: Mapping[str, list[Statement]]
    ) -> None:
        arn, name = entry["Arn"], str(entry["UserName"])
        item = f"user {arn}"
        statements = self.inline(source.name, item, entry, "UserPolicyList") + self.attached(source.name, item, entry)
        member_of = [g for g in as_list(entry.get("GroupList")) if isinstance(g, str)]
        for group in member_of:
            if group not in groups:
                self.warn(source.name, item, f"group {group} is not in GroupDetailList: its policies are unknown")
            statements += groups.get(group, [])
        role_node = entity_id(account, "user", name, "policies")
        self.users[arn] = _Principal(
            role_node, arn, account, "user", name, statements, self.boundary(source.name, item, entry)
        )
        self.user_by_name[(account, name)] = arn
        identity = entity_id(account, "user", name)
        common = {"arn": arn, "account": account, "aws_snapshot": account}
        self.node(
            identity,
            "Identity",
            name,
            aws_kind="user",
            groups=member_of,
            created=self.created(source.name, item, entry.get("CreateDate")),
            **common,
        )
        api = entity_id(account, "user", name, "api")
        self.node(api, "Workload", f"{name} (API calls)", aws_kind="user_api", **common)
        self.node(role_node, "IAMRole", f"{name} (user policies)", aws_kind="user_policies", groups=member_of, **common)
        self.edge(api, "RUNS_AS", role_node)

    # ------------------------------------------------------------ credentials

    def read_credential_reports(self) -> None:
        reported: set[str] = set()
        for source in self.sources.of("credential_report"):
            text = source.data["Content"]
            try:
                decoded = base64.b64decode(text, validate=True).decode("utf-8")
                if decoded.lstrip().startswith("user,"):
                    text = decoded
            except (binascii.Error, ValueError):
                pass
            rows = list(csv.DictReader(io.StringIO(text)))
            if not rows or "arn" not in rows[0]:
                self.warn(source.name, "Content", "credential report has no rows or no arn column")
                continue
            for row in rows:
                arn = row.get("arn") or ""
                if row.get("user") == "<root_account>" or arn.endswith(":root"):
                    continue  # the root user is not modelled (see docs/aws-import.md)
                if arn not in self.users:
                    self.warn(source.name, f"user {arn}", "credential report names a user the GAAD does not contain")
                    continue
                reported.add(arn)
                self.credentials_from_row(source.name, arn, row)
        reported_accounts = self._reported_accounts()
        for arn, user in self.users.items():
            if arn in reported:
                continue
            if user.account in reported_accounts:
                self.warn(
                    self.accounts[user.account],
                    f"user {arn}",
                    "not in the credential report: one credential assumed active",
                )
            self.session(user, "credential", "credential", True, assumed=True)

    def _reported_accounts(self) -> set[str]:
        out = set()
        for source in self.sources.of("credential_report"):
            for match in re.finditer(r":(\d{12}):", source.data["Content"][:2000]):
                out.add(match[1])
        return out

    def credentials_from_row(self, file: str, arn: str, row: Mapping[str, str]) -> None:
        user = self.users[arn]
        item = f"user {arn}"

        def date(key: str) -> str | None:
            try:
                return _date(row.get(key))
            except ValueError as exc:
                self.warn(file, item, f"{key}: {exc}")
                return None

        if row.get("password_enabled") == "true":
            self.session(user, "console", "console_password", True, last_used=date("password_last_used"))
        for n in ("1", "2"):
            active = row.get(f"access_key_{n}_active") == "true"
            rotated = date(f"access_key_{n}_last_rotated")
            if active or rotated:
                self.session(
                    user,
                    f"access-key-{n}",
                    "access_key",
                    active,
                    last_used=date(f"access_key_{n}_last_used_date"),
                    last_rotated=rotated,
                )
        if row.get("mfa_active") in ("true", "false"):
            identity = entity_id(user.account, "user", user.name)
            self.nodes[identity].properties["mfa_active"] = row["mfa_active"] == "true"

    def session(
        self, user: _Principal, slug: str, kind: str, active: bool, *, assumed: bool = False, **extra: Any
    ) -> None:
        identity = entity_id(user.account, "user", user.name)
        session = entity_id(user.account, "user", user.name, slug)
        label = {"console": "console password", "credential": "credential (assumed active)"}.get(
            slug, slug.replace("-", " ")
        )
        self.node(
            session,
            "Session",
            f"{user.name} {label}",
            arn=user.arn,
            aws_kind=kind,
            account=user.account,
            aws_snapshot=user.account,
            active=active,
            assumed=assumed or None,
            **extra,
        )
        self.edge(identity, "HAS_SESSION", session, route_id=session, status="active" if active else "blocked")
        self.edge(session, "CAN_ACCESS", entity_id(user.account, "user", user.name, "api"))
        self.user_sessions[user.arn].append(session)

    # ------------------------------------------------------------ workloads

    def read_instances(self) -> None:
        for source in self.sources.of("instances"):
            for reservation in as_list(source.data.get("Reservations")):
                if not isinstance(reservation, dict):
                    continue
                owner = str(reservation.get("OwnerId", ""))
                for inst in as_list(reservation.get("Instances")):
                    if not isinstance(inst, dict) or not isinstance(inst.get("InstanceId"), str):
                        self.warn(source.name, "Reservations", "instance without InstanceId ignored")
                        continue
                    self.instance(source, owner, inst)

    def instance(self, source: SourceFile, owner: str, inst: Mapping[str, Any]) -> None:
        iid = inst["InstanceId"]
        profile = _obj(inst.get("IamInstanceProfile")).get("Arn")
        profile = profile if isinstance(profile, str) else None
        account = owner if _ACCOUNT_RE.match(owner) else (_arn_account(profile or "") or self.default_account(source))
        zone = str(_obj(inst.get("Placement")).get("AvailabilityZone") or "")
        region = zone[:-1] if zone else ""
        arn = f"arn:aws:ec2:{region}:{account}:instance/{iid}"
        tags = _tags(inst.get("Tags"))
        node = self.node(
            entity_id(account, "instance", iid),
            "Workload",
            tags.get("name") or iid,
            arn=arn,
            aws_kind="instance",
            account=account,
            aws_snapshot=account,
            state=_obj(inst.get("State")).get("Name"),
            public_ip=inst.get("PublicIpAddress"),
            internet_exposed=bool(inst.get("PublicIpAddress")) or None,
        )
        self.workloads.append((node, "instance", arn))
        if not profile:
            return
        role = self.profiles.get(profile)
        if role is None:
            self.warn(source.name, f"instance {iid}", f"instance profile {profile} is not in the GAAD: no role")
            return
        self.edge(node, "RUNS_AS", self.roles[role].principal.node, via=profile)

    def read_functions(self) -> None:
        for source in self.sources.of("functions"):
            for fn in as_list(source.data.get("Functions")):
                if not isinstance(fn, dict) or not isinstance(fn.get("FunctionName"), str):
                    self.warn(source.name, "Functions", "function without FunctionName ignored")
                    continue
                arn = fn.get("FunctionArn") or ""
                account = _arn_account(arn) or _arn_account(fn.get("Role") or "") or self.default_account(source)
                node = self.node(
                    entity_id(account, "function", fn["FunctionName"]),
                    "Workload",
                    fn["FunctionName"],
                    arn=arn or None,
                    aws_kind="function",
                    account=account,
                    aws_snapshot=account,
                    runtime=fn.get("Runtime"),
                )
                self.workloads.append((node, "function", arn))
                role = fn.get("Role")
                if isinstance(role, str) and role in self.roles:
                    self.edge(node, "RUNS_AS", self.roles[role].principal.node)
                else:
                    self.warn(
                        source.name, f"function {fn['FunctionName']}", f"execution role {role} is not in the GAAD"
                    )

    def default_account(self, source: SourceFile) -> str:
        """The account of the GAAD in the same folder, else the only one, else the first."""
        same = [f for f in self.sources.of("gaad") if f.folder == source.folder]
        for gaad in same:
            for account, file in self.accounts.items():
                if file == gaad.name:
                    return account
        return next(iter(self.accounts))

    def read_buckets(self) -> None:
        for source in self.sources.of("buckets"):
            account = self.default_account(source)
            self.bucket_accounts.add(account)
            for bucket in as_list(source.data.get("Buckets")):
                if not isinstance(bucket, dict) or not isinstance(bucket.get("Name"), str):
                    self.warn(source.name, "Buckets", "bucket without Name ignored")
                    continue
                self.buckets[account][bucket["Name"]] = _tags(bucket.get("Tags"))
                self.created(source.name, f"bucket {bucket['Name']}", bucket.get("CreationDate"))

    # ------------------------------------------------------------ evaluation

    def principals(self) -> list[_Principal]:
        return [r.principal for r in self.roles.values()] + list(self.users.values())

    def can_assume(self) -> None:
        index = _TrustIndex(known=set(self.roles) | set(self.users))
        by_arn, by_account, anyone = index.by_arn, index.by_account, index.anyone
        patterns, outside = index.patterns, index.outside
        for role_arn, role in self.roles.items():
            for stmt in role.trust:
                if stmt.effect != "Allow" or not statement_matches_action(stmt, ASSUME_ACTION):
                    continue
                if stmt.not_principals is not None:
                    anyone.append(role_arn)
                for kind, entries in (stmt.principals or {}).items():
                    for entry in entries:
                        self.index_trust(role, kind, entry, index)
        anyone_set = set(anyone)
        # roles trusting an account or anyone, by account (one set per account, shared by its principals)
        shared = {account: set(arns) | anyone_set for account, arns in by_account.items()}
        for principal in self.principals():
            assume = self.derived(
                principal, "assume", lambda p: [s for s in p.statements if self.covers(s, ASSUME_ACTION)]
            )
            wants = any(s.effect == "Allow" for s in assume)
            candidates = set(by_arn.get(principal.arn, ()))
            if wants:
                # trust by account, `*` or a pattern also needs an identity allow: only roles its
                # sts:AssumeRole grants name are candidates (found by ARN, or by glob once per pattern)
                pool = shared.get(principal.account, anyone_set)
                named = {r for pattern, r in patterns if resource_matches(pattern, principal.arn)}
                if named - pool:
                    pool = pool | named
                candidates.update(self.granted(assume, principal.account, pool))
            if not candidates:
                continue
            policy_set = self.policy_set(assume, principal.boundary, (ASSUME_ACTION,))
            who = principal.who
            found: list[tuple[str, dict[str, Any]]] = []
            ordered = sorted(candidates)
            for role_arn, matched in zip(ordered, policy_set.keys(ordered), strict=True):
                role = self.roles[role_arn]
                if role.principal.node == principal.node:
                    continue
                own = policy_set.decided(matched)[0]
                # the answer depends on the principal only through its account and kind, unless the
                # trust policy names its ARN or holds a pattern (see policy.arns_named)
                if role.named is None:
                    role.named = arns_named(role.trust)
                names, patterned = role.named
                specific = principal.arn if patterned or principal.arn in names else None
                key = (
                    role_arn,
                    principal.account,
                    principal.kind,
                    specific,
                    own.effect,
                    own.conditional,
                    own.condition_keys,
                )
                clean = self._assume_props.get(key, _UNSET)
                if clean is _UNSET:
                    decision = may_assume(
                        role.trust,
                        who,
                        role_arn,
                        role.principal.account,
                        principal.statements,
                        boundary=principal.boundary,
                        own=own,
                    )
                    clean = self._assume_props[key] = self.decision_props("CAN_ASSUME", decision)
                if clean is not None:
                    found.append((role.principal.node, clean))
            self.fan_out(principal.node, "CAN_ASSUME", found)
        for key, role_arns in outside.items():
            self.outside_principal(key, role_arns)

    def granted(self, statements: list[Statement], account: str, pool: set[str]) -> set[str]:
        """The role ARNs in `pool` that an Allow statement for sts:AssumeRole may name (a superset; evaluation
        decides). `statements` cover sts:AssumeRole; what a pattern names in the pool is found once per
        (pattern, account)."""
        if not pool:
            return set()
        out: set[str] = set()
        for stmt in statements:
            if stmt.effect != "Allow":
                continue
            if stmt.not_resources is not None or "*" in stmt.resources:
                return set(pool)
            for pattern in stmt.resources:
                if "*" in pattern or "?" in pattern:
                    key = (pattern, account)
                    found = self._granted.get(key)
                    if found is None or found[0] is not pool:
                        found = (pool, [a for a in self.glob_cache(pattern) if a in pool])
                        self._granted[key] = found
                    out.update(found[1])
                elif pattern in pool:
                    out.add(pattern)
        return out

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

    def data_statements(self, statements: list[Statement]) -> dict[str, list[Statement]]:
        """The statements that may grant a data-read action, by service (each statement classified once)."""
        out: dict[str, list[Statement]] = {}
        for stmt in statements:
            services = self._stmt_services.get(id(stmt))
            if services is None:
                services = self._stmt_services[id(stmt)] = _data_services(stmt.actions, stmt.not_actions)
            for service in services:
                out.setdefault(service, []).append(stmt)
        return out

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

    def statement_hits(self, stmt: Statement, kind: str, sorted_arns: Sequence[str]) -> set[str]:
        """The ARNs among `sorted_arns` (the workloads of one kind) the statement's Resource covers, found once.

        Only the ARNs starting with a pattern's literal prefix are tried.
        """
        key = (id(stmt), kind)
        found = self._hits.get(key)
        if found is None:
            if stmt.not_resources is not None or not stmt.resources:
                found = {a for a in sorted_arns if statement_matches_resource(stmt, a)}
            else:
                found = set()
                for pattern in stmt.resources:
                    found |= self.pattern_hits(pattern, kind, sorted_arns)
            self._hits[key] = found
        return found

    def pattern_hits(self, pattern: str, kind: str, sorted_arns: Sequence[str]) -> set[str]:
        """The ARNs among `sorted_arns` (the workloads of one kind) `pattern` matches, found once per pattern."""
        key = (pattern, kind)
        found = self._pattern_hits.get(key)
        if found is None:
            found = self._pattern_hits[key] = set(_sorted_matches(pattern, sorted_arns))
        return found

    def index_trust(self, role: _Role, kind: str, entry: str, index: _TrustIndex) -> None:
        by_arn, by_account, anyone = index.by_arn, index.by_account, index.anyone
        patterns, outside, known = index.patterns, index.outside, index.known
        role_arn = role.principal.arn
        if kind == "Service":
            return
        if kind == "Federated":
            outside[f"federated|{entry}"].append(role_arn)
            return
        if kind == "*" or entry == "*":
            anyone.append(role_arn)
            outside["anyone|*"].append(role_arn)
            return
        if kind != "AWS":
            self.warn(role.file, f"role {role_arn} trust policy", f"principal type {kind} is not modelled")
            return
        account = entry if _ACCOUNT_RE.match(entry) else _arn_account(entry)
        if account is None:
            self.warn(
                role.file,
                f"role {role_arn} trust policy",
                f"principal {entry} is not an ARN or account id (a deleted principal's id?): ignored",
            )
            return
        if _ACCOUNT_RE.match(entry) or entry.endswith(":root"):
            by_account[account].append(role_arn)
            if account not in self.accounts:
                outside[f"account|{account}"].append(role_arn)
            return
        if "*" in entry or "?" in entry:
            patterns.append((entry, role_arn))
            return
        session_role = re.sub(
            r"^arn:(aws[\w-]*):sts::(\d{12}):assumed-role/([^/]+)/.*$", r"arn:\1:iam::\2:role/\3", entry
        )
        by_arn[session_role].append(role_arn)
        if account not in self.accounts:
            outside[f"arn|{entry}"].append(role_arn)
        elif session_role not in known:
            self.warn(role.file, f"role {role_arn} trust policy", f"principal {entry} is not in the export")

    def outside_principal(self, key: str, role_arns: list[str]) -> None:
        kind, name = key.split("|", 1)
        if kind == "federated":
            account = _arn_account(name) or "federated"
            who = Principal(name, account, "federated")
            slug, label = (
                entity_id(account, "federated", name.rsplit("/", 1)[-1]),
                f"federated {name.rsplit('/', 1)[-1]}",
            )
        elif kind == "anyone":
            account, who = "any", Principal("*", "*", "user")
            slug, label = "any-aws-principal", "any AWS principal (*)"
        elif kind == "account":
            account, who = name, Principal(f"arn:aws:iam::{name}:root", name, "root")
            slug, label = entity_id(name, "account"), f"account {name} (not imported)"
        else:
            account = _arn_account(name) or "unknown"
            who = Principal(name, account, "role" if ":role/" in name else "user")
            slug, label = (
                entity_id(account, "principal", name.split(":", 5)[-1].replace("/", ":")),
                f"{name.split(':', 5)[-1]} ({account}, not imported)",
            )
        common = {"arn": name if kind != "account" else f"arn:aws:iam::{name}:root", "account": account}
        snapshot = sorted({self.roles[r].principal.account for r in role_arns})
        common["aws_snapshot"] = snapshot[0]
        identity = self.node(slug, "Identity", label, aws_kind=f"outside_{kind}", **common)
        session = self.node(
            entity_id(slug, "credential"),
            "Session",
            f"{label} credential",
            aws_kind="outside_credential",
            assumed=True,
            **common,
        )
        api = self.node(entity_id(slug, "api"), "Workload", f"{label} (API calls)", aws_kind="outside_api", **common)
        role_like = self.node(
            entity_id(slug, "policies"),
            "IAMRole",
            f"{label} (policies not imported)",
            aws_kind="outside_policies",
            **common,
        )
        self.edge(identity, "HAS_SESSION", session, route_id=session)
        self.edge(session, "CAN_ACCESS", api)
        self.edge(api, "RUNS_AS", role_like)
        for role_arn in sorted(set(role_arns)):
            role = self.roles[role_arn]
            decision = decide(role.trust, ASSUME_ACTION, role_arn, who)
            self.decision_edge(role_like, "CAN_ASSUME", role.principal.node, decision, basis="trust policy only")

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

    def can_read(self) -> None:
        for principal in self.principals():
            relevant = self.derived(principal, "read", lambda p: self.data_statements(p.statements))
            for service, statements in relevant.items():
                if not any(s.effect == "Allow" for s in statements):
                    continue
                kind, actions = DATA_ACTIONS[service]
                policy_set = self.policy_set(statements, principal.boundary, actions)
                key = ("read", principal.account)
                found = policy_set.results.get(key)
                if found is None:
                    found = self.read_edges(principal, service, kind, statements, policy_set)
                    policy_set.results[key] = found
                self.fan_out(principal.node, "CAN_READ", found)

    def fan_out(self, source: str, rel: str, found: list[tuple[str, dict[str, Any]]]) -> None:
        """`put_edge(source, rel, target, props)` for each (target, props)."""
        edges = self.edges
        for target, clean in found:
            key = (source, rel, target)
            if key in edges:
                self.put_edge(source, rel, target, clean)
            else:
                edges[key] = clean

    def read_edges(
        self, principal: _Principal, service: str, kind: str, statements: list[Statement], policy_set: _PolicySet
    ) -> list[tuple[str, dict[str, Any]]]:
        """(asset node, stored properties) for one policy set's reads in the principal's account."""
        out: list[tuple[str, dict[str, Any]]] = []
        answer, make = policy_set.answer_for, self.read_props
        candidates = self.read_candidates(principal, service, kind, statements)
        keys = policy_set.keys([test_arn for _, test_arn in candidates])
        for (target, _), key in zip(candidates, keys, strict=True):
            clean = answer(key, make)
            if clean is not None:
                out.append((target, clean))
        return out

    def read_props(self, actions: tuple[str, ...], decisions: tuple[Decision, ...]) -> dict[str, Any] | None:
        """The stored properties of CAN_READ for the decisions on a data service's actions (None: no allow)."""
        best: Decision | None = None
        allowed: list[str] = []
        for action, d in zip(actions, decisions, strict=True):
            if d.effect is Effect.ALLOW:
                allowed.append(action)
                if best is None or (best.conditional and not d.conditional):
                    best = d
            elif d.effect is Effect.DENY and best is None:
                best = d
        if best is None:
            return None
        if best.effect is Effect.DENY and allowed:
            best = decisions[actions.index(allowed[0])]
        return self.decision_props("CAN_READ", best, actions=allowed)

    def read_candidates(
        self, principal: _Principal, service: str, kind: str, statements: list[Statement]
    ) -> list[tuple[str, str]]:
        """(asset node, ARN to evaluate) for every asset an Allow statement may reach."""
        lists = [self.statement_candidates(principal, service, kind, s) for s in statements if s.effect == "Allow"]
        if len(lists) == 1:
            return lists[0]
        out: dict[str, str] = {}
        for found in lists:
            for asset, test in found:
                out.setdefault(asset, test)
        return list(out.items())

    def statement_candidates(
        self, principal: _Principal, service: str, kind: str, stmt: Statement
    ) -> list[tuple[str, str]]:
        """`read_candidates` for one Allow statement (kept per statement, service and account)."""
        key = (id(stmt), service, principal.account)
        out = self._statement_candidates.get(key)
        if out is not None:
            return out
        merged: dict[str, str] = {}
        for pattern in stmt.resources if stmt.not_resources is None else ("*",):
            found = self._pattern_candidates.get((pattern, service, kind, principal.account))
            if found is None:
                found = self.pattern_candidates(principal, service, kind, pattern)
                self._pattern_candidates[(pattern, service, kind, principal.account)] = found
            for asset, test in found:
                merged.setdefault(asset, test)
        out = self._statement_candidates[key] = list(merged.items())
        return out

    def pattern_candidates(self, principal: _Principal, service: str, kind: str, pattern: str) -> list[tuple[str, str]]:
        """(asset node, ARN to evaluate), in order, for one Resource pattern of an Allow statement.

        Depends only on the pattern, the service and the principal's account (kept per those).
        """
        out: list[tuple[str, str]] = []
        if (
            pattern != "*"
            and not pattern.startswith(f"arn:aws:{service}:")
            and not re.match(rf"^arn:[\w-]+:{service}:", pattern)
        ):
            return out
        if "*" not in pattern and "?" not in pattern:
            asset = self.named_asset(principal, service, kind, pattern)
            if asset:
                out.append((asset, pattern))
            return out
        if service == "s3" and principal.account in self.bucket_accounts:
            own = self.buckets[principal.account]
            for test in self.glob_cache(pattern):
                bucket = test[13:-2] if test.startswith("arn:aws:s3:::") else None
                if bucket in own:
                    out.append((self.bucket_node(principal.account, bucket, own[bucket]), test))
            prefix = pattern[13:].split("/", maxsplit=1)[0] if pattern.startswith("arn:aws:s3:::") else ""
            if prefix in own and "/" in pattern[13:]:  # a grant on a prefix of one bucket
                out.append((self.bucket_node(principal.account, prefix, own[prefix]), pattern))
            if pattern.startswith("arn:aws:s3:::") and "*" not in pattern[13:].split("/", maxsplit=1)[0]:
                bucket = pattern[13:].split("/", maxsplit=1)[0]
                if bucket and bucket not in self.buckets[principal.account]:
                    asset = self.named_asset(principal, service, kind, pattern)
                    if asset:
                        out.append((asset, pattern))
            return out
        if (
            service == "s3"
            and pattern.startswith("arn:aws:s3:::")
            and "*" not in pattern[13:].split("/", maxsplit=1)[0]
        ):
            asset = self.named_asset(principal, service, kind, pattern)
            if asset:
                out.append((asset, pattern))
            return out
        account = _arn_account(pattern) or principal.account
        out.append((self.wildcard_asset(account, service), pattern))
        return out

    def bucket_node(self, account: str, bucket: str, tags: Mapping[str, str]) -> str:
        arn = f"arn:aws:s3:::{bucket}"
        node = entity_id(account, "bucket", bucket)
        if node not in self.nodes:
            level, why = self.sensitivity_of(arn, "bucket", tags)
            self.node(
                node,
                "DataAsset",
                bucket,
                arn=arn,
                aws_kind="bucket",
                account=account,
                aws_snapshot=account,
                sensitivity=level,
                sensitivity_source=why,
            )
        return node

    def named_asset(self, principal: _Principal, service: str, kind: str, arn: str) -> str | None:
        if service == "s3":
            rest = arn[len("arn:aws:s3:::") :] if arn.startswith("arn:aws:s3:::") else ""
            if "/" not in rest:
                return None  # the bucket itself: object reads need bucket/key
            bucket = rest.split("/")[0]
            owner = next((a for a, b in self.buckets.items() if bucket in b), principal.account)
            return self.bucket_node(owner, bucket, self.buckets[owner].get(bucket, {}))
        account = _arn_account(arn) or principal.account
        found = _ARN_RE.match(arn)
        name = found[5].split(":", 1)[-1].split("/", 1)[-1] if found else arn
        node = entity_id(account, kind, name)
        if node not in self.nodes:
            level, why = self.sensitivity_of(arn, kind, {})
            self.node(
                node,
                "DataAsset",
                name,
                arn=arn,
                aws_kind=kind,
                account=account,
                aws_snapshot=principal.account,
                sensitivity=level,
                sensitivity_source=why,
            )
        return node

    def wildcard_asset(self, account: str, service: str) -> str:
        node = entity_id(account, "all", service)
        if node not in self.nodes:
            arn = f"arn:aws:{service}:*:{account}:*" if service != "s3" else "arn:aws:s3:::*"
            level, why = self.sensitivity_of(arn, "wildcard", {})
            self.node(
                node,
                "DataAsset",
                f"all {service} data in {account} (wildcard grant)",
                arn=arn,
                aws_kind=f"{service}_wildcard",
                account=account,
                aws_snapshot=account,
                sensitivity=level,
                sensitivity_source=why,
                wildcard=True,
            )
        return node

    def can_access(self) -> None:
        if not self.workloads:
            return
        targets = {
            kind: _Targets([(n, arn) for n, k, arn in self.workloads if k == kind and arn]) for kind in ACCESS_ACTIONS
        }
        for user in self.users.values():
            sessions = self.user_sessions.get(user.arn, [])
            for kind, actions in ACCESS_ACTIONS.items():
                statements = self.derived(
                    user,
                    kind,
                    lambda p, acts=frozenset(actions): [
                        s for s in p.statements if not acts.isdisjoint(self.actions_of(s))
                    ],
                )
                if not any(s.effect == "Allow" for s in statements):
                    continue
                policy_set = self.policy_set(statements, user.boundary, actions)
                found = policy_set.results.get(("access", kind))
                if found is None:
                    found = self.access_edges(kind, targets[kind], policy_set)
                    policy_set.results[("access", kind)] = found
                if len(sessions) == 1:
                    self.fan_out(sessions[0], "CAN_ACCESS", found)
                    continue
                for node, clean in found:
                    for session in sessions:
                        self.put_edge(session, "CAN_ACCESS", node, clean)

    def access_props(self, actions: tuple[str, ...], decisions: tuple[Decision, ...]) -> dict[str, Any] | None:
        """The stored properties of CAN_ACCESS for the decisions on a workload's actions (None: no allow);
        one shared dict per distinct answer."""
        allowed: list[str] = []
        best: Decision | None = None
        for action, d in zip(actions, decisions, strict=True):
            if d.effect is Effect.ALLOW:
                allowed.append(action)
                if best is None or (best.conditional and not d.conditional):
                    best = d
        if best is None:
            return None
        key = ("access", best, tuple(allowed))
        clean = self._decision_props.get(key)
        if clean is None:
            clean = self._decision_props[key] = self.edge_props(
                "CAN_ACCESS",
                {
                    "actions": allowed,
                    "conditional": best.conditional or None,
                    "condition_keys": list(best.condition_keys),
                },
            )
        return clean

    def access_edges(self, kind: str, targets: _Targets, policy_set: _PolicySet) -> list[tuple[str, dict[str, Any]]]:
        """(workload node, stored properties) for the workloads of one kind a policy set reaches.

        Workloads no specific statement names all get the answer of the first of them, so when
        that answer is no allow only the named ones are looked at.
        """
        named: set[str] = set()
        for stmt in policy_set.varying:
            named |= self.statement_hits(stmt, kind, targets.sorted_arns)
        answer, make = policy_set.answer, self.access_props

        rest = next((arn for _, arn in targets.pairs if arn not in named), None)
        shared = answer(rest, make) if rest is not None else None
        if shared is None:  # only the named workloads, in the workloads' order
            places = sorted(i for arn in named for i in targets.places[arn])
            pairs = [targets.pairs[i] for i in places]
        else:
            pairs = targets.pairs
        out: list[tuple[str, dict[str, Any]]] = []
        for node, arn in pairs:
            found = answer(arn, make) if arn in named else shared
            if found is not None:
                out.append((node, found))
        return out

    # ------------------------------------------------------------ findings

    def read_findings(self) -> None:
        for source in self.sources.of("findings"):
            for index, finding in enumerate(as_list(source.data.get("Findings"))):
                item = f"Findings[{index}]"
                if not isinstance(finding, dict) or not isinstance(finding.get("Id"), str):
                    self.warn(source.name, item, "finding without an Id ignored")
                    continue
                self.finding(source, f"finding {finding['Id']}", finding)

    def finding(self, source: SourceFile, item: str, finding: Mapping[str, Any]) -> None:
        resource = _obj(finding.get("Resource"))
        account = str(finding.get("AccountId", ""))
        rtype = str(resource.get("ResourceType", ""))
        entity: str | None = None
        key = _obj(resource.get("AccessKeyDetails"))
        if rtype == "AccessKey" or key:
            user_type = key.get("UserType")
            name = str(key.get("UserName", ""))
            if user_type == "AssumedRole" and (account, name) in self.role_names:
                entity = self.roles[self.role_names[(account, name)]].principal.node
            elif (account, name) in self.user_by_name:
                entity = entity_id(account, "user", name)
        elif rtype == "Instance":
            iid = _obj(resource.get("InstanceDetails")).get("InstanceId", "")
            entity = entity_id(account, "instance", str(iid)) if iid else None
        elif rtype == "S3Bucket":
            buckets = as_list(resource.get("S3BucketDetails"))
            name = buckets[0].get("Name") if buckets and isinstance(buckets[0], dict) else None
            entity = entity_id(account, "bucket", str(name)) if name else None
        if entity is None or entity not in self.nodes:
            self.warn(source.name, item, f"the finding's resource ({rtype or 'none'}) is not in the graph: no alert")
            return
        severity: Any = finding.get("Severity")
        try:
            severity = float(severity)
        except (TypeError, ValueError):
            self.warn(source.name, item, f"severity {str(severity)[:20]!r} is not a number: left out")
            severity = None
        action = _obj(_obj(finding.get("Service")).get("Action")).get("ActionType")
        signals = {
            "source": "guardduty",
            "finding_type": str(finding.get("Type", "")),
            "severity": severity,
            "resource_type": rtype,
            "account": account,
            "region": finding.get("Region"),
            "access_key_id": key.get("AccessKeyId"),
            "action_type": action,
            "count": _obj(finding.get("Service")).get("Count"),
            "updated_at": finding.get("UpdatedAt"),
        }
        signals = {k: v for k, v in signals.items() if isinstance(v, str | int | float) and not isinstance(v, bool)}
        if isinstance(signals.get("severity"), float):
            signals["severity"] = round(signals["severity"], 1)
        alert_id = entity_id("gd", finding["Id"])
        title = str(finding.get("Title") or finding.get("Type") or "GuardDuty finding")[:256]
        self.alerts[alert_id] = {
            "id": alert_id,
            "title": title,
            "entity_id": entity,
            "kind": "guardduty_finding",
            "signals": signals,
        }

    # ------------------------------------------------------------ all

    def build(self) -> GraphDocument:
        gaads = self.sources.of("gaad")
        for source in gaads:
            self.read_policies(source)
        for source in gaads:
            account = self.gaad_account(source)
            if account is None:
                self.warn(source.name, "document", "no ARN with an account id: the file was ignored")
                continue
            if account in self.accounts:
                self.warn(source.name, "document", f"account {account} is also in {self.accounts[account]}: merged")
            self.accounts.setdefault(account, source.name)
            self.read_gaad(source, account)
        if not self.accounts:
            self.report.accounts = []
        self.report.accounts = sorted(self.accounts)
        if self.accounts:
            self.read_credential_reports()
            self.read_instances()
            self.read_functions()
            self.read_buckets()
            self.can_assume()
            self.can_read()
            self.can_access()
            self.read_findings()
        name = "aws-" + "-".join(sorted(self.accounts))[:120] if self.accounts else "aws-empty"
        # Nodes and edges are built valid here (ids from entity_id, text cleaned, scalar properties with
        # checked keys): validating 200,000 of them again through pydantic took longer than the evaluation.
        # Alerts carry finding text and are validated.
        alerts = GraphDocument.model_validate(
            {"format": "blastshield-graph/v1", "name": name, "alerts": list(self.alerts.values())}
        ).alerts
        doc = GraphDocument.model_construct(
            format="blastshield-graph/v1",
            name=name,
            nodes=list(self.nodes.values()),
            edges=_built_edges(self.edges),
            alerts=alerts,
        )
        counts_nodes: dict[str, int] = defaultdict(int)
        for n in doc.nodes:
            counts_nodes[n.label.value] += 1
        counts_rels: dict[str, int] = defaultdict(int)
        for _, rel, _ in self.edges:  # the same order and values as doc.edges' types
            counts_rels[rel] += 1
        self.report.counts = {
            "nodes": dict(counts_nodes),
            "relationships": dict(counts_rels),
            "alerts": len(doc.alerts),
        }
        self.report.files = [{"file": f.name, "kind": f.kind} for f in self.sources.files]
        return doc


def build_from_sources(
    sources: AwsSources, sensitivity: Sequence[tuple[str, str]] = ()
) -> tuple[GraphDocument, AwsImportReport]:
    """The graph document for the sources, and the report (counts, warnings, skipped)."""
    builder = _Builder(sources, sensitivity)
    with paused_gc():
        doc = builder.build()
    return doc, builder.report


def _sorted_matches(pattern: str, sorted_arns: Sequence[str]) -> Iterator[str]:
    """The ARNs of `sorted_arns` (sorted) that `pattern` matches, in order: only those starting
    with the pattern's literal prefix (before its first wildcard) are tried."""
    cut = min((i for i in (pattern.find("*"), pattern.find("?")) if i >= 0), default=len(pattern))
    prefix = pattern[:cut]
    for index in range(bisect_left(sorted_arns, prefix), len(sorted_arns)):
        arn = sorted_arns[index]
        if not arn.startswith(prefix):
            return
        if resource_matches(pattern, arn):
            yield arn
