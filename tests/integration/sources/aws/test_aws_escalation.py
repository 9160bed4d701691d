"""Privilege escalation in the AWS import, against a real FalkorDB: each method of the catalogue
gives the path written here by hand, each control gives no path, and containment still works.

The account is built with boto3 against moto (tests/helpers/aws_escalation_bundle.py). References are
Rhino Security Labs' "AWS IAM Privilege Escalation - Methods and Mitigation"
(https://rhinosecuritylabs.com/aws/aws-privilege-escalation-methods-mitigation/, "Rhino"
below), AWS's IAM API reference (https://docs.aws.amazon.com/IAM/latest/APIReference/) and
AWS's "Granting a user permissions to pass a role to an AWS service"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_passrole.html).
"""

from __future__ import annotations

import json
import uuid

import pytest

from blastshield_core import Status, build_services
from blastshield_core.respond.decide import RulesDecider
from blastshield_core.results import RunState
from blastshield_core.sources.aws import build_document, import_aws, read_sources
from blastshield_core.sources.aws.escalation.catalogue import METHODS
from tests.helpers.aws_escalation_bundle import (
    ACCT,
    ADMIN,
    SENSITIVITY,
    VAULT,
    escalation_dir,
    head,
    role_node,
    user_node,
)

ALERT = "gd:5ab6d0aa2c9f3e0f1a2b3c4d5e6f7a8b"  # a GuardDuty finding on e-access-key


def _graph(remote_store, sensitivity_path):
    view = remote_store.for_graph(f"esc_{uuid.uuid4().hex[:10]}")
    import_aws(view, [escalation_dir()], sensitivity_file=sensitivity_path)
    return view


def _drop(view) -> None:
    for name in (view.settings.graph, view.settings.audit_graph):
        if view.graph_exists(name):
            view.command("GRAPH.DELETE", name)


@pytest.fixture(scope="module")
def sensitivity_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("esc") / "sensitivity.json"
    path.write_text(json.dumps(SENSITIVITY))
    return path


@pytest.fixture(scope="module")
def services(remote_store, sensitivity_path):
    """The account imported once (read-only tests share it)."""
    view = _graph(remote_store, sensitivity_path)
    yield build_services(view)
    _drop(view)


def shortest(services, user: str):
    return services.tools.find_shortest_access_path(f"{ACCT}:user:{user}", VAULT, 6)


def _check(services, user: str, gained: list[str], method: str, actions: list[str]) -> None:
    result = shortest(services, user)
    assert result.status is Status.PATHS_FOUND, (user, result.status)
    path = result.paths[0]
    assert [n.id for n in path.nodes] == head(user) + gained + [VAULT]
    escalations = [r for r in path.relationships if r.type == "CAN_ESCALATE"]
    assert len(escalations) == 1
    assert escalations[0].properties["method"] == method
    assert escalations[0].properties["actions"] == actions
    assert path.relationships[-1].type == "CAN_READ"


@pytest.mark.parametrize(
    ("user", "gained", "method", "actions"),
    [
        ("e-attach-user", [ADMIN], "attach_user_policy", ["iam:AttachUserPolicy"]),
        ("e-put-user", [ADMIN], "put_user_policy", ["iam:PutUserPolicy"]),
        ("e-attach-group", [ADMIN], "attach_group_policy", ["iam:AttachGroupPolicy"]),
        ("e-put-group", [ADMIN], "put_group_policy", ["iam:PutGroupPolicy"]),
        ("e-add-to-group", [f"{ACCT}:group:vault-readers:policies"], "add_user_to_group", ["iam:AddUserToGroup"]),
        ("e-policy-version", [ADMIN], "create_policy_version", ["iam:CreatePolicyVersion"]),
        (
            "e-default-version",
            [f"{user_node('e-default-version')}:two-versions:v2"],
            "set_default_policy_version",
            ["iam:SetDefaultPolicyVersion"],
        ),
        (
            "e-delete-boundary",
            [f"{user_node('e-delete-boundary')}:unbounded"],
            "delete_user_permissions_boundary",
            ["iam:DeleteUserPermissionsBoundary"],
        ),
        (
            "e-put-boundary",
            [f"{user_node('e-put-boundary')}:unbounded"],
            "put_user_permissions_boundary",
            ["iam:PutUserPermissionsBoundary"],
        ),
        ("e-attach-role", [ADMIN], "attach_role_policy", ["iam:AttachRolePolicy", "sts:AssumeRole"]),
        ("e-put-role", [ADMIN], "put_role_policy", ["iam:PutRolePolicy", "sts:AssumeRole"]),
        (
            "e-role-boundary",
            [f"{role_node('bounded-role')}:unbounded"],
            "delete_role_permissions_boundary",
            ["iam:DeleteRolePermissionsBoundary", "sts:AssumeRole"],
        ),
    ],
)
def test_granting_itself_more(services, user, gained, method, actions):
    """Each self-grant method leads to what the identity can then do, and on to the vault.

    AttachUserPolicy: Rhino; PutUserPolicy: Rhino; AttachGroupPolicy: Rhino;
    PutGroupPolicy: Rhino; AddUserToGroup: Rhino (the group's policies apply to its members:
    https://docs.aws.amazon.com/IAM/latest/UserGuide/id_groups.html); CreatePolicyVersion: Rhino
    (`--set-as-default` at creation needs no SetDefaultPolicyVersion: API reference
    CreatePolicyVersion, SetAsDefault); SetDefaultPolicyVersion: Rhino (the non-default v2 reads
    the vault); Delete/PutUserPermissionsBoundary: the boundary limits the user's policies, so
    removing or replacing it frees them (https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_boundaries.html;
    the user's own policy reads the vault, its boundary `iam-only` does not allow it);
    AttachRolePolicy / PutRolePolicy with sts:AssumeRole on the role: Rhino;
    DeleteRolePermissionsBoundary: as for users, on a role the identity may assume.
    """
    _check(services, user, gained, method, actions)


def test_a_role_granting_itself_more(services):
    """A role with iam:AttachRolePolicy on itself (Rhino) gains administrator-equivalent access;
    a user who may assume the role reaches the vault through it."""
    result = shortest(services, "e-role-self")
    assert [n.id for n in result.paths[0].nodes] == [*head("e-role-self"), role_node("self-attacher"), ADMIN, VAULT]
    assert [r.type for r in result.paths[0].relationships][-3:] == ["CAN_ASSUME", "CAN_ESCALATE", "CAN_READ"]


@pytest.mark.parametrize(
    ("user", "gained", "method", "actions"),
    [
        ("e-access-key", [user_node("reader")], "create_access_key", ["iam:CreateAccessKey"]),
        ("e-login-create", [user_node("reader-nopass")], "create_login_profile", ["iam:CreateLoginProfile"]),
        ("e-login-update", [user_node("reader")], "update_login_profile", ["iam:UpdateLoginProfile"]),
        (
            "e-trust",
            [role_node("vault-plain")],
            "update_assume_role_policy",
            ["iam:UpdateAssumeRolePolicy", "sts:AssumeRole"],
        ),
    ],
)
def test_becoming_another_principal(services, user, gained, method, actions):
    """Each method leads to the other principal's node, which reads the vault.

    CreateAccessKey: Rhino (at most two access keys per user: IAM quotas,
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html); CreateLoginProfile:
    Rhino (only for a user without a console password: API reference CreateLoginProfile,
    EntityAlreadyExists); UpdateLoginProfile: Rhino (only for a user with one:
    UpdateLoginProfile, NoSuchEntity); UpdateAssumeRolePolicy with sts:AssumeRole: Rhino.
    """
    _check(services, user, gained, method, actions)


@pytest.mark.parametrize(
    ("user", "role", "method", "extra"),
    [
        ("e-ec2", "vault-ec2", "pass_role_ec2", ["ec2:RunInstances"]),
        (
            "e-lambda-invoke",
            "vault-lambda",
            "pass_role_lambda_invoke",
            ["lambda:CreateFunction", "lambda:InvokeFunction"],
        ),
        (
            "e-lambda-esm",
            "vault-lambda",
            "pass_role_lambda_event_source",
            ["lambda:CreateFunction", "lambda:CreateEventSourceMapping"],
        ),
        ("e-cfn", "vault-cfn", "pass_role_cloudformation", ["cloudformation:CreateStack"]),
        ("e-glue", "vault-glue", "pass_role_glue", ["glue:CreateDevEndpoint"]),
        ("e-ecs", "vault-ecs", "pass_role_ecs", ["ecs:RunTask"]),
        ("e-codebuild", "vault-codebuild", "pass_role_codebuild", ["codebuild:CreateProject", "codebuild:StartBuild"]),
    ],
)
def test_passing_a_role_to_compute(services, user, role, method, extra):
    """iam:PassRole on a role the service may assume, plus the call that starts the compute, leads to the role.

    EC2 RunInstances with an instance profile: Rhino; Lambda CreateFunction + InvokeFunction:
    Rhino; + CreateEventSourceMapping: Rhino; CloudFormation CreateStack: Rhino; Glue
    CreateDevEndpoint: Rhino (Glue); ECS RunTask and CodeBuild CreateProject + StartBuild:
    AWS's PassRole page (a role passed to a service must trust that service's principal).
    """
    _check(services, user, [role_node(role)], method, ["iam:PassRole", *extra])


def test_updating_the_code_of_a_function_that_runs_as_a_role(services):
    """A role with lambda:UpdateFunctionCode on a function gains the function's role (Rhino);
    a user who may assume that role reaches the vault through it."""
    result = shortest(services, "e-update-code")
    path = result.paths[0]
    assert [n.id for n in path.nodes] == [
        *head("e-update-code"),
        role_node("updater"),
        role_node("vault-fn-role"),
        VAULT,
    ]
    assert path.relationships[-2].type == "CAN_ESCALATE"
    assert path.relationships[-2].properties["method"] == "lambda_update_code"


def test_a_condition_makes_the_escalation_conditional(services):
    """AttachUserPolicy allowed only with MFA: the relationship is conditional and names the key
    (conditions are never evaluated: AWS "Policy evaluation logic")."""
    path = shortest(services, "e-conditional").paths[0]
    (edge,) = [r for r in path.relationships if r.type == "CAN_ESCALATE"]
    assert edge.properties["conditional"] is True
    assert edge.properties["condition_keys"] == ["aws:MultiFactorAuthPresent"]


@pytest.mark.parametrize(
    "user",
    ["c-boundary", "c-deny", "c-no-service", "c-read-only", "c-full-keys"],
)
def test_controls_gain_no_path(services, user):
    """Controls: a boundary that does not allow iam:AttachUserPolicy (AWS "Permissions boundaries":
    the effective permissions are the intersection); an explicit Deny of iam:CreateAccessKey
    ("Policy evaluation logic": an explicit deny overrides any allow); iam:PassRole on a role no
    service may assume (PassRole page: the service must be trusted); read-only iam:List*/Get*;
    CreateAccessKey on a user who already holds two keys (IAM quotas). The user exists and its
    answer is a real no path, not an unknown entity."""
    result = shortest(services, user)
    assert result.status is Status.NO_PATH
    assert not [
        e
        for e in build_document(read_sources([escalation_dir()]), sensitivity=SENSITIVITY)[0].edges
        if e.type.value == "CAN_ESCALATE" and e.source == user_node(user)
    ]


def test_every_method_of_the_catalogue_has_a_case_here():
    """The catalogue and the cases above name the same methods (a new method needs its case)."""
    cases = {
        "attach_user_policy", "put_user_policy", "attach_group_policy", "put_group_policy", "add_user_to_group",
        "create_policy_version", "set_default_policy_version", "delete_user_permissions_boundary",
        "put_user_permissions_boundary", "attach_role_policy", "put_role_policy", "delete_role_permissions_boundary",
        "create_access_key", "create_login_profile", "update_login_profile", "update_assume_role_policy",
        "pass_role_ec2", "pass_role_lambda_invoke", "pass_role_lambda_event_source", "pass_role_cloudformation",
        "pass_role_glue", "pass_role_ecs", "pass_role_codebuild", "lambda_update_code",
    }  # fmt: skip
    assert {m.name for m in METHODS} == cases


def test_the_built_document_validates_through_the_model():
    """The escalation relationships and gained nodes pass the graph model's checks (endpoints, properties)."""
    from blastshield_core.graph.model import GraphDocument

    doc, _ = build_document(read_sources([escalation_dir()]), sensitivity=SENSITIVITY)
    again = GraphDocument.model_validate(doc.as_data())
    assert sum(1 for e in again.edges if e.type.value == "CAN_ESCALATE") == 26


def test_containing_an_escalating_user_leaves_no_path(remote_store, sensitivity_path):
    """An alert on e-access-key: its path runs through CreateAccessKey to reader; the rules decider
    blocks its credential route and the fresh answer is no_path."""
    view = _graph(remote_store, sensitivity_path)
    try:
        services = build_services(view)
        before = services.tools.investigate_alert(ALERT)
        assert before.status is Status.PATHS_FOUND
        assert any(r.type == "CAN_ESCALATE" for p in before.paths for r in p.relationships)
        run = services.controller.run(ALERT, RulesDecider(), 3, True)
        assert run.state is RunState.COMPLETED
        assert [a.route_id for a in run.actions] == [f"{ACCT}:user:e-access-key:access-key-1"]
        assert services.tools.investigate_alert(ALERT).status is Status.NO_PATH
    finally:
        _drop(view)


def test_the_fallback_briefing_names_the_method_and_passes_its_checker(services):
    """The deterministic briefing of the alert on e-access-key names CAN_ESCALATE and its method, and
    the briefing checker, which knows the type, flags nothing in it."""
    from blastshield_core.brief.checker import check_text

    briefer = services.briefer
    evidence = briefer.evidence(ALERT)
    assert "CAN_ESCALATE" in evidence.relationship_types
    briefing = briefer.fallback(evidence, "no model key")
    assert "-[CAN_ESCALATE]->" in briefing.markdown
    assert "(escalation method create_access_key)" in briefing.markdown
    assert check_text(briefing.markdown, evidence, services.tools) == []


def test_the_path_graph_and_table_show_the_escalation(services):
    """The drawing gives an escalation its own dash pattern, its method as label and on hover;
    the path table names the method."""
    from pages._graphview import ESCALATION_DASHES, build, path_rows

    path = shortest(services, "e-ec2").paths[0]
    _, edges = build(path.nodes, path.relationships, None, path.nodes[0].id, None)
    (drawn,) = [e for e in edges if e.to_dict()["rel_type"] == "CAN_ESCALATE"]
    shown = drawn.to_dict()
    assert shown["dashes"] == ESCALATION_DASHES
    assert "escalation: pass_role_ec2" in shown["label"]
    assert shown["title"].startswith("privilege escalation by pass_role_ec2")
    plain = [e.to_dict() for e in edges if e.to_dict()["rel_type"] == "CAN_READ"]
    assert plain and "dashes" not in plain[0]
    assert "[CAN_ESCALATE: pass_role_ec2]" in path_rows([path])[0]["path"]


def test_generate_aws_plants_escalations_of_mixed_methods_and_controls(tmp_path):
    """`generate-aws --escalations N` writes N escalation policies; the import finds escalations of
    many methods in them, and some planted with a control; without the option the files are unchanged."""
    from blastshield_core.sources.aws.synthetic.generate import AwsGenerateOptions, generate_aws, write_aws_collection

    base = {"users": 200, "roles": 60, "policies": 80, "buckets": 20, "seed": 3}
    assert generate_aws(AwsGenerateOptions(**base)) == generate_aws(AwsGenerateOptions(**base, escalations=0))
    report = write_aws_collection(AwsGenerateOptions(**base, escalations=60), tmp_path)
    assert report.counts["escalations"] == 60
    gaad = json.loads((tmp_path / "iam-get-account-authorization-details.json").read_text())
    planted = [
        policy["PolicyDocument"]["Statement"]
        for entry in gaad["UserDetailList"] + gaad["RoleDetailList"]
        for policy in entry.get("UserPolicyList", entry.get("RolePolicyList", []))
        if policy["PolicyName"].startswith("escalation-")
    ]
    assert any(s["Effect"] == "Deny" for statements in planted for s in statements)
    assert any(statements[0]["Action"] == ["iam:List*", "iam:Get*"] for statements in planted)
    doc, _ = build_document(read_sources([tmp_path]))
    methods = {e.properties["method"] for e in doc.edges if e.type.value == "CAN_ESCALATE"}
    assert {"create_access_key", "attach_user_policy", "pass_role_ec2", "update_assume_role_policy"} <= methods
    assert len(methods) >= 10


# ---------------------------------------------------------------- across accounts

OTHER = "210987654321"
OTHER_VAULT = f"{OTHER}:bucket:other-vault"


def _cross_account_dirs(root):
    """Two accounts built with boto3 against moto. In ACCT: `x-attach` may attach any policy to itself
    (and nothing else); `x-named` and the role `x-named-role` (which only EC2 may assume) may assume one
    role each in OTHER. In OTHER:
    `trusts-user` trusts the user `x-named` of ACCT alone, `trusts-role` the role `x-named-role` alone;
    both read the critical bucket `other-vault`."""
    from moto import mock_aws

    from tests.helpers.aws_bundle import _plain, _session, allow, doc, trust

    def dump(folder, session, buckets=False):
        iam = session.client("iam")
        gaad = iam.get_account_authorization_details()
        gaad.pop("ResponseMetadata", None)
        iam.generate_credential_report()
        report = iam.get_credential_report()
        folder.mkdir()
        (folder / "gaad.json").write_text(json.dumps(_plain(gaad)))
        (folder / "report.json").write_text(
            json.dumps(
                {"Content": report["Content"].decode(), "ReportFormat": "text/csv", "GeneratedTime": "2026-01-01"}
            )
        )
        if buckets:
            listed = session.client("s3").list_buckets()
            listed.pop("ResponseMetadata", None)
            (folder / "buckets.json").write_text(json.dumps(_plain(listed)))

    def role_in(account, name):
        return f"arn:aws:iam::{account}:role/{name}"

    with mock_aws():
        one = _session(ACCT)
        iam = one.client("iam")
        iam.create_user(UserName="x-attach")
        iam.put_user_policy(
            UserName="x-attach",
            PolicyName="self",
            PolicyDocument=doc(allow("iam:AttachUserPolicy", f"arn:aws:iam::{ACCT}:user/x-attach")),
        )
        iam.create_access_key(UserName="x-attach")
        iam.create_user(UserName="x-named")
        iam.put_user_policy(
            UserName="x-named",
            PolicyName="hop",
            PolicyDocument=doc(allow("sts:AssumeRole", role_in(OTHER, "trusts-user"))),
        )
        iam.create_role(RoleName="x-named-role", AssumeRolePolicyDocument=trust({"Service": "ec2.amazonaws.com"}))
        iam.put_role_policy(
            RoleName="x-named-role",
            PolicyName="hop",
            PolicyDocument=doc(allow("sts:AssumeRole", role_in(OTHER, "trusts-role"))),
        )
        dump(root / "one", one)
        other = _session(OTHER)
        iam = other.client("iam")
        read = doc(allow("s3:GetObject", "arn:aws:s3:::other-vault/*"))
        for name, trusted in (("trusts-user", "user/x-named"), ("trusts-role", "role/x-named-role")):
            iam.create_role(RoleName=name, AssumeRolePolicyDocument=trust({"AWS": f"arn:aws:iam::{ACCT}:{trusted}"}))
            iam.put_role_policy(RoleName=name, PolicyName="read", PolicyDocument=read)
        other.client("s3").create_bucket(Bucket="other-vault")
        dump(root / "other", other, buckets=True)
    return [root / "one", root / "other"]


@pytest.fixture(scope="module")
def cross_services(remote_store, tmp_path_factory):
    root = tmp_path_factory.mktemp("cross")
    sensitivity = root / "sensitivity.json"
    sensitivity.write_text(json.dumps({"arn:aws:s3:::other-vault": "critical"}))
    view = remote_store.for_graph(f"esc_{uuid.uuid4().hex[:10]}")
    import_aws(view, _cross_account_dirs(root), sensitivity_file=sensitivity)
    yield build_services(view)
    _drop(view)


@pytest.mark.parametrize(
    ("named", "method", "trusting"),
    [
        (user_node("x-named"), "create_access_key", "trusts-user"),
        (role_node("x-named-role"), "update_assume_role_policy", "trusts-role"),
    ],
)
def test_administrator_access_acts_as_a_principal_another_account_trusts_by_name(
    cross_services, named, method, trusting
):
    """x-attach may attach any policy to itself (Rhino: AttachUserPolicy), so it gains administrator-equivalent
    access in its account and no other escalation. A role of another account trusting one named user or role
    of this account alone ("AWS JSON policy elements: Principal": a specific IAM user or role ARN; a role
    trusting another account also needs the caller's own sts:AssumeRole, "IAM tutorial: Delegate access
    across AWS accounts using IAM roles") is still reached: an administrator may create access keys for any
    user (IAM API reference, CreateAccessKey) or rewrite any role's trust policy and assume it
    (UpdateAssumeRolePolicy), so the administrator node acts as the named principal."""
    # from the user's policies (its identity, credential and API calls come first: three more hops)
    result = cross_services.tools.find_shortest_access_path(user_node("x-attach"), OTHER_VAULT, 6)
    assert result.status is Status.PATHS_FOUND
    paths = [[n.id for n in p.nodes] for p in result.paths]
    expected = [user_node("x-attach"), ADMIN, named, f"{OTHER}:role:{trusting}", OTHER_VAULT]
    assert expected in paths
    (path,) = [p for p in result.paths if [n.id for n in p.nodes] == expected]
    kinds = [(r.type, r.properties.get("method")) for r in path.relationships]
    assert kinds == [
        ("CAN_ESCALATE", "attach_user_policy"),
        ("CAN_ESCALATE", method),
        ("CAN_ASSUME", None),
        ("CAN_READ", None),
    ]
