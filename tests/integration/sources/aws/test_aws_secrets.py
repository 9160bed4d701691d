"""Secrets and KMS keys as data assets, and public grants of actions that need a signed request: an
account made on a moto server on loopback, collected by `collect-aws` (its `list-secrets` with tags,
`list-keys`, and the secret and key policies), then built. Each rule cites the AWS documentation;
only the shapes come from moto, what AWS decides is the product's evaluation."""

from __future__ import annotations

import json
import shutil

import pytest

from blastshield_core.interfaces.cli import main
from blastshield_core.sources.aws import build_document, read_sources
from blastshield_core.sources.aws.build.common import entity_id
from tests.helpers import aws_live
from tests.helpers.aws_bundle import doc
from tests.helpers.aws_live import ACCOUNT

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures

REGION = "us-east-1"
ANYONE = "any-aws-principal:policies"
CATCH_ALL = f"{ACCOUNT}:all:secretsmanager"


def _reads(user: str, action: str, resource) -> str:
    return doc({"Effect": "Allow", "Action": action, "Resource": resource})


@pytest.fixture
def account(moto_account, tmp_path) -> dict:
    """The account, collected into tmp_path/collection; returns its folder and the ARNs moto gave."""
    iam, sm, kms, s3 = (moto_account.client(s) for s in ("iam", "secretsmanager", "kms", "s3"))
    made = {}
    tagged = sm.create_secret(
        Name="prod/db-password", SecretString="x", Tags=[{"Key": "sensitivity", "Value": "critical"}]
    )
    made["db"] = tagged["ARN"]
    made["old"] = sm.create_secret(Name="prod/db-password-old", SecretString="y")["ARN"]
    made["public"] = sm.create_secret(Name="public-config", SecretString="z")["ARN"]
    sm.put_resource_policy(
        SecretId="public-config",
        ResourcePolicy=doc(
            {"Effect": "Allow", "Principal": "*", "Action": "secretsmanager:GetSecretValue", "Resource": "*"}
        ),
    )
    made["key"] = kms.create_key(Description="data key")["KeyMetadata"]["KeyId"]
    made["public_key"] = kms.create_key(
        Description="key whose policy names anyone",
        Policy=doc(
            {
                "Effect": "Allow",
                "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
                "Action": "kms:*",
                "Resource": "*",
            },
            {"Effect": "Allow", "Principal": "*", "Action": "kms:Decrypt", "Resource": "*"},
        ),
    )["KeyMetadata"]["KeyId"]
    s3.create_bucket(Bucket="public-site")
    s3.put_bucket_policy(
        Bucket="public-site",
        Policy=doc(
            {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::public-site/*"}
        ),
    )
    grants = {
        # the suffix wildcard AWS recommends: this one secret
        "app": _reads(
            "app",
            "secretsmanager:GetSecretValue",
            f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:prod/db-password-??????",
        ),
        # every secret of the region
        "ops": _reads("ops", "secretsmanager:GetSecretValue", f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:*"),
        # every secret of every region
        "broad": _reads("broad", "secretsmanager:GetSecretValue", "*"),
        "crypto": _reads("crypto", "kms:Decrypt", f"arn:aws:kms:{REGION}:{ACCOUNT}:key/*"),
    }
    for user, policy in grants.items():
        iam.create_user(UserName=user)
        iam.put_user_policy(UserName=user, PolicyName="reads", PolicyDocument=policy)
    out = moto_account.config.parent / "collection"
    assert main(["collect-aws", "--out", str(out)]) == 0
    return {"folder": out / ACCOUNT, **made}


def _build(folder, sensitivity=None):
    built, report = build_document(read_sources([folder]), sensitivity=sensitivity)
    edges = {(e.source, e.type.value, e.target): e.properties for e in built.edges}
    return edges, {n.id: n for n in built.nodes}, report


def _secret(arn: str) -> str:
    return entity_id(ACCOUNT, "secret", arn.split(":secret:", 1)[1])


def _read_targets(edges, user: str, kind: str = ":secret:") -> set[str]:
    """The secrets (or the other assets of `kind`, the catch-all included) the user's policies read."""
    return {
        t
        for s, r, t in edges
        if s == f"{ACCOUNT}:user:{user}:policies" and r == "CAN_READ" and (kind in t or t == CATCH_ALL)
    }


def test_suffix_wildcard_grant_reads_that_secret_with_the_sensitivity_of_its_tag(account):
    """Secrets Manager User Guide, "Permissions reference for AWS Secrets Manager"
    (https://docs.aws.amazon.com/secretsmanager/latest/userguide/reference_iam-permissions.html): Secrets
    Manager ends a secret's ARN with a dash and six random characters; "Permissions policy examples"
    (https://docs.aws.amazon.com/secretsmanager/latest/userguide/auth-and-access_examples.html) grants
    one secret as `secret:NAME-??????`, which matches that secret and not `NAME-<more>-XXXXXX`. The
    grant reads the tagged secret's own asset, critical from its `sensitivity` tag, and neither the
    secret whose name only starts the same nor the catch-all of all Secrets Manager data."""
    edges, nodes, _ = _build(account["folder"])
    db, public = _secret(account["db"]), _secret(account["public"])
    assert _read_targets(edges, "app") == {db, public}  # the public one through its own policy (below)
    props = edges[(f"{ACCOUNT}:user:app:policies", "CAN_READ", db)]
    assert props["permission"] == "allow" and props["actions"] == ["secretsmanager:GetSecretValue"]
    asset = nodes[db].properties
    assert nodes[db].name == "prod/db-password" and asset["aws_kind"] == "secret"
    assert asset["arn"] == account["db"]
    assert (asset["sensitivity"], asset["sensitivity_source"]) == ("critical", "tag sensitivity")
    assert nodes[_secret(account["old"])].properties["sensitivity"] == "high"  # untagged: the default


def test_wildcard_grant_still_reads_every_secret(account):
    """A grant of `secret:*` in a region matches every secret's ARN there (IAM User Guide, "IAM JSON
    policy elements: Resource", wildcards): it reads each listed secret, each with its own
    sensitivity, and with the region's listing there is nothing else it could reach. A grant on `*`
    also covers regions the collection did not list, so it keeps the catch-all as well."""
    edges, _, _ = _build(account["folder"])
    listed = {_secret(account[k]) for k in ("db", "old", "public")}
    assert _read_targets(edges, "ops") == listed
    assert _read_targets(edges, "broad") == listed | {CATCH_ALL}


def test_without_the_listing_the_suffix_wildcard_still_names_its_secret(account, tmp_path):
    """Without `list-secrets` the pattern still names one secret (the six characters are the only
    unknown part of its ARN): an asset of that name, not the catch-all; a grant of `*` has nothing to
    bound it and reads the catch-all."""
    folder = tmp_path / "no-listing"
    shutil.copytree(account["folder"], folder)
    (folder / "secretsmanager-list-secrets.json").unlink()
    edges, nodes, _ = _build(folder)
    target = entity_id(ACCOUNT, "secret", "prod/db-password")
    assert _read_targets(edges, "app") == {target, _secret(account["public"])}
    assert nodes[target].name == "prod/db-password"
    assert CATCH_ALL in _read_targets(edges, "broad")


def test_key_is_an_asset_with_the_sensitivity_file(account):
    """`list-keys` carries no tags: a key's sensitivity comes from the sensitivity file (first match)
    or the default. AWS KMS Developer Guide, "Key policies"
    (https://docs.aws.amazon.com/kms/latest/developerguide/key-policies.html): the default key policy
    names the account, which lets IAM policies allow; the grant on `key/*` reads each listed key."""
    key = account["key"]
    edges, nodes, _ = _build(account["folder"], {f"arn:aws:kms:*:{ACCOUNT}:key/{key}": "critical"})
    node = f"{ACCOUNT}:kms_key:{key}"
    props = edges[(f"{ACCOUNT}:user:crypto:policies", "CAN_READ", node)]
    assert props["permission"] == "allow" and props["basis"] == "identity and key policy"
    assert nodes[node].properties["sensitivity"] == "critical"
    assert nodes[node].properties["sensitivity_source"] == f"--sensitivity arn:aws:kms:*:{ACCOUNT}:key/{key}"
    assert f"{ACCOUNT}:all:kms" not in _read_targets(edges, "crypto", ":kms_key:")


def test_public_grant_of_an_action_that_needs_a_signed_request_gives_no_anonymous_read(account):
    """IAM User Guide, "AWS Signature Version 4 for API requests"
    (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html): every request is signed
    except anonymous requests to Amazon S3 and some STS operations. `Principal: "*"` on a secret
    (`secretsmanager:GetSecretValue`) or a key (`kms:Decrypt`) gives nothing to an anonymous caller:
    no read from the node that stands for anyone, and the asset is not public. The bucket's public
    `s3:GetObject` is one AWS accepts unsigned: it stays public."""
    edges, nodes, report = _build(account["folder"])
    public_secret = _secret(account["public"])
    public_key = f"{ACCOUNT}:kms_key:{account['public_key']}"
    assert (ANYONE, "CAN_READ", public_secret) not in edges
    assert (ANYONE, "CAN_READ", public_key) not in edges
    assert not nodes[public_secret].properties.get("public")
    # IAM User Guide, "Policy evaluation logic" (same account): a resource-based policy naming the
    # principal (here `*`) allows on its own, so the account's own principals do read it
    own = edges[(f"{ACCOUNT}:user:crypto:policies", "CAN_READ", public_secret)]
    assert own["permission"] == "allow" and own["basis"] == "resource policy"
    bucket = f"{ACCOUNT}:bucket:public-site"
    assert edges[(ANYONE, "CAN_READ", bucket)]["permission"] == "allow"
    assert nodes[bucket].properties["public"] is True and report.policy_counts["public_assets"] == 1


def test_collected_files_hold_the_secret_tags_the_build_reads(account):
    """The input is what the collector wrote: `list-secrets` with each secret's tags."""
    listed = json.loads((account["folder"] / "secretsmanager-list-secrets.json").read_text())["SecretList"]
    tags = {s["Name"]: s.get("Tags") for s in listed}
    assert tags["prod/db-password"] == [{"Key": "sensitivity", "Value": "critical"}]


def test_listing_entry_without_an_arn_is_a_warning_and_the_rest_is_read(account, tmp_path):
    """Messy exports never crash the import: an entry of `list-secrets` without an ARN is reported
    with the file and the item, and the other secrets are still assets."""
    folder = tmp_path / "messy"
    shutil.copytree(account["folder"], folder)
    listing = folder / "secretsmanager-list-secrets.json"
    data = json.loads(listing.read_text())
    data["SecretList"].append({"Name": "no-arn"})
    data["SecretList"].append("not an object")
    listing.write_text(json.dumps(data))
    edges, _, report = _build(folder)
    warned = [w for w in report.warnings if w["file"].endswith("secretsmanager-list-secrets.json")]
    assert [w["item"] for w in warned] == ["SecretList[3]", "SecretList[4]"]
    assert all("without an ARN" in w["message"] for w in warned)
    assert _secret(account["db"]) in _read_targets(edges, "app")
