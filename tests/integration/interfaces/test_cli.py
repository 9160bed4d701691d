"""The command line: JSON contract and exit codes, in fresh processes."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.conftest import run_cli


@pytest.fixture(scope="module")
def cli_env(loopback_server):
    """Environment pointing the CLI at a seeded graph on the loopback server."""
    env = {"FALKORDB_URL": loopback_server.url, "BLASTSHIELD_GRAPH": f"cli_{uuid.uuid4().hex[:8]}"}
    result = run_cli("seed", "--json", env=env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"] == "ok"
    return env


def cli_json(env, *args):
    result = run_cli(*args, "--json", env=env)
    return result.returncode, json.loads(result.stdout)


def test_alerts_contract(cli_env):
    """alerts --json lists id, entity_id, risk_score and severity."""
    code, data = cli_json(cli_env, "alerts")
    assert code == 0 and data["status"] == "ok"
    got = {(a["id"], a["entity_id"], a["risk_score"], a["severity"]) for a in data["alerts"]}
    assert ("BH-1042", "developer_07", 35, "medium") in got and len(got) == 4


def test_investigate_contract(cli_env):
    """investigate --json carries the alert score and paths with nodes and relationships."""
    code, data = cli_json(cli_env, "investigate", "BH-1042")
    assert code == 0 and data["status"] == "paths_found"
    assert {k: data["alert"][k] for k in ("risk_score", "severity", "rule_set")} == {
        "risk_score": 35,
        "severity": "medium",
        "rule_set": "demo-rules-v1",
    }
    (path,) = data["paths"]
    assert [n["id"] for n in path["nodes"]][0] == "developer_07"
    assert {"id", "label", "name"} <= path["nodes"][0].keys()
    assert {"type", "source", "target", "properties"} <= path["relationships"][0].keys()


def test_investigate_depth_four_is_no_path_exit_zero(cli_env):
    """no_path is an answer: exit 0."""
    code, data = cli_json(cli_env, "investigate", "BH-1042", "--depth", "4")
    assert (code, data["status"], data["paths"]) == (0, "no_path", [])


@pytest.mark.parametrize("depth", ["0", "7", "2.5", "3; DROP", "*1..100"])
def test_invalid_depth_exit_two(cli_env, depth):
    """A bad depth is invalid_input with exit 2."""
    code, data = cli_json(cli_env, "investigate", "BH-1042", "--depth", depth)
    assert (code, data["status"]) == (2, "invalid_input")


def test_unknown_alert_exit_three(cli_env):
    """An unknown alert is exit 3."""
    code, data = cli_json(cli_env, "investigate", "BH-9999")
    assert (code, data["status"]) == (3, "unknown_alert")


def test_path_contract_and_unknowns(cli_env):
    """path answers paths, unknown_source/unknown_target with exit 3, and no_path with exit 0."""
    code, data = cli_json(cli_env, "path", "auditor_02", "staging-report", "--max-hops", "5")
    assert code == 0 and [n["id"] for n in data["paths"][0]["nodes"]][-1] == "staging-report"
    assert cli_json(cli_env, "path", "auditor_02", "staging-report", "--max-hops", "4")[1]["status"] == "no_path"
    assert cli_json(cli_env, "path", "ghost", "staging-report")[:1] == (3,)
    assert cli_json(cli_env, "path", "auditor_02", "ghost")[1]["status"] == "unknown_target"


def test_blast_radius_routes_candidates_contract(cli_env):
    """blast-radius, routes and candidates carry their documented fields."""
    _, blast = cli_json(cli_env, "blast-radius", "BH-CONTAINMENT-4001")
    assert {"id", "label", "hops", "on_critical_path"} <= blast["entities"][0].keys()
    _, routes = cli_json(cli_env, "routes", "BH-CONTAINMENT-4001")
    assert {(r["route_id"], r["status"], r["paths_carried"]) for r in routes["routes"]} >= {
        ("route-c11-primary", "active", 1)
    }
    _, cands = cli_json(cli_env, "candidates", "BH-CONTAINMENT-4001")
    assert [(c["id"], c["route_id"], c["paths_cut"]) for c in cands["candidates"]][0] == (
        "block-route:route-c11-primary",
        "route-c11-primary",
        1,
    )


def test_import_bad_document_exit_two_writes_nothing(cli_env, tmp_path):
    """A bad document is refused with the item named, exit 2, and nothing written."""
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "blastshield-graph/v1", "name": "b", "nodes": [{"id": "x", "label": "Nope"}]}))
    before = cli_json(cli_env, "alerts")[1]
    result = run_cli("import", str(bad), env=cli_env)
    assert result.returncode == 2
    assert "nodes[0]" in result.stderr and "nothing written" in result.stderr
    assert cli_json(cli_env, "alerts")[1] == before


def test_import_own_document_then_investigate(loopback_server, tmp_path):
    """An imported document of one's own answers the same questions (replace mode)."""
    env = {"FALKORDB_URL": loopback_server.url, "BLASTSHIELD_GRAPH": f"own_{uuid.uuid4().hex[:8]}"}
    own = tmp_path / "own.json"
    own.write_text(
        json.dumps(
            {
                "format": "blastshield-graph/v1",
                "name": "own",
                "nodes": [
                    {"id": "svc-a", "label": "Workload", "name": "Service A"},
                    {"id": "role-a", "label": "IAMRole", "name": "Role A"},
                    {"id": "db-a", "label": "DataAsset", "name": "DB A", "properties": {"sensitivity": "high"}},
                ],
                "edges": [
                    {"source": "svc-a", "type": "RUNS_AS", "target": "role-a"},
                    {"source": "role-a", "type": "CAN_READ", "target": "db-a"},
                ],
                "alerts": [{"id": "OWN-1", "title": "mine", "entity_id": "svc-a", "kind": "exposed_workload"}],
            }
        )
    )
    code, data = cli_json(env, "import", str(own), "--replace")
    assert (code, data["nodes"], data["edges"], data["alerts"]) == (0, 3, 2, 1)
    code, data = cli_json(env, "investigate", "OWN-1")
    assert code == 0 and [n["id"] for n in data["paths"][0]["nodes"]] == ["svc-a", "role-a", "db-a"]
    assert data["alert"]["risk_score"] == 10 + 15  # high reach, 2 hops


def test_unreachable_server_exit_four():
    """An unreachable FALKORDB_URL is a clear message and exit 4, no traceback."""
    result = run_cli("alerts", env={"FALKORDB_URL": "redis://127.0.0.1:1"})
    assert result.returncode == 4
    assert "cannot reach FalkorDB" in result.stderr and "Traceback" not in result.stderr


def test_usage_error_exit_two():
    """A missing argument is a usage error, exit 2."""
    assert run_cli("investigate").returncode == 2


def test_embedded_default_end_to_end(tmp_path):
    """With only a data directory, seed then investigate works on the embedded database."""
    env = {"BLASTSHIELD_DATA_DIR": str(tmp_path / "data")}
    assert run_cli("seed", env=env).returncode == 0
    result = run_cli("investigate", "BH-CONTAINMENT-4001", env=env)
    assert result.returncode == 0
    assert "route-c11-primary" not in result.stdout  # human output lists paths, not routes
    assert "payments-vault" in result.stdout and "score 60 high" in result.stdout


def test_choke_points_contract(cli_env):
    """choke-points --routes-only --json: status, severable and the two routes with source/type/target/route_id."""
    code, data = cli_json(cli_env, "choke-points", "BH-CONTAINMENT-4001", "--routes-only")
    assert (code, data["status"], data["severable"]) == (0, "paths_found", True)
    assert {(r["source"], r["type"], r["route_id"]) for r in data["relationships"]} == {
        ("contractor_11", "HAS_SESSION", "route-c11-primary"),
        ("contractor_11", "HAS_SESSION", "route-c11-alternate"),
    }
    assert {"target", "paths_cut"} <= data["relationships"][0].keys()


def test_choke_points_not_severable_is_an_answer(cli_env):
    """A role alert has no session route: severable false, all paths uncuttable, exit 0."""
    code, data = cli_json(cli_env, "choke-points", "BH-IAM-2001", "--routes-only")
    assert (code, data["severable"], data["relationships"], data["uncuttable_paths"]) == (0, False, [], [0, 1, 2])


def test_what_if_contract_and_unknown_route(cli_env):
    """what-if --json has paths as investigate does; an unknown route is unknown_route with exit 3."""
    code, data = cli_json(cli_env, "what-if", "BH-CONTAINMENT-4001", "--block", "route-c11-primary")
    assert (code, data["status"], data["path_count"]) == (0, "paths_found", 1)
    assert {"nodes", "relationships"} <= data["paths"][0].keys()
    code, data = cli_json(cli_env, "what-if", "BH-CONTAINMENT-4001", "--block", "route-ghost")
    assert (code, data["status"]) == (3, "unknown_route")


def test_collateral_and_multi_alert_contract(cli_env):
    """collateral and multi-alert answer with ok and their documented fields."""
    code, data = cli_json(cli_env, "collateral", "route-dev07-a")
    assert (code, data["status"], [i["identity_id"] for i in data["identities"]]) == (0, "ok", ["developer_07"])
    assert "customer-db" in data["lost_sensitive_assets"]
    code, data = cli_json(cli_env, "multi-alert", "BH-1042", "BH-CONTAINMENT-4001", "--routes-only")
    assert (code, data["status"], data["severable"], len(data["choke_points"])) == (0, "ok", True, 3)


def test_export_then_import_into_a_new_graph(cli_env, loopback_server, tmp_path):
    """export FILE writes a document that imports into another graph and exports back byte for byte."""
    first = tmp_path / "first.json"
    code, data = cli_json(cli_env, "export", str(first), "--name", "roundtrip")
    assert (code, data["status"], data["alerts"]) == (0, "ok", 4)
    other = {"FALKORDB_URL": loopback_server.url, "BLASTSHIELD_GRAPH": f"exp_{uuid.uuid4().hex[:8]}"}
    assert cli_json(other, "import", str(first), "--replace")[0] == 0
    second = tmp_path / "second.json"
    assert cli_json(other, "export", str(second), "--name", "roundtrip")[0] == 0
    assert second.read_bytes() == first.read_bytes()
