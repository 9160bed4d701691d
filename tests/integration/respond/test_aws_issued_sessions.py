"""Every account plan names the already-issued credentials its action stops and those it does not.

AWS documentation cited: IAM User Guide, "Disabling permissions for temporary security credentials"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_disable-perms.html):
temporary credentials remain valid until they expire; deactivating the access key that obtained them
does not end them. STS API Reference, "GetSessionToken" (sessions of an IAM user last up to 36 hours)
and "AssumeRole" (up to the role's maximum session duration, at most 12 hours). moto does not
enforce key status; these tests assert what the plans and the run record say.
"""

from __future__ import annotations

import json

from blastshield_core.interfaces.cli import main
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT, user_with_key_to_critical_bucket

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures


def _cli(capsys, *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip().startswith("{") else {}


def test_a_key_plan_and_its_run_name_the_sessions_left_standing(moto_account, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    key = user_with_key_to_critical_bucket(moto_account)
    data = str(tmp_path / "db")
    assert _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)[0] == 0
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:alice", "--title", "t", "--data-dir", data)
    alert_id = opened["alert_id"]
    code, plan = _cli(capsys, "contain", alert_id, "--decider", "rules", "--plan", "--data-dir", data)
    [entry] = [p["aws"] for p in plan["plans"] if p["aws"]["kind"] == "deactivate_access_key"]
    assert entry["stops"] == [f"new requests signed with access key {key}, and new sessions requested with it"]
    assert entry["leaves_standing"] == [
        f"sessions alice already obtained with key {key} through sts:GetSessionToken (up to 36 h)",
        f"role sessions already assumed with key {key} (sts:AssumeRole, up to the role's maximum session"
        " duration, at most 12 h)",
    ]
    assert main(["contain", alert_id, "--decider", "rules", "--plan", "--data-dir", data]) == 0
    text = capsys.readouterr().out
    assert f"does not stop: sessions alice already obtained with key {key} through sts:GetSessionToken" in text
    # a cap of one action: the key alone (the revocations of what it issued would come next)
    code, run = _cli(capsys, "contain", alert_id, "--decider", "rules", "--max-actions", "1", "--confirm",
                     "--data-dir", data)  # fmt: skip
    assert (code, run["state"]) == (0, "completed"), run
    assert [a["operation"] for a in run["actions"]] == ["block_route"]
    assert (
        "already-issued credentials left standing until they expire: sessions alice already obtained" in (run["reason"])
    )
    # the incident report's verdict says it too
    report = tmp_path / "report.md"
    assert main(["report", run["run_id"], "--out", str(report), "--data-dir", data]) == 0
    capsys.readouterr()
    assert "already-issued credentials left standing until they expire" in report.read_text()
    code, brief = _cli(capsys, "brief", alert_id, "--run", run["run_id"], "--data-dir", data)
    assert code == 0 and "already-issued credentials left standing until they expire" in brief["markdown"]
