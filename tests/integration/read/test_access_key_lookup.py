"""Where the analyst starts: an access key id, as GuardDuty findings and CloudTrail events name it.

An id beginning `AKIA` is a long-term key of an IAM user, `ASIA` a temporary key issued by AWS STS
(IAM User Guide, "IAM identifiers", section "Understanding unique ID prefixes"). A collected key
(`iam list-access-keys`, "ListAccessKeys" in the IAM API Reference) resolves to its user's key
route; a key only an imported finding names resolves to the finding's entity, said as such; an
unknown key id is unknown, with no unrelated "closest" entities. Against moto on loopback, through
the command line, and the import's real FalkorDB."""

from __future__ import annotations

import json

from blastshield_core.interfaces.cli import main
from tests.helpers import aws_live
from tests.helpers.aws_bundle import finding_on_user
from tests.helpers.aws_live import ACCOUNT, user_with_key_to_critical_bucket

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures

TEMPORARY = "ASIAQWERTYUIOPASDFGH"


def _cli(capsys, *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip().startswith("{") else {}


def _collected(moto_account, tmp_path, capsys) -> tuple[str, str]:
    key = user_with_key_to_critical_bucket(moto_account)
    moto_account.client("iam").create_user(UserName="bob")
    data = str(tmp_path / "db")
    code, _ = _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)
    assert code == 0
    return key, data


def test_a_collected_key_id_finds_its_users_key_route_and_opens_an_alert_on_it(moto_account, tmp_path, capsys):
    key, data = _collected(moto_account, tmp_path, capsys)
    assert key.startswith("AKIA")
    code, found = _cli(capsys, "entities", key, "--data-dir", data)
    assert code == 0
    assert [m["id"] for m in found["matches"]] == [f"{ACCOUNT}:user:alice:access-key-1"]
    assert found["matches"][0]["match"] == "access key"
    code, opened = _cli(capsys, "alert", "open", key, "--title", "key used from a new network", "--data-dir", data)
    assert code == 0, opened
    assert opened["entity_id"] == f"{ACCOUNT}:user:alice:access-key-1"
    code, investigated = _cli(capsys, "investigate", opened["alert_id"], "--data-dir", data)
    assert code == 0 and investigated["path_count"] >= 1  # the key reaches the critical bucket


def test_an_unknown_key_id_is_unknown_without_unrelated_closest_entities(moto_account, tmp_path, capsys):
    _, data = _collected(moto_account, tmp_path, capsys)
    code, found = _cli(capsys, "entities", "AKIAZZZZZZZZZZZZZZZZ", "--data-dir", data)
    assert code == 0 and found["matches"] == []
    code, refused = _cli(capsys, "alert", "open", "AKIAZZZZZZZZZZZZZZZZ", "--title", "t", "--data-dir", data)
    assert code == 3 and refused["status"] == "unknown_source"
    assert refused["matches"] == [] and "list-access-keys" in refused["message"]
    code, alerts = _cli(capsys, "alerts", "--data-dir", data)
    assert code == 0 and alerts["alerts"] == []  # nothing was written


def test_a_temporary_key_named_by_a_finding_resolves_to_the_finding_entity(moto_account, tmp_path, capsys):
    key_user = user_with_key_to_critical_bucket(moto_account)
    assert key_user
    collected = tmp_path / "c"
    data = str(tmp_path / "db")
    assert _cli(capsys, "collect-aws", "--out", str(collected), "--data-dir", data)[0] == 0
    findings = finding_on_user(ACCOUNT, "alice")
    findings["Findings"][0]["Resource"]["AccessKeyDetails"]["AccessKeyId"] = TEMPORARY
    findings["Findings"] = findings["Findings"][:1]
    (collected / ACCOUNT / "guardduty-get-findings.json").write_text(json.dumps(findings), encoding="utf-8")
    code, imported = _cli(capsys, "import-aws", str(collected), "--data-dir", data)
    assert code == 0, imported
    code, opened = _cli(capsys, "alert", "open", TEMPORARY, "--title", "temporary key misuse", "--data-dir", data)
    assert code == 0, opened
    assert opened["entity_id"] == f"{ACCOUNT}:user:alice"
    code, found = _cli(capsys, "entities", TEMPORARY, "--data-dir", data)
    assert code == 0 and found["matches"] == []  # no collection lists a temporary key
