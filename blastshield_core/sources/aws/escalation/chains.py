"""Escalation as a fixpoint: what a principal holds through escalations and assumptions, and what the
methods of everything it holds do to everything else it holds.

A method that changes a principal (attaching or writing a policy to a user, a group or a role, adding
a user to a group, removing a boundary) gives something only to whoever holds the changed principal.
Phase 1 (edges.py) writes the case where the acting principal changes itself. Here, after the
assumptions are decided, each principal `S` that reaches a principal able to change others is
followed: `held(S)` is every principal node it reaches over allowed `CAN_ESCALATE` and `CAN_ASSUME`
(itself included), and for each held `P` whose method may change a held `T`, `S -CAN_ESCALATE->` what
that gives `T` (administrator-equivalent access within `T`'s boundary, `T` without its boundary, a
group's policies), with the method, its actions and `via` (the principal making the call). A gain
is held at once, so the loop runs until nothing new is written. Conditions add up along the way.

The gains it may need are made before `can_assume` and `can_read` (`prepare_chain_gains`), so they
are evaluated like every principal; those nothing leads to are dropped by `escalations_finish`.
"""

from __future__ import annotations

from collections import defaultdict, deque

from ..build.common import _Principal
from ..iam.policy import Decision, Effect, combine
from .catalogue import Method
from .edges import _EscalateMixin, _escalation_actions, _methods_allowed

_UNCONDITIONAL = Decision(Effect.ALLOW)
# the methods that change another principal: what they act on, and what its holder gains
ON_USER = {
    "attach_user_policy": "admin",
    "put_user_policy": "admin",
    "delete_user_permissions_boundary": "unbounded",
    "put_user_permissions_boundary": "unbounded",
}
ON_MEMBER = frozenset({"attach_group_policy", "put_group_policy"})  # the group of a held user: admin
ON_ROLE = {"attach_role_policy": "admin", "put_role_policy": "admin", "delete_role_permissions_boundary": "unbounded"}
ADD_TO_GROUP = "add_user_to_group"
CHANGES_OTHERS = frozenset({*ON_USER, *ON_MEMBER, *ON_ROLE, ADD_TO_GROUP})
_HOLD = ("CAN_ESCALATE", "CAN_ASSUME")


def _better(best: Decision | None, found: Decision) -> bool:
    return best is None or (best.conditional and not found.conditional)


class _ChainsMixin(_EscalateMixin):
    """Escalation with the fixpoint: phase 1 also escalates from what is gained and makes the gains the
    fixpoint may need; the finish runs the fixpoint before the unused gains are dropped. The fixpoint's
    state lives in its call."""

    def escalations(self) -> None:
        super().escalations()
        for p in [r.principal for r in self.inv.roles.values()] + list(self.inv.users.values()):
            self.prepare_chain_gains(p)
        done: set[str] = set()
        while todo := [g for k, g in self.gained.items() if k[0] != "admin" and g.node not in done]:
            for p in todo:  # what is gained escalates too (the gains it makes are evaluated in turn)
                done.add(p.node)
                statements = self.derived(
                    p, "escalate", lambda q: [s for s in q.statements if _escalation_actions(s.actions, s.not_actions)]
                )
                if any(s.effect == "Allow" for s in statements):
                    self.escalate_from(p, statements, shared_only=True)
                self.prepare_chain_gains(p)

    def escalations_finish(self) -> None:
        self.role_family()
        self.escalation_chains()
        self.admin_acts_as_named()
        self.drop_unused_gains()

    def changers(self, p: _Principal) -> tuple[Method, ...]:
        """The methods of the principal's policies (and its boundary's) that change another principal."""

        def make(q: _Principal) -> tuple[Method, ...]:
            methods = _methods_allowed([s for s in q.statements if s.effect == "Allow"])
            if q.boundary is not None:
                bounded = set(_methods_allowed([s for s in q.boundary if s.effect == "Allow"]))
                methods = tuple(m for m in methods if m in bounded)
            denied: set[str] = set()  # denied everywhere, on no condition
            for s in q.statements:
                if s.effect == "Deny" and not s.condition_keys and s.not_resources is None and "*" in s.resources:
                    denied |= _escalation_actions(s.actions, s.not_actions)
            return tuple(m for m in methods if m.name in CHANGES_OTHERS and m.needs[0].action not in denied)

        found: tuple[Method, ...] = self.derived(p, "chain_methods", make)
        return found

    # ------------------------------------------------------------ before can_assume

    def prepare_chain_gains(self, p: _Principal) -> None:
        """Make the gains the fixpoint may link to from `p`'s methods (see the module's docstring): only those
        of the principals its Allow statements name. None for a principal that gains unbounded
        administrator-equivalent access unconditionally: whoever holds it holds that, which covers every
        gain (`covered`)."""
        methods = self.changers(p)
        admin = self._admin_of.get(p.node)
        if not methods or (admin is not None and not admin.conditional):
            return
        allows = [s for s in p.statements if s.effect == "Allow"]
        for method in methods:
            action = method.needs[0].action
            gains = ON_USER.get(method.name) or ON_ROLE.get(method.name) or "admin"
            if method.name == ADD_TO_GROUP:
                for arn in self.named(p, allows, action, "group"):
                    self.gain_group(arn)
                continue
            if method.name in ON_MEMBER:
                members = self.members()
                named = self.named(p, allows, action, "group")
                targets = [self.inv.users[u] for g in named for u in members.get(g, ())]
            elif method.name in ON_USER:
                targets = [self.inv.users[arn] for arn in self.named(p, allows, action, "user")]
            else:
                targets = [self.inv.roles[arn].principal for arn in self.named(p, allows, action, "role")]
            seen: set[int] = set()
            for t in targets:
                if gains == "unbounded":
                    self.gain_unbounded(t)
                elif id(t.boundary) not in seen:
                    seen.add(id(t.boundary))
                    self.gain_admin(t)

    def members(self) -> dict[str, list[str]]:
        """group ARN -> its users' ARNs (kept)."""
        found: dict[str, list[str]] | None = self.cache.derived.get(("chain_members",))
        if found is None:
            found = defaultdict(list)
            for user, groups in self.inv.user_groups.items():
                for group in groups:
                    found[group].append(user)
            self.cache.derived[("chain_members",)] = found
        return found

    # ------------------------------------------------------------ after the assumptions

    def escalation_chains(self) -> int:
        """Write what each principal gains through what it holds; the number of relationships written."""
        by_node: dict[str, _Principal] = {r.principal.node: r.principal for r in self.inv.roles.values()}
        by_node.update((u.node, u) for u in self.inv.users.values())
        by_node.update((g.node, g) for k, g in self.gained.items() if k[0] != "admin")  # admin holds it all
        changers = {node: ms for node, p in by_node.items() if (ms := self.changers(p))}
        if not changers:
            return 0
        out: dict[str, list[tuple[str, Decision]]] = defaultdict(list)
        back: dict[str, list[str]] = defaultdict(list)
        for (source, rel, target), props in self.sink.edges.items():
            if rel in _HOLD and props.get("permission") == "allow" and props.get("status") == "active":
                way = Decision(Effect.ALLOW, bool(props.get("conditional")), tuple(props.get("condition_keys") or ()))
                out[source].append((target, way))
                back[target].append(source)
        # the principals that reach a changer (the changers included): only they can gain anything here
        origins: set[str] = set(changers)
        queue = deque(changers)
        while queue:
            for source in back.get(queue.popleft(), ()):
                if source not in origins and source in by_node:
                    origins.add(source)
                    queue.append(source)
        written = 0
        for origin in sorted(origins):
            written += self.chain_from(origin, by_node, changers, out)
        return written

    def held(self, origin: str, out: dict[str, list[tuple[str, Decision]]]) -> dict[str, Decision]:
        """Every node the origin reaches over allowed holds, with its best way there (conditions added up)."""
        found: dict[str, Decision] = {origin: _UNCONDITIONAL}
        queue = deque([origin])
        while queue:
            node = queue.popleft()
            here = found[node]
            for target, way in out.get(node, ()):
                decision = combine(here, way) if here.conditional or way.conditional else _UNCONDITIONAL
                if _better(found.get(target), decision):
                    found[target] = decision
                    queue.append(target)
        return found

    def chain_from(
        self,
        origin: str,
        by_node: dict[str, _Principal],
        changers: dict[str, tuple[Method, ...]],
        out: dict[str, list[tuple[str, Decision]]],
    ) -> int:
        written = 0
        source = by_node[origin]
        while True:
            holds = self.held(origin, out)
            admin = self.gained.get(("admin", source.account))
            if admin is not None and admin.node in holds and not holds[admin.node].conditional:
                return written  # it holds the account: nothing more to gain
            found = [
                (gain, decision, method, via)
                for via, via_way in holds.items()
                if via in changers
                for gain, decision, method in self.changes(by_node[via], changers[via], holds, by_node, via_way)
            ]
            new = 0
            for gain, decision, method, via in sorted(found, key=lambda f: (f[0], f[1].conditional, f[2].name, f[3])):
                if not _better(holds.get(gain), decision) or gain == origin or self.covered(holds, admin, decision):
                    continue
                props = self.escalation_props(method, decision, via="" if via == origin else via, by=by_node[via])
                self.sink.put_edge(origin, "CAN_ESCALATE", gain, props)
                self._escalated_to.add(gain)
                out[origin].append((gain, decision))
                holds[gain] = decision
                new += 1
            written += new
            if not new:
                return written

    @staticmethod
    def covered(holds: dict[str, Decision], admin: _Principal | None, decision: Decision) -> bool:
        """The origin holds unbounded administrator-equivalent access on no more conditions than `decision`:
        that node reaches everything the gain would (as `dominated` in phase 1)."""
        way = holds.get(admin.node) if admin is not None else None
        return way is not None and set(way.condition_keys) <= set(decision.condition_keys)

    def changes(
        self,
        p: _Principal,
        methods: tuple[Method, ...],
        holds: dict[str, Decision],
        by_node: dict[str, _Principal],
        p_way: Decision,
    ) -> list[tuple[str, Decision, Method]]:
        """(gain, decision, method) for each held principal the held `p` may change."""
        found: list[tuple[str, Decision, Method]] = []
        held = [(by_node[n], d) for n, d in holds.items() if n in by_node]
        users = [
            (t, d)
            for t, d in held
            if t.kind == "user" and t.arn in self.inv.users and t.node == self.inv.users[t.arn].node
        ]
        roles = [(t, d) for t, d in held if t.arn in self.inv.roles and t.node == self.inv.roles[t.arn].principal.node]
        for method in methods:
            action = method.needs[0].action
            if method.name in ON_USER:
                for t, way in users:
                    if t.node != p.node:
                        gain = self.gain_for(t, ON_USER[method.name])
                        self.add_change(found, p, action, t.arn, gain=gain, method=method, ways=(p_way, way))
            elif method.name in ON_MEMBER:
                for t, way in users:
                    for group in self.inv.user_groups.get(t.arn, ()):
                        if t.node != p.node:
                            gain = self.gain_for(t, "admin")
                            self.add_change(found, p, action, group, gain=gain, method=method, ways=(p_way, way))
            elif method.name == ADD_TO_GROUP:
                allows = [s for s in p.statements if s.effect == "Allow"]
                groups = self.named(p, allows, action, "group")
                for t, way in users:
                    own = set(self.inv.user_groups.get(t.arn, ()))
                    for group in groups:
                        if group not in own and t.node != p.node:
                            made = self.gained.get(("group", group))
                            gain = made.node if made else None
                            self.add_change(found, p, action, group, gain=gain, method=method, ways=(p_way, way))
            else:
                for t, way in roles:
                    if t.node != p.node:
                        gain = self.gain_for(t, ON_ROLE[method.name])
                        self.add_change(found, p, action, t.arn, gain=gain, method=method, ways=(p_way, way))
        return found

    def gain_for(self, t: _Principal, gains: str) -> str | None:
        """The node of what changing `t` gives (made before can_assume; None: nothing, or not made)."""
        if gains == "admin":
            if t.boundary is None:
                found = self.gained.get(("admin", t.account))
            else:
                bound = self.inv.boundary_arns.get(id(t.boundary), "boundary")
                found = self.gained.get(("admin", t.account, bound))
        else:
            found = self.gained.get(("unbounded", t.arn)) if t.boundary is not None else None
        return found.node if found is not None else None

    def add_change(
        self,
        found: list[tuple[str, Decision, Method]],
        p: _Principal,
        action: str,
        resource: str,
        *,
        gain: str | None,
        method: Method,
        ways: tuple[Decision, ...],
    ) -> None:
        if gain is None:
            return
        own = self.need_set(p, p.statements, method, method.needs[0]).decisions(resource)[0]
        decision = combine(own, *ways)
        if decision.allowed:
            found.append((gain, decision, method))
