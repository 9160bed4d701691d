"""A run planned in the graph only is its own state, and the account's exposure stays visible.

Without a respond profile BlastShield makes no call on the account: the block on alice's key is in
the graph only, and the key stays Active. AWS documentation cited: IAM User Guide, "Manage access
keys for IAM users" (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html):
only `UpdateAccessKey` with `Status=Inactive` disables a key; a key left Active still signs requests.
moto does not enforce key status; these tests assert what the account reports (the key's status)
and what BlastShield says about it, not that requests with the key fail or succeed.
"""

from __future__ import annotations

import json

from blastshield_core.interfaces.cli import main
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT, user_with_key_to_critical_bucket

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures

ROUTE = f"{ACCOUNT}:user:alice:access-key-1"


def _cli(capsys, *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip().startswith("{") else {}


def _key_status(account, key: str) -> str:
    keys = account.client("iam").list_access_keys(UserName="alice")["AccessKeyMetadata"]
    return next(k["Status"] for k in keys if k["AccessKeyId"] == key)


def _routes(capsys, alert_id: str, data: str) -> tuple[dict, str]:
    code, routes = _cli(capsys, "routes", alert_id, "--data-dir", data)
    assert code == 0, routes
    assert main(["routes", alert_id, "--data-dir", data]) == 0
    return routes, capsys.readouterr().out


def test_a_graph_only_run_keeps_the_account_exposure_visible_through_a_recollection(
    moto_account, tmp_path, capsys, monkeypatch
):
    monkeypatch.delenv("BLASTSHIELD_AWS_RESPOND_PROFILE", raising=False)
    key = user_with_key_to_critical_bucket(moto_account)
    data, out = str(tmp_path / "db"), str(tmp_path / "c")
    assert _cli(capsys, "collect-aws", "--out", out, "--import", "--data-dir", data)[0] == 0
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:alice", "--title", "alice's key", "--data-dir", data)
    assert code == 0, opened
    alert_id = opened["alert_id"]
    routes, _ = _routes(capsys, alert_id, data)
    assert routes["qualifying_paths"] == routes["open_on_account"] >= 1  # nothing blocked yet: the same figure
    exposed = routes["open_on_account"]

    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    assert (code, run["state"]) == (6, "graph_only"), run
    assert "planned in the graph; the credentials still work on the account" in run["reason"]
    assert _key_status(moto_account, key) == "Active"

    def account_view() -> None:
        routes, text = _routes(capsys, alert_id, data)
        [route] = [r for r in routes["routes"] if r["route_id"] == ROUTE]
        assert route["status"] == "blocked" and route["graph_only"] is True
        assert route["paths_open_on_account"] == exposed
        # the graph has no path left; the account still has every one of them
        assert (routes["qualifying_paths"], routes["open_on_account"]) == (0, exposed)
        assert f"{exposed} path(s) open on the account" in routes["message"]
        assert f"{ROUTE:<28} blocked in the graph only" in text and "the credentials still work on the account" in text

    account_view()
    # re-collection keeps the block (the key is still Active) and its graph-only mark with it
    code, again = _cli(capsys, "collect-aws", "--out", out, "--import", "--data-dir", data)
    assert code == 0, again
    assert _key_status(moto_account, key) == "Active"
    account_view()
    code, kept = _cli(capsys, "run", run["run_id"], "--data-dir", data)
    assert kept["state"] == "graph_only"
    # the incident report says it too: the block is in the graph only, and the run is not containment
    report = tmp_path / "report.md"
    assert main(["report", run["run_id"], "--out", str(report), "--data-dir", data]) == 0
    capsys.readouterr()
    text = report.read_text()
    assert f"**Not applied in AWS:** `{ROUTE}` blocked in the graph only" in text
    assert "This run is not containment of the account." in text
