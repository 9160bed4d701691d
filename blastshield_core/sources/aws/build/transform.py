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
* `CAN_ESCALATE` links a principal to what a privilege-escalation method lets it gain;
* GuardDuty findings become alerts.

The build is made of parts, one class each, in one module per concern: principals.py (`GaadReader`,
`CredentialReader`), workloads.py (`WorkloadReader`, `CanAccess`), trust.py (`CanAssume`), grants.py
(`DataReader`, `Assets`, `CanRead`: buckets, secrets, keys and other data assets), identity_conditions.py
(`IdentityConditions`) and policy_edges.py (`ResourcePolicyReader`, `FollowPolicies`: conditions, resource
policies and guardrails decided again, with facts.py's `Requests`), escalation/edges.py and
escalation/chains.py (`Escalations`: `CAN_ESCALATE`, from the catalogue in escalation/catalogue.py, to a
fixpoint) and findings.py (`FindingReader`: alerts). Each is given what it reads and writes when it is
made: the state of state.py (the inventory, read then frozen; the edge sink; the evaluation cache), the
evaluation over both (builder.py's `Evaluation`), the report, and what earlier steps produced (the
principals escalation gains); none inherits from another. `READ_STEPS` and `EDGE_STEPS` below run them
in order, each with why it comes where it does; policy_sets.py prepares the policies once for principals
alike, and common.py holds what they all share.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ....graph.ingest import paused_gc
from ....graph.model import BuiltDocument, EdgeRow, GraphDocument, RelType
from ..escalation.chains import Escalations
from .builder import Evaluation, base_principals
from .common import ACCESS_ACTIONS, DATA_ACTIONS, DEFAULT_SENSITIVITY, LEVELS, _Principal, entity_id
from .facts import Requests
from .findings import FindingReader
from .get import AwsSources
from .grants import Assets, CanRead, DataReader
from .identity_conditions import IdentityConditions
from .policy_edges import FollowPolicies, ResourcePolicyReader
from .principals import CredentialReader, GaadReader
from .report import AwsImportReport
from .state import EdgeSink, EvaluationCache, Inventory
from .trust import CanAssume
from .workloads import CanAccess, WorkloadReader

__all__ = [
    "ACCESS_ACTIONS",
    "DATA_ACTIONS",
    "DEFAULT_SENSITIVITY",
    "build_from_sources",
    "entity_id",
    "parse_sensitivity",
]


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


def _edge_rows(edges: Mapping[tuple[str, str, str], dict[str, Any]]) -> list[EdgeRow]:
    """Every relationship as a plain tuple (700,000 of them on a large account): the import validates them."""
    types = {t: RelType(t) for t in {t for _, t, _ in edges}}
    make = EdgeRow._make
    return [make((source, types[rel], target, props)) for (source, rel, target), props in edges.items()]


@dataclass(frozen=True)
class Step:
    """One step of the build: the `_Builder` method that makes its part and runs it, why it comes where it
    does, and the relationship types it may add, change or remove (a test holds each step to them)."""

    name: str
    why: str
    writes: frozenset[str] = frozenset()


_CHAIN = frozenset({"HAS_SESSION", "CAN_ACCESS", "RUNS_AS"})  # an identity's chain to its role-like node

# The build in order. The read steps fill the inventory (state.py) from the exports; then it is
# frozen, and the edge families write relationships to the edge sink, each reading the inventory and
# what the families before it wrote.
READ_STEPS: tuple[Step, ...] = (
    Step("read_gaads", "principals, groups and policies: what every later step names", frozenset({"RUNS_AS"})),
    Step("read_credential_reports", "one session per credential of the users the GAADs hold", _CHAIN - {"RUNS_AS"}),
    Step("read_instances", "instances, which run as a GAAD role through its instance profile", frozenset({"RUNS_AS"})),
    Step("read_functions", "functions, which run as a GAAD role", frozenset({"RUNS_AS"})),
    Step("read_buckets", "buckets: the data assets a wildcard grant reaches, and the owners of bucket policies"),
    Step("read_secrets_and_keys", "secrets and KMS keys: the data assets a grant or a resource policy names"),
    Step("read_resource_policies", "resource policies, the organisation and the principals' tags: they name buckets"),
)
EDGE_STEPS: tuple[Step, ...] = (
    Step(
        "escalations",
        "first: what a principal gains is a principal the next two steps evaluate",
        frozenset({"CAN_ESCALATE"}),
    ),
    Step(
        "can_assume",
        "trust and identity policies, for every principal, the gained ones too (and outside principals' chains)",
        frozenset({"CAN_ASSUME"}) | _CHAIN,
    ),
    Step("can_read", "identity policies' data reads, for the same principals", frozenset({"CAN_READ"})),
    Step(
        "decide_identity_conditions",
        "the conditional reads and assumptions above, decided again by the snapshot's facts",
        frozenset({"CAN_READ", "CAN_ASSUME"}),
    ),
    Step(
        "follow_policies",
        "resource policies and guardrails on the identity side as the conditions left it (and anyone's chain)",
        frozenset({"CAN_READ", "CAN_ASSUME"}) | _CHAIN,
    ),
    Step(
        "escalations_finish",
        "needs the assumptions as decided (the role family) and every data asset made; drops unused gains",
        frozenset({"CAN_ESCALATE", "CAN_READ", "CAN_ASSUME"}),
    ),
    Step(
        "can_access",
        "credentials to workloads: depends on no edge family above; kept here for the document's order",
        frozenset({"CAN_ACCESS"}),
    ),
    Step("read_findings", "alerts, last: a finding names a node the steps above made"),
)


class _Builder:
    """One transform: the state (the inventory, the edge sink, the evaluation cache, the report) and the steps
    of `READ_STEPS` and `EDGE_STEPS`, one method each, run by `build` in the tables' order. Each step makes
    its part with what it reads passed in (the inventory, the sink, the cache or the evaluation over both, and
    what earlier steps produced: the escalation family and the principals it gains) and runs it; the parts
    share no state but the sink, the cache and the report they are given."""

    def __init__(self, sources: AwsSources, sensitivity: Sequence[tuple[str, str]]):
        self.inv = Inventory(sources, list(sensitivity))
        self.sink = EdgeSink()
        self.cache = EvaluationCache()
        self.report = AwsImportReport(skipped=list(sources.skipped), skipped_beyond=sources.skipped_beyond)
        self.ev = Evaluation(self.inv, self.cache)
        # what earlier steps produce for later ones (set by `escalations`)
        self.escalation: Escalations | None = None
        self.principals: list[_Principal] = []  # the imported principals and those escalation gains

    # ------------------------------------------------------------ the read steps

    def read_gaads(self) -> None:
        GaadReader(self.inv, self.sink, self.report).run()

    def read_credential_reports(self) -> None:
        CredentialReader(self.inv, self.sink, self.report).run()

    def read_instances(self) -> None:
        WorkloadReader(self.inv, self.sink, self.report).read_instances()

    def read_functions(self) -> None:
        WorkloadReader(self.inv, self.sink, self.report).read_functions()

    def read_buckets(self) -> None:
        DataReader(self.inv, self.report).read_buckets()

    def read_secrets_and_keys(self) -> None:
        DataReader(self.inv, self.report).read_secrets_and_keys()

    def read_resource_policies(self) -> None:
        ResourcePolicyReader(self.inv, self.report).run()

    # ------------------------------------------------------------ the edge families

    def escalations(self) -> None:
        self.escalation = Escalations(self.inv, self.sink, self.ev)
        self.principals = base_principals(self.inv) + self.escalation.run()

    def can_assume(self) -> None:
        CanAssume(self.inv, self.sink, self.ev, self.report).run(self.principals)

    def can_read(self) -> None:
        CanRead(self.inv, self.sink, self.ev, Assets(self.inv, self.sink)).run(self.principals)

    def decide_identity_conditions(self) -> None:
        requests = Requests(self.inv, self.sink, self.cache)
        IdentityConditions(self.inv, self.sink, self.cache, self.report, requests).run(self.principals)

    def follow_policies(self) -> None:
        requests, assets = Requests(self.inv, self.sink, self.cache), Assets(self.inv, self.sink)
        family = FollowPolicies(self.inv, self.sink, self.cache, self.report, requests=requests, assets=assets)
        family.run(self.principals)

    def escalations_finish(self) -> None:
        assert self.escalation is not None, "escalations runs first"
        self.escalation.finish()

    def can_access(self) -> None:
        CanAccess(self.inv, self.sink, self.ev).run()

    def read_findings(self) -> None:
        FindingReader(self.inv, self.sink, self.report).run()

    def build(self) -> BuiltDocument:
        """The read steps, the inventory frozen, then the edge families, in the order of `STEPS`."""
        for step in READ_STEPS:
            if step.name == "read_gaads" or self.inv.accounts:  # without an account nothing else is read
                getattr(self, step.name)()
        self.inv.freeze()
        if self.inv.accounts:
            for step in EDGE_STEPS:
                getattr(self, step.name)()
        name = "aws-" + "-".join(sorted(self.inv.accounts))[:120] if self.inv.accounts else "aws-empty"
        # Nodes are built valid here (ids from entity_id, text cleaned, scalar properties with checked keys);
        # relationships stay plain tuples, which the import validates with the model's rules once per
        # distinct properties (`BuiltDocument.validated`). Alerts carry finding text and are validated.
        alerts = GraphDocument.model_validate(
            {"format": "blastshield-graph/v1", "name": name, "alerts": list(self.sink.alerts.values())}
        ).alerts
        doc = BuiltDocument(name, list(self.sink.nodes.values()), _edge_rows(self.sink.edges), alerts)
        counts_nodes: dict[str, int] = defaultdict(int)
        for n in doc.nodes:
            counts_nodes[n.label.value] += 1
        counts_rels: dict[str, int] = defaultdict(int)
        for _, rel, _ in self.sink.edges:  # the same order and values as doc.edges' types
            counts_rels[rel] += 1
        self.report.counts = {
            "nodes": dict(counts_nodes),
            "relationships": dict(counts_rels),
            "alerts": len(doc.alerts),
        }
        self.report.files = [{"file": f.name, "kind": f.kind} for f in self.inv.sources.files]
        return doc


def build_from_sources(
    sources: AwsSources, sensitivity: Sequence[tuple[str, str]] = ()
) -> tuple[BuiltDocument, AwsImportReport]:
    """The graph document for the sources, and the report (counts, warnings, skipped)."""
    builder = _Builder(sources, sensitivity)
    with paused_gc():
        doc = builder.build()
    return doc, builder.report
