"""Tuning families for the run's facts (blastshield_core/brief/runfacts.py): how a run ended, why, how much it did,
what it acted on, its cap and decider, and whether there was one, each in several orders of its words.

Every label is computed from the run record the context carries (its state, reason, cap, decider and actions)
and the fresh evidence's routes, never from the checker. A sentence about what the run did to a route is made
only for routes the facts decide: ones the run acted on, and active ones it did not (a route blocked before the
run is left out: "the run blocked it" is then a matter of reading).
"""

from __future__ import annotations

from collections.abc import Iterator

from tests.helpers.briefing_families import Context, Family, both, words

__all__ = ["RUN_FACT_FAMILIES"]

Pair = tuple[str, bool]

_PHRASE = {
    "completed": "completed",
    "stopped": "halted",
    "graph_only": "ended graph_only",
}


def _state(c: Context) -> str:
    return str(c.run.state.value) if c.run is not None else ""


def _cap_reached(c: Context) -> bool:
    return c.run is not None and _state(c) == "stopped" and c.run.reason.startswith("action cap")


def _other_state(state: str) -> str:
    order = ["completed", "stopped", "graph_only"]
    return order[(order.index(state) + 1) % len(order)] if state in order else "completed"


def _end(c: Context) -> Iterator[Pair]:
    """How the run ended: a verb, a key and its value, "ended as", a status line, "still running"."""
    if c.run is None:
        yield ("No response run is on record for this alert.", True)
        yield ("The response run for this alert halted.", False)
        yield ("Final run status: completed", False)
        return
    st, other = _state(c), _other_state(_state(c))
    yield (f"Final run status: {st}", True)
    yield (f"Final run status: {other}", False)
    yield (f"The response run {_PHRASE[st]}.", True)
    yield (f"The response run {_PHRASE[other]}.", False)
    yield from both("The run has completed.", "The run has not completed yet.", st == "completed")
    yield ("The run is still in progress.", False)
    yield (f"The run came to an end as {st}.", True)


def _cap(c: Context) -> Iterator[Pair]:
    """Why it ended and what its cap was."""
    if c.run is None:
        yield ("The response run halted at its action limit.", False)
        return
    hit, cap = _cap_reached(c), c.run.max_actions
    yield from both("The run halted once its action limit was hit.", "The action limit never halted the run.", hit)
    yield from both("It was the action cap that stopped the run.", "The run did not reach its action cap.", hit)
    yield (f"The run had an action limit of {words(cap)}.", True)
    yield (f"The run had an action limit of {words(cap + 1)}.", False)
    yield (f"Its action cap was {cap + 2}.", False)


def _actions(c: Context) -> Iterator[Pair]:
    """How much it did: actions taken, blocks applied, routes blocked."""
    if c.run is None:
        return
    k = len(c.run.actions)
    blocks = sum(1 for a in c.run.actions if a.status == "applied" and a.operation == "block_route")
    yield (f"Actions applied: {k}", True)
    yield (f"Actions applied: {k + 1}", False)
    yield (f"The run carried out {words(k)} action{'' if k == 1 else 's'}.", True)
    yield (f"The run carried out {words(k + 2)} actions.", False)
    yield (f"{words(blocks).capitalize()} route{'' if blocks == 1 else 's'} got blocked by the run.", True)
    yield (f"The run applied {words(blocks + 1)} block{'' if blocks + 1 == 1 else 's'}.", False)


def _targets(c: Context) -> Iterator[Pair]:
    """What it acted on: the routes (or keys) its actions were aimed at, and active routes it left."""
    if c.run is None:
        return
    acted = [a.route_id for a in c.run.actions if a.status == "applied" and a.operation == "block_route"]
    left = [r.route_id for r in c.ev.routes if r.status == "active" and r.route_id not in acted]
    for route in acted[:2]:
        yield from both(f"The run's action targeted {route}.", f"{route} stayed untouched by the run.", True)
        yield (f"No action of the run was aimed at {route}.", False)
    for route in left[:2]:
        yield from both(f"The run did block {route}.", f"The run did not block {route}.", False)


def _existence(c: Context) -> Iterator[Pair]:
    """Whether there was a run at all, and its decider."""
    exists = c.run is not None
    yield from both(
        "A containment run has already been made on this alert.", "There is no containment run on record.", exists
    )
    if c.run is not None:
        decider = c.run.decider
        other = "gemini" if decider != "gemini" else "rules"
        yield (f"The {decider} decider already ran against this alert.", True)
        yield (f"The {other} decider already ran against this alert.", False)


RUN_FACT_FAMILIES: tuple[Family, ...] = (
    Family("runfact.end", "run", _end),
    Family("runfact.cap", "run", _cap),
    Family("runfact.actions", "run", _actions),
    Family("runfact.targets", "run", _targets),
    Family("runfact.existence", "run", _existence),
)
