"""AWS exports (built with boto3 against moto) mapped to a graph document: the expected edges, by hand."""

from __future__ import annotations

import copy
import json

import pytest

from blastshield_core.graph.model import GraphDocument, is_valid_id
from blastshield_core.sources.aws import AwsSources, SourceFile, build_document, entity_id, read_sources
from blastshield_core.sources.aws.build.common import _date
from tests.helpers.aws_bundle import SENSITIVITY, A, B, bundle_dir


@pytest.fixture(scope="module")
def built():
    return build_document(read_sources([bundle_dir()]), sensitivity=SENSITIVITY)


@pytest.fixture(scope="module")
def edges(built):
    doc, _ = built
    return {(e.source, e.type.value, e.target): e.properties for e in doc.edges}


@pytest.fixture(scope="module")
def nodes(built):
    doc, _ = built
    return {n.id: n for n in doc.nodes}


def user(name, account=A):
    return f"{account}:user:{name}:policies"


def role(name, account=A):
    return f"{account}:role:{name}"


def assume(edges, source, target):
    return edges.get((source, "CAN_ASSUME", target))


def test_trust_by_exact_arn_within_the_account(edges):
    """bob has no identity policy; bob-direct's trust names his ARN: the trust alone gives the edge."""
    assert assume(edges, user("bob"), role("bob-direct"))["permission"] == "allow"


def test_trust_by_account_root_needs_an_identity_allow(edges):
    """app-web trusts the account root: alice (allowed app-*) gets an edge, bob (no identity allow) none."""
    assert assume(edges, user("alice"), role("app-web"))["permission"] == "allow"
    assert assume(edges, user("bob"), role("app-web")) is None


def test_trust_by_star_is_an_outside_principal_and_an_inside_one(edges, nodes):
    """public-role trusts `*`: 'any AWS principal' reaches it (trust only), and carol (sts:AssumeRole *) too."""
    outside = assume(edges, "any-aws-principal:policies", role("public-role"))
    assert outside["permission"] == "allow" and outside["basis"] == "trust policy only"
    assert nodes["any-aws-principal"].label.value == "Identity"
    assert assume(edges, user("carol"), role("public-role"))["permission"] == "allow"


def test_service_principals_are_not_assumption_edges(edges, nodes):
    """ec2-role trusts ec2.amazonaws.com: no CAN_ASSUME into it, the instance RUNS_AS it."""
    assert not [k for k in edges if k[1] == "CAN_ASSUME" and k[2] == role("ec2-role")]
    assert nodes[role("ec2-role")].properties["trusted_services"] == ["ec2.amazonaws.com"]
    runs = [k for k in edges if k[1] == "RUNS_AS" and k[2] == role("ec2-role")]
    assert len(runs) == 1 and runs[0][0].startswith(f"{A}:instance:i-")


def test_deny_in_identity_policy_gives_a_denied_edge(edges):
    """carol may assume any role but denies herself app-deny: a permission deny edge, others allow."""
    assert assume(edges, user("carol"), role("app-deny"))["permission"] == "deny"
    assert assume(edges, user("carol"), role("app-web"))["permission"] == "allow"


def test_deny_in_trust_policy_gives_a_denied_edge(edges):
    """app-trustdeny trusts the account but denies alice: deny for alice, allow for carol."""
    assert assume(edges, user("alice"), role("app-trustdeny"))["permission"] == "deny"
    assert assume(edges, user("carol"), role("app-trustdeny"))["permission"] == "allow"


def test_not_action_allows_everything_but_iam(edges):
    """frank's `NotAction: iam:*` covers sts:AssumeRole and s3:GetObject."""
    assert assume(edges, user("frank"), role("app-web"))["permission"] == "allow"
    assert edges[(user("frank"), "CAN_READ", f"{A}:bucket:crown-jewels")]["permission"] == "allow"


def test_not_resource_excludes_one_role(edges):
    """gina may assume every role except app-secret (NotResource)."""
    assert assume(edges, user("gina"), role("app-web"))["permission"] == "allow"
    assert assume(edges, user("gina"), role("app-secret")) is None


def test_wildcards_in_actions_and_arns(edges):
    """alice's `role/app-*` reaches app-web and app-secret but not bob-direct; app-web's `prod-*/*` reads prod buckets."""
    assert assume(edges, user("alice"), role("app-secret"))["permission"] == "allow"
    assert assume(edges, user("alice"), role("bob-direct")) is None
    reads = {k[2] for k in edges if k[0] == role("app-web") and k[1] == "CAN_READ"}
    assert reads == {f"{A}:bucket:prod-data", f"{A}:bucket:prod-logs"}


def test_permissions_boundary_that_allows(edges):
    """dave's boundary allows sts:*: his edge to app-web stays; so does the bounded-ok role's."""
    assert assume(edges, user("dave"), role("app-web"))["permission"] == "allow"
    assert assume(edges, role("bounded-ok"), role("app-web"))["permission"] == "allow"


def test_permissions_boundary_that_does_not_allow(edges):
    """erin's and bounded-no's boundary allows only s3: no assumption edge at all."""
    assert assume(edges, user("erin"), role("app-web")) is None
    assert not [k for k in edges if k[1] == "CAN_ASSUME" and k[0] == role("bounded-no")]


def test_conditional_allow_is_a_conditional_edge(edges):
    """henry's allow needs MFA: the edge carries conditional and the condition key."""
    props = assume(edges, user("henry"), role("app-web"))
    assert props["conditional"] is True and props["condition_keys"] == ["aws:MultiFactorAuthPresent"]
    assert "conditional" not in assume(edges, user("dave"), role("app-web"))


def test_group_managed_and_inline_policies_count_for_the_user(edges, nodes):
    """alice reads dev-bucket through the group's managed policy and a KMS key through its inline one."""
    assert edges[(user("alice"), "CAN_READ", f"{A}:bucket:dev-bucket")]["permission"] == "allow"
    assert edges[(user("alice"), "CAN_READ", f"{A}:kms_key:k-1")]["actions"] == ["kms:Decrypt"]
    assert nodes[f"{A}:user:alice"].properties["groups"] == ["devs"]


def test_inline_role_policy_on_a_named_table(edges, nodes):
    """lambda-role's inline policy names a table: a DataAsset for it, medium by default."""
    assert edges[(role("lambda-role"), "CAN_READ", f"{A}:table:orders")]["actions"] == ["dynamodb:Query"]
    assert nodes[f"{A}:table:orders"].properties["sensitivity"] == "medium"


def test_wildcard_grant_without_a_listing_is_one_critical_wildcard_asset(edges, nodes):
    """secretsmanager:GetSecretValue on `*` reaches 'all secretsmanager data' of the account, critical."""
    target = f"{A}:all:secretsmanager"
    assert (role("app-secret"), "CAN_READ", target) in edges
    assert nodes[target].properties["sensitivity"] == "critical" and nodes[target].properties["wildcard"] is True


def test_two_accounts_with_a_cross_account_trust(edges):
    """B's ops role may assume A's cross-in (trust names it, its policy allows): a cross-account edge."""
    assert assume(edges, role("ops", B), role("cross-in"))["permission"] == "allow"
    assert assume(edges, user("mallory", B), role("ops", B))["permission"] == "allow"


def test_role_chain_of_three(edges):
    """bob-direct -> chain-2 -> chain-3 -> crown-jewels."""
    assert assume(edges, role("bob-direct"), role("chain-2"))["permission"] == "allow"
    assert assume(edges, role("chain-2"), role("chain-3"))["permission"] == "allow"
    assert (role("chain-3"), "CAN_READ", f"{A}:bucket:crown-jewels") in edges


def test_inactive_access_key_is_a_blocked_route(edges):
    """alice's second key is inactive: its HAS_SESSION is blocked; key 1 and the console are active."""
    base = f"{A}:user:alice"
    statuses = {k[2].rsplit(":", 1)[1]: p["status"] for k, p in edges.items() if k[0] == base and k[1] == "HAS_SESSION"}
    assert statuses == {"console": "active", "access-key-1": "active", "access-key-2": "blocked"}
    assert edges[(base, "HAS_SESSION", f"{base}:access-key-2")]["route_id"] == f"{base}:access-key-2"


def test_credential_report_naming_an_unknown_user_is_a_warning(built):
    """ghost is in the credential report and not in the GAAD: a warning naming the file and the user."""
    _, report = built
    found = [w for w in report.warnings if "ghost" in w["item"]]
    assert len(found) == 1 and found[0]["file"].endswith("report.json")
    assert "does not contain" in found[0]["message"]


def test_access_actions_give_session_to_workload_routes(edges):
    """ivan may ssm:StartSession and lambda:UpdateFunctionCode: his key reaches the instance and the function."""
    reached = {k[2].split(":")[1] for k in edges if k[0] == f"{A}:user:ivan:access-key-1" and k[1] == "CAN_ACCESS"}
    assert reached == {"user", "instance", "function"}


def test_sensitivity_file_first_match_wins(nodes):
    """crown-jewels is critical and prod-* high from the --sensitivity rules; dev-bucket keeps the default."""
    assert nodes[f"{A}:bucket:crown-jewels"].properties["sensitivity"] == "critical"
    assert nodes[f"{A}:bucket:prod-data"].properties["sensitivity"] == "high"
    assert nodes[f"{A}:bucket:dev-bucket"].properties["sensitivity"] == "medium"


def test_every_node_carries_arn_kind_and_account(built):
    """Every node has properties arn, aws_kind and account, and a valid id."""
    doc, _ = built
    for node in doc.nodes:
        assert {"arn", "aws_kind", "account"} <= set(node.properties), node.id
        assert is_valid_id(node.id)


def test_guardduty_finding_becomes_an_alert_and_unknown_resource_a_warning(built):
    """The access-key finding is an alert on mallory with flat signals; the instance finding is a warning."""
    doc, report = built
    (alert,) = doc.alerts
    assert (alert.id, alert.entity_id, alert.kind) == (
        "gd:5ab6d0aa2c9f3e0f1a2b3c4d5e6f7a8b",
        f"{B}:user:mallory",
        "guardduty_finding",
    )
    assert alert.signals["severity"] == 8.0 and alert.signals["source"] == "guardduty"
    assert any("0000aaaa1111bbbb2222cccc3333dddd" in w["item"] for w in report.warnings)


def test_unrecognised_file_in_a_folder_is_skipped_with_a_reason(built):
    """notes.json in the folder is listed under skipped."""
    _, report = built
    assert [s["file"].rsplit("/", 1)[1] for s in report.skipped] == ["notes.json"]


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        (("111111111111", "user", "alice"), "111111111111:user:alice"),
        (("111111111111", "role", "a/b"), None),
        (("111111111111", "user", "x+y=z,w"), None),
        (("1" * 12, "role", "r" * 200), None),
    ],
)
def test_entity_id_mapping(parts, expected):
    """ARN parts join with ':'; other characters or over-long ids get '_' and a SHA-1 suffix, always valid."""
    made = entity_id(*parts)
    assert is_valid_id(made) and len(made) <= 128
    if expected is not None:
        assert made == expected
    else:
        assert made != entity_id(*parts[:-1], parts[-1] + "x")


def _messy_sources() -> AwsSources:
    gaad = json.loads((bundle_dir() / "prod" / "gaad.json").read_text())
    gaad = copy.deepcopy(gaad)
    alice = next(u for u in gaad["UserDetailList"] if u["UserName"] == "alice")
    alice["UserPolicyList"][0]["PolicyDocument"] = (
        "%7B%22Statement%22%3A%7B%22Effect%22%3A%22Allow%22%2C%22Action%22%3A%22sts%3AAssumeRole%22%2C%22Resource%22%3A%22*%22%7D%7D"
    )
    alice["AttachedManagedPolicies"].append({"PolicyName": "Gone", "PolicyArn": "arn:aws:iam::aws:policy/Gone"})
    alice["CreateDate"] = "yesterday-ish"
    bob = next(u for u in gaad["UserDetailList"] if u["UserName"] == "bob")
    bob["UserPolicyList"] = [{"PolicyName": "broken", "PolicyDocument": "{not json"}]
    policy = next(p for p in gaad["Policies"] if p["Arn"].endswith("dev-read"))
    for version in policy["PolicyVersionList"]:
        version["IsDefaultVersion"] = False
    policy["DefaultVersionId"] = "v9"
    return AwsSources(files=[SourceFile("gaad", "messy.json", "x", gaad)])


def test_messy_export_gives_warnings_not_a_crash():
    """URL-encoded policy read; missing managed policy, no default version, bad JSON policy, odd date: warnings."""
    doc, report = build_document(_messy_sources())
    messages = " | ".join(f"{w['item']}: {w['message']}" for w in report.warnings)
    assert "arn:aws:iam::aws:policy/Gone is not in any Policies list" in messages
    assert "no default policy version" in messages
    assert "policy document ignored" in messages and "bob" in messages
    assert "unreadable date" in messages
    edges = {(e.source, e.type.value, e.target) for e in doc.edges}
    assert (user("alice"), "CAN_ASSUME", role("app-secret")) in edges  # the URL-encoded allow was read
    assert all(w["file"] == "messy.json" for w in report.warnings)


def test_built_document_is_valid_under_the_model(built):
    """The document built without re-validation validates whole through the model, identical, and the
    import's own check of its relationships (`BuiltDocument.validated`) keeps every one as it is."""
    doc, _ = built
    data = doc.as_data()
    again = GraphDocument.model_validate(data)
    assert again.model_dump(mode="json") == data
    again.check_internal()
    checked = doc.validated()
    assert checked.edges == doc.edges
    assert all(a[3] is b[3] for a, b in zip(checked.edges, doc.edges, strict=True))  # shared dicts stay shared


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2019-08-16 17:27:59+00:00", "2019-08-16T17:27:59+00:00"),
        ("2019-05-07T15:35:54+00:00", "2019-05-07T15:35:54+00:00"),
        ("2026-11-30T12:00:00.000Z", "2026-11-30T12:00:00+00:00"),
        ("2026-12-01 14:02:45.678360+00:00", "2026-12-01T14:02:45.678360+00:00"),
        ("N/A", None),
        ("no_information", None),
        ("not_supported", None),
        (None, None),
    ],
)
def test_dates_in_the_formats_exports_use(value, expected):
    """ISO dates with a space or T, Z or an offset, fractions; N/A and friends mean no date."""
    assert _date(value) == expected


def test_unreadable_date_is_an_error_the_importer_turns_into_a_warning():
    """A date in no known format raises ValueError naming it."""
    with pytest.raises(ValueError, match="unreadable date"):
        _date("the day before yesterday")


def test_hostile_shapes_give_warnings_not_a_crash():
    """Wrong types where objects, strings or numbers belong are warned about or left out, never a crash."""
    gaad = {
        "UserDetailList": [
            {"UserName": "u", "Arn": f"arn:aws:iam::{A}:user/u", "GroupList": [3], "AttachedManagedPolicies": ["x"]},
            7,
        ],
        "RoleDetailList": [
            {
                "RoleName": "r",
                "Arn": f"arn:aws:iam::{A}:role/r",
                "AssumeRolePolicyDocument": {"Statement": "no"},
                "PermissionsBoundary": "b",
            }
        ],
        "Policies": [{"Arn": 5}],
    }
    instances = {
        "Reservations": [
            {
                "OwnerId": A,
                "Instances": [{"InstanceId": "i-1", "IamInstanceProfile": ["x"], "Placement": 3, "State": "up"}],
            },
            2,
        ]
    }
    functions = {"Functions": [{"FunctionName": "f", "Role": {"x": 1}}]}
    findings = {"Findings": [{"Id": "f1", "AccountId": A, "Severity": "high", "Resource": "nope", "Service": 1}]}
    sources = AwsSources(
        files=[
            SourceFile("gaad", "g.json", "x", gaad),
            SourceFile("instances", "i.json", "x", instances),
            SourceFile("functions", "f.json", "x", functions),
            SourceFile("findings", "d.json", "x", findings),
        ]
    )
    doc, report = build_document(sources)
    assert f"{A}:instance:i-1" in {n.id for n in doc.nodes}
    assert {w["file"] for w in report.warnings} >= {"g.json", "f.json", "d.json"}


def test_a_role_session_principal_names_a_role_with_a_path(tmp_path):
    """IAM Identity Center's roles carry a path (`/aws-reserved/sso.amazonaws.com/`), and a trust policy
    names one of their sessions as `arn:aws:sts::ACCOUNT:assumed-role/ROLE-NAME/SESSION-NAME`, the role by
    its name alone (IAM User Guide, "AWS JSON policy elements: Principal", *Role session principals*;
    "IAM identifiers": a role's own ARN holds its path). The SSO role may assume break-glass; the
    account's other role may not, and the principal is not reported missing from the export."""
    from moto import mock_aws

    from tests.helpers.aws_bundle import _collect, _role, _session, allow, trust

    sso = "AWSReservedSSO_Admin_0123"
    with mock_aws():
        session = _session(A)
        iam = session.client("iam")
        iam.create_role(
            RoleName=sso, Path="/aws-reserved/sso.amazonaws.com/", AssumeRolePolicyDocument=trust({"AWS": A})
        )
        iam.put_role_policy(RoleName=sso, PolicyName="assume", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [allow("sts:AssumeRole")]}))  # fmt: skip
        _role(iam, "break-glass", trust({"AWS": f"arn:aws:sts::{A}:assumed-role/{sso}/alice@example.com"}),
              allow("s3:GetObject", "arn:aws:s3:::crown-jewels/*"))  # fmt: skip
        _role(iam, "ops", trust({"AWS": A}), allow("sts:AssumeRole"))
        gaad = _collect(session, with_workloads=False)["gaad"]
    assert any(r["Arn"].endswith(f":role/aws-reserved/sso.amazonaws.com/{sso}") for r in gaad["RoleDetailList"])
    (tmp_path / "gaad.json").write_text(json.dumps(gaad))
    doc, report = build_document(read_sources([tmp_path]), sensitivity=SENSITIVITY)
    edges = {(e.source, e.type.value, e.target): e.properties for e in doc.edges}
    assert assume(edges, role(sso), role("break-glass"))["permission"] == "allow"
    assert assume(edges, role("ops"), role("break-glass")) is None
    assert assume(edges, role("ops"), role(sso))["permission"] == "allow"  # trust by account, identity allow
    assert not [w for w in report.warnings if "is not in the export" in w["message"]], report.warnings
