"""The `entities` command (find entities by id, name or ARN) and the resolution of a typed entity
for `alert open`. Imported only by those commands: it opens the store and nothing else."""

from __future__ import annotations

import argparse
import sys

from ..base.settings import Settings
from ..graph.store import QueryFailed, Store
from ..read.entities import EntityMatch, resolve_entity, search_entities
from ..results import Status
from .cli_output import EXIT_CODES, EXIT_FAILED, _emit, _fail
from .terminal import one_line


def _match_line(m: EntityMatch) -> str:
    """One line per entity: an imported name, ARN or account holding a line break cannot add a line."""
    arn = f"  {one_line(m.arn)}" if m.arn and m.arn != m.id else ""
    account = f"  account {one_line(m.account)}" if m.account else ""
    return f"  {m.label:<9} {one_line(m.id):<40} {one_line(m.name)}{arn}{account}"


def _entities(args: argparse.Namespace, settings: Settings) -> int:
    """`entities QUERY [--label L] [--account A] [--limit N]`: matches best first; exit 0 with or
    without matches, 2 for invalid input, 4 when the graph cannot be read."""
    try:
        store = Store(settings, reads_only=True)
    except QueryFailed as exc:
        return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
    try:
        result = search_entities(store, args.query, label=args.label, account=args.account, limit=args.limit)
    finally:
        store.close()
    if result.status is not Status.OK:
        return _fail(args.json, result.status, result.message, EXIT_CODES[result.status])
    lines = [f"[{result.status}] {result.message}", *(_match_line(m) for m in result.matches)]
    _emit(result.model_dump(mode="json"), args.json, "\n".join(lines))
    return EXIT_CODES[result.status]


def _resolved(store: Store, args: argparse.Namespace) -> str | int:
    """The id of the one entity `args.entity_id` (an id, an ARN or a name) stands for, or the exit
    code after saying why not: 3 ambiguous or unknown (the closest matches listed), 2 invalid, 4 failed."""
    found = resolve_entity(store, args.entity_id)
    if found.status is Status.OK:
        assert found.entity is not None
        return found.entity.id
    if args.json:
        payload = found.model_dump(mode="json", exclude={"entity"})
        payload["message"] = f"{found.message}; nothing written"
        _emit(payload, True, "")
        return EXIT_CODES[found.status]
    code = _fail(False, found.status, f"{found.message}; nothing written", EXIT_CODES[found.status])
    for match in found.matches:
        print(_match_line(match), file=sys.stderr)
    return code
