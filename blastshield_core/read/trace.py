"""The tool trace: every call, valid or not, with its outcome and duration."""

from __future__ import annotations

import threading
from collections import deque
from datetime import UTC, datetime
from typing import Any

from ..results import Status, TraceEntry

__all__ = ["Tracer", "summarise_input"]

MAX_VALUE_CHARS = 160


def summarise_input(raw: dict[str, Any]) -> dict[str, Any]:
    """A loggable copy of a tool input: long or odd values shortened, never dropped."""
    out: dict[str, Any] = {}
    for raw_key, value in list(raw.items())[:20]:
        key = str(raw_key)[:64]
        if (
            isinstance(value, bool | int | float)
            or value is None
            or (isinstance(value, str) and len(value) <= MAX_VALUE_CHARS)
        ):
            out[key] = value
        elif (
            isinstance(value, list | tuple)
            and len(value) <= 20
            and all(isinstance(v, str) and len(v) <= MAX_VALUE_CHARS for v in value)
        ):
            out[key] = list(value)
        else:
            text = repr(value)
            out[key] = text[:MAX_VALUE_CHARS] + (f"... ({len(text)} chars)" if len(text) > MAX_VALUE_CHARS else "")
    return out


class Tracer:
    """Keeps the most recent calls in memory; runs copy their slice into the audit."""

    def __init__(self, limit: int = 5000):
        self._entries: deque[tuple[int, TraceEntry]] = deque(maxlen=limit)
        self._count = 0
        self._lock = threading.Lock()

    def record(
        self, tool: str, raw_input: dict[str, Any], status: Status, count: int, duration_ms: float
    ) -> TraceEntry:
        entry = TraceEntry(
            tool=tool,
            input=summarise_input(raw_input),
            status=status,
            result_count=count,
            duration_ms=round(duration_ms, 3),
            at=datetime.now(UTC),
        )
        with self._lock:
            self._entries.append((self._count, entry))
            self._count += 1
        return entry

    def entries(self) -> list[TraceEntry]:
        with self._lock:
            return [entry for _, entry in self._entries]

    def mark(self) -> int:
        """A position to slice from later with `since`."""
        with self._lock:
            return self._count

    def since(self, mark: int) -> list[TraceEntry]:
        with self._lock:
            return [entry for seq, entry in self._entries if seq >= mark]
