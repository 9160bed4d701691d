"""Planted privilege escalations for the generated account (`generate-aws --escalations N`).

Each of N inline policies gives one principal (a user, one in five a role) the permissions
of one method of the catalogue on a named target, mixed over the methods; one in five is
planted with a control that must stop it (an explicit Deny of the same actions, a boundary
that denies `iam:*`, the read-only `iam:List*` / `iam:Get*` instead, or `iam:PassRole` on a
role no service may assume). Targets are named, as real grants mostly are, so the planted
permissions add a few relationships each, not a principal's square. One in ten is a chain back to
its user instead (`_chain`: through a role it may take over, another user it may make a key for,
both, or a group the role may add it to), the other principals' parts as `chain-K` policies.
"""

from __future__ import annotations

import random
from typing import Any

from .account import VERSION

_SERVICES = {
    "pass_role_ec2": ("ec2.amazonaws.com", ["ec2:RunInstances"]),
    "pass_role_lambda_invoke": ("lambda.amazonaws.com", ["lambda:CreateFunction", "lambda:InvokeFunction"]),
    "pass_role_lambda_event_source": (
        "lambda.amazonaws.com",
        ["lambda:CreateFunction", "lambda:CreateEventSourceMapping"],
    ),
    "pass_role_cloudformation": ("cloudformation.amazonaws.com", ["cloudformation:CreateStack"]),
    "pass_role_glue": ("glue.amazonaws.com", ["glue:CreateDevEndpoint"]),
    "pass_role_ecs": ("ecs-tasks.amazonaws.com", ["ecs:RunTask"]),
    "pass_role_codebuild": ("codebuild.amazonaws.com", ["codebuild:CreateProject", "codebuild:StartBuild"]),
}
_USER_METHODS = (
    "attach_user_policy",
    "put_user_policy",
    "attach_group_policy",
    "add_user_to_group",
    "create_policy_version",
    "create_access_key",
    "create_login_profile",
    "update_login_profile",
    "update_assume_role_policy",
    "attach_role_policy",
    *_SERVICES,
)
_CONTROLS = ("deny", "boundary", "read_only", "no_service")


def _trusts(role: dict[str, Any]) -> set[str]:
    out: set[str] = set()
    for stmt in (
        (role.get("AssumeRolePolicyDocument") or {}).get("Statement", [])
        if isinstance(role.get("AssumeRolePolicyDocument"), dict)
        else []
    ):
        services = (stmt.get("Principal") or {}).get("Service", []) if isinstance(stmt.get("Principal"), dict) else []
        out.update([services] if isinstance(services, str) else services)
    return out


def plant_escalations(gaad: dict[str, Any], count: int, seed: int, account: str, boundary: str | None) -> int:
    """Add `count` escalation policies to the GAAD's users and roles (in place); the number of controls."""
    users, roles, groups = gaad["UserDetailList"], gaad["RoleDetailList"], gaad["GroupDetailList"]
    if count <= 0 or not users or not roles:
        return 0
    rng = random.Random(f"escalations-{seed}")  # noqa: S311 - synthetic data, reproducible by seed
    by_service: dict[str, list[str]] = {}
    plain: list[str] = []
    for role in roles:
        trusted = _trusts(role)
        if not trusted:
            plain.append(role["Arn"])
        for service in trusted:
            if service != "ec2.amazonaws.com" or role.get("InstanceProfileList"):
                by_service.setdefault(service, []).append(role["Arn"])
    controls = 0
    for k in range(count):
        method = _USER_METHODS[k % len(_USER_METHODS)]
        control = _CONTROLS[(k // 5) % len(_CONTROLS)] if k % 5 == 4 else None
        as_role = k % 5 == 2 and method in ("attach_role_policy", *_SERVICES)
        holder = rng.choice(roles) if as_role else rng.choice(users)
        if k % 10 == 6:  # a chain in place of the method (never with a control: k % 5 == 1)
            statements = _chain(k, holder, rng=rng, users=users, roles=roles, groups=groups)
        else:
            statements = _grant(
                method, holder, rng=rng, users=users, roles=roles, groups=groups, by_service=by_service, account=account
            )
        if not statements:
            continue
        if control == "no_service":
            if method not in _SERVICES or not plain:
                control = "deny"
            else:
                statements[0]["Resource"] = rng.choice(plain)
        if control == "deny":
            statements.append({"Effect": "Deny", "Action": statements[0]["Action"], "Resource": "*"})
        elif control == "read_only":
            statements = [{"Effect": "Allow", "Action": ["iam:List*", "iam:Get*"], "Resource": "*"}]
        elif control == "boundary":
            if boundary is None:
                statements.append({"Effect": "Deny", "Action": statements[0]["Action"], "Resource": "*"})
            else:
                holder["PermissionsBoundary"] = {
                    "PermissionsBoundaryType": "PermissionsBoundaryPolicy",
                    "PermissionsBoundaryArn": boundary,
                }
        controls += control is not None
        key = "RolePolicyList" if as_role else "UserPolicyList"
        holder.setdefault(key, []).append(
            {"PolicyName": f"escalation-{k}", "PolicyDocument": {"Version": VERSION, "Statement": statements}}
        )
    return controls


_CHAINS = ("role", "user", "three", "group")


def _chain(
    k: int,
    holder: dict[str, Any],
    *,
    rng: random.Random,
    users: list[dict[str, Any]],
    roles: list[dict[str, Any]],
    groups: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """Plant a chain of two or three steps back to `holder` (a user): its own statements are returned, the
    others' are added as `chain-K` inline policies. `role`: it may take a role over, which may attach a
    policy to it; `user`: it may make an access key for another user, who may write a policy into it;
    `three`: that other user may take the role over instead; `group`: the role taken over may add it to
    a group."""

    def allow(action: Any, resource: Any) -> dict[str, Any]:
        return {"Effect": "Allow", "Action": action, "Resource": resource}

    def plant(entry: dict[str, Any], key: str, *statements: dict[str, Any]) -> None:
        document = {"Version": VERSION, "Statement": list(statements)}
        entry.setdefault(key, []).append({"PolicyName": f"chain-{k}", "PolicyDocument": document})

    shape = _CHAINS[(k // 10) % len(_CHAINS)]
    if shape == "group" and not groups:
        shape = "role"
    me = holder["Arn"]
    role = rng.choice(roles)
    take_over = allow(["iam:UpdateAssumeRolePolicy", "sts:AssumeRole"], role["Arn"])
    other = rng.choice([u for u in users if u is not holder] or users)
    if shape == "role":
        plant(role, "RolePolicyList", allow("iam:AttachUserPolicy", me))
        return [take_over]
    if shape == "group":
        plant(role, "RolePolicyList", allow("iam:AddUserToGroup", rng.choice(groups)["Arn"]))
        return [take_over]
    if shape == "user":
        plant(other, "UserPolicyList", allow("iam:PutUserPolicy", me))
        return [allow("iam:CreateAccessKey", other["Arn"])]
    plant(other, "UserPolicyList", take_over)
    plant(role, "RolePolicyList", allow("iam:AttachUserPolicy", me))
    return [allow("iam:CreateAccessKey", other["Arn"])]


def _grant(
    method: str,
    holder: dict[str, Any],
    *,
    rng: random.Random,
    users: list[dict[str, Any]],
    roles: list[dict[str, Any]],
    groups: list[dict[str, Any]],
    by_service: dict[str, list[str]],
    account: str,
) -> list[dict[str, Any]]:
    def allow(action: Any, resource: Any) -> dict[str, Any]:
        return {"Effect": "Allow", "Action": action, "Resource": resource}

    arn = holder["Arn"]
    other_user = rng.choice(users)["Arn"]
    role = rng.choice(roles)["Arn"]
    if method == "attach_user_policy":
        return [allow("iam:AttachUserPolicy", arn)]
    if method == "put_user_policy":
        return [allow("iam:PutUserPolicy", arn)]
    if method == "attach_group_policy":
        own = holder.get("GroupList") or []
        return [allow("iam:AttachGroupPolicy", f"arn:aws:iam::{account}:group/{own[0]}")] if own else []
    if method == "add_user_to_group":
        return [allow("iam:AddUserToGroup", rng.choice(groups)["Arn"])] if groups else []
    if method == "create_policy_version":
        mine = [
            p["PolicyArn"] for p in holder.get("AttachedManagedPolicies", []) if ":aws:policy/" not in p["PolicyArn"]
        ]
        return [allow("iam:CreatePolicyVersion", mine[0])] if mine else [allow("iam:PutUserPolicy", arn)]
    if method == "create_access_key":
        return [allow("iam:CreateAccessKey", other_user)]
    if method == "create_login_profile":
        return [allow("iam:CreateLoginProfile", other_user)]
    if method == "update_login_profile":
        return [allow("iam:UpdateLoginProfile", other_user)]
    if method == "update_assume_role_policy":
        return [allow(["iam:UpdateAssumeRolePolicy", "sts:AssumeRole"], role)]
    if method == "attach_role_policy":
        target = arn if ":role/" in arn else role
        return [allow(["iam:AttachRolePolicy", "sts:AssumeRole"], target)]
    service, actions = _SERVICES[method]
    candidates = by_service.get(service) or [role]
    return [allow("iam:PassRole", rng.choice(candidates)), allow(actions, "*")]
