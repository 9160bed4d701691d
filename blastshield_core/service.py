"""One object holding what the dashboard and the CLI share: store, tools, analysis, actions, audit."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .act import ActionService
from .analysis import AnalysisTools
from .audit import AuditLog
from .loop import ContainmentController, WaitingRuns
from .proposals import ProposalLog
from .read import ReadTools
from .settings import Settings, load_settings
from .store import Store
from .trace import Tracer

if TYPE_CHECKING:  # imported where used: the MCP stack, briefings and reports cost a read command ~1 s to import
    from .briefing import Briefer
    from .decide import Decider, GeminiDecider
    from .queue import AlertQueue
    from .report import Reporter
    from .seeds import SeedReport

__all__ = ["Services", "build_services", "open_services"]


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
        from .decide import GeminiDecider

        return GeminiDecider(self.settings, self.mcp_server)

    @functools.cached_property
    def queue(self) -> AlertQueue:
        """The alert queue: summaries cached by graph version, sorted, filtered and paged in the core."""
        from .queue import AlertQueue

        return AlertQueue(self.tools)

    @property
    def briefer(self) -> Briefer:
        """Briefings (model, checked, or the labelled fallback) and the briefing checker."""
        from .briefing import Briefer

        return Briefer(self.tools, self.audit, self.settings)

    @property
    def reporter(self) -> Reporter:
        """Incident reports (run or alert) as `IncidentReport`; `render_markdown` for the Markdown."""
        from .report import Reporter

        return Reporter(self.tools, self.briefer)

    def decider(self, name: str, choices: list[str] | None = None) -> Decider:
        """The decider chosen by name; each is an explicit choice, never a substitute."""
        from .decide import AnalystDecider, RulesDecider

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
    """Open the store and build the services. Runs left `running` by a process that is
    gone become `interrupted`. With `seed_if_empty`, a graph without alerts gets the
    built-in scenarios (the dashboard's first start)."""
    settings = settings or load_settings()
    store = Store(settings)
    try:
        services = build_services(store, settings)
        services.interrupted = services.audit.recover_interrupted()
        if seed_if_empty and not store.read("list_alerts"):
            from .seeds import seed

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
