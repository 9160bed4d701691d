"""Path graph drawings of real accounts (AppTest): short labels, the full id and ARN on hover, ranks left to right."""

from __future__ import annotations

from blastshield_core.graph.ingest import import_document, parse_document
from tests.app.test_app import app, drawn, open_page

__all__ = ["app"]  # the fixture, shared with tests/app/test_app.py

ACCOUNT = "200611803367"
ROLE = "a-very-long-role-name-from-a-real-account-export"


def _node(node_id, label, name, kind, arn, **extra):
    props = {"arn": arn, "aws_kind": kind, "account": ACCOUNT, **extra}
    return {"id": node_id, "label": label, "name": name, "properties": props}


DOC = {
    "format": "blastshield-graph/v1",
    "name": "long-names",
    "nodes": [
        _node(f"{ACCOUNT}:user:dana", "Identity", "dana", "user", f"arn:aws:iam::{ACCOUNT}:user/dana"),
        _node(f"{ACCOUNT}:user:dana:access-key-1", "Session", "dana access key 1", "access_key",
              f"arn:aws:iam::{ACCOUNT}:user/dana"),
        _node(f"{ACCOUNT}:user:dana:api", "Workload", "dana (API calls)", "user_api",
              f"arn:aws:iam::{ACCOUNT}:user/dana"),
        _node(f"{ACCOUNT}:role:{ROLE}", "IAMRole", ROLE, "role", f"arn:aws:iam::{ACCOUNT}:role/{ROLE}"),
        *[
            _node(f"{ACCOUNT}:bucket:crown-{i}", "DataAsset", f"crown-{i}", "bucket", f"arn:aws:s3:::crown-{i}",
                  sensitivity="critical")
            for i in range(3)
        ],
    ],
    "edges": [
        {"source": f"{ACCOUNT}:user:dana", "type": "HAS_SESSION", "target": f"{ACCOUNT}:user:dana:access-key-1",
         "properties": {"route_id": "dana-key-1"}},
        {"source": f"{ACCOUNT}:user:dana:access-key-1", "type": "CAN_ACCESS", "target": f"{ACCOUNT}:user:dana:api"},
        {"source": f"{ACCOUNT}:user:dana:api", "type": "RUNS_AS", "target": f"{ACCOUNT}:role:{ROLE}"},
        *[
            {"source": f"{ACCOUNT}:role:{ROLE}", "type": "CAN_READ", "target": f"{ACCOUNT}:bucket:crown-{i}"}
            for i in range(3)
        ],
    ],
    "alerts": [{"id": "LONG-1", "title": "dana", "kind": "analyst", "entity_id": f"{ACCOUNT}:user:dana"}],
}  # fmt: skip


def test_labels_are_short_names_with_the_full_id_and_arn_on_hover(app):
    from pages._services import services

    open_page(app, "pages/alerts.py")
    import_document(services().store, parse_document(DOC))
    app.switch_page("pages/graph.py").run()
    app.selectbox(key="graph_alert").set_value("LONG-1").run()
    assert not app.exception, app.exception
    nodes = {n["id"]: n for n in drawn(app)[0]["nodes"]}
    role = nodes[f"{ACCOUNT}:role:{ROLE}"]
    first_line = role["label"].split("\n")[0]
    assert len(first_line) <= 28 and first_line.endswith("…") and ROLE.startswith(first_line[:-1])
    assert f"id: {ACCOUNT}:role:{ROLE}" in role["title"] and f"arn: arn:aws:iam::{ACCOUNT}:role/{ROLE}" in role["title"]
    assert nodes[f"{ACCOUNT}:user:dana"]["label"].split("\n")[0] == "dana"
    assert nodes[f"{ACCOUNT}:bucket:crown-0"]["label"].startswith("★ crown-0\n[critical]")
    # ranked left to right by hops from the alert's entity: the three assets share one rank, one above another
    levels = {node_id: n["level"] for node_id, n in nodes.items()}
    assert levels[f"{ACCOUNT}:user:dana"] == 0 and levels[f"{ACCOUNT}:role:{ROLE}"] == 3
    assert {levels[f"{ACCOUNT}:bucket:crown-{i}"] for i in range(3)} == {4}
    # a shape whose label is drawn outside it, at a fixed size (the cylinder grew with its label and stacked)
    assert {nodes[f"{ACCOUNT}:bucket:crown-{i}"]["shape"] for i in range(3)} == {"triangle"}
