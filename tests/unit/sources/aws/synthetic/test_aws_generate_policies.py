"""`generate-aws --bucket-policies N --org-levels L --scps N`: bucket policies and an organisation
with SCPs in cloudmapper's per-resource layout, read back by the import as written."""

from __future__ import annotations

import json

from blastshield_core.sources.aws import build_document, read_sources
from blastshield_core.sources.aws.synthetic.generate import AwsGenerateOptions, write_aws_collection


def _generate(tmp_path, **extra):
    options = AwsGenerateOptions(users=60, roles=30, policies=40, buckets=24, seed=3, **extra)
    return write_aws_collection(options, tmp_path / "account"), tmp_path / "account"


def test_policies_and_organisation_are_written_per_resource_and_read_back(tmp_path):
    """Each bucket policy is `s3-get-bucket-policy/BUCKET` holding `{"Policy": text}`; the account sits
    two OUs below the root; every SCP and FullAWSAccess is read, with no warning."""
    report, folder = _generate(tmp_path, bucket_policies=12, org_levels=3, scps=5)
    assert report.counts["bucket_policies"] == 12 and report.counts["scps"] == 5
    policies = sorted((folder / "s3-get-bucket-policy").iterdir())
    assert len(policies) == 12
    assert all(isinstance(json.loads(p.read_text())["Policy"], str) for p in policies)
    account_parent = json.loads((folder / "organizations-list-parents" / "111122223333").read_text())
    assert account_parent["Parents"][0]["Id"] == "ou-gen0-level2"
    doc, built = build_document(read_sources([folder]))
    counts = built.policy_counts
    assert counts["resource_policies_read"]["bucket"] == 12
    assert counts["scps_read"] == 6  # the five and FullAWSAccess
    assert counts["public_assets"] == 2  # one in six is public
    assert counts["edges_denied_by_guardrails"] > 0  # the SCPs denying reads of pii buckets
    assert not built.warnings
    public = [n for n in doc.nodes if n.properties.get("public")]
    assert len(public) == 2


def test_same_options_give_the_same_bytes_and_none_gives_no_files(tmp_path):
    """Reproducible by seed; without the options nothing of it is written."""
    first, one = _generate(tmp_path / "one", bucket_policies=6, org_levels=2, scps=3)
    _, two = _generate(tmp_path / "two", bucket_policies=6, org_levels=2, scps=3)
    assert all((one / name).read_bytes() == (two / name).read_bytes() for name in first.files)
    plain, plain_folder = _generate(tmp_path / "three")
    assert not (plain_folder / "s3-get-bucket-policy").exists()
    assert "bucket_policies" not in plain.counts
