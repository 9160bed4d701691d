"""Escalation as a fixpoint, against a real FalkorDB: a principal holds what it reaches by escalating and
assuming, and a held principal that may change another held one gives the holder what that change gives.

The account is built with boto3 against moto (tests/helpers/aws_escalation_bundle.py, `chain_dir`). What
each change gives is AWS's documented behaviour: a policy attached to or written into a user applies to that
user ("Managed policies and inline policies",
https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_managed-vs-inline.html), a group's policies
apply to its members ("IAM user groups", https://docs.aws.amazon.com/IAM/latest/UserGuide/id_groups.html),
`iam:AddUserToGroup` is asked on the group alone, so it may add any user (Service Authorization Reference,
IAM, https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsidentityandaccessmanagementiam.html),
and new credentials act as their user (CreateAccessKey, CreateLoginProfile, UpdateLoginProfile in the IAM API
reference, https://docs.aws.amazon.com/IAM/latest/APIReference/). The methods themselves: Rhino Security Labs,
"AWS IAM Privilege Escalation - Methods and Mitigation".
"""

from __future__ import annotations

import json
import uuid
from functools import cache

import pytest

from blastshield_core import Status, build_services
from blastshield_core.sources.aws import build_document, import_aws, read_sources
from tests.helpers.aws_escalation_bundle import (
    ACCT,
    ADMIN,
    SENSITIVITY,
    VAULT,
    chain_dir,
    head,
    role_node,
    user_node,
)

READERS = f"{ACCT}:group:vault-readers:policies"
JOINERS = f"{ACCT}:group:joiners:policies"


@cache
def escalations() -> dict[tuple[str, str], dict]:
    doc, _ = build_document(read_sources([chain_dir()]), sensitivity=SENSITIVITY)
    return {(e.source, e.target): e.properties for e in doc.edges if e.type.value == "CAN_ESCALATE"}


@pytest.fixture(scope="module")
def services(remote_store, tmp_path_factory):
    path = tmp_path_factory.mktemp("chains") / "sensitivity.json"
    path.write_text(json.dumps(SENSITIVITY))
    view = remote_store.for_graph(f"chain_{uuid.uuid4().hex[:10]}")
    import_aws(view, [chain_dir()], sensitivity_file=path)
    yield build_services(view)
    for name in (view.settings.graph, view.settings.audit_graph):
        if view.graph_exists(name):
            view.command("GRAPH.DELETE", name)


def _path(services, user: str) -> list[str]:
    result = services.tools.find_shortest_access_path(f"{ACCT}:user:{user}", VAULT, 6)
    assert result.status is Status.PATHS_FOUND, (user, result.status)
    return [n.id for n in result.paths[0].nodes]


@pytest.mark.parametrize(
    ("user", "first", "call", "gained"),
    [
        # the shape: take a provisioning role over, which may attach a policy to any user
        (
            "ch-trust-attach",
            ("update_assume_role_policy", role_node("provisioning")),
            (role_node("provisioning"), "attach_user_policy", ["iam:AttachUserPolicy"]),
            ADMIN,
        ),
        # a role the user may assume, which may write an inline policy into any user
        ("ch-assume-put", None, (role_node("writer"), "put_user_policy", ["iam:PutUserPolicy"]), ADMIN),
        # a role taken over that may attach a policy to the user's group
        (
            "ch-group-attach",
            ("update_assume_role_policy", role_node("group-attacher")),
            (role_node("group-attacher"), "attach_group_policy", ["iam:AttachGroupPolicy"]),
            ADMIN,
        ),
        # a role assumed that may write a policy into the user's group
        ("ch-group-put", None, (role_node("group-writer"), "put_group_policy", ["iam:PutGroupPolicy"]), ADMIN),
        # a role assumed that may add any user to a group: the user adds itself
        ("ch-add", None, (role_node("joiner"), "add_user_to_group", ["iam:AddUserToGroup"]), READERS),
        # another user, whose access key the user makes, may attach a policy to the user
        (
            "ch-key",
            ("create_access_key", user_node("helper")),
            (user_node("helper"), "attach_user_policy", ["iam:AttachUserPolicy"]),
            ADMIN,
        ),
        # ... whose console password the user sets (it has none) and who may write a policy into the user
        (
            "ch-login",
            ("create_login_profile", user_node("helper-nopass")),
            (user_node("helper-nopass"), "put_user_policy", ["iam:PutUserPolicy"]),
            ADMIN,
        ),
        # ... whose console password the user changes (it has one)
        (
            "ch-login-update",
            ("update_login_profile", user_node("helper-pass")),
            (user_node("helper-pass"), "attach_user_policy", ["iam:AttachUserPolicy"]),
            ADMIN,
        ),
    ],
)
def test_two_steps(services, user, first, call, gained):
    """The first step is the plain relationship (an escalation to the held principal, or CAN_ASSUME); the
    second links the user itself to what the held principal's change gives it, naming the method, its
    actions and the principal that makes the call (`via`); the path reaches the vault through it."""
    edges = escalations()
    if first is not None:
        assert edges[(user_node(user), first[1])]["method"] == first[0]
    chain = edges[(user_node(user), gained)]
    via, method, actions = call
    assert (chain["method"], chain["actions"], chain["via"]) == (method, actions, via)
    assert chain["permission"] == "allow" and not chain.get("conditional")
    assert _path(services, user) == [*head(user), gained, VAULT]


def test_three_steps_through_another_user_and_a_role(services):
    """ch-three-user makes an access key for hop-user (step 1), who may take the provisioning role over
    (step 2); the role may attach a policy to any user, ch-three-user included (step 3)."""
    edges = escalations()
    assert edges[(user_node("ch-three-user"), user_node("hop-user"))]["method"] == "create_access_key"
    assert edges[(user_node("hop-user"), role_node("provisioning"))]["method"] == "update_assume_role_policy"
    chain = edges[(user_node("ch-three-user"), ADMIN)]
    assert (chain["method"], chain["via"]) == ("attach_user_policy", role_node("provisioning"))
    assert _path(services, "ch-three-user") == [*head("ch-three-user"), ADMIN, VAULT]


def test_three_steps_through_a_role_and_a_group(services):
    """ch-three-group assumes joiner-of-joiners (step 1), which adds it to `joiners` (step 2); the group's
    policies let a member attach a policy to any user, itself included (step 3): what is gained escalates too."""
    edges = escalations()
    joined = edges[(user_node("ch-three-group"), JOINERS)]
    assert (joined["method"], joined["via"]) == ("add_user_to_group", role_node("joiner-of-joiners"))
    chain = edges[(user_node("ch-three-group"), ADMIN)]
    assert (chain["method"], chain["via"]) == ("attach_user_policy", JOINERS)
    assert _path(services, "ch-three-group") == [*head("ch-three-group"), ADMIN, VAULT]


@pytest.mark.parametrize("user", ["cc-narrow", "cc-helper-other"])
def test_a_held_principal_that_changes_someone_else_gives_nothing(services, user):
    """cc-narrow assumes a role that may attach a policy to another user only; cc-helper-other makes an access
    key for helper-pass, who may change ch-login-update only, a user cc-helper-other does not hold. Neither
    gains anything: the answer is a real no path (the user exists)."""
    assert not [t for (s, t) in escalations() if s == user_node(user) and t.startswith(f"{ACCT}:admin")]
    result = services.tools.find_shortest_access_path(f"{ACCT}:user:{user}", VAULT, 6)
    assert result.status is Status.NO_PATH


@pytest.mark.parametrize("role", ["provisioning", "writer", "group-attacher", "joiner", "narrow"])
def test_a_role_that_changes_others_gains_nothing_by_itself(role):
    """A role may change users or groups, but it is none of them: on its own it gains nothing (the gain
    goes to whoever holds both it and the principal it changes)."""
    assert not [t for (s, t) in escalations() if s == role_node(role)]


def test_what_is_gained_is_written_once_per_holder():
    """One relationship per (holder, gain): hop-user and ch-three-user each hold the provisioning role, and each
    gets its own; the administrator node and the groups' policies are nodes of the document."""
    edges = escalations()
    holders = sorted(s for (s, t), p in edges.items() if t == ADMIN and p.get("via") == role_node("provisioning"))
    assert holders == sorted(user_node(u) for u in ("ch-trust-attach", "hop-user", "ch-three-user"))


# ---------------------------------------------------------------- conditions the method decides

PASSED_TO_SERVICE = (
    "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_iam-condition-keys.html#ck_PassedToService"
)


def _edge(user: str, target: str) -> dict | None:
    return escalations().get((user_node(user), target))


def test_passed_to_service_another_service_is_no_path(services):
    """PassRole allowed only when the role is passed to ECS, and the only compute permission is Lambda's:
    CreateFunction passes the role to lambda.amazonaws.com (iam:PassedToService, PASSED_TO_SERVICE above),
    so the Condition is false and there is no escalation, a real no path."""
    assert _edge("k-passed-ecs", role_node("vault-lambda")) is None
    result = services.tools.find_shortest_access_path(f"{ACCT}:user:k-passed-ecs", VAULT, 6)
    assert result.status is Status.NO_PATH


def test_passed_to_service_the_methods_service_is_decided(services):
    """The same Condition naming lambda.amazonaws.com holds for the Lambda method: the escalation is
    unconditional, its reason says why, and the path reaches the vault through the role."""
    edge = _edge("k-passed-lambda", role_node("vault-lambda"))
    assert edge["method"] == "pass_role_lambda_invoke" and not edge.get("conditional")
    assert edge["reason"] == "iam:PassedToService decided by the method: the role is passed to lambda.amazonaws.com"
    assert _path(services, "k-passed-lambda") == [*head("k-passed-lambda"), role_node("vault-lambda"), VAULT]


def test_a_key_the_method_does_not_decide_stays_named():
    """With MFA also required, only aws:MultiFactorAuthPresent is left open (the snapshot cannot know it)."""
    edge = _edge("k-passed-mfa", role_node("vault-lambda"))
    assert edge["conditional"] is True and edge["condition_keys"] == ["aws:MultiFactorAuthPresent"]


def test_source_ip_limited_to_private_ranges_never_allows(services):
    """AttachUserPolicy on itself allowed only from 10.20.0.0/16 or 172.16.0.0/12: aws:SourceIp is the
    requester's public address and is absent through a VPC endpoint ("AWS global condition context keys",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-sourceip),
    so the Allow never applies: no escalation, a real no path."""
    assert _edge("k-ip-private", ADMIN) is None
    result = services.tools.find_shortest_access_path(f"{ACCT}:user:k-ip-private", VAULT, 6)
    assert result.status is Status.NO_PATH


def test_source_ip_on_public_ranges_stays_conditional():
    """A public range may hold for some caller: the relationship stays conditional, naming aws:SourceIp."""
    edge = _edge("k-ip-public", ADMIN)
    assert edge["conditional"] is True and edge["condition_keys"] == ["aws:SourceIp"]
    assert "reason" not in edge


def test_a_deny_limited_to_private_ranges_never_applies():
    """A Deny of iam:* from private ranges never applies for the same reason (same page): the Allow stands,
    unconditional, and the reason names the key."""
    edge = _edge("k-ip-deny-private", ADMIN)
    assert not edge.get("conditional")
    assert edge["reason"].startswith("aws:SourceIp decided: a test of private ranges never holds")


def test_policy_arn_allowing_administrator_access_is_decided():
    """AttachUserPolicy allowed only for AdministratorAccess (iam:PolicyARN,
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_iam-condition-keys.html#ck_PolicyARN):
    the method attaches that policy, so the escalation to administrator-equivalent access holds."""
    edge = _edge("k-policy-admin", ADMIN)
    assert not edge.get("conditional")
    assert edge["reason"] == (
        "iam:PolicyARN decided by the method: it attaches arn:aws:iam::aws:policy/AdministratorAccess"
    )


def test_policy_arn_naming_another_policy_stays_open():
    """AttachUserPolicy allowed only for ReadOnlyAccess: attaching administrator access is not allowed, but
    what the allowed policy gives is not guessed: the relationship stays conditional, naming iam:PolicyARN."""
    edge = _edge("k-policy-other", ADMIN)
    assert edge["conditional"] is True and edge["condition_keys"] == ["iam:PolicyARN"]


def test_generate_aws_plants_chains_the_import_follows(tmp_path):
    """`generate-aws --escalations N` plants one chain in ten (a role taken over, another user's key, both, a
    group the role adds the user to): the import links each chain's user to what it gains through the
    principal it holds (`via`), and each chain's other parts are policies named chain-K."""
    from blastshield_core.sources.aws.synthetic.generate import AwsGenerateOptions, write_aws_collection

    write_aws_collection(
        AwsGenerateOptions(users=200, roles=60, policies=80, buckets=20, escalations=80, seed=3), tmp_path
    )
    gaad = json.loads((tmp_path / "iam-get-account-authorization-details.json").read_text())
    chains = {
        policy["PolicyName"]
        for entry in gaad["UserDetailList"] + gaad["RoleDetailList"]
        for policy in entry.get("UserPolicyList", entry.get("RolePolicyList", []))
        if policy["PolicyName"].startswith("chain-")
    }
    assert chains == {f"chain-{k}" for k in range(6, 80, 10)}
    doc, _ = build_document(read_sources([tmp_path]))
    via = [e for e in doc.edges if e.type.value == "CAN_ESCALATE" and e.properties.get("via")]
    # (a chain's user that already reaches administrator-equivalent access another way gets no link: covered)
    assert len({e.source for e in via}) >= 3
    assert {e.properties["method"] for e in via} >= {"attach_user_policy", "put_user_policy", "add_user_to_group"}
