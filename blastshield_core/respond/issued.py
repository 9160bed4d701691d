"""Credentials already issued: what a run's account actions left standing, and what else the run may stop.

Deactivating an access key stops new requests signed with it, not the temporary credentials already
obtained with it: the user's `sts:GetSessionToken` sessions and the role sessions assumed with it keep
working until they expire (IAM User Guide, "Disabling permissions for temporary security
credentials"). A deny-all user policy also stops the user's own sessions (they carry the user's
permissions), not the role sessions the user assumed. A revocation of the user's sessions, or of a
role's, stops those issued before it (IAM User Guide, "Revoking IAM role temporary security
credentials"; the condition key `aws:TokenIssueTime`, "AWS global condition context keys").

From a run's actions this module says which issued credentials are still standing, and which of the
alert's revocation candidates stop sessions that a credential the run cut on the account issued (the
follow-ups the run offers once no qualifying path is left).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..results import RevocationCandidate, RunAction
from ..results.account import AccountActionKind, AccountPlan

__all__ = ["followups", "left_standing", "revoked_sessions"]

_KEY = AccountActionKind.DEACTIVATE_ACCESS_KEY
_DENY = AccountActionKind.DENY_ALL_INLINE_POLICY
_USER = AccountActionKind.REVOKE_USER_SESSIONS
_ROLE = AccountActionKind.REVOKE_ROLE_SESSIONS


def _on_account(actions: Iterable[RunAction]) -> list[AccountPlan]:
    """The plans of the actions applied on the account (a revocation only when its re-read confirmed it)."""
    out = []
    for a in actions:
        aws = a.aws
        if aws is None or not (aws.applied_in_aws and aws.applied):
            continue
        if aws.plan.kind in (_USER, _ROLE) and not aws.api_verified:
            continue
        out.append(aws.plan)
    return out


def _who(plan: AccountPlan) -> str:
    """The principal a plan is aimed at: its ARN, else account and name (records made before targets)."""
    if plan.target is not None and plan.target.arn:
        return plan.target.arn
    return f"{plan.account}:{plan.user}"


def revoked_sessions(actions: Iterable[RunAction]) -> list[str]:
    """The principals (ARNs) whose issued sessions the run revoked and verified on the account."""
    return [_who(p) for p in _on_account(actions) if p.kind in (_USER, _ROLE)]


def left_standing(actions: Sequence[RunAction]) -> list[str]:
    """The credentials already issued that the run's blocks on the account left standing until they
    expire: for each key it deactivated, the user's GetSessionToken sessions (unless the run revoked
    the user's sessions or denied the user everything) and the role sessions assumed with the key
    (of the roles whose sessions the run did not revoke); for a deny-all policy, the role sessions."""
    plans = _on_account(actions)
    users_stopped = {_who(p) for p in plans if p.kind in (_USER, _DENY)}
    roles = [_who(p) for p in plans if p.kind is _ROLE]
    but = f" of any role but {', '.join(roles)} (whose sessions the run revoked)" if roles else ""
    out: list[str] = []
    for plan in plans:
        if plan.kind is _KEY:
            key, user = plan.subject(), plan.user
            if _who(plan) not in users_stopped:
                out.append(f"sessions {user} already obtained with key {key} through sts:GetSessionToken (up to 36 h)")
            out.append(
                f"role sessions already assumed with key {key}{but} (sts:AssumeRole, up to the role's maximum"
                " session duration, at most 12 h)"
            )
        elif plan.kind is _DENY:
            out.append(
                f"role sessions {plan.user} already assumed{but}: they carry the role's permissions, not the user's"
            )
    return list(dict.fromkeys(out))


def followups(actions: Sequence[RunAction], revocations: Sequence[RevocationCandidate]) -> list[RevocationCandidate]:
    """Of the alert's revocation candidates, those stopping sessions a credential the run cut on the
    account issued: the user's own sessions after a key of the user was deactivated (a deny-all
    policy already stops them), and each role's on the user's paths, in an account where the run
    cut a credential, after a key was deactivated or the user denied everything. [] when the run
    changed nothing on the account."""
    plans = [p for p in _on_account(actions) if p.kind in (_KEY, _DENY)]
    if not plans:
        return []
    keys_of = {_who(p) for p in plans if p.kind is _KEY}
    denied = {_who(p) for p in plans if p.kind is _DENY}
    accounts = {p.account for p in plans}  # where the run could write: a role elsewhere is left to the analyst
    out = []
    for r in revocations:
        if r.principal == "user":
            if r.arn in keys_of and r.arn not in denied:
                out.append(r)
        elif r.account in accounts:
            out.append(r)
    return out
