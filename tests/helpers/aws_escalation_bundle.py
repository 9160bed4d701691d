"""One AWS account (123456789012) built with boto3 against moto, holding one user per
privilege-escalation method and one per control, around a critical bucket `vault`.

Every `e-*` user can reach `vault` only by escalating; every `c-*` user holds the same kind of
permission but a control (a boundary, a Deny, no service trust, read-only IAM) stops it. The
bundle is written once per test process and removed at exit.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from functools import cache
from pathlib import Path

from tests.helpers.aws_bundle import _plain, allow, doc, finding_on_user, trust

ACCT = "123456789012"
REGION = "us-east-1"
VAULT = f"{ACCT}:bucket:vault"
ADMIN = f"{ACCT}:admin"
SENSITIVITY = {"arn:aws:s3:::vault": "critical"}
READ_VAULT = allow("s3:GetObject", "arn:aws:s3:::vault/*")
# users whose permissions boundary the export must carry (moto's GAAD leaves users' out)
USER_BOUNDARIES = {"e-delete-boundary": "iam-only", "e-put-boundary": "iam-only", "c-boundary": "list-only"}


def arn(kind: str, name: str) -> str:
    return f"arn:aws:iam::{ACCT}:{kind}/{name}"


def user_node(name: str) -> str:
    return f"{ACCT}:user:{name}:policies"


def role_node(name: str) -> str:
    return f"{ACCT}:role:{name}"


def head(name: str) -> list[str]:
    """The first nodes of every path from user `name`: identity, credential, API calls, its policies."""
    return [f"{ACCT}:user:{name}", f"{ACCT}:user:{name}:access-key-1", f"{ACCT}:user:{name}:api", user_node(name)]


def _user(iam, name, *statements, console=False, keys=1):
    iam.create_user(UserName=name)
    if statements:
        iam.put_user_policy(UserName=name, PolicyName=f"{name}-inline", PolicyDocument=doc(*statements))
    for _ in range(keys):
        iam.create_access_key(UserName=name)
    if console:
        iam.create_login_profile(UserName=name, Password="Secret-pass-1234")


def _role(iam, name, trust_doc, *statements, profile=False, boundary=None):
    kwargs = {"PermissionsBoundary": arn("policy", boundary)} if boundary else {}
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=trust_doc, **kwargs)
    if statements:
        iam.put_role_policy(RoleName=name, PolicyName=f"{name}-inline", PolicyDocument=doc(*statements))
    if profile:
        iam.create_instance_profile(InstanceProfileName=f"{name}-profile")
        iam.add_role_to_instance_profile(InstanceProfileName=f"{name}-profile", RoleName=name)


def _build(session) -> dict:
    iam = session.client("iam")
    root = {"AWS": f"arn:aws:iam::{ACCT}:root"}
    # policies
    iam.create_policy(PolicyName="iam-only", PolicyDocument=doc(allow("iam:*")))
    iam.create_policy(PolicyName="list-only", PolicyDocument=doc(allow("s3:ListBucket")))
    own = iam.create_policy(PolicyName="own-policy", PolicyDocument=doc(allow("s3:ListBucket")))["Policy"]["Arn"]
    versions = iam.create_policy(PolicyName="two-versions", PolicyDocument=doc(allow("s3:ListBucket")))
    versions = versions["Policy"]["Arn"]
    iam.create_policy_version(PolicyArn=versions, PolicyDocument=doc(READ_VAULT), SetAsDefault=False)
    # groups
    iam.create_group(GroupName="plain")
    iam.create_group(GroupName="vault-readers")
    iam.put_group_policy(GroupName="vault-readers", PolicyName="read", PolicyDocument=doc(READ_VAULT))
    # roles that read the vault
    services = {
        "ec2": "ec2.amazonaws.com",
        "lambda": "lambda.amazonaws.com",
        "cfn": "cloudformation.amazonaws.com",
        "glue": "glue.amazonaws.com",
        "ecs": "ecs-tasks.amazonaws.com",
        "codebuild": "codebuild.amazonaws.com",
    }
    for short, service in services.items():
        _role(iam, f"vault-{short}", trust({"Service": service}), READ_VAULT, profile=short == "ec2")
    _role(iam, "vault-plain", trust({"AWS": f"arn:aws:iam::{ACCT}:role/nobody-here"}), READ_VAULT)
    _role(iam, "vault-fn-role", trust({"Service": "lambda.amazonaws.com"}), READ_VAULT)
    # roles a user may act as (trust the account)
    _role(iam, "self-attacher", trust(root), allow("iam:AttachRolePolicy", arn("role", "self-attacher")))
    _role(iam, "updater", trust(root), allow("lambda:UpdateFunctionCode"))
    _role(iam, "plain-role", trust(root))
    _role(iam, "bounded-role", trust(root), READ_VAULT, boundary="iam-only")
    # the escalating users, one per method
    pass_role = lambda role: allow("iam:PassRole", arn("role", role))  # noqa: E731
    _user(iam, "e-attach-user", allow("iam:AttachUserPolicy", arn("user", "e-attach-user")))
    _user(iam, "e-put-user", allow("iam:PutUserPolicy", arn("user", "e-put-user")))
    _user(iam, "e-attach-group", allow("iam:AttachGroupPolicy", arn("group", "plain")))
    _user(iam, "e-put-group", allow("iam:PutGroupPolicy", arn("group", "plain")))
    for name in ("e-attach-group", "e-put-group"):
        iam.add_user_to_group(GroupName="plain", UserName=name)
    _user(iam, "e-add-to-group", allow("iam:AddUserToGroup", arn("group", "vault-readers")))
    _user(iam, "e-policy-version", allow("iam:CreatePolicyVersion", own))
    iam.attach_user_policy(UserName="e-policy-version", PolicyArn=own)
    _user(iam, "e-default-version", allow("iam:SetDefaultPolicyVersion", versions))
    iam.attach_user_policy(UserName="e-default-version", PolicyArn=versions)
    _user(
        iam,
        "e-delete-boundary",
        READ_VAULT,
        allow("iam:DeleteUserPermissionsBoundary", arn("user", "e-delete-boundary")),
    )
    _user(iam, "e-put-boundary", READ_VAULT, allow("iam:PutUserPermissionsBoundary", arn("user", "e-put-boundary")))
    _user(iam, "e-role-self", allow("sts:AssumeRole", arn("role", "self-attacher")))
    _user(iam, "e-attach-role", allow(["iam:AttachRolePolicy", "sts:AssumeRole"], arn("role", "plain-role")))
    _user(iam, "e-put-role", allow(["iam:PutRolePolicy", "sts:AssumeRole"], arn("role", "plain-role")))
    _user(
        iam,
        "e-role-boundary",
        allow(["iam:DeleteRolePermissionsBoundary", "sts:AssumeRole"], arn("role", "bounded-role")),
    )
    _user(iam, "reader", READ_VAULT, console=True)  # a user who reads the vault: the one others become
    _user(iam, "reader-nopass", READ_VAULT)
    _user(iam, "e-access-key", allow("iam:CreateAccessKey", arn("user", "reader")))
    _user(iam, "e-login-create", allow("iam:CreateLoginProfile", arn("user", "reader-nopass")))
    _user(iam, "e-login-update", allow("iam:UpdateLoginProfile", arn("user", "reader")))
    _user(iam, "e-trust", allow(["iam:UpdateAssumeRolePolicy", "sts:AssumeRole"], arn("role", "vault-plain")))
    _user(iam, "e-ec2", pass_role("vault-ec2"), allow("ec2:RunInstances"))
    _user(iam, "e-lambda-invoke", pass_role("vault-lambda"), allow(["lambda:CreateFunction", "lambda:InvokeFunction"]))
    _user(
        iam,
        "e-lambda-esm",
        pass_role("vault-lambda"),
        allow(["lambda:CreateFunction", "lambda:CreateEventSourceMapping"]),
    )
    _user(iam, "e-cfn", pass_role("vault-cfn"), allow("cloudformation:CreateStack"))
    _user(iam, "e-glue", pass_role("vault-glue"), allow("glue:CreateDevEndpoint"))
    _user(iam, "e-ecs", pass_role("vault-ecs"), allow("ecs:RunTask"))
    _user(iam, "e-codebuild", pass_role("vault-codebuild"), allow(["codebuild:CreateProject", "codebuild:StartBuild"]))
    _user(iam, "e-update-code", allow("sts:AssumeRole", arn("role", "updater")))
    _user(
        iam,
        "e-conditional",
        allow(
            "iam:AttachUserPolicy",
            arn("user", "e-conditional"),
            Condition={"Bool": {"aws:MultiFactorAuthPresent": "true"}},
        ),
    )
    # the controls
    _user(iam, "c-boundary", allow("iam:AttachUserPolicy", arn("user", "c-boundary")))
    _user(
        iam,
        "c-deny",
        allow("iam:CreateAccessKey"),
        {"Effect": "Deny", "Action": "iam:CreateAccessKey", "Resource": "*"},
    )
    _user(
        iam,
        "c-no-service",
        pass_role("vault-plain"),
        allow(
            [
                "ec2:RunInstances",
                "lambda:CreateFunction",
                "lambda:InvokeFunction",
                "lambda:CreateEventSourceMapping",
                "cloudformation:CreateStack",
                "glue:*",
                "ecs:RunTask",
                "codebuild:*",
            ]
        ),
    )
    _user(iam, "c-read-only", allow(["iam:List*", "iam:Get*"]))
    _user(iam, "c-full-keys", allow("iam:CreateAccessKey", arn("user", "reader-two-keys")))
    _user(iam, "reader-two-keys", READ_VAULT, keys=2)
    # the vault, and a function running as a role that reads it
    session.client("s3").create_bucket(Bucket="vault")
    session.client("lambda").create_function(
        FunctionName="vault-fn",
        Runtime="python3.12",
        Role=arn("role", "vault-fn-role"),
        Handler="x.handler",
        Code={"ZipFile": b"PK\x05\x06" + b"\x00" * 18},
    )
    return _collect(session)


def _collect(session) -> dict:
    iam = session.client("iam")
    gaad = iam.get_account_authorization_details()
    gaad.pop("ResponseMetadata", None)
    for user in gaad["UserDetailList"]:  # as AWS exports them (moto's GAAD leaves users' boundaries out)
        if user["UserName"] in USER_BOUNDARIES:
            user["PermissionsBoundary"] = {
                "PermissionsBoundaryType": "PermissionsBoundaryPolicy",
                "PermissionsBoundaryArn": arn("policy", USER_BOUNDARIES[user["UserName"]]),
            }
    for role in gaad["RoleDetailList"]:
        bound = iam.get_role(RoleName=role["RoleName"])["Role"].get("PermissionsBoundary")
        if bound:
            role["PermissionsBoundary"] = bound
    iam.generate_credential_report()
    report = iam.get_credential_report()
    out = {
        "gaad": _plain(gaad),
        "report": {"Content": report["Content"].decode(), "ReportFormat": "text/csv", "GeneratedTime": "2026-01-01"},
    }
    for key, call in (
        ("functions", lambda: session.client("lambda").list_functions()),
        ("buckets", lambda: session.client("s3").list_buckets()),
    ):
        data = call()
        data.pop("ResponseMetadata", None)
        out[key] = _plain(data)
    return out


@cache
def escalation_dir() -> Path:
    """Write the account's exports once (gaad, credential report, functions, buckets, a finding)."""
    import boto3
    from moto import mock_aws

    folder = Path(tempfile.mkdtemp(prefix="blastshield-esc-"))
    atexit.register(shutil.rmtree, folder, True)
    with mock_aws():
        session = boto3.Session(region_name=REGION, aws_access_key_id="AKIATESTING", aws_secret_access_key="x")
        data = _build(session)
    for key in ("gaad", "functions", "buckets"):
        (folder / f"{key}.json").write_text(json.dumps(data[key]))
    (folder / "report.json").write_text(json.dumps(data["report"]))
    (folder / "findings.json").write_text(json.dumps(finding_on_user(ACCT, "e-access-key")))
    return folder


# ---------------------------------------------------------------- chains (the fixpoint)

NOBODY = {"AWS": f"arn:aws:iam::{ACCT}:role/nobody-here"}  # a trust policy no principal of the account meets


def _build_chains(session) -> dict:
    """Each `ch-*` user reaches the vault only by a chain: it holds a principal (a role it may take over or
    assume, another user it may make credentials for) whose permissions change it (or its group); `cc-*`
    users hold such a principal that may change someone else only. Nothing here reads the vault but the
    group `vault-readers` and administrator-equivalent access."""
    iam = session.client("iam")
    root = {"AWS": f"arn:aws:iam::{ACCT}:root"}
    take_over = lambda role: allow(["iam:UpdateAssumeRolePolicy", "sts:AssumeRole"], arn("role", role))  # noqa: E731
    iam.create_group(GroupName="team")
    iam.create_group(GroupName="team-put")
    iam.create_group(GroupName="vault-readers")
    iam.put_group_policy(GroupName="vault-readers", PolicyName="read", PolicyDocument=doc(READ_VAULT))
    iam.create_group(GroupName="joiners")  # its members may attach any policy to any user
    iam.put_group_policy(
        GroupName="joiners", PolicyName="attach", PolicyDocument=doc(allow("iam:AttachUserPolicy", arn("user", "*")))
    )
    # roles that change others (none may change itself, and none trusts a user by name)
    _role(iam, "provisioning", doc({"Effect": "Allow", "Principal": NOBODY, "Action": "sts:AssumeRole"}),
          allow("iam:AttachUserPolicy", arn("user", "*")))  # fmt: skip
    _role(iam, "writer", trust(root), allow("iam:PutUserPolicy", arn("user", "*")))
    _role(iam, "group-attacher", trust(NOBODY), allow("iam:AttachGroupPolicy", arn("group", "team")))
    _role(iam, "group-writer", trust(root), allow("iam:PutGroupPolicy", arn("group", "team-put")))
    _role(iam, "joiner", trust(root), allow("iam:AddUserToGroup", arn("group", "vault-readers")))
    _role(iam, "joiner-of-joiners", trust(root), allow("iam:AddUserToGroup", arn("group", "joiners")))
    _role(iam, "narrow", trust(root), allow("iam:AttachUserPolicy", arn("user", "somebody-else")))
    # two steps: through a role taken over, a role assumed, a group, another user
    _user(iam, "ch-trust-attach", take_over("provisioning"))
    _user(iam, "ch-assume-put", allow("sts:AssumeRole", arn("role", "writer")))
    _user(iam, "ch-group-attach", take_over("group-attacher"))
    iam.add_user_to_group(GroupName="team", UserName="ch-group-attach")
    _user(iam, "ch-group-put", allow("sts:AssumeRole", arn("role", "group-writer")))
    iam.add_user_to_group(GroupName="team-put", UserName="ch-group-put")
    _user(iam, "ch-add", allow("sts:AssumeRole", arn("role", "joiner")))
    _user(iam, "helper", allow("iam:AttachUserPolicy", arn("user", "ch-key")))  # changes ch-key only
    _user(iam, "ch-key", allow("iam:CreateAccessKey", arn("user", "helper")))
    _user(iam, "helper-nopass", allow("iam:PutUserPolicy", arn("user", "ch-login")))
    _user(iam, "ch-login", allow("iam:CreateLoginProfile", arn("user", "helper-nopass")))
    _user(iam, "helper-pass", allow("iam:AttachUserPolicy", arn("user", "ch-login-update")), console=True)
    _user(iam, "ch-login-update", allow("iam:UpdateLoginProfile", arn("user", "helper-pass")))
    # three steps: another user, then a role it takes over, then that role changes the first user
    _user(iam, "hop-user", take_over("provisioning"))
    _user(iam, "ch-three-user", allow("iam:CreateAccessKey", arn("user", "hop-user")))
    # three steps: a role assumed, a group it adds the user to, whose policies let the user change itself
    _user(iam, "ch-three-group", allow("sts:AssumeRole", arn("role", "joiner-of-joiners")))
    # controls: the held principal changes someone else only; nothing is held
    _user(iam, "cc-narrow", allow("sts:AssumeRole", arn("role", "narrow")))
    _user(iam, "cc-helper-other", allow("iam:CreateAccessKey", arn("user", "helper-pass")))  # changes ch-login-update
    # conditions the method decides (k-*)
    _role(iam, "vault-lambda", trust({"Service": "lambda.amazonaws.com"}), READ_VAULT)
    lam = allow(["lambda:CreateFunction", "lambda:InvokeFunction"])
    passed = lambda service, **more: allow(  # noqa: E731
        "iam:PassRole",
        arn("role", "vault-lambda"),
        Condition={"StringEquals": {"iam:PassedToService": service}, **more},
    )
    _user(iam, "k-passed-ecs", passed("ecs-tasks.amazonaws.com"), lam)
    _user(iam, "k-passed-lambda", passed("lambda.amazonaws.com"), lam)
    _user(iam, "k-passed-mfa", passed("lambda.amazonaws.com", Bool={"aws:MultiFactorAuthPresent": "true"}), lam)
    attach_self = lambda name, condition: allow(  # noqa: E731
        "iam:AttachUserPolicy", arn("user", name), Condition=condition
    )
    private = {"IpAddress": {"aws:SourceIp": ["10.20.0.0/16", "172.16.0.0/12"]}}
    _user(iam, "k-ip-private", attach_self("k-ip-private", private))
    _user(iam, "k-ip-public", attach_self("k-ip-public", {"IpAddress": {"aws:SourceIp": "203.0.113.0/24"}}))
    _user(
        iam,
        "k-ip-deny-private",
        allow("iam:AttachUserPolicy", arn("user", "k-ip-deny-private")),
        {"Effect": "Deny", "Action": "iam:*", "Resource": "*", "Condition": private},
    )
    admin_only = {"ArnEquals": {"iam:PolicyARN": "arn:aws:iam::aws:policy/AdministratorAccess"}}
    _user(iam, "k-policy-admin", attach_self("k-policy-admin", admin_only))
    read_only = {"ArnEquals": {"iam:PolicyARN": "arn:aws:iam::aws:policy/ReadOnlyAccess"}}
    _user(iam, "k-policy-other", attach_self("k-policy-other", read_only))
    session.client("s3").create_bucket(Bucket="vault")
    return _collect(session)


@cache
def chain_dir() -> Path:
    """The chains' account (gaad, credential report, buckets), written once."""
    import boto3
    from moto import mock_aws

    folder = Path(tempfile.mkdtemp(prefix="blastshield-chain-"))
    atexit.register(shutil.rmtree, folder, True)
    with mock_aws():
        session = boto3.Session(region_name=REGION, aws_access_key_id="AKIATESTING", aws_secret_access_key="x")
        data = _build_chains(session)
    for key in ("gaad", "functions", "buckets"):
        (folder / f"{key}.json").write_text(json.dumps(data[key]))
    (folder / "report.json").write_text(json.dumps(data["report"]))
    return folder
