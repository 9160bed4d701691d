"""The run's facts in tables: a table of runs, a run's fields, and a table of alerts with their run's state.

"| Run | Alert | Decider | Actions | State | Notes |", "| field | value |" with "| state | stopped |", and "| alert |
run state |" with "| ALERT | none yet |" stand for the sentences their cells say (`runfacts.py` reads them).
"""

from __future__ import annotations

import re

from .lexicon import number_value
from .runfacts import NUM, PLANNED, state_value

__all__ = ["run_table_row"]

# A table of runs ("| Run | Alert | Decider | Actions | State | Notes |") or of a run's fields ("| field | value |"):
# the columns the run reader knows, as the sentences they stand for.
_RUN_COLUMN = {
    "state": "state",
    "status": "state",
    "final state": "state",
    "final status": "state",
    "run state": "state",
    "run status": "state",
    "outcome": "state",
    "actions": "actions",
    "actions taken": "actions",
    "action count": "actions",
    "decider": "decider",
    "notes": "left",
    "note": "left",
    "open after": "left",
    "paths left": "left",
    "left": "left",
}
# A column of a table of alerts that holds the state of the alert's run.
_RUN_OF_ALERT = {"run state": "state", "run status": "state", "latest run": "state", "last run": "state"}
_LEFT_NOTE = re.compile(rf"^\W*{NUM}\s+(?:qualifying\s+)?(?:paths?\s+)?(?:open|left|remaining)(?:\s+after)?\W*$")


def _run_cell(column: str, value: str) -> str | None:
    low = " ".join(re.findall(r"[\w-]+", value.lower()))
    if column == "state" and re.fullmatch(r"(?:none|no\s+run|not\s+run|never\s+run)(?:\s+(?:yet|so\s+far))?", low):
        return "No containment run has been made yet."  # "| run state | none yet |": there is no run
    if column == "state":
        state = state_value(low) or ("graph_only" if PLANNED.search(low) or low == "graph_only" else None)
        return f"Status of the run: {state}." if state else None
    if column == "actions":
        n = 0 if low == "no" else number_value(low) if low else None
        return f"The run took {n} actions." if n is not None else None
    if column == "decider":
        return f"The run's decider was {low}." if re.fullmatch(r"[a-z][\w-]*", low) else None
    m = _LEFT_NOTE.match(low)
    n = None if m is None else 0 if m.group(1) == "no" else number_value(m.group(1))
    return f"The run left {n} paths open." if n is not None else None


def run_table_row(header: list[str], cells: list[str]) -> list[str] | None:
    """The sentences a row of a table of runs stands for (None when the table is not about the run): a header whose
    first column is the run, or a two-column row whose key is a field the run reader knows ("| state | stopped |")."""
    key = [" ".join(re.findall(r"[a-z]+", h.lower())) for h in header]
    if len(cells) == 2 and (column := _RUN_COLUMN.get(" ".join(re.findall(r"[a-z]+", cells[0].lower())))):
        if column == "left":
            return None
        sentence = _run_cell(column, cells[1])
        return [sentence] if sentence else None
    if not key or len(cells) < 2 or len(cells) != len(key):
        return None
    if key[0] not in ("run", "run id", "runs"):  # a table of alerts with a column of their run's state ("run state")
        runs = [(h, v) for h, v in zip(key[1:], cells[1:], strict=False) if h in _RUN_OF_ALERT]
        out = [s for h, v in runs if (s := _run_cell(_RUN_OF_ALERT[h], v))]
        return out if runs and len(out) == len(runs) and len(runs) == len(key) - 1 else None
    out = [
        s for h, v in zip(key[1:], cells[1:], strict=False) if h in _RUN_COLUMN and (s := _run_cell(_RUN_COLUMN[h], v))
    ]
    return out
