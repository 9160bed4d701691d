"""Containment state is kept: blocks survive imports, release is audited, every write has an actor,
no lost lock commits, intent before effect, no run stays running, and the audit is tamper-evident.

Each test runs on the embedded store and on the loopback server (the `store` fixture)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from blastshield_core import build_services, import_document, seed
from blastshield_core.graph.ingest import load_document, parse_document
from blastshield_core.graph.model import DocumentError
from blastshield_core.graph.store import WriteLockLost
from blastshield_core.interfaces.service import open_services
from blastshield_core.respond.decide import AnalystDecider, RulesDecider
from blastshield_core.respond.loop import WaitingRuns
from blastshield_core.results import RunState, Status
from tests.conftest import ROOT, run_cli, seeded_loopback_graph

ALERT = "BH-CONTAINMENT-4001"
ROUTES = ["route-c11-alternate", "route-c11-primary"]


@pytest.fixture
def svc(store):
    """Services on a freshly seeded graph of its own."""
    seed(store, actor="seeder")
    return build_services(store)


def contained(svc, actor: str = "analyst-1"):
    """A completed rules run on the containment alert (blocks both routes)."""
    run = svc.controller.run(ALERT, RulesDecider(), confirm=True, actor=actor)
    assert run.state is RunState.COMPLETED
    return run


def route_props(store, route_id: str) -> dict:
    rows = store.read("routes_by_ids", {"route_ids": [route_id]})
    return rows[0]["props"] if rows else {}


# -- blocks survive imports ---------------------------------------------------------------
def test_upsert_of_the_same_document_keeps_blocks_and_reports_them(svc):
    """Re-importing a document that says `active` leaves BlastShield's blocks blocked and names them."""
    run = contained(svc)
    report = import_document(svc.store, load_document(ROOT / "seeds" / "containment.json"), actor="importer")
    assert report.preserved_blocks == ROUTES and report.blocks_gone == []
    for route in ROUTES:
        props = route_props(svc.store, route)
        assert props["status"] == "blocked" and props["blocked_by_run"] == run.run_id
        assert props["blocked_by"] == "analyst-1" and props["blocked_at"]
    assert svc.tools.investigate_alert(ALERT).status is Status.NO_PATH


def test_replace_keeps_blocks_of_remaining_routes_and_reports_gone_ones(svc):
    """`--replace` keeps the block of a route that still exists (by route id) and reports the one that is gone."""
    run = contained(svc)
    data = json.loads((ROOT / "seeds" / "containment.json").read_text())
    data["edges"] = [e for e in data["edges"] if e.get("properties", {}).get("route_id") != "route-c11-alternate"]
    report = import_document(svc.store, parse_document(data), replace=True, actor="importer")
    assert report.preserved_blocks == ["route-c11-primary"]
    assert report.blocks_gone == ["route-c11-alternate"]
    assert route_props(svc.store, "route-c11-primary")["blocked_by_run"] == run.run_id
    event = svc.audit.events(limit=1)[0]
    assert (event.kind, event.actor, event.data["blocks_gone"]) == ("import", "importer", ["route-c11-alternate"])


def test_document_cannot_set_who_blocked_a_route():
    """An edge carrying `blocked_by_run` is refused, naming the edge and the property."""
    data = json.loads((ROOT / "seeds" / "containment.json").read_text())
    index = next(i for i, e in enumerate(data["edges"]) if e.get("properties", {}).get("route_id"))
    data["edges"][index]["properties"]["blocked_by_run"] = "run-20260101T000000-abcdef"
    with pytest.raises(DocumentError) as err:
        parse_document(data)
    assert err.value.item.startswith(f"edges[{index}] (") and "blocked_by_run" in err.value.message


def test_cli_import_of_a_document_setting_blocked_at_exits_2(tmp_path):
    """`import` of a document that sets `blocked_at` exits 2 with the edge named; nothing is opened."""
    data = json.loads((ROOT / "seeds" / "containment.json").read_text())
    data["edges"][0]["properties"]["blocked_at"] = "2026-01-01T00:00:00+00:00"
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(data))
    out = run_cli("import", str(path), "--data-dir", str(tmp_path / "db"))
    assert out.returncode == 2 and "edges[0] (" in out.stderr and "blocked_at" in out.stderr


def test_scenario_reset_reopens_and_records_who_asked(svc):
    """`seed --reset` reopens the blocked scenario routes and the audit says which and who asked."""
    contained(svc)
    report = seed(svc.store, reset=True, actor="admin-7")
    assert report.reopened == ROUTES and report.actor == "admin-7"
    assert route_props(svc.store, "route-c11-primary")["status"] == "active"
    event = svc.audit.events(limit=1)[0]
    assert (event.kind, event.actor, event.data["reopened"]) == ("reset", "admin-7", ROUTES)


# -- release ---------------------------------------------------------------------------------
def test_release_brings_paths_back_and_the_blocking_run_shows_it(svc):
    """Release re-opens the alert's path, answers which alerts reopened, and the blocking run lists it."""
    run = contained(svc)
    result = svc.actions.release_route("route-c11-primary", "false positive", confirm=True, actor="lead-2")
    assert result.status is Status.OK and result.state == "released" and result.blocked_by_run == run.run_id
    assert [(a.alert_id, a.paths_before, a.paths_after) for a in result.alerts_reopened] == [(ALERT, 0, 1)]
    assert route_props(svc.store, "route-c11-primary") == {"route_id": "route-c11-primary", "status": "active"}
    assert svc.tools.investigate_alert(ALERT).path_count == 1
    releases = svc.audit.get(run.run_id).releases
    assert [(r.route_id, r.actor, r.reason) for r in releases] == [("route-c11-primary", "lead-2", "false positive")]
    kinds = [(e.kind, e.data["status"]) for e in reversed(svc.audit.events(limit=2))]
    assert kinds == [("release", "intended"), ("release", "released")]


def test_release_refuses_what_blastshield_did_not_block(svc):
    """Unknown route, a route not blocked by BlastShield, no confirmation or no reason: refused, nothing written."""
    contained(svc)
    assert svc.actions.release_route("route-nope", "x", confirm=True).status is Status.UNKNOWN_ROUTE
    assert svc.actions.release_route("route-c11-stale", "x", confirm=True).status is Status.INVALID_INPUT
    assert svc.actions.release_route("route-c11-primary", "x", confirm=False).status is Status.INVALID_INPUT
    assert svc.actions.release_route("route-c11-primary", " ", confirm=True).status is Status.INVALID_INPUT
    assert route_props(svc.store, "route-c11-primary")["status"] == "blocked"


def test_cli_release_exit_codes(loopback_server):
    """`release` exits 0 released (JSON answer), 2 without --confirm, 3 for an unknown route."""
    with seeded_loopback_graph(loopback_server.url, "release") as (store, env):
        contained(build_services(store))
        assert run_cli("release", "route-c11-primary", "--reason", "r", env=env).returncode == 2
        out = run_cli("release", "route-c11-primary", "--reason", "ok", "--confirm", "--json", env=env)
        answer = json.loads(out.stdout)
        assert out.returncode == 0 and answer["state"] == "released"
        assert answer["alerts_reopened"][0]["alert_id"] == ALERT
        assert run_cli("release", "route-none", "--reason", "r", "--confirm", env=env).returncode == 3


# -- actor and intent ------------------------------------------------------------------------------
def test_every_block_names_a_run_whose_audit_has_the_intent_first(svc):
    """Each blocked route's `blocked_by_run` names a run whose audit holds an `intent` step before its `action`."""
    run = svc.audit.get(contained(svc, actor="ops-9").run_id)
    assert run.actor == "ops-9" and run.owner is not None and run.owner.pid == os.getpid()
    kinds = [(s.kind, s.data.get("route_id")) for s in run.steps]
    for route in ROUTES:
        assert route_props(svc.store, route)["blocked_by_run"] == run.run_id
        assert kinds.index(("intent", route)) < kinds.index(("action", route))


def test_a_run_whose_intent_cannot_be_recorded_blocks_nothing(svc):
    """When the intent step cannot be written, the run fails and the route stays active."""
    from blastshield_core.graph.store import QueryFailed

    audit = svc.audit
    original = audit.add_step

    def failing(run_id, step):
        if step.kind == "intent":
            raise QueryFailed("audit unavailable")
        original(run_id, step)

    audit.add_step = failing
    run = svc.controller.run(ALERT, RulesDecider(), confirm=True)
    assert run.state is RunState.FAILED and "intent" in run.reason
    assert all(route_props(svc.store, r)["status"] == "active" for r in ROUTES)


# -- no lost lock ---------------------------------------------------------------------------------
def test_import_whose_lock_expired_does_not_commit_and_the_block_survives(svc):
    """An import paused past its lock's lifetime (renewal stalled) fails cleanly; a block applied meanwhile stays."""
    svc.store.write_lock_ttl_s = 0.5
    doc = load_document(ROOT / "seeds" / "containment.json")
    outcome = {}

    def stall(lock):
        lock.stop_renewing()  # as if the process were frozen: nothing renews the lock
        time.sleep(0.8)
        outcome["block"] = svc.actions.block_route(ALERT, "route-c11-primary", "run-20260101T000000-aaaaaa")

    with pytest.raises(WriteLockLost):
        import_document(svc.store, doc, actor="importer", before_commit=stall)
    assert outcome["block"].status == "applied"
    assert route_props(svc.store, "route-c11-primary")["status"] == "blocked"
    leftovers = [g for g in svc.store.command("GRAPH.LIST") if "__staging_" in str(g)]
    assert leftovers == []


def test_import_longer_than_the_lock_lifetime_keeps_its_lock_and_the_block_waits(svc):
    """A renewed lock outlives its lifetime: a concurrent block waits for the import, then lands and stays."""
    svc.store.write_lock_ttl_s = 0.4
    doc = load_document(ROOT / "seeds" / "containment.json")
    done = {}

    def block():
        done["block"] = svc.actions.block_route(ALERT, "route-c11-primary", "run-20260101T000000-bbbbbb")
        done["block_at"] = time.monotonic()

    def pause(lock):
        thread = threading.Thread(target=block)
        thread.start()
        done["thread"] = thread
        time.sleep(1.5)
        done["renewals"] = lock.renewals
        done["commit_at"] = time.monotonic()

    import_document(svc.store, doc, actor="importer", before_commit=pause)
    done["thread"].join(timeout=30)
    assert done["renewals"] >= 2 and done["block_at"] > done["commit_at"]
    assert done["block"].status == "applied"
    assert route_props(svc.store, "route-c11-primary")["status"] == "blocked"


# -- no run stays running -----------------------------------------------------------------------------
_WAITING_RUN = """
import sys
from blastshield_core import build_services, Store, load_settings
settings = load_settings(**__import__("json").loads(sys.argv[1]))
services = build_services(Store(settings))
session = services.controller.start("BH-CONTAINMENT-4001", "analyst", confirm=True, actor="ghost")
print(session.run.run_id, flush=True)
__import__("time").sleep(600)
"""


def test_run_of_a_killed_process_becomes_interrupted_when_the_store_opens(svc):
    """SIGKILL a process in the middle of a run; opening the store marks it `interrupted` with its last step."""
    settings = svc.store.settings
    where = {"falkordb_url": settings.falkordb_url} if settings.falkordb_url else {"data_dir": str(settings.data_dir)}
    args = json.dumps({"environ": {}, **where, "graph": settings.graph, "audit_graph": settings.audit_graph})
    child = subprocess.Popen(
        [sys.executable, "-c", _WAITING_RUN, args], cwd=ROOT, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        run_id = child.stdout.readline().strip()
        assert svc.audit.get(run_id).state is RunState.RUNNING
        assert svc.audit.recover_interrupted() == []  # its process is alive: never marked
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        child.stdout.close()
    reopened = open_services(settings)
    try:
        assert reopened.interrupted == [run_id]
    finally:
        reopened.close()
    run = svc.audit.get(run_id)
    assert run.state is RunState.INTERRUPTED and run.actor == "ghost"
    assert run.steps[-1].kind == "interrupted" and "step 2 (investigate" in run.steps[-1].summary
    assert svc.audit.verify().intact


def test_waiting_analyst_run_is_abandoned_when_its_session_ends_or_times_out(svc):
    """A waiting analyst run is `abandoned` when its session ends, or when it waited past the limit."""
    waiting = WaitingRuns(limit_s=0.0)
    ended = svc.controller.start(ALERT, "analyst", confirm=True)
    stale = svc.controller.start(ALERT, "analyst", confirm=True)
    waiting.wait(ended)
    waiting.wait(stale)
    assert waiting.abandon(ended.run.run_id)
    time.sleep(0.01)
    assert waiting.sweep() == [stale.run.run_id]
    for session in (ended, stale):
        assert svc.audit.get(session.run.run_id).state is RunState.ABANDONED
    assert not waiting.abandon(ended.run.run_id)  # already ended: nothing more happens
    ended.advance(AnalystDecider(["block-route:route-c11-primary"]))
    assert route_props(svc.store, "route-c11-primary")["status"] == "active"


# -- tamper-evident audit ---------------------------------------------------------------------------
def test_audit_verify_names_the_first_edited_record(svc):
    """Editing a step behind the tool's back breaks the chain at that record; before that it is intact."""
    run = contained(svc)
    assert svc.audit.verify().intact
    svc.store.command(
        "GRAPH.QUERY", svc.store.settings.audit_graph,
        f"MATCH (s:Step {{run_id: '{run.run_id}', seq: 7}}) SET s.summary = 'nothing was blocked'",
    )  # fmt: skip
    result = svc.audit.verify()
    assert not result.intact
    assert (result.broken.record, result.broken.id) == ("Step", f"{run.run_id} step 7")
    assert "edited" in result.broken.reason


def test_audit_verify_catches_a_rewritten_verdict_and_a_deleted_step(svc):
    """A run's state changed to differ from its verdict, or a deleted step, is reported."""
    run = svc.controller.run(ALERT, RulesDecider(), max_actions=1, confirm=True)
    assert run.state is RunState.STOPPED
    audit_graph = svc.store.settings.audit_graph
    svc.store.command("GRAPH.QUERY", audit_graph, f"MATCH (r:Run {{run_id: '{run.run_id}'}}) SET r.state = 'completed'")
    assert "state 'completed' differs" in svc.audit.verify().broken.reason
    svc.store.command("GRAPH.QUERY", audit_graph, f"MATCH (r:Run {{run_id: '{run.run_id}'}}) SET r.state = 'stopped'")
    svc.store.command("GRAPH.QUERY", audit_graph, f"MATCH (s:Step {{run_id: '{run.run_id}', seq: 3}}) DELETE s")
    assert "missing" in svc.audit.verify().broken.reason


def test_cli_audit_verify_exit_codes(loopback_server):
    """`audit verify` exits 0 on an intact chain and 1 naming the first broken record."""
    with seeded_loopback_graph(loopback_server.url, "verify") as (store, env):
        run = contained(build_services(store))
        out = run_cli("audit", "verify", "--json", env=env)
        assert out.returncode == 0 and json.loads(out.stdout)["intact"] is True
        store.command(
            "GRAPH.QUERY", store.settings.audit_graph,
            f"MATCH (s:Step {{run_id: '{run.run_id}', seq: 2}}) SET s.data = '{{}}'",
        )  # fmt: skip
        out = run_cli("audit", "verify", env=env)
        assert out.returncode == 1 and f"{run.run_id} step 2" in out.stdout


def test_incident_report_names_actor_release_and_chain_head(svc):
    """A run's incident report says who started it, the later release, and the audit chain head."""
    from blastshield_core.brief.report import render_markdown

    run = contained(svc, actor="ops-3")
    svc.actions.release_route("route-c11-alternate", "maintenance window", confirm=True, actor="lead-4")
    report = svc.reporter.report(run.run_id)
    seq, head = svc.audit.head()
    assert report.actor == "ops-3" and [r.actor for r in report.releases] == ["lead-4"]
    assert (report.audit_chain_head.seq, report.audit_chain_head.hash) == (seq, head)
    text = render_markdown(report)
    assert "started by: ops-3" in text and "maintenance window" in text and head in text


def test_a_lock_renewal_during_a_locked_write_neither_fails_nor_repeats_it(store):
    """A renewal between WATCH and EXEC aborts that transaction (nothing ran); the write is tried again, once."""
    connection = store._db.connection
    original = connection.pipeline
    watched = []
    with store.write_lock() as lock:

        def pipeline(*args, **kwargs):
            pipe = original(*args, **kwargs)
            watch = pipe.watch

            def renewing_watch(*names):
                result = watch(*names)
                if not watched:
                    lock._lock.extend(lock.ttl, replace_ttl=True)  # the renewal thread's call, at the worst moment
                watched.append(names)
                return result

            pipe.watch = renewing_watch
            return pipe

        connection.pipeline = pipeline
        try:
            rows = store.execute_locked_write(lock, "CREATE (:Probe {n: 1}) RETURN 1 AS one")
        finally:
            connection.pipeline = original
    assert rows == [{"one": 1}] and len(watched) == 2
    assert store.read_text("MATCH (p:Probe) RETURN count(p) AS n") == [{"n": 1}]


def test_runs_of_other_hosts_and_reused_pids_are_judged_correctly(svc):
    """A run owned on another host is never marked; one whose pid now belongs to a newer process is."""
    from datetime import UTC, datetime

    from blastshield_core.results import RunOwner, RunRecord

    def record(run_id: str, owner: RunOwner) -> None:
        svc.audit.create(RunRecord(run_id=run_id, alert_id=ALERT, decider="rules", max_actions=3,
                                   state=RunState.RUNNING, reason="", started_at=datetime.now(UTC), actor="x",
                                   owner=owner))  # fmt: skip

    record("run-20260101T000000-aaaaaa", RunOwner(pid=os.getpid(), host="another-host", started="0.000"))
    record("run-20260101T000000-bbbbbb", RunOwner(pid=os.getpid(), host=os.uname().nodename, started="1.000"))
    assert svc.audit.recover_interrupted() == ["run-20260101T000000-bbbbbb"]
    assert svc.audit.get("run-20260101T000000-aaaaaa").state is RunState.RUNNING
