"""The one decision: the statements that match a request become an Allow, an explicit Deny or the
implicit deny, and the answer says whether conditions could change it.

From the IAM User Guide, "Policy evaluation logic"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html): an
explicit Deny in any policy beats every Allow; without an Allow the request is implicitly denied;
where several policy types must each allow (identity policies and a permissions boundary, every
SCP level, both sides of a KMS alias operation), a deny in any denies and a missing allow in any
denies implicitly.

A matched statement is three-valued (`conditions.Tri`): it applies (`True`) or it is undecided
(`None`, on the condition keys it needs). Every caller counts it with `counts`: the decision where
every undecided statement helps the request (undecided Allows apply, undecided Denies do not) is
the answer given, and the decision where every one works against it says whether the answer is
conditional (`settle`). The two modes differ only in where the undecided statements come from and
in what the answer reports:

* `Mode.UNDECIDED`, the graph's: conditions are not evaluated at all; a statement with a Condition
  is undecided on every key it tests (`policy.Statement.result`). Only an allow is conditional
  (the graph draws an allow with its condition keys; an implicit deny draws nothing and a Deny
  denies, whatever the conditions). The keys are those of the undecided Denies and, when no
  Allow applies for sure, those of the first undecided Allow (the one the graph draws).
* `Mode.CONTEXT`, `policy-eval`'s: conditions are evaluated against the request's context
  (`evaluate_input.scan`); a statement is undecided only on the keys the context lacks. The answer
  is conditional whenever the worst case differs (an implicit deny that an undecided Deny would
  make explicit included), and names every undecided statement's keys.

`evaluate.py` composes policy types request by request with these rules; the graph build decides
one policy set with `decide_matched` (through `policy.decide`) or `Tally` (shared statements
summed once), limits it with `combine`, and decides resource policies, guardrails and the
conditions the snapshot knows (`build/resource_policies.py`, `build/identity_conditions.py`) with
`counts` and `settle`. Nothing here reads files or touches a store.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from .conditions import Tri

__all__ = [
    "Decision",
    "Effect",
    "Matched",
    "Mode",
    "Tally",
    "combine",
    "counts",
    "decide_matched",
    "every",
    "settle",
]


class Effect(StrEnum):
    ALLOW = "allow"
    DENY = "deny"  # an explicit Deny applies
    NONE = "none"  # no statement allows: the implicit deny


@dataclass(frozen=True)
class Decision:
    """The answer for one (principal, action, resource): allow / deny / none, and whether it is conditional."""

    effect: Effect
    conditional: bool = False
    condition_keys: tuple[str, ...] = field(default=())

    @property
    def allowed(self) -> bool:
        return self.effect is Effect.ALLOW


class Mode(StrEnum):
    UNDECIDED = "undecided"  # the graph: every Condition undecided on the keys it tests
    CONTEXT = "context"  # policy-eval: Conditions evaluated against the request's context


class Matched(Protocol):
    """A statement that matched the request's principal, action and resource."""

    @property
    def effect(self) -> str: ...  # "Allow" | "Deny"

    @property
    def result(self) -> Tri: ...  # True: it applies; None: undecided (never False: it would not match)

    @property
    def keys(self) -> Collection[str]: ...  # the condition keys an undecided statement needs


def counts(effect: str, result: Tri, hopeful: bool) -> bool:
    """A matched statement counts in the decision where undecided statements all help the request
    (`hopeful`: undecided Allows apply, undecided Denies do not) or all work against it."""
    if result is True:
        return True
    return hopeful if effect == "Allow" else not hopeful


def every(effects: Iterable[Effect]) -> Effect:
    """Policies that must all allow: a Deny in any denies, else a missing Allow in any is the implicit
    deny, else allowed (no policy at all: allowed)."""
    found = Effect.ALLOW
    for effect in effects:
        if effect is Effect.DENY:
            return effect
        if effect is Effect.NONE:
            found = effect
    return found


# The unconditional answers, made once: a decision is frozen, so one of each serves every request
# (the build settles hundreds of thousands).
_PLAIN = {effect: Decision(effect) for effect in Effect}


def _unconditional(best: Effect, worst: Effect, mode: Mode) -> bool:
    return best is worst or (mode is Mode.UNDECIDED and best is not Effect.ALLOW)


def settle(best: Effect, worst: Effect, keys: Iterable[str], mode: Mode) -> Decision:
    """The answer: `best` (undecided statements all for the request), conditional when `worst`
    (all against it) differs, with `keys` sorted; in `Mode.UNDECIDED` only an allow is conditional."""
    if _unconditional(best, worst, mode):
        return _PLAIN[best]
    return Decision(best, True, tuple(sorted(set(keys))))


class Tally:
    """The matched statements of one policy set, fed in any order with their positions, summed up as
    far as a decision needs them (so statements shared by many requests are counted once, `copy`)."""

    __slots__ = ("allow", "deny", "deny_keys", "first", "maybe_deny", "undecided_keys")

    def __init__(self) -> None:
        self.deny = False  # a Deny applies
        self.maybe_deny = False  # a Deny is undecided
        self.allow = False  # an Allow applies
        self.first: tuple[int, Collection[str]] | None = None  # the first undecided Allow, and its keys
        self.deny_keys: set[str] = set()  # the undecided Denies' keys
        self.undecided_keys: set[str] = set()  # every undecided statement's keys

    def copy(self) -> Tally:
        other = Tally()
        other.deny, other.maybe_deny, other.allow, other.first = self.deny, self.maybe_deny, self.allow, self.first
        other.deny_keys, other.undecided_keys = set(self.deny_keys), set(self.undecided_keys)
        return other

    def add(self, position: int, stmt: Matched) -> None:
        result, keys = stmt.result, stmt.keys
        if stmt.effect == "Deny":
            if result is True:
                self.deny = True
            else:
                self.maybe_deny = True
                self.deny_keys.update(keys)
                self.undecided_keys.update(keys)
        elif result is True:
            self.allow = True
        else:
            if self.first is None or position < self.first[0]:
                self.first = (position, keys)
            self.undecided_keys.update(keys)

    def outcome(self, hopeful: bool) -> Effect:
        """The decision with undecided statements all for the request (`hopeful`) or all against it:
        `counts` over what was added."""
        if self.deny or (self.maybe_deny and counts("Deny", None, hopeful)):
            return Effect.DENY
        if self.allow or (self.first is not None and counts("Allow", None, hopeful)):
            return Effect.ALLOW
        return Effect.NONE

    def keys(self, mode: Mode) -> set[str]:
        """The keys the answer names (`Mode` says which)."""
        if mode is Mode.CONTEXT:
            return self.undecided_keys
        if self.allow or self.first is None:
            return self.deny_keys
        return self.deny_keys | set(self.first[1])

    def decision(self, mode: Mode = Mode.UNDECIDED) -> Decision:
        best, worst = self.outcome(True), self.outcome(False)
        if _unconditional(best, worst, mode):  # `settle`'s answer, without gathering keys it would not name
            return _PLAIN[best]
        return settle(best, worst, self.keys(mode), mode)


def decide_matched(statements: Iterable[Matched], mode: Mode = Mode.UNDECIDED) -> Decision:
    """One policy set's statements already known to apply (principal, action and resource matched),
    in policy order, as a decision."""
    tally = Tally()
    for position, stmt in enumerate(statements):
        tally.add(position, stmt)
    return tally.decision(mode)


def combine(*decisions: Decision) -> Decision:
    """Graph decisions (`Mode.UNDECIDED`) of policies that must all allow (`every`): a deny anywhere
    denies, a missing allow is none, conditions add up. A conditional allow is not an allow when
    its conditions fail, so with one the worst case is not allowed. (One pass: the build combines
    the decisions of every principal and resource it relates.)"""
    best = worst = Effect.ALLOW
    for d in decisions:
        if d.effect is Effect.DENY:
            best = worst = Effect.DENY
            break
        if d.effect is Effect.NONE:
            best = worst = Effect.NONE
        elif d.conditional:
            worst = every((worst, Effect.NONE))
    return settle(best, worst, (k for d in decisions for k in d.condition_keys), Mode.UNDECIDED)
