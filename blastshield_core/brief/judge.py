"""Judging the claims about the run's account actions and between named entities.

Each function answers None when the claim holds, or (false_containment | false_exposure |
wrong_relationship, the evidence) when the evidence contradicts it; `UNSURE` when the checker
has no way to ask (no graph at hand), which the caller reports as unverified.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..graph.store import QueryFailed
from ..results import Status
from .evidence import EvidenceSummary, EvidenceUnavailable
from .onpath import ROUTE_CLASS
from .runview import account_facts

__all__ = [
    "JUDGED_KINDS",
    "SCOPED_KINDS",
    "UNSURE",
    "GraphReader",
    "judge_account",
    "judge_blast",
    "judge_chain",
    "judge_claim",
    "judge_link",
    "judge_link_state",
    "judge_member",
    "judge_on_path",
    "judge_reach",
    "judge_reach_class",
    "judge_scoped",
    "judge_sensitivity",
    "judge_step",
    "judge_through",
    "judge_via",
]

UNSURE = ("unverified", "")
# The claims judged here: about the account, and between, on or through named entities (`links.py`).
SCOPED_KINDS = frozenset(["member", "member_any", "reach", "reach_class", "via", "step", "blast_in", "chain"])
JUDGED_KINDS = frozenset(["account", "link", "link_state", "on_path", "through", "asset_sensitivity", *SCOPED_KINDS])
Verdict = tuple[str, str] | None


class GraphReader(Protocol):
    def read(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]: ...


def judge_account(ev: EvidenceSummary, kind: str, done: bool) -> Verdict:
    """ "Credentials were disabled in AWS" (done) or "not applied in AWS" (not done), against the run."""
    run = ev.run
    facts = account_facts(run.actions if run is not None else [], run.state.value if run is not None else "")
    holds = facts.holds(kind)
    if done == holds:
        return None
    where = (
        f"run {run.run_id} ({run.state.value}): {facts.describe()}"
        if run is not None
        else f"no containment run of {ev.alert_id} changed anything on the account"
    )
    if done:
        return "false_containment", f"nothing of that kind is applied and verified on the AWS account; {where}"
    return "false_exposure", f"the change is applied and verified on the AWS account; {where}"


def _edges(reader: GraphReader | None, a: str, rel: str, b: str) -> list[Mapping[str, Any]] | None:
    if reader is None:
        return None
    try:
        rows = reader.read("relationship_by_ends", {"source": a, "type": rel, "target": b})
    except QueryFailed as exc:
        raise EvidenceUnavailable(Status.QUERY_FAILED, f"relationship lookup: {exc}") from None
    return [r.get("props") or {} for r in rows]


def _edge_state(props: Mapping[str, Any]) -> str:
    if props.get("permission") == "deny":
        return "denied"
    if props.get("status") == "blocked":
        return "blocked"
    if props.get("conditional"):
        return "conditional"
    return "active"


def _describe(a: str, rel: str, b: str, states: list[str]) -> str:
    if not states:
        return f"the graph has no {rel} relationship from {a} to {b}"
    return f"the graph's {rel} from {a} to {b} is " + " and ".join(sorted(set(states)))


def _reaches(ev: EvidenceSummary, a: str, b: str) -> bool:
    return any(a in p.nodes and b in p.nodes and p.nodes.index(a) < p.nodes.index(b) for p in ev.paths)


_TYPES = ("CAN_ASSUME", "CAN_READ", "RUNS_AS", "CAN_ACCESS", "HAS_SESSION", "CAN_ESCALATE")


def judge_link(ev: EvidenceSummary, reader: GraphReader | None, a: str, b: str, value: tuple[object, ...]) -> Verdict:
    """ "A can assume B (directly)" / "A cannot assume B" / "A holds an unconditional grant to assume B".

    The value is (type, positive, direct) and, from a grant's adjectives, a quality: "unconditional" (an active
    relationship without a condition), "conditional" (one with a condition) or "" (any that works). The type
    "ANY" is a grant whose words name none: a relationship of any type."""
    rel, positive, direct = str(value[0]), bool(value[1]), bool(value[2])
    quality = str(value[3]) if len(value) > 3 else ""
    a, b = _route_target(ev, a), _route_target(ev, b)  # a session or key named by its route's id
    props: list[Mapping[str, Any]] = []
    for t in _TYPES if rel == "ANY" else (rel, "RUNS_AS") if rel == "CAN_ASSUME" else (rel,):
        found = _edges(reader, a, t, b)  # a workload assumes the role it runs as
        if found is None:
            return UNSURE
        props += found
    states = [_edge_state(p) for p in props]
    wanted = {"unconditional": ("active",), "conditional": ("conditional",)}.get(quality, ("active", "conditional"))
    working = any(s in wanted for s in states)
    # "A can assume B" is one step (role chaining is a path, not an assumption); "A reads B" may be along a path
    holds = working or (not direct and rel == "CAN_READ" and _reaches(ev, a, b))
    if positive == holds:
        return None
    evidence = _describe(a, rel if rel != "ANY" else "granting", b, states)
    if not direct and not working and rel == "CAN_READ":
        evidence += f"; no live qualifying path of {ev.alert_id} goes from {a} to {b}"
    return ("wrong_relationship", evidence)


def judge_link_state(
    ev: EvidenceSummary, reader: GraphReader | None, a: str, b: str, value: tuple[str, bool]
) -> Verdict:
    """ "The grant from A to B is denied / blocked / conditional / allowed"."""
    state, positive = value
    found: list[str] = []
    for rel in ("CAN_ASSUME", "CAN_READ", "RUNS_AS", "CAN_ACCESS", "HAS_SESSION", "CAN_ESCALATE"):
        props = _edges(reader, a, rel, b)
        if props is None:
            return UNSURE
        found += [_edge_state(p) for p in props]
    if not found:
        if state == "closed" and not positive:
            return None
        return ("wrong_relationship", f"the graph has no relationship from {a} to {b}")
    if state == "closed":  # "denied, blocked or not there": no relationship between them works
        if positive == any(s in ("active", "conditional") for s in found):
            return None
        return ("wrong_relationship", f"the relationship from {a} to {b} is " + " and ".join(sorted(set(found))))
    wanted = {"allowed": {"active", "conditional"}, "open": {"active", "conditional"}}.get(state, {state})
    holds = any(s in wanted for s in found)
    if positive == holds:
        return None
    return ("wrong_relationship", f"the relationship from {a} to {b} is " + " and ".join(sorted(set(found))))


def judge_sensitivity(reader: GraphReader | None, asset: str, level: str, positive: bool) -> Verdict:
    """ "customer-db is classified critical" / "is not a high-sensitivity asset": the asset's sensitivity."""
    if reader is None:
        return UNSURE
    try:
        rows = reader.read("entity_by_id", {"id": asset})
    except QueryFailed as exc:
        raise EvidenceUnavailable(Status.QUERY_FAILED, f"entity lookup: {exc}") from None
    held = str((rows[0].get("props") or {}).get("sensitivity") or "") if rows else ""
    if not held:
        return UNSURE  # the graph records no sensitivity for it
    if (held == level) == positive:
        return None
    return "wrong_severity", f"{asset}'s sensitivity in the graph is {held} (not the alert's severity)"


def judge_on_path(ev: EvidenceSummary, a: str, b: str, rel: str) -> Verdict:
    """ "A assumes B on the way": the step A -> B is on a live qualifying path."""
    for p in ev.paths:
        for i in range(len(p.nodes) - 1):
            if p.nodes[i] == a and p.nodes[i + 1] == b:
                return None
    paths = "; ".join(" -> ".join(p.nodes) for p in ev.paths[:5]) or "none"
    return ("wrong_relationship", f"no live qualifying path of {ev.alert_id} steps from {a} to {b}: {paths}")


def judge_member(ev: EvidenceSummary, entity: str, on: bool) -> Verdict:
    """ "X is on a qualifying path" (on) / "X is not on any qualifying path"."""
    live = any(entity in p.nodes for p in ev.paths) or any(
        r.route_id == entity and r.status == "active" and r.paths_carried for r in ev.routes
    )
    if live == on:
        return None
    paths = "; ".join(" -> ".join(p.nodes) for p in ev.paths[:5]) or "none"
    kind = "false_exposure" if on else "false_containment"
    return kind, f"{entity} is {'not ' if not live else ''}on a live qualifying path of {ev.alert_id}: {paths}"


def judge_through(ev: EvidenceSummary, z: str, quant: object, negated: bool, target: str | None = None) -> Verdict:
    """ "Both paths run through Z", "no path goes through Z", "one path runs through Z"; with a target, "the path to
    X goes through Z", of the live paths that hold X."""
    live = [p for p in ev.paths if target is None or _entity(ev, target) in p.nodes]
    holding = sum(
        1 for p in live if z in p.nodes or any(z in (r.route_id, ROUTE_CLASS) for r in ev.routes if _on(r, p))
    )
    total = len(live)
    if isinstance(quant, str) and quant.startswith("~"):  # "at least one path avoids Z": count those without Z
        holding, quant = total - holding, quant[1:]
        quant = int(quant) if quant.isdigit() else quant
    if quant == "all":
        holds = total > 0 and holding == total
    elif quant == "none":
        holds = holding == 0
    elif quant == "one":
        holds = holding == 1
    elif quant == "part":  # "some, but not all, of the paths"
        holds = 0 < holding < total
    elif quant == "not_all":  # "not all (of the) paths"
        holds = holding < total
    elif quant == "the":  # "the open path": the one path, or one of them
        holds = holding >= 1 and (holding == total or total > 1)
    elif isinstance(quant, int):
        holds = holding == quant
    else:
        holds = holding >= 1
    if negated:
        holds = not holds
    if holds:
        return None
    if quant == "the" and 0 < holding < total:
        return UNSURE  # "the path goes through Z" of several paths, some through Z: which path is meant is unread
    return (
        "wrong_relationship",
        f"{holding} of the {total} live qualifying path(s) of {ev.alert_id} hold {z}: "
        + ("; ".join(" -> ".join(p.nodes) for p in live[:5]) or "none"),
    )


def _on(route: Any, path: Any) -> bool:
    nodes = path.nodes
    return any(nodes[i] == route.source and nodes[i + 1] == route.target for i in range(len(nodes) - 1))


def _route_target(ev: EvidenceSummary, x: str) -> str:
    return next((r.target for r in ev.routes if r.route_id == x), x)


def _entity(ev: EvidenceSummary, x: str) -> str:
    return ev.entity_id if x == ev.alert_id else x


def _position(ev: EvidenceSummary, x: str, path: Any) -> int:
    """Where an entity (or a route, by its first end) stands on a path; -1 when it is not on it."""
    route = next((r for r in ev.routes if r.route_id == x.removeprefix("block-route:")), None)
    if route is not None:
        nodes = path.nodes
        return next((i for i in range(len(nodes) - 1) if (nodes[i], nodes[i + 1]) == (route.source, route.target)), -1)
    return path.nodes.index(x) if x in path.nodes else -1


def _live(ev: EvidenceSummary) -> str:
    return "; ".join(" -> ".join(p.nodes) for p in ev.paths[:5]) or "none"


def judge_reach(ev: EvidenceSummary, a: str, b: str, positive: bool) -> Verdict:
    """ "A can still get to B" (positive) / "A no longer reaches B": some live qualifying path goes from A to B."""
    a, b = _entity(ev, a), _entity(ev, b)
    holds = any(0 <= _position(ev, a, p) < _position(ev, b, p) for p in ev.paths)
    if holds == positive:
        return None
    kind = "false_exposure" if positive else "false_containment"
    return kind, f"{'no' if not holds else 'a'} live qualifying path of {ev.alert_id} goes from {a} to {b}: {_live(ev)}"


def judge_reach_class(ev: EvidenceSummary, x: str, cls: str, positive: bool) -> Verdict:
    """ "No critical asset is in scope for X" (not positive): no live qualifying path goes from X to an asset of
    that sensitivity ("" any asset the paths reach)."""
    x = _entity(ev, x)
    wanted = set(ev.critical_assets) if cls == "critical" else set(ev.high_assets) if cls == "high" else None
    reached = sorted({p.nodes[-1] for p in ev.paths if x in p.nodes[:-1] and (wanted is None or p.nodes[-1] in wanted)})
    if bool(reached) == positive:
        return None
    kind = "false_containment" if reached else "false_exposure"
    what = f"{cls} " if cls else ""
    return (
        kind,
        f"live qualifying paths of {ev.alert_id} go from {x} to the {what}assets {', '.join(reached) or 'none'}",
    )


def judge_via(ev: EvidenceSummary, chain: tuple[str, ...], positive: bool) -> Verdict:
    """ "On the way to X, A passes through B (and C)": some live qualifying path holds A, then B (then C), then X."""
    nodes = [_entity(ev, n) for n in chain]

    def ordered(p: Any) -> bool:
        at = [_position(ev, n, p) for n in nodes]
        return all(i >= 0 for i in at) and at == sorted(at) and len(set(at)) == len(at)

    holds = any(ordered(p) for p in ev.paths)
    if holds == positive:
        return None
    through = ", ".join(nodes[1:-1])
    return (
        "wrong_relationship",
        f"{'a' if holds else 'no'} live qualifying path of {ev.alert_id} goes from {nodes[0]} through {through} to"
        f" {nodes[-1]}: {_live(ev)}",
    )


def judge_step(ev: EvidenceSummary, a: str, b: str, quant: str, negated: bool) -> Verdict:
    """ "No open path has A assuming B": how many live qualifying paths step from A to B."""
    a, b = _entity(ev, a), _entity(ev, b)
    stepping = sum(1 for p in ev.paths if any(p.nodes[i : i + 2] == [a, b] for i in range(len(p.nodes) - 1)))
    total = len(ev.paths)
    holds = {"none": stepping == 0, "all": total > 0 and stepping == total}.get(quant, stepping >= 1)
    if holds != negated:
        return None
    return "wrong_relationship", f"{stepping} of the {total} live qualifying path(s) step from {a} to {b}: {_live(ev)}"


def judge_chain(ev: EvidenceSummary, chain: tuple[str, ...], positive: bool) -> Verdict:
    """ "The path a → b → c is open": the chain is part of a live qualifying path."""
    nodes = [_entity(ev, n) for n in chain]
    k = len(nodes)
    holds = any(p.nodes[i : i + k] == nodes for p in ev.paths for i in range(len(p.nodes) - k + 1))
    if holds == positive:
        return None
    kind = "false_exposure" if positive else "false_containment"
    return kind, f"{' -> '.join(nodes)} is {'' if holds else 'not '}part of a live qualifying path: {_live(ev)}"


def judge_blast(ev: EvidenceSummary, x: str, inside: bool) -> Verdict:
    """ "X lies inside (outside) the current blast radius"."""
    held = {e.id for e in ev.blast_radius}
    if (x in held) == inside:
        return None
    return (
        "wrong_count",
        f"{x} is {'not ' if x not in held else ''}in the fresh blast radius of {ev.alert_id} ({len(held)} entities)",
    )


def judge_scoped(ev: EvidenceSummary, kind: str, scope: tuple[str, ...], value: object) -> Verdict:
    """A membership (X), reach (A, B), via (A, B, X), step (A, B) or blast radius (X) claim."""
    if kind == "step":
        quant, negated = value if isinstance(value, tuple) else ("some", False)
        return judge_step(ev, scope[0], scope[1], str(quant), bool(negated))
    positive = bool(value)
    if kind == "chain":
        return judge_chain(ev, scope, positive)
    if kind == "blast_in":
        return judge_blast(ev, scope[0], positive)
    if kind == "member":
        return judge_member(ev, scope[0], positive)
    if kind == "reach_class":
        cls, positive = value if isinstance(value, tuple) else ("", True)
        return judge_reach_class(ev, scope[0], str(cls), bool(positive))
    if kind == "member_any":  # "either A or B is on an open path": one of them is
        verdicts = [judge_member(ev, x, positive) for x in scope]
        return None if any(v is None for v in verdicts) else verdicts[-1]
    if kind == "via":
        return judge_via(ev, scope, positive)
    return judge_reach(ev, scope[0], scope[1], positive)


class JudgedClaim(Protocol):
    """What this module reads of a claim (`prose.ProseClaim`)."""

    @property
    def kind(self) -> str: ...
    @property
    def value(self) -> object: ...
    @property
    def scope(self) -> tuple[str, ...]: ...
    @property
    def qualifier(self) -> str: ...


def judge_claim(ev: EvidenceSummary, reader: GraphReader | None, claim: JudgedClaim) -> Verdict:
    """Any claim of `JUDGED_KINDS`, by its kind. A link that denies a working relationship ("X can no longer
    assume Y" while it can) claims access closed: `false_containment`."""
    kind, value, scope, qualifier = claim.kind, claim.value, claim.scope, claim.qualifier
    if kind == "account":
        return judge_account(ev, qualifier, bool(value))
    if kind in SCOPED_KINDS:
        return judge_scoped(ev, kind, scope, value)
    if kind == "asset_sensitivity":
        level, positive = value if isinstance(value, tuple) else ("", True)
        return judge_sensitivity(reader, scope[0], str(level), bool(positive))
    if kind == "on_path":
        return judge_on_path(ev, scope[0], scope[1], str(value))
    if kind == "through":
        quant, negated = value if isinstance(value, tuple) else ("some", False)
        return judge_through(ev, scope[0], quant, bool(negated), scope[1] if len(scope) > 1 else None)
    pair = value if isinstance(value, tuple) else ()
    if kind == "link_state":
        return judge_link_state(ev, reader, scope[0], scope[1], (str(pair[0]), bool(pair[1])))
    verdict = judge_link(ev, reader, scope[0], scope[1], pair)
    if verdict is not None and verdict != UNSURE and not pair[1]:
        return "false_containment", verdict[1]
    return verdict
