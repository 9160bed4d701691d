"""One object holding what the dashboard and the CLI share: store, tools, analysis, actions, audit.

This module is also the dashboard's facade: every other name a page uses (result states, errors,
roles, safe text, analyst alerts, imports, AWS, the queue, deciders, reports, the walkthrough's
records) is read from here and loaded on first use, so the pages depend on this module alone
(`tests/unit/test_layout.py`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..base.lazy import lazy_exports
from ..base.settings import Settings, load_settings
from ..graph.audit import AuditLog
from ..graph.indexes import add_missing_indexes
from ..graph.store import Store
from ..read.analysis import AnalysisTools
from ..read.tools import ReadTools
from ..read.trace import Tracer
from ..respond.act import ActionService
from ..respond.loop import ContainmentController, WaitingRuns
from ..respond.proposals import ProposalLog

if TYPE_CHECKING:  # imported where used: the MCP stack, briefings and reports cost a read command ~1 s to import
    from ..brief.briefing import Briefer
    from ..brief.report import Reporter
    from ..graph.seeds import SeedReport
    from ..read.queue import AlertQueue
    from ..respond.decide import Decider, GeminiDecider

__all__ = ["Services", "build_services", "open_services"]

# name -> module for the names the pages read from this facade, loaded on first use
_PAGE_NAMES = {
    "Status": "..results",
    "RunState": "..results",
    "SettingsError": "..base.settings",
    "QueryFailed": "..graph.store",
    "DocumentError": "..graph.model",
    "import_document": "..graph.ingest",
    "export_document": "..graph.export",
    "seed": "..graph.seeds",
    "ALLOW_UNAUTHENTICATED_ENV": "..base.access",
    "Access": "..base.access",
    "Exposure": "..base.access",
    "Permission": "..base.access",
    "Role": "..base.access",
    "RolesError": "..base.access",
    "decide_exposure": "..base.access",
    "load_roles": "..base.access",
    "local_access": "..base.access",
    "role_for": "..base.access",
    "local_actor": "..base.actor",
    "UntrustedLocation": "..base.ownership",
    "ensure_token": "..base.dashboard_token",
    "token_matches": "..base.dashboard_token",
    "token_path": "..base.dashboard_token",
    "md_code": "..base.safetext",
    "md_text": "..base.safetext",
    "safe_markdown": "..base.safetext",
    "is_valid_id": "..graph.model",
    "parse_bytes": "..graph.ingest",
    "MAX_DOCUMENT_BYTES": "..graph.ingest",
    "MAX_FILE_BYTES": "..sources.aws.build.get",
    "resolve_entity": "..read.entities",
    "top_principals": "..read.top_principals",
    "search_entities": "..read.entities",
    "QUEUE_SORTS": "..read.queue",
    "QueueQuery": "..read.queue",
    "RULES_PLAYBOOK": "..respond.decide",
    "AnalystDecider": "..respond.decide",
    "RunRefused": "..respond.loop",
    "EvidenceUnavailable": "..brief.checker",
    "render_markdown": "..brief.report",
    "AlertInputError": "..sources.analyst_alert",
    "UnknownEntity": "..sources.analyst_alert",
    "build_request": "..sources.analyst_alert",
    "open_alert": "..sources.analyst_alert",
    "AwsInputError": "..sources.aws",
    "import_aws": "..sources.aws",
    "AccountRefused": "..interfaces.aws.account",
    "CollectionJob": "..interfaces.aws.account",
    "account_calls": "..interfaces.aws.account",
    "account_plans": "..interfaces.aws.account",
    "account_releasable": "..interfaces.aws.account",
    "aws_profiles": "..interfaces.aws.account",
    "aws_regions": "..interfaces.aws.account",
    "release_on_account": "..interfaces.aws.account",
    "responder_for": "..interfaces.aws.account",
    "REVERIFY_BOUND_S": "..interfaces.aws.reverify",
    "reverify_account": "..interfaces.aws.reverify",
    "applied_on_account": "..interfaces.aws.reverify",
    "release_revocation": "..interfaces.aws.sessions",
    "revocation_plans": "..interfaces.aws.sessions",
    "revocations_in_force": "..interfaces.aws.sessions",
    "revoke_role_sessions": "..interfaces.aws.sessions",
    "NOT_APPLIED": "..results.account",
    "release_needs_acknowledgement": "..respond.aws.responder",
    "PageQuery": "..interfaces.walkthrough",
    "SeenLog": "..interfaces.walkthrough",
    "RunSeen": "..interfaces.walkthrough",
    "ChokePointsSeen": "..interfaces.walkthrough",
    "EvidenceSeen": "..interfaces.walkthrough",
    "WhatIfSeen": "..interfaces.walkthrough",
    "SAMPLE_BRIEFINGS": "..interfaces.walkthrough",
    "STEPS": "..interfaces.walkthrough",
    "check_sample_briefings": "..interfaces.walkthrough",
    "reset_demo": "..interfaces.walkthrough",
    "collect_profiles": "..interfaces.aws.account",
    "collection_step": "..interfaces.aws.account",
}


__getattr__, __dir__ = lazy_exports(globals(), _PAGE_NAMES)


@dataclass
class Services:
    settings: Settings
    store: Store
    tools: ReadTools
    tracer: Tracer
    actions: ActionService
    audit: AuditLog
    controller: ContainmentController
    analysis: AnalysisTools
    proposals: ProposalLog = field(default_factory=ProposalLog)
    seeded: SeedReport | None = None
    waiting: WaitingRuns = field(default_factory=WaitingRuns)  # analyst runs waiting in dashboard sessions
    interrupted: list[str] = field(default_factory=list)  # runs found orphaned when the store opened

    def mcp_server(self, tools: ReadTools | None = None):
        """A fresh in-process MCP server over the read tools (no write is listed)."""
        from .mcp_server import build_mcp_server

        return build_mcp_server(tools or self.tools, self.proposals, self.analysis)

    def gemini(self) -> GeminiDecider:
        from ..respond.decide import GeminiDecider

        return GeminiDecider(self.settings, self.mcp_server)

    @functools.cached_property
    def queue(self) -> AlertQueue:
        """The alert queue: summaries cached by graph version, sorted, filtered and paged in the core."""
        from ..read.queue import AlertQueue

        return AlertQueue(self.tools, lambda: frozenset(self.account_open_blocks()))

    def graph_only_blocks(self) -> dict[str, str]:
        """The routes blocked in the graph only (not applied on the account): route id -> run id."""
        from ..respond.graph_only import graph_only_blocks

        blocks = self.actions.blocked_routes()
        return graph_only_blocks(blocks, self.audit) if blocks else {}

    def account_open_blocks(self) -> dict[str, str]:
        """Routes blocked in the graph that the account does not hold blocked: route id -> "graph_only"
        or "undone" (`respond.graph_only.account_open_blocks`). No audit read without a block."""
        from ..respond.graph_only import account_open_blocks

        blocks = self.actions.blocked_routes()
        return account_open_blocks(blocks, self.audit) if blocks else {}

    def undone_on_account(self) -> list[dict[str, Any]]:
        """Account actions found undone on the account and not contained again or forgotten
        (`aws/verify.undone_standing`): route, run, alert, what changed, when it was seen."""
        from .aws.verify import undone_standing

        return undone_standing(self)

    @property
    def briefer(self) -> Briefer:
        """Briefings (model, checked, or the labelled fallback) and the briefing checker."""
        from ..brief.briefing import Briefer

        return Briefer(self.tools, self.audit, self.settings, self.account_open_blocks)

    @property
    def reporter(self) -> Reporter:
        """Incident reports (run or alert) as `IncidentReport`; `render_markdown` for the Markdown."""
        from ..brief.report import Reporter

        return Reporter(self.tools, self.briefer, self.graph_only_blocks)

    def decider(self, name: str, choices: list[str] | None = None) -> Decider:
        """The decider chosen by name; each is an explicit choice, never a substitute."""
        from ..respond.decide import AnalystDecider, RulesDecider

        if name == "gemini":
            return self.gemini()
        if name == "analyst":
            return AnalystDecider(choices)
        if name == "rules":
            return RulesDecider()
        raise ValueError(f"unknown decider {name!r} (gemini, analyst or rules)")

    def close(self) -> None:
        self.store.close()


def open_services(settings: Settings | None = None, *, seed_if_empty: bool = False) -> Services:
    """Open the store and build the services. A graph made before one of its indexes was
    added gets it (built before the services answer), and runs left `running` by a process
    that is gone become `interrupted`. With `seed_if_empty`, a graph without alerts gets the
    built-in scenarios (the dashboard's first start)."""
    settings = settings or load_settings()
    store = Store(settings)
    try:
        if add_missing_indexes(store):
            store.wait_for_indexes()
        services = build_services(store, settings)
        services.interrupted = services.audit.recover_interrupted()
        if seed_if_empty and not store.read("list_alerts"):
            from ..graph.seeds import seed

            services.seeded = seed(store)
    except BaseException:
        store.close()
        raise
    return services


def build_services(store: Store, settings: Settings | None = None) -> Services:
    """Services over an open store (`settings` may differ from the store's, e.g. for Gemini)."""
    settings = settings or store.settings
    tracer = Tracer()
    tools = ReadTools(store, tracer)
    actions = ActionService(store, tools)
    audit = AuditLog(store)
    return Services(
        settings=settings,
        store=store,
        tools=tools,
        tracer=tracer,
        actions=actions,
        audit=audit,
        controller=ContainmentController(tools, actions, audit),
        analysis=AnalysisTools(tools),
    )
