"""Workloads: EC2 instances and Lambda functions (`RUNS_AS` their role, an instance through its
instance profile), and `CAN_ACCESS` from a user's credentials to them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..iam.policy import Decision, Effect, Statement, as_list, statement_matches_resource
from .builder import Evaluation, default_account
from .common import _ACCOUNT_RE, ACCESS_ACTIONS, _arn_account, _obj, _Principal, _tags, entity_id
from .get import SourceFile
from .policy_sets import _PolicySet, _sorted_matches
from .report import AwsImportReport
from .state import EdgeSink, Inventory


class _Targets:
    """The workloads of one kind: (node, ARN) in order, their ARNs sorted, and each ARN's places."""

    def __init__(self, pairs: list[tuple[str, str]]):
        self.pairs = pairs
        self.sorted_arns = sorted({arn for _, arn in pairs})
        self.places: dict[str, list[int]] = defaultdict(list)
        for index, (_, arn) in enumerate(pairs):
            self.places[arn].append(index)


class WorkloadReader:
    """The read steps of instances and functions: their nodes, and `RUNS_AS` their GAAD role."""

    def __init__(self, inv: Inventory, sink: EdgeSink, report: AwsImportReport):
        self.inv = inv
        self.sink = sink
        self.report = report

    def warn(self, file: str, item: str, message: str) -> None:
        self.report.warn(file, item, message)

    def read_instances(self) -> None:
        for source in self.inv.sources.of("instances"):
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
        if _ACCOUNT_RE.match(owner):
            account = owner
        else:
            account = _arn_account(profile or "") or default_account(self.inv, source)
        zone = str(_obj(inst.get("Placement")).get("AvailabilityZone") or "")
        region = zone[:-1] if zone else ""
        arn = f"arn:aws:ec2:{region}:{account}:instance/{iid}"
        tags = _tags(inst.get("Tags"))
        node = self.sink.node(
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
        self.inv.workloads.append((node, "instance", arn))
        if not profile:
            return
        role = self.inv.profiles.get(profile)
        if role is None:
            self.warn(source.name, f"instance {iid}", f"instance profile {profile} is not in the GAAD: no role")
            return
        self.sink.edge(node, "RUNS_AS", self.inv.roles[role].principal.node, via=profile)

    def read_functions(self) -> None:
        for source in self.inv.sources.of("functions"):
            for fn in as_list(source.data.get("Functions")):
                if not isinstance(fn, dict) or not isinstance(fn.get("FunctionName"), str):
                    self.warn(source.name, "Functions", "function without FunctionName ignored")
                    continue
                arn = fn.get("FunctionArn") or ""
                account = _arn_account(arn) or _arn_account(fn.get("Role") or "") or default_account(self.inv, source)
                node = self.sink.node(
                    entity_id(account, "function", fn["FunctionName"]),
                    "Workload",
                    fn["FunctionName"],
                    arn=arn or None,
                    aws_kind="function",
                    account=account,
                    aws_snapshot=account,
                    runtime=fn.get("Runtime"),
                )
                self.inv.workloads.append((node, "function", arn))
                role = fn.get("Role")
                if isinstance(role, str) and role in self.inv.roles:
                    self.sink.edge(node, "RUNS_AS", self.inv.roles[role].principal.node)
                    if arn:
                        self.inv.function_roles.append((node, arn, role))
                else:
                    self.warn(
                        source.name, f"function {fn['FunctionName']}", f"execution role {role} is not in the GAAD"
                    )


class CanAccess:
    """The edge family of `CAN_ACCESS`: what each user's credentials may do to the workloads."""

    def __init__(self, inv: Inventory, sink: EdgeSink, ev: Evaluation):
        self.inv = inv
        self.sink = sink
        self.ev = ev
        self.cache = ev.cache

    def statement_hits(self, stmt: Statement, kind: str, sorted_arns: Sequence[str]) -> set[str]:
        """The ARNs among `sorted_arns` (the workloads of one kind) the statement's Resource covers, found once.

        Only the ARNs starting with a pattern's literal prefix are tried.
        """
        key = (id(stmt), kind)
        found = self.cache.hits.get(key)
        if found is None:
            if stmt.not_resources is not None or not stmt.resources:
                found = {a for a in sorted_arns if statement_matches_resource(stmt, a)}
            else:
                found = set()
                for pattern in stmt.resources:
                    found |= self.pattern_hits(pattern, kind, sorted_arns)
            self.cache.hits[key] = found
            self.cache.hold(stmt)
        return found

    def pattern_hits(self, pattern: str, kind: str, sorted_arns: Sequence[str]) -> set[str]:
        """The ARNs among `sorted_arns` (the workloads of one kind) `pattern` matches, found once per pattern."""
        key = (pattern, kind)
        found = self.cache.pattern_hits.get(key)
        if found is None:
            found = self.cache.pattern_hits[key] = set(_sorted_matches(pattern, sorted_arns))
        return found

    def run(self) -> None:
        if not self.inv.workloads:
            return
        targets = {
            kind: _Targets([(n, arn) for n, k, arn in self.inv.workloads if k == kind and arn])
            for kind in ACCESS_ACTIONS
        }
        for user in self.inv.users.values():
            sessions = self.inv.user_sessions.get(user.arn, [])
            for kind, actions in ACCESS_ACTIONS.items():
                statements = self.ev.derived(user, kind, self._touching(frozenset(actions)))
                if not any(s.effect == "Allow" for s in statements):
                    continue
                policy_set = self.ev.policy_set(statements, user.boundary, actions)
                found = policy_set.results.get(("access", kind))
                if found is None:
                    found = self.access_edges(kind, targets[kind], policy_set)
                    policy_set.results[("access", kind)] = found
                if len(sessions) == 1:
                    self.sink.fan_out(sessions[0], "CAN_ACCESS", found)
                    continue
                for node, clean in found:
                    for session in sessions:
                        self.sink.put_edge(session, "CAN_ACCESS", node, clean)

    def _touching(self, actions: frozenset[str]) -> Callable[[_Principal], list[Statement]]:
        """What `derived` makes for one kind of access: a principal's statements that name any of `actions`."""
        return lambda p: [s for s in p.statements if not actions.isdisjoint(self.ev.actions_of(s))]

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
        clean = self.sink.decided.get(key)
        if clean is None:
            clean = self.sink.decided[key] = self.sink.edge_props(
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
