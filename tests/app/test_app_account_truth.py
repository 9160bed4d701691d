"""What the analyst sees about the account after a run planned in the graph only (AppTest, moto on loopback).

Without a respond profile, `contain` blocks alice's key route in the graph only: the key stays Active
on the account. AWS documentation cited: IAM User Guide, "Manage access keys for IAM users"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html): only
`UpdateAccessKey` with `Status=Inactive` disables a key; a key left Active still signs requests.
moto does not enforce key status: these tests assert what the account reports (the key's status) and
what BlastShield shows about it (the Path graph, the queue, `alerts`, the incident report).
"""

from __future__ import annotations

import json

from blastshield_core.interfaces.cli import main
from tests.app.test_app import drawn, open_page, plain, table
from tests.app.test_app_access import texts
from tests.app.test_app_aws import ALICE, ROUTE, _key_status, app
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT, user_with_key_to_critical_bucket

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures
__all__ = ["app"]  # the fixture, shared with tests/app/test_app_aws.py

BOB = f"{ACCOUNT}:user:bob"


def _cli(capsys, *argv: str) -> dict:
    code = main([*argv, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code in (0, 6), out
    return out


def _graph_only_run(moto_account, data: str, capsys, monkeypatch) -> tuple[str, str, dict, dict]:
    """alice (a key reading a critical bucket) and bob (no permission, an MFA signal: 10 points, no path),
    an alert on each, and a rules run on alice's alert without a respond profile (graph only)."""
    monkeypatch.delenv("BLASTSHIELD_AWS_RESPOND_PROFILE", raising=False)
    key = user_with_key_to_critical_bucket(moto_account)
    moto_account.client("iam").create_user(UserName="bob")
    _cli(capsys, "collect-aws", "--out", str(data) + "-c", "--import", "--data-dir", data)
    alice = _cli(capsys, "alert", "open", ALICE, "--title", "alice's key", "--data-dir", data)["alert_id"]
    bob = _cli(capsys, "alert", "open", BOB, "--title", "bob", "--signal", "mfa_disabled=true", "--data-dir", data)
    before = {a["id"]: a for a in _cli(capsys, "alerts", "--data-dir", data)["alerts"]}
    run = _cli(capsys, "contain", alice, "--decider", "rules", "--confirm", "--data-dir", data)
    assert run["state"] == "graph_only", run
    assert _key_status(moto_account, key) == "Active"  # nothing was called on the account
    return alice, bob["alert_id"], before, run


def test_a_graph_only_run_keeps_the_alert_open_in_the_path_graph_the_queue_and_alerts(
    app, moto_account, tmp_path, capsys, monkeypatch
):
    data = str(tmp_path / "data")
    alice, bob, before, _run = _graph_only_run(moto_account, data, capsys, monkeypatch)
    exposed, score = before[alice]["path_count"], before[alice]["risk_score"]
    assert exposed >= 1 and score > before[bob]["risk_score"] > 0 and before[bob]["path_count"] == 0

    # `alerts`: the graph has no path left for alice; the account still has every one of them, scored by
    # the same rules as before the run (the paths are the same)
    after = {a["id"]: a for a in _cli(capsys, "alerts", "--data-dir", data)["alerts"]}
    assert (after[alice]["path_count"], after[alice]["risk_score"]) == (0, 0)
    assert (after[alice]["open_on_account"], after[alice]["account_risk_score"]) == (exposed, score)
    assert after[alice]["account_severity"] == before[alice]["severity"]
    assert after[bob]["open_on_account"] is None  # nothing of bob's is blocked: no account figure
    assert main(["alerts", "--data-dir", data]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if alice in x)
    assert f"OPEN ON THE ACCOUNT: {exposed} path(s), score {score}" in line

    # the queue ranks alice's alert by its paths open on the account, above bob's (10 points, no path)
    open_page(app, "pages/alerts.py")
    queue = table(app, "alert", "score")
    assert list(queue["alert"]) == [alice, bob], queue
    row = queue.set_index("alert").loc[alice]
    assert row["qualifying paths"] == f"{exposed} open on the account (blocked in the graph only)"
    assert row["score"] == score
    app.selectbox(key="alerts_queue_sort").set_value("paths").run()
    assert list(table(app, "alert", "score")["alert"]) == [alice, bob]

    # the Path graph: the key route is drawn and labelled "blocked in the graph only", not as a plain
    # block, and its paths are counted open on the account
    app.selectbox(key="alerts_select").set_value(alice).run()
    app.switch_page("pages/graph.py").run()
    assert not app.exception, app.exception
    note = [plain(w.value) for w in app.warning if "Blocked in the graph only" in plain(w.value)]
    assert note and ROUTE in note[0], texts(app)
    assert f"**{exposed}** qualifying path(s) are open on the account (depth 6), 0 in the graph" in note[0]
    evidence = drawn(app)[0]
    marked = [e for e in evidence["edges"] if e["state"] == "graph-only"]
    assert [(e["from"], e["rel_type"], e["to"]) for e in marked] == [(ALICE, "HAS_SESSION", ROUTE)]
    assert "(blocked in the graph only)" in marked[0]["label"] and "(blocked)" not in marked[0]["label"]
    assert not [e for e in evidence["edges"] if e["state"] == "blocked"]  # no plain block is drawn
    assert any("blocked in the graph only" in plain(c.value) for c in app.caption)  # the legend


def test_the_incident_report_counts_the_paths_open_on_the_account(moto_account, tmp_path, capsys, monkeypatch):
    data = str(tmp_path / "data")
    alice, _bob, before, run = _graph_only_run(moto_account, data, capsys, monkeypatch)
    exposed = before[alice]["path_count"]
    for target in (run["run_id"], alice):
        out = tmp_path / f"{target}.json"
        assert main(["report", target, "--format", "json", "--out", str(out), "--data-dir", data]) == 0
        account = json.loads(out.read_text())["account"]
        assert account == {"graph_only_routes": [ROUTE], "qualifying_paths": 0, "open_on_account": exposed}
        md = tmp_path / f"{target}.md"
        assert main(["report", target, "--out", str(md), "--data-dir", data]) == 0
        text = md.read_text()
        assert f"**{exposed} qualifying path(s) open on the account** (0 in the graph)" in text
        assert f"`{ROUTE}` blocked in the graph only: the credentials still work on the account" in text
    capsys.readouterr()
