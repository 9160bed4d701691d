"""A signal at each phase of `import-aws`: the command ends in bounded time and says what is true.

Before: a SIGTERM that landed just as the post-import report started its read threads (the pool in
`read/reach.py`, made on first use) left a worker out of the pool's list, and the interpreter's exit
waited for it for ever (SIGTERM and SIGHUP ignored by then; only SIGKILL ended it; 10 of 10 timed
trials). And a signal after the import had committed and been audited said "interrupted (SIGTERM):
stopped", exit 143.

Here the command runs with a hook that sends the signal to itself at the start of one phase (or, for
the report's threads, inside `Thread.start` of the first read worker, exactly where the race was):
the signal arrives at that point every time, not at a time guessed from outside. Before the commit the
command stops, nothing written (exit 128 + the signal); from the commit on, the import stands and is
recorded in the audit, and the command says "imported; report interrupted" (exit 5,
EXIT_REPORT_INTERRUPTED). Every run ends within the bound, leaves no database server, and keeps every
line of its output one line.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blastshield_core import seed
from blastshield_core.base.settings import load_settings
from blastshield_core.graph.audit import AuditLog
from blastshield_core.graph.store import Store
from tests.conftest import ROOT, graph_snapshot, run_cli, server_gone
from tests.helpers import aws_live

# The command, run with one phase hooked: `python -c HOOKED PHASE SIGNUM import-aws ...`.
HOOKED = r"""
import os, signal, sys, threading, time
phase, signum = sys.argv[1], int(sys.argv[2])
sys.argv = ["blastshield_core", *sys.argv[3:]]
reached = []
# SIGINT as a terminal's Ctrl-C finds it (tests/conftest.py, SIGINT_AT_A_TERMINAL), or ignored as a script's
# background job starts with it: set here, never inherited from however the test runner was started.
ignored = os.environ.get("HOOKED_SIGINT") == "ignored"
signal.signal(signal.SIGINT, signal.SIG_IGN if ignored else signal.default_int_handler)

def fire():
    if reached:
        return
    reached.append(phase)
    print(f"phase reached: {phase}", file=sys.stderr, flush=True)
    os.kill(os.getpid(), signum)
    time.sleep(0.5)  # the handler raises here (held after a commit, it returns and the sleep ends)

def before(owner, name):
    original = getattr(owner, name)
    def hooked(*args, **kwargs):
        fire()
        return original(*args, **kwargs)
    setattr(owner, name, hooked)

from blastshield_core.graph import ingest
from blastshield_core.graph.audit import AuditLog
from blastshield_core.graph.store import Store
from blastshield_core.read import top_principals
from blastshield_core.sources.aws.build import load

if phase == "read":
    before(load, "read_sources")
elif phase == "evaluate":
    before(load, "build_document")
elif phase == "load":
    before(ingest._BatchWriter, "submit")  # the seeded graph is upserted: copied, then written in batches
elif phase == "before-commit":
    before(ingest, "_restore_blocks")
elif phase == "commit":
    before(Store, "rename_locked")
elif phase == "audit":
    before(AuditLog, "add_event")
elif phase == "report":
    before(top_principals, "top_principals")
elif phase in ("load-threads", "report-threads"):
    prefix = "blastshield-import" if phase == "load-threads" else "blastshield-read"
    start = threading.Thread.start
    def hooked_start(self):
        start(self)
        if self.name.startswith(prefix):
            fire()  # inside the pool's submit: the worker runs, the pool has not listed it yet
    threading.Thread.start = hooked_start
else:
    raise SystemExit(f"unknown phase {phase}")

import runpy
try:
    runpy.run_module("blastshield_core", run_name="__main__")
finally:
    if not reached:
        print(f"phase not reached: {phase}", file=sys.stderr, flush=True)
"""

BEFORE_COMMIT = ["read", "evaluate", "load-threads", "load", "before-commit"]
AFTER_COMMIT = ["commit", "audit", "report-threads", "report"]
BOUND_S = 90  # the whole command, signal to exit; the threads get 5 s of it (terminal.THREAD_GRACE_S)


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> Path:
    """A synthetic account whose report reads frontiers wide enough to start the read pool's threads."""
    out = tmp_path_factory.mktemp("export") / "account"
    result = run_cli(
        "generate-aws", "--users", "300", "--roles", "120", "--policies", "80", "--buckets", "20",
        "--escalations", "20", "--seed", "7", "--out", str(out), timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return out


def _server_pid(data_dir: Path) -> int | None:
    for registry in data_dir.rglob("*.settings"):
        try:
            return int(Path(json.loads(registry.read_text())["pidfile"]).read_text().strip())
        except (OSError, ValueError, KeyError):
            continue
    return None


def _state(data_dir: Path) -> tuple[dict, list[str], int]:
    store = Store(load_settings(environ={}, data_dir=data_dir))
    try:
        graphs = sorted(n.decode() if isinstance(n, bytes) else n for n in store.command("GRAPH.LIST"))
        return graph_snapshot(store), graphs, sum(e.kind == "import" for e in AuditLog(store).events())
    finally:
        store.close()


CASES = [(phase, signal.SIGTERM) for phase in BEFORE_COMMIT + AFTER_COMMIT] + [
    ("load", signal.SIGHUP),
    ("commit", signal.SIGINT),  # Ctrl-C is held after the commit too
    ("report-threads", signal.SIGINT),
]


@pytest.mark.parametrize(("phase", "signum"), CASES, ids=[f"{p}-{s.name}" for p, s in CASES])
def test_a_signal_at_each_phase_of_import_aws_ends_in_bounded_time_and_says_what_is_true(
    export, tmp_path, phase, signum
):
    data_dir = tmp_path / "data"
    store = Store(load_settings(environ={}, data_dir=data_dir))
    seed(store)
    store.close()
    before = _state(data_dir)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_"))}
    proc = subprocess.Popen(
        [sys.executable, "-c", HOOKED, phase, str(int(signum)), "import-aws", str(export), "--data-dir", str(data_dir)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    started = time.monotonic()
    try:
        out, err = proc.communicate(timeout=BOUND_S + 240)  # the import itself takes a few seconds
    except subprocess.TimeoutExpired:  # the hang this test is about
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"{phase}: still running after {time.monotonic() - started:.0f} s: {err[-2000:]}")
    assert f"phase reached: {phase}" in err, err[-2000:]
    assert "Traceback" not in err, err[-3000:]
    server = _server_pid(data_dir)
    deadline = time.monotonic() + 10
    while server is not None and not server_gone(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server is None or server_gone(server), "the embedded server outlived the command"
    after = _state(data_dir)
    if phase in BEFORE_COMMIT:
        assert proc.returncode == 128 + signum, (proc.returncode, err[-2000:])
        assert f"interrupted ({signum.name}): stopped" in err and "imported" not in out
        assert after == before  # nothing written, no staging graph, no import recorded
    else:
        assert proc.returncode == 5, (proc.returncode, err[-2000:])
        assert f"interrupted ({signum.name}): imported; report interrupted" in err and "stopped" not in err
        assert after[0] != before[0] and after[1] == before[1]  # the import stands; no staging graph left
        assert after[2] == before[2] + 1  # and is recorded in the audit
        verified = run_cli("audit", "verify", "--json", "--data-dir", str(data_dir))
        assert verified.returncode == 0 and json.loads(verified.stdout)["intact"], verified.stdout


@pytest.mark.parametrize("phase", ["load", "commit", "report-threads"])
def test_a_command_started_with_sigint_ignored_ignores_it_from_start_to_end(export, tmp_path, phase):
    """Started with SIGINT ignored (a background job of a script), `import-aws` is not stopped by it at any
    phase: the import and its report complete, exit 0. Before, the guard set its own SIGINT handler for the
    import's length only: the same SIGINT stopped the import (exit 130), was held at the commit (exit 5), and
    was ignored during the report (exit 0), so a run's outcome hung on where Ctrl-C landed."""
    data_dir = tmp_path / "data"
    store = Store(load_settings(environ={}, data_dir=data_dir))
    seed(store)
    store.close()
    before = _state(data_dir)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_"))}
    env["HOOKED_SIGINT"] = "ignored"
    out = subprocess.run(
        [sys.executable, "-c", HOOKED, phase, str(int(signal.SIGINT)), "import-aws", str(export), "--data-dir",
         str(data_dir)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=BOUND_S + 240, check=False,
    )  # fmt: skip
    assert f"phase reached: {phase}" in out.stderr, out.stderr[-2000:]
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert "interrupted" not in out.stderr and "Traceback" not in out.stderr, out.stderr[-2000:]
    assert "imported accounts" in out.stdout and "\nnext: " in out.stdout  # the report ran to its end
    after = _state(data_dir)
    assert after[0] != before[0] and after[1] == before[1] and after[2] == before[2] + 1


def test_the_report_interrupted_in_json_keeps_the_import_report(export, tmp_path):
    """With `--json` the import's report is printed whole, `next` empty and `interrupted` naming the signal."""
    data_dir = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_"))}
    out = subprocess.run(
        [sys.executable, "-c", HOOKED, "report", str(int(signal.SIGHUP)), "import-aws", str(export), "--json",
         "--data-dir", str(data_dir)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=BOUND_S + 240, check=False,
    )  # fmt: skip
    assert out.returncode == 5, out.stderr[-2000:]
    payload = json.loads(out.stdout)
    assert payload["status"] == "imported" and payload["next"] is None and payload["interrupted"] == "SIGHUP"
    assert payload["accounts"] and payload["counts"]["nodes"]


moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures


def test_collect_aws_import_interrupted_from_the_commit_says_collected_and_imported(moto_account, tmp_path):
    """`collect-aws --import` holds a signal from the commit on as `import-aws` does (moto on loopback)."""
    aws_live.user_with_key_to_critical_bucket(moto_account)
    data_dir = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_"))}
    env["BLASTSHIELD_AWS_COLLECT_PROFILE"] = "collect"
    out = subprocess.run(
        [sys.executable, "-c", HOOKED, "commit", str(int(signal.SIGTERM)), "collect-aws", "--out",
         str(tmp_path / "collection"), "--import", "--data-dir", str(data_dir)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=BOUND_S + 240, check=False,
    )  # fmt: skip
    assert "phase reached: commit" in out.stderr, out.stderr[-2000:]
    assert out.returncode == 5, out.stderr[-2000:]
    assert "interrupted (SIGTERM): collected and imported" in out.stderr and "stopped" not in out.stderr
    assert f"imported accounts {aws_live.ACCOUNT}" in out.stdout
    store = Store(load_settings(environ={}, data_dir=data_dir))
    try:
        assert [e.kind for e in AuditLog(store).events()].count("import") == 1
    finally:
        store.close()
