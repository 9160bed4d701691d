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
    "AnalysisTools": "analysis",
    "BlastRadiusResult": "results",
    "Briefer": "briefing",
    "Briefing": "briefing",
    "BriefingClaims": "checker",
    "CandidatesResult": "results",
    "ChokePointsResult": "results",
    "CollateralResult": "results",
    "DocumentError": "model",
    "Evidence": "read",
    "EvidenceSummary": "checker",
    "EvidenceUnavailable": "checker",
    "Flag": "checker",
    "FlagKind": "checker",
    "GraphDocument": "model",
    "ImportReport": "ingest",
    "InvestigationResult": "results",
    "Label": "model",
    "MultiAlertResult": "results",
    "QueryFailed": "store",
    "RULE_SET": "rules",
    "ReadTools": "read",
    "RelType": "model",
    "RouteStatusResult": "results",
    "Services": "service",
    "Settings": "settings",
    "SettingsError": "settings",
    "ShortestPathResult": "results",
    "Status": "results",
    "Store": "store",
    "StoreUnavailable": "store",
    "TraceEntry": "results",
    "Tracer": "trace",
    "WhatIfResult": "results",
    "assess": "rules",
    "build_services": "service",
    "export_document": "export",
    "import_document": "ingest",
    "load_document": "ingest",
    "load_settings": "settings",
    "open_services": "service",
    "parse_document": "ingest",
    "seed": "seeds",
    "seed_documents": "seeds",
    "write_document": "export",
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
