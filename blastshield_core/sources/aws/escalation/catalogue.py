"""The privilege-escalation catalogue, as data: one entry per method.

Each entry names the IAM actions it needs, each with the resource it is asked on, what must be
true of the target, and what the identity gains. `escalate.py` evaluates the entries with the
policy evaluator (Deny over Allow, boundaries, NotAction/NotResource, wildcards; a condition
makes the relationship conditional). The table, with a public reference per method, is in
docs/aws-import.md.

Resources (`Need.on`):
* `user`, `role`, `group`, `policy`: the target's ARN;
* `self`: the acting principal's own ARN (a user or a role);
* `function`: the ARN of a Lambda function (the target of `lambda_update_code`);
* `any`: a resource the action creates, asked as `*`-like ARNs of the principal's account
  (`new_arn` below).

Targets (`Method.target`):
* `self_user` / `self_role`: the acting principal itself;
* `own_group`: a group the acting user is in; `group`: any group of its account it is not in;
* `own_policy`: a customer managed policy attached to the acting principal (directly or by a group);
* `own_policy_versions`: the same, holding a non-default version that allows what the default does not;
* `other_user`: another user of the account; `role`: a role of the account;
* `assumable_role`: a role the acting principal may act as (itself, or one it may assume);
* `service_role`: a role whose trust policy lets `Method.service` assume it (and, with
  `needs_profile`, that has an instance profile);
* `function`: a Lambda function of the account that runs as a role.

Gains (`Method.gains`):
* `admin`: administrator-equivalent access in the account (within the principal's own boundary);
* `unbounded`: the principal's own policies without its permissions boundary;
* `target`: the target principal's permissions (a user's, a group's or a role's).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ESCALATION_ACTIONS", "METHODS", "Method", "Need", "new_arn"]


@dataclass(frozen=True)
class Need:
    """One IAM action a method needs, and the resource it is asked on."""

    action: str
    on: str  # user | role | group | policy | self | function | any


@dataclass(frozen=True)
class Method:
    name: str  # stable: stored on the relationship as `method`
    family: str  # self_grant | become_principal | pass_role
    needs: tuple[Need, ...]
    target: str
    gains: str  # admin | unbounded | target
    service: str = ""  # the service principal the role must trust (pass_role)
    needs_profile: bool = False
    reference: str = ""


_RHINO = "https://rhinosecuritylabs.com/aws/aws-privilege-escalation-methods-mitigation/"
_IAM = "https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsidentityandaccessmanagementiam.html"
_PASSROLE = "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_passrole.html"


def _n(*pairs: str) -> tuple[Need, ...]:
    return tuple(Need(action, on) for action, on in (p.split("@") for p in pairs))


METHODS: tuple[Method, ...] = (
    # -- granting itself more
    Method("attach_user_policy", "self_grant", _n("iam:AttachUserPolicy@self"), "self_user", "admin", reference=_RHINO),
    Method("put_user_policy", "self_grant", _n("iam:PutUserPolicy@self"), "self_user", "admin", reference=_RHINO),
    Method(
        "attach_group_policy", "self_grant", _n("iam:AttachGroupPolicy@group"), "own_group", "admin", reference=_RHINO
    ),
    Method("put_group_policy", "self_grant", _n("iam:PutGroupPolicy@group"), "own_group", "admin", reference=_RHINO),
    Method("add_user_to_group", "self_grant", _n("iam:AddUserToGroup@group"), "group", "target", reference=_RHINO),
    Method(
        "create_policy_version",
        "self_grant",
        _n("iam:CreatePolicyVersion@policy"),
        "own_policy",
        "admin",
        reference=_RHINO,
    ),
    Method(
        "set_default_policy_version",
        "self_grant",
        _n("iam:SetDefaultPolicyVersion@policy"),
        "own_policy_versions",
        "target",
        reference=_RHINO,
    ),
    Method(
        "delete_user_permissions_boundary",
        "self_grant",
        _n("iam:DeleteUserPermissionsBoundary@self"),
        "self_user",
        "unbounded",
        reference=_IAM,
    ),
    Method(
        "put_user_permissions_boundary",
        "self_grant",
        _n("iam:PutUserPermissionsBoundary@self"),
        "self_user",
        "unbounded",
        reference=_IAM,
    ),
    Method(
        "attach_role_policy", "self_grant", _n("iam:AttachRolePolicy@role"), "assumable_role", "admin", reference=_RHINO
    ),
    Method("put_role_policy", "self_grant", _n("iam:PutRolePolicy@role"), "assumable_role", "admin", reference=_RHINO),
    Method(
        "delete_role_permissions_boundary",
        "self_grant",
        _n("iam:DeleteRolePermissionsBoundary@role"),
        "assumable_role",
        "unbounded",
        reference=_IAM,
    ),
    # -- becoming another principal
    Method(
        "create_access_key",
        "become_principal",
        _n("iam:CreateAccessKey@user"),
        "other_user",
        "target",
        reference=_RHINO,
    ),
    Method(
        "create_login_profile",
        "become_principal",
        _n("iam:CreateLoginProfile@user"),
        "other_user",
        "target",
        reference=_RHINO,
    ),
    Method(
        "update_login_profile",
        "become_principal",
        _n("iam:UpdateLoginProfile@user"),
        "other_user",
        "target",
        reference=_RHINO,
    ),
    Method(
        "update_assume_role_policy",
        "become_principal",
        _n("iam:UpdateAssumeRolePolicy@role", "sts:AssumeRole@role"),
        "role",
        "target",
        reference=_RHINO,
    ),
    # -- passing a role to compute it controls
    Method(
        "pass_role_ec2",
        "pass_role",
        _n("iam:PassRole@role", "ec2:RunInstances@any"),
        "service_role",
        "target",
        service="ec2.amazonaws.com",
        needs_profile=True,
        reference=_RHINO,
    ),
    Method(
        "pass_role_lambda_invoke",
        "pass_role",
        _n("iam:PassRole@role", "lambda:CreateFunction@any", "lambda:InvokeFunction@any"),
        "service_role",
        "target",
        service="lambda.amazonaws.com",
        reference=_RHINO,
    ),
    Method(
        "pass_role_lambda_event_source",
        "pass_role",
        _n("iam:PassRole@role", "lambda:CreateFunction@any", "lambda:CreateEventSourceMapping@any"),
        "service_role",
        "target",
        service="lambda.amazonaws.com",
        reference=_RHINO,
    ),
    Method(
        "pass_role_cloudformation",
        "pass_role",
        _n("iam:PassRole@role", "cloudformation:CreateStack@any"),
        "service_role",
        "target",
        service="cloudformation.amazonaws.com",
        reference=_RHINO,
    ),
    Method(
        "pass_role_glue",
        "pass_role",
        _n("iam:PassRole@role", "glue:CreateDevEndpoint@any"),
        "service_role",
        "target",
        service="glue.amazonaws.com",
        reference=_RHINO,
    ),
    Method(
        "pass_role_ecs",
        "pass_role",
        _n("iam:PassRole@role", "ecs:RunTask@any"),
        "service_role",
        "target",
        service="ecs-tasks.amazonaws.com",
        reference=_PASSROLE,
    ),
    Method(
        "pass_role_codebuild",
        "pass_role",
        _n("iam:PassRole@role", "codebuild:CreateProject@any", "codebuild:StartBuild@any"),
        "service_role",
        "target",
        service="codebuild.amazonaws.com",
        reference=_PASSROLE,
    ),
    Method(
        "lambda_update_code",
        "pass_role",
        _n("lambda:UpdateFunctionCode@function"),
        "function",
        "target",
        reference=_RHINO,
    ),
)

# The resource an action that creates something is asked on, in the principal's account.
_NEW = {
    "ec2:RunInstances": "arn:aws:ec2:*:{account}:instance/*",
    "lambda:CreateFunction": "arn:aws:lambda:*:{account}:function:*",
    "lambda:InvokeFunction": "arn:aws:lambda:*:{account}:function:*",
    "lambda:CreateEventSourceMapping": "arn:aws:lambda:*:{account}:event-source-mapping:*",
    "cloudformation:CreateStack": "arn:aws:cloudformation:*:{account}:stack/*",
    "glue:CreateDevEndpoint": "arn:aws:glue:*:{account}:devEndpoint/*",
    "ecs:RunTask": "arn:aws:ecs:*:{account}:task-definition/*",
    "codebuild:CreateProject": "arn:aws:codebuild:*:{account}:project/*",
    "codebuild:StartBuild": "arn:aws:codebuild:*:{account}:project/*",
}


def new_arn(action: str, account: str) -> str:
    """The ARN an action that creates a resource is evaluated on (any name, in the account)."""
    return _NEW[action].format(account=account)


ESCALATION_ACTIONS: frozenset[str] = frozenset(need.action for m in METHODS for need in m.needs)
