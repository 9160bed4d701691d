"""The synthetic graph generator: deterministic, valid, the asked size and shape."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from blastshield_core import Status, import_document, parse_document
from blastshield_core.graph.generate import GenerateOptions, generate, write_generated
from blastshield_core.graph.model import RelType
from blastshield_core.read.tools import ReadTools
from tests.conftest import run_cli


@pytest.fixture(scope="module")
def plain_doc():
    return parse_document(generate(GenerateOptions(edges=20_000, seed=11)).to_document())


@pytest.fixture(scope="module")
def dense_graph():
    return generate(GenerateOptions(edges=20_000, seed=11, dense=True))


def test_same_seed_same_bytes(tmp_path):
    """The same options write the same bytes."""
    write_generated(GenerateOptions(edges=3_000, seed=5), tmp_path / "a.json")
    write_generated(GenerateOptions(edges=3_000, seed=5), tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_other_seed_other_graph(tmp_path):
    """A different seed gives a different graph."""
    a = generate(GenerateOptions(edges=3_000, seed=5)).to_document()
    b = generate(GenerateOptions(edges=3_000, seed=6)).to_document()
    assert a["edges"] != b["edges"]


def test_document_is_valid(plain_doc):
    """The document passes the import validation, cross-references included."""
    plain_doc.check_internal()
    assert plain_doc.format == "blastshield-graph/v1"


@pytest.mark.parametrize("edges", [500, 20_000, 123_457])
def test_relationship_count_is_as_asked(edges):
    """About N relationships: exactly N once the role structure fits."""
    assert len(generate(GenerateOptions(edges=edges, seed=1)).edges) == edges


def test_every_relationship_type_and_label_present(plain_doc):
    """Sessions, access, roles, assumption and grants all appear (escalation comes from AWS policies only)."""
    assert {e.type for e in plain_doc.edges} == set(RelType) - {RelType.CAN_ESCALATE}
    assert {n.label.value for n in plain_doc.nodes} == {"Identity", "Session", "Workload", "IAMRole", "DataAsset"}


def test_blocked_and_denied_fractions(plain_doc):
    """About 5% of relationships are blocked and some grants are denied."""
    status = Counter(e.properties["status"] for e in plain_doc.edges)
    denied = sum(1 for e in plain_doc.edges if e.properties.get("permission") == "deny")
    assert 0.04 <= status["blocked"] / len(plain_doc.edges) <= 0.06
    assert denied > 10


def test_sensitivities_spread(plain_doc):
    """Assets carry all four sensitivities."""
    found = {n.properties["sensitivity"] for n in plain_doc.nodes if n.label.value == "DataAsset"}
    assert found == {"low", "medium", "high", "critical"}


def test_identities_have_one_to_three_sessions(plain_doc):
    """Every generated user has 1-3 sessions."""
    sessions = Counter(e.source for e in plain_doc.edges if e.type is RelType.HAS_SESSION)
    users = [n.id for n in plain_doc.nodes if n.id.startswith("user-")]
    assert {sessions[u] for u in users} <= {1, 2, 3}


def test_assumption_has_cycles(plain_doc):
    """Role assumption contains cycles."""
    import networkx as nx

    assume = nx.DiGraph((e.source, e.target) for e in plain_doc.edges if e.type is RelType.CAN_ASSUME)
    assert not nx.is_directed_acyclic_graph(assume)


def test_dense_hubs_assume_dozens_of_roles(dense_graph):
    """--dense gives hub roles dozens of CAN_ASSUME relationships each."""
    fan = Counter(e[0] for e in dense_graph.edges if e[1] is RelType.CAN_ASSUME)
    assert dense_graph.hubs and all(fan[h] >= 24 for h in dense_graph.hubs)


def test_alerts_on_varied_labels(plain_doc):
    """Alerts point at identities, workloads and roles, at least 30 of them."""
    labels = {n.id: n.label.value for n in plain_doc.nodes}
    assert {labels[a.entity_id] for a in plain_doc.alerts} == {"Identity", "Workload", "IAMRole"}
    assert len(plain_doc.alerts) >= 30


def test_generated_graph_answers_in_falkordb(store):
    """A generated graph imports and most of its alerts have qualifying paths."""
    doc = parse_document(generate(GenerateOptions(edges=5_000, seed=2)).to_document())
    import_document(store, doc)
    tools = ReadTools(store)
    statuses = Counter(tools.investigate_alert(a.id).status for a in doc.alerts)
    assert set(statuses) <= {Status.PATHS_FOUND, Status.NO_PATH}
    assert statuses[Status.PATHS_FOUND] > len(doc.alerts) // 2


def test_cli_generate_writes_a_document(tmp_path):
    """`generate --edges N --seed S --out FILE` writes a valid document and reports it."""
    out = tmp_path / "g.json"
    result = run_cli("generate", "--edges", "2000", "--seed", "4", "--dense", "--out", str(out), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    doc = parse_document(json.loads(out.read_text()))
    assert (report["status"], report["edges"], len(doc.edges)) == ("ok", 2000, 2000)


def test_cli_generate_refuses_a_bad_size(tmp_path):
    """A size below 100 is invalid input, exit 2, nothing written."""
    out = tmp_path / "g.json"
    result = run_cli("generate", "--edges", "5", "--out", str(out))
    assert result.returncode == 2 and not out.exists()
