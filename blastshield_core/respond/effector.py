"""What the containment controller needs from an AWS account: the contract `loop.py` and the pages
speak, met by `respond/aws/responder.AccountResponder` (the only code that talks to AWS).

No AWS parameter name crosses it: plans and outcomes are the typed models of `results.account`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..results.account import AccountOutcome, AccountPlan, AccountRelease

__all__ = ["AccountEffector"]


class AccountEffector(Protocol):
    """Plans, applies and releases account actions; re-syncs the principal's slice of the graph."""

    @property
    def applies(self) -> bool:
        """Whether actions are made on the account (a respond profile is configured)."""
        ...

    def plan(self, route_id: str) -> AccountPlan | None:
        """The plan for an AWS-backed route; None for a route that is not. Reads only."""
        ...

    def plan_revocation(self, candidate: dict[str, Any]) -> AccountPlan:
        """The plan revoking the sessions of the role a revocation candidate names. Reads only."""
        ...

    def apply(self, plan: AccountPlan) -> AccountOutcome:
        """Make the plan's call and re-read it; an AWS error is in the outcome, never raised."""
        ...

    def resync(self, plan: AccountPlan) -> str:
        """Re-collect the principal's slice and re-sync it into the graph: '' or why not."""
        ...

    def still_holds(self, plan: AccountPlan) -> tuple[bool | None, str]:
        """Whether the account still holds what an applied plan set: (True, ''), (False, what
        changed) or (None, why it could not be read). Reads only."""
        ...

    def release(self, plan: AccountPlan) -> AccountRelease:
        """Restore the plan's before-image; raises when the live object is not what BlastShield set."""
        ...
