"""Privilege escalation: `CAN_ESCALATE` from a principal to what a method of the catalogue
(escalation.py) lets it gain, each method evaluated with the policy evaluator.

Targets are found through indexes, never by comparing every principal with every other: the
principal's Allow statements for a method's action name ARNs (exactly or by a pattern, found
once per pattern among the sorted ARNs of one kind in its account); only those are evaluated.
What a principal gains is a node the rest of the transform evaluates like any principal (see
`gain`): administrator-equivalent access in an account, a principal's policies without its
boundary, a group's policies, or a policy set with another policy version as default.

`Escalation.run` runs before `can_assume` and `can_read` (so the gained principals are evaluated
with the others); the finish (chains.py, `Escalations.finish`) runs after them: the role family needs `CAN_ASSUME`,
the administrator node reads every data asset of its account, and gained principals nothing
leads to are dropped.
"""

from __future__ import annotations

import re
from collections import defaultdict
from functools import lru_cache
from typing import Any

from ..build.builder import Evaluation
from ..build.common import _arn_account, _Principal, entity_id
from ..build.policy_sets import _sorted_matches
from ..build.state import EdgeSink, Inventory
from ..iam.policy import (
    ASSUME_ACTION,
    Decision,
    Effect,
    Principal,
    Statement,
    arns_named,
    combine,
    decide,
    resource_matches,
    statement_matches_action,
)
from .catalogue import ESCALATION_ACTIONS, METHODS, Method, Need, new_arn
from .method_keys import decided_for, facts_for, reason_for, specialise, tests_decided_key

_ADMIN = [Statement(effect="Allow", actions=("*",), resources=("*",), sid="administrator-equivalent")]
_WILDCARDS = re.compile(r"[*?]")
_NONE = Decision(Effect.NONE)
_UNCONDITIONAL = Decision(Effect.ALLOW)
_ADMIN_FIRST = tuple(sorted(METHODS, key=lambda m: m.gains != "admin"))
_METHOD_BY_NAME = {m.name: m for m in METHODS}
# how the administrator node becomes a user a trust policy names: the first method the credential report
# allows (one of them always does); a role: update_assume_role_policy
_ADMIN_BECOMES_USER = tuple(
    _METHOD_BY_NAME[n] for n in ("create_access_key", "create_login_profile", "update_login_profile")
)
_METHOD_ACTIONS = tuple((m, frozenset(need.action for need in m.needs)) for m in _ADMIN_FIRST)
# targets that do not depend on who acts, only on its policies: found once per policy set (see `shared_method_targets`)
_SHARED = frozenset({"other_user", "role", "service_role", "function", "assumable_role"})


@lru_cache(maxsize=65536)
def _escalation_actions(actions: tuple[str, ...], not_actions: tuple[str, ...] | None) -> frozenset[str]:
    """The catalogue's actions a statement with this Action / NotAction covers."""
    stmt = Statement(effect="Allow", actions=actions, not_actions=not_actions)
    return frozenset(a for a in ESCALATION_ACTIONS if statement_matches_action(stmt, a))


def _methods_allowed(allows: list[Statement]) -> tuple[Method, ...]:
    """The methods (administrator gains first) each of whose actions some Allow statement covers."""
    covered: set[str] = set()
    for s in allows:
        covered |= _escalation_actions(s.actions, s.not_actions)
    return tuple(m for m, actions in _METHOD_ACTIONS if actions <= covered)


def _better(best: Decision, found: Decision) -> Decision:
    if found.allowed and (not best.allowed or (best.conditional and not found.conditional)):
        return found
    return best


class Escalation:
    """Phase 1 of the escalation family, what is gained, and the role family after `CAN_ASSUME`; its state
    (the gains, each principal's way to administrator-equivalent access, the pending role family) is its
    own, read by the fixpoint that drives it (chains.py)."""

    def __init__(self, inv: Inventory, sink: EdgeSink, ev: Evaluation):
        self.inv = inv
        self.sink = sink
        self.ev = ev
        self.cache = ev.cache
        self.gained: dict[tuple[str, ...], _Principal] = {}  # what escalation gains, evaluated as principals
        self.pending: list[tuple[_Principal, Method, dict[str, tuple[Decision, str]]]] = []
        self.admin_of: dict[str, Decision] = {}  # principal node -> its best way to unbounded admin
        self.escalated_to: set[str] = set()  # every CAN_ESCALATE target written
        self._pools: dict[tuple[str, str], list[str]] = defaultdict(list)  # (kind, account) -> sorted ARNs
        self._function_role: dict[str, tuple[str, str]] = {}
        self._esc_globs: dict[tuple[str, str, str], set[str]] = {}
        self._service_trust: dict[tuple[str, str], Decision] = {}
        self._with_profile: set[str] = set()

    # ------------------------------------------------------------ phase 1

    def run(self) -> None:
        """Phase 1: each imported principal's escalations (the targets that need `CAN_ASSUME` wait in `pending`)."""
        for kind, arns in (("user", self.inv.users), ("role", self.inv.roles), ("group", self.inv.groups)):
            for arn in arns:
                account = _arn_account(arn)
                if account:
                    self._pools[(kind, account)].append(arn)
        for node, arn, role in self.inv.function_roles:
            account = _arn_account(arn)
            if account:
                self._pools[("function", account)].append(arn)
                self._function_role[arn] = (node, role)
        for pool in self._pools.values():
            pool.sort()
        self._with_profile = set(self.inv.profiles.values())
        for principal in [r.principal for r in self.inv.roles.values()] + list(self.inv.users.values()):
            statements = self.ev.derived(
                principal,
                "escalate",
                lambda p: [s for s in p.statements if _escalation_actions(s.actions, s.not_actions)],
            )
            if any(s.effect == "Allow" for s in statements):
                self.escalate_from(principal, statements)

    def escalate_from(self, p: _Principal, statements: list[Statement], shared_only: bool = False) -> None:
        """`p`'s escalations (`shared_only`: only the methods whose targets do not depend on who acts, for a
        gained node standing for whoever gained it; what it does to that principal is found by the fixpoint)."""
        allows = [s for s in statements if s.effect == "Allow"]
        admin = entity_id(p.account, "admin")
        # the methods that gain administrator-equivalent access first: what they give covers the others
        for method in self.ev.derived(p, "escalate_methods", lambda _p: _methods_allowed(allows)):
            if shared_only and method.target not in _SHARED:
                continue
            if method.gains != "admin":
                if self.dominated(p, _UNCONDITIONAL):
                    break  # the rest cannot add anything
                if self.dominated_whatever_target(p, statements, method):
                    continue  # every target would be dominated: none is looked at
            for target, decision in self.method_targets(p, statements, allows, method):
                if target != admin and self.dominated(p, decision):
                    continue
                self.sink.put_edge(p.node, "CAN_ESCALATE", target, self.escalation_props(method, decision, by=p))
                self.escalated_to.add(target)
                if target == admin:
                    self.admin_of[p.node] = _better(self.admin_of.get(p.node, _NONE), decision)

    def dominated(self, p: _Principal, decision: Decision) -> bool:
        """The principal already gains unbounded administrator-equivalent access in its account, on no more
        conditions than `decision`: that node reaches everything another escalation in the account would."""
        admin = self.admin_of.get(p.node)
        if admin is None:
            return False
        return not admin.conditional or set(admin.condition_keys) <= set(decision.condition_keys)

    def dominated_whatever_target(self, p: _Principal, statements: list[Statement], method: Method) -> bool:
        """Every decision the method can give is dominated by the principal's conditional administrator access,
        so no target needs looking at: for one of its actions, each Allow statement's conditions, with those of
        the conditional Deny statements that apply to every resource, include the administrator's. (An allow's
        conditions are its statement's plus every applying conditional Deny's, and combining decisions adds
        conditions up; the boundary can only add more.)"""
        admin = self.admin_of.get(p.node)
        if admin is None:
            return False
        keys = set(admin.condition_keys)
        for need in method.needs:
            everywhere: set[str] = set()
            allow_keys: list[tuple[str, ...]] = []
            for s in self.need_statements(p, statements, method, need)[0]:
                if need.action not in _escalation_actions(s.actions, s.not_actions):
                    continue
                if s.effect == "Allow":
                    allow_keys.append(s.condition_keys)
                elif s.not_resources is None and "*" in s.resources:
                    everywhere.update(s.condition_keys)
            if all(keys <= everywhere.union(k) for k in allow_keys):
                return True
        return False

    def escalation_props(
        self, method: Method, decision: Decision, *extra: str, via: str = "", by: _Principal | None = None
    ) -> dict[str, Any]:
        """The stored properties: the method, its actions, when another principal held makes the call (the
        fixpoint, chains.py) `via`, that principal's node, and the `reason` for each condition key of the
        caller's (`by`) policies that the method decided (method_keys.py)."""
        actions = [need.action for need in method.needs] + list(extra)
        more = {"via": via} if via else {}
        if by is not None and decision.allowed:
            decided: set[str] = set()
            for need in method.needs:
                self.need_statements(by, by.statements, method, need)
                decided |= self.cache.derived.get(
                    ("need_reason", id(by.statements), id(by.boundary), method.name, need.action), set()
                )
            decided -= {k.lower() for k in decision.condition_keys}
            if decided:
                more["reason"] = reason_for(method, decided)
        props = self.sink.decision_props(
            "CAN_ESCALATE", decision, method=method.name, actions=list(dict.fromkeys(actions)), **more
        )
        assert props is not None
        return props

    # ------------------------------------------------------------ evaluation

    def decision_on(self, p: _Principal, statements: list[Statement], action: str, resource: str) -> Decision:
        """The identity decision (limited by the boundary) for one action on one resource (with what AWS
        documents of any request: method_keys.py)."""
        return self.need_set(p, statements, None, Need(action, "any")).decisions(resource)[0]

    def need_set(self, p: _Principal, statements: list[Statement], method: Method | None, need: Need) -> Any:
        """The prepared policy set for one need of a method (`need_statements`)."""
        found, boundary = self.need_statements(p, statements, method, need)
        return self.ev.policy_set(found, boundary, (need.action,))

    def need_statements(
        self, p: _Principal, statements: list[Statement], method: Method | None, need: Need
    ) -> tuple[list[Statement], list[Statement] | None]:
        """The statements and the boundary specialised for the method's request (method_keys.py); the same
        lists when no statement tests a key it decides."""
        key = ("need", id(statements), id(p.boundary), method.name if method else "", need.action)
        found: tuple[list[Statement], list[Statement] | None] | None = self.cache.derived.get(key)
        if found is None:
            found = (statements, p.boundary)
            if tests_decided_key(statements) or (p.boundary is not None and tests_decided_key(p.boundary)):
                decisive, hopeful = facts_for(method, need) if method else ({}, {})
                bound = specialise(p.boundary, decisive, hopeful) if p.boundary is not None else None
                found = (specialise(statements, decisive, hopeful), bound)
                decided = decided_for(statements + (p.boundary or []), need.action, decisive, hopeful)
                self.cache.derived[("need_reason", *key[1:])] = decided
            self.cache.derived[key] = found
            self.cache.hold(statements, p.boundary, *found)
        return found

    def decision_anywhere(self, p: _Principal, statements: list[Statement], action: str) -> Decision:
        """The best decision for an action that creates a resource, over the resources it may name in the
        principal's account: the action's own ARN with any name, and each Resource pattern of an Allow."""
        key = (tuple(map(id, statements)), None if p.boundary is None else id(p.boundary), action, p.account)
        found = self.cache.derived.get(("anywhere", key))
        if found is not None:
            return found
        template = new_arn(action, p.account)
        tries = {_WILDCARDS.sub("x", template)}
        for s in statements:
            if s.effect == "Allow" and s.not_resources is None and statement_matches_action(s, action):
                tries.update(_WILDCARDS.sub("x", r) for r in s.resources if r != "*")
        best = _NONE
        for arn in sorted(tries):
            if resource_matches(template, arn):
                best = _better(best, self.decision_on(p, statements, action, arn))
        self.cache.derived[("anywhere", key)] = best
        self.cache.hold(*statements, p.boundary)
        return best

    def named(self, p: _Principal, allows: list[Statement], action: str, kind: str) -> list[str]:
        """The ARNs of one kind in the principal's account that an Allow for `action` may name (a superset)."""
        pool = self._pools.get((kind, p.account), [])
        if not pool:
            return []
        out: set[str] = set()
        for s in allows:
            if action not in _escalation_actions(s.actions, s.not_actions):
                continue
            if s.not_resources is not None or "*" in s.resources:
                return pool
            for pattern in s.resources:
                key = (pattern, kind, p.account)
                hits = self._esc_globs.get(key)
                if hits is None:
                    hits = self._esc_globs[key] = set(_sorted_matches(pattern, pool))
                out |= hits
        return sorted(out)

    def trusted_by_service(self, role_arn: str, service: str) -> Decision:
        key = (role_arn, service)
        found = self._service_trust.get(key)
        if found is None:
            found = decide(
                self.inv.roles[role_arn].trust, ASSUME_ACTION, role_arn, Principal(service, "service", "service")
            )
            self._service_trust[key] = found
        return found

    def method_targets(
        self, p: _Principal, statements: list[Statement], allows: list[Statement], method: Method
    ) -> list[tuple[str, Decision]]:
        """(target node, decision) for every target the method reaches from the principal."""
        if method.target == "function" and p.kind != "role":
            return []
        if method.target in _SHARED:
            return self.shared_method_targets(p, statements, allows, method)
        anywhere = [self.decision_anywhere(p, statements, n.action) for n in method.needs if n.on == "any"]
        if any(not d.allowed for d in anywhere):
            return []
        out: list[tuple[str, Decision]] = []
        on = self.deciders(p, statements, method)

        def add(target: str | None, *decisions: Decision) -> None:
            if target is None:
                return
            decision = combine(*decisions, *anywhere)
            if decision.allowed:
                out.append((target, decision))

        target = method.target
        if target == "self_user":
            if p.kind == "user":
                gained = self.gain_admin(p) if method.gains == "admin" else self.gain_unbounded(p)
                add(gained, *on(p.arn))
        elif target == "own_group":
            own = set(self.inv.user_groups.get(p.arn, ()))
            for arn in self.named(p, allows, method.needs[0].action, "group"):
                if arn in own:
                    add(self.gain_admin(p), *on(arn))
        elif target == "group":
            own = set(self.inv.user_groups.get(p.arn, ()))
            if p.kind == "user":
                for arn in self.named(p, allows, method.needs[0].action, "group"):
                    if arn not in own:
                        add(self.gain_group(arn), *on(arn))
        elif target in ("own_policy", "own_policy_versions"):
            for arn in dict.fromkeys(self.inv.attached_arns.get(p.arn, ())):
                if ":aws:policy/" in arn or self.inv.managed.get(arn) is None:
                    continue  # AWS managed policies cannot be changed; unreadable ones are unknown
                if target == "own_policy":
                    add(self.gain_admin(p), *on(arn))
                    continue
                for version, version_statements in self.inv.policy_versions.get(arn, ()):
                    default = self.inv.managed[arn] or []
                    if any(s.effect == "Allow" and s not in default for s in version_statements):
                        add(self.gain_version(p, arn, version, version_statements), *on(arn))
        return out

    def deciders(self, p: _Principal, statements: list[Statement], method: Method) -> Any:
        """resource -> the decisions of the method's actions asked on a named resource (not `any`)."""
        sets = [self.need_set(p, statements, method, n) for n in method.needs if n.on != "any"]

        def on(resource: str) -> list[Decision]:
            return [policy_set.decisions(resource)[0] for policy_set in sets]

        return on

    def shared_method_targets(
        self, p: _Principal, statements: list[Statement], allows: list[Statement], method: Method
    ) -> list[tuple[str, Decision]]:
        """`method_targets` for the targets found from the policies alone: looked up once per policy set and
        account, then the principal itself is left out (and, for the role family, other roles wait for
        `CAN_ASSUME`: see `role_family`)."""
        assert p.ids is not None
        key = ("targets", p.ids, method.name, p.account)
        found: list[tuple[str, str, Decision, str]] | None = self.cache.derived.get(key)
        if found is None:
            found = self.cache.derived[key] = self.find_shared_targets(p, statements, allows, method)
        out: list[tuple[str, Decision]] = []
        later: dict[str, tuple[Decision, str]] = {}
        for node, arn, decision, gained in found:
            if method.target == "assumable_role":
                if arn == p.arn:
                    out.append((gained, decision))
                else:
                    later[node] = (decision, gained)
            elif arn != p.arn:
                out.append((node, decision))
        if later:
            self.pending.append((p, method, later))
        return out

    def find_shared_targets(
        self, p: _Principal, statements: list[Statement], allows: list[Statement], method: Method
    ) -> list[tuple[str, str, Decision, str]]:
        """(target node, the ARN that must not be the acting principal's, decision, gained node) per target."""
        anywhere = [self.decision_anywhere(p, statements, n.action) for n in method.needs if n.on == "any"]
        if any(not d.allowed for d in anywhere):
            return []
        target = method.target
        kind = {"other_user": "user", "function": "function"}.get(target, "role")
        named = self.named(p, allows, method.needs[0].action, kind)
        out: list[tuple[str, str, Decision, str]] = []
        for arn, decision in zip(named, self.decisions_over(p, statements, method, named, anywhere), strict=True):
            if not decision.allowed:
                continue
            if target == "other_user":
                if self.user_may_gain(method, arn):
                    out.append((self.inv.users[arn].node, arn, decision, ""))
            elif target == "function":
                _, role_arn = self._function_role[arn]
                out.append((self.inv.roles[role_arn].principal.node, role_arn, decision, ""))
            elif target == "role":
                out.append((self.inv.roles[arn].principal.node, arn, decision, ""))
            elif target == "service_role":
                if method.needs_profile and arn not in self._with_profile:
                    continue
                trust = self.trusted_by_service(arn, method.service)
                if trust.allowed:
                    out.append((self.inv.roles[arn].principal.node, arn, combine(trust, decision), ""))
            else:
                role = self.inv.roles[arn].principal
                gained = self.role_gain(role, method)
                if gained is not None:
                    out.append((role.node, arn, decision, gained))
        return out

    def decisions_over(
        self, p: _Principal, statements: list[Statement], method: Method, arns: list[str], anywhere: list[Decision]
    ) -> list[Decision]:
        """The method's combined decision on each ARN: the statements covering each are found per statement over
        the whole list (`_PolicySet.keys`), and each distinct set of them is decided once."""
        sets = [self.need_set(p, statements, method, n) for n in method.needs if n.on != "any"]
        per_set = [policy_set.keys(arns) for policy_set in sets]
        combined: dict[tuple[tuple[int, ...], ...], Decision] = {}
        out: list[Decision] = []
        for keys in zip(*per_set, strict=True):
            found = combined.get(keys)
            if found is None:
                found = combined[keys] = combine(
                    *(policy_set.decided(key)[0] for policy_set, key in zip(sets, keys, strict=True)), *anywhere
                )
            out.append(found)
        return out

    def role_gain(self, role: _Principal, method: Method) -> str | None:
        """What a role family method gains on a role (its account's administrator node, or its policies
        without boundary), once per role and gain."""
        key = ("role_gain", role.arn, method.gains)
        if key not in self.cache.derived:
            self.cache.derived[key] = self.gain_admin(role) if method.gains == "admin" else self.gain_unbounded(role)
        gained: str | None = self.cache.derived[key]
        return gained

    def admin_acts_as_named(self) -> None:
        """Administrator-equivalent access in an account can become any principal of it (a user by new
        credentials, a role by rewriting its trust policy and assuming it), so the administrator node links
        to every principal of its account that a trust policy names exactly: a role trusting that principal
        alone (in another account, say) is reached from the administrator node as from the principal. A
        principal that gains that access gets no other escalation (see `dominated`), so without these links
        such a role would be lost to it. Principals trusted through their account need no link: the
        administrator node is a principal of the account."""
        admins = {k[1]: g.node for k, g in self.gained.items() if k[0] == "admin" and len(k) == 2}
        if not admins:
            return
        for role in self.inv.roles.values():
            if role.named is None:
                role.named = arns_named(role.trust)
            for named in role.named[0]:
                arn = self.ev.role_named(named)
                admin = admins.get(_arn_account(arn) or "")
                if admin is None:
                    continue
                if arn in self.inv.users:
                    node = self.inv.users[arn].node
                    method = next(m for m in _ADMIN_BECOMES_USER if self.user_may_gain(m, arn))
                elif arn in self.inv.roles:
                    node, method = self.inv.roles[arn].principal.node, _METHOD_BY_NAME["update_assume_role_policy"]
                else:
                    continue
                self.sink.put_edge(admin, "CAN_ESCALATE", node, self.escalation_props(method, _UNCONDITIONAL))

    def user_may_gain(self, method: Method, user_arn: str) -> bool:
        """What the credential report says of the target user (unknown: it may)."""
        known = self.inv.credentials.get(user_arn)
        if known is None:
            return True
        password, keys = known
        if method.name == "create_access_key":
            return keys < 2  # a user holds at most two access keys
        if method.name == "create_login_profile":
            return not password
        if method.name == "update_login_profile":
            return password
        return True

    # ------------------------------------------------------------ what is gained

    def gain(
        self,
        key: tuple[str, ...],
        node: str,
        name: str,
        template: _Principal,
        statements: list[Statement],
        **props: Any,
    ) -> str:
        if key not in self.gained:
            self.gained[key] = _Principal(
                node, template.arn, template.account, template.kind, name, statements, props.pop("boundary", None)
            )
            self.sink.node(
                node,
                "IAMRole",
                name,
                arn=template.arn,
                account=template.account,
                aws_snapshot=template.account,
                **props,
            )
        return node

    def gain_admin(self, p: _Principal) -> str:
        """Administrator-equivalent access in the principal's account, within its boundary if it has one."""
        account = p.account
        who = _Principal("", f"arn:aws:iam::{account}:root", account, "user", "")
        if p.boundary is None:
            return self.gain(
                ("admin", account),
                entity_id(account, "admin"),
                f"administrator-equivalent access in {account}",
                who,
                _ADMIN,
                aws_kind="account_admin",
            )
        bound = self.inv.boundary_arns.get(id(p.boundary), "boundary")
        return self.gain(
            ("admin", account, bound),
            entity_id(account, "admin", bound.rsplit("/", 1)[-1]),
            f"administrator-equivalent access in {account} within boundary {bound.rsplit('/', 1)[-1]}",
            who,
            _ADMIN,
            boundary=p.boundary,
            aws_kind="account_admin_bounded",
            permissions_boundary=bound,
        )

    def gain_unbounded(self, p: _Principal) -> str | None:
        """The principal's own policies without its boundary (None: it has no boundary, nothing to gain)."""
        if p.boundary is None:
            return None
        return self.gain(
            ("unbounded", p.arn),
            entity_id(p.node, "unbounded"),
            f"{p.name} ({p.kind} policies without boundary)",
            p,
            p.statements,
            aws_kind="without_boundary",
        )

    def gain_group(self, group_arn: str) -> str:
        account, name, statements = self.inv.groups[group_arn]
        who = _Principal("", group_arn, account, "user", name)
        return self.gain(
            ("group", group_arn),
            entity_id(account, "group", name, "policies"),
            f"{name} (group policies)",
            who,
            statements,
            aws_kind="group_policies",
        )

    def gain_version(self, p: _Principal, policy: str, version: str, statements: list[Statement]) -> str:
        default = {id(s) for s in self.inv.managed.get(policy) or []}
        swapped = [s for s in p.statements if id(s) not in default] + statements
        name = policy.rsplit("/", 1)[-1]
        return self.gain(
            ("version", p.arn, policy, version),
            entity_id(p.node, name, version),
            f"{p.name} with {name} {version} as default",
            p,
            swapped,
            boundary=p.boundary,
            aws_kind="policy_version",
            policy=policy,
            version=version,
        )

    # ------------------------------------------------------------ phase 2

    def role_family(self) -> None:
        """The role family: the principal must act as the role (CAN_ASSUME, found by can_assume)."""
        edges = self.sink.edges
        for p, method, later in self.pending:
            for role_node, (own, gained) in later.items():
                assume = edges.get((p.node, "CAN_ASSUME", role_node))
                if assume is None or assume.get("permission") != "allow":
                    continue
                way = Decision(Effect.ALLOW, bool(assume.get("conditional")), tuple(assume.get("condition_keys") or ()))
                decision = combine(own, way)
                if gained != entity_id(p.account, "admin") and self.dominated(p, decision):
                    continue
                self.sink.put_edge(
                    p.node, "CAN_ESCALATE", gained, self.escalation_props(method, decision, ASSUME_ACTION, by=p)
                )
                self.escalated_to.add(gained)

    def drop_unused_gains(self) -> None:
        """Drop the gained nodes nothing leads to (and what only they led to), then let administrator-equivalent
        access read every data asset of its account."""
        edges = self.sink.edges
        while True:
            gained = {g.node for g in self.gained.values()}
            reached = {t for (s, rel, t) in edges if rel == "CAN_ESCALATE" and t in gained and s != t}
            unused = gained - (reached & self.escalated_to)
            if not unused:
                break
            for key in [k for k in edges if k[0] in unused]:
                del edges[key]
            for node in unused:
                del self.sink.nodes[node]
            self.gained = {k: g for k, g in self.gained.items() if g.node not in unused}
        # administrator-equivalent access reads every data asset of its account
        admins = {g.account: g.node for k, g in self.gained.items() if k[0] == "admin" and len(k) == 2}
        if admins:
            for asset in list(self.sink.nodes.values()):
                account = str(asset.properties.get("account") or "")
                if asset.label.value == "DataAsset" and account in admins:
                    self.sink.edge(admins[account], "CAN_READ", asset.id, basis="administrator-equivalent")
