"""Resource policies and organisation guardrails in the AWS import: read in cloudmapper's per-resource
layout (shapes from moto), and the edges they decide. Each rule cites the AWS documentation."""

from __future__ import annotations

import shutil

import pytest

from blastshield_core.graph.model import GraphDocument
from blastshield_core.sources.aws import build_document, read_sources
from tests.helpers.aws_policy_bundle import A, facts, policy_bundle


def _build(*folders):
    root = policy_bundle()
    doc, report = build_document(read_sources([root / f for f in folders]))
    edges = {(e.source, e.type.value, e.target): e.properties for e in doc.edges}
    nodes = {n.id: n for n in doc.nodes}
    return doc, report, edges, nodes


def _read(edges, who, asset):
    return edges.get((who, "CAN_READ", asset))


B_PARTNER = lambda: f"{facts()['b']}:role:partner"  # noqa: E731


def test_per_resource_files_are_read_with_their_resource_named_by_the_file():
    """Files in a call's folder (cloudmapper's layout) are recognised by the folder and keep the
    resource their name names; a file there that is not JSON is skipped with the reason."""
    sources = read_sources([policy_bundle() / "a"])
    policies = {f.resource for f in sources.of("bucket_policy")}
    assert "team-data" in policies and "public-site" in policies
    assert {f.resource for f in sources.of("key_policy")} == set(facts()["keys"].values())
    assert len(sources.of("secrets")) == 1 and len(sources.of("kms_keys")) == 1


def test_per_resource_file_that_is_not_json_is_skipped_not_fatal(tmp_path):
    """A collector writes its error text where the output would be: reported, nothing else lost."""
    folder = tmp_path / "a"
    shutil.copytree(policy_bundle() / "a", folder)
    (folder / "s3-get-bucket-policy" / "broken").write_text("An error occurred (NoSuchBucketPolicy)")
    sources = read_sources([folder])
    assert any(s["file"].endswith("broken") and "not valid JSON" in s["reason"] for s in sources.skipped)
    assert len(sources.of("bucket_policy")) == 8


def test_same_account_resource_policy_naming_the_principal_grants_on_its_own():
    """IAM User Guide, "Policy evaluation logic" (same account): a resource-based policy that names
    the principal allows even when no identity-based policy does."""
    _, report, edges, _ = _build("a")
    props = _read(edges, f"{A}:role:named-role", f"{A}:bucket:team-data")
    assert props["permission"] == "allow" and props["basis"] == "resource policy"
    assert not props.get("conditional")
    assert report.policy_counts["edges_added_by_resource_policies"] >= 1


def test_explicit_deny_in_a_bucket_policy_turns_the_grant_into_a_deny_edge():
    """IAM User Guide, "Policy evaluation logic": an explicit Deny in any policy overrides an Allow.
    The edge is kept as a denied grant (permission deny), which qualifying paths exclude."""
    _, report, edges, _ = _build("a")
    assert _read(edges, f"{A}:user:reader:policies", f"{A}:bucket:locked") == {
        "permission": "deny",
        "status": "active",
    }
    assert report.policy_counts["edges_denied_by_resource_policies"] >= 1


def test_cross_account_read_needs_both_sides():
    """IAM User Guide, "Cross-account policy evaluation logic": the identity policy in the trusted
    account and the resource policy in the trusting account must both allow."""
    _, report, edges, _ = _build("a", "b")
    both = _read(edges, B_PARTNER(), f"{A}:bucket:shared-data")
    assert both["permission"] == "allow" and both["basis"] == "identity and resource policy"
    assert _read(edges, B_PARTNER(), f"{A}:bucket:a-only") is None  # the bucket policy names only A's reader
    assert report.policy_counts["edges_removed_by_resource_policies"] >= 1


def test_cross_account_read_without_the_collected_policy_stays_marked():
    """Without the bucket's policy the cross-account answer rests on the identity side alone: the
    edge stays, marked, so evidence is never hidden for lack of data."""
    _, report, edges, _ = _build("a", "b")
    props = _read(edges, B_PARTNER(), f"{A}:bucket:uncollected")
    assert props["permission"] == "allow" and props["basis"] == "identity policy only"
    assert report.policy_counts["edges_identity_policy_only"] >= 1


def test_principal_star_without_condition_is_public():
    """Amazon S3 User Guide, "Blocking public access" ("The meaning of public"): a policy granting
    to `*` without a fixed-value condition is public. The asset carries public: true and is read
    from the node that stands for anyone."""
    _, report, edges, nodes = _build("a")
    asset = f"{A}:bucket:public-site"
    assert nodes[asset].properties.get("public") is True
    props = _read(edges, "any-aws-principal:policies", asset)
    assert props["permission"] == "allow" and not props.get("conditional")
    assert not nodes[f"{A}:bucket:team-data"].properties.get("public")
    assert report.policy_counts["public_assets"] == 1


def test_principal_star_with_an_unknown_condition_is_conditional_not_public():
    """A `*` grant limited by a key the snapshot cannot know (aws:SourceVpce) is a conditional read
    from anyone naming the key, not a public asset (IAM User Guide, "Condition")."""
    _, _, edges, nodes = _build("a")
    props = _read(edges, "any-aws-principal:policies", f"{A}:bucket:vpc-only")
    assert props["conditional"] is True and props["condition_keys"] == ["aws:SourceVpce"]
    assert not nodes[f"{A}:bucket:vpc-only"].properties.get("public")


def test_principal_org_id_is_decided_from_the_organisation():
    """AWS global condition keys, aws:PrincipalOrgID: the organisation of the principal's account.
    With the organisation collected, B (a member) reads unconditionally with its identity policy;
    without it, the read is conditional on the key."""
    _, _, edges, _ = _build("a", "b", "org")
    decided = _read(edges, B_PARTNER(), f"{A}:bucket:org-only")
    assert decided["permission"] == "allow" and not decided.get("conditional")
    _, _, edges, _ = _build("a", "b")
    undecided = _read(edges, B_PARTNER(), f"{A}:bucket:org-only")
    assert undecided["conditional"] is True and "aws:PrincipalOrgID" in undecided["condition_keys"]


def test_principal_tag_is_decided_from_exported_tags():
    """AWS global condition keys, aws:PrincipalTag/key: the tags attached to the principal. A user
    tagged team=data reads by the bucket policy alone (same account); one tagged team=web does not."""
    _, _, edges, _ = _build("a")
    tagged = _read(edges, f"{A}:user:tagged:policies", f"{A}:bucket:by-tag")
    assert tagged["permission"] == "allow" and not tagged.get("conditional")
    assert _read(edges, f"{A}:user:untagged:policies", f"{A}:bucket:by-tag") is None


def test_key_policy_must_allow():
    """AWS KMS Developer Guide, "Key policies": without a key policy statement allowing it, IAM
    policies alone give no access; the default key policy (the account) hands over to IAM policies."""
    _, _, edges, _ = _build("a")
    keys = facts()["keys"]
    account_key = _read(edges, f"{A}:user:reader:policies", f"{A}:kms_key:{keys['account']}")
    assert account_key["permission"] == "allow" and account_key["basis"] == "identity and key policy"
    assert _read(edges, f"{A}:user:reader:policies", f"{A}:kms_key:{keys['role']}") is None
    role = _read(edges, f"{A}:role:named-role", f"{A}:kms_key:{keys['role']}")
    assert role["permission"] == "allow" and role["basis"] == "key policy"


def test_scp_deny_at_an_ou_denies_the_member_account_and_spares_the_management_account():
    """AWS Organizations User Guide, "Service control policies": an explicit Deny at any level from
    the root to the account applies; SCPs do not affect the management account."""
    _, report, edges, _ = _build("a", "b")
    secret = next(t for _, r, t in edges if r == "CAN_READ" and ":secret:shared-secret" in t)
    assert _read(edges, B_PARTNER(), secret)["permission"] == "allow"
    _, report, edges, _ = _build("a", "b", "org")
    assert _read(edges, B_PARTNER(), secret) == {"permission": "deny", "status": "active"}
    assert report.policy_counts["scps_read"] == 2
    assert report.policy_counts["edges_denied_by_guardrails"] >= 1
    # A is the management account: its reads are untouched by the SCPs
    assert _read(edges, f"{A}:user:reader:policies", f"{A}:bucket:public-site")["permission"] == "allow"


def test_scps_whose_targets_were_not_all_collected_are_not_applied(tmp_path):
    """Every level from the root to the account must allow (AWS Organizations User Guide, "SCP
    evaluation"); when an SCP's targets were not collected the levels cannot be judged, so SCPs
    are not applied (an edge is never removed for lack of data) and a warning says so."""
    folder = tmp_path / "org"
    shutil.copytree(policy_bundle() / "org", folder)
    for targets in (folder / "organizations-list-targets-for-policy").iterdir():
        if targets.name != "p-FullAWSAccess":
            targets.unlink()
    root = policy_bundle()
    doc, report = build_document(read_sources([root / "a", root / "b", folder]))
    edges = {(e.source, e.type.value, e.target): e.properties for e in doc.edges}
    secret = next(t for _, r, t in edges if r == "CAN_READ" and ":secret:shared-secret" in t)
    assert edges[(B_PARTNER(), "CAN_READ", secret)]["permission"] == "allow"
    assert any("SCPs not applied" in w["message"] for w in report.warnings)


def test_report_counts_what_was_read_and_the_document_is_valid():
    """The import report counts resource policies by kind, SCPs and RCPs read; the document built
    with them passes the graph model's validation."""
    doc, report, _, _ = _build("a", "b", "org")
    counts = report.policy_counts
    assert counts["resource_policies_read"] == {"bucket": 8, "secret": 2, "kms_key": 2}
    assert counts["rcps_read"] == 0
    assert report.to_dict()["policy_counts"]["scps_read"] == 2
    GraphDocument.model_validate(doc.as_data())


@pytest.mark.parametrize("bad", ['{"Policy": "not json"}', '{"Policy": {"Statement": "x"}}', "[]"])
def test_unreadable_resource_policy_is_a_warning_and_counts_as_not_collected(tmp_path, bad):
    """Messy exports never crash the import: the policy is reported and the bucket is treated as
    having no policy collected (same account: the identity side decides)."""
    folder = tmp_path / "a"
    shutil.copytree(policy_bundle() / "a", folder)
    (folder / "s3-get-bucket-policy" / "locked").write_text(bad)
    doc, report = build_document(read_sources([folder]))
    edges = {(e.source, e.type.value, e.target): e.properties for e in doc.edges}
    assert edges[(f"{A}:user:reader:policies", "CAN_READ", f"{A}:bucket:locked")]["permission"] == "allow"
    assert any("locked" in (w["item"] + w["file"]) for w in report.warnings) or any(
        "locked" in s["file"] for s in report.skipped
    )
