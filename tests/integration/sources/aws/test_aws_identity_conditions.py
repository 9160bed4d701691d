"""Conditions in identity policies (and trust policies) decided by the snapshot's own facts: the
relationship becomes unconditional, a deny, or is gone; keys the snapshot cannot know keep it
conditional with those keys named. The account is built with moto (tests/helpers/aws_condition_bundle.py);
each rule cites the AWS documentation it comes from."""

from __future__ import annotations

from blastshield_core.sources.aws import build_document, read_sources
from blastshield_core.sources.aws.build.identity_conditions import knowable
from tests.helpers.aws_condition_bundle import A, condition_bundle


def _edges():
    doc, report = build_document(read_sources([condition_bundle() / "a"]))
    return {(e.source, e.type.value, e.target): e.properties for e in doc.edges}, report


def _read(edges, user, bucket):
    return edges.get((f"{A}:user:{user}:policies", "CAN_READ", f"{A}:bucket:{bucket}"))


def _unconditional_allow(props):
    return props is not None and props["permission"] == "allow" and not props.get("conditional")


def test_principal_tag_from_exported_user_tags_decides_the_read():
    """IAM User Guide, "AWS global condition context keys", aws:PrincipalTag/tag-key: the tags
    attached to the principal making the request. alice (team=data) reads unconditionally; bob
    (team=web) under the same managed policy does not read at all."""
    edges, _ = _edges()
    assert _unconditional_allow(_read(edges, "alice", "team-data"))
    assert _read(edges, "bob", "team-data") is None


def test_username_decides_a_group_policy():
    """IAM User Guide, "AWS global condition context keys", aws:username: the user name of the
    requesting IAM user. Of the group's two members only carol matches."""
    edges, _ = _edges()
    assert _unconditional_allow(_read(edges, "carol", "team-data"))
    assert _read(edges, "dave", "team-data") is None


def test_resource_account_keys_decide_by_the_owner_of_the_bucket():
    """IAM User Guide, aws:ResourceAccount ("the resource owner's AWS account ID"), and the Amazon
    S3 condition key s3:ResourceAccount (the bucket owner's account). erin's grant limited to A
    reaches both buckets of A; frank's limited to another account reaches none."""
    edges, _ = _edges()
    assert _unconditional_allow(_read(edges, "erin", "team-data"))
    assert _unconditional_allow(_read(edges, "erin", "open-data"))
    assert _read(edges, "frank", "team-data") is None and _read(edges, "frank", "open-data") is None


def test_resource_tag_from_exported_bucket_tags():
    """IAM User Guide, aws:ResourceTag/tag-key (the tags attached to the resource): the bucket tags
    exported with the listing decide; the restricted bucket is not read."""
    edges, _ = _edges()
    assert _unconditional_allow(_read(edges, "ivy", "open-data"))
    assert _read(edges, "ivy", "team-data") is None


def test_a_grant_on_a_key_prefix_is_decided_on_an_object_under_the_prefix():
    """IAM User Guide, "IAM JSON policy elements: Resource" (wildcards in object ARNs) and aws:username:
    a grant on `team-data/reports/*` reads objects of the bucket, so once its condition is decided the
    read of the bucket's asset stays, unconditional (docs/aws-import.md, "Key prefixes")."""
    edges, _ = _edges()
    assert _unconditional_allow(_read(edges, "mona", "team-data"))


def test_principal_type_of_a_user_is_not_an_assumed_role():
    """IAM User Guide, aws:PrincipalType: `User` for an IAM user, `AssumedRole` for a role session.
    A grant limited to role sessions gives the user nothing."""
    edges, _ = _edges()
    assert _read(edges, "lee", "team-data") is None


def test_a_key_the_snapshot_cannot_know_stays_conditional_and_only_it_is_named():
    """IAM User Guide, "Condition element": all keys of a condition block must match (AND). The
    principal tag is decided from the export; aws:SourceIp depends on the request, so the read stays
    conditional with only that key named."""
    edges, _ = _edges()
    props = _read(edges, "gina", "team-data")
    assert props["permission"] == "allow" and props["conditional"] is True
    assert props["condition_keys"] == ["aws:SourceIp"]


def test_a_conditional_deny_decided_true_denies():
    """IAM User Guide, "Policy evaluation logic": an explicit Deny in any applicable policy overrides
    an Allow. hank (team=web) is denied the bucket his tag does not match, and reads the other."""
    edges, report = _edges()
    assert _read(edges, "hank", "team-data")["permission"] == "deny"
    assert _unconditional_allow(_read(edges, "hank", "open-data"))
    assert report.policy_counts["edges_denied_by_conditions"] == 1


def test_assume_role_decided_by_resource_tag_and_by_a_trust_condition_on_the_principal_arn():
    """IAM User Guide, "Controlling access to and for IAM users and roles using tags" (aws:ResourceTag
    on the role for sts:AssumeRole) and aws:PrincipalArn in a trust policy. jack assumes the role
    tagged env=prod and not the one tagged env=dev; the trust of `ops` names jack's ARN in its
    condition, so kate (allowed by her own policy) cannot assume it."""
    edges, _ = _edges()
    jack, kate = f"{A}:user:jack:policies", f"{A}:user:kate:policies"
    assert _unconditional_allow(edges.get((jack, "CAN_ASSUME", f"{A}:role:deploy")))
    assert (jack, "CAN_ASSUME", f"{A}:role:sandbox") not in edges
    assert _unconditional_allow(edges.get((jack, "CAN_ASSUME", f"{A}:role:ops")))
    assert (kate, "CAN_ASSUME", f"{A}:role:ops") not in edges


def test_role_tags_do_not_decide_when_callers_may_pass_session_tags():
    """IAM User Guide, "Pass session tags in AWS STS": a session's principal tags come from the session
    tags passed at AssumeRole (which needs sts:TagSession in the trust policy) and the role's tags,
    session tags overriding. A role whose trust allows sts:TagSession keeps the read conditional on
    the tag; the same role without it reads unconditionally."""
    edges, _ = _edges()
    props = edges[(f"{A}:role:tag-session", "CAN_READ", f"{A}:bucket:team-data")]
    assert props["conditional"] is True and props["condition_keys"] == ["aws:PrincipalTag/team"]
    assert _unconditional_allow(edges.get((f"{A}:role:fixed-tags", "CAN_READ", f"{A}:bucket:team-data")))


def test_report_counts_what_conditions_decided():
    """The import report says how many relationships the snapshot's facts made unconditional,
    removed or denied (docs/aws-import.md)."""
    _, report = _edges()
    counts = report.policy_counts
    # alice, carol, erin (2 buckets), ivy (open-data), fixed-tags, jack -> deploy, jack -> ops, mona
    assert counts["edges_unconditional_by_conditions"] == 9
    # bob, dave, frank (2), ivy (team-data), lee, kate -> ops, jack -> sandbox, tag-session, fixed-tags
    assert counts["edges_removed_by_conditions"] == 10


def test_which_keys_the_snapshot_may_know():
    """The keys issue 28 lists, case-insensitively (IAM User Guide: condition key names are not case
    sensitive); request keys such as aws:SourceIp and aws:MultiFactorAuthPresent are never known."""
    assert all(
        knowable(k)
        for k in (
            "aws:PrincipalArn",
            "AWS:principalaccount",
            "aws:PrincipalOrgID",
            "aws:PrincipalTag/x",
            "aws:ResourceAccount",
            "aws:ResourceTag/y",
            "aws:PrincipalType",
            "aws:username",
            "s3:ResourceAccount",
        )
    )
    assert not any(knowable(k) for k in ("aws:SourceIp", "aws:MultiFactorAuthPresent", "aws:SourceVpce"))
