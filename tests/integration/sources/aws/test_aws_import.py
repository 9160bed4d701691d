"""Importing AWS exports into a real FalkorDB: load, re-sync, inputs refused, the CLI, and an end-to-end containment."""

from __future__ import annotations

import io
import json
import shutil
import uuid
import zipfile

import pytest

from blastshield_core import Status, build_services, seed
from blastshield_core.respond.decide import RulesDecider
from blastshield_core.results import RunState
from blastshield_core.sources.aws import AwsInputError, build_document, import_aws, read_sources
from tests.conftest import run_cli
from tests.helpers.aws_bundle import SENSITIVITY, A, B, bundle_dir

ALERT = "gd:5ab6d0aa2c9f3e0f1a2b3c4d5e6f7a8b"
MALLORY_KEY = f"{B}:user:mallory:access-key-1"


@pytest.fixture
def graph(remote_store):
    """An empty graph of its own on the loopback server, deleted afterwards."""
    view = remote_store.for_graph(f"aws_{uuid.uuid4().hex[:10]}")
    yield view
    for name in (view.settings.graph, view.settings.audit_graph):
        if view.graph_exists(name):
            view.command("GRAPH.DELETE", name)


@pytest.fixture(scope="module")
def sensitivity_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("aws") / "sensitivity.json"
    path.write_text(json.dumps(SENSITIVITY))
    return path


def ids(store) -> set[str]:
    return {row["id"] for row in store.read_text("MATCH (n:Entity) RETURN n.id AS id")}


def rels(store) -> dict[tuple[str, str, str], dict]:
    rows = store.read_text("MATCH (a)-[r]->(b) RETURN a.id AS a, type(r) AS t, b.id AS b, properties(r) AS p")
    return {(r["a"], r["t"], r["b"]): r["p"] for r in rows}


def test_import_writes_the_document_with_its_counts(graph, sensitivity_file):
    """An import into an empty graph writes exactly the built document; the report counts it."""
    report = import_aws(graph, [bundle_dir()], sensitivity_file=sensitivity_file)
    doc, _ = build_document(read_sources([bundle_dir()]), sensitivity=SENSITIVITY)
    assert report.status == "imported" and report.accounts == [A, B]
    assert ids(graph) == {n.id for n in doc.nodes}
    assert sum(report.counts["nodes"].values()) == len(doc.nodes)
    assert sum(report.counts["relationships"].values()) == len(rels(graph)) == len(doc.edges)
    assert set(report.timings) == {"parse_s", "evaluate_s", "load_s"}


def _modified_prod(tmp_path):
    """The prod folder with carol removed and alice's inline policy gone."""
    folder = tmp_path / "prod"
    shutil.copytree(bundle_dir() / "prod", folder)
    gaad = json.loads((folder / "gaad.json").read_text())
    gaad["UserDetailList"] = [u for u in gaad["UserDetailList"] if u["UserName"] != "carol"]
    alice = next(u for u in gaad["UserDetailList"] if u["UserName"] == "alice")
    alice["UserPolicyList"] = []
    (folder / "gaad.json").write_text(json.dumps(gaad))
    return folder


def test_reimport_resyncs_one_account_and_leaves_the_rest(graph, tmp_path):
    """Re-importing prod removes carol and alice's lost grant; partner's account and the scenarios stay."""
    seed(graph)
    before_seed = {i for i in ids(graph)}
    import_aws(graph, [bundle_dir()])
    partner_before = {k: v for k, v in rels(graph).items() if k[0].startswith((f"{B}:user", f"{B}:role"))}
    report = import_aws(graph, [_modified_prod(tmp_path)])
    now = ids(graph)
    assert not {i for i in now if i.startswith(f"{A}:user:carol")}
    assert (f"{A}:user:alice:policies", "CAN_ASSUME", f"{A}:role:app-web") not in rels(graph)
    assert (f"{A}:user:alice:policies", "CAN_READ", f"{A}:bucket:dev-bucket") in rels(graph)
    assert before_seed <= now
    assert {k: v for k, v in rels(graph).items() if k[0].startswith((f"{B}:user", f"{B}:role"))} == partner_before
    assert report.removed["nodes"] == 4 and report.removed["relationships"] >= 1


def test_reimport_of_the_same_bundle_changes_nothing(graph):
    """The same snapshot twice gives the same graph and removes nothing."""
    import_aws(graph, [bundle_dir()])
    first = (ids(graph), rels(graph))
    report = import_aws(graph, [bundle_dir()])
    assert (ids(graph), rels(graph)) == first
    assert report.removed == {"nodes": 0, "relationships": 0, "alerts": 0}


def test_zip_upload_reads_like_the_folder(graph):
    """A zip of the bundle given as bytes imports the same entities as the folder."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(bundle_dir().rglob("*.json")):
            archive.write(path, path.relative_to(bundle_dir()).as_posix())
    report = import_aws(graph, [("bundle.zip", buffer.getvalue())])
    doc, _ = build_document(read_sources([bundle_dir()]))
    assert ids(graph) == {n.id for n in doc.nodes}
    assert [s["file"] for s in report.skipped] == ["bundle.zip:partner/notes.json"]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("notes.json", b'{"note": 1}', "not a recognised AWS CLI export"),
        ("gaad.json", b'{"UserDetailList": [', "is not valid JSON"),
    ],
)
def test_named_unrecognised_or_invalid_file_is_refused(graph, name, content, message):
    """A named file that is not recognised, or not JSON, is an AwsInputError and nothing is written."""
    with pytest.raises(AwsInputError, match=message):
        import_aws(graph, [bundle_dir() / "prod", (name, content)])
    assert not graph.graph_exists(graph.settings.graph)


def test_without_a_gaad_nothing_is_imported(graph):
    """At least one get-account-authorization-details export is required."""
    with pytest.raises(AwsInputError, match="at least one is required"):
        import_aws(graph, [bundle_dir() / "prod" / "buckets.json"])


@pytest.fixture
def contained(graph, sensitivity_file):
    """The bundle imported, and services on it."""
    import_aws(graph, [bundle_dir()], sensitivity_file=sensitivity_file)
    return build_services(graph)


def test_guardduty_alert_investigates_to_a_cross_account_critical_bucket(contained):
    """mallory's finding: one path, across accounts, to crown-jewels (critical), scored by aws-rules-v1."""
    result = contained.tools.investigate_alert(ALERT)
    assert result.status is Status.PATHS_FOUND
    (path,) = result.paths
    assert [n.id for n in path.nodes][-3:] == [f"{B}:role:ops", f"{A}:role:cross-in", f"{A}:bucket:crown-jewels"]
    assert result.alert.rule_set == "aws-rules-v1"
    assert {f.rule for f in result.alert.factors} >= {"E1-critical-reach", "G-severity-high", "G-credential-threat"}


def test_rules_containment_blocks_the_credential_route(contained):
    """The rules decider blocks mallory's access key route and the fresh answer is no_path."""
    run = contained.controller.run(ALERT, RulesDecider(), 3, True)
    assert run.state is RunState.COMPLETED
    assert [(a.route_id, a.verified) for a in run.actions] == [(MALLORY_KEY, True)]
    assert contained.tools.investigate_alert(ALERT).status is Status.NO_PATH


def test_reimport_keeps_the_blocked_route_blocked(contained, graph, sensitivity_file):
    """After containment, importing the same bundle again keeps the route BlastShield blocked blocked."""
    contained.controller.run(ALERT, RulesDecider(), 3, True)
    report = import_aws(graph, [bundle_dir()], sensitivity_file=sensitivity_file)
    key = (f"{B}:user:mallory", "HAS_SESSION", MALLORY_KEY)
    assert rels(graph)[key]["status"] == "blocked"
    assert contained.tools.investigate_alert(ALERT).status is Status.NO_PATH
    assert len(report.preserved_blocks) == 1


def test_cli_import_aws_json_report(loopback_server, sensitivity_file):
    """import-aws --json prints the report (accounts, counts, warnings, skipped) and exits 0."""
    env = {"FALKORDB_URL": loopback_server.url, "BLASTSHIELD_GRAPH": f"awscli_{uuid.uuid4().hex[:8]}"}
    result = run_cli("import-aws", str(bundle_dir()), "--sensitivity", str(sensitivity_file), "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["status"] == "imported" and data["accounts"] == [A, B]
    assert data["counts"]["alerts"] == 1 and data["counts"]["nodes"]["Identity"] >= 11
    assert {"file", "item", "message"} == set(data["warnings"][0])
    assert data["skipped"][0]["file"].endswith("notes.json") and data["preserved_blocks"] == []


def test_cli_import_aws_bad_input_exits_two(loopback_server, tmp_path):
    """A named file that is not an export: exit 2, status invalid_input."""
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    env = {"FALKORDB_URL": loopback_server.url, "BLASTSHIELD_GRAPH": f"awscli_{uuid.uuid4().hex[:8]}"}
    result = run_cli("import-aws", str(bad), "--json", env=env)
    assert result.returncode == 2 and json.loads(result.stdout)["status"] == "invalid_input"


def test_conditional_edge_is_followed_and_shows_its_condition(contained):
    """henry's MFA-conditional assumption is on his shortest path to app-web, with conditional and the key."""
    result = contained.tools.find_shortest_access_path(f"{A}:user:henry", f"{A}:role:app-web", 6)
    assert result.status is Status.PATHS_FOUND
    (path,) = result.paths
    last = path.relationships[-1]
    assert last.type == "CAN_ASSUME" and last.properties["conditional"] is True
    assert last.properties["condition_keys"] == ["aws:MultiFactorAuthPresent"]
