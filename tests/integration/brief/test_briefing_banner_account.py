"""The banner above a briefing, and the briefing, say "contained" only when the account holds the blocks.

AWS documentation cited: IAM User Guide, "Manage access keys for IAM users"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html): a key is disabled
by setting its status to Inactive with `UpdateAccessKey`. Without a respond profile BlastShield makes no
call: the key's route is blocked in the graph only, the key stays Active, and the path it carries is
open on the account although the graph has none. moto does not enforce key status; these tests assert
what the account reports (the key's status) and what the banner says, not that requests with the key fail.
"""

from __future__ import annotations

import json

from pydantic import SecretStr

from blastshield_core.base.settings import load_settings
from blastshield_core.interfaces.cli import main
from blastshield_core.interfaces.service import open_services
from blastshield_core.results import Status
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT, user_with_key_to_critical_bucket
from tests.helpers.gemini_fake import json_text

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures

ROUTE = f"{ACCOUNT}:user:alice:access-key-1"


def _cli(capsys, *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip().startswith("{") else {}


def _contained(moto_account, tmp_path, capsys, monkeypatch, *, respond: bool) -> tuple[str, str, str]:
    """alice's key to a critical bucket, collected and imported; an alert on alice, contained by the rules."""
    if respond:
        monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    key = user_with_key_to_critical_bucket(moto_account)
    data = str(tmp_path / "db")
    assert _cli(capsys, "collect-aws", "--out", str(tmp_path / "c"), "--import", "--data-dir", data)[0] == 0
    code, opened = _cli(capsys, "alert", "open", f"{ACCOUNT}:user:alice", "--title", "alice's key", "--data-dir", data)
    assert code == 0, opened
    code, run = _cli(capsys, "contain", opened["alert_id"], "--decider", "rules", "--confirm", "--data-dir", data)
    assert run["state"] == ("completed" if respond else "graph_only"), run
    return key, data, opened["alert_id"]


def _key_status(moto_account, key: str) -> str:
    keys = moto_account.client("iam").list_access_keys(UserName="alice")["AccessKeyMetadata"]
    return next(k["Status"] for k in keys if k["AccessKeyId"] == key)


CLAIMS = {
    "entity_ids": [f"{ACCOUNT}:user:alice"],
    "risk_score": 0,
    "severity": "low",
    "path_count": 0,
    "asset_count": 0,
    "prose": "No qualifying path is left from alice.",
}


def test_a_graph_only_containment_is_not_called_contained(moto_account, tmp_path, capsys, monkeypatch, gemini):
    """The graph has no path, the key is Active: the banner says exposed, with the paths open on the account; the
    fallback briefing says not contained on the account; a model briefing claiming "contained" is not shown."""
    key, data, alert_id = _contained(moto_account, tmp_path, capsys, monkeypatch, respond=False)
    assert _key_status(moto_account, key) == "Active"
    services = open_services(load_settings(data_dir=data))
    try:
        assert services.tools.investigate_alert(alert_id).status is Status.NO_PATH  # the graph alone says contained
        banner = services.briefer.containment_banner(alert_id)
        fallback = services.briefer.brief(alert_id)  # no model key
    finally:
        services.close()
    assert (banner.status, banner.containment_state, banner.path_count) == (Status.NO_PATH, "exposed", 0)
    assert "qualifying path(s) are open on the AWS account" in banner.message
    assert f"{ROUTE} blocked in the graph only" in banner.message
    assert fallback.label == "fallback" and "**Contained.**" not in fallback.markdown
    assert "**Not contained on the AWS account.**" in fallback.markdown
    assert f"- `{ROUTE}`: blocked in the graph only; the credentials still work there" in fallback.markdown

    gemini.add(json_text({**CLAIMS, "containment_state": "contained"}))
    on_account = "alice's key still works on the AWS account: the block was made in the graph only."
    gemini.add(json_text({**CLAIMS, "containment_state": "exposed", "prose": on_account}))
    settings = load_settings(data_dir=data).model_copy(
        update={"gemini_api_key": SecretStr("test-key"), "gemini_base_url": gemini.url, "gemini_timeout_s": 10.0}
    )
    services = open_services(settings)
    try:
        told_contained = services.briefer.brief(alert_id)
        told_exposed = services.briefer.brief(alert_id)
    finally:
        services.close()
    assert told_contained.label == "fallback" and [f.kind.value for f in told_contained.flags] == ["false_containment"]
    assert "open on the AWS account" in told_contained.flags[0].evidence
    assert told_exposed.label == "model", told_exposed.flags
    # the model was given the account's side of it
    prompt = "".join(part.get("text", "") for c in gemini.requests[0]["contents"] for part in c["parts"])
    assert '"account": {' in prompt and '"state": "exposed"' in prompt and "blocked in the graph only" in prompt


def test_a_containment_applied_on_the_account_is_contained(moto_account, tmp_path, capsys, monkeypatch):
    """With a respond profile the key is Inactive on the account: the same banner says contained."""
    key, data, alert_id = _contained(moto_account, tmp_path, capsys, monkeypatch, respond=True)
    assert _key_status(moto_account, key) == "Inactive"
    services = open_services(load_settings(data_dir=data))
    try:
        banner = services.briefer.containment_banner(alert_id)
        fallback = services.briefer.brief(alert_id)
    finally:
        services.close()
    assert (banner.status, banner.containment_state) == (Status.NO_PATH, "contained"), banner
    assert "open on the AWS account" not in banner.message
    assert "**Contained.**" in fallback.markdown and "Not contained" not in fallback.markdown


def _check(capsys, tmp_path, data: str, alert_id: str, text: str) -> tuple[int, dict]:
    path = tmp_path / "briefing.md"
    path.write_text(text, encoding="utf-8")
    return _cli(capsys, "check-briefing", alert_id, str(path), "--data-dir", data)


def test_a_bare_containment_claim_after_a_graph_only_run_is_unverified(moto_account, tmp_path, capsys, monkeypatch):
    """After a graph-only run "the alert is contained" is true of the graph and false of the account, and says
    neither: it is reported unverified (marked in the dashboard), not accepted, and "not contained" is not flagged.
    Said of the graph it is judged as before; said of the account it is false."""
    _, data, alert_id = _contained(moto_account, tmp_path, capsys, monkeypatch, respond=False)
    for text in ("The alert is contained.", "The alert is not contained.", "No qualifying path remains."):
        code, out = _check(capsys, tmp_path, data, alert_id, text)
        assert (code, out["flags"]) == (0, []) and out["unverified"], (text, out)
    code, out = _check(capsys, tmp_path, data, alert_id, "The alert is contained in the graph only.")
    assert (code, out["flags"], out["unverified"]) == (0, [], []), out
    code, out = _check(capsys, tmp_path, data, alert_id, "The alert is contained on the AWS account.")
    assert code == 1 and [f["kind"] for f in out["flags"]] == ["false_containment"], out


def test_after_an_applied_run_a_bare_containment_claim_is_judged(moto_account, tmp_path, capsys, monkeypatch):
    """Applied on the account, the same bare claim is judged against the graph: true, and its negation false."""
    _, data, alert_id = _contained(moto_account, tmp_path, capsys, monkeypatch, respond=True)
    code, out = _check(capsys, tmp_path, data, alert_id, "The alert is contained.")
    assert (code, out["flags"], out["unverified"]) == (0, [], []), out
    code, out = _check(capsys, tmp_path, data, alert_id, "The alert is not contained.")
    assert code == 1 and [f["kind"] for f in out["flags"]] == ["false_exposure"], out
