"""The generated account's IAM records: managed policies (customer and AWS managed), their
statements, groups, users, roles and their trust policies."""

from __future__ import annotations

import json
import urllib.parse
from datetime import timedelta
from typing import Any

from .account import BASE_TIME, REGIONS, VERSION, _AccountBase, _iso, _spread

DATA_ACTIONS = (
    "s3:GetObject",
    "s3:Get*",
    "dynamodb:GetItem",
    "dynamodb:Query",
    "secretsmanager:GetSecretValue",
    "ssm:GetParameter*",
    "kms:Decrypt",
)


class _IamRecords(_AccountBase):
    # -- small pieces ------------------------------------------------------
    def _doc(self, statements: list[dict[str, Any]]) -> Any:
        doc = {"Version": VERSION, "Statement": statements}
        if self.o.messy and self.rng.random() < 0.05:
            return urllib.parse.quote(json.dumps(doc))  # as the raw API returns it
        return doc

    def _team_bucket_arns(self, team: int, k: int) -> list[str]:
        mine = self.team_buckets.get(team) or self.buckets
        if not mine:
            return [f"arn:aws:s3:::t{team}-*/*"]
        return [f"arn:aws:s3:::{b}/*" for b in self.rng.sample(mine, min(k, len(mine)))]

    # -- statements ----------------------------------------------------------
    def statements(self, team: int) -> list[dict[str, Any]]:
        """One to three statements of the kinds real customer policies hold."""
        out: list[dict[str, Any]] = []
        for _ in range(self.rng.randint(1, 3)):
            pick = self.rng.random()
            if pick < 0.30:
                out.append(
                    {
                        "Effect": "Allow",
                        "Action": self.rng.choice(["s3:GetObject", ["s3:GetObject", "s3:ListBucket"], "s3:Get*"]),
                        "Resource": self._team_bucket_arns(team, self.rng.randint(1, 3))
                        if self.rng.random() < 0.8
                        else f"arn:aws:s3:::t{team}-reports-*/*",
                    }
                )
            elif pick < 0.42:
                out.append(
                    {
                        "Effect": "Allow",
                        "Action": "sts:AssumeRole",
                        "Resource": f"arn:aws:iam::{self.acct}:role/t{team}-*",
                    }
                )
            elif pick < 0.50:
                out.append(
                    {
                        "Effect": "Allow",
                        "Action": ["dynamodb:GetItem", "dynamodb:Query", "dynamodb:Scan"],
                        "Resource": f"arn:aws:dynamodb:{self.rng.choice(REGIONS)}:{self.acct}:table/t{team}-*",
                    }
                )
            elif pick < 0.57:
                out.append(
                    {
                        "Effect": "Allow",
                        "Action": "secretsmanager:GetSecretValue",
                        "Resource": f"arn:aws:secretsmanager:{self.rng.choice(REGIONS)}:{self.acct}:secret:t{team}/*",
                        "Condition": {"Bool": {"aws:MultiFactorAuthPresent": "true"}},
                    }
                )
            elif pick < 0.63:
                targets = self.team_instances.get(team) or self.instance_ids
                statement: dict[str, Any] = {
                    "Effect": "Allow",
                    "Action": self.rng.choice(
                        (["ssm:StartSession", "ssm:SendCommand"], "ec2-instance-connect:SendSSHPublicKey")
                    ),
                    "Resource": [
                        f"arn:aws:ec2:{region}:{self.acct}:instance/{instance}"
                        for instance, region in self.rng.sample(targets, min(len(targets), self.rng.randint(1, 3)))
                    ]
                    or f"arn:aws:ec2:*:{self.acct}:instance/*",
                }
                if self.rng.random() < 0.3:
                    statement["Condition"] = {"StringEquals": {"aws:ResourceTag/team": f"t{team}"}}
                out.append(statement)
            elif pick < 0.68:
                out.append(
                    {
                        "Effect": "Allow",
                        "Action": "lambda:UpdateFunctionCode",
                        "Resource": f"arn:aws:lambda:*:{self.acct}:function:t{team}-*",
                    }
                )
            elif pick < 0.74:
                out.append(
                    {
                        "Effect": "Allow",
                        "Action": "kms:Decrypt",
                        "Resource": "*",
                        "Condition": {"IpAddress": {"aws:SourceIp": ["10.0.0.0/8", "192.168.0.0/16"]}},
                    }
                )
            elif pick < 0.82:
                bucket = self.rng.choice(self.buckets) if self.buckets else f"t{team}-none"
                out.append(
                    {
                        "Effect": "Deny",
                        "Action": "s3:*",
                        "Resource": [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"],
                    }
                )
            elif pick < 0.88:
                out.append(
                    {
                        "Effect": "Deny",
                        "NotAction": ["iam:ChangePassword", "iam:GetUser", "sts:GetSessionToken"],
                        "Resource": "*",
                        "Condition": {"BoolIfExists": {"aws:MultiFactorAuthPresent": "false"}},
                    }
                )
            elif pick < 0.93:
                out.append(
                    {"Effect": "Allow", "Action": ["ec2:Describe*", "s3:List*", "cloudwatch:Get*"], "Resource": "*"}
                )
            else:
                # A guardrail: nothing in S3 outside the team's buckets (NotResource).
                out.append(
                    {
                        "Effect": "Deny",
                        "Action": "s3:*",
                        "NotResource": [f"arn:aws:s3:::t{team}-*", f"arn:aws:s3:::t{team}-*/*"],
                    }
                )
        for index, statement in enumerate(out):
            if self.rng.random() < 0.4:
                statement["Sid"] = f"S{index}"
        return out

    # -- IAM -------------------------------------------------------------------
    def managed_policies(self) -> list[dict[str, Any]]:
        policies = []
        for i in range(self.o.policies):
            team = i % self.teams
            boundary = i >= self.grant_policies
            statements = (
                [
                    {
                        "Effect": "Allow",
                        "Action": ["s3:*", "dynamodb:*", "sts:AssumeRole", "lambda:*", "ssm:*"],
                        "Resource": "*",
                    },
                    {"Effect": "Deny", "Action": ["iam:*", "organizations:*"], "Resource": "*"},
                ]
                if boundary
                else self.statements(team)
            )
            versions = self.rng.randint(1, 3)
            version_list = []
            for v in range(versions, 0, -1):
                version_list.append(
                    {
                        "Document": self._doc(statements if v == versions else self.statements(team)),
                        "VersionId": f"v{v}",
                        "IsDefaultVersion": v == versions,
                        "CreateDate": self._time(),
                    }
                )
            policies.append(
                {
                    "PolicyName": f"t{team}-policy-{i}",
                    "PolicyId": self._id("ANPA"),
                    "Arn": self.policy_arn(i),
                    "Path": "/",
                    "DefaultVersionId": f"v{versions}",
                    "AttachmentCount": 0,
                    "PermissionsBoundaryUsageCount": 0,
                    "IsAttachable": True,
                    "Description": f"team t{team} policy {i}" if self.rng.random() < 0.5 else "",
                    "CreateDate": self._time(),
                    "UpdateDate": self._time(200),
                    "PolicyVersionList": version_list,
                }
            )
        return policies

    def aws_managed(self) -> list[dict[str, Any]]:
        admin = {"Effect": "Allow", "Action": "*", "Resource": "*"}
        read_only = {
            "Effect": "Allow",
            "Action": [
                "s3:Get*",
                "s3:List*",
                "dynamodb:Get*",
                "dynamodb:Query",
                "ec2:Describe*",
                "iam:Get*",
                "iam:List*",
            ],
            "Resource": "*",
        }
        out = []
        for name, statement, path in (
            ("AdministratorAccess", admin, "/"),
            ("ReadOnlyAccess", read_only, "/"),
            (
                "AmazonSSMManagedInstanceCore",
                {"Effect": "Allow", "Action": ["ssm:UpdateInstanceInformation", "ssmmessages:*"], "Resource": "*"},
                "/",
            ),
            (
                "PowerUserAccess",
                {"Effect": "Allow", "NotAction": ["iam:*", "organizations:*", "account:*"], "Resource": "*"},
                "/",
            ),
            (
                "AWSLambdaBasicExecutionRole",
                {
                    "Effect": "Allow",
                    "Action": ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"],
                    "Resource": "*",
                },
                "/service-role/",
            ),
        ):
            out.append(
                {
                    "PolicyName": name,
                    "PolicyId": self._id("ANPA"),
                    "Arn": f"arn:aws:iam::aws:policy{path}{name}",
                    "Path": path,
                    "DefaultVersionId": "v1",
                    "AttachmentCount": 0,
                    "PermissionsBoundaryUsageCount": 0,
                    "IsAttachable": True,
                    "CreateDate": _iso(BASE_TIME - timedelta(days=2000)),
                    "UpdateDate": _iso(BASE_TIME - timedelta(days=400)),
                    "PolicyVersionList": [
                        {
                            "Document": {"Version": VERSION, "Statement": [statement]},
                            "VersionId": "v1",
                            "IsDefaultVersion": True,
                            "CreateDate": _iso(BASE_TIME - timedelta(days=400)),
                        }
                    ],
                }
            )
        return out

    def _attach(self, policies: list[dict[str, Any]], index: int) -> dict[str, str]:
        policy = policies[index]
        policy["AttachmentCount"] += 1
        return {"PolicyName": policy["PolicyName"], "PolicyArn": policy["Arn"]}

    def _team_policy(self, team: int) -> int | None:
        """A grant policy of the team (policy i belongs to team i % teams); never a boundary policy."""
        if self.grant_policies <= 0:
            return None
        choices = range(team % self.teams, self.grant_policies, self.teams)
        return self.rng.choice(choices) if choices else self.rng.randrange(self.grant_policies)

    def _boundary(self, policies: list[dict[str, Any]]) -> dict[str, str] | None:
        if self.o.policies == 0:
            return None
        index = self.rng.randrange(self.grant_policies, self.o.policies)
        policies[index]["PermissionsBoundaryUsageCount"] += 1
        return {
            "PermissionsBoundaryType": "PermissionsBoundaryPolicy",
            "PermissionsBoundaryArn": policies[index]["Arn"],
        }

    def _inline(self, prefix: str, team: int) -> list[dict[str, Any]]:
        return [{"PolicyName": f"{prefix}-inline", "PolicyDocument": self._doc(self.statements(team))}]

    def _tags(self, team: int) -> list[dict[str, str]]:
        tags = [{"Key": "team", "Value": f"t{team}"}]
        if self.rng.random() < 0.3:
            tags.append({"Key": "cost-center", "Value": str(self.rng.randint(1000, 9999))})
        return tags

    def _absent_policy(self) -> dict[str, str]:
        name = f"deleted-policy-{self.rng.randint(1, 99)}"
        return {"PolicyName": name, "PolicyArn": f"arn:aws:iam::{self.acct}:policy/{name}"}

    def groups(self, policies: list[dict[str, Any]], aws: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for i, name in enumerate(self.group_names):
            team = i % self.teams
            attached = []
            for _ in range(self.rng.randint(1, 3)):
                pick = self._team_policy(team)
                if pick is not None:
                    attached.append(self._attach(policies, pick))
            out.append(
                {
                    "Path": "/",
                    "GroupName": name,
                    "GroupId": self._id("AGPA"),
                    "Arn": f"arn:aws:iam::{self.acct}:group/{name}",
                    "CreateDate": self._time(),
                    "GroupPolicyList": self._inline(name, team) if i % 5 == 0 else [],
                    "AttachedManagedPolicies": _unique(attached),
                }
            )
        return out

    def users(self, policies: list[dict[str, Any]], aws: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for i, name in enumerate(self.user_names):
            team = i % self.teams
            attached = []
            for _ in range(self.rng.choice((0, 0, 1, 1, 2))):
                pick = self._team_policy(team)
                if pick is not None:
                    attached.append(self._attach(policies, pick))
            if i in self.admin_users:
                attached.append(self._attach(aws, 0))
            if i in self.read_only_users:
                attached.append(self._attach(aws, 1))
            if i in self.power_users:
                attached.append(self._attach(aws, 3))
            if self.o.messy and i % 997 == 5:
                attached.append(self._absent_policy())
            team_groups = [g for g in range(team, len(self.group_names), self.teams)] or list(
                range(len(self.group_names))
            )
            groups = (
                sorted({self.group_names[self.rng.choice(team_groups)] for _ in range(self.rng.randint(1, 2))})
                if team_groups
                else []
            )
            record: dict[str, Any] = {
                "Path": "/",
                "UserName": name,
                "UserId": self._id("AIDA"),
                "Arn": self.user_arn(i),
                "CreateDate": self._time(),
                "UserPolicyList": self._inline(name, team) if i % 10 == 2 else [],
                "GroupList": groups,
                "AttachedManagedPolicies": _unique(attached),
                "Tags": self._tags(team),
            }
            if i % 20 == 1:  # one user in twenty has a permissions boundary
                boundary = self._boundary(policies)
                if boundary:
                    record["PermissionsBoundary"] = boundary
            out.append(record)
        return out

    def trust_policy(self, i: int) -> tuple[dict[str, Any], str]:
        """A trust policy for role i and what kind of principal it trusts."""
        team = i % self.teams
        pick = self.rng.random()
        statement: dict[str, Any] = {"Effect": "Allow", "Action": "sts:AssumeRole"}
        kind = "service"
        if pick < 0.25:
            statement["Principal"] = {"Service": "ec2.amazonaws.com"}
            kind = "ec2"
        elif pick < 0.40:
            statement["Principal"] = {"Service": "lambda.amazonaws.com"}
            kind = "lambda"
        elif pick < 0.45:
            statement["Principal"] = {"Service": ["ecs-tasks.amazonaws.com", "states.amazonaws.com"]}
        elif pick < 0.72 and i > 0:
            # Chains: trusted by one or two earlier roles of the team (or any earlier role).
            earlier = [j for j in range(team, i, self.teams)] or list(range(i))
            chosen = sorted({self.rng.choice(earlier) for _ in range(self.rng.randint(1, 2))})
            arns = [self.role_arn(j) for j in chosen]
            statement["Principal"] = {"AWS": arns[0] if len(arns) == 1 else arns}
            kind = "role"
        elif pick < 0.84 and self.user_names:
            users = [j for j in range(team, len(self.user_names), self.teams)] or list(range(len(self.user_names)))
            chosen = sorted({self.rng.choice(users) for _ in range(self.rng.randint(1, 3))})
            arns = [self.user_arn(j) for j in chosen]
            statement["Principal"] = {"AWS": arns[0] if len(arns) == 1 else arns}
            kind = "user"
        elif pick < 0.92:
            statement["Principal"] = {"AWS": self.rng.choice([f"arn:aws:iam::{self.acct}:root", self.acct])}
            kind = "account"
        elif pick < 0.96:
            statement["Principal"] = {"AWS": f"arn:aws:iam::{self.o.partner_account_id}:root"}
            statement["Condition"] = {"StringEquals": {"sts:ExternalId": f"ext-{self.rng.randint(1000, 9999)}"}}
            kind = "cross_account"
        elif pick < 0.985:
            statement["Principal"] = {"Federated": f"arn:aws:iam::{self.acct}:saml-provider/corp-idp"}
            statement["Action"] = "sts:AssumeRoleWithSAML"
            statement["Condition"] = {"StringEquals": {"SAML:aud": "https://signin.aws.amazon.com/saml"}}
            kind = "federated"
        else:
            statement["Principal"] = {"AWS": "*"}
            statement["Condition"] = {"StringEquals": {"aws:PrincipalOrgID": "o-exampleorg1"}}
            kind = "any"
        if kind in ("user", "role") and self.rng.random() < 0.1:
            statement["Condition"] = {"Bool": {"aws:MultiFactorAuthPresent": "true"}}
        statements = [statement]
        if kind == "account" and self.rng.random() < 0.3 and self.user_names:
            victim = self.user_arn(self.rng.randrange(len(self.user_names)))
            statements.append({"Effect": "Deny", "Principal": {"AWS": victim}, "Action": "sts:AssumeRole"})
        return {"Version": VERSION, "Statement": statements}, kind

    def roles(
        self, policies: list[dict[str, Any]], aws: list[dict[str, Any]]
    ) -> tuple[list[dict[str, Any]], dict[int, dict[str, Any]]]:
        out = []
        profiles: dict[int, dict[str, Any]] = {}
        admin_roles = _spread(self.o.roles, max(1, self.o.roles // 1000))
        for i, name in enumerate(self.role_names):
            team = i % self.teams
            trust, kind = self.trust_policy(i)
            attached = []
            for _ in range(self.rng.choice((1, 1, 2, 3))):
                pick = self._team_policy(team)
                if pick is not None:
                    attached.append(self._attach(policies, pick))
            if i in admin_roles:
                attached.append(self._attach(aws, 0))
            if kind == "ec2":
                attached.append(self._attach(aws, 2))
                self.ec2_roles.append(i)
            if kind == "lambda":
                attached.append(self._attach(aws, 4))
                self.lambda_roles.append(i)
            if self.o.messy and i % 499 == 7:
                attached.append(self._absent_policy())
            record: dict[str, Any] = {
                "Path": "/",
                "RoleName": name,
                "RoleId": self._id("AROA"),
                "Arn": self.role_arn(i),
                "CreateDate": self._time(),
                "AssumeRolePolicyDocument": self._doc(trust["Statement"]) if self.o.messy else trust,
                "InstanceProfileList": [],
                "RolePolicyList": self._inline(name, team) if i % 3 == 0 else [],
                "AttachedManagedPolicies": _unique(attached),
                "Tags": self._tags(team),
                "RoleLastUsed": {"LastUsedDate": self._time(60), "Region": self.rng.choice(REGIONS)}
                if self.rng.random() < 0.7
                else {},
            }
            if i % 20 == 1 or (kind == "ec2" and len(self.ec2_roles) % 10 == 1):  # one role in twenty or so
                boundary = self._boundary(policies)
                if boundary:
                    record["PermissionsBoundary"] = boundary
            if kind == "ec2":
                profile = {
                    "Path": "/",
                    "InstanceProfileName": name,
                    "InstanceProfileId": self._id("AIPA"),
                    "Arn": f"arn:aws:iam::{self.acct}:instance-profile/{name}",
                    "CreateDate": record["CreateDate"],
                    "Roles": [
                        {
                            "Path": "/",
                            "RoleName": name,
                            "RoleId": record["RoleId"],
                            "Arn": record["Arn"],
                            "CreateDate": record["CreateDate"],
                            "AssumeRolePolicyDocument": trust,
                            "MaxSessionDuration": 3600,
                            **(
                                {"PermissionsBoundary": record["PermissionsBoundary"]}
                                if "PermissionsBoundary" in record
                                else {}
                            ),
                            "Tags": record["Tags"],
                            "RoleLastUsed": record["RoleLastUsed"],
                        }
                    ],
                    "Tags": [],
                }
                record["InstanceProfileList"] = [profile]
                profiles[i] = profile
            out.append(record)
        return out, profiles


def _unique(attached: list[dict[str, str]]) -> list[dict[str, str]]:
    seen: dict[str, dict[str, str]] = {}
    for item in attached:
        seen.setdefault(item["PolicyArn"], item)
    return list(seen.values())
