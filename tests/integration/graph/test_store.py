"""The store: persistence, start-up serialisation, quick shutdown, and the one write door."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
import time

import pytest

from blastshield_core import QueryFailed, Store, StoreUnavailable, load_settings, seed
from blastshield_core.graph.store import decode_cell
from blastshield_core.read.tools import ReadTools
from tests.conftest import server_gone
from tests.helpers.paths import ROOT

WRITERS = {"ingest.py", "act.py"}


def test_embedded_graph_persists_across_restarts(tmp_path):
    """Data written before a close is there after reopening the same directory."""
    settings = load_settings(environ={}, data_dir=tmp_path)
    store = Store(settings)
    seed(store)
    pid = store.server_pid()
    store.close()
    assert server_gone(pid)
    store = Store(settings)
    try:
        assert ReadTools(store).investigate_alert("BH-1042").path_count == 1
    finally:
        store.close()


def test_embedded_data_lives_in_the_append_only_file_and_stopping_writes_no_snapshot(tmp_path):
    """The server loads the append-only file, not a snapshot, and stopping it writes none (SAVE would be unread work)."""
    settings = load_settings(environ={}, data_dir=tmp_path)
    store = Store(settings)
    seed(store)
    store.close()
    snapshot = tmp_path / "falkordb.rdb"
    snapshot.unlink(missing_ok=True)  # whatever a snapshot held, the data must come from elsewhere
    store = Store(settings)
    try:
        assert ReadTools(store).investigate_alert("BH-1042").path_count == 1
    finally:
        store.close()
    assert not snapshot.exists()
    reader = Store(settings, reads_only=True)  # a read command's store stops the server the same way
    try:
        assert ReadTools(reader).investigate_alert("BH-1042").path_count == 1
    finally:
        reader.close()
    assert not snapshot.exists()


def test_close_is_quick_and_stops_the_server(tmp_path):
    """Closing the last client stops the embedded server in well under a second."""
    store = Store(load_settings(environ={}, data_dir=tmp_path))
    pid = store.server_pid()
    started = time.perf_counter()
    store.close()
    elapsed = time.perf_counter() - started
    assert server_gone(pid)
    assert elapsed < 1.0, f"close took {elapsed:.2f}s"


def test_second_store_shares_the_server_and_keeps_it_alive(tmp_path):
    """Two stores on one directory share one server; closing one leaves the other working."""
    settings = load_settings(environ={}, data_dir=tmp_path)
    first, second = Store(settings), Store(settings)
    try:
        assert first.server_pid() == second.server_pid()
        first.close()
        assert not server_gone(second.server_pid())
        assert second.read("list_alerts") == []
    finally:
        first.close()
        second.close()


WRITER_SCRIPT = textwrap.dedent(
    """
    import sys
    from blastshield_core import Store, load_settings
    store = Store(load_settings(environ={}, data_dir=sys.argv[1]))
    store.execute_write("CREATE (:Entity:Identity {id: $id, name: $id})", {"id": sys.argv[2]})
    store.close()
    """
)


def test_simultaneous_starts_lose_no_write(tmp_path):
    """Processes starting on one embedded file at the same instant all keep their writes."""
    rounds, width = 3, 3
    for round_no in range(rounds):
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", WRITER_SCRIPT, str(tmp_path), f"w{round_no}-{i}"],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for i in range(width)
        ]
        for proc in procs:
            _, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err.decode()
    store = Store(load_settings(environ={}, data_dir=tmp_path))
    try:
        rows = store.read_text("MATCH (n:Identity) RETURN n.id AS id")
    finally:
        store.close()
    assert {r["id"] for r in rows} == {f"w{r}-{i}" for r in range(rounds) for i in range(width)}


def test_read_path_refuses_writes(seeded_store):
    """GRAPH.RO_QUERY refuses a write server-side, reported as a failed query."""
    with pytest.raises(QueryFailed, match="read-only"):
        seeded_store.read_text("MATCH (n:Identity) SET n.touched = true RETURN n")


def test_unreachable_server_is_a_clear_error():
    """A URL nobody answers gives StoreUnavailable naming the address, without the password."""
    with pytest.raises(StoreUnavailable) as err:
        Store(load_settings(environ={}, falkordb_url="redis://user:secret@127.0.0.1:1"))
    assert "127.0.0.1:1" in str(err.value) and "secret" not in str(err.value)


WRITE_METHODS = {
    "execute_write",
    "execute_locked_write",
    "rename_locked",
    "execute_audit_write",
    "query",
    "command",
    "execute_command",
}


def _write_calls() -> list[tuple[str, str]]:
    """(module, method) for every call that can write, in the product's code."""
    found = []
    files = [
        *sorted((ROOT / "blastshield_core").rglob("*.py")),
        ROOT / "app.py",
        *sorted((ROOT / "pages").glob("*.py")),
    ]
    for path in files:
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr in WRITE_METHODS:
                    found.append((path.name, node.func.attr))
    return found


def test_only_ingest_and_act_write():
    """No module but the import path (with its in-place path) and the action service writes the graph;
    the audit writes only its own."""
    calls = _write_calls()
    assert ("ingest.py", "execute_write") in calls
    assert ("act.py", "execute_locked_write") in calls
    assert ("ingest.py", "rename_locked") in calls
    assert ("inplace.py", "execute_locked_write") in calls
    allowed = {(m, method) for m in WRITERS for method in ("execute_write", "execute_locked_write", "rename_locked")}
    allowed |= {(m, "command") for m in WRITERS}
    allowed |= {("audit.py", "execute_audit_write")}
    # The import path's in-place write of small documents (an analyst's alert, one principal's slice
    # re-synced after an action), which must not copy the graph: one locked query, nothing else.
    allowed |= {("inplace.py", "execute_locked_write")}
    # The indexes of the import path's graphs, and those a graph made before an index was added
    # lacks when the product opens it: index templates only, no data.
    allowed |= {("indexes.py", "execute_write")}
    # the store and its read-only wire connection
    connection_layer = ("store.py", "embedded.py")
    offenders = [c for c in calls if c[0] not in connection_layer and c not in allowed]
    assert offenders == []


def test_audit_graph_is_never_the_scenario_graph():
    """Settings refuse an audit graph that is the scenario graph."""
    from blastshield_core import SettingsError

    with pytest.raises(SettingsError, match="audit"):
        load_settings(environ={"BLASTSHIELD_GRAPH": "g", "BLASTSHIELD_AUDIT_GRAPH": "g"})


def test_templates_have_no_write_outside_write_files():
    """Read templates contain no write clause."""
    text = (ROOT / "templates" / "read.cypher").read_text().upper()
    for clause in ("CREATE ", "MERGE ", "SET ", "DELETE ", "REMOVE "):
        body = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
        assert clause not in body


def test_read_tools_issue_no_write_command(seeded_store):
    """Running every read tool sends only GRAPH.RO_QUERY (the server's command counters say so)."""

    def graph_query_calls() -> int:
        stats = seeded_store.command("INFO", "commandstats")
        return int(stats.get("cmdstat_graph.QUERY", {}).get("calls", 0))

    tools = ReadTools(seeded_store)
    before = graph_query_calls()
    ro_before = int(seeded_store.command("INFO", "commandstats")["cmdstat_graph.RO_QUERY"]["calls"])
    tools.list_alerts()
    for alert_id in ("BH-1042", "BH-IAM-2001", "BH-WORKLOAD-3001", "BH-CONTAINMENT-4001"):
        tools.investigate_alert(alert_id)
        tools.investigate_alert(alert_id, 3)
        tools.get_blast_radius(alert_id)
        tools.get_containment_route_statuses(alert_id)
        tools.get_response_candidates(alert_id)
    tools.find_shortest_access_path("auditor_02", "staging-report", 6)
    assert graph_query_calls() == before
    assert int(seeded_store.command("INFO", "commandstats")["cmdstat_graph.RO_QUERY"]["calls"]) > ro_before + 20


def test_undecoded_records_decode_to_the_rows_read_returns(seeded_store):
    """`read_records` answers the same rows as `read`, cell by cell through `decode_cell`."""
    params = {"source_id": "analytics-poweruser", "sensitivities": ["high", "critical"], "include_blocked": False}
    params.update(exclude_routes=[], limit=101)
    names, records = seeded_store.read_records("paths_to_sensitive_d6", params)
    decoded = [dict(zip(names, [decode_cell(cell) for cell in record], strict=True)) for record in records]
    assert len(decoded) > 1 and decoded == seeded_store.read("paths_to_sensitive_d6", params)


def test_undecoded_records_of_a_missing_graph_are_empty(seeded_store):
    """A graph that does not exist yet answers no records, as `read` answers no rows."""
    assert seeded_store.read_records("alert_by_id", {"id": "BH-1042"}, graph="no_such_graph") == ([], [])


def test_written_text_round_trips(store):
    """Quotes, backslashes, newlines and non-ASCII survive the write path unchanged."""
    text = 'say "hi" \\ back\nslash\t☃ é'
    store.execute_write("CREATE (:Probe {t: $t})", {"t": text})
    assert store.read_text("MATCH (p:Probe) RETURN p.t AS t") == [{"t": text}]


def test_result_values_come_back_as_python_values(store):
    """Every value kind a template returns (null, text, integer, boolean, float, list, map,
    nested) is parsed from the compact reply into the same Python value."""
    props = {"text": 'q"uote \\ nl\n ☃', "int": -(2**53) - 1, "yes": True, "no": False, "float": 0.1}
    nested = {"none": None, "list": [1, "two", [3.5, None], {"k": "v"}], "empty": [], "map": {"in": {"deep": ["x"]}}}
    rows = store.execute_write(
        "CREATE (p:Probe) SET p = $props RETURN properties(p) AS props, p.text AS text, $nested AS nested",
        {"props": props, "nested": nested},
    )
    assert rows == [{"props": props, "text": props["text"], "nested": nested}]
    assert store.read_text("MATCH (p:Probe) RETURN p.yes AS yes, p.float AS f, p.int AS i, p.nope AS nope") == [
        {"yes": True, "f": 0.1, "i": -(2**53) - 1, "nope": None}
    ]
    assert store.read_text("MATCH (p:Probe) RETURN p.no AS no LIMIT 0") == []


def test_a_node_in_a_result_is_refused(store):
    """Templates return scalars, lists and maps; a node, edge or path is a failed query, not a guess."""
    store.execute_write("CREATE (:Probe {t: 1})-[:LINK]->(:Probe {t: 2})")
    for text in ("MATCH (p:Probe) RETURN p", "MATCH ()-[r]->() RETURN r", "MATCH p = ()-->() RETURN p"):
        with pytest.raises(QueryFailed, match="compact type"):
            store.read_text(text)


def test_a_run_time_error_is_a_failed_query(store):
    """An error raised while the query runs is QueryFailed, carrying the server's reason."""
    store.execute_write("CREATE (:Probe)")
    with pytest.raises(QueryFailed, match="Division by zero"):
        store.read_text("UNWIND [1, 0] AS d RETURN 1 / d AS x")


def test_reopening_waits_for_the_rebuilt_indexes(tmp_path):
    """A restarted embedded server rebuilds its indexes in the background; the store is returned
    only once they are built, so the first investigations use them instead of scanning."""
    from blastshield_core import import_document, parse_document
    from blastshield_core.graph.generate import GenerateOptions, generate

    settings = load_settings(environ={}, data_dir=tmp_path)
    store = Store(settings)
    try:
        import_document(store, parse_document(generate(GenerateOptions(edges=60_000, seed=2)).to_document()))
    finally:
        store.close()
    reopened = Store(settings)
    try:
        statuses = [row["status"] for row in reopened.read("index_status")]
        assert len(statuses) == 4 and set(statuses) == {"OPERATIONAL"}, statuses
    finally:
        reopened.close()


def test_graph_copy_waits_for_a_background_save(tmp_path):
    """An upsert during a background save (the server's other fork) waits for it instead of failing."""
    from blastshield_core.graph.ingest import import_document, parse_document

    store = Store(load_settings(environ={}, data_dir=tmp_path))
    server = store._db.connection
    try:
        seed(store)
        server.config_set("rdb-key-save-delay", 500_000)  # each key takes 0.5 s in the save's child
        server.bgsave()
        assert server.info("persistence")["rdb_bgsave_in_progress"]
        with pytest.raises(QueryFailed, match="could not fork"):
            store.command("GRAPH.COPY", store.settings.graph, "copy-during-save")
        doc = {"format": "blastshield-graph/v1", "name": "during-save",
               "nodes": [{"id": "during-save", "label": "Identity", "name": "during save"}]}  # fmt: skip
        import_document(store, parse_document(doc))
        assert store.read("entity_by_id", {"id": "during-save"})
    finally:
        server.config_set("rdb-key-save-delay", 0)
        store.close()
