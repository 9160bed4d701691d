"""Synthetic AWS accounts of a chosen size, written as the AWS CLI writes them (`generate-aws`).

The collection folder holds one JSON file per read-only call, in the shapes the AWS
CLI prints (policy documents as objects, times as ISO 8601 text, the credential
report base64 as the API returns it):

| file | call |
|---|---|
| `iam-get-account-authorization-details.json` | `aws iam get-account-authorization-details` |
| `iam-get-credential-report.json` | `aws iam get-credential-report` |
| `ec2-describe-instances.json` | `aws ec2 describe-instances` |
| `lambda-list-functions.json` | `aws lambda list-functions` |
| `s3-list-buckets.json` | `aws s3api list-buckets` |
| `guardduty-get-findings.json` | `aws guardduty get-findings` |

What is in it, so that an importer has real work and a graph of bounded size:
users in groups (group, managed and inline policies; some with a permissions
boundary); roles trusted by services, by other roles (chains), by named users, by
the account root, by another account (with an `sts:ExternalId` condition), by a
SAML provider, or by `*` under a condition; managed policies mixing exact and
wildcard actions and resources, `Deny`, `NotAction`, `NotResource` and conditions
(MFA, source IP), a few AWS managed ones (`AdministratorAccess`, `ReadOnlyAccess`)
on a few principals. Who may assume whom is mostly by team: a principal of team T
may `sts:AssumeRole` on `arn:aws:iam::ACCOUNT:role/tT-*`, and only a handful of
admins hold `*` — as in real accounts, so the graph grows with the account, not
with its square. The same options and seed give the same bytes.
"""

from __future__ import annotations

import base64
import json
import os
import random
import string
import tempfile
import urllib.parse
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AWS_FILES",
    "AwsGenerateOptions",
    "AwsGenerateReport",
    "generate_aws",
    "write_aws_collection",
]

AWS_FILES = {
    "gaad": "iam-get-account-authorization-details.json",
    "credential_report": "iam-get-credential-report.json",
    "instances": "ec2-describe-instances.json",
    "functions": "lambda-list-functions.json",
    "buckets": "s3-list-buckets.json",
    "findings": "guardduty-get-findings.json",
}
BASE_TIME = datetime(2025, 6, 1, 9, 0, 0, tzinfo=UTC)
VERSION = "2012-10-17"
REGIONS = ("us-east-1", "us-west-2", "eu-west-1")
CREDENTIAL_COLUMNS = (
    "user,arn,user_creation_time,password_enabled,password_last_used,password_last_changed,"
    "password_next_rotation,mfa_active,access_key_1_active,access_key_1_last_rotated,"
    "access_key_1_last_used_date,access_key_1_last_used_region,access_key_1_last_used_service,"
    "access_key_2_active,access_key_2_last_rotated,access_key_2_last_used_date,access_key_2_last_used_region,"
    "access_key_2_last_used_service,cert_1_active,cert_1_last_rotated,cert_2_active,cert_2_last_rotated"
)
FINDING_TYPES = (
    ("UnauthorizedAccess:IAMUser/InstanceCredentialExfiltration.OutsideAWS", "AccessKey", 8.0),
    ("UnauthorizedAccess:IAMUser/ConsoleLoginSuccess.B", "AccessKey", 5.0),
    ("Recon:EC2/PortProbeUnprotectedPort", "Instance", 2.0),
    ("CryptoCurrency:EC2/BitcoinTool.B!DNS", "Instance", 8.0),
    ("Policy:IAMUser/RootCredentialUsage", "AccessKey", 2.0),
)
DATA_ACTIONS = (
    "s3:GetObject",
    "s3:Get*",
    "dynamodb:GetItem",
    "dynamodb:Query",
    "secretsmanager:GetSecretValue",
    "ssm:GetParameter*",
    "kms:Decrypt",
)


class AwsGenerateOptions(BaseModel):
    """How big an account to generate (every count may be 0 except users or roles)."""

    model_config = ConfigDict(extra="forbid")

    users: Annotated[int, Field(ge=0, le=500_000)] = 100
    roles: Annotated[int, Field(ge=0, le=200_000)] = 50
    policies: Annotated[int, Field(ge=0, le=500_000)] = 100
    buckets: Annotated[int, Field(ge=0, le=200_000)] = 50
    groups: Annotated[int | None, Field(ge=0, le=100_000)] = None  # default users // 100, at least 1
    instances: Annotated[int | None, Field(ge=0, le=200_000)] = None  # default roles // 10
    functions: Annotated[int | None, Field(ge=0, le=200_000)] = None  # default roles // 10
    findings: Annotated[int, Field(ge=0, le=10_000)] = 10
    teams: Annotated[int | None, Field(ge=1, le=10_000)] = None  # default about 100 roles per team
    account_id: Annotated[str, Field(pattern=r"^\d{12}$")] = "111122223333"
    partner_account_id: Annotated[str, Field(pattern=r"^\d{12}$")] = "444455556666"
    seed: int = 0
    messy: bool = False  # some URL-encoded documents, absent managed policies, unknown users in the report

    def model_post_init(self, _context: Any) -> None:
        if self.users + self.roles == 0:
            raise ValueError("an account needs at least one user or role")

    @property
    def group_count(self) -> int:
        return self.groups if self.groups is not None else (max(1, self.users // 100) if self.users else 0)

    @property
    def instance_count(self) -> int:
        return self.instances if self.instances is not None else self.roles // 10

    @property
    def function_count(self) -> int:
        return self.functions if self.functions is not None else self.roles // 10

    @property
    def team_count(self) -> int:
        return self.teams if self.teams is not None else max(1, self.roles // 100)


@dataclass
class AwsGenerateReport:
    """What was written."""

    out: str
    account_id: str
    files: dict[str, int] = field(default_factory=dict)  # file name -> bytes
    counts: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"status": "ok", "out": self.out, "account_id": self.account_id, "files": self.files, **self.counts}


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


class _Account:
    """One generated account; each method builds one kind of record."""

    def __init__(self, options: AwsGenerateOptions):
        self.o = options
        self.rng = random.Random(options.seed)  # noqa: S311 - synthetic data, reproducible by seed
        self.acct = options.account_id
        self.teams = options.team_count
        # The last policies (one in fifty) are permission boundaries, never attached as grants.
        self.boundary_count = max(1, options.policies // 50) if options.policies else 0
        self.grant_policies = options.policies - self.boundary_count
        self.buckets = [self._bucket_name(i) for i in range(options.buckets)]
        self.team_buckets: dict[int, list[str]] = {}
        for index, name in enumerate(self.buckets):
            self.team_buckets.setdefault(index % self.teams, []).append(name)
        self.role_names = [f"t{i % self.teams}-{self._word()}-role-{i}" for i in range(options.roles)]
        self.user_names = [f"t{i % self.teams}.{self._word()}{i}" for i in range(options.users)]
        self.group_names = [f"t{i % self.teams}-{self._word()}-group-{i}" for i in range(options.group_count)]
        self.admin_users = _spread(options.users, max(1, options.users // 2000))
        self.read_only_users = {(i + 3) % max(1, options.users) for i in _spread(options.users, options.users // 4000)}
        self.power_users = {(i + 7) % max(1, options.users) for i in _spread(options.users, options.users // 5000)}
        self.instance_ids = [
            (f"i-{self.rng.getrandbits(68):017x}", self.rng.choice(REGIONS)) for _ in range(options.instance_count)
        ]
        self.team_instances: dict[int, list[tuple[str, str]]] = {}
        for index, pair in enumerate(self.instance_ids):
            self.team_instances.setdefault(index % self.teams, []).append(pair)
        self.ec2_roles: list[int] = []
        self.lambda_roles: list[int] = []

    # -- small pieces ------------------------------------------------------
    def _word(self) -> str:
        return self.rng.choice(("app", "data", "ops", "web", "etl", "ml", "ci", "api", "audit", "report"))

    def _bucket_name(self, i: int) -> str:
        kind = ("logs", "assets", "pii", "backup", "reports", "raw", "public")[i % 7]
        return f"t{i % max(1, self.o.team_count)}-{kind}-{self.o.account_id[-4:]}-{i}"

    def _id(self, prefix: str) -> str:
        return prefix + "".join(self.rng.choices(string.ascii_uppercase + string.digits, k=17))

    def _time(self, days: int = 900) -> str:
        return _iso(BASE_TIME - timedelta(seconds=self.rng.randrange(days * 86400)))

    def role_arn(self, i: int) -> str:
        return f"arn:aws:iam::{self.acct}:role/{self.role_names[i]}"

    def user_arn(self, i: int) -> str:
        return f"arn:aws:iam::{self.acct}:user/{self.user_names[i]}"

    def policy_arn(self, i: int) -> str:
        return f"arn:aws:iam::{self.acct}:policy/t{i % self.teams}-policy-{i}"

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
                statement = {
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

    # -- other services -------------------------------------------------------
    def credential_report(self, users: list[dict[str, Any]]) -> dict[str, Any]:
        lines = [CREDENTIAL_COLUMNS]
        na = "N/A"
        lines.append(
            f"<root_account>,arn:aws:iam::{self.acct}:root,{_iso(BASE_TIME - timedelta(days=2000))},not_supported,"
            f"{self._time(30)},not_supported,not_supported,true,false,{na},{na},{na},{na},false,{na},{na},{na},{na},"
            f"false,{na},false,{na}"
        )
        rows = [(u["UserName"], u["Arn"], u["CreateDate"]) for u in users]
        if self.o.messy:
            rows.append(("departed.user", f"arn:aws:iam::{self.acct}:user/departed.user", self._time()))
        for name, arn, created in rows:
            password = self.rng.random() < 0.6
            key1 = self.rng.random() < 0.8
            key1_active = key1 and self.rng.random() < 0.85
            key2 = self.rng.random() < 0.15
            key2_active = key2 and self.rng.random() < 0.5
            used = self._time(30)
            cells = [
                name,
                arn,
                created,
                "true" if password else "false",
                (used if self.rng.random() < 0.8 else "no_information") if password else na,
                self._time(300) if password else na,
                na,
                "true" if password and self.rng.random() < 0.7 else "false",
                "true" if key1_active else "false",
                self._time(400) if key1 else na,
                self._time(20) if key1_active else na,
                self.rng.choice(REGIONS) if key1_active else na,
                self.rng.choice(("s3", "sts", "ec2", "iam")) if key1_active else na,
                "true" if key2_active else "false",
                self._time(400) if key2 else na,
                self._time(20) if key2_active else na,
                self.rng.choice(REGIONS) if key2_active else na,
                "s3" if key2_active else na,
                "false",
                na,
                "false",
                na,
            ]
            lines.append(",".join(cells))
        content = "\n".join(lines)
        return {
            "Content": base64.b64encode(content.encode()).decode(),
            "ReportFormat": "text/csv",
            "GeneratedTime": _iso(BASE_TIME),
        }

    def instances(self, profiles: dict[int, dict[str, Any]]) -> dict[str, Any]:
        reservations = []
        roles = sorted(profiles)
        for n in range(self.o.instance_count):
            instance_id, region = self.instance_ids[n]
            zone = f"{region}{self.rng.choice('abc')}"
            launched = self._time(200)
            private_ip = f"10.{self.rng.randint(0, 255)}.{self.rng.randint(0, 255)}.{self.rng.randint(1, 254)}"
            public = self.rng.random() < 0.3
            public_ip = f"54.{self.rng.randint(0, 255)}.{self.rng.randint(0, 255)}.{self.rng.randint(1, 254)}"
            vpc, subnet = f"vpc-{self.rng.getrandbits(68):017x}", f"subnet-{self.rng.getrandbits(68):017x}"
            team = n % self.teams
            eni: dict[str, Any] = {
                "Attachment": {
                    "AttachTime": launched,
                    "AttachmentId": f"eni-attach-{self.rng.getrandbits(68):017x}",
                    "DeleteOnTermination": True,
                    "DeviceIndex": 0,
                    "Status": "attached",
                    "NetworkCardIndex": 0,
                },
                "Description": "",
                "Groups": [{"GroupId": f"sg-{self.rng.getrandbits(68):017x}", "GroupName": "default"}],
                "Ipv6Addresses": [],
                "MacAddress": "02:00:00:" + ":".join(f"{self.rng.randrange(256):02x}" for _ in range(3)),
                "NetworkInterfaceId": f"eni-{self.rng.getrandbits(68):017x}",
                "OwnerId": self.acct,
                "PrivateDnsName": f"ip-{private_ip.replace('.', '-')}.ec2.internal",
                "PrivateIpAddress": private_ip,
                "PrivateIpAddresses": [{"Primary": True, "PrivateIpAddress": private_ip}],
                "SourceDestCheck": True,
                "Status": "in-use",
                "SubnetId": subnet,
                "VpcId": vpc,
                "InterfaceType": "interface",
            }
            if public:
                association = {
                    "IpOwnerId": "amazon",
                    "PublicDnsName": f"ec2-{public_ip.replace('.', '-')}.compute-1.amazonaws.com",
                    "PublicIp": public_ip,
                }
                eni["Association"] = association
                eni["PrivateIpAddresses"][0]["Association"] = association
            instance: dict[str, Any] = {
                "Architecture": "x86_64",
                "BlockDeviceMappings": [
                    {
                        "DeviceName": "/dev/xvda",
                        "Ebs": {
                            "AttachTime": launched,
                            "DeleteOnTermination": True,
                            "Status": "attached",
                            "VolumeId": f"vol-{self.rng.getrandbits(68):017x}",
                        },
                    }
                ],
                "ClientToken": "",
                "EbsOptimized": False,
                "Hypervisor": "xen",
                "NetworkInterfaces": [eni],
                "RootDeviceName": "/dev/xvda",
                "RootDeviceType": "ebs",
                "SecurityGroups": [{"GroupId": eni["Groups"][0]["GroupId"], "GroupName": "default"}],
                "SourceDestCheck": True,
                "SriovNetSupport": "simple",
                "StateReason": {"Code": "", "Message": ""},
                "Tags": [{"Key": "Name", "Value": f"t{team}-{self._word()}-{n}"}, {"Key": "team", "Value": f"t{team}"}],
                "VirtualizationType": "hvm",
                "HibernationOptions": {"Configured": False},
                "MetadataOptions": {
                    "State": "applied",
                    "HttpTokens": self.rng.choice(("optional", "required")),
                    "HttpPutResponseHopLimit": 2,
                    "HttpEndpoint": "enabled",
                    "HttpProtocolIpv6": "disabled",
                    "InstanceMetadataTags": "disabled",
                },
                "InstanceId": instance_id,
                "ImageId": f"ami-{self.rng.getrandbits(68):017x}",
                "State": {"Code": 16, "Name": "running"},
                "PrivateDnsName": eni["PrivateDnsName"],
                "PublicDnsName": eni.get("Association", {}).get("PublicDnsName", ""),
                "StateTransitionReason": "",
                "AmiLaunchIndex": 0,
                "ProductCodes": [],
                "InstanceType": self.rng.choice(("t3.micro", "t3.medium", "m5.large", "c5.xlarge")),
                "LaunchTime": launched,
                "Placement": {"GroupName": "", "Tenancy": "default", "AvailabilityZone": zone},
                "Platform": "windows",
                "Monitoring": {"State": "disabled"},
                "SubnetId": subnet,
                "VpcId": vpc,
                "PrivateIpAddress": private_ip,
            }
            if self.rng.random() < 0.85:
                del instance["Platform"]  # only Windows instances carry it
            if public:
                instance["PublicIpAddress"] = public_ip
            if roles and self.rng.random() < 0.85:
                profile = profiles[self.rng.choice(roles)]
                instance["IamInstanceProfile"] = {"Arn": profile["Arn"], "Id": profile["InstanceProfileId"]}
            reservations.append(
                {
                    "ReservationId": f"r-{self.rng.getrandbits(68):017x}",
                    "OwnerId": self.acct,
                    "Groups": [],
                    "Instances": [instance],
                }
            )
        return {"Reservations": reservations}

    def functions(self) -> dict[str, Any]:
        out = []
        for n in range(self.o.function_count):
            team = n % self.teams
            region = self.rng.choice(REGIONS)
            name = f"t{team}-{self._word()}-fn-{n}"
            role = (
                self.role_arn(self.rng.choice(self.lambda_roles))
                if self.lambda_roles
                else f"arn:aws:iam::{self.acct}:role/service-role/{name}-role"
            )
            modified = BASE_TIME - timedelta(seconds=self.rng.randrange(300 * 86400))
            out.append(
                {
                    "FunctionName": name,
                    "FunctionArn": f"arn:aws:lambda:{region}:{self.acct}:function:{name}",
                    "Runtime": self.rng.choice(("python3.12", "nodejs20.x", "java21")),
                    "Role": role,
                    "Handler": "index.handler",
                    "CodeSize": self.rng.randint(200, 5_000_000),
                    "Description": "",
                    "Timeout": self.rng.choice((3, 30, 300)),
                    "MemorySize": self.rng.choice((128, 256, 1024)),
                    "LastModified": modified.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.rng.randrange(1000):03d}+0000",
                    "CodeSha256": base64.b64encode(self.rng.randbytes(32)).decode(),
                    "Version": "$LATEST",
                    "TracingConfig": {"Mode": "PassThrough"},
                    "RevisionId": str(uuid.UUID(int=self.rng.getrandbits(128), version=4)),
                    "Layers": [],
                    "State": "Active",
                    "LastUpdateStatus": "Successful",
                    "PackageType": "Zip",
                    "Architectures": ["x86_64"],
                    "EphemeralStorage": {"Size": 512},
                    "SnapStart": {"ApplyOn": "None", "OptimizationStatus": "Off"},
                }
            )
        return {"Functions": out}

    def list_buckets(self) -> dict[str, Any]:
        return {
            "Buckets": [{"Name": name, "CreationDate": self._time()} for name in self.buckets],
            "Owner": {"DisplayName": f"owner-{self.acct[-4:]}", "ID": f"{self.rng.getrandbits(256):064x}"},
        }

    def findings(self, users: list[dict[str, Any]], instances: dict[str, Any]) -> dict[str, Any]:
        out = []
        instance_ids = [r["Instances"][0]["InstanceId"] for r in instances["Reservations"]]
        detector = f"{self.rng.getrandbits(128):032x}"
        for n in range(self.o.findings):
            finding_type, resource_type, severity = FINDING_TYPES[n % len(FINDING_TYPES)]
            region = self.rng.choice(REGIONS)
            finding_id = f"{self.rng.getrandbits(128):032x}"
            first = self._time(10)
            resource: dict[str, Any] = {"ResourceType": resource_type}
            if resource_type == "AccessKey":
                user = self.rng.choice(users) if users else None
                resource["AccessKeyDetails"] = {
                    "AccessKeyId": "AKIA" + "".join(self.rng.choices(string.ascii_uppercase + string.digits, k=16)),
                    "PrincipalId": user["UserId"] if user else self._id("AIDA"),
                    "UserName": user["UserName"] if user else "ghost",
                    "UserType": "IAMUser",
                }
            elif instance_ids:
                resource["InstanceDetails"] = {
                    "InstanceId": self.rng.choice(instance_ids),
                    "InstanceType": "t3.micro",
                    "AvailabilityZone": f"{region}a",
                    "InstanceState": "running",
                    "Tags": [],
                }
            else:
                resource["InstanceDetails"] = {
                    "InstanceId": "i-00000000000000000",
                    "InstanceState": "terminated",
                    "Tags": [],
                }
            out.append(
                {
                    "AccountId": self.acct,
                    "Arn": f"arn:aws:guardduty:{region}:{self.acct}:detector/{detector}/finding/{finding_id}",
                    "CreatedAt": first.replace("+00:00", ".000Z"),
                    "Description": f"{finding_type} was observed.",
                    "Id": finding_id,
                    "Partition": "aws",
                    "Region": region,
                    "Resource": resource,
                    "SchemaVersion": "2.0",
                    "Service": {
                        "Archived": False,
                        "Count": self.rng.randint(1, 40),
                        "DetectorId": detector,
                        "EventFirstSeen": first.replace("+00:00", ".000Z"),
                        "EventLastSeen": self._time(1).replace("+00:00", ".000Z"),
                        "ResourceRole": "TARGET",
                        "ServiceName": "guardduty",
                    },
                    "Severity": severity,
                    "Title": f"{finding_type.split('/')[-1]} on {resource_type.lower()}",
                    "Type": finding_type,
                    "UpdatedAt": self._time(1).replace("+00:00", ".000Z"),
                }
            )
        return {"Findings": out}


def _spread(total: int, count: int) -> set[int]:
    """`count` indexes spread evenly over range(total) (none when total is 0)."""
    if total <= 0 or count <= 0:
        return set()
    step = max(1, total // count)
    return {i * step for i in range(min(count, total))}


def _unique(attached: list[dict[str, str]]) -> list[dict[str, str]]:
    seen: dict[str, dict[str, str]] = {}
    for item in attached:
        seen.setdefault(item["PolicyArn"], item)
    return list(seen.values())


def generate_aws(options: AwsGenerateOptions) -> dict[str, Any]:
    """The account's files as decoded JSON, by file name (see AWS_FILES)."""
    account = _Account(options)
    policies = account.managed_policies()
    aws = account.aws_managed()
    groups = account.groups(policies, aws)
    users = account.users(policies, aws)
    roles, profiles = account.roles(policies, aws)
    instances = account.instances(profiles)
    gaad = {
        "UserDetailList": users,
        "GroupDetailList": groups,
        "RoleDetailList": roles,
        "Policies": policies + [p for p in aws if p["AttachmentCount"]],
    }
    return {
        AWS_FILES["gaad"]: gaad,
        AWS_FILES["credential_report"]: account.credential_report(users),
        AWS_FILES["instances"]: instances,
        AWS_FILES["functions"]: account.functions(),
        AWS_FILES["buckets"]: account.list_buckets(),
        AWS_FILES["findings"]: account.findings(users, instances),
    }


def _write_json(path: Path, data: Any) -> int:
    raw = json.dumps(data, indent=None, separators=(",", ":")).encode("utf-8")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return len(raw)


def write_aws_collection(options: AwsGenerateOptions, out_dir: str | Path) -> AwsGenerateReport:
    """Generate the account and write its files into `out_dir` (created if needed)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = generate_aws(options)
    report = AwsGenerateReport(out=str(out), account_id=options.account_id)
    for name, data in files.items():
        report.files[name] = _write_json(out / name, data)
    gaad = files[AWS_FILES["gaad"]]
    report.counts = {
        "users": len(gaad["UserDetailList"]),
        "groups": len(gaad["GroupDetailList"]),
        "roles": len(gaad["RoleDetailList"]),
        "policies": len(gaad["Policies"]),
        "buckets": len(files[AWS_FILES["buckets"]]["Buckets"]),
        "instances": len(files[AWS_FILES["instances"]]["Reservations"]),
        "functions": len(files[AWS_FILES["functions"]]["Functions"]),
        "findings": len(files[AWS_FILES["findings"]]["Findings"]),
    }
    return report
