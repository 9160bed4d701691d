"""What every part of the build uses: the evaluation shared between principals with the same policies
(`Evaluation`, over the inventory and the evaluation cache of `state.py`), and the account of a file and a
date read with a warning (for the read steps)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..iam.policy import Statement, statement_matches_action
from .common import _MODELLED_ACTIONS, _date, _Principal
from .get import SourceFile
from .policy_sets import _covered, _PolicySet, _sorted_matches
from .report import AwsImportReport
from .state import EvaluationCache, Inventory


def default_account(inv: Inventory, source: SourceFile) -> str:
    """The account of the GAAD in the same folder, else the only one, else the first."""
    same = [f for f in inv.sources.of("gaad") if f.folder == source.folder]
    for gaad in same:
        for account, file in inv.accounts.items():
            if file == gaad.name:
                return account
    return next(iter(inv.accounts))


def created(report: AwsImportReport, file: str, item: str, value: Any) -> str | None:
    """A date as ISO text (None when empty); an unreadable one is a warning and None."""
    try:
        return _date(value)
    except ValueError as exc:
        report.warn(file, item, str(exc))
        return None


class Evaluation:
    """The evaluation every edge family shares: answers kept in the evaluation cache, read from the frozen
    inventory. It holds no state of its own."""

    def __init__(self, inv: Inventory, cache: EvaluationCache):
        self.inv = inv
        self.cache = cache

    def role_named(self, arn: str) -> str:
        """The imported role's ARN, path included, for an ARN that names it without the path (as a session
        of it does, and so `policy.arns_named`); any other ARN as it is."""
        if arn in self.inv.roles or ":role/" not in arn:
            return arn
        account, name = (arn.split(":")[4], arn.rsplit("/", 1)[-1])
        return self.inv.role_names.get((account, name), arn)

    def glob_cache(self, pattern: str) -> list[str]:
        """What a pattern matches among all role ARNs and bucket object ARNs, computed once per pattern.

        The ARNs are kept sorted, so only those starting with the pattern's literal prefix are tried.
        """
        found = self.cache.globbed.get(pattern)
        if found is None:
            found = self.cache.globbed[pattern] = list(_sorted_matches(pattern, self._universe()))
        return found

    def _universe(self) -> list[str]:
        if not self.cache.all_arns:
            self.cache.all_arns = sorted(
                [*self.inv.roles, *(f"arn:aws:s3:::{b}/*" for buckets in self.inv.buckets.values() for b in buckets)]
            )
        return self.cache.all_arns

    def actions_of(self, stmt: Statement) -> frozenset[str]:
        """The modelled actions the statement covers (kept per statement)."""
        found = self.cache.stmt_actions.get(id(stmt))
        if found is None:
            found = self.cache.stmt_actions[id(stmt)] = _covered(stmt.actions, stmt.not_actions)
            self.cache.hold(stmt)
        return found

    def covers(self, stmt: Statement, action: str) -> bool:
        """`statement_matches_action`, answered from a per-statement set for the modelled actions."""
        if action not in _MODELLED_ACTIONS:
            return statement_matches_action(stmt, action)
        found = self.cache.stmt_actions.get(id(stmt))
        if found is None:
            found = self.actions_of(stmt)
        return action in found

    def derived(self, principal: _Principal, what: str, make: Callable[[_Principal], Any]) -> Any:
        """`make(principal)`, computed once for all principals with the same statements and boundary."""
        if principal.ids is None:
            principal.ids = self.cache.ids(principal.statements, principal.boundary)
        key = (principal.ids, what)
        found = self.cache.derived.get(key, ...)
        if found is ...:
            found = make(principal)
            self.cache.derived[key] = found
        return found

    def policy_set(
        self, statements: list[Statement], boundary: list[Statement] | None, actions: tuple[str, ...]
    ) -> _PolicySet:
        """The prepared policy set, shared by every principal with the same statements and boundary."""
        key = (tuple(map(id, statements)), None if boundary is None else id(boundary), actions)
        found = self.cache.policy_sets.get(key)
        if found is None:
            found = _PolicySet(statements, boundary, actions, self.covers)
            self.cache.policy_sets[key] = found
            self.cache.hold(*statements, boundary)
        return found


def base_principals(inv: Inventory) -> list[_Principal]:
    """The roles and the users' role-like principals, in the inventory's order."""
    return [r.principal for r in inv.roles.values()] + list(inv.users.values())


__all__ = ["Evaluation", "base_principals", "created", "default_account"]
