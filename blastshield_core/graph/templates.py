"""Named Cypher templates, loaded once from `templates/`.

A file holds several queries, each introduced by `// name:` and
`// description:` lines (the aiosql convention). Values reach a query only as
`$params`; the only text ever substituted is a label or relationship type from
the allowlists in `model`, and the depth of a path query picks one of six fixed
templates rather than being written into one.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import NamedTuple

from .model import Label, RelType

__all__ = ["TEMPLATE_DIR", "Template", "TemplateError", "load_templates", "path_template", "render", "template"]

TEMPLATE_DIR = Path(__file__).resolve().parents[2] / "templates"
MAX_DEPTH = 6

_NAME_RE = re.compile(r"^// name: ([a-z][a-z0-9_]*)\s*$")
_DESC_RE = re.compile(r"^// description: (.+)$")

# Every name the code uses; a missing one fails at start-up, not mid-investigation.
REQUIRED = frozenset(
    {f"paths_to_sensitive_d{d}" for d in range(1, MAX_DEPTH + 1)}
    | {f"paths_to_target_d{d}" for d in range(1, MAX_DEPTH + 1)}
    | {
        "entity_by_id",
        "entities_by_ids",
        "alert_by_id",
        "alert_evidence",
        "list_alerts",
        "alert_path_ends",
        "alert_path_ends_on_account",
        "queue_alerts",
        "expand_frontier",
        "expand_frontier_nodes",
        "expand_frontier_any_status",
        "identities_reaching",
        "export_nodes",
        "export_edges",
        "routes_by_ids",
        "routes_at_ends",
        "blocked_route",
        "route_ids_in_range",
        "graph_counts",
        "create_entity_index",
        "create_alert_index",
        "relationship_by_ends",
        "upsert_nodes",
        "upsert_edges",
        "upsert_alerts",
        "block_route_on_path",
        "release_route",
        "restore_blocks",
        "create_route_block_index_session",
        "create_route_block_index_access",
        "blastshield_blocks",
        "audit_event_index",
        "audit_chain_init",
        "audit_chain_head",
        "audit_end_running_run",
        "audit_add_event",
        "audit_running_runs",
        "audit_run_last",
        "audit_events_for_run",
        "audit_list_events",
        "audit_events_of_kind",
        "audit_chain_page",
        "audit_unchained",
        "audit_run_index",
        "audit_create_run",
        "audit_update_run",
        "audit_add_step",
        "audit_list_runs",
        "audit_get_run",
        "audit_get_steps",
        "index_status",
    }
    # re-sync of an imported AWS account (templates/sync.cypher)
    | {"snapshot_entities", "edges_from_entities", "delete_entities", "delete_alerts_of_entities", "delete_edges"}
    # small writes in place: an analyst's alert, one principal's slice (templates/inplace.cypher)
    | {"slice_sessions", "slice_edges", "inplace_delete_edges", "inplace_delete_alerts_of", "inplace_delete_entities"}
    | {"inplace_upsert_nodes", "inplace_upsert_edges", "inplace_upsert_alerts"}
)


class TemplateError(RuntimeError):
    """A template file is malformed or a required template is missing."""


class Template(NamedTuple):
    name: str
    description: str
    text: str
    source: str


def _parse(path: Path) -> list[Template]:
    templates: list[Template] = []
    name: str | None = None
    description = ""
    body: list[str] = []

    def flush() -> None:
        if name is None:
            return
        text = "\n".join(body).strip()
        if not text:
            raise TemplateError(f"{path.name}: template {name!r} has no query text")
        if not description:
            raise TemplateError(f"{path.name}: template {name!r} has no description")
        templates.append(Template(name, description, text, path.name))

    for line in path.read_text(encoding="utf-8").splitlines():
        match = _NAME_RE.match(line)
        if match:
            flush()
            name, description, body = match.group(1), "", []
            continue
        if name is None:
            continue
        desc = _DESC_RE.match(line)
        if desc and not body:
            description = desc.group(1).strip()
        elif line.startswith("//"):
            continue
        else:
            body.append(line)
    flush()
    return templates


@cache
def load_templates(directory: Path = TEMPLATE_DIR) -> dict[str, Template]:
    """Every template by name; raises TemplateError on duplicates or missing names."""
    found: dict[str, Template] = {}
    for path in sorted(directory.glob("*.cypher")):
        for tpl in _parse(path):
            if tpl.name in found:
                raise TemplateError(f"template {tpl.name!r} defined twice ({found[tpl.name].source}, {tpl.source})")
            found[tpl.name] = tpl
    missing = sorted(REQUIRED - found.keys())
    if missing:
        raise TemplateError(f"missing templates in {directory}: {', '.join(missing)}")
    return found


def template(name: str) -> Template:
    try:
        return load_templates()[name]
    except KeyError:
        raise TemplateError(f"no template named {name!r}") from None


def path_template(kind: str, depth: int) -> Template:
    """The fixed template for paths of 1..depth relationships (depth already validated)."""
    if kind not in ("sensitive", "target"):
        raise TemplateError(f"unknown path template kind {kind!r}")
    if type(depth) is not int or not 1 <= depth <= MAX_DEPTH:
        raise TemplateError(f"depth must be an int 1..{MAX_DEPTH}, got {depth!r}")
    return template(f"paths_to_{kind}_d{depth}")


def render(name: str, *, label: Label | None = None, rel_type: RelType | None = None) -> str:
    """Template text with `{label}` / `{type}` filled from the allowlists only."""
    text = template(name).text
    if label is not None:
        if not isinstance(label, Label):
            raise TemplateError(f"label {label!r} is not in the allowlist")
        text = text.replace("{label}", label.value)
    if rel_type is not None:
        if not isinstance(rel_type, RelType):
            raise TemplateError(f"relationship type {rel_type!r} is not in the allowlist")
        text = text.replace("{type}", rel_type.value)
    if "{label}" in text or "{type}" in text:
        raise TemplateError(f"template {name!r} needs a label or type from the allowlist")
    return text
