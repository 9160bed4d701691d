"""The in-memory log of proposals made through `select_response_candidate` (nothing is written).

Its own module so that the services hold one without importing the MCP server stack."""

from __future__ import annotations

import threading
from collections import deque

from ..results import Proposal

__all__ = ["MAX_PROPOSALS", "ProposalLog"]

MAX_PROPOSALS = 1000


class ProposalLog:
    """Proposals recorded by `select_response_candidate` (kept in memory; nothing is written)."""

    def __init__(self, limit: int = MAX_PROPOSALS) -> None:
        # Bounded: a long-lived server (or a client calling in a loop) cannot grow it without end;
        # the newest proposals are kept.
        self._items: deque[Proposal] = deque(maxlen=limit)
        self._lock = threading.Lock()

    def add(self, proposal: Proposal) -> None:
        with self._lock:
            self._items.append(proposal)

    def items(self) -> list[Proposal]:
        with self._lock:
            return list(self._items)
