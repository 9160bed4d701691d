"""The exports: every AWS file BlastShield collects or imports, in one table.

Each export names the AWS CLI call that writes it, its file in an account's collection folder, the
IAM actions the collector calls to write it (in call order), and how the importer recognises it.
The collector (`collect/collector.py`) writes these files and calls only these actions, the importer
(`build/get.py`) recognises files with these recognisers and folder names, the generators
(`synthetic/`) write the same file names, and the collector's documented IAM policy
(docs/aws-live.md) is held to `COLLECTOR_ACTIONS` by a test. Pure: no I/O, no other module of ours.

Most exports are recognised by their content (`recognise`); a per-resource export (cloudmapper's
layout: calls whose output does not name its resource) is a folder named `file`, one file per
resource named after it, recognised by that folder. The caller identity is written by the
collector (it names the account) and not imported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["COLLECTOR_ACTIONS", "EXPORT", "EXPORTS", "OTHER_COLLECTOR_ACTIONS", "Export"]

Recogniser = Callable[[Mapping[str, Any]], bool]


@dataclass(frozen=True)
class Export:
    """One export: its kind, the CLI call, its file (a per-resource export: its folder), the IAM actions the
    collector calls to write it, and the recogniser of its content (None: by its folder, or not imported)."""

    kind: str
    cli: str
    file: str
    actions: tuple[str, ...]
    recognise: Recogniser | None = None
    per_resource: bool = False
    imported: bool = True

    @property
    def action(self) -> str:
        """The IAM action of the export's (first) call."""
        return self.actions[0]

    @property
    def what(self) -> str:
        """The export as the import's report names it."""
        return f"{self.cli} (one file per {self.resource_name})" if self.per_resource else self.cli

    @property
    def resource_name(self) -> str:
        return _RESOURCE_NAMES.get(self.kind, "resource")

    def path(self, part: str = "") -> str:
        """The file's path in an account's folder: a per-resource export's `folder/RESOURCE`, an export
        written once per filter (`{}` in its name) with that filter, any other its file name."""
        if self.per_resource:
            return f"{self.file}/{part}"
        return self.file.format(part) if "{}" in self.file else self.file


def _list(key: str) -> Recogniser:
    return lambda data: isinstance(data.get(key), list)


def _gaad(data: Mapping[str, Any]) -> bool:
    keys = set(data)
    return bool(
        keys & {"UserDetailList", "RoleDetailList"} and keys & {"GroupDetailList", "Policies", "RoleDetailList"}
    )


def _credential_report(data: Mapping[str, Any]) -> bool:
    return isinstance(data.get("Content"), str) and bool(set(data) & {"ReportFormat", "GeneratedTime"})


def _org_policies(data: Mapping[str, Any]) -> bool:
    policies = data.get("Policies")
    return isinstance(policies, list) and all(isinstance(p, dict) and "Type" in p and "Id" in p for p in policies)


def _cloudtrail(data: Mapping[str, Any]) -> bool:
    """A CloudTrail log file (`Records`, each naming its `eventName`) or `lookup-events` output (`Events`,
    each naming its `EventName`): read for who undid a containment action (`cloudtrail.py`)."""
    records, events = data.get("Records"), data.get("Events")
    if isinstance(records, list):
        return all(isinstance(r, dict) and "eventName" in r for r in records)
    return isinstance(events, list) and all(isinstance(e, dict) and "EventName" in e for e in events)


_RESOURCE_NAMES = {
    "bucket_policy": "bucket",
    "secret_policy": "secret",
    "key_policy": "key",
    "org_parents": "account or OU",
    "org_policy": "policy",
    "org_targets": "policy",
}

# In the order the importer tries the recognisers (the first that matches decides: a GAAD also holds
# `Policies`, so it comes before the organisation's policy list).
EXPORTS: tuple[Export, ...] = (
    Export(
        "gaad",
        "aws iam get-account-authorization-details",
        "iam-get-account-authorization-details.json",
        ("iam:GetAccountAuthorizationDetails",),
        _gaad,
    ),
    Export("instances", "aws ec2 describe-instances", "ec2-describe-instances.json", ("ec2:DescribeInstances",),
           _list("Reservations")),
    Export("functions", "aws lambda list-functions", "lambda-list-functions.json", ("lambda:ListFunctions",),
           _list("Functions")),
    Export(
        "credential_report",
        "aws iam get-credential-report",
        "iam-get-credential-report.json",
        ("iam:GenerateCredentialReport", "iam:GetCredentialReport"),
        _credential_report,
    ),
    Export("buckets", "aws s3api list-buckets", "s3-list-buckets.json", ("s3:ListAllMyBuckets", "s3:GetBucketTagging"),
           _list("Buckets")),
    Export(
        "findings",
        "aws guardduty get-findings",
        "guardduty-get-findings.json",
        ("guardduty:ListDetectors", "guardduty:ListFindings", "guardduty:GetFindings"),
        _list("Findings"),
    ),
    Export("access_keys", "aws iam list-access-keys", "iam-list-access-keys.json", ("iam:ListAccessKeys",),
           _list("AccessKeyMetadata")),
    Export("secrets", "aws secretsmanager list-secrets", "secretsmanager-list-secrets.json",
           ("secretsmanager:ListSecrets",), _list("SecretList")),
    Export("kms_keys", "aws kms list-keys", "kms-list-keys.json", ("kms:ListKeys",), _list("Keys")),
    # not collected (no action): CloudTrail events the analyst exports and adds to the import
    Export("cloudtrail", "aws cloudtrail lookup-events", "cloudtrail-lookup-events.json", (), _cloudtrail),
    Export("organization", "aws organizations describe-organization", "organizations-describe-organization.json",
           ("organizations:DescribeOrganization",), lambda data: isinstance(data.get("Organization"), dict)),
    Export("org_roots", "aws organizations list-roots", "organizations-list-roots.json", ("organizations:ListRoots",),
           _list("Roots")),
    Export("org_policies", "aws organizations list-policies", "organizations-list-policies-{}.json",
           ("organizations:ListPolicies",), _org_policies),
    Export("bucket_policy", "aws s3api get-bucket-policy", "s3-get-bucket-policy", ("s3:GetBucketPolicy",),
           per_resource=True),
    Export("secret_policy", "aws secretsmanager get-resource-policy", "secretsmanager-get-resource-policy",
           ("secretsmanager:GetResourcePolicy",), per_resource=True),
    Export("key_policy", "aws kms get-key-policy", "kms-get-key-policy", ("kms:GetKeyPolicy",), per_resource=True),
    Export("org_parents", "aws organizations list-parents", "organizations-list-parents",
           ("organizations:ListParents",), per_resource=True),
    Export("org_policy", "aws organizations describe-policy", "organizations-describe-policy",
           ("organizations:DescribePolicy",), per_resource=True),
    Export("org_targets", "aws organizations list-targets-for-policy", "organizations-list-targets-for-policy",
           ("organizations:ListTargetsForPolicy",), per_resource=True),
    Export("caller_identity", "aws sts get-caller-identity", "sts-get-caller-identity.json",
           ("sts:GetCallerIdentity",), imported=False),
    # the collector's record of what a collection holds (collect/manifest.py): read for its warnings only
    Export("collection_manifest", "collect-aws (its manifest)", "collection-manifest.json", (), imported=False),
)  # fmt: skip
EXPORT: dict[str, Export] = {e.kind: e for e in EXPORTS}

# What the collector calls beyond writing an export's file: action -> why.
OTHER_COLLECTOR_ACTIONS: dict[str, str] = {
    "iam:ListUserPolicies": "the re-collection of one user's slice after a containment action",
    "iam:GetUserPolicy": "the re-collection of one user's slice after a containment action",
    "organizations:ListAccounts": "--organization: the organisation's accounts",
    "sts:AssumeRole": "--organization: the member role in each account",
}

# Every action the collector calls (the IAM permission each call needs), the exports' first.
COLLECTOR_ACTIONS: tuple[str, ...] = tuple(
    dict.fromkeys([a for e in EXPORTS for a in e.actions] + list(OTHER_COLLECTOR_ACTIONS))
)
