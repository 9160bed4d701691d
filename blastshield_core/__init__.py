"""BlastShield core: graph store, read-only tools, scoring and import. No Streamlit here.

Public names are loaded when first used (module `__getattr__`), so a command that only
reads the graph does not pay for importing the MCP server, the model clients or the
import path.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "AccessPath": "results",
    "AlertsResult": "results",
    "AnalysisTools": "read.analysis",
    "BlastRadiusResult": "results",
    "Briefer": "brief.briefing",
    "Briefing": "brief.briefing",
    "BriefingClaims": "brief.checker",
    "CandidatesResult": "results",
    "ChokePointsResult": "results",
    "CollateralResult": "results",
    "DocumentError": "graph.model",
    "Evidence": "read.paths",
    "EvidenceSummary": "brief.checker",
    "EvidenceUnavailable": "brief.checker",
    "Flag": "brief.checker",
    "FlagKind": "brief.checker",
    "GraphDocument": "graph.model",
    "ImportReport": "graph.ingest",
    "InvestigationResult": "results",
    "Label": "graph.model",
    "MultiAlertResult": "results",
    "QueryFailed": "graph.store",
    "RULE_SET": "read.rules",
    "ReadTools": "read.tools",
    "RelType": "graph.model",
    "RouteStatusResult": "results",
    "Services": "interfaces.service",
    "Settings": "base.settings",
    "SettingsError": "base.settings",
    "ShortestPathResult": "results",
    "Status": "results",
    "Store": "graph.store",
    "StoreUnavailable": "graph.store",
    "TraceEntry": "results",
    "Tracer": "read.trace",
    "WhatIfResult": "results",
    "assess": "read.rules",
    "build_services": "interfaces.service",
    "export_document": "graph.export",
    "import_document": "graph.ingest",
    "load_document": "graph.ingest",
    "load_settings": "base.settings",
    "open_services": "interfaces.service",
    "parse_document": "graph.ingest",
    "seed": "graph.seeds",
    "seed_documents": "graph.seeds",
    "write_document": "graph.export",
}

__all__ = [
    "RULE_SET",
    "AccessPath",
    "AlertsResult",
    "AnalysisTools",
    "BlastRadiusResult",
    "Briefer",
    "Briefing",
    "BriefingClaims",
    "CandidatesResult",
    "ChokePointsResult",
    "CollateralResult",
    "DocumentError",
    "Evidence",
    "EvidenceSummary",
    "EvidenceUnavailable",
    "Flag",
    "FlagKind",
    "GraphDocument",
    "ImportReport",
    "InvestigationResult",
    "Label",
    "MultiAlertResult",
    "QueryFailed",
    "ReadTools",
    "RelType",
    "RouteStatusResult",
    "Services",
    "Settings",
    "SettingsError",
    "ShortestPathResult",
    "Status",
    "Store",
    "StoreUnavailable",
    "TraceEntry",
    "Tracer",
    "WhatIfResult",
    "assess",
    "build_services",
    "export_document",
    "import_document",
    "load_document",
    "load_settings",
    "open_services",
    "parse_document",
    "seed",
    "seed_documents",
    "write_document",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
