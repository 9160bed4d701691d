"""Bucket policies and an organisation with SCPs for a generated account, written in cloudmapper's
per-resource layout (`generate-aws --bucket-policies N --org-levels L --scps N`).

Bucket policies, one per bucket from the first, cycle through what real accounts hold: a read
granted to the partner account, a public read, a Deny to principals outside the organisation
(`aws:PrincipalOrgID`), a Deny to everyone outside a VPC endpoint (`aws:SourceVpce`, a key the
snapshot cannot know), a Deny of reads to everyone but the team's roles (`aws:PrincipalArn`), and a
read of one key prefix granted to a role of the account. The organisation: the generated
account sits `L - 1` OUs below the root (the management account is another one); every level
keeps the AWS-managed `FullAWSAccess`; N SCPs spread over the levels deny actions the import
models on some resources (reads of `pii` buckets, secrets, regions by a condition) or actions
it does not model. The same options and seed give the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..exports import EXPORT
from .account import VERSION

__all__ = ["organization_files", "write_policy_files"]

MANAGEMENT_ACCOUNT = "999988887777"
ORG_ID = "o-gen0000001"
ROOT_ID = "r-gen0"
FULL_ACCESS = "p-FullAWSAccess"


def _doc(*statements: dict[str, Any]) -> str:
    return json.dumps({"Version": VERSION, "Statement": list(statements)}, separators=(",", ":"))


def bucket_policy(index: int, bucket: str, account: str, partner: str, team_roles: list[str]) -> str:
    """The policy text of the `index`-th bucket with a policy (the kinds cycle)."""
    objects = f"arn:aws:s3:::{bucket}/*"
    read = {"Action": ["s3:GetObject"], "Resource": objects}
    kind = index % 6
    if kind == 0:  # a cross-account grant
        return _doc({"Sid": "Partner", "Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{partner}:root"}, **read})
    if kind == 1:  # public
        return _doc({"Sid": "Public", "Effect": "Allow", "Principal": "*", **read})
    if kind == 2:  # the data perimeter: no principal outside the organisation
        return _doc(
            {
                "Sid": "OrgOnly",
                "Effect": "Deny",
                "Principal": "*",
                **read,
                "Condition": {"StringNotEqualsIfExists": {"aws:PrincipalOrgID": ORG_ID}},
            }
        )
    if kind == 3:  # a network-bound Deny the snapshot cannot decide
        return _doc(
            {
                "Sid": "VpceOnly",
                "Effect": "Deny",
                "Principal": "*",
                "Action": "s3:*",
                "Resource": [f"arn:aws:s3:::{bucket}", objects],
                "Condition": {"StringNotEquals": {"aws:SourceVpce": "vpce-0a1b2c3d"}},
            }
        )
    if kind == 4 and team_roles:  # only the team's roles read
        return _doc(
            {
                "Sid": "TeamOnly",
                "Effect": "Deny",
                "Principal": "*",
                **read,
                "Condition": {"ArnNotLike": {"aws:PrincipalArn": team_roles[:3]}},
            }
        )
    role = team_roles[0] if team_roles else f"arn:aws:iam::{account}:root"
    return _doc(
        {
            "Sid": "Reports",
            "Effect": "Allow",
            "Principal": {"AWS": role},
            "Action": "s3:GetObject",
            "Resource": f"arn:aws:s3:::{bucket}/reports/*",
        }
    )


def _scp(index: int, account: str) -> dict[str, Any]:
    """The `index`-th generated SCP's content (the kinds cycle)."""
    kind = index % 4
    if kind == 0:
        statement: dict[str, Any] = {
            "Effect": "Deny",
            "Action": "s3:GetObject",
            "Resource": f"arn:aws:s3:::t{index}-pii-*/*",
        }
    elif kind == 1:
        statement = {
            "Effect": "Deny",
            "Action": "secretsmanager:GetSecretValue",
            "Resource": f"arn:aws:secretsmanager:*:{account}:secret:t{index}-*",
        }
    elif kind == 2:
        statement = {
            "Effect": "Deny",
            "NotAction": ["iam:*", "sts:*", "organizations:*"],
            "Resource": "*",
            "Condition": {"StringNotEquals": {"aws:RequestedRegion": ["us-east-1", "eu-west-1"]}},
        }
    else:
        statement = {"Effect": "Deny", "Action": ["ec2:DeleteVpc", "cloudtrail:StopLogging"], "Resource": "*"}
    return {"Version": VERSION, "Statement": [{"Sid": f"Guard{index}", **statement}]}


def organization_files(account: str, levels: int, scps: int) -> dict[str, Any]:
    """The organisation's exports by relative path: `account` sits `levels - 1` OUs below the root."""
    chain = [ROOT_ID] + [f"ou-gen0-level{n}" for n in range(1, max(1, levels))]
    files: dict[str, Any] = {
        EXPORT["organization"].path(): {
            "Organization": {
                "Id": ORG_ID,
                "Arn": f"arn:aws:organizations::{MANAGEMENT_ACCOUNT}:organization/{ORG_ID}",
                "FeatureSet": "ALL",
                "MasterAccountId": MANAGEMENT_ACCOUNT,
            }
        },
        EXPORT["org_roots"].path(): {
            "Roots": [
                {
                    "Id": ROOT_ID,
                    "Name": "Root",
                    "PolicyTypes": [{"Type": "SERVICE_CONTROL_POLICY", "Status": "ENABLED"}],
                }
            ]
        },
    }
    nodes = [*chain, account]
    for child, parent in zip(nodes[1:], nodes[:-1], strict=True):
        files[EXPORT["org_parents"].path(child)] = {"Parents": [{"Id": parent, "Type": _target_type(parent)}]}
    policies = [(FULL_ACCESS, "FullAWSAccess", {"Version": VERSION, "Statement": [_allow_all()]}, nodes)]
    for index in range(scps):
        policies.append((f"p-gen{index:08d}", f"guard-{index}", _scp(index, account), [nodes[index % len(nodes)]]))
    summaries = []
    for policy_id, name, content, targets in policies:
        summary = {
            "Id": policy_id,
            "Arn": f"arn:aws:organizations::aws:policy/service_control_policy/{policy_id}",
            "Name": name,
            "Type": "SERVICE_CONTROL_POLICY",
            "AwsManaged": policy_id == FULL_ACCESS,
        }
        summaries.append(summary)
        files[EXPORT["org_policy"].path(policy_id)] = {
            "Policy": {"PolicySummary": summary, "Content": json.dumps(content, separators=(",", ":"))}
        }
        files[EXPORT["org_targets"].path(policy_id)] = {
            "Targets": [{"TargetId": t, "Name": t, "Type": _target_type(t)} for t in targets]
        }
    files[EXPORT["org_policies"].path("SERVICE_CONTROL_POLICY")] = {"Policies": summaries}
    return files


def _allow_all() -> dict[str, Any]:
    return {"Effect": "Allow", "Action": "*", "Resource": "*"}


def _target_type(target: str) -> str:
    if target.startswith("r-"):
        return "ROOT"
    return "ORGANIZATIONAL_UNIT" if target.startswith("ou-") else "ACCOUNT"


def write_policy_files(
    out: Path,
    write_json: Any,
    *,
    account: str,
    partner: str,
    buckets: list[str],
    role_arns: list[str],
    teams: int,
    bucket_policies: int,
    org_levels: int,
    scps: int,
) -> dict[str, int]:
    """Write the bucket policies and the organisation into `out`; bytes per relative path."""
    written: dict[str, int] = {}
    team_roles: dict[int, list[str]] = {}
    for arn in role_arns:
        name = arn.rsplit("/", 1)[-1]
        if name.startswith("t") and "-" in name and name[1 : name.index("-")].isdigit():
            team_roles.setdefault(int(name[1 : name.index("-")]) % max(1, teams), []).append(arn)
    policies = EXPORT["bucket_policy"]
    for index, bucket in enumerate(buckets[:bucket_policies]):
        (out / policies.file).mkdir(parents=True, exist_ok=True)
        text = bucket_policy(index, bucket, account, partner, team_roles.get(index % max(1, teams), []))
        written[policies.path(bucket)] = write_json(out / policies.path(bucket), {"Policy": text})
    if org_levels:
        for relative, data in organization_files(account, org_levels, scps).items():
            path = out / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            written[relative] = write_json(path, data)
    return written
