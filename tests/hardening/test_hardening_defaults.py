"""Safe defaults beyond the dashboard: redaction, private files, bounded queries and logs, the model URL."""

from __future__ import annotations

import os
import stat
import tomllib

import psutil
import pytest

from blastshield_core import SettingsError, Store, import_document, load_settings, parse_document
from blastshield_core.base.privatefile import write_private
from blastshield_core.base.urls import redact_url as _redact
from blastshield_core.graph.ingest import MAX_DOCUMENT_BYTES
from blastshield_core.graph.store import StoreUnavailable
from blastshield_core.interfaces.mcp_server import MAX_PROPOSALS, ProposalLog
from blastshield_core.results import Proposal
from tests.conftest import ROOT


@pytest.mark.parametrize(
    ("url", "shown"),
    [("redis://default:pa@ss@db.example:6379/0", "redis://default:***@db.example:6379/0"),
     ("redis://:s3cret@db.example", "redis://:***@db.example"),
     ("unix://:pw@/run/falkordb.sock?db=0&password=pw", "unix://:***@/run/falkordb.sock?db=0&password=***"),
     ("redis://db.example:6379", "redis://db.example:6379")],
)  # fmt: skip
def test_redaction_parses_the_url(url, shown):
    """The password is hidden even when it contains `@`; the host stays readable."""
    assert _redact(url) == shown


def test_unreachable_server_error_hides_a_password_with_at():
    """The error for an unreachable server names the host, never the password."""
    with pytest.raises(StoreUnavailable) as err:
        Store(load_settings(environ={}, falkordb_url="redis://default:pa@ss@127.0.0.1:1"))
    assert "pa@ss" not in str(err.value) and "ss@127" not in str(err.value)
    assert "default:***@127.0.0.1:1" in str(err.value)


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    """An embedded store started with a secret in the environment and a pre-existing 0755 data dir."""
    data = tmp_path_factory.mktemp("private") / "data"
    data.mkdir(mode=0o755)
    os.chmod(data, 0o755)
    saved = os.environ.get("GEMINI_API_KEY")
    os.environ["GEMINI_API_KEY"] = "test-key-must-not-leak"
    try:
        store = Store(load_settings(environ={}, data_dir=data))
    finally:
        if saved is None:
            del os.environ["GEMINI_API_KEY"]
        else:
            os.environ["GEMINI_API_KEY"] = saved
    yield store, data
    store.close()


def test_data_directory_and_files_are_private(embedded):
    """The data directory is 0700 and every file the database writes in it is readable by its owner only."""
    _store, data = embedded
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    files = [p for p in data.rglob("*") if p.is_file()]
    assert files, "the embedded database wrote no file"
    assert {p.name: stat.S_IMODE(p.stat().st_mode) & 0o077 for p in files} == {p.name: 0 for p in files}


def test_opening_makes_a_loose_data_directory_private_and_leaves_links_alone(tmp_path):
    """Files and directories of ours in the data directory become 0600 and 0700 (nested ones too),
    those already private are not touched, and a symbolic link (and what it points to) is left as it is."""
    from blastshield_core.base.ownership import make_private as _tighten

    data, outside = tmp_path / "data", tmp_path / "outside.txt"
    (data / "nested" / "deeper").mkdir(parents=True)
    outside.write_text("not ours to change")
    for path, mode in ((data, 0o755), (data / "nested", 0o775), (data / "nested" / "deeper", 0o755)):
        path.chmod(mode)
    loose, private = data / "nested" / "deeper" / "loose.aof", data / "private.rdb"
    loose.write_text("x")
    loose.chmod(0o644)
    private.write_text("y")
    private.chmod(0o600)
    outside.chmod(0o644)
    (data / "link").symlink_to(outside)
    before = private.stat().st_ctime_ns
    _tighten(data)
    modes = {p.relative_to(data).as_posix(): stat.S_IMODE(p.lstat().st_mode) for p in data.rglob("*")}
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert modes["nested"] == modes["nested/deeper"] == 0o700
    assert modes["nested/deeper/loose.aof"] == modes["private.rdb"] == 0o600
    assert stat.S_IMODE(outside.stat().st_mode) == 0o644  # the link was not followed
    assert private.stat().st_ctime_ns == before  # already private: no chmod


def test_embedded_server_gets_a_minimal_environment(embedded):
    """The embedded redis-server does not inherit GEMINI_API_KEY (or anything but PATH)."""
    store, _ = embedded
    server = psutil.Process(store._embedded.pid)
    assert "redis-server" in server.name()
    assert set(server.environ()) <= {"PATH"}


def test_write_private_is_0600_and_replaces_atomically(tmp_path):
    """The report file is 0600, replaces the old one whole, and leaves no temporary file."""
    out = tmp_path / "report.md"
    out.write_text("old")
    os.chmod(out, 0o644)
    write_private(out, "new report")
    assert out.read_text() == "new report"
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]


def test_write_private_refuses_a_symlink(tmp_path):
    """A symbolic link at the destination is refused; its target is untouched."""
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    link = tmp_path / "report.md"
    link.symlink_to(target)
    with pytest.raises(OSError, match="symbolic link"):
        write_private(link, "report")
    assert target.read_text() == "keep" and link.is_symlink()


def hub_document(fan: int) -> dict:
    """One identity with `fan` sessions, and `fan` identities sharing one session."""
    nodes = [{"id": "hub", "label": "Identity", "name": "hub", "properties": {}},
             {"id": "shared", "label": "Session", "name": "shared", "properties": {}}]  # fmt: skip
    edges = []
    for k in range(fan):
        nodes += [{"id": f"s{k}", "label": "Session", "name": f"s{k}", "properties": {}},
                  {"id": f"i{k}", "label": "Identity", "name": f"i{k}", "properties": {}}]  # fmt: skip
        edges += [{"source": "hub", "type": "HAS_SESSION", "target": f"s{k}", "properties": {}},
                  {"source": f"i{k}", "type": "HAS_SESSION", "target": "shared", "properties": {}}]  # fmt: skip
    return {"format": "blastshield-graph/v1", "name": "hub", "nodes": nodes, "edges": edges, "alerts": []}


def test_evidence_expansion_honours_its_limit(store):
    """A hub of 60 relationships returns at most `limit` rows from the expansion template."""
    import_document(store, parse_document(hub_document(60)))
    assert len(store.read("expand_frontier_any_status", {"frontier": ["hub"], "limit": 5})) == 5


def test_identities_reaching_is_bounded(store):
    """The identities reaching a session come back at most `limit`, the first by id."""
    import_document(store, parse_document(hub_document(60)))
    rows = store.read("identities_reaching", {"id": "shared", "limit": 5})
    assert [r["id"] for r in rows] == sorted(f"i{k}" for k in range(60))[:5]


@pytest.mark.parametrize("url", ["http://gemini.example", "http://10.0.0.8:8080", "http://127.0.0.1.evil.example"])
def test_plain_http_model_url_is_refused_beyond_loopback(url):
    """GEMINI_BASE_URL over http:// to another host is a settings error (the key would travel in clear)."""
    with pytest.raises(SettingsError, match="GEMINI_BASE_URL"):
        load_settings(environ={"GEMINI_BASE_URL": url})


@pytest.mark.parametrize("url", ["http://127.0.0.1:9000", "http://localhost:9000", "http://[::1]:9000",
                                 "https://generativelanguage.example"])  # fmt: skip
def test_loopback_http_and_https_model_urls_are_allowed(url):
    """Plain http to loopback (a local proxy or test server) and https anywhere are accepted."""
    assert load_settings(environ={"GEMINI_BASE_URL": url}).gemini_base_url == url


def test_upload_limit_matches_the_document_limit():
    """The dashboard accepts uploads exactly as large as the importer accepts documents."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] * 1024 * 1024 == MAX_DOCUMENT_BYTES


def test_proposal_log_is_bounded():
    """The MCP server's proposal log keeps the newest MAX_PROPOSALS proposals."""
    log = ProposalLog()
    for k in range(MAX_PROPOSALS + 5):
        log.add(Proposal(alert_id="A", candidate_id=f"c{k}", rationale="r"))
    items = log.items()
    assert len(items) == MAX_PROPOSALS and items[-1].candidate_id == f"c{MAX_PROPOSALS + 4}"
