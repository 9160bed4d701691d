"""BlastShield core: graph store, read-only tools, scoring and import. No Streamlit here."""

from .analysis import AnalysisTools
from .briefing import Briefer, Briefing
from .checker import BriefingClaims, EvidenceSummary, EvidenceUnavailable, Flag, FlagKind
from .export import export_document, write_document
from .ingest import ImportReport, import_document, load_document, parse_document
from .model import DocumentError, GraphDocument, Label, RelType
from .read import Evidence, ReadTools
from .results import (
    AccessPath,
    AlertsResult,
    BlastRadiusResult,
    CandidatesResult,
    ChokePointsResult,
    CollateralResult,
    InvestigationResult,
    MultiAlertResult,
    RouteStatusResult,
    ShortestPathResult,
    Status,
    TraceEntry,
    WhatIfResult,
)
from .rules import RULE_SET, assess
from .seeds import seed, seed_documents
from .service import Services, build_services, open_services
from .settings import Settings, SettingsError, load_settings
from .store import QueryFailed, Store, StoreUnavailable
from .trace import Tracer

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
