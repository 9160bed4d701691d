"""Entity search and resolution against a real FalkorDB: ids, names and ARNs, best first; the
`entities` command; `alert open` by id, ARN or unambiguous name (ambiguous or unknown: exit 3)."""

from __future__ import annotations

import json
import uuid

import pytest

from blastshield_core import Store, load_settings
from blastshield_core.graph.ingest import import_document
from blastshield_core.graph.model import GraphDocument
from blastshield_core.read.entities import resolve_entity, search_entities
from blastshield_core.results import Status
from tests.conftest import free_port, run_cli

A, B = "111111111111", "222222222222"
ALICE_A = f"arn:aws:iam::{A}:user/alice"


def _node(node_id, label, name, **props):
    return {"id": node_id, "label": label, "name": name, "properties": props}


DOC = {
    "format": "blastshield-graph/v1",
    "name": "entities-test",
    "nodes": [
        _node(f"{A}:user:alice", "Identity", "alice", arn=ALICE_A, account=A),
        _node(f"{A}:user:alice:access-key-1", "Session", "alice access key 1", arn=ALICE_A, account=A),
        _node(f"{A}:user:alice:policies", "IAMRole", "alice (user policies)", arn=ALICE_A, account=A),
        _node(f"{B}:user:alice", "Identity", "alice", arn=f"arn:aws:iam::{B}:user/alice", account=B),
        _node(f"{A}:role:deploy", "IAMRole", "deploy", arn=f"arn:aws:iam::{A}:role/deploy", account=A),
        _node(
            f"{A}:bucket:crown-jewels",
            "DataAsset",
            "crown-jewels",
            arn="arn:aws:s3:::crown-jewels",
            account=A,
            sensitivity="critical",
        ),
        _node("contractor_11", "Identity", "Contractor Eleven"),
    ],
    "edges": [
        {"source": f"{A}:user:alice", "type": "HAS_SESSION", "target": f"{A}:user:alice:access-key-1"},
    ],
}


@pytest.fixture(scope="module")
def graph(loopback_server):
    name = f"ent_{uuid.uuid4().hex[:8]}"
    store = Store(load_settings(environ={}, falkordb_url=loopback_server.url, graph=name, audit_graph=f"{name}_a"))
    import_document(store, GraphDocument.model_validate(DOC))
    env = {"FALKORDB_URL": loopback_server.url, "BLASTSHIELD_GRAPH": name, "BLASTSHIELD_AUDIT_GRAPH": f"{name}_a"}
    yield store, env
    for g in (name, f"{name}_a"):
        if store.graph_exists(g):
            store.command("GRAPH.DELETE", g)
    store.close()


def ids(result):
    return [m.id for m in result.matches]


def test_search_puts_exact_names_first_then_longer_ones_and_cuts_at_the_limit(graph):
    store, _ = graph
    result = search_entities(store, "ALICE")
    assert result.status is Status.OK and not result.truncated
    assert ids(result)[:2] == [f"{A}:user:alice", f"{B}:user:alice"]
    assert set(ids(result)[2:]) == {f"{A}:user:alice:access-key-1", f"{A}:user:alice:policies"}
    assert [m.match for m in result.matches][:2] == ["exact", "exact"]
    cut = search_entities(store, "alice", limit=2)
    assert cut.truncated and ids(cut) == ids(result)[:2] and "narrow" in cut.message


def test_search_by_arn_part_label_and_account(graph):
    store, _ = graph
    assert ids(search_entities(store, "role/deploy")) == [f"{A}:role:deploy"]
    assert ids(search_entities(store, "arn:aws:s3:::crown")) == [f"{A}:bucket:crown-jewels"]
    only_b = search_entities(store, "alice", label="Identity", account=B)
    assert ids(only_b) == [f"{B}:user:alice"] and only_b.matches[0].arn == f"arn:aws:iam::{B}:user/alice"
    assert ids(search_entities(store, "eleven")) == ["contractor_11"]


def test_search_without_a_match_and_with_bad_input_say_so_in_words(graph):
    store, _ = graph
    none = search_entities(store, "nobody-here")
    assert none.status is Status.OK and none.matches == [] and "no entity" in none.message
    for query, kwargs, words in [
        ("", {}, "type an entity id"),
        ("a\nb", {}, "control characters"),
        ("x" * 300, {}, "at most 256"),
        ("alice", {"label": "User"}, "unknown label"),
        ("alice", {"limit": 0}, "from 1 to 100"),
    ]:
        bad = search_entities(store, query, **kwargs)
        assert bad.status is Status.INVALID_INPUT and words in bad.message
        assert "pattern" not in bad.message and "^" not in bad.message


def test_resolution_by_id_arn_and_name(graph):
    store, _ = graph
    assert resolve_entity(store, "contractor_11").entity.id == "contractor_11"
    by_arn = resolve_entity(store, ALICE_A)  # the ARN also names her session and policies: the Identity
    assert by_arn.status is Status.OK and by_arn.entity.id == f"{A}:user:alice"
    assert resolve_entity(store, "Deploy").entity.id == f"{A}:role:deploy"
    assert resolve_entity(store, "crown-jewels").entity.label == "DataAsset"


def test_an_exact_id_resolves_through_the_index_before_any_search(graph):
    """An id is looked up by the id index: the same entity as the search gives, and found even
    when more entities than the search keeps match the text exactly by name."""
    store, _ = graph
    found = resolve_entity(store, "contractor_11")
    assert found.status is Status.OK and found.message == "entity contractor_11"
    assert found.entity.model_dump() == {
        "id": "contractor_11",
        "label": "Identity",
        "name": "Contractor Eleven",
        "arn": None,
        "account": None,
        "match": "exact",
    }
    assert resolve_entity(store, f"{A}:role:deploy").entity.model_dump() == {
        "id": f"{A}:role:deploy",
        "label": "IAMRole",
        "name": "deploy",
        "arn": f"arn:aws:iam::{A}:role/deploy",
        "account": A,
        "match": "exact",
    }
    name = f"crowd_{uuid.uuid4().hex[:8]}"
    crowd = Store(store.settings.model_copy(update={"graph": name, "audit_graph": f"{name}_a"}))
    try:
        nodes = [_node(f"a{i:03d}", "Identity", "zz") for i in range(250)] + [_node("zz", "Identity", "a longer name")]
        import_document(crowd, GraphDocument.model_validate({**DOC, "name": name, "nodes": nodes, "edges": []}))
        # 251 entities match "zz" exactly (250 by name first, shorter); the id still decides
        assert resolve_entity(crowd, "zz").entity.id == "zz"
    finally:
        for g in (name, f"{name}_a"):
            if crowd.graph_exists(g):
                crowd.command("GRAPH.DELETE", g)
        crowd.close()


def test_ambiguous_and_unknown_names_list_the_matches(graph):
    store, _ = graph
    two = resolve_entity(store, "alice")
    assert two.status is Status.UNKNOWN_SOURCE and two.ambiguous and two.entity is None
    assert [m.id for m in two.matches] == [f"{A}:user:alice", f"{B}:user:alice"]
    typo = resolve_entity(store, "alcie")
    assert typo.status is Status.UNKNOWN_SOURCE and not typo.ambiguous
    assert typo.matches and typo.matches[0].name == "alice" and "closest" in typo.message
    partial = resolve_entity(store, "crown")  # contained, not exact: listed, not chosen
    assert partial.status is Status.UNKNOWN_SOURCE and [m.id for m in partial.matches] == [f"{A}:bucket:crown-jewels"]
    assert resolve_entity(store, "   ").status is Status.INVALID_INPUT


def test_entities_command_prints_matches_and_refuses_bad_input(graph):
    _, env = graph
    result = run_cli("entities", "alice", "--label", "Identity", "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [m["id"] for m in data["matches"]] == [f"{A}:user:alice", f"{B}:user:alice"]
    text = run_cli("entities", "deploy", env=env)
    assert text.returncode == 0 and f"{A}:role:deploy" in text.stdout
    bad = run_cli("entities", "alice", "--limit", "500", env=env)
    assert bad.returncode == 2 and "from 1 to 100" in bad.stderr
    down = run_cli("entities", "alice", env={"FALKORDB_URL": f"redis://127.0.0.1:{free_port()}"})
    assert down.returncode == 4


def _alert_count(store):
    return store.read_text("MATCH (a:Alert) RETURN count(a) AS n")[0]["n"]


def test_alert_open_accepts_an_arn_or_a_unique_name(graph):
    store, env = graph
    before = _alert_count(store)
    by_arn = run_cli("alert", "open", ALICE_A, "--title", "Odd key use", "--json", env=env)
    assert by_arn.returncode == 0, by_arn.stderr
    assert json.loads(by_arn.stdout)["entity_id"] == f"{A}:user:alice"
    by_name = run_cli("alert", "open", "deploy", "--title", "Role check", "--json", env=env)
    assert json.loads(by_name.stdout)["entity_id"] == f"{A}:role:deploy"
    assert _alert_count(store) == before + 2


def test_alert_open_ambiguous_or_unknown_exits_three_listing_matches_and_writes_nothing(graph):
    store, env = graph
    before = _alert_count(store)
    two = run_cli("alert", "open", "alice", "--title", "t", env=env)
    assert two.returncode == 3 and f"{A}:user:alice" in two.stderr and f"{B}:user:alice" in two.stderr
    typo = run_cli("alert", "open", "alcie", "--title", "t", "--json", env=env)
    data = json.loads(typo.stdout)
    assert typo.returncode == 3 and data["status"] == "unknown_source" and data["matches"][0]["name"] == "alice"
    slash = run_cli("alert", "open", "has/slash", "--title", "t", env=env)
    assert slash.returncode == 3 and "pattern" not in slash.stderr
    assert _alert_count(store) == before
