"""Analyst alerts: `alert open ENTITY_ID --title ...` writes one alert through the import path."""

from __future__ import annotations

import json
import re

import pytest

from blastshield_core import seed
from blastshield_core.graph.model import ALERT_ID_PATTERN
from blastshield_core.interfaces import cli
from blastshield_core.read.tools import ReadTools
from blastshield_core.results import Status
from blastshield_core.sources.analyst_alert import (
    ANALYST_ALERT_KIND,
    AlertInputError,
    UnknownEntity,
    build_request,
    new_alert_id,
    open_alert,
    parse_signal,
    parse_signals,
)
from tests.conftest import free_port, graph_snapshot, run_cli, seeded_loopback_graph


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mfa_disabled=true", ("mfa_disabled", True)),
        ("internet_exposed=FALSE", ("internet_exposed", False)),
        ("count=3", ("count", 3)),
        ("delta=-12", ("delta", -12)),
        ("ratio=0.25", ("ratio", 0.25)),
        ("big=1e3", ("big", 1000.0)),
        ("src=10.0.0.1", ("src", "10.0.0.1")),
        ("region=eu-west-1", ("region", "eu-west-1")),
        ('note="true"', ("note", "true")),
        ('n="42"', ("n", "42")),
        ("odd=nan", ("odd", "nan")),
        ("expr=a=b", ("expr", "a=b")),
        ("huge=123456789012345678901234", ("huge", "123456789012345678901234")),
    ],
)
def test_signal_values_are_typed(text, expected):
    """Booleans, integers and floats are read as such; everything else (or anything quoted) is text."""
    assert parse_signal(text) == expected


@pytest.mark.parametrize("text", ["novalue", "=x", "bad key=1", "1st=2", "k="])
def test_malformed_signals_are_refused(text):
    """A signal that is not KEY=VALUE with a valid name and a value is invalid input."""
    with pytest.raises(AlertInputError):
        parse_signal(text)


def test_a_signal_given_twice_is_refused():
    """The same signal name twice is invalid input, not a silent overwrite."""
    with pytest.raises(AlertInputError, match="more than once"):
        parse_signals(["a=1", "a=2"])


@pytest.mark.parametrize(
    ("entity", "title", "kind", "match"),
    [
        ("developer_07", "", None, "title"),
        ("developer_07", "   ", None, "blank"),
        ("developer_07", "t", "Has Caps", "kind"),
        ("developer_07", "t", "", "kind"),
        ("has/slash", "t", None, "entity_id"),
        ("developer_07", "x" * 257, None, "title"),
    ],
)
def test_invalid_requests_are_refused(entity, title, kind, match):
    """Empty or blank titles, bad kinds and malformed entity ids are invalid input."""
    with pytest.raises(AlertInputError, match=match):
        build_request(entity, title, kind)


def test_generated_ids_are_valid_and_distinct():
    """Generated alert ids match ALERT_ID_PATTERN and do not repeat."""
    ids = {new_alert_id() for _ in range(200)}
    assert len(ids) == 200
    assert all(re.fullmatch(ALERT_ID_PATTERN, i) and re.fullmatch(r"AN-\d{8}T\d{6}-[0-9a-f]{12}", i) for i in ids)


def test_open_alert_adds_exactly_one_alert(store):
    """Opening an alert adds one Alert on the entity and changes no entity or relationship."""
    seed(store)
    before = graph_snapshot(store)
    opened = open_alert(store, build_request("deploy-role", "Role looks odd", signals={"wildcard_policy": True}))
    after = graph_snapshot(store)
    added = set(after["nodes"]) - set(before["nodes"])
    assert set(before["nodes"]) <= set(after["nodes"]) and before["edges"] == after["edges"]
    assert len(added) == 1 and "'Alert'" in next(iter(added)) and opened.alert_id in next(iter(added))
    assert (opened.entity_label, opened.kind) == ("IAMRole", ANALYST_ALERT_KIND)


def test_opened_alert_is_investigated_and_scored(store):
    """The new alert is investigated from its entity and scored by the same rule set."""
    seed(store)
    opened = open_alert(store, build_request("developer_07", "Check dev 07", signals={"off_hours_login": True}))
    result = ReadTools(store).investigate_alert(opened.alert_id, 6)
    assert result.status is Status.PATHS_FOUND
    assert result.alert.entity_id == "developer_07"
    assert result.alert.risk_score == 35  # the same evidence and signal as BH-1042


def test_unknown_entity_writes_nothing(store):
    """An entity that is not in the graph raises UnknownEntity and the graph is unchanged."""
    seed(store)
    before = graph_snapshot(store)
    with pytest.raises(UnknownEntity):
        open_alert(store, build_request("no-such-entity", "t"))
    assert graph_snapshot(store) == before


def test_a_taken_alert_id_is_refused(store):
    """An explicit alert id that already exists is refused, so no alert is overwritten."""
    seed(store)
    with pytest.raises(AlertInputError, match="already taken"):
        open_alert(store, build_request("developer_07", "t"), alert_id="BH-1042")


@pytest.fixture(scope="module")
def alert_env(loopback_server):
    with seeded_loopback_graph(loopback_server.url, "alerts") as (_store, env):
        yield env


def test_cli_opens_an_alert_and_prints_its_id(alert_env, monkeypatch, capsys):
    """`alert open` exits 0 with alert_id and typed signals; the alert is then listed."""
    result = run_cli(
        "alert", "open", "contractor_11", "--title", "Two locations", "--kind", "impossible_travel",
        "--signal", "impossible_travel=true", "--signal", "distance_km=4200", "--json", env=alert_env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert re.fullmatch(ALERT_ID_PATTERN, data["alert_id"])
    assert data["signals"] == {"impossible_travel": True, "distance_km": 4200}
    assert _main_json(alert_env, monkeypatch, capsys, "alerts")[0] == 0
    listed = _main_json(alert_env, monkeypatch, capsys, "alerts")[1]
    assert data["alert_id"] in {a["id"] for a in listed["alerts"]}


def _main_json(env, monkeypatch, capsys, *args):
    """Run the CLI in this process against `env`'s graph; (exit code, parsed JSON)."""
    monkeypatch.setenv("BLASTSHIELD_GRAPH", env["BLASTSHIELD_GRAPH"])
    code = cli.main([*args, "--json", "--falkordb-url", env["FALKORDB_URL"]])
    return code, json.loads(capsys.readouterr().out)


def test_cli_plain_output_starts_with_the_alert_id(alert_env, monkeypatch, capsys):
    """Without --json the first line is the alert id alone (for scripts)."""
    monkeypatch.setenv("BLASTSHIELD_GRAPH", alert_env["BLASTSHIELD_GRAPH"])
    code = cli.main(
        ["alert", "open", "customer-db", "--title", "Asset check", "--falkordb-url", alert_env["FALKORDB_URL"]]
    )
    assert code == 0
    assert re.fullmatch(ALERT_ID_PATTERN, capsys.readouterr().out.splitlines()[0])


def test_cli_unknown_entity_exits_three(alert_env, monkeypatch, capsys):
    """An unknown entity is exit 3 (unknown_source), nothing written."""
    before = _main_json(alert_env, monkeypatch, capsys, "alerts")
    code, data = _main_json(alert_env, monkeypatch, capsys, "alert", "open", "ghost", "--title", "t")
    assert (code, data["status"]) == (3, "unknown_source")
    assert _main_json(alert_env, monkeypatch, capsys, "alerts") == before


@pytest.mark.parametrize(
    "extra",
    [
        ["--title", ""],
        ["--title", "t", "--kind", "Bad-Kind"],
        ["--title", "t", "--signal", "noequals"],
        ["--title", "t", "--signal", "a=1", "--signal", "a=2"],
    ],
)
def test_cli_invalid_input_exits_two(extra, capsys):
    """Bad titles, kinds and signals exit 2 before any database is touched."""
    port = free_port()  # nothing listens there: an attempt to connect would be exit 4, not 2
    code = cli.main(["alert", "open", "developer_07", *extra, "--json", "--falkordb-url", f"redis://127.0.0.1:{port}"])
    assert code == 2
    assert json.loads(capsys.readouterr().out)["status"] == "invalid_input"


def test_cli_unreachable_database_exits_four(capsys):
    """A database that cannot be reached is exit 4 (query_failed)."""
    code = cli.main(
        [
            "alert",
            "open",
            "developer_07",
            "--title",
            "t",
            "--json",
            "--falkordb-url",
            f"redis://127.0.0.1:{free_port()}",
        ]
    )
    assert code == 4
    assert json.loads(capsys.readouterr().out)["status"] == "query_failed"
