"""The banner above a briefing, the briefing, and the checker's verdict on one say "contained" only when the account
holds the blocks.

AWS documentation cited: IAM User Guide, "Manage access keys for IAM users"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html): a key is disabled
by setting its status to Inactive with `UpdateAccessKey`; IAM API Reference, "UpdateAccessKey"
(https://docs.aws.amazon.com/IAM/latest/APIReference/API_UpdateAccessKey.html): "Active means that the key
can be used for programmatic calls to AWS, while Inactive means that the key cannot be used", so an
Inactive key cannot sign requests and an Active one still can. Without a respond profile BlastShield
makes no call: the key's route is blocked in the graph only, the key stays Active, and the path it
carries is open on the account although the graph has none. moto does not enforce key status; these
tests assert what the account reports (the key's status) and what the banner and the checker say, not
that requests with the key fail.
"""

from __future__ import annotations

import json

from pydantic import SecretStr

from blastshield_core.base.settings import load_settings
from blastshield_core.brief.briefing import parse_briefing
from blastshield_core.brief.evidence import gather_evidence
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
    # the structured claim and the bare prose "No qualifying path is left" are both false of the account
    assert told_contained.label == "fallback", told_contained
    assert [(f.kind.value, f.offending_text) for f in told_contained.flags][0] == (
        "false_containment",
        "containment_state: contained",
    )
    assert [f.kind.value for f in told_contained.flags] == ["false_containment"] * 2, told_contained.flags
    assert all("open on the AWS account" in f.evidence for f in told_contained.flags)
    assert told_exposed.label == "model", told_exposed.flags
    assert told_exposed.evidence.account is not None and told_exposed.evidence.account.state == "exposed"
    # the model was given the account's side of it, as part of the evidence
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


CONTAINED = json.dumps({"containment_state": "contained"})
EXPOSED = json.dumps({"containment_state": "exposed"})


def _kinds(out: dict) -> list[str]:
    return [f["kind"] for f in out["flags"]]


def test_after_a_graph_only_run_a_bare_containment_claim_is_false(moto_account, tmp_path, capsys, monkeypatch):
    """After a graph-only run the key is Active: a bare "the alert is contained" (in free text or as the structured
    claim) is false of the account and flagged with the account's side as evidence; a bare "not contained" is true.
    Said of the graph it is judged against the graph; said of the account, against the account."""
    key, data, alert_id = _contained(moto_account, tmp_path, capsys, monkeypatch, respond=False)
    assert _key_status(moto_account, key) == "Active"  # the key can still sign requests (UpdateAccessKey, above)
    for text in ("The alert is contained.", "No qualifying path remains.", "Nothing is left open.", CONTAINED):
        code, out = _check(capsys, tmp_path, data, alert_id, text)
        assert code == 1 and set(_kinds(out)) == {"false_containment"}, (text, out)
        assert "open on the AWS account" in out["flags"][0]["evidence"]
        assert f"{ROUTE} blocked in the graph only" in out["flags"][0]["evidence"]
    for text in (
        "The alert is not contained.",
        "The alert remains exposed.",
        EXPOSED,
        "The alert is contained in the graph only.",
        "There is no qualifying path in the graph.",
        "The alert is still exposed on the AWS account.",
    ):
        code, out = _check(capsys, tmp_path, data, alert_id, text)
        assert (code, out["flags"], out["unverified"]) == (0, [], []), (text, out)
    code, out = _check(capsys, tmp_path, data, alert_id, "The alert is contained on the AWS account.")
    assert (code, _kinds(out)) == (1, ["false_containment"]), out
    # a claim said of the graph is the graph's: the graph has no qualifying path left
    code, out = _check(capsys, tmp_path, data, alert_id, "A qualifying path is still open in the graph.")
    assert (code, _kinds(out)) == (1, ["false_exposure"]), out


def test_after_an_applied_run_a_bare_containment_claim_is_true(moto_account, tmp_path, capsys, monkeypatch):
    """Applied on the account (the key Inactive: it can no longer sign requests), the same bare claim and the same
    structured claim are true, and their negations false."""
    key, data, alert_id = _contained(moto_account, tmp_path, capsys, monkeypatch, respond=True)
    assert _key_status(moto_account, key) == "Inactive"
    for text in ("The alert is contained.", "No qualifying path remains.", CONTAINED):
        code, out = _check(capsys, tmp_path, data, alert_id, text)
        assert (code, out["flags"], out["unverified"]) == (0, [], []), (text, out)
    for text in ("The alert is not contained.", EXPOSED):
        code, out = _check(capsys, tmp_path, data, alert_id, text)
        assert (code, _kinds(out)) == (1, ["false_exposure"]), (text, out)


def test_an_account_side_that_cannot_be_read_leaves_a_bare_claim_unverified(
    moto_account, tmp_path, capsys, monkeypatch
):
    """When whether the account holds the blocks cannot be read (the audit the blocks' runs are read from answers
    with an error), the account's side is unknown: the banner says so, a bare containment or exposure claim is
    neither accepted nor flagged, a claim said of the graph is judged against the graph, and the structured
    "unknown" is what the evidence says."""
    _, data, alert_id = _contained(moto_account, tmp_path, capsys, monkeypatch, respond=False)
    services = open_services(load_settings(data_dir=data))
    try:
        briefer = services.briefer
        run = briefer.run_record(str(briefer.latest_run_id(alert_id)))
        audit = services.settings.audit_graph
        services.store.command("DEL", audit)  # the audit graph's key now holds no graph: every read of it fails
        services.store.command("SET", audit, "not a graph")
        banner = briefer.containment_banner(alert_id)
        assert (banner.status, banner.containment_state) == (Status.NO_PATH, "unknown"), banner
        ev = gather_evidence(services.tools, alert_id, run, services.account_open_blocks)
        assert ev.containment_state == "contained" and ev.account is not None, ev.account
        assert ev.account.state == "unknown" and "unknown" in ev.account.message, ev.account
        for text in ("The alert is contained.", "The alert is not contained.", "No qualifying path remains."):
            outcome = briefer.check_outcome(alert_id, text, ev)
            assert not outcome.flags and outcome.unverified, (text, outcome)
        outcome = briefer.check_outcome(alert_id, "There is no qualifying path in the graph.", ev)
        assert (outcome.flags, outcome.unverified) == ([], []), outcome
        claims = briefer.check_outcome(alert_id, parse_briefing(CONTAINED), ev)
        assert (claims.flags, claims.unverified) == ([], ["containment_state: contained"]), claims
        claims = briefer.check_outcome(alert_id, parse_briefing(json.dumps({"containment_state": "unknown"})), ev)
        assert (claims.flags, claims.unverified) == ([], []), claims
    finally:
        services.close()


def test_after_the_containment_is_undone_on_the_account_a_containment_claim_is_false(
    moto_account, tmp_path, capsys, monkeypatch
):
    """Applied on the account, then undone there behind BlastShield's back (the key set Active again with
    UpdateAccessKey, IAM User Guide above: anyone allowed to call it can): once `verify-account` has read the
    account, the banner, the checker and the structured claim say what the account holds, not what the run did."""
    key, data, alert_id = _contained(moto_account, tmp_path, capsys, monkeypatch, respond=True)
    for text in ("The alert is contained.", CONTAINED):
        code, out = _check(capsys, tmp_path, data, alert_id, text)
        assert (code, out["flags"]) == (0, []), (text, out)
    moto_account.client("iam").update_access_key(UserName="alice", AccessKeyId=key, Status="Active")
    code, verified = _cli(capsys, "verify-account", alert_id, "--data-dir", data)
    assert code == 1 and verified["undone"] >= 1, verified
    for text in ("The alert is contained.", "Nothing is left open.", CONTAINED):
        code, out = _check(capsys, tmp_path, data, alert_id, text)
        assert code == 1 and set(_kinds(out)) == {"false_containment"}, (text, out)
    for text in ("The alert is not contained.", EXPOSED):
        code, out = _check(capsys, tmp_path, data, alert_id, text)
        assert (code, out["flags"]) == (0, []), (text, out)
    services = open_services(load_settings(data_dir=data))
    try:
        banner = services.briefer.containment_banner(alert_id)
    finally:
        services.close()
    assert banner.containment_state == "exposed", banner


def test_after_a_graph_only_run_a_count_of_the_paths_left_is_the_accounts(moto_account, tmp_path, capsys, monkeypatch):
    """After a graph-only run the graph has no qualifying path and the account one (through the key, still Active): a
    count said of the alert or of the account is held to the account's, one said of the graph to the graph's."""
    _, data, alert_id = _contained(moto_account, tmp_path, capsys, monkeypatch, respond=False)
    for text in (
        "1 qualifying path remains open on the AWS account.",
        "One qualifying path remains.",
        "There are 0 qualifying paths in the graph.",
    ):
        code, out = _check(capsys, tmp_path, data, alert_id, text)
        assert (code, out["flags"]) == (0, []), (text, out)
    code, out = _check(capsys, tmp_path, data, alert_id, "2 qualifying paths remain open on the AWS account.")
    assert (code, _kinds(out)) == (1, ["wrong_count"]), out
    assert "open on the AWS account" in out["flags"][0]["evidence"]
    code, out = _check(capsys, tmp_path, data, alert_id, "1 qualifying path remains in the graph.")
    assert code == 1 and set(_kinds(out)) == {"wrong_count", "false_exposure"}, out  # the graph has none
