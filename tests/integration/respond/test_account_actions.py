"""Every registered account action, held to what it declares, against a moto server on loopback.

Each action (`respond/aws/actions.py`, one class per kind) declares the IAM permissions its writes
need (`writes`, the respond profile) and the reads around them (`reads`, the read profile). As Cloud
Custodian's meta-tests hold every action to its `permissions`, these tests plan, apply, verify and
release every registered action on moto, record each operation botocore sends per profile (its
`before-call` event), and require each to be among the declared permissions. The responder's
documented policy (docs/aws-live.md) must be the one the registry derives.

AWS documentation cited: IAM User Guide, "Managing access keys for IAM users" (UpdateAccessKey sets
a key Inactive and back), "Revoking IAM role temporary security credentials" (the console's
AWSRevokeOlderSessions inline role policy; BlastShield puts the same document on a user to revoke the
user's own sessions), and the Service Authorization Reference, "Actions
defined by AWS Identity and Access Management" (each operation is authorised as the IAM action of
the same name, on the user or role it names). moto does not enforce these policies here: the tests
assert the state each call leaves, as boto3 reads it back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import boto3
import pytest

from blastshield_core.respond.aws.actions import (
    ACCOUNT_READS,
    REGISTRY,
    RESPONDER_WRITES,
    AccountSessions,
    DriftRefused,
    action_for,
    responder_policy,
)
from blastshield_core.results.account import AccountActionKind, AccountTarget
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT
from tests.helpers.paths import ROOT

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures


class Recorded:
    """Sessions whose every operation is recorded per profile, as `service:Operation`."""

    def __init__(self) -> None:
        self.calls: dict[str, list[str]] = {"respond": [], "collect": []}

    def session(self, profile: str) -> boto3.Session:
        made = boto3.Session(profile_name=profile)

        def record(model, **_):
            self.calls[profile].append(f"{model.service_model.signing_name}:{model.name}")

        made.events.register("before-call", record)
        return made

    def sessions(self) -> AccountSessions:
        return AccountSessions(
            respond=self.session("respond"), read=self.session("collect"), verify_tries=3, verify_pause_s=0.05,
            recollection=lambda account: "",  # a recorded collection of every account, as far as these tests go
        )  # fmt: skip


def _principal(moto_account, kind: AccountActionKind) -> AccountTarget:
    """The principal an action of `kind` is aimed at, made on moto, named as its collection names it."""
    iam = moto_account.client("iam")
    if kind is AccountActionKind.REVOKE_ROLE_SESSIONS:
        trust = {"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]}  # fmt: skip
        role = iam.create_role(RoleName="ops-role", AssumeRolePolicyDocument=json.dumps(trust))["Role"]
        return AccountTarget(account=ACCOUNT, principal="role", name="ops-role", arn=role["Arn"],
                             unique_id=role["RoleId"])  # fmt: skip
    user = iam.create_user(UserName="alice")["User"]
    key = iam.create_access_key(UserName="alice")["AccessKey"]["AccessKeyId"]
    key_id = key if kind is AccountActionKind.DEACTIVATE_ACCESS_KEY else ""
    return AccountTarget(account=ACCOUNT, principal="user", name="alice", arn=user["Arn"], unique_id=user["UserId"],
                         access_key_id=key_id)  # fmt: skip


def _state(moto_account) -> dict:
    """Every user's and role's inline policies and keys, as boto3 reads them from moto."""
    iam = moto_account.client("iam")
    state = {}
    for user in iam.list_users()["Users"]:
        name = user["UserName"]
        policies = iam.list_user_policies(UserName=name)["PolicyNames"]
        state[f"user/{name}"] = {
            "policies": {p: iam.get_user_policy(UserName=name, PolicyName=p)["PolicyDocument"] for p in policies},
            "keys": {k["AccessKeyId"]: k["Status"] for k in iam.list_access_keys(UserName=name)["AccessKeyMetadata"]},
        }
    for role in iam.list_roles()["Roles"]:
        name = role["RoleName"]
        policies = iam.list_role_policies(RoleName=name)["PolicyNames"]
        state[f"role/{name}"] = {
            "policies": {p: iam.get_role_policy(RoleName=name, PolicyName=p)["PolicyDocument"] for p in policies}
        }
    return state


@pytest.fixture
def recorded(moto_account) -> Iterator[Recorded]:
    yield Recorded()


def test_every_kind_has_one_registered_action():
    assert set(REGISTRY) == set(AccountActionKind)
    for kind, cls in REGISTRY.items():
        assert cls.kind is kind and cls.writes and cls.reads and cls.principal in ("user", "role")


@pytest.mark.parametrize("kind", list(AccountActionKind), ids=lambda k: k.value)
def test_each_action_calls_only_what_it_declares_and_release_restores_the_account(moto_account, recorded, kind):
    """Plan, apply (with its re-read), verify and release one action of each kind: every call of the
    respond profile is among the action's `writes` and every read among its `reads`; each declared
    write is made; the account after the release is what it was before the apply."""
    target = _principal(moto_account, kind)
    action = action_for(kind, recorded.sessions())
    plan = action.plan(f"{target.label()}:route", target, detail="console_password")
    assert plan.kind is kind and plan.applied_in_aws and plan.before_image and not plan.read_error
    assert plan.target == target  # the action names its target: account, full ARN, unique id
    assert [c.ok for c in action.checks(plan)] == [True] * len(action.checks(plan)), action.checks(plan)
    assert [c.api for c in plan.calls] == [action.writes[0]]
    before = _state(moto_account)
    assert not set(recorded.calls["respond"]) & set(RESPONDER_WRITES)  # a plan and its checks only read
    outcome = action.apply(plan)
    assert outcome.applied and outcome.api_verified and outcome.request_id, outcome
    assert action.verify(plan) is True
    changed = _state(moto_account)
    assert changed != before
    released = action.release(plan)
    assert released.api_verified and released.request_id
    assert _state(moto_account) == before
    # each write made, none other; the respond profile reads only its own account before the write
    assert set(recorded.calls["respond"]) == {*action.writes, *action.respond_reads}, recorded.calls
    assert set(recorded.calls["collect"]) <= set(action.reads), recorded.calls
    assert not set(recorded.calls["collect"]) & set(RESPONDER_WRITES)  # the read profile never writes


@pytest.mark.parametrize("kind", list(AccountActionKind), ids=lambda k: k.value)
def test_each_action_refuses_to_release_what_someone_else_changed(moto_account, recorded, kind):
    target = _principal(moto_account, kind)
    action = action_for(kind, recorded.sessions())
    plan = action.plan(f"{target.label()}:route", target)
    assert action.apply(plan).applied
    iam = moto_account.client("iam")
    if kind is AccountActionKind.DEACTIVATE_ACCESS_KEY:
        iam.update_access_key(UserName="alice", AccessKeyId=target.access_key_id, Status="Active")
    elif kind is AccountActionKind.DENY_ALL_INLINE_POLICY:
        iam.delete_user_policy(UserName="alice", PolicyName="BlastShieldDenyAll")
    elif kind is AccountActionKind.REVOKE_USER_SESSIONS:
        iam.delete_user_policy(UserName="alice", PolicyName="BlastShieldRevokeUserSessions")
    else:
        iam.delete_role_policy(RoleName="ops-role", PolicyName="AWSRevokeOlderSessions")
    state = _state(moto_account)
    writes = [c for c in recorded.calls["respond"] if c in RESPONDER_WRITES]
    with pytest.raises(DriftRefused, match="someone else changed it"):
        action.release(plan)
    assert _state(moto_account) == state  # nothing written
    assert [c for c in recorded.calls["respond"] if c in RESPONDER_WRITES] == writes


def test_without_a_respond_session_nothing_is_applied(moto_account, recorded):
    for kind in AccountActionKind:
        moto_account.reset()
        target = _principal(moto_account, kind)
        sessions = AccountSessions(read=recorded.session("collect"))
        plan = action_for(kind, sessions).plan("r", target)
        before = _state(moto_account)
        outcome = action_for(kind, sessions).apply(plan)
        assert not plan.applied_in_aws and not outcome.applied and outcome.error.startswith("not applied in AWS")
        assert _state(moto_account) == before and recorded.calls["respond"] == []


def test_the_documented_responder_policy_is_the_registrys():
    """docs/aws-live.md's responder policy is exactly what the registry derives, and the read profile's
    documented policy allows every read an action declares."""
    from blastshield_core.sources.aws.iam.policy import Effect, evaluate, parse_policy

    text = (ROOT / "docs" / "aws-live.md").read_text(encoding="utf-8")
    responder = json.loads(re.search(r"```json responder-policy\n(.*?)```", text, re.S)[1])
    collector = json.loads(re.search(r"```json collector-policy\n(.*?)```", text, re.S)[1])
    assert responder == responder_policy()
    statements = parse_policy(collector)
    for action in ACCOUNT_READS:
        assert evaluate(statements, action, f"arn:aws:iam::{ACCOUNT}:user/alice").effect is Effect.ALLOW, action
    written = {a for s in responder["Statement"] for a in s["Action"]}
    assert written == set(RESPONDER_WRITES)


@pytest.mark.parametrize("kind", list(AccountActionKind), ids=lambda k: k.value)
def test_apply_called_directly_refuses_without_the_prewrite_checks_holding(moto_account, recorded, kind):
    """Each action's apply, called directly, refuses before any write when the target is not named
    by its unique id, is in another account than the respond profile's, or was recreated since the
    collection; moto's users, roles, policies and keys are the same afterwards."""
    target = _principal(moto_account, kind)
    action = action_for(kind, recorded.sessions())
    good = action.plan("r", target)
    unnamed = good.model_copy(update={"target": target.model_copy(update={"unique_id": ""})})
    other_account = good.model_copy(update={"target": target.model_copy(update={"account": "999988887777"})})
    no_target = good.model_copy(update={"target": None})
    for plan, why in (
        (unnamed, "nothing is written to an unnamed principal"),
        (no_target, "nothing is written to an unnamed principal"),
        (other_account, "signs in to account 123456789012, not 999988887777"),
    ):
        outcome = action.apply(plan)
        assert not outcome.applied and outcome.error.startswith("refused before any write"), outcome.error
        assert why in outcome.error
    iam = moto_account.client("iam")
    if target.principal == "user":  # deleted and recreated with the same name: another unique id
        for key in iam.list_access_keys(UserName="alice")["AccessKeyMetadata"]:
            iam.delete_access_key(UserName="alice", AccessKeyId=key["AccessKeyId"])
        iam.delete_user(UserName="alice")
        iam.create_user(UserName="alice")
    else:
        iam.delete_role(RoleName="ops-role")
        trust = {"Version": "2012-10-17", "Statement": []}
        iam.create_role(RoleName="ops-role", AssumeRolePolicyDocument=json.dumps(trust))
    recreated = _state(moto_account)
    outcome = action.apply(good)
    assert not outcome.applied and "recreated since collection" in outcome.error, outcome.error
    assert _state(moto_account) == recreated
    assert [c for c in recorded.calls["respond"] if c in RESPONDER_WRITES] == []  # no write was ever sent
