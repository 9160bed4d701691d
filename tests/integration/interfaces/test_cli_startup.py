"""Start-up of the command line: a read command imports only what it uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest

from tests.conftest import ROOT, run_cli

# Modules a read command never needs: the MCP server stack, the model client, the
# import path, the containment loop and the briefing checker (each costs start-up time).
HEAVY = (
    "mcp",
    "google.genai",
    "blastshield_core.interfaces.mcp_server",
    "blastshield_core.graph.ingest",
    "blastshield_core.respond.loop",
)
HEAVY += ("blastshield_core.brief.checker", "blastshield_core.graph.audit", "blastshield_core.read.analysis")
HEAVY += ("blastshield_core.results.runs", "blastshield_core.results.analysis")

PROBE = """
import json, sys
from blastshield_core.interfaces.cli import main
codes = [main(argv) for argv in json.loads(sys.argv[1])]
heavy = sorted(m for m in sys.modules if m.split(".")[0] == "mcp" or m.startswith(tuple(json.loads(sys.argv[2]))))
print(json.dumps({"codes": codes, "heavy": heavy}))
"""


def _probe(env: dict[str, str], commands: list[list[str]]) -> dict:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_"))}
    full_env.update(env)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(commands), json.dumps(HEAVY)],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def cli_env(loopback_server):
    """Environment pointing the CLI at a seeded graph on the loopback server."""
    env = {"FALKORDB_URL": loopback_server.url, "BLASTSHIELD_GRAPH": f"start_{uuid.uuid4().hex[:8]}"}
    assert run_cli("seed", env=env).returncode == 0
    return env


def test_read_commands_import_no_mcp_model_or_write_path(cli_env):
    """Every read command answers without the MCP stack, google-genai, import, loop, checker or analysis models."""
    commands = [
        ["alerts", "--json"],
        ["investigate", "BH-1042", "--json"],
        ["blast-radius", "BH-1042", "--json"],
        ["path", "developer_07", "customer-db", "--json"],
        ["routes", "BH-1042", "--json"],
        ["candidates", "BH-1042", "--json"],
    ]
    assert _probe(cli_env, commands) == {"codes": [0] * 6, "heavy": []}


def test_analysis_command_loads_the_analysis_tools(cli_env):
    """The probe can fail: a command that uses the analysis tools does import them."""
    result = _probe(cli_env, [["choke-points", "BH-1042", "--json"]])
    assert result["codes"] == [0] and "blastshield_core.read.analysis" in result["heavy"]


def test_package_exports_resolve_lazily():
    """`import blastshield_core` loads no submodule but the lazy-export helper (`base.lazy`, which
    imports only the standard library); every name in `__all__` still resolves."""
    code = (
        "import sys, blastshield_core as b\n"
        "before = sorted(m for m in sys.modules if m.startswith('blastshield_core.'))\n"
        "missing = [n for n in b.__all__ if getattr(b, n, None) is None]\n"
        "print(before, missing)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "['blastshield_core.base', 'blastshield_core.base.lazy'] []"


def test_result_models_of_analysis_and_runs_are_defined_on_first_use():
    """`results` defines neither the analysis nor the containment models until one is read from it;
    every name in its `__all__` resolves (to the class its own module defines) and others are errors."""
    code = (
        "import sys, blastshield_core.results as r\n"
        "later = ('blastshield_core.results.analysis', 'blastshield_core.results.runs', 'blastshield_core.results.collateral')\n"
        "before = sorted(m for m in sys.modules if m in later)\n"
        "from blastshield_core.results import RunRecord, WhatIfResult\n"
        "import blastshield_core.results.runs as runs\n"
        "missing = [n for n in r.__all__ if getattr(r, n, None) is None]\n"
        "try:\n"
        "    r.NoSuchModel\n"
        "    error = None\n"
        "except AttributeError as exc:\n"
        "    error = str(exc)\n"
        "print(before, missing, RunRecord is runs.RunRecord, WhatIfResult.__module__, error)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    expected = (
        "[] [] True blastshield_core.results.analysis module 'blastshield_core.results' has no attribute 'NoSuchModel'"
    )
    assert proc.stdout.strip() == expected


def _outcome(parse, argv: list[str], capsys) -> tuple:
    """The namespace `parse(argv)` returns, or its exit code and printed text."""
    try:
        return ("ok", vars(parse(argv)))
    except SystemExit as exc:
        out = capsys.readouterr()
        return ("exit", exc.code, out.out, out.err)


def test_one_command_parser_answers_as_the_full_parser(capsys):
    """Building only the named command's parser gives the same namespace, help and errors for every command."""
    from blastshield_core.interfaces import cli

    full = cli._parser()
    commands = sorted(full._subparsers._group_actions[0].choices)  # every command the full parser knows
    assert len(commands) >= 25 and "investigate" in commands and "alert" in commands
    argvs = []
    for name in commands:
        argvs += [[name], [name, "--help"], [name, "X"], [name, "X", "Y", "--json"], [name, "X", "--bogus"]]
        argvs += [[name, "X", "--data-dir", "d", "--confirm", "--reason", "r", "--decider", "rules"]]
    argvs += [["alert", "open", "e1", "--title", "t", "--signal", "a=b"], ["investigate", "BH-1", "--depth", "3"]]
    argvs += [["path", "a", "b", "--max-hops", "x"], ["what-if", "BH-1", "--block", "r1", "--block", "r2"]]
    argvs += [["investigat", "BH-1"], ["nosuch"], ["--help"], [], ["-x", "investigate"]]
    compared = 0
    for argv in argvs:
        expected = _outcome(lambda a: cli._parser().parse_args(a), argv, capsys)
        got = _outcome(cli._parse_args, argv, capsys)
        assert got == expected, argv
        compared += expected[0] == "ok"
    assert compared >= 10  # valid command lines are among them, not only errors


def test_one_command_parser_builds_that_command_alone():
    """With a command named, the parser knows that command only; an unknown name builds nothing."""
    from blastshield_core.interfaces import cli

    one = cli._parser(only="investigate")
    assert list(one._subparsers._group_actions[0].choices) == ["investigate"]
    assert cli._parser(only="nosuch") is None


@pytest.mark.parametrize("columns", [None, "120", "41", "0", "-3", "wide"])
def test_help_formatter_takes_the_width_shutil_gives_and_writes_the_same_help(columns, monkeypatch, capsys):
    """The parser's own formatter finds the terminal's width as `shutil.get_terminal_size` does,
    and every command's help and errors read as with argparse's formatter."""
    import argparse
    import shutil

    from blastshield_core.interfaces import cli, cli_parser

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert cli._terminal_columns() == shutil.get_terminal_size().columns
    ours = cli._parser()
    names = sorted(ours._subparsers._group_actions[0].choices)
    argvs = [["--help"], ["nosuch"]] + [[name, "--help"] for name in names] + [[name, "X", "--bogus"] for name in names]
    got = [_outcome(ours.parse_args, argv, capsys) for argv in argvs]
    monkeypatch.setattr(cli_parser, "_HelpFormatter", argparse.HelpFormatter)
    theirs = cli._parser()
    assert got == [_outcome(theirs.parse_args, argv, capsys) for argv in argvs]
    assert any("usage:" in outcome[2] for outcome in got)  # help texts were compared, not only codes


def test_collector_paused_for_a_read_command_imports_only(monkeypatch):
    """`python -m blastshield_core` pauses the cyclic collector through a read command's imports
    alone, and resuming turns it back on with what the imports made frozen out of its walks."""
    import gc

    from blastshield_core.graph import prestart

    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    prestart.pause_collector(["import", "doc.json"])
    prestart.pause_collector(["mcp"])
    prestart.pause_collector([])
    assert gc.isenabled()
    prestart.resume_collector()  # nothing paused: nothing frozen
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    try:
        prestart.pause_collector(["investigate", "BH-1042"])
        assert not gc.isenabled()
        prestart.pause_collector(["alerts"])  # once
        made = [object() for _ in range(10)]
        prestart.resume_collector()
        assert gc.isenabled() and gc.get_freeze_count() > frozen
        prestart.resume_collector()
        assert gc.isenabled()
        gc.unfreeze()
        # As `python -m blastshield_core` calls it: the collector already off for the first imports.
        gc.disable()
        prestart.pause_collector(["seed"], was_enabled=True)
        assert gc.isenabled()  # another command: on again
        gc.disable()
        prestart.pause_collector(["seed"], was_enabled=False)
        assert not gc.isenabled()  # it was off before: left off
        prestart.pause_collector(["routes", "BH-1042"], was_enabled=True)
        assert not gc.isenabled()
        prestart.resume_collector()
        assert gc.isenabled() and gc.get_freeze_count() > frozen
    finally:
        gc.enable()
        gc.unfreeze()
    assert made


def test_read_command_process_resumes_the_collector_before_its_query(tmp_path):
    """As run, a read command reaches its query with the collector on again."""
    probe = (
        "import gc, runpy, sys\n"
        "from blastshield_core.read import tools\n"
        "original = tools.ReadTools.investigate_alert\n"
        "def spy(self, *a, **k):\n"
        "    print('collector', gc.isenabled(), gc.get_freeze_count() > 0, file=sys.stderr)\n"
        "    return original(self, *a, **k)\n"
        "tools.ReadTools.investigate_alert = spy\n"
        "sys.argv = ['blastshield_core', 'investigate', 'BH-NONE', '--data-dir', sys.argv[1]]\n"
        "runpy.run_module('blastshield_core', run_name='__main__')\n"
    )
    proc = _as_main(probe, str(tmp_path))
    assert "collector True True" in proc.stderr, proc.stderr[-2000:]


@pytest.mark.parametrize(("command", "paused"), [("investigate", True), ("seed", False), ("mcp", False)])
def test_collector_as_main_is_paused_for_read_commands_alone(command, paused, tmp_path):
    """`python -m blastshield_core` enters the command line with the collector off for a read
    command (its imports go on inside) and on for any other command."""
    probe = (
        "import gc, runpy, sys\n"
        "from blastshield_core.interfaces import cli\n"
        "cli.main = lambda: print('collector on', gc.isenabled()) or 0\n"
        f"sys.argv = ['blastshield_core', {command!r}, '--data-dir', {str(tmp_path / 'none')!r}]\n"
        "runpy.run_module('blastshield_core', run_name='__main__')\n"
    )
    proc = _as_main(probe)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == f"collector on {not paused}"


def _as_main(probe: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`probe` run as a process from the project's root (it runs `python -m blastshield_core` by runpy)."""
    argv = [sys.executable, "-c", probe, *args]
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
