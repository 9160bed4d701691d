"""The command line for briefings, the briefing checker and reports, in fresh processes."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.conftest import free_port, run_cli


@pytest.fixture(scope="module")
def env(loopback_server):
    """A seeded graph on the loopback server, with no Gemini key."""
    env = {
        "FALKORDB_URL": loopback_server.url,
        "BLASTSHIELD_GRAPH": f"cli_brief_{uuid.uuid4().hex[:8]}",
        "GEMINI_API_KEY": "",
    }
    assert run_cli("seed", env=env).returncode == 0
    return env


def test_brief_json_is_the_labelled_fallback(env):
    """brief --json prints the fallback briefing with its label, reason and evidence."""
    result = run_cli("brief", "BH-1042", "--json", env=env)
    data = json.loads(result.stdout)
    assert result.returncode == 0 and (data["label"], data["reason"]) == ("fallback", "no GEMINI_API_KEY")
    assert data["evidence"]["risk_score"] == 35 and "Deterministic fallback briefing" in data["markdown"]


def test_brief_text_starts_with_the_label(env):
    """Human output starts with the label and the reason."""
    result = run_cli("brief", "BH-IAM-2001", env=env)
    assert result.returncode == 0 and result.stdout.startswith("[fallback] no GEMINI_API_KEY")


def test_check_briefing_clean_text_exit_zero(env, tmp_path):
    """A truthful text briefing is clean: exit 0, no flags."""
    path = tmp_path / "ok.md"
    path.write_text("developer_07 has 1 qualifying path to customer-db; score 35, severity medium. Not contained.")
    result = run_cli("check-briefing", "BH-1042", str(path), "--json", env=env)
    data = json.loads(result.stdout)
    assert (result.returncode, data["clean"], data["flags"], data["input"]) == (0, True, [], "text")


def test_check_briefing_flagged_claims_exit_one(env, tmp_path):
    """JSON claims with a wrong score and a false containment exit 1 and list both flags."""
    path = tmp_path / "claims.json"
    path.write_text(json.dumps({"risk_score": 80, "containment_state": "contained", "prose": ""}))
    result = run_cli("check-briefing", "BH-CONTAINMENT-4001", str(path), "--json", env=env)
    data = json.loads(result.stdout)
    assert result.returncode == 1 and data["input"] == "claims"
    assert {f["kind"] for f in data["flags"]} == {"wrong_score", "false_containment"}


@pytest.mark.parametrize(("content", "alert", "code"), [
    ("", "BH-1042", 2),
    ('{"risk_score": "high"}', "BH-1042", 2),
    ("developer_07 is exposed.", "BH-NOPE-9", 3),
])  # fmt: skip
def test_check_briefing_bad_input_and_unknown_alert(env, tmp_path, content, alert, code):
    """An empty file or invalid claims exit 2; an unknown alert exits 3."""
    path = tmp_path / "b.txt"
    path.write_text(content)
    result = run_cli("check-briefing", alert, str(path), env=env)
    assert result.returncode == code and "Traceback" not in result.stderr


def test_report_alert_markdown_and_json_file(env, tmp_path):
    """report ALERT prints Markdown; --format json --out writes a validated JSON report."""
    md = run_cli("report", "BH-CONTAINMENT-4001", env=env)
    assert md.returncode == 0 and md.stdout.startswith("# Incident report: alert `BH-CONTAINMENT-4001`")
    out = tmp_path / "r.json"
    result = run_cli("report", "BH-CONTAINMENT-4001", "--format", "json", "--out", str(out), env=env)
    assert result.returncode == 0 and str(out) in result.stdout
    data = json.loads(out.read_text())
    assert data["format"] == "blastshield-report/v1" and data["kind"] == "alert"
    assert data["candidates"]["candidates"][0]["id"] == "block-route:route-c11-primary"


def test_report_unknown_run_exit_three(env):
    """A run id that is not in the audit exits 3."""
    result = run_cli("report", "run-20200101T000000-abcdef", "--json", env=env)
    assert result.returncode == 3 and json.loads(result.stdout)["status"] == "unknown_alert"


def test_report_run_markdown_after_contain(loopback_server):
    """After `contain`, report RUN_ID prints the run's verdict, actions and the briefing label."""
    env = {"FALKORDB_URL": loopback_server.url, "BLASTSHIELD_GRAPH": f"cli_run_{uuid.uuid4().hex[:8]}"}
    env["GEMINI_API_KEY"] = ""
    assert run_cli("seed", env=env).returncode == 0
    contain = run_cli("contain", "BH-CONTAINMENT-4001", "--decider", "rules", "--confirm", "--json", env=env)
    run_id = json.loads(contain.stdout)["run_id"]
    result = run_cli("report", run_id, env=env)
    assert result.returncode == 0 and f"# Incident report: run `{run_id}`" in result.stdout
    assert "verdict: **completed**" in result.stdout and "verified **True**" in result.stdout
    assert "## Briefing (fallback: no GEMINI_API_KEY)" in result.stdout and "**Contained.**" in result.stdout


@pytest.mark.parametrize(
    "text",
    [
        "analytics-poweruser -CAN_WRITE-> finance-ledger is the shortest path.",
        "The exposure is over: analytics-poweruser's grants have been wound down.",
    ],
)
def test_check_briefing_flags_paraphrases_exit_one(env, tmp_path, text):
    """An unbracketed arrow with an invented type, and a paraphrased containment claim, exit 1."""
    path = tmp_path / "p.md"
    path.write_text(text)
    result = run_cli("check-briefing", "BH-IAM-2001", str(path), "--json", env=env)
    assert result.returncode == 1 and json.loads(result.stdout)["clean"] is False


def test_check_briefing_query_failure_exit_four(tmp_path):
    """With the graph database unreachable the check exits 4, never clean."""
    path = tmp_path / "b.md"
    path.write_text("developer_07 is exposed.")
    env = {"FALKORDB_URL": f"redis://127.0.0.1:{free_port()}", "GEMINI_API_KEY": ""}
    result = run_cli("check-briefing", "BH-1042", str(path), "--json", env=env)
    assert result.returncode == 4 and json.loads(result.stdout)["status"] == "query_failed"


def test_check_briefing_run_option(loopback_server, tmp_path):
    """--run holds the check against that run; an unknown run exits 3, a run of another alert 2; the default is
    the alert's latest run (none for an alert never contained, where a claim that a run was made is false)."""
    env = {"FALKORDB_URL": loopback_server.url, "BLASTSHIELD_GRAPH": f"cli_runopt_{uuid.uuid4().hex[:8]}"}
    env["GEMINI_API_KEY"] = ""
    assert run_cli("seed", env=env).returncode == 0
    path = tmp_path / "b.md"
    path.write_text("The run completed.")
    result = run_cli("check-briefing", "BH-1042", str(path), "--json", env=env)
    data = json.loads(result.stdout)
    assert (result.returncode, data["run_id"]) == (1, None)
    assert [f["kind"] for f in data["flags"]] == ["false_containment"]
    assert "no containment run of BH-1042" in data["flags"][0]["evidence"]
    unknown = run_cli("check-briefing", "BH-1042", str(path), "--run", "run-20200101T000000-abcdef", env=env)
    assert unknown.returncode == 3 and "Traceback" not in unknown.stderr
    contain = run_cli("contain", "BH-CONTAINMENT-4001", "--decider", "rules", "--max-actions", "1", "--confirm",
                      "--json", env=env)  # fmt: skip
    run_id = json.loads(contain.stdout)["run_id"]
    other = run_cli("check-briefing", "BH-1042", str(path), "--run", run_id, "--json", env=env)
    assert other.returncode == 2 and "not BH-1042" in json.loads(other.stdout)["message"]
    stopped = run_cli("check-briefing", "BH-CONTAINMENT-4001", str(path), "--json", env=env)
    data = json.loads(stopped.stdout)
    assert stopped.returncode == 1 and data["run_id"] == run_id
    assert [f["kind"] for f in data["flags"]] == ["false_containment"] and "stopped" in data["flags"][0]["evidence"]


def test_check_briefing_lists_unverified_sentences_and_exits_zero(env, tmp_path):
    """A sentence with state words that the grammar cannot read is unverified: listed, not a flag, exit 0."""
    path = tmp_path / "u.md"
    path.write_text("developer_07 has 1 qualifying path to customer-db. Remediation theatre, arguably.")
    result = run_cli("check-briefing", "BH-1042", str(path), "--json", env=env)
    data = json.loads(result.stdout)
    assert (result.returncode, data["flags"]) == (0, [])
    assert data["unverified"] == ["Remediation theatre, arguably."]
    text = run_cli("check-briefing", "BH-1042", str(path), env=env)
    assert text.returncode == 0 and "1 unverified (neither confirmed nor contradicted)" in text.stdout
