"""Small writes in place (graph/inplace.py): one principal's slice re-synced, and an analyst's alert.

A slice re-sync changes exactly the slice (every other node, relationship and alert is the same
in an export before and after), keeps BlastShield's blocks, is audited, and refuses bad input
changing nothing; it gives the graph a full re-import of the account would give when only that
user changed. `alert open` writes in place, without copying the graph, and leaves the graph as
the import path's upsert of the same alert does.
"""

from __future__ import annotations

import base64
import copy
import json
import shutil
import time
import uuid

import pytest

from blastshield_core import build_services, import_document, seed
from blastshield_core.graph import inplace
from blastshield_core.graph.audit import AuditLog
from blastshield_core.graph.export import export_document
from blastshield_core.graph.ingest import load_document, parse_document
from blastshield_core.graph.inplace import principal_slice, replace_slice, upsert_in_place
from blastshield_core.graph.model import DocumentError
from blastshield_core.graph.store import WriteLockLost
from blastshield_core.respond.decide import RulesDecider
from blastshield_core.results import RunState
from blastshield_core.sources.analyst_alert import build_request, open_alert
from blastshield_core.sources.aws import AwsInputError, import_aws, resync_user
from tests.conftest import ROOT, graph_snapshot
from tests.helpers.aws_bundle import A, bundle_dir
from tests.helpers.store_commands import counting_copies

ALERT = "BH-CONTAINMENT-4001"
PRINCIPAL = "contractor_11"
ROUTES = ["route-c11-alternate", "route-c11-primary"]
SEED = ROOT / "seeds" / "containment.json"


@pytest.fixture
def svc(store):
    seed(store, actor="seeder")
    return build_services(store)


def contained(svc):
    run = svc.controller.run(ALERT, RulesDecider(), confirm=True, actor="analyst-1")
    assert run.state is RunState.COMPLETED
    return run


def state(store) -> dict:
    """The graph as an export: nodes by id, relationships by (source, type, target), alerts by id."""
    doc = export_document(store)
    return {
        "nodes": {n.id: (n.label.value, n.name, dict(n.properties)) for n in doc.nodes},
        "edges": {e.key: dict(e.properties) for e in doc.edges},
        "alerts": {a.id: a.model_dump(mode="json") for a in doc.alerts},
    }


def raw_edges(store) -> dict:
    """Every relationship with all its properties, BlastShield's block included (an export leaves those out)."""
    rows = store.read_text("MATCH (a)-[r]->(b) RETURN a.id AS a, type(r) AS t, b.id AS b, properties(r) AS p")
    return {(r["a"], r["t"], r["b"]): r["p"] for r in rows}


def outside(snapshot: dict, slice_ids: set[str]) -> dict:
    """Everything of an export that is not the slice of `slice_ids` (its nodes and the relationships leaving them)."""
    return {
        "nodes": {k: v for k, v in snapshot["nodes"].items() if k not in slice_ids},
        "edges": {k: v for k, v in snapshot["edges"].items() if k[0] not in slice_ids},
        "alerts": snapshot["alerts"],
    }


def seed_slice() -> dict:
    """contractor_11's slice of the containment seed, as JSON data."""
    return principal_slice(load_document(SEED), PRINCIPAL).model_dump(mode="json")


def changed_slice() -> dict:
    """The slice re-collected: the stale session is gone, the VPN session has a new address and
    its route says active, the SSO session reaches the bastion instead, a new session appears."""
    data = seed_slice()
    data["nodes"] = [n for n in data["nodes"] if n["id"] != "sess-c11-stale"]
    for node in data["nodes"]:
        if node["id"] == "sess-c11-vpn":
            node["properties"]["source_ip"] = "198.51.100.99"
    data["nodes"].append({"id": "sess-c11-new", "label": "Session", "name": "new", "properties": {"active": True}})
    edges = [e for e in data["edges"] if "sess-c11-stale" not in (e["source"], e["target"])]
    edges = [e for e in edges if (e["source"], e["target"]) != ("sess-c11-sso", "admin-console")]
    for edge in edges:
        if edge["properties"].get("route_id") == "route-c11-primary":
            edge["properties"]["status"] = "active"
    edges += [
        {"source": "sess-c11-sso", "type": "CAN_ACCESS", "target": "bastion-01", "properties": {}},
        {"source": PRINCIPAL, "type": "HAS_SESSION", "target": "sess-c11-new", "properties": {"route_id": "r-new"}},
        {"source": "sess-c11-new", "type": "CAN_ACCESS", "target": "admin-console", "properties": {}},
    ]
    data["edges"] = edges
    return data


def test_principal_slice_is_the_identity_its_sessions_and_what_leaves_them():
    doc = principal_slice(load_document(SEED), PRINCIPAL)
    assert {n.id for n in doc.nodes} == {PRINCIPAL, "sess-c11-vpn", "sess-c11-sso", "sess-c11-stale"}
    assert len(doc.edges) == 6 and {e.source for e in doc.edges} <= {n.id for n in doc.nodes}
    with pytest.raises(DocumentError, match="no identity"):
        principal_slice(load_document(SEED), "sess-c11-vpn")


def test_slice_resync_changes_exactly_the_slice_keeps_blocks_and_is_audited(svc):
    store = svc.store
    run = contained(svc)
    before, raw_before = state(store), raw_edges(store)
    old_ids = {PRINCIPAL, "sess-c11-vpn", "sess-c11-sso", "sess-c11-stale"}
    version = store.graph_version()

    report = replace_slice(store, parse_document(changed_slice()), PRINCIPAL, actor="resyncer")

    after, raw_after = state(store), raw_edges(store)
    new_ids = {PRINCIPAL, "sess-c11-vpn", "sess-c11-sso", "sess-c11-new"}
    both = old_ids | new_ids
    assert outside(after, both) == outside(before, both)
    assert {k: v for k, v in raw_after.items() if k[0] not in both} == {
        k: v for k, v in raw_before.items() if k[0] not in both
    }
    assert len(outside(before, both)["edges"]) > 10 and len(outside(before, both)["nodes"]) > 10  # not vacuous
    assert store.graph_version() > version
    # the slice is exactly the document's, with BlastShield's blocks on its routes
    want = parse_document(changed_slice())
    assert {k: v for k, v in after["nodes"].items() if k in new_ids} == {
        n.id: (n.label.value, n.name, dict(n.properties)) for n in want.nodes
    }
    slice_edges = {k: v for k, v in raw_after.items() if k[0] in new_ids}
    assert set(slice_edges) == {e.key for e in want.edges}
    for edge in want.edges:  # the document's properties, and a block where BlastShield had one
        assert {k: v for k, v in slice_edges[edge.key].items() if k not in ("status", *inplace.BLOCK_KEYS)} == {
            k: v for k, v in edge.properties.items() if k != "status"
        }
    for key, props in slice_edges.items():
        if props.get("route_id") in ROUTES:
            assert props["status"] == "blocked" and props["blocked_by_run"] == run.run_id
            assert props["blocked_by"] == "analyst-1" and props["blocked_at"]
        else:
            assert "blocked_by_run" not in props, key
    assert "sess-c11-stale" not in after["nodes"]
    assert (report.preserved_blocks, report.blocks_gone) == (ROUTES, [])
    assert report.removed == {"nodes": 1, "relationships": 3} and report.slice_of == PRINCIPAL
    # audited with its actor
    event = next(e for e in AuditLog(store).events() if e.event_id == report.event_id)
    assert event.actor == "resyncer" and f"re-synced the slice of {PRINCIPAL}" in event.summary
    # the same slice again changes nothing
    replace_slice(store, parse_document(changed_slice()), PRINCIPAL, actor="resyncer")
    assert (state(store), raw_edges(store)) == (after, raw_after)


def test_slice_resync_reports_a_block_whose_route_is_gone(svc):
    contained(svc)
    data = seed_slice()
    data["edges"] = [e for e in data["edges"] if e["properties"].get("route_id") != "route-c11-alternate"]
    data["edges"] = [e for e in data["edges"] if e["source"] != "sess-c11-sso"]
    data["nodes"] = [n for n in data["nodes"] if n["id"] != "sess-c11-sso"]
    report = replace_slice(svc.store, parse_document(data), PRINCIPAL)
    assert report.preserved_blocks == ["route-c11-primary"] and report.blocks_gone == ["route-c11-alternate"]
    assert "sess-c11-sso" not in state(svc.store)["nodes"]


def _with(change) -> dict:
    data = copy.deepcopy(seed_slice())
    change(data)
    return data


BAD_SLICES = {
    "node outside the slice": (
        lambda d: d["nodes"].append({"id": "contractor_12", "label": "Identity", "name": "x", "properties": {}}),
        "neither",
    ),
    "edge leaving another node": (
        lambda d: d["edges"].append({"source": "bastion-01", "type": "RUNS_AS", "target": "console-role"}),
        "does not leave",
    ),
    "unknown target": (
        lambda d: d["edges"].append({"source": "sess-c11-vpn", "type": "CAN_ACCESS", "target": "nowhere"}),
        "nowhere",
    ),
    "route id of another relationship": (
        lambda d: d["edges"][0]["properties"].update(route_id="route-c12-a"),
        "already belongs",
    ),
    "label changed": (
        lambda d: next(n for n in d["nodes"] if n["id"] == "sess-c11-vpn").update(label="Workload"),
        "sess-c11-vpn",
    ),
    "no identity": (
        lambda d: d["nodes"].__setitem__(0, {**d["nodes"][0], "id": "someone-else"}),
        "contractor_11",
    ),
    "an alert": (
        lambda d: d.__setitem__("alerts", [{"id": "X-1", "title": "t", "entity_id": PRINCIPAL, "kind": "k"}]),
        "no alerts",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_SLICES))
def test_bad_slice_is_refused_and_changes_nothing(svc, case):
    contained(svc)
    store = svc.store
    before, version, events = graph_snapshot(store), store.graph_version(), len(AuditLog(store).events())
    change, message = BAD_SLICES[case]
    with pytest.raises(DocumentError, match=message):
        replace_slice(store, parse_document(_with(change)), PRINCIPAL)
    assert graph_snapshot(store) == before
    assert (store.graph_version(), len(AuditLog(store).events())) == (version, events)


def test_too_large_or_late_in_place_writes_change_nothing(svc, monkeypatch):
    store = svc.store
    before = graph_snapshot(store)
    monkeypatch.setattr(inplace, "MAX_IN_PLACE_ITEMS", 3)
    with pytest.raises(DocumentError, match="at most 3"):
        replace_slice(store, parse_document(changed_slice()), PRINCIPAL)
    monkeypatch.undo()
    store.write_lock_ttl_s = 0.4

    def stall(lock):
        lock.stop_renewing()  # as if the process were frozen: the lock expires
        time.sleep(0.7)

    with pytest.raises(WriteLockLost):
        replace_slice(store, parse_document(changed_slice()), PRINCIPAL, before_commit=stall)
    assert graph_snapshot(store) == before


def test_alert_open_writes_in_place_as_the_import_upsert_did(base_store, monkeypatch):
    """`alert open` on one graph and the import path's upsert of the same alert document on an
    equal graph give equal exports; `alert open` copies nothing and is audited."""
    one = base_store.for_graph(f"t_{uuid.uuid4().hex[:12]}")
    two = base_store.for_graph(f"t_{uuid.uuid4().hex[:12]}")
    try:
        for view in (one, two):
            seed(view, actor="seeder")
        request = build_request("contractor_12", "look at this", signals={"score": 3, "vpn": True})
        sent = counting_copies(monkeypatch)
        opened = open_alert(one, request, alert_id="AN-20261202T080000-0123456789ab", actor="analyst-1")
        assert sent == []
        alert = {
            "id": opened.alert_id,
            "title": "look at this",
            "entity_id": "contractor_12",
            "kind": opened.kind,
            "signals": {"score": 3, "vpn": True},
        }
        import_document(two, parse_document({"format": "blastshield-graph/v1", "name": "a", "alerts": [alert]}))
        assert state(one) == state(two)
        event = AuditLog(one).events()[0]
        assert event.actor == "analyst-1" and f"alert-{opened.alert_id}" in event.summary
    finally:
        for view in (one, two):
            for name in (view.settings.graph, view.settings.audit_graph):
                if view.graph_exists(name):
                    view.command("GRAPH.DELETE", name)


def test_upsert_in_place_refuses_an_alert_on_an_unknown_entity(svc):
    before = graph_snapshot(svc.store)
    alert = {"id": "X-2", "title": "t", "entity_id": "nobody", "kind": "k"}
    with pytest.raises(DocumentError, match="nobody"):
        upsert_in_place(svc.store, parse_document({"format": "blastshield-graph/v1", "name": "a", "alerts": [alert]}))
    assert graph_snapshot(svc.store) == before


# -- the AWS re-sync of one user --------------------------------------------------------------
@pytest.fixture
def aws_graphs(remote_store):
    views = [remote_store.for_graph(f"aws_{uuid.uuid4().hex[:10]}") for _ in range(2)]
    yield views
    for view in views:
        for name in (view.settings.graph, view.settings.audit_graph):
            if view.graph_exists(name):
                view.command("GRAPH.DELETE", name)


def _alice_key_inactive(tmp_path):
    """The prod folder with alice's first access key inactive in the credential report."""
    folder = tmp_path / "prod"
    shutil.copytree(bundle_dir() / "prod", folder)
    report = json.loads((folder / "report.json").read_text())
    text = report["Content"]
    decoded = not text.startswith("dXNlc")  # prod's report is kept decoded
    lines = (text if decoded else base64.b64decode(text).decode()).splitlines()
    head = lines[0].split(",")
    column = head.index("access_key_1_active")
    for i, line in enumerate(lines):
        cells = line.split(",")
        if cells[0] == "alice":
            assert cells[column] == "true"
            cells[column] = "false"
            lines[i] = ",".join(cells)
    report["Content"] = "\n".join(lines)
    (folder / "report.json").write_text(json.dumps(report))
    return folder


def test_aws_user_resync_gives_the_graph_a_full_reimport_gives(aws_graphs, tmp_path):
    """With only alice's key changed, re-syncing alice's slice gives the graph that re-importing
    the whole account gives; her key's route reads blocked; the write is audited."""
    full, one = aws_graphs
    for view in (full, one):
        import_aws(view, [bundle_dir()])
    key_route = (f"{A}:user:alice", "HAS_SESSION", f"{A}:user:alice:access-key-1")
    assert state(one)["edges"][key_route]["status"] == "active"
    items = [_alice_key_inactive(tmp_path), bundle_dir() / "partner"]
    import_aws(full, items)
    report = resync_user(one, items, A, "alice", actor="resyncer")
    assert state(one) == state(full)
    assert state(one)["edges"][key_route]["status"] == "blocked"
    assert report.slice_of == f"{A}:user:alice" and report.removed == {"nodes": 0, "relationships": 0}
    assert AuditLog(one).events()[0].event_id == report.event_id
    with pytest.raises(AwsInputError, match="no user 'nobody'"):
        resync_user(one, items, A, "nobody")


def test_only_new_route_ids_are_looked_up_across_the_graph(svc, monkeypatch):
    """A slice that keeps its routes reads no scan of the graph's routes (`routes_by_ids`); one that
    brings a new route id looks up that id alone."""
    store = svc.store
    asked: list[tuple[str, object]] = []
    read = store.read

    def recording(name, params=None, **kwargs):
        asked.append((name, params))
        return read(name, params, **kwargs)

    monkeypatch.setattr(store, "read", recording)
    replace_slice(store, parse_document(seed_slice()), PRINCIPAL)
    assert "routes_by_ids" not in [name for name, _ in asked]
    asked.clear()
    replace_slice(store, parse_document(changed_slice()), PRINCIPAL)
    assert [p for name, p in asked if name == "routes_by_ids"] == [{"route_ids": ["r-new"]}]


def _canon(doc, principal: str) -> tuple[list[str], list[str]]:
    data = principal_slice(doc, principal, name="s").model_dump(mode="json")
    return (
        sorted(json.dumps(n, sort_keys=True) for n in data["nodes"]),
        sorted(json.dumps(e, sort_keys=True) for e in data["edges"]),
    )


def _slices_agree(items, tmp_sensitivity=None) -> int:
    """Every IAM user's slice from `user_sources` equals its slice in the whole collection's
    document; the number of users compared."""
    from blastshield_core.graph.model import Label
    from blastshield_core.sources.aws import build_document, read_sources
    from blastshield_core.sources.aws.build.load import user_sources

    sources = read_sources(items)
    whole, _ = build_document(sources, sensitivity=tmp_sensitivity)
    compared = 0
    for node in whole.nodes:
        if node.label is not Label.IDENTITY or node.properties.get("aws_kind") != "user":
            continue
        account, _, user = node.id.split(":", 2)
        part, _ = build_document(user_sources(sources, account, user), sensitivity=tmp_sensitivity)

        assert _canon(part, node.id) == _canon(whole, node.id), node.id
        compared += 1
    return compared


def test_a_users_slice_from_its_own_sources_is_its_slice_of_the_whole_collection(tmp_path):
    """The re-sync transforms only what a user's slice is derived from; for every user of the test
    accounts (mapping cases, escalations, resource policies and guardrails, a generated account
    with messy exports) the slice is the
    one the whole collection gives."""
    from blastshield_core.sources.aws.synthetic.generate import AwsGenerateOptions, write_aws_collection
    from tests.helpers.aws_bundle import SENSITIVITY
    from tests.helpers.aws_escalation_bundle import escalation_dir
    from tests.helpers.aws_policy_bundle import policy_bundle

    assert _slices_agree([bundle_dir()], SENSITIVITY) >= 8
    assert _slices_agree([escalation_dir()]) >= 3
    assert _slices_agree([policy_bundle()]) >= 1  # resource policies and organisation guardrails
    options = AwsGenerateOptions(users=60, roles=30, policies=40, buckets=10, escalations=10, messy=True, seed=3)
    write_aws_collection(options, tmp_path / "generated")
    assert _slices_agree([tmp_path / "generated"]) == 60
