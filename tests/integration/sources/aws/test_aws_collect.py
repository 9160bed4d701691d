"""`collect-aws`: read-only collection from a moto server on loopback (the AWS account), and
botocore's Stubber for what moto lacks: paging of GetAccountAuthorizationDetails, throttling then
success, AccessDenied on one call, GuardDuty findings.

AWS documentation cited: IAM API Reference "GetAccountAuthorizationDetails" (the result is paged
with `IsTruncated` and `Marker`); IAM User Guide "Getting credential reports for your AWS account"
(generate, then get; a report is generated at most every four hours); "Managing access keys for
IAM users" (`ListAccessKeys` gives each key's id and its `Active`/`Inactive` status); botocore's
"Retries" guide (standard mode retries throttling errors).
"""

from __future__ import annotations

import json
import re

from botocore.stub import Stubber

from blastshield_core.interfaces.cli import main
from blastshield_core.sources.aws.build.get import read_sources
from blastshield_core.sources.aws.build.load import build_document
from blastshield_core.sources.aws.collect.collector import COLLECTOR_ACTIONS, botocore_config, collect_account
from blastshield_core.sources.aws.exports import EXPORT, EXPORTS
from blastshield_core.sources.aws.iam.policy import Effect, evaluate, parse_policy
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT, user_with_key_to_critical_bucket
from tests.helpers.paths import ROOT

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures


RESPONDER_WRITES = (
    "iam:UpdateAccessKey",
    "iam:PutUserPolicy",
    "iam:DeleteUserPolicy",
    "iam:PutRolePolicy",
    "iam:DeleteRolePolicy",
    "iam:DeleteLoginProfile",
)


def doc_policy(name: str) -> dict:
    text = (ROOT / "docs" / "aws-live.md").read_text(encoding="utf-8")
    block = re.search(rf"```json {name}\n(.*?)```", text, re.S)
    assert block, f"docs/aws-live.md has no {name} block"
    return json.loads(block[1])


def test_collect_aws_writes_the_import_layout_and_imports(moto_account, tmp_path, capsys):
    key = user_with_key_to_critical_bucket(moto_account)
    out, data = tmp_path / "collection", tmp_path / "db"
    code = main(["collect-aws", "--out", str(out), "--import", "--json", "--data-dir", str(data)])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert code == 0, captured
    assert report["accounts"] == [ACCOUNT]
    folder = out / ACCOUNT
    names = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    written = (
        "caller_identity",
        "gaad",
        "credential_report",
        "access_keys",
        "buckets",
        "findings",
        "kms_keys",
        "secrets",
    )
    assert {EXPORT[kind].path() for kind in written} <= names  # the files the table names
    assert {p.split("/")[0] for p in names if "/" in p} <= {e.file for e in EXPORTS if e.per_resource}
    keys = json.loads((folder / "iam-list-access-keys.json").read_text())["AccessKeyMetadata"]
    assert [(k["UserName"], k["AccessKeyId"], k["Status"]) for k in keys] == [("alice", key, "Active")]
    buckets = json.loads((folder / "s3-list-buckets.json").read_text())["Buckets"]
    assert buckets[0]["Tags"] == [{"Key": "sensitivity", "Value": "critical"}]
    # every call the collector made is one of its declared read-only actions
    assert set(report["calls"]) <= set(COLLECTOR_ACTIONS)
    assert report["imported"]["status"] == "imported"
    assert report["imported"]["counts"]["nodes"]["Session"] == 1
    # the responder finds the folder of the account it imported
    assert json.loads((data / "aws-collections.json").read_text()) == {ACCOUNT: str(folder.resolve())}
    # the import reads the key id and the status from the listing
    doc, _ = build_document(read_sources([folder]))
    session = next(n for n in doc.nodes if n.id == f"{ACCOUNT}:user:alice:access-key-1")
    assert session.properties["access_key_id"] == key and session.properties["active"] is True


def test_progress_goes_to_stderr_and_bad_input_changes_nothing(moto_account, tmp_path, capsys):
    user_with_key_to_critical_bucket(moto_account)
    out = tmp_path / "c"
    assert main(["collect-aws", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert f"[{ACCOUNT}] iam:GetAccountAuthorizationDetails: done" in captured.err
    assert captured.out.startswith(f"collected accounts {ACCOUNT}")
    nothing = tmp_path / "nothing"
    assert main(["collect-aws", "--out", str(nothing), "--profile", "no-such-profile"]) == 2
    assert "no-such-profile" in capsys.readouterr().err
    assert main(["collect-aws", "--out", str(nothing), "--organization"]) == 2
    assert main(["collect-aws", "--out", str(nothing), "--accounts", "12"]) == 2
    assert not nothing.exists()


def _stubbed(session, service: str):
    client = session.client(service, config=botocore_config())
    return client, Stubber(client)


def test_stubber_paging_throttling_access_denied_and_guardduty(moto_account, tmp_path):
    """moto returns GAAD in one page and has no GuardDuty findings; the Stubber shows both, and an
    AccessDenied that is only a warning (throttling is botocore's to retry: the Stubber answers
    before its retry layer, so tests/hardening/test_collect_endpoint.py shows it on the wire)."""
    session = moto_account.session()
    iam, iam_stub = _stubbed(session, "iam")
    s3, s3_stub = _stubbed(session, "s3")
    gd, gd_stub = _stubbed(session, "guardduty")
    user = {
        "UserName": "bob",
        "UserId": "AIDAEXAMPLEBOB000000",
        "Arn": f"arn:aws:iam::{ACCOUNT}:user/bob",
        "Path": "/",
        "CreateDate": "2024-01-01T00:00:00Z",
        "UserPolicyList": [],
        "GroupList": [],
        "AttachedManagedPolicies": [],
    }
    role = {
        "RoleName": "ops",
        "RoleId": "AROAEXAMPLEOPS000000",
        "Arn": f"arn:aws:iam::{ACCOUNT}:role/ops",
        "Path": "/",
        "CreateDate": "2024-01-01T00:00:00Z",
        "AssumeRolePolicyDocument": "{}",
        "InstanceProfileList": [],
        "RolePolicyList": [],
        "AttachedManagedPolicies": [],
    }
    iam_stub.add_response(
        "get_account_authorization_details", {"UserDetailList": [user], "IsTruncated": True, "Marker": "page-2"}, {}
    )
    iam_stub.add_response(
        "get_account_authorization_details", {"RoleDetailList": [role], "IsTruncated": False}, {"Marker": "page-2"}
    )
    iam_stub.add_response("generate_credential_report", {"State": "COMPLETE"}, {})
    iam_stub.add_client_error("get_credential_report", "ReportInProgress", http_status_code=404)
    iam_stub.add_response(
        "get_credential_report",
        {"Content": b"user,arn\nbob,arn:aws:iam::123456789012:user/bob\n", "ReportFormat": "text/csv"},
        {},
    )
    keys = [{"UserName": "bob", "AccessKeyId": "AKIAEXAMPLEBOBKEY001", "Status": "Inactive"}]
    iam_stub.add_response("list_access_keys", {"AccessKeyMetadata": keys}, {"UserName": "bob"})
    s3_stub.add_client_error("list_buckets", "AccessDenied", "not authorized", http_status_code=403)
    gd_stub.add_response("list_detectors", {"DetectorIds": ["det-1"]}, {})
    gd_stub.add_response("list_findings", {"FindingIds": ["f-1"]}, {"DetectorId": "det-1"})
    finding = {
        "AccountId": ACCOUNT,
        "Arn": f"arn:aws:guardduty:us-east-1:{ACCOUNT}:detector/det-1/finding/f-1",
        "CreatedAt": "2026-01-01T00:00:00Z",
        "UpdatedAt": "2026-01-01T00:00:00Z",
        "Id": "f-1",
        "Region": "us-east-1",
        "SchemaVersion": "2.0",
        "Severity": 8.0,
        "Title": "Credentials used from a suspicious network",
        "Type": "UnauthorizedAccess:IAMUser/MaliciousIPCaller",
        "Resource": {
            "ResourceType": "AccessKey",
            "AccessKeyDetails": {"AccessKeyId": "AKIAEXAMPLEBOBKEY001", "UserName": "bob", "UserType": "IAMUser"},
        },
    }
    gd_stub.add_response("get_findings", {"Findings": [finding]}, {"DetectorId": "det-1", "FindingIds": ["f-1"]})
    with iam_stub, s3_stub, gd_stub:
        report = collect_account(session, tmp_path, clients={"iam": iam, "s3": s3, "guardduty": gd})
        iam_stub.assert_no_pending_responses()
        gd_stub.assert_no_pending_responses()
    folder = tmp_path / ACCOUNT
    gaad = json.loads((folder / "iam-get-account-authorization-details.json").read_text())
    assert [u["UserName"] for u in gaad["UserDetailList"]] == ["bob"]
    assert [r["RoleName"] for r in gaad["RoleDetailList"]] == ["ops"]  # the second page is kept
    listed = json.loads((folder / "iam-list-access-keys.json").read_text())["AccessKeyMetadata"]
    assert listed == keys
    denied = [w for w in report.warnings if w["call"] == "s3:ListAllMyBuckets"]
    assert len(denied) == 1 and denied[0]["permission"] == "s3:ListAllMyBuckets"
    assert "AccessDenied" in denied[0]["message"]
    assert not (folder / "s3-list-buckets.json").exists()  # refused: nothing invented
    assert (folder / "kms-list-keys.json").exists()  # the collection went on after the refusal
    doc, _ = build_document(read_sources([folder]))
    assert [a.id for a in doc.alerts] == ["gd:f-1"]
    session_node = next(n for n in doc.nodes if n.id == f"{ACCOUNT}:user:bob:access-key-1")
    assert session_node.properties["active"] is False  # the listing's status, not the report's


def test_standard_retry_mode_with_timeouts():
    config = botocore_config()
    assert config.retries == {"mode": "standard", "total_max_attempts": 3}  # the one retry layer, its stated max
    assert config.connect_timeout == 5 and config.read_timeout == 30


def test_collector_policy_allows_every_collector_call_and_no_responder_write():
    """docs/aws-live.md's collector policy, fed to the project's policy evaluator."""
    collector = parse_policy(doc_policy("collector-policy"))
    for action in COLLECTOR_ACTIONS:
        resource = f"arn:aws:iam::{ACCOUNT}:role/BlastShieldReadOnly" if action == "sts:AssumeRole" else "*"
        assert evaluate(collector, action, resource).effect is Effect.ALLOW, action
    for action in RESPONDER_WRITES:
        assert evaluate(collector, action, f"arn:aws:iam::{ACCOUNT}:user/alice").effect is not Effect.ALLOW, action
    # the reads containment makes with the collect profile
    from blastshield_core.respond.aws.responder import ACCOUNT_READS

    for action in ACCOUNT_READS:
        assert evaluate(collector, action, f"arn:aws:iam::{ACCOUNT}:user/alice").effect is Effect.ALLOW, action
    responder = parse_policy(doc_policy("responder-policy"))
    alice = f"arn:aws:iam::{ACCOUNT}:user/alice"
    assert evaluate(responder, "iam:UpdateAccessKey", alice).effect is Effect.ALLOW
    for action in ("iam:DeleteAccessKey", "iam:DeleteLoginProfile", *ACCOUNT_READS):  # writes only, none deletes
        assert evaluate(responder, action, alice).effect is not Effect.ALLOW, action


# The IAM action of an API operation where its name differs from the operation's (Service
# Authorization Reference, "Actions, resources, and condition keys for Amazon S3": the ListBuckets
# operation is authorised as s3:ListAllMyBuckets).
_ACTION_OF = {("s3", "ListBuckets"): "s3:ListAllMyBuckets"}


def test_every_call_observed_on_the_wire_is_allowed_by_the_documented_collector_policy(moto_account, tmp_path):
    """botocore's own `before-call` event records each operation the collection sends (not the
    collector's bookkeeping), on an account with a user and key, a tagged bucket with a policy, a
    secret with a resource policy, a KMS key and an instance: each is a read the collector declares,
    and docs/aws-live.md's collector policy allows every one (the project's policy evaluator)."""
    user_with_key_to_critical_bucket(moto_account)
    iam_read = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"},
                "Action": "s3:GetObject", "Resource": "arn:aws:s3:::crown-jewels/*"}]}  # fmt: skip
    moto_account.client("s3").put_bucket_policy(Bucket="crown-jewels", Policy=json.dumps(iam_read))
    sm = moto_account.client("secretsmanager")
    arn = sm.create_secret(Name="db-password", SecretString="not-a-real-secret")["ARN"]
    secret_policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"},
                     "Action": "secretsmanager:GetSecretValue", "Resource": arn}]}  # fmt: skip
    sm.put_resource_policy(SecretId="db-password", ResourcePolicy=json.dumps(secret_policy))
    moto_account.client("kms").create_key(Description="data key")
    ec2 = moto_account.client("ec2")
    image = ec2.describe_images()["Images"][0]["ImageId"]
    ec2.run_instances(ImageId=image, MinCount=1, MaxCount=1)

    session = moto_account.session()
    observed: set[str] = set()

    def record(model, **_):
        prefix = model.service_model.signing_name
        observed.add(_ACTION_OF.get((prefix, model.name), f"{prefix}:{model.name}"))

    session.events.register("before-call", record)
    collect_account(session, tmp_path, regions=["us-east-1"])
    assert {"iam:ListAccessKeys", "s3:GetBucketPolicy", "secretsmanager:GetResourcePolicy", "kms:GetKeyPolicy",
            "ec2:DescribeInstances", "lambda:ListFunctions", "guardduty:ListDetectors"} <= observed  # fmt: skip
    assert observed <= set(COLLECTOR_ACTIONS), observed - set(COLLECTOR_ACTIONS)
    collector = parse_policy(doc_policy("collector-policy"))
    for action in sorted(observed):
        assert evaluate(collector, action, "*").effect is Effect.ALLOW, action
    assert not {a for a in observed if re.match(r"\w+:(Put|Update|Delete|Create|Attach|Detach)", a)}
