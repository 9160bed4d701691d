"""The generated account's shape: its options, names, ids, times and random source, which the
IAM and resource records (generate_iam.py, generate_resources.py) build on."""

from __future__ import annotations

import random
import string
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

BASE_TIME = datetime(2025, 6, 1, 9, 0, 0, tzinfo=UTC)
VERSION = "2012-10-17"
REGIONS = ("us-east-1", "us-west-2", "eu-west-1")


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
    escalations: Annotated[int, Field(ge=0, le=200_000)] = 0  # planted escalation permissions (and controls)
    bucket_policies: Annotated[int, Field(ge=0, le=200_000)] = 0  # policies of the first N buckets
    org_levels: Annotated[int, Field(ge=0, le=5)] = 0  # 0: no organisation; else root + OUs above the account
    scps: Annotated[int, Field(ge=0, le=10_000)] = 0  # SCPs beyond FullAWSAccess (with org_levels)
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


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


class _AccountBase:
    """One generated account's names and random source; the record parts build on it."""

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


def _spread(total: int, count: int) -> set[int]:
    """`count` indexes spread evenly over range(total) (none when total is 0)."""
    if total <= 0 or count <= 0:
        return set()
    step = max(1, total // count)
    return {i * step for i in range(min(count, total))}
