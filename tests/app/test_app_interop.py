"""The dashboard (AppTest): investigating an entity from the Alerts page."""

from __future__ import annotations

from tests.app.test_app import app, drawn, open_page, plain, table

__all__ = ["app"]  # the fixture, shared with tests/app/test_app.py


def _open_alert(at, entity: str, title: str):
    at.text_input(key="alerts_open_entity").set_value(entity)
    at.text_input(key="alerts_open_title").set_value(title)
    at.button(key="alerts_open_submit").click().run()
    assert not at.exception, at.exception
    return at


def test_investigate_an_entity_opens_and_selects_an_alert(app):
    """Entering an entity and a title opens an alert on it, lists it with a score and selects it."""
    open_page(app, "pages/alerts.py")
    _open_alert(app, "deploy-role", "Deploy role looks odd")
    chosen = app.selectbox(key="alerts_select").value
    assert chosen.startswith("AN-")
    assert any(chosen in plain(s.value) for s in app.success)
    rows = {r["alert"]: r for r in table(app, "alert", "entity").to_dict("records")}
    assert rows[chosen]["entity"] == "deploy-role"
    assert rows[chosen]["title"] == "Deploy role looks odd"
    assert rows[chosen]["qualifying paths"] >= 1
    app.switch_page("pages/graph.py").run()
    assert app.selectbox(key="graph_alert").value == chosen


def test_investigate_an_unknown_entity_is_refused(app):
    """An entity that is not in the graph is a warning and no alert is added; a blank title is an error."""
    open_page(app, "pages/alerts.py")
    before = set(table(app, "alert", "entity")["alert"])
    _open_alert(app, "no-such-entity", "Whatever")
    assert any("Unknown entity" in w.value for w in app.warning)
    _open_alert(app, "deploy-role", "   ")
    assert any("Invalid input" in e.value for e in app.error)
    assert set(table(app, "alert", "entity")["alert"]) == before


A, B = "111122223333", "444455556666"


def _aws_node(node_id, label, kind, account, arn, **extra):
    return {
        "id": node_id,
        "label": label,
        "name": node_id,
        "properties": {"arn": arn, "aws_kind": kind, "account": account, **extra},
    }


TWO_ACCOUNTS = {
    "format": "blastshield-graph/v1",
    "name": "two-accounts",
    "nodes": [
        _aws_node("aws.a.user.alice", "Identity", "user", A, f"arn:aws:iam::{A}:user/alice"),
        _aws_node("aws.a.key.alice.1", "Session", "access_key", A, f"arn:aws:iam::{A}:user/alice"),
        _aws_node("aws.a.api.alice", "Workload", "user_api", A, f"arn:aws:iam::{A}:user/alice"),
        _aws_node("aws.a.perm.alice", "IAMRole", "user_permissions", A, f"arn:aws:iam::{A}:user/alice"),
        _aws_node("aws.b.role.reader", "IAMRole", "role", B, f"arn:aws:iam::{B}:role/reader"),
        _aws_node("aws.b.bucket.payroll", "DataAsset", "bucket", B, "arn:aws:s3:::payroll", sensitivity="critical"),
    ],
    "edges": [
        {
            "source": "aws.a.user.alice",
            "type": "HAS_SESSION",
            "target": "aws.a.key.alice.1",
            "properties": {"route_id": "aws.a.alice.key1"},
        },
        {
            "source": "aws.a.key.alice.1",
            "type": "CAN_ACCESS",
            "target": "aws.a.api.alice",
            "properties": {"route_id": "aws.a.alice.key1.api"},
        },
        {"source": "aws.a.api.alice", "type": "RUNS_AS", "target": "aws.a.perm.alice"},
        {"source": "aws.a.perm.alice", "type": "CAN_ASSUME", "target": "aws.b.role.reader"},
        {"source": "aws.b.role.reader", "type": "CAN_READ", "target": "aws.b.bucket.payroll"},
    ],
    "alerts": [
        {"id": "AWS-ALERT-1", "title": "alice key used", "entity_id": "aws.a.user.alice", "kind": "aws_guardduty"}
    ],
}


def test_path_graph_shows_arn_kind_and_account_boundaries(app):
    """AWS nodes hover with ARN and kind, carry their account as label and border colour; cross-account edges are marked."""
    from blastshield_core.graph.ingest import import_document, parse_document
    from pages._services import services

    app.run()
    import_document(services().store, parse_document(TWO_ACCOUNTS))
    app.switch_page("pages/graph.py").run()
    app.selectbox(key="graph_alert").set_value("AWS-ALERT-1").run()
    assert not app.exception, app.exception
    graph = drawn(app)[0]
    nodes = {n["id"]: n for n in graph["nodes"]}
    alice = nodes["aws.a.user.alice"]
    assert alice["title"].startswith(
        f"Identity: aws.a.user.alice\narn: arn:aws:iam::{A}:user/alice\naws_kind: user\naccount: {A}"
    )
    assert (alice["arn"], alice["aws_kind"], alice["account"]) == (f"arn:aws:iam::{A}:user/alice", "user", A)
    assert alice["label"].endswith(f"@{A}")
    borders = {n["account"]: n["color"]["border"] for n in nodes.values()}
    assert set(borders) == {A, B} and borders[A] != borders[B]
    assert all(n["color"]["border"] == borders[n["account"]] for n in nodes.values())
    crossing = {(e["from"], e["to"]) for e in graph["edges"] if e["cross_account"]}
    assert crossing == {("aws.a.perm.alice", "aws.b.role.reader")}
    assert any("cross-account" in e["label"] for e in graph["edges"] if e["cross_account"])
    assert any("Imported from AWS" in c.value for c in app.caption)


def test_scenario_nodes_are_drawn_without_account_marks(app):
    """Nodes without an account (the scenarios) keep their plain colour and no account label."""
    open_page(app, "pages/graph.py")
    app.selectbox(key="graph_alert").set_value("BH-1042").run()
    graph = drawn(app)[0]
    assert all("account" not in n and isinstance(n["color"], str) for n in graph["nodes"])
    assert not any(e["cross_account"] for e in graph["edges"])
    assert not any("Imported from AWS" in c.value for c in app.caption)


def _bundle(**extra) -> dict[str, bytes]:
    """A small generated AWS account as file name -> bytes (what an analyst would upload)."""
    import json

    from blastshield_core.sources.aws.synthetic.generate import AwsGenerateOptions, generate_aws

    options = AwsGenerateOptions(users=30, roles=20, policies=20, buckets=8, findings=3, seed=5, **extra)
    return {name: json.dumps(data).encode() for name, data in generate_aws(options).items()}


def test_aws_bundle_of_files_imports_with_its_report(app):
    """Several export files import as one account; the report shows counts and the findings become alerts."""
    open_page(app, "pages/aws.py")
    files = _bundle()
    app.file_uploader(key="aws_upload").set_value([(n, b, "application/json") for n, b in files.items()])
    app.run()
    app.button(key="aws_import").click().run()
    assert not app.exception, app.exception
    assert any("Imported AWS account(s) 111122223333" in s.value for s in app.success)
    metrics = {m.label: m.value for m in app.metric}
    assert int(metrics["Nodes"]) > 0 and int(metrics["Relationships"]) > 0 and metrics["Alerts"] == "3"
    counts = table(app, "kind", "name", "count")
    assert {"Identity", "IAMRole", "CAN_ASSUME"} <= set(counts["name"])
    app.switch_page("pages/alerts.py").run()
    queue = set(table(app, "alert", "entity")["alert"])
    assert len(queue) == 4 + 3  # the scenarios and the three GuardDuty findings


def test_aws_bundle_zip_lists_skipped_files(app):
    """A zip of a collection folder imports; a JSON file in it that is no AWS export is listed as skipped."""
    import io
    import zipfile

    open_page(app, "pages/aws.py")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name, raw in _bundle(messy=True).items():
            archive.writestr(f"collection/{name}", raw)
        archive.writestr("collection/notes.json", b'{"hello": "world"}')
    app.file_uploader(key="aws_upload").set_value(("collection.zip", buf.getvalue(), "application/zip"))
    app.run()
    app.button(key="aws_import").click().run()
    assert not app.exception, app.exception
    skipped = table(app, "file", "reason")
    assert any(f.endswith("notes.json") for f in skipped["file"])
    warnings = table(app, "file", "item", "message")
    assert len(warnings) > 0  # the messy account's missing policy and unknown user are warnings, not a crash


def test_aws_bundle_without_authorization_details_is_rejected(app):
    """Without a get-account-authorization-details export nothing is written and the reason is shown."""
    open_page(app, "pages/alerts.py")
    before = set(table(app, "alert", "entity")["alert"])
    app.switch_page("pages/aws.py").run()
    files = {n: b for n, b in _bundle().items() if "authorization" not in n}
    app.file_uploader(key="aws_upload").set_value([(n, b, "application/json") for n, b in files.items()])
    app.run()
    app.button(key="aws_import").click().run()
    assert any("Rejected, nothing written" in e.value for e in app.error)
    app.switch_page("pages/alerts.py").run()
    assert set(table(app, "alert", "entity")["alert"]) == before
