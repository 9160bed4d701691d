"""Every principal belongs to the account in its own ARN, whatever file it came in (real FalkorDB for imports)."""

from __future__ import annotations

import json
import shutil
import uuid

import pytest

from blastshield_core.sources.aws import build_document, import_aws, read_sources
from tests.helpers.aws_bundle import A, B, bundle_dir


@pytest.fixture
def graph(remote_store):
    view = remote_store.for_graph(f"aws_{uuid.uuid4().hex[:10]}")
    yield view
    for name in (view.settings.graph, view.settings.audit_graph):
        if view.graph_exists(name):
            view.command("GRAPH.DELETE", name)


def _mixed_prod(tmp_path):
    """The prod folder whose GAAD also holds partner's mallory (allowed to read any S3 object) and role ops."""
    folder = tmp_path / "prod"
    shutil.copytree(bundle_dir() / "prod", folder)
    gaad = json.loads((folder / "gaad.json").read_text())
    partner = json.loads((bundle_dir() / "partner" / "gaad.json").read_text())
    mallory = next(u for u in partner["UserDetailList"] if u["UserName"] == "mallory")
    mallory["UserPolicyList"] = [
        {
            "PolicyName": "read-all",
            "PolicyDocument": {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}],
            },
        }
    ]
    gaad["UserDetailList"].append(mallory)
    gaad["RoleDetailList"] += [r for r in partner["RoleDetailList"] if r["RoleName"] == "ops"]
    (folder / "gaad.json").write_text(json.dumps(gaad))
    users_a = sum(1 for u in gaad["UserDetailList"] if f":{A}:" in u["Arn"])
    roles_a = sum(1 for r in gaad["RoleDetailList"] if f":{A}:" in r["Arn"])
    groups_a = sum(1 for g in gaad.get("GroupDetailList", []) if f":{A}:" in g["Arn"])
    return folder, users_a + roles_a + groups_a


def test_each_principal_is_filed_under_its_own_arn_account_with_a_warning(tmp_path):
    folder, count_a = _mixed_prod(tmp_path)
    doc, report = build_document(read_sources([folder]))
    nodes = {n.id: n for n in doc.nodes}
    assert nodes[f"{B}:user:mallory"].properties["account"] == B
    assert nodes[f"{B}:role:ops"].properties["account"] == B
    assert f"{A}:user:mallory" not in nodes and f"{A}:role:ops" not in nodes
    assert report.accounts == [A]  # the file is prod's export; partner is not re-synced by it
    warned = [w["message"] for w in report.warnings if w["item"] == "document"]
    assert warned == [
        f"principals of 2 accounts in one file: {A} ({count_a}), {B} (2); each is filed under the account in its own ARN"
    ]


def test_a_principal_never_reaches_another_accounts_data_because_of_its_file(tmp_path):
    """mallory (partner) may read any S3 object by her own policy: none of prod's buckets, which need its grant."""
    folder, _ = _mixed_prod(tmp_path)
    doc, _ = build_document(read_sources([folder]))
    reads = [e for e in doc.edges if e.type.value == "CAN_READ" and e.source == f"{B}:user:mallory:policies"]
    assert reads, "mallory's own-account grant is still modelled"
    assert not [e for e in reads if e.target.startswith(f"{A}:")]
    prod_reads = [e for e in doc.edges if e.type.value == "CAN_READ" and e.target.startswith(f"{A}:bucket:")]
    assert prod_reads  # prod's own users still read prod's buckets


def test_two_imports_naming_the_same_user_keep_one_identity(graph, tmp_path):
    """The mixed file, then partner's own export: mallory is one Identity, under partner's account."""
    folder, _ = _mixed_prod(tmp_path)
    import_aws(graph, [folder])
    import_aws(graph, [bundle_dir() / "partner"])
    rows = graph.read_text("MATCH (n:Identity) WHERE n.name = 'mallory' RETURN n.id AS id, n.account AS account")
    assert rows == [{"id": f"{B}:user:mallory", "account": B}]
    alert = "MATCH (a:Alert) RETURN a.id AS id"
    assert graph.read_text(alert) == [{"id": "gd:5ab6d0aa2c9f3e0f1a2b3c4d5e6f7a8b"}]
    # re-importing the mixed file re-syncs prod only: what partner's own export wrote stays
    import_aws(graph, [folder])
    assert graph.read_text(alert) == [{"id": "gd:5ab6d0aa2c9f3e0f1a2b3c4d5e6f7a8b"}]


def test_cli_import_aws_says_what_to_do_next(loopback_server, tmp_path):
    """Without findings in the files, the report still names the principals with the most qualifying
    paths to high or critical data, counted as an investigation counts them."""
    from blastshield_core import Store, load_settings
    from blastshield_core.read.tools import ReadTools
    from tests.conftest import run_cli
    from tests.helpers.aws_bundle import SENSITIVITY

    sensitivity = tmp_path / "sensitivity.json"
    sensitivity.write_text(json.dumps(SENSITIVITY))
    name = f"awsnext_{uuid.uuid4().hex[:8]}"
    env = {"FALKORDB_URL": loopback_server.url, "BLASTSHIELD_GRAPH": name}
    result = run_cli("import-aws", str(bundle_dir() / "prod"), "--sensitivity", str(sensitivity), "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["counts"]["alerts"] == 0
    listed = data["next"]["principals"]
    assert 1 <= len(listed) <= 10
    store = Store(load_settings(environ={}, falkordb_url=loopback_server.url, graph=name))
    try:
        tools = ReadTools(store)
        for row in listed:
            paths, _ = tools._paths("sensitive", 6, {"source_id": row["id"]})
            assert row["paths"] == len(paths) > 0
        assert [r["paths"] for r in listed] == sorted((r["paths"] for r in listed), reverse=True)
        text = run_cli("import-aws", str(bundle_dir() / "prod"), "--sensitivity", str(sensitivity), env=env)
        assert f"alert open {listed[0]['id']} --title TEXT" in text.stdout
    finally:
        store.command("GRAPH.DELETE", name)
        store.close()
