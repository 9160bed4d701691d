"""A user whose own policies deny every action on every resource, with no condition.

Such a user can make no AWS request with any credential (an explicit Deny wins over every Allow:
"Policy evaluation logic"), so each of their credential routes is imported `blocked`, with
`denied_by_policy: true` on the session. This is how an explicit deny-all inline policy, the
containment AWS's incident-response guidance prescribes for a console password or a user without
access keys, shows in the graph: from the account, not from a property flip.
"""

from __future__ import annotations

from collections.abc import Iterable

from .policy import Statement

__all__ = ["denies_everything"]


def denies_everything(statements: Iterable[Statement]) -> bool:
    return any(
        s.effect == "Deny"
        and not s.conditional
        and s.not_actions is None
        and s.not_resources is None
        and "*" in s.actions
        and "*" in s.resources
        for s in statements
    )
