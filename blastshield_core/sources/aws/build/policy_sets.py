"""Policy sets: a principal's statements prepared once for a fixed list of actions and shared by
principals alike, with the compiled Resource tests and action classification they use."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import Any

from ....base.wildcard import compile_pattern
from ..iam.decision import Tally as _Matched  # what `decide_matched` keeps of the statements that apply
from ..iam.policy import (
    Decision,
    Effect,
    Statement,
    combine,
    resource_list_matcher,
    resource_matches,
    statement_matches_action,
)
from .common import _MODELLED_ACTIONS, DATA_ACTIONS


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


class _SortedArns(tuple[str, ...]):
    """ARNs sorted and without repeats, so the ARNs a pattern's literal prefix allows are one slice."""

    @classmethod
    def of(cls, arns: Sequence[str]) -> _SortedArns:
        return arns if isinstance(arns, _SortedArns) else cls(sorted(set(arns)))

    def starting(self, prefix: str) -> Sequence[str]:
        """The ARNs that start with `prefix` (found by bisection)."""
        if not prefix:
            return self
        low = bisect_left(self, prefix)
        high = low
        # the ARNs starting with `prefix` sort just before prefix's successor
        last = ord(prefix[-1])
        if last < 0x10FFFF:
            high = bisect_left(self, prefix[:-1] + chr(last + 1), low)
        else:
            while high < len(self) and self[high].startswith(prefix):
                high += 1
        return self[low:high]


@lru_cache(maxsize=65536)
def _sorted_list_filter(patterns: tuple[str, ...]) -> Callable[[_SortedArns], set[str]]:
    """`resource_list_filter(patterns)` over sorted ARNs: a pattern tests only the ARNs its literal
    prefix allows, so statements naming different resources cost their matches, not the whole list."""
    if "*" in patterns:
        return set
    exact: list[str] = []
    prefixes: list[str] = []  # `literal*`: every ARN starting with the literal
    globs: list[tuple[str, str]] = []  # (literal prefix, pattern), compiled when first needed
    for pattern in patterns:
        cut = min((i for i in (pattern.find("*"), pattern.find("?")) if i >= 0), default=-1)
        if cut < 0:
            exact.append(pattern)
        elif cut == len(pattern) - 1 and pattern[cut] == "*":
            prefixes.append(pattern[:cut])
        else:
            globs.append((pattern[:cut], pattern))

    def keep(arns: _SortedArns) -> set[str]:
        found: set[str] = set()
        for name in exact:
            at = bisect_left(arns, name)
            if at < len(arns) and arns[at] == name:
                found.add(name)
        for prefix in prefixes:
            found.update(arns.starting(prefix))
        for prefix, pattern in globs:
            within = arns.starting(prefix)
            if within:
                found.update(filter(compile_pattern(pattern, True).fullmatch, within))
        return found

    return keep


def _resource_filter(stmt: Statement) -> Callable[[Sequence[str]], set[str]]:
    """The ARNs among a list that `statement_matches_resource(stmt, arn)` accepts."""
    if stmt.not_resources is not None:
        inner = _sorted_list_filter(stmt.not_resources)
        return lambda arns: set(arns) - inner(_SortedArns.of(arns))
    if not stmt.resources:
        return set if stmt.principals is not None else (lambda _arns: set())
    within = _sorted_list_filter(stmt.resources)
    return lambda arns: within(_SortedArns.of(arns))


class _PolicySet:
    """A principal's identity statements and boundary, prepared once for a fixed list of actions.

    `evaluate` looks at a resource only through which statements' Resource matches it, so the
    answers are kept by that set of statements: resources no specific statement names share one
    answer, and principals with the same policies share this object (see `builder.Evaluation.policy_set`).
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
        ordered = _SortedArns.of(resources)  # sorted once for every statement's filter
        for i, keep in enumerate(self._filters):
            for resource in keep(ordered):
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
        """`decisions` for a resource whose `key` is known.

        Built from a summary of the `*` statements (made once) and the key's own statements, so a
        resource costs the statements that name it, not every statement of the set.
        """
        found = self._memo.get(key)
        if found is None:
            fixed = self._fixed if self._fixed is not None else self._prepare()
            by_place = self._by_place
            summaries: list[list[Any]] = [
                [part.copy() if part is not None else None for part in pair] for pair in fixed
            ]
            for place in key:
                for action, side, position, stmt in by_place.get(place, ()):
                    summaries[action][side].add(position, stmt)
            found = tuple(
                _limited(own.decision(), None if limit is None else limit.decision()) for own, limit in summaries
            )
            self._memo[key] = found
        return found

    _fixed: list[list[Any]] | None = None

    def _prepare(self) -> list[list[Any]]:
        """The `*` statements' summary per action and side, and each varying statement's places."""
        self._fixed = []
        self._by_place: dict[int, list[tuple[int, int, int, Statement]]] = {}
        for action, pair in enumerate(self.per_action):
            parts: list[Any] = []
            for side, listed in enumerate(pair):
                if listed is None:
                    parts.append(None)
                    continue
                summary = _Matched()
                for position, (stmt, place) in enumerate(listed):
                    if place < 0:
                        summary.add(position, stmt)
                    else:
                        self._by_place.setdefault(place, []).append((action, side, position, stmt))
                parts.append(summary)
            self._fixed.append(parts)
        return self._fixed


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
