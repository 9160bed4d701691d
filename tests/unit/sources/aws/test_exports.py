"""The table of exports (sources/aws/exports.py) against what reads it and what documents it: the
importer's recognition, the generator's file names and the collector's documented IAM policy.

AWS documentation cited: Service Authorization Reference, "Actions, resources, and condition keys
for AWS services" (each collector call's IAM action has the name of its API operation, e.g.
"GetAccountAuthorizationDetails" under AWS Identity and Access Management, "ListAllMyBuckets" under
Amazon S3, which `ListBuckets` needs); AWS CLI Command Reference for the calls' names.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from blastshield_core.sources.aws.build.get import KINDS, PER_RESOURCE, recognise
from blastshield_core.sources.aws.exports import COLLECTOR_ACTIONS, EXPORT, EXPORTS, OTHER_COLLECTOR_ACTIONS
from blastshield_core.sources.aws.iam.policy import Effect, evaluate, parse_policy
from blastshield_core.sources.aws.synthetic.generate import AWS_FILES

ROOT = Path(__file__).resolve().parents[4]
LIVE = (ROOT / "docs" / "aws-live.md").read_text(encoding="utf-8")
IMPORT = (ROOT / "docs" / "aws-import.md").read_text(encoding="utf-8")

# One sample of each export the importer reads by content, as the AWS CLI prints it (keys only).
SAMPLES = {
    "gaad": {"UserDetailList": [], "GroupDetailList": [], "RoleDetailList": [], "Policies": []},
    "instances": {"Reservations": []},
    "functions": {"Functions": []},
    "credential_report": {"Content": "dXNlcg==", "ReportFormat": "text/csv", "GeneratedTime": "2026-01-01T00:00:00Z"},
    "buckets": {"Buckets": [], "Owner": {}},
    "findings": {"Findings": []},
    "access_keys": {"AccessKeyMetadata": []},
    "secrets": {"SecretList": []},
    "kms_keys": {"Keys": []},
    "cloudtrail": {"Events": [{"EventName": "UpdateAccessKey", "CloudTrailEvent": "{}"}], "NextToken": "x"},
    "organization": {"Organization": {"Id": "o-1"}},
    "org_roots": {"Roots": []},
    "org_policies": {"Policies": [{"Id": "p-1", "Type": "SERVICE_CONTROL_POLICY"}]},
}


def _collector_policy() -> dict:
    block = re.search(r"```json collector-policy\n(.*?)```", LIVE, re.S)
    assert block, "docs/aws-live.md has no collector-policy block"
    return json.loads(block[1])


def test_each_export_is_recognised_as_its_kind_and_nothing_else_claims_it():
    """The importer's recognition is the table's recognisers, in the table's order."""
    by_content = [e for e in EXPORTS if e.recognise is not None]
    assert {e.kind for e in by_content} == set(SAMPLES)
    for kind, sample in SAMPLES.items():
        assert recognise(sample) == kind
        assert [e.kind for e in by_content if e.recognise(sample)][0] == kind
    assert recognise({"Account": "123456789012", "Arn": "x", "UserId": "y"}) is None  # the caller identity
    assert recognise({"Policies": [{"Arn": "arn:aws:iam::aws:policy/x"}]}) is None  # a GAAD's list alone


def test_the_importer_names_and_folders_come_from_the_table():
    assert KINDS == {e.kind: e.what for e in EXPORTS if e.imported}
    assert PER_RESOURCE == {e.file: e.kind for e in EXPORTS if e.per_resource}
    assert KINDS["bucket_policy"] == "aws s3api get-bucket-policy (one file per bucket)"
    assert all(e.recognise is None for e in EXPORTS if e.per_resource or not e.imported)


def test_paths_of_an_export():
    assert EXPORT["gaad"].path() == "iam-get-account-authorization-details.json"
    assert EXPORT["bucket_policy"].path("crown-jewels") == "s3-get-bucket-policy/crown-jewels"
    assert (
        EXPORT["org_policies"].path("RESOURCE_CONTROL_POLICY")
        == "organizations-list-policies-RESOURCE_CONTROL_POLICY.json"
    )


def test_the_generator_writes_the_collectors_file_names():
    assert AWS_FILES == {kind: EXPORT[kind].file for kind in AWS_FILES}
    assert AWS_FILES["gaad"] == "iam-get-account-authorization-details.json"


def test_the_documented_collector_policy_is_the_table():
    """docs/aws-live.md's collector policy allows exactly the table's actions (the member role's
    `sts:AssumeRole` in a statement of its own, on the member role), each allowed when the document is
    fed to the project's evaluator, and the reads containment makes in the statement between."""
    policy = _collector_policy()
    reads, _plan, member = policy["Statement"]
    assert set(reads["Action"]) == set(COLLECTOR_ACTIONS) - {"sts:AssumeRole"}
    assert len(reads["Action"]) == len(set(reads["Action"]))
    assert member["Action"] == "sts:AssumeRole" and "sts:AssumeRole" in OTHER_COLLECTOR_ACTIONS
    statements = parse_policy(policy)
    for action in COLLECTOR_ACTIONS:
        resource = "arn:aws:iam::123456789012:role/BlastShieldReadOnly" if action == "sts:AssumeRole" else "*"
        assert evaluate(statements, action, resource).effect is Effect.ALLOW, action


@pytest.mark.parametrize("export", [e for e in EXPORTS], ids=lambda e: e.kind)
def test_the_documented_collection_names_each_export_and_its_calls(export):
    """docs/aws-live.md's table of files names every export's file (a per-resource export's folder) and
    the IAM action of each of its calls; docs/aws-import.md names the CLI call of every export it reads."""
    rows = [line for line in LIVE.splitlines() if line.startswith("| `")]
    name = f"`{export.file}/" if export.per_resource else f"`{export.file.replace('{}', 'SERVICE_CONTROL_POLICY')}`"
    row = next((line for line in rows if name in line), None)
    assert row is not None, f"docs/aws-live.md lists no {name}"
    for action in export.actions:
        assert action in row, f"{action} is not on the row of {name}"
    if export.imported:
        assert export.cli.split(" ", 2)[2] in IMPORT or export.cli in IMPORT, export.cli
