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
are evaluated like every principal; those nothing leads to are dropped by `Escalations.finish`.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable

from ..build.builder import Evaluation
from ..build.common import _Principal
from ..build.state import EdgeSink, Inventory
from ..iam.policy import Decision, Effect, combine
from .catalogue import Method
from .edges import Escalation, _escalation_actions, _methods_allowed

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


class Escalations:
    """The escalation family, two steps of the build: `run` (phase 1, edges.py, which also escalates from what
    is gained and makes the gains the fixpoint may need) returns the gained principals the next families
    evaluate; `finish` runs the role family, the fixpoint and the administrator's links before the unused gains
    are dropped. Phase 1's state is its `Escalation`'s; the fixpoint's lives in its call."""

    def __init__(self, inv: Inventory, sink: EdgeSink, ev: Evaluation):
        self.inv = inv
        self.sink = sink
        self.ev = ev
        self.cache = ev.cache
        self.phase = Escalation(inv, sink, ev)

    def run(self) -> list[_Principal]:
        """Phase 1 and the gains; the gained principals (to evaluate with the imported ones)."""
        self.phase.run()
        for p in [r.principal for r in self.inv.roles.values()] + list(self.inv.users.values()):
            self.prepare_chain_gains(p)
        done: set[str] = set()
        while todo := [g for k, g in self.phase.gained.items() if k[0] != "admin" and g.node not in done]:
            for p in todo:  # what is gained escalates too (the gains it makes are evaluated in turn)
                done.add(p.node)
                statements = self.ev.derived(
                    p, "escalate", lambda q: [s for s in q.statements if _escalation_actions(s.actions, s.not_actions)]
                )
                if any(s.effect == "Allow" for s in statements):
                    self.phase.escalate_from(p, statements, shared_only=True)
                self.prepare_chain_gains(p)
        return list(self.phase.gained.values())

    def finish(self) -> None:
        """After the assumptions are decided: the role family, the fixpoint, the administrator's links, and the
        gains nothing leads to dropped."""
        self.phase.role_family()
        self.escalation_chains()
        self.phase.admin_acts_as_named()
        self.phase.drop_unused_gains()

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

        found: tuple[Method, ...] = self.ev.derived(p, "chain_methods", make)
        return found

    # ------------------------------------------------------------ before can_assume

    def prepare_chain_gains(self, p: _Principal) -> None:
        """Make the gains the fixpoint may link to from `p`'s methods (see the module's docstring): only those
        of the principals its Allow statements name. None for a principal that gains unbounded
        administrator-equivalent access unconditionally: whoever holds it holds that, which covers every
        gain (`covered`)."""
        methods = self.changers(p)
        admin = self.phase.admin_of.get(p.node)
        if not methods or (admin is not None and not admin.conditional):
            return
        allows = [s for s in p.statements if s.effect == "Allow"]
        for method in methods:
            action = method.needs[0].action
            gains = ON_USER.get(method.name) or ON_ROLE.get(method.name) or "admin"
            if method.name == ADD_TO_GROUP:
                for arn in self.phase.named(p, allows, action, "group"):
                    self.phase.gain_group(arn)
                continue
            if method.name in ON_MEMBER:
                members = self.members()
                named = self.phase.named(p, allows, action, "group")
                targets = [self.inv.users[u] for g in named for u in members.get(g, ())]
            elif method.name in ON_USER:
                targets = [self.inv.users[arn] for arn in self.phase.named(p, allows, action, "user")]
            else:
                targets = [self.inv.roles[arn].principal for arn in self.phase.named(p, allows, action, "role")]
            seen: set[int] = set()
            for t in targets:
                if gains == "unbounded":
                    self.phase.gain_unbounded(t)
                elif id(t.boundary) not in seen:
                    seen.add(id(t.boundary))
                    self.phase.gain_admin(t)

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
        """Write what each principal gains through what it holds; the number of relationships written.

        Found from the changers back, never by following every principal forward: for each principal `P`
        whose methods change others, the principals that reach it (`reach`, backwards over the holds, the
        best way kept), and for each of them the targets of `P` it holds (itself, or a target it reaches).
        Repeated while a round writes something (a gain may itself change others)."""
        written = 0
        while True:
            new = self.chain_round()
            written += new
            if not new:
                return written

    def chain_round(self) -> int:
        by_node: dict[str, _Principal] = {r.principal.node: r.principal for r in self.inv.roles.values()}
        by_node.update((u.node, u) for u in self.inv.users.values())
        by_node.update((g.node, g) for k, g in self.phase.gained.items() if k[0] != "admin")  # admin holds it all
        changers = {}
        for node, p in by_node.items():
            admin = self.phase.admin_of.get(node)
            if admin is not None and not admin.conditional:
                continue  # whoever holds it holds unbounded administrator-equivalent access: covers every gain
            methods = self.changers(p)
            if methods:
                changers[node] = methods
        if not changers:
            return 0
        back: dict[str, list[tuple[str, Decision]]] = defaultdict(list)
        for (source, rel, target), props in self.sink.edges.items():
            if rel in _HOLD and props.get("permission") == "allow" and props.get("status") == "active":
                way = Decision(Effect.ALLOW, bool(props.get("conditional")), tuple(props.get("condition_keys") or ()))
                back[target].append((source, way))
        admins = [g.node for k, g in self.phase.gained.items() if k[0] == "admin" and len(k) == 2]
        to_admin = self.reach(admins, back) if admins else {}
        done = frozenset(n for n, way in to_admin.items() if not way.conditional)
        reached: dict[str, dict[str, Decision]] = {}

        def holders(node: str) -> dict[str, Decision]:
            found = reached.get(node)
            if found is None:
                found = reached[node] = {} if node in done else self.reach([node], back, done)
            return found

        found: dict[tuple[str, str], tuple[Decision, Method, str]] = {}

        def add(origin: str, gain: str, decision: Decision, method: Method, via: str) -> None:
            if origin == gain or self.covered(to_admin.get(origin), decision):
                return
            best = found.get((origin, gain))
            if best is None or (best[0].conditional and not decision.conditional):
                found[(origin, gain)] = (decision, method, via)

        users = {u.node for u in self.inv.users.values()}
        for via in sorted(changers):
            p = by_node[via]
            via_holders = holders(via)
            for method in changers[via]:
                need = self.phase.need_set(p, p.statements, method, method.needs[0])
                if method.name == ADD_TO_GROUP:  # the holder adds itself (a user) to the group
                    for group in self.phase.named(
                        p, [s for s in p.statements if s.effect == "Allow"], method.needs[0].action, "group"
                    ):
                        made = self.phase.gained.get(("group", group))
                        own = need.decisions(group)[0]
                        if made is None or not own.allowed:
                            continue
                        for origin, p_way in via_holders.items():
                            if (
                                origin in users
                                and origin != via
                                and group not in self.inv.user_groups.get(by_node[origin].arn, ())
                            ):
                                add(origin, made.node, combine(own, p_way), method, via)
                    continue
                held = lambda node, role=False, h=via_holders: node in h or (not role and node in back)  # noqa: E731
                for t, on, gain in self.change_targets(p, method, held):
                    if gain is None or t.node == p.node:
                        continue
                    if t.node in users and back.get(t.node):  # a user others may hold (a role: only itself)
                        t_holders = holders(t.node)
                        small = t_holders if len(t_holders) < len(via_holders) else via_holders
                        pairs = [
                            (o, via_holders[o], t_holders[o]) for o in small if o in via_holders and o in t_holders
                        ]
                    elif t.node in via_holders:
                        pairs = [(t.node, via_holders[t.node], _UNCONDITIONAL)]
                    else:
                        continue
                    own = need.decisions(on)[0]
                    if own.allowed:
                        for origin, p_way, t_way in pairs:
                            if origin in by_node:
                                add(origin, gain, combine(own, p_way, t_way), method, via)
        new = 0
        edges = self.sink.edges
        for (origin, gain), (decision, method, via) in sorted(found.items()):
            current = edges.get((origin, "CAN_ESCALATE", gain))
            if current is not None and (not current.get("conditional") or decision.conditional):
                continue
            props = self.phase.escalation_props(method, decision, via="" if via == origin else via, by=by_node[via])
            self.sink.put_edge(origin, "CAN_ESCALATE", gain, props)
            self.phase.escalated_to.add(gain)
            new += 1
        return new

    @staticmethod
    def reach(
        starts: list[str], back: dict[str, list[tuple[str, Decision]]], done: frozenset[str] = frozenset()
    ) -> dict[str, Decision]:
        """Every node that reaches one of `starts` over the holds (the starts included), with its best way;
        not through the nodes of `done` (those holding unconditional administrator-equivalent access: every
        node reaching them holds it too, so nothing is gained there)."""
        found: dict[str, Decision] = dict.fromkeys(starts, _UNCONDITIONAL)
        queue = deque(starts)
        while queue:
            node = queue.popleft()
            here = found[node]
            for source, way in back.get(node, ()):
                if source in done:
                    continue
                decision = combine(here, way) if here.conditional or way.conditional else _UNCONDITIONAL
                if _better(found.get(source), decision):
                    found[source] = decision
                    queue.append(source)
        return found

    @staticmethod
    def covered(admin_way: Decision | None, decision: Decision) -> bool:
        """The origin holds unbounded administrator-equivalent access on no more conditions than `decision`:
        that node reaches everything the gain would (as `dominated` in phase 1)."""
        return admin_way is not None and set(admin_way.condition_keys) <= set(decision.condition_keys)

    def change_targets(
        self, p: _Principal, method: Method, held: Callable[..., bool]
    ) -> list[tuple[_Principal, str, str | None]]:
        """(principal changed, the resource the call is asked on, the gain of whoever holds it) for each target
        `p`'s Allow statements may name that some principal holds (`held(node, is_role)`; the call's decision
        is the caller's)."""
        allows = [s for s in p.statements if s.effect == "Allow"]
        action = method.needs[0].action
        out: list[tuple[_Principal, str, str | None]] = []
        if method.name in ON_USER:
            for arn in self.phase.named(p, allows, action, "user"):
                t = self.inv.users[arn]
                if held(t.node):
                    out.append((t, arn, self.gain_for(t, ON_USER[method.name])))
        elif method.name in ON_MEMBER:
            members = self.members()
            for group in self.phase.named(p, allows, action, "group"):
                for user in members.get(group, ()):
                    t = self.inv.users[user]
                    if held(t.node):
                        out.append((t, group, self.gain_for(t, "admin")))
        else:
            for arn in self.phase.named(p, allows, action, "role"):
                t = self.inv.roles[arn].principal
                if held(t.node, True):
                    out.append((t, arn, self.gain_for(t, ON_ROLE[method.name])))
        return out

    def gain_for(self, t: _Principal, gains: str) -> str | None:
        """The node of what changing `t` gives (made before can_assume; None: nothing, or not made)."""
        if gains == "admin":
            if t.boundary is None:
                found = self.phase.gained.get(("admin", t.account))
            else:
                bound = self.inv.boundary_arns.get(id(t.boundary), "boundary")
                found = self.phase.gained.get(("admin", t.account, bound))
        else:
            found = self.phase.gained.get(("unbounded", t.arn)) if t.boundary is not None else None
        return found.node if found is not None else None
