"""What a run's account actions left standing of the credentials already issued, and which revocations
it offers once no path is left (`respond/issued.py`): pure, from run actions built here.

IAM User Guide, "Disabling permissions for temporary security credentials": deactivating the key that
obtained temporary credentials does not end them; a deny policy on the user stops the user's own
sessions (they carry the user's permissions), not role sessions; a revocation on `aws:TokenIssueTime`
("Revoking IAM role temporary security credentials") stops the sessions issued before it.
"""

from __future__ import annotations

from blastshield_core.respond.issued import followups, left_standing, revoked_sessions
from blastshield_core.results import RevocationCandidate, RunAction
from blastshield_core.results.account import AccountActionKind, AccountOutcome, AccountPlan, AccountTarget

ACCOUNT = "123456789012"
ALICE = f"arn:aws:iam::{ACCOUNT}:user/alice"
OPS = f"arn:aws:iam::{ACCOUNT}:role/ops-role"


def _action(kind: AccountActionKind, *, arn: str = ALICE, applied: bool = True, on_account: bool = True,
            verified: bool = True, key: str = "AKIAEXAMPLE") -> RunAction:  # fmt: skip
    principal = "role" if ":role/" in arn else "user"
    target = AccountTarget(account=ACCOUNT, principal=principal, name=arn.rsplit("/", 1)[-1], arn=arn,
                           unique_id="AIDAEXAMPLE",
                           access_key_id=key if kind is AccountActionKind.DEACTIVATE_ACCESS_KEY else "")  # fmt: skip
    plan = AccountPlan(route_id="r", account=ACCOUNT, user=target.name, kind=kind, applied_in_aws=on_account,
                       target=target, leaves_standing=["as planned"])  # fmt: skip
    revocation = kind in (AccountActionKind.REVOKE_USER_SESSIONS, AccountActionKind.REVOKE_ROLE_SESSIONS)
    return RunAction(
        step=1, candidate_id="c", route_id="r", status="applied" if applied or not on_account else "failed",
        verified=verified, paths_before=1, paths_after=0, reason="", applied=applied, api_verified=verified,
        aws=AccountOutcome(applied_in_aws=on_account, plan=plan, applied=applied and on_account, api_verified=verified),
        operation=kind.value if revocation else "block_route",
    )  # fmt: skip


def _candidate(arn: str) -> RevocationCandidate:
    user = ":user/" in arn
    return RevocationCandidate(
        id=f"revoke-sessions:{arn}", action="revoke_user_sessions" if user else "revoke_role_sessions",
        principal="user" if user else "role", entity_id=arn, role=arn.rsplit("/", 1)[-1], arn=arn,
        account=arn.split(":")[4], reason="r", on_paths=not user,
    )  # fmt: skip


KEY = AccountActionKind.DEACTIVATE_ACCESS_KEY
DENY = AccountActionKind.DENY_ALL_INLINE_POLICY
USER = AccountActionKind.REVOKE_USER_SESSIONS
ROLE = AccountActionKind.REVOKE_ROLE_SESSIONS


def test_a_deactivated_key_leaves_the_users_and_the_role_sessions_it_issued():
    assert left_standing([_action(KEY)]) == [
        "sessions alice already obtained with key AKIAEXAMPLE through sts:GetSessionToken (up to 36 h)",
        "role sessions already assumed with key AKIAEXAMPLE (sts:AssumeRole, up to the role's maximum session"
        " duration, at most 12 h)",
    ]


def test_revocations_take_what_they_stop_off_the_list():
    standing = left_standing([_action(KEY), _action(USER), _action(ROLE, arn=OPS)])
    assert standing == [
        f"role sessions already assumed with key AKIAEXAMPLE of any role but {OPS} (whose sessions the run revoked)"
        " (sts:AssumeRole, up to the role's maximum session duration, at most 12 h)"
    ]
    assert revoked_sessions([_action(KEY), _action(USER), _action(ROLE, arn=OPS)]) == [ALICE, OPS]


def test_a_deny_all_stops_the_users_sessions_but_not_the_role_sessions():
    assert left_standing([_action(KEY), _action(DENY)]) == [
        "role sessions already assumed with key AKIAEXAMPLE (sts:AssumeRole, up to the role's maximum session"
        " duration, at most 12 h)",
        "role sessions alice already assumed: they carry the role's permissions, not the user's",
    ]


def test_nothing_applied_on_the_account_leaves_nothing_and_offers_nothing():
    graph_only = _action(KEY, on_account=False)
    refused = _action(KEY, applied=False)
    for actions in ([graph_only], [refused], []):
        assert left_standing(actions) == [] and followups(actions, [_candidate(ALICE), _candidate(OPS)]) == []


def test_an_unverified_revocation_stops_nothing():
    assert revoked_sessions([_action(USER, verified=False)]) == []
    assert "sts:GetSessionToken" in left_standing([_action(KEY), _action(USER, verified=False)])[0]


def test_followups_after_a_key_are_the_users_sessions_and_the_roles_after_a_deny_all_the_roles_only():
    offered = [_candidate(ALICE), _candidate(OPS)]
    assert [c.arn for c in followups([_action(KEY)], offered)] == [ALICE, OPS]
    assert [c.arn for c in followups([_action(DENY)], offered)] == [OPS]  # the deny-all already stops alice's own
    bob = f"arn:aws:iam::{ACCOUNT}:user/bob"  # another user's key cut says nothing of alice's sessions
    assert [c.arn for c in followups([_action(KEY, arn=bob)], [_candidate(ALICE)])] == []
    elsewhere = "arn:aws:iam::999988887777:role/partner"  # a role in an account the run wrote nothing to
    assert [c.arn for c in followups([_action(KEY)], [*offered, _candidate(elsewhere)])] == [ALICE, OPS]
    assert "of any role but" not in left_standing([_action(KEY)])[1]  # its sessions stay named as standing
