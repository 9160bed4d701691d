"""Two containment runs on one alert at once, in two processes, against one FalkorDB server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from blastshield_core import Store, build_services
from blastshield_core.results import RunState
from tests.conftest import ROOT, run_cli, seeded_loopback_graph

ALERT = "BH-CONTAINMENT-4001"
ROUTES = {"route-c11-primary", "route-c11-alternate"}
ROUNDS = 2


def _spawn(*args: str, env: dict[str, str]) -> subprocess.Popen:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_", "GEMINI_"))}
    full_env.update(env)
    return subprocess.Popen(
        [sys.executable, "-m", "blastshield_core", *args],
        cwd=ROOT,
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def race_graph(loopback_server):
    """A freshly seeded graph on the loopback server, with the environment the CLI needs for it."""
    with seeded_loopback_graph(loopback_server.url, "race") as graph:
        yield graph


def _validated(store: Store) -> int:
    rows = store.read_text("MATCH (s:Step {kind: 'validation'}) RETURN count(s) AS c", graph=store.settings.audit_graph)
    return rows[0]["c"] if rows else 0


def _race(store: Store, env: dict[str, str]) -> list[dict]:
    """Both runs are held at the action service's write lock until both have validated the same
    proposal, then released together, so they really race for the same route."""
    args = ("contain", ALERT, "--decider", "rules", "--confirm", "--json")
    with store.write_lock():
        procs = [_spawn(*args, env=env), _spawn(*args, env=env)]
        deadline = time.monotonic() + 60
        while _validated(store) < 2:
            assert time.monotonic() < deadline and all(p.poll() is None for p in procs), "runs did not reach the lock"
            time.sleep(0.02)
    runs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode in (0, 1), err
        assert "Traceback" not in err
        runs.append(json.loads(out))
    return runs


@pytest.mark.parametrize("round_no", range(ROUNDS))
def test_two_processes_block_each_route_exactly_once(race_graph, round_no):
    """Two concurrent `contain` runs: every route is blocked once, by the run that says it applied it."""
    store, env = race_graph
    runs = _race(store, env)
    rows = store.read_text(
        "MATCH ()-[r]->() WHERE r.route_id IN $routes RETURN r.route_id AS route, r.status AS status,"
        " r.blocked_by_run AS run",
        {"routes": sorted(ROUTES)},
    )
    assert {r["route"]: r["status"] for r in rows} == dict.fromkeys(ROUTES, "blocked")
    applied = [(a["route_id"], run["run_id"]) for run in runs for a in run["actions"] if a["status"] == "applied"]
    assert sorted(applied) == sorted((r["route"], r["run"]) for r in rows)  # exactly once each, by its own run
    run_ids = {run["run_id"] for run in runs}
    assert len(run_ids) == 2


@pytest.mark.parametrize("round_no", range(ROUNDS))
def test_two_processes_end_consistent_with_the_graph(race_graph, round_no):
    """Each run's verdict agrees with the graph: completed means no path now and every applied action verified."""
    store, env = race_graph
    runs = _race(store, env)
    tools = build_services(store).tools
    assert tools.investigate_alert(ALERT).status.value == "no_path"
    states = sorted(run["state"] for run in runs)
    assert "completed" in states, [(r["state"], r["reason"]) for r in runs]
    for run in runs:
        assert run["state"] in ("completed", "stopped"), run["reason"]
        if run["state"] == "completed":
            assert run["remaining_paths"] == 0
            assert all(a["verified"] for a in run["actions"] if a["status"] == "applied")
        else:  # it lost a race: its proposal or action was refused, never applied twice
            assert "rejected" in run["reason"] or "none passes" in run["reason"], run["reason"]


def test_two_processes_both_audits_are_complete(race_graph):
    """`runs` lists both concurrent runs and `run` shows each from start to verdict, matching what contain printed."""
    store, env = race_graph
    runs = _race(store, env)
    listed = json.loads(run_cli("runs", "--json", env=env).stdout)["runs"]
    assert {r["run_id"] for r in listed} == {r["run_id"] for r in runs}
    for printed in runs:
        proc = run_cli("run", printed["run_id"], "--json", env=env)
        assert proc.returncode == 0, proc.stderr
        stored = json.loads(proc.stdout)
        assert stored["state"] == printed["state"] and stored["reason"] == printed["reason"]
        assert stored["actions"] == printed["actions"]
        kinds = [s["kind"] for s in stored["steps"]]
        assert kinds[0] == "start" and kinds[-1] == "verdict" and kinds.count("verdict") == 1
        assert [s["seq"] for s in stored["steps"]] == list(range(1, len(kinds) + 1))
        assert RunState(stored["state"]).terminal
