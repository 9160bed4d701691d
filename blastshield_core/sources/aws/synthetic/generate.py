"""Synthetic AWS accounts of a chosen size, written as the AWS CLI writes them (`generate-aws`).

The collection folder holds one JSON file per read-only call, named as the collector names it
(`AWS_FILES`: the exports of `exports.py` it writes: the authorization details, the credential report,
instances, functions, buckets and findings; bucket policies and the organisation with their options),
in the shapes the AWS CLI prints (policy documents as objects, times as ISO 8601 text, the credential
report base64 as the API returns it).

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

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..exports import EXPORT
from .account import AwsGenerateOptions
from .escalations import plant_escalations
from .iam import _IamRecords
from .policies import write_policy_files
from .resources import _ResourceRecords

__all__ = [
    "AWS_FILES",
    "AwsGenerateOptions",
    "AwsGenerateReport",
    "generate_aws",
    "write_aws_collection",
]

AWS_FILES = {
    kind: EXPORT[kind].path() for kind in ("gaad", "credential_report", "instances", "functions", "buckets", "findings")
}


@dataclass
class AwsGenerateReport:
    """What was written."""

    out: str
    account_id: str
    files: dict[str, int] = field(default_factory=dict)  # file name -> bytes
    counts: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"status": "ok", "out": self.out, "account_id": self.account_id, "files": self.files, **self.counts}


class _Account(_IamRecords, _ResourceRecords):
    """One generated account; each method builds one kind of record."""


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
    if options.escalations:
        boundary = account.policy_arn(options.policies - 1) if options.policies else None
        plant_escalations(gaad, options.escalations, options.seed, options.account_id, boundary)
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
    if options.bucket_policies or options.org_levels:
        written = write_policy_files(
            out,
            _write_json,
            account=options.account_id,
            partner=options.partner_account_id,
            buckets=[b["Name"] for b in files[AWS_FILES["buckets"]]["Buckets"]],
            role_arns=[r["Arn"] for r in gaad["RoleDetailList"]],
            teams=options.team_count,
            bucket_policies=options.bucket_policies,
            org_levels=options.org_levels,
            scps=options.scps,
        )
        report.files.update(written)
        report.counts["bucket_policies"] = sum(1 for k in written if k.startswith(EXPORT["bucket_policy"].path()))
        report.counts["scps"] = options.scps if options.org_levels else 0
    if options.escalations:
        report.counts["escalations"] = sum(
            1
            for entry in gaad["UserDetailList"] + gaad["RoleDetailList"]
            for policy in entry.get("UserPolicyList", entry.get("RolePolicyList", []))
            if policy["PolicyName"].startswith("escalation-")
        )
    return report
