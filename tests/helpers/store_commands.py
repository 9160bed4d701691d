"""What the stores of this test process send to the database, counted on the client side.

The server's own command statistics (INFO commandstats) are shared: other tests' imports and writes move them too,
so a test that counts its own commands there fails now and then. These wrap `Store`'s methods for one test."""

from __future__ import annotations

from blastshield_core.graph.store import Store

__all__ = ["counting_copies", "recording_commands"]


def counting_copies(monkeypatch) -> list[tuple]:
    """The GRAPH.COPY commands this process's stores send from now on (every copy goes through `Store.copy_graph`)."""
    sent: list[tuple] = []
    copy_graph = Store.copy_graph

    def counted(self, *args, **kwargs):
        sent.append(args)
        return copy_graph(self, *args, **kwargs)

    monkeypatch.setattr(Store, "copy_graph", counted)
    return sent


def recording_commands(monkeypatch) -> list[str]:
    """The graph commands (GRAPH.QUERY, GRAPH.RO_QUERY) this process's stores build from now on (every one is built
    by `Store._graph_command`)."""
    sent: list[str] = []
    build = Store._graph_command

    def recorded(self, command, *args, **kwargs):
        sent.append(command)
        return build(self, command, *args, **kwargs)

    monkeypatch.setattr(Store, "_graph_command", recorded)
    return sent
