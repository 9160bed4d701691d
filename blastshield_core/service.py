"""One object holding what the dashboard and the CLI share: the store and the tools."""

from __future__ import annotations

from dataclasses import dataclass

from .read import ReadTools
from .seeds import SeedReport, seed
from .settings import Settings, load_settings
from .store import Store
from .trace import Tracer

__all__ = ["Services", "open_services"]


@dataclass
class Services:
    settings: Settings
    store: Store
    tools: ReadTools
    tracer: Tracer
    seeded: SeedReport | None = None

    def close(self) -> None:
        self.store.close()


def open_services(settings: Settings | None = None, *, seed_if_empty: bool = False) -> Services:
    """Open the store and build the tools. With `seed_if_empty`, a graph without
    alerts gets the built-in scenarios (the dashboard's first start)."""
    settings = settings or load_settings()
    store = Store(settings)
    tracer = Tracer()
    services = Services(settings=settings, store=store, tools=ReadTools(store, tracer), tracer=tracer)
    if seed_if_empty:
        try:
            if not store.read("list_alerts"):
                services.seeded = seed(store)
        except BaseException:
            store.close()
            raise
    return services
