"""Claims about the AWS account held against the run: the same sentence, two runs on a moto account.

AWS documentation cited: IAM User Guide, "Manage access keys for IAM users"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html): a key is
disabled by setting its status to Inactive with `UpdateAccessKey`. Without a respond profile
BlastShield makes no call: the block is in the graph only and the key stays Active on the account,
so a briefing that says the credentials were disabled in AWS is false for that run. moto does not
enforce key status; these tests assert what the account reports (the key's status) and what the
checker says, not that requests with the key fail.
"""

from __future__ import annotations

import json

from blastshield_core.interfaces.cli import main
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT, user_with_key_to_critical_bucket

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures

SENTENCE = "alice's credentials were disabled in AWS."
NOT_APPLIED = "The block on alice's access key was not applied in AWS: it was made in the graph only."
# Claims about the key on the account in other shapes: a table column, a negated subject or object, and "there"
# taking the account's scope from the clause before it. (truthful on a graph-only run, false on an applied one)
GRAPH_ONLY_TRUE = [
    "| change | applied on the account |\n|---|---|\n| access key deactivation | ❌ |",
    "Nothing was changed for alice on the AWS account.",
    "The key block never made it to AWS, so alice's key still works there.",
    # "the key" without "access", "it" after a clause about the key, a key held active, access said of the account
    "Her key was neither disabled nor removed; it still works.",
    "alice keeps an enabled access key.",
    "On the AWS account alice can still read the bucket with her key.",
    # a status cell on a thing only the account has (an access key, a deny-all policy)
    "| user | change | status |\n|---|---|---|\n| alice | access key | not deactivated |",
    # a column that names the key on the account, a status the account reports, a pronoun for the key
    "| principal | key status in AWS |\n|---|---|\n| alice | Active |",
    "| item | graph | AWS account |\n|---|---|---|\n| alice's access key | blocked | active |",
    "alice's key still reads back Active.",
    "The key was not deactivated, and IAM never accepted a call for it.",
]
# (false on a graph-only run, truthful on an applied one)
APPLIED_TRUE = [
    "| change | applied on the account |\n|---|---|\n| access key deactivation | ✅ |",
    "IAM: access key deactivated for alice",
    "✅ Contained on the AWS account",
    "alice's key was deactivated; it no longer works.",
    "alice no longer has an active access key.",
    "In AWS, alice can no longer read the bucket with that key.",
    "| who | what | result |\n|---|---|---|\n| alice | access key | ✅ deactivated |",
    "| principal | key status in AWS |\n|---|---|\n| alice | Inactive |",
    "| item | graph | AWS account |\n|---|---|---|\n| alice's access key | blocked | inactive |",
    "alice's key reads back Inactive.",
    "BlastShield sent UpdateAccessKey for alice's key, and AWS accepted it.",
]


def _cli(capsys, *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip().startswith("{") else {}


def _run(moto_account, tmp_path, capsys, monkeypatch, *, respond: bool) -> tuple[str, str, str, str]:
    """alice's key to a critical bucket, collected and imported; an alert on alice, contained by the rules."""
    if respond:
        monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    key = user_with_key_to_critical_bucket(moto_account)
    data = str(tmp_path / "db")
    code, _ = _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)
    assert code == 0
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:alice", "--title", "alice's key", "--data-dir", data)
    assert code == 0, opened
    alert_id = opened.get("alert", {}).get("id") or opened.get("alert_id") or opened["id"]
    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--confirm", "--data-dir", data)
    # no path left in the graph either way; only the applied run is containment of the account
    assert run["state"] == ("completed" if respond else "graph_only"), run
    return key, data, alert_id, run["run_id"]


def _check(capsys, tmp_path, data: str, alert_id: str, text: str, *run: str) -> tuple[int, dict]:
    path = tmp_path / "briefing.md"
    path.write_text(text, encoding="utf-8")
    return _cli(capsys, "check-briefing", alert_id, str(path), *run, "--data-dir", data)


def _key_status(moto_account, key: str) -> str:
    keys = moto_account.client("iam").list_access_keys(UserName="alice")["AccessKeyMetadata"]
    return next(k["Status"] for k in keys if k["AccessKeyId"] == key)


def test_disabled_in_aws_is_false_on_a_graph_only_run(moto_account, tmp_path, capsys, monkeypatch):
    """No respond profile: the run completes in the graph, the key stays Active, the claim is flagged."""
    key, data, alert_id, run_id = _run(moto_account, tmp_path, capsys, monkeypatch, respond=False)
    assert _key_status(moto_account, key) == "Active"
    code, out = _check(capsys, tmp_path, data, alert_id, SENTENCE, "--run", run_id)
    assert code == 1 and out["run_id"] == run_id
    # "the run completed" is false too: the run ended graph_only, not completed
    code, done = _check(capsys, tmp_path, data, alert_id, "The containment run completed.", "--run", run_id)
    assert code == 1 and [f["kind"] for f in done["flags"]] == ["false_containment"], done
    [flag] = out["flags"]
    assert flag["kind"] == "false_containment" and "not applied in AWS" in flag["evidence"]
    # the truthful sentence about the same run is clean, and the latest run is the default
    code, out = _check(capsys, tmp_path, data, alert_id, NOT_APPLIED)
    assert (code, out["flags"], out["run_id"]) == (0, [], run_id)
    for text in GRAPH_ONLY_TRUE:
        assert _check(capsys, tmp_path, data, alert_id, text)[1]["flags"] == [], text
    for text in APPLIED_TRUE:
        code, out = _check(capsys, tmp_path, data, alert_id, text)
        assert code == 1 and {f["kind"] for f in out["flags"]} == {"false_containment"}, (text, out)


def test_disabled_in_aws_holds_on_an_applied_verified_run(moto_account, tmp_path, capsys, monkeypatch):
    """With a respond profile the key is Inactive on the account and verified: the same claim is accepted."""
    key, data, alert_id, run_id = _run(moto_account, tmp_path, capsys, monkeypatch, respond=True)
    assert _key_status(moto_account, key) == "Inactive"
    code, out = _check(capsys, tmp_path, data, alert_id, SENTENCE, "--run", run_id)
    assert (code, out["flags"], out["unverified"]) == (0, [], [])
    code, out = _check(capsys, tmp_path, data, alert_id, NOT_APPLIED, "--run", run_id)
    assert code == 1 and {f["kind"] for f in out["flags"]} == {"false_exposure"}  # each of its two clauses
    for text in APPLIED_TRUE:
        assert _check(capsys, tmp_path, data, alert_id, text)[1]["flags"] == [], text
    for text in GRAPH_ONLY_TRUE:
        code, out = _check(capsys, tmp_path, data, alert_id, text)
        assert code == 1 and "false_exposure" in [f["kind"] for f in out["flags"]], (text, out)
