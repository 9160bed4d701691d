"""Resource control policies in the AWS import: an organisation (built with moto) whose RCP denies S3
reads to principals outside the organisation. Each rule cites the AWS documentation."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from blastshield_core.sources.aws import build_document, read_sources
from tests.helpers.aws_bundle import doc
from tests.helpers.aws_policy_bundle import A, _clients, _write

PERIMETER = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Sid": "EnforceOrgIdentities",
            "Effect": "Deny",
            "Principal": "*",
            "Action": "s3:*",
            "Resource": "*",
            "Condition": {
                "StringNotEqualsIfExists": {"aws:PrincipalOrgID": "ORG_ID"},
                "BoolIfExists": {"aws:PrincipalIsAWSService": "false"},
            },
        }
    ],
}


@cache
def _bundle(root: Path) -> tuple[Path, str]:
    from moto import mock_aws

    with mock_aws():
        org = _clients(A)("organizations")
        org_id = org.create_organization(FeatureSet="ALL")["Organization"]["Id"]
        b = org.create_account(AccountName="b", Email="b@example.com")["CreateAccountStatus"]["AccountId"]
        client = _clients(b)
        iam, s3 = client("iam"), client("s3")
        iam.create_user(UserName="inside")
        iam.put_user_policy(
            UserName="inside",
            PolicyName="reads",
            PolicyDocument=doc({"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::open-b/*"}),
        )
        s3.create_bucket(Bucket="open-b")
        s3.put_bucket_policy(
            Bucket="open-b",
            Policy=doc(
                {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::open-b/*"}
            ),
        )
        folder = root / "b"
        _write(folder / "s3-list-buckets.json", s3.list_buckets())
        _write(folder / "s3-get-bucket-policy" / "open-b", s3.get_bucket_policy(Bucket="open-b"))
        _write(folder / "iam-get-account-authorization-details.json", iam.get_account_authorization_details())
        roots = org.list_roots()["Roots"][0]["Id"]
        org.enable_policy_type(RootId=roots, PolicyType="RESOURCE_CONTROL_POLICY")
        made = {}
        for name, content in (("perimeter", PERIMETER),):
            text = json.dumps(content).replace("ORG_ID", org_id)
            made[name] = org.create_policy(Name=name, Description=name, Type="RESOURCE_CONTROL_POLICY", Content=text)[
                "Policy"
            ]["PolicySummary"]["Id"]
        org.attach_policy(PolicyId=made["perimeter"], TargetId=roots)
        out = root / "org"
        _write(out / "organizations-describe-organization.json", org.describe_organization())
        _write(out / "organizations-list-roots.json", org.list_roots())
        listed = org.list_policies(Filter="RESOURCE_CONTROL_POLICY")
        _write(out / "organizations-list-policies-RESOURCE_CONTROL_POLICY.json", listed)
        for summary in listed["Policies"]:
            pid = summary["Id"]
            _write(out / "organizations-describe-policy" / pid, org.describe_policy(PolicyId=pid))
            _write(out / "organizations-list-targets-for-policy" / pid, org.list_targets_for_policy(PolicyId=pid))
        _write(out / "organizations-list-parents" / b, org.list_parents(ChildId=b))
    return root, b


def _build(tmp_path_factory, with_org: bool):
    root, b = _bundle(tmp_path_factory.getbasetemp() / "rcp-bundle")
    doc_, report = build_document(read_sources([root / "b", *([root / "org"] if with_org else [])]))
    return {(e.source, e.type.value, e.target): e.properties for e in doc_.edges}, report, b


def test_rcp_denying_reads_from_outside_the_organisation_removes_the_public_read(tmp_path_factory):
    """AWS Organizations User Guide, "Resource control policies (RCPs)": RCPs set the maximum
    permissions on resources of member accounts, whoever the principal; the documented data-perimeter
    example denies S3 to principals whose aws:PrincipalOrgID is not the organisation's (an anonymous
    caller carries no aws:PrincipalOrgID, so `...IfExists` applies the Deny). The bucket policy's
    public read is no longer public; without the organisation it is."""
    edges, report, b = _build(tmp_path_factory, with_org=False)
    public = ("any-aws-principal:policies", "CAN_READ", f"{b}:bucket:open-b")
    assert edges[public]["permission"] == "allow" and report.policy_counts["public_assets"] == 1
    edges, report, b = _build(tmp_path_factory, with_org=True)
    assert report.policy_counts["rcps_read"] == 2  # the perimeter and RCPFullAWSAccess, which AWS attaches
    assert public not in edges or edges[public]["permission"] == "deny"
    assert report.policy_counts["public_assets"] == 0


def test_rcp_leaves_principals_of_the_organisation_reading(tmp_path_factory):
    """Same RCP: a principal of a member account has the organisation's aws:PrincipalOrgID, the Deny does
    not apply and RCPFullAWSAccess allows at every level, so its identity-policy read stays."""
    edges, _, b = _build(tmp_path_factory, with_org=True)
    props = edges[(f"{b}:user:inside:policies", "CAN_READ", f"{b}:bucket:open-b")]
    assert props["permission"] == "allow" and not props.get("conditional")


@cache
def _ou_bundle(root: Path, bare_account: bool) -> tuple[Path, str]:
    """Account b in the OU `workloads`, whose only RCP of its own is a Deny (of reads of `closed-b`);
    RCPFullAWSAccess is detached from the OU (and with `bare_account` from the account), which moto
    allows and AWS does not."""
    from moto import mock_aws

    with mock_aws():
        org = _clients(A)("organizations")
        org.create_organization(FeatureSet="ALL")
        roots = org.list_roots()["Roots"][0]["Id"]
        org.enable_policy_type(RootId=roots, PolicyType="RESOURCE_CONTROL_POLICY")
        ou = org.create_organizational_unit(ParentId=roots, Name="workloads")["OrganizationalUnit"]["Id"]
        b = org.create_account(AccountName="b", Email="b@example.com")["CreateAccountStatus"]["AccountId"]
        org.move_account(AccountId=b, SourceParentId=roots, DestinationParentId=ou)
        client = _clients(b)
        iam, s3 = client("iam"), client("s3")
        iam.create_user(UserName="inside")
        iam.put_user_policy(
            UserName="inside",
            PolicyName="reads",
            PolicyDocument=doc({"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}),
        )
        for bucket in ("open-b", "closed-b"):
            s3.create_bucket(Bucket=bucket)
        folder = root / "b"
        _write(folder / "s3-list-buckets.json", s3.list_buckets())
        _write(folder / "iam-get-account-authorization-details.json", iam.get_account_authorization_details())
        deny = {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Deny", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::closed-b/*"}
            ],
        }
        made = org.create_policy(
            Name="closed", Description="closed", Type="RESOURCE_CONTROL_POLICY", Content=json.dumps(deny)
        )["Policy"]["PolicySummary"]["Id"]
        org.attach_policy(PolicyId=made, TargetId=ou)
        for target in (ou, b) if bare_account else (ou,):
            org.detach_policy(PolicyId="p-RCPFullAWSAccess", TargetId=target)
        out = root / "org"
        _write(out / "organizations-describe-organization.json", org.describe_organization())
        _write(out / "organizations-list-roots.json", org.list_roots())
        listed = org.list_policies(Filter="RESOURCE_CONTROL_POLICY")
        _write(out / "organizations-list-policies-RESOURCE_CONTROL_POLICY.json", listed)
        for summary in listed["Policies"]:
            pid = summary["Id"]
            _write(out / "organizations-describe-policy" / pid, org.describe_policy(PolicyId=pid))
            _write(out / "organizations-list-targets-for-policy" / pid, org.list_targets_for_policy(PolicyId=pid))
        for child in (ou, b):
            _write(out / "organizations-list-parents" / child, org.list_parents(ChildId=child))
    return root, b


@pytest.mark.parametrize("bare_account", [False, True], ids=["deny-only-ou", "and-no-rcp-on-the-account"])
def test_rcp_level_with_only_a_deny_or_no_policy_denies_nothing_by_itself(tmp_path_factory, bare_account):
    """AWS Organizations User Guide, "RCP evaluation"
    (https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_rcps_evaluation.html)
    and "Resource control policies (RCPs)"
    (https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_rcps.html): AWS
    attaches RCPFullAWSAccess to the root, every OU and every account and it cannot be detached, so
    unlike SCPs an RCP level needs no Allow of its own: the OU holding only a Deny, and the account
    (in the second case) holding no RCP as collected, deny only what the Deny names. The RCPs are applied (no warning that
    they could not be), the Deny makes a denied grant, and the other read stays."""
    root, b = _ou_bundle(tmp_path_factory.getbasetemp() / f"rcp-ou-{bare_account}", bare_account)
    built, report = build_document(read_sources([root / "b", root / "org"]))
    edges = {(e.source, e.type.value, e.target): e.properties for e in built.edges}
    reader = f"{b}:user:inside:policies"
    assert edges[(reader, "CAN_READ", f"{b}:bucket:open-b")]["permission"] == "allow"
    assert edges[(reader, "CAN_READ", f"{b}:bucket:closed-b")]["permission"] == "deny"
    assert report.policy_counts["edges_denied_by_guardrails"] == 1
    assert report.policy_counts["edges_removed_by_guardrails"] == 0
    assert not any("RCPs not applied" in w["message"] for w in report.warnings)
