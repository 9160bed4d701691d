"""The built-in scenarios: graph documents in `seeds/`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .ingest import import_document, load_document
from .model import GraphDocument
from .store import Store

__all__ = ["SEED_DIR", "SeedReport", "merge_documents", "seed", "seed_documents"]

SEED_DIR = Path(__file__).resolve().parents[2] / "seeds"


@dataclass
class SeedReport:
    loaded: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    reset: bool = False
    reopened: list[str] = field(default_factory=list)  # blocked routes a reset made active again
    actor: str = ""
    event_id: str = ""  # the audit event of the load or reset

    def to_dict(self) -> dict[str, object]:
        return {
            "status": "ok",
            "loaded": self.loaded,
            "unchanged": self.unchanged,
            "reset": self.reset,
            "reopened": self.reopened,
            "actor": self.actor,
            "event_id": self.event_id,
        }


def seed_documents(directory: Path = SEED_DIR) -> list[GraphDocument]:
    """Every seed document, validated, in file-name order."""
    return [load_document(path) for path in sorted(directory.glob("*.json"))]


def merge_documents(name: str, docs: list[GraphDocument]) -> GraphDocument:
    return GraphDocument(
        format="blastshield-graph/v1",
        name=name,
        nodes=[n for d in docs for n in d.nodes],
        edges=[e for d in docs for e in d.edges],
        alerts=[a for d in docs for a in d.alerts],
    )


def _present(store: Store, doc: GraphDocument) -> bool:
    ids = sorted({n.id for n in doc.nodes})
    rows = store.read("entities_by_ids", {"ids": ids}) if ids else []
    if len(rows) != len(ids):
        return False
    return all(store.read("alert_by_id", {"id": a.id}) for a in doc.alerts)


def seed(store: Store, *, reset: bool = False, actor: str | None = None) -> SeedReport:
    """Load the scenarios. Without `reset`, scenarios already present are left as they are;
    with it, every scenario's nodes, relationships and alerts get their original
    properties back (routes unblocked): an audited admin action that records which
    blocked routes it reopened and who asked. Nothing outside the scenarios is touched."""
    report = SeedReport(reset=reset)
    todo = []
    for doc in seed_documents():
        if not reset and _present(store, doc):
            report.unchanged.append(doc.name)
        else:
            todo.append(doc)
    if todo:
        done = import_document(store, merge_documents("seed-scenarios", todo), actor=actor, reset_blocks=reset)
        report.loaded = [d.name for d in todo]
        report.reopened = done.reopened
        report.actor = done.actor
        report.event_id = done.event_id
    return report
