"""The audit cannot be quietly shortened or rewritten, everything it shows is hashed, and nothing is shown
from outside the chain. Each attack is built as it was found: direct writes to the audit graph through
the database server's own socket (or port), never through BlastShield. Both backends (`store`)."""

from __future__ import annotations

import copy
import json
import stat

import pytest
import redis

from blastshield_core import build_services, seed
from blastshield_core.brief.report import render_markdown
from blastshield_core.graph.anchor import AnchorLog
from blastshield_core.graph.audit import AuditLog
from blastshield_core.graph.audit_chain import GENESIS_HASH, chain_hash, content
from blastshield_core.respond.decide import RulesDecider
from blastshield_core.results import RunState
from tests.conftest import run_cli

ALERT = "BH-CONTAINMENT-4001"


@pytest.fixture
def svc(store, tmp_path):
    """Services on a seeded graph of its own; on the loopback server the anchor log goes to
    `tmp_path` (there is no default beside a data directory there)."""
    if store.settings.falkordb_url:
        view = copy.copy(store)
        view.settings = store.settings.model_copy(update={"anchor_dir": tmp_path / "anchors"})
        store = view
    seed(store, actor="seeder")
    return build_services(store)


def raw(store) -> redis.Redis:
    """A client of our own on the database server: its unix socket (embedded) or its port."""
    if store.settings.falkordb_url:
        return redis.Redis.from_url(store.settings.falkordb_url)
    return redis.Redis(unix_socket_path=store._embedded.socket_file)


def tamper(store, cypher: str) -> None:
    client = raw(store)
    try:
        client.execute_command("GRAPH.QUERY", store.settings.audit_graph, cypher)
    finally:
        client.close()


def chain(store) -> list[tuple[str, dict]]:
    rows = store.read_text(
        "MATCH (n) WHERE n.chain_seq IS NOT NULL RETURN labels(n)[0] AS label, properties(n) AS props"
        " ORDER BY n.chain_seq",
        graph=store.settings.audit_graph,
    )
    return [(r["label"], r["props"]) for r in rows]


def chain_only(store) -> AuditLog:
    """The same audit verified by its chain alone (no anchor log): what the attack fooled before."""
    audit = AuditLog(store)
    audit.anchor = AnchorLog(None)
    return audit


def contained_and_released(svc):
    run = svc.controller.run(ALERT, RulesDecider(), confirm=True, actor="analyst-1")
    assert run.state is RunState.COMPLETED
    for route in ("route-c11-alternate", "route-c11-primary"):
        assert svc.actions.release_route(route, "maintenance", confirm=True, actor="lead-4").status.value == "ok"
    return run


def test_the_anchor_log_is_private_and_beside_the_data_directory(svc):
    contained_and_released(svc)
    path = svc.audit.anchor.path
    settings = svc.store.settings
    if not settings.falkordb_url:
        assert path.parent == settings.data_dir.absolute().parent / f"{settings.data_dir.name}-anchor"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    entries = svc.audit.anchor.entries()
    seq, head = svc.audit.head()
    assert [e.seq for e in entries] == list(range(1, seq + 1)) and entries[-1].hash == head
    result = svc.audit.verify()
    assert result.intact and result.anchor == "compared" and result.anchored_seq == seq


def test_truncation_is_detected(svc):
    """Delete the completed run's verdict, its update and the releases after it, put the run back as
    it was before, and move the head back: the chain alone still holds; compared with the anchor log
    it is truncated."""
    contained_and_released(svc)
    records = chain(svc.store)
    keep_seq = next(p["chain_seq"] for label, p in records if label == "Step" and p["kind"] == "verdict") - 1
    assert [label for label, _ in records[keep_seq:]] == ["Step", "RunUpdate", "Event", "Event", "Event", "Event"]
    keep = records[keep_seq - 1][1]
    tamper(svc.store, f"MATCH (n) WHERE n.chain_seq > {keep_seq} DETACH DELETE n")
    tamper(svc.store, f"MATCH (h:ChainHead) SET h.seq = {keep_seq}, h.hash = '{keep['hash']}'")
    before = [p for label, p in records[:keep_seq] if label == "RunUpdate"]
    created = next(json.loads(p["created"]) for label, p in records if label == "Run")
    shown = before[-1] if before else created  # the run as the chain last had it
    sets = ", ".join(f"r.{k} = {json.dumps(shown[k])}" for k in ("state", "reason", "finished_at", "remaining_paths"))
    tamper(svc.store, f"MATCH (r:Run) SET {sets}")
    tamper(svc.store, f"MATCH (r:Run) SET r.actions = '{shown['actions']}'")
    assert chain_only(svc.store).verify().intact  # what fooled the chain alone
    result = svc.audit.verify()
    assert not result.intact and result.broken.record == "ChainHead"
    assert f"the chain ends at record {keep_seq}" in result.broken.reason and "truncated" in result.broken.reason


def test_a_consistent_rewrite_is_detected_by_the_anchor_and_by_a_kept_head(svc):
    """Change every actor and recompute every hash (and every run link): the chain alone holds; the
    anchor log and a head kept from before (`--expect-head`) both catch it."""
    contained_and_released(svc)
    _, kept_head = svc.audit.head()
    prev, run_last = GENESIS_HASH, {}
    for label, props in chain(svc.store):
        if "actor" in props:
            props["actor"] = "mallory"
        if label == "Step":
            props["run_prev_hash"] = run_last[props["run_id"]]
        props["prev_hash"] = prev
        props["hash"] = chain_hash(prev, content(label, props))
        if label in ("Run", "Step"):
            run_last[props["run_id"]] = props["hash"]
        sets = ", ".join(f"n.{k} = '{props[k]}'" for k in ("prev_hash", "hash", "actor", "run_prev_hash") if k in props)
        tamper(svc.store, f"MATCH (n) WHERE n.chain_seq = {props['chain_seq']} SET {sets}")
        prev = props["hash"]
    tamper(svc.store, f"MATCH (h:ChainHead) SET h.hash = '{prev}'")
    assert chain_only(svc.store).verify().intact  # what fooled the chain alone
    result = svc.audit.verify()
    assert not result.intact and result.broken.chain_seq == 1 and "anchor log" in result.broken.reason
    kept = chain_only(svc.store).verify(expect_head=kept_head)
    assert not kept.intact and kept.broken.record == "ExpectedHead" and kept.broken.id == kept_head
    report = svc.reporter.report(svc.audit.list_runs()[0].run_id)
    assert report.audit_chain_head is None and "does not verify" in report.audit_chain_problem
    assert "NOT VERIFIED" in render_markdown(report)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("reason", "'a fresh query found no qualifying path; 1 verified action(s)'"),
        ("remaining_paths", "0"),
        ("actions", "'[]'"),
        ("finished_at", "'2020-01-01T00:00:00+00:00'"),
    ],
)
def test_every_field_a_run_shows_is_hashed(svc, field, value):
    """A stopped run edited to read as contained (reason, 0 remaining paths), or its actions or end
    time changed: verification fails naming the run and the field."""
    run = svc.controller.run(ALERT, RulesDecider(), max_actions=1, confirm=True)
    assert run.state is RunState.STOPPED and svc.audit.verify().intact
    tamper(svc.store, f"MATCH (r:Run {{run_id: '{run.run_id}'}}) SET r.{field} = {value}")
    result = svc.audit.verify()
    assert not result.intact and (result.broken.record, result.broken.id) == ("Run", run.run_id)
    assert f"its shown {field}" in result.broken.reason


def test_records_outside_the_chain_fail_verification_and_are_never_shown(svc):
    """A release event and a step with no chain position, written on a completed run: `audit verify`
    exits 1 naming both, and the run shows neither."""
    run = svc.controller.run(ALERT, RulesDecider(), confirm=True)
    shown_before = svc.audit.get(run.run_id)
    data = json.dumps({"status": "released", "reason": "approved"}).replace('"', '\\"')
    tamper(svc.store, f"CREATE (:Event {{event_id: 'evt-forged', kind: 'release', at: '2030-01-01T00:00:00+00:00',"
           f" actor: 'ciso@example.org', graph: '', run_id: '{run.run_id}', route_id: 'route-c11-primary',"
           f" summary: 'released', data: \"{data}\"}})")  # fmt: skip
    tamper(svc.store, f"MATCH (r:Run {{run_id: '{run.run_id}'}}) CREATE (r)-[:HAS_STEP]->(:Step {{run_id: "
           f"'{run.run_id}', seq: 99, kind: 'note', at: '2030-01-01T00:00:00+00:00', summary: 'forged',"
           " data: '{}', trace: '[]'})")  # fmt: skip
    shown = svc.audit.get(run.run_id)
    assert shown.releases == [] and [s.seq for s in shown.steps] == [s.seq for s in shown_before.steps]
    assert all(e.event_id != "evt-forged" for e in svc.audit.events())
    result = svc.audit.verify()
    assert not result.intact and result.unchained == 2
    assert sorted(result.unchained_records) == sorted(["Event evt-forged", f"Step {run.run_id} step 99"])
    assert "no chain position" in result.broken.reason


def test_a_record_appended_outside_blastshield_is_not_in_the_anchor_log(svc):
    """A well-formed record appended straight to the database (hash and head right) is caught: the
    anchor log never saw it."""
    svc.audit.add_event("import", "seeder", "imported", {})
    seq, head = svc.audit.head()
    props = {"event_id": "evt-appended", "kind": "release", "at": "2030-01-01T00:00:00+00:00", "actor": "mallory",
             "graph": "", "run_id": "", "route_id": "", "summary": "s", "data": "{}", "v": 2}  # fmt: skip
    record_hash = chain_hash(head, content("Event", props))
    values = ", ".join(f"{k}: {json.dumps(v)}" for k, v in props.items())
    tamper(svc.store, f"CREATE (:Event {{{values}, chain_seq: {seq + 1}, prev_hash: '{head}', hash: '{record_hash}'}})")
    tamper(svc.store, f"MATCH (h:ChainHead) SET h.seq = {seq + 1}, h.hash = '{record_hash}'")
    assert chain_only(svc.store).verify().intact
    result = svc.audit.verify()
    assert not result.intact and f"records {seq + 1}..{seq + 1} are not in the anchor log" in result.broken.reason


def test_a_chain_from_before_its_anchor_log_is_adopted_and_version_1_records_still_verify(svc):
    """Records hashed as version 1 (before the run's shown fields were hashed) keep verifying; a chain
    with no anchor log fails until the next record anchors it (an `adopted` line), then verifies."""
    audit = svc.audit
    seq, head = audit.head()
    run = {"run_id": "run-20200101T000000-abcdef", "alert_id": ALERT, "decider": "rules", "max_actions": 1,
           "started_at": "2020-01-01T00:00:00+00:00", "actor": "old", "owner_pid": 1, "owner_host": "h",
           "owner_started": "1.000"}  # fmt: skip
    record_hash = chain_hash(head, content("Run", run))
    values = ", ".join(f"{k}: {json.dumps(v)}" for k, v in run.items())
    tamper(svc.store, f"CREATE (:Run {{{values}, state: 'completed', reason: 'old', finished_at: '', remaining_paths: 0,"
           f" actions: '[]', chain_seq: {seq + 1}, prev_hash: '{head}', hash: '{record_hash}'}})")  # fmt: skip
    tamper(svc.store, f"MATCH (h:ChainHead) SET h.seq = {seq + 1}, h.hash = '{record_hash}'")
    audit.anchor.path.unlink()  # as before anchoring existed
    result = audit.verify()
    assert not result.intact and result.anchor == "missing" and "no anchor log" in result.broken.reason
    fresh = AuditLog(svc.store)
    fresh.add_event("import", "seeder", "imported", {})
    entries = fresh.anchor.entries()
    assert [(e.seq, e.adopted) for e in entries] == [(seq + 1, True), (seq + 2, False)]
    result = fresh.verify()
    assert result.intact and result.legacy_runs == 1 and result.anchored_seq == seq + 2


def test_cli_audit_verify_expect_head_and_the_report_carries_the_verified_head(svc):
    run = contained_and_released(svc)
    seq, head = svc.audit.head()
    report = svc.reporter.report(run.run_id)
    assert (report.audit_chain_head.seq, report.audit_chain_head.hash, report.audit_chain_head.anchored) == (
        seq, head, True)  # fmt: skip
    assert f"audit chain head (verified, anchored): record {seq}, `{head}`" in render_markdown(report)
    settings = svc.store.settings
    env = {"BLASTSHIELD_GRAPH": settings.graph, "BLASTSHIELD_AUDIT_GRAPH": settings.audit_graph}
    if settings.falkordb_url:
        env |= {"FALKORDB_URL": settings.falkordb_url, "BLASTSHIELD_ANCHOR_DIR": str(settings.anchor_dir)}
    else:
        env |= {"BLASTSHIELD_DATA_DIR": str(settings.data_dir)}
    out = run_cli("audit", "verify", "--expect-head", head, "--json", env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    answer = json.loads(out.stdout)
    assert answer["intact"] and answer["anchor"] == "compared" and answer["expected_head"] == head
    out = run_cli("audit", "verify", "--expect-head", "ab" * 32, env=env)
    assert out.returncode == 1 and "ExpectedHead" in out.stdout and "cut back or rewritten" in out.stdout
    out = run_cli("audit", "verify", "--expect-head", "not-a-hash", env=env)
    assert out.returncode == 2 and "64 lowercase hexadecimal" in out.stderr
