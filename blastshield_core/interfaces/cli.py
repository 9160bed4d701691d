"""The command line: `python -m blastshield_core COMMAND ...`.

With `--json` every command prints its pydantic result as JSON. Exit codes:
0 an answer (paths found, no path, ok), 2 invalid input or usage, 3 unknown
alert/source/target/run, 4 query failure or database unreachable (2 when the data directory,
registry file or socket directory is not the current user's alone).
`check-briefing` exits 1 when the briefing is flagged; `audit verify` exits 1
when the audit's hash chain does not hold. `release` exits 2 for a route
BlastShield did not block and 3 for an unknown route.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base.settings import Settings, SettingsError, load_settings
from ..graph.model import DOCUMENT_NAME_PATTERN, DocumentError
from ..graph.store import QueryFailed, StoreRefused
from ..results import AccessPath, Status, ToolResult
from .cli_output import EXIT_CODES, EXIT_FAILED, EXIT_INVALID, EXIT_OK, EXIT_UNKNOWN, _emit, _fail, _lines
from .cli_parser import EXPORT_FORMATS, _HelpFormatter, _parse_args, _parser, _terminal_columns  # noqa: F401

# The parser's names other than `_parse_args` are re-exported as they were before the parser had
# its own module (`cli._parser()`, ...); `_parser` looks up `_HelpFormatter` in `cli_parser`.
# Everything else is imported by the command that uses it: a read command pays
# only for the store, the read tools and their results (see bench/cli.py). The
# handlers of the other commands are in `cli_commands`, imported by the command
# that uses one.
if TYPE_CHECKING:
    from ..brief.checker import BriefingClaims
    from ..sources.analyst_alert import AlertRequest
    from .service import Services

__all__ = ["EXIT_CODES", "READ_COMMANDS", "main"]

# Commands answered by the read tools alone: they open the store and nothing else
# (no action service, audit recovery, analysis or MCP stack), to start in a blink.
READ_COMMANDS = frozenset({"alerts", "investigate", "blast-radius", "path", "routes", "candidates"})


def _path_line(path: AccessPath) -> str:
    parts = [path.nodes[0].id]
    for rel, node in zip(path.relationships, path.nodes[1:], strict=True):
        parts.append(f"-[{rel.type}]-> {node.id}")
    return " ".join(parts)


def _paths_text(paths: list[AccessPath], truncated: bool, cap: int) -> list[str]:
    lines = [f"  {i + 1}. ({p.hops} hops) {_path_line(p)}" for i, p in enumerate(paths)]
    if truncated:
        lines.append(f"  ... truncated at {cap} paths; more exist")
    return lines


def _render(result: ToolResult) -> str:
    data = result.model_dump(mode="json")
    lines = [f"[{result.status}] {result.message}".rstrip()]
    if not result.status.is_answer:
        return _lines(lines)
    alert = data.get("alert")
    if alert:
        lines.append(
            f"alert {alert['id']}: {alert['title']} | entity {alert['entity_id']} ({alert['entity_label']})"
            f" | score {alert['risk_score']} {alert['severity']} ({alert['rule_set']})"
        )
        lines += [f"  +{f['points']:>2} {f['rule']}: {f['evidence']}" for f in alert["factors"]]
    if "paths" in data and hasattr(result, "paths"):
        lines += _paths_text(result.paths, data.get("truncated", False), data.get("path_cap", 0))
    for entity in data.get("entities", []):
        mark = " *on critical path*" if entity["on_critical_path"] else ""
        hops = entity.get("hops", entity.get("min_hops"))
        seen_from = f" | alerts {', '.join(entity['alerts'])}" if "alerts" in entity else ""
        lines.append(f"  {entity['label']:<9} {entity['id']:<28} hops {hops}{mark}{seen_from}")
    for route in data.get("routes", []):
        if route.get("graph_only") and route["status"] == "blocked":
            lines.append(
                f"  {route['route_id']:<28} blocked in the graph only {route['source']} -{route['type']}->"
                f" {route['target']} | the credentials still work on the account:"
                f" {route['paths_open_on_account']} path(s) open on the account"
            )
            continue
        lines.append(
            f"  {route['route_id']:<28} {route['status']:<8} {route['source']} -{route['type']}-> {route['target']}"
            f" | carries {route['paths_carried']} path(s)"
        )
    for cand in data.get("candidates", []):
        lines.append(f"  {cand['id']}: cuts {cand['paths_cut']} | {cand['reason']}")
        if cand.get("collateral"):
            lines.append(f"      collateral: {cand['collateral']['summary']}")
    for revoke in data.get("revocations", []):
        lines.append(f"  {revoke['id']}: cuts 0 | {revoke['reason']}")
    lines += _analysis_text(data)
    for alert_row in data.get("alerts", []):
        score = "-" if alert_row["risk_score"] is None else alert_row["risk_score"]
        on_account = alert_row.get("open_on_account")
        lines.append(
            f"  {alert_row['id']:<22} {alert_row['severity'] or alert_row['status']!s:<9} {score!s:>3}"
            f"  paths {alert_row['path_count'] if alert_row['path_count'] is not None else '-':<4}"
            f" entity {alert_row['entity_id']:<22} {alert_row['title']}"
            + (
                f" | OPEN ON THE ACCOUNT: {on_account} path(s), score {alert_row['account_risk_score']}"
                f" {alert_row['account_severity']} (blocked in the graph only or undone on the account)"
                if on_account is not None
                else ""
            )
        )
    return _lines(lines)


def _rel_text(rel: dict[str, Any]) -> str:
    route = f" [{rel['route_id']}]" if rel.get("route_id") else ""
    return f"{rel['source']} -{rel['type']}-> {rel['target']}{route}"


def _analysis_text(data: dict[str, Any]) -> list[str]:
    """Lines for the analysis results (choke points, what-if, collateral, multi-alert)."""
    lines: list[str] = []
    if "severable" in data and "routes_only" in data:
        chosen = data.get("relationships", data.get("choke_points", []))
        lines.append(f"minimum set ({len(chosen)}), severable {data['severable']}, exact {data['exact']}:")
        lines += [f"  cut {_rel_text(r)}  (paths {', '.join(str(i + 1) for i in r['paths_cut'])})" for r in chosen]
        if data["uncuttable_paths"]:
            lines.append(
                f"  no allowed relationship cuts paths {', '.join(str(i + 1) for i in data['uncuttable_paths'])}"
            )
    if data.get("ranking"):
        lines.append("relationships by paths carried:")
        lines += [f"  {r['paths_carried']:>3}  {_rel_text(r)}" for r in data["ranking"][:10]]
    for ident in data.get("identities", []):
        lost = ", ".join(f"{e['id']} ({e['label']})" for e in ident["lost"])
        lines.append(f"  {ident['identity_id']} loses {lost}")
    for rel in data.get("common_relationships", []):
        lines.append(f"  common {_rel_text(rel)}  alerts {', '.join(rel['alerts'])}")
    return lines


def _tool_result(services: Services, args: argparse.Namespace) -> ToolResult:
    tools = services.tools
    match args.command:
        case "alerts":
            result = tools.list_alerts(frozenset(services.account_open_blocks()))
            if result.status is Status.OK and not result.alerts:
                result.message = "no alerts in the graph (load the scenarios with `seed`, or `import` a document)"
            return result
        case "investigate":
            return tools.investigate_alert(args.alert_id, args.depth)
        case "blast-radius":
            return tools.get_blast_radius(args.alert_id)
        case "path":
            return tools.find_shortest_access_path(args.source, args.target, args.max_hops)
        case "routes":
            return tools.get_containment_route_statuses(args.alert_id, services.graph_only_blocks())
        case "candidates":
            return tools.get_response_candidates(args.alert_id)
        case "choke-points":
            return services.analysis.choke_points(args.alert_id, args.routes_only)
        case "what-if":
            return services.analysis.what_if(args.alert_id, args.block)
        case "collateral":
            return services.analysis.collateral(args.route_id)
        case "multi-alert":
            return services.analysis.multi_alert(args.alert_ids, args.routes_only)
    raise AssertionError(f"unhandled command {args.command}")  # pragma: no cover


def _serve_mcp(args: argparse.Namespace, settings: Settings) -> int:
    """Serve the MCP tools over stdio. They only read (select_response_candidate records its
    proposal in this process), so the server opens the read-only store, as read commands do."""
    import logging

    from ..read.analysis import AnalysisTools
    from ..respond.proposals import ProposalLog
    from .mcp_server import build_mcp_server
    from .mcp_stdio import serve_stdio

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    try:
        services = _ReadOnly(settings)
    except QueryFailed as exc:
        return _not_opened(args, exc)
    try:
        serve_stdio(build_mcp_server(services.tools, ProposalLog(), AnalysisTools(services.tools)))
    finally:
        services.close()
    return EXIT_OK


def _evidence_unavailable(exc: Exception) -> bool:
    """Whether `exc` is the briefing checker's `EvidenceUnavailable` (only commands that
    imported the checker can raise it, so a read command never imports it)."""
    checker = sys.modules.get(f"{__package__.rpartition('.')[0]}.brief.checker")
    return checker is not None and isinstance(exc, checker.EvidenceUnavailable)


class _ReadOnly:
    """What a read command needs of the services: the read tools over an open store."""

    def __init__(self, settings: Settings) -> None:
        from ..graph.store import Store
        from ..read.tools import ReadTools

        self.store = Store(settings, reads_only=True)
        self.tools = ReadTools(self.store)

    def graph_only_blocks(self) -> dict[str, str]:
        """The routes blocked in the graph only (`respond.graph_only`), read from the graph and the audit.
        Without a block made by BlastShield there is none, and the audit is not opened: a read command
        on a graph nobody contained loads nothing more than the read tools."""
        blocks = self.store.read("blastshield_blocks")
        if not blocks:
            return {}
        from ..graph.audit import AuditLog
        from ..respond.graph_only import graph_only_blocks

        return graph_only_blocks(blocks, AuditLog(self.store))

    def account_open_blocks(self) -> dict[str, str]:
        """Routes blocked in the graph that the account does not hold blocked (in the graph only, or
        undone there; `respond.graph_only.account_open_blocks`); the audit is opened only when
        BlastShield blocked a route."""
        blocks = self.store.read("blastshield_blocks")
        if not blocks:
            return {}
        from ..graph.audit import AuditLog
        from ..respond.graph_only import account_open_blocks

        return account_open_blocks(blocks, AuditLog(self.store))

    def close(self) -> None:
        self.store.close()


def _read_command(args: argparse.Namespace, settings: Settings) -> int:
    """A read command (`READ_COMMANDS`): store and read tools only, same output and exit codes."""
    try:
        services = _ReadOnly(settings)
    except QueryFailed as exc:
        return _not_opened(args, exc)
    from ..graph import prestart

    prestart.resume_collector()  # paused through the imports by `python -m blastshield_core`
    try:
        result = _tool_result(services, args)  # type: ignore[arg-type]
        _emit(result.model_dump(mode="json"), args.json, _render(result))
        return EXIT_CODES[result.status]
    except QueryFailed as exc:
        return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
    finally:
        services.close()
        global quick_exit  # noqa: PLW0603 - read by __main__ once main() returns
        quick_exit = True


# Set by a read command once its store is closed and its answer written: nothing is left
# for the interpreter's shutdown to do but free every loaded module, about 80 ms (a fifth
# of the command), which `python -m blastshield_core` then skips.
quick_exit = False


def _not_opened(args: argparse.Namespace, exc: QueryFailed) -> int:
    """The store did not open: exit 2 when a location was refused as untrusted, else 4."""
    if isinstance(exc, StoreRefused):
        return _fail(args.json, Status.INVALID_INPUT, f"{exc}; nothing was opened", EXIT_INVALID)
    return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)


def _alert_command(args: argparse.Namespace, settings: Settings, request: AlertRequest) -> int:
    """`alert open`: what it needs of the services, the store and the audit, and nothing else. On
    the embedded default the store opens as a read command's does and writes through redis-py on the
    server's socket (`Store(light_writes=True)`: no falkordblite client; the same lock, transactions
    and keys as every writer). As for every writing command, runs left
    `running` by a process that is gone become `interrupted` when the store opens."""
    from ..graph.audit import AuditLog
    from ..graph.store import Store
    from .cli_commands import _open_alert

    try:
        store = Store(settings, light_writes=True)
    except QueryFailed as exc:
        return _not_opened(args, exc)
    try:
        try:
            AuditLog(store).recover_interrupted()
        except QueryFailed as exc:
            return _not_opened(args, exc)
        from ..graph import prestart

        prestart.resume_collector()  # paused through the imports by `python -m blastshield_core`
        return _open_alert(store, args, request)
    except QueryFailed as exc:
        return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
    finally:
        store.close()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    if args.command == "generate":
        from .cli_commands import _generate

        return _generate(args)
    if args.command == "generate-aws":
        from .cli_commands import _generate_aws

        return _generate_aws(args)
    if args.command == "policy-eval":
        from .cli_policy import policy_eval

        return policy_eval(args)
    try:
        settings = load_settings(data_dir=args.data_dir, falkordb_url=args.falkordb_url)
    except SettingsError as exc:
        return _fail(args.json, Status.INVALID_INPUT, str(exc), EXIT_INVALID)
    if args.command in READ_COMMANDS:
        return _read_command(args, settings)
    if args.command in ("collect-aws", "contain", "release", "revoke-sessions", "verify-account"):
        from .aws.cli import aws_command  # the AWS commands' handlers, imported only by them

        handled = aws_command(args, settings)
        if handled is not None:
            return handled

    if args.command == "entities":
        from .cli_entities import _entities

        return _entities(args, settings)
    if args.command == "mcp":
        return _serve_mcp(args, settings)

    if args.command == "release" and not args.confirm:
        message = "release needs --confirm: the route's qualifying paths come back; nothing was done"
        return _fail(args.json, Status.INVALID_INPUT, message, EXIT_INVALID)
    if args.command == "contain" and not args.confirm:
        message = "contain needs --confirm: a run may block routes; nothing was done"
        return _fail(args.json, Status.INVALID_INPUT, message, EXIT_INVALID)
    proposed: str | BriefingClaims | None = None
    if args.command == "check-briefing":
        from ..brief.briefing import BriefingInputError, parse_briefing

        try:
            proposed = parse_briefing(Path(args.file).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            return _fail(args.json, Status.INVALID_INPUT, f"cannot read {args.file}: {exc}", EXIT_INVALID)
        except BriefingInputError as exc:
            return _fail(args.json, Status.INVALID_INPUT, str(exc), EXIT_INVALID)
    if args.command == "alert":
        from ..sources.analyst_alert import AlertInputError
        from .cli_commands import _alert_request

        try:
            alert_request = _alert_request(args)
        except AlertInputError as exc:
            return _fail(args.json, Status.INVALID_INPUT, f"{exc}; nothing written", EXIT_INVALID)
        return _alert_command(args, settings, alert_request)
    document = None
    if args.command == "import":
        from ..graph.ingest import load_document

        try:
            document = load_document(args.file)
        except DocumentError as exc:
            return _fail(args.json, Status.INVALID_INPUT, f"invalid document, nothing written: {exc}", EXIT_INVALID)

    from ..base.actor import local_actor
    from .service import open_services

    try:
        services = open_services(settings)
    except QueryFailed as exc:
        return _not_opened(args, exc)
    try:
        if args.command == "seed":
            from ..graph.seeds import seed

            report = seed(services.store, reset=args.reset, actor=local_actor())
            text = f"loaded: {', '.join(report.loaded) or '-'}; unchanged: {', '.join(report.unchanged) or '-'}"
            if args.reset:
                text += f"; reopened: {', '.join(report.reopened) or '-'} (by {report.actor})"
            _emit(report.to_dict(), args.json, text)
            return EXIT_OK
        if args.command == "import":
            assert document is not None
            from ..graph.ingest import import_document

            last = [-1]

            def progress(done: int, total: int) -> None:
                percent = 100 * done // total if total else 100
                if not args.json and total and (percent != last[0] or done == total):
                    last[0] = percent
                    bar = "#" * (percent // 5)
                    print(
                        f"\rimporting [{bar:<20}] {percent:3d}% {done}/{total} items",
                        end="",
                        file=sys.stderr,
                        flush=True,
                    )

            try:
                imported = import_document(
                    services.store, document, replace=args.replace, progress=progress, actor=local_actor()
                )
            except DocumentError as exc:
                if not args.json:
                    print(file=sys.stderr)
                return _fail(args.json, Status.INVALID_INPUT, f"invalid document, nothing written: {exc}", EXIT_INVALID)
            if not args.json:
                print(file=sys.stderr)
            verb = "replaced the graph with" if imported.replaced else "imported"
            text = (
                f"{verb} {imported.name}: {imported.nodes} nodes, {imported.edges} relationships,"
                f" {imported.alerts} alerts"
            )
            if imported.preserved_blocks:
                text += f"\nkept blocked (blocked by BlastShield): {', '.join(imported.preserved_blocks)}"
            if imported.blocks_gone:
                text += f"\nblocked routes no longer in the graph: {', '.join(imported.blocks_gone)}"
            if imported.audit_error:
                text += f"\nwarning: {imported.audit_error}"
            _emit(imported.to_dict(), args.json, text)
            return EXIT_OK
        if args.command == "export":
            if args.name is not None and not re.fullmatch(DOCUMENT_NAME_PATTERN, args.name):
                message = f"--name {args.name!r} is not a valid document name (letters, digits, _ . -)"
                return _fail(args.json, Status.INVALID_INPUT, message, EXIT_INVALID)
            from ..graph.export import export_document, write_document
            from ..graph.opengraph import write_opengraph

            doc = export_document(services.store, name=args.name)
            writer = write_opengraph if args.export_format == "opengraph" else write_document
            try:
                size = writer(doc, args.file)
            except OSError as exc:
                return _fail(args.json, Status.INVALID_INPUT, f"cannot write {args.file}: {exc}", EXIT_INVALID)
            payload = {
                "status": "ok",
                "file": args.file,
                "name": doc.name,
                "format": args.export_format,
                "nodes": len(doc.nodes),
                "edges": len(doc.edges),
                "alerts": len(doc.alerts),
                "bytes": size,
            }
            text = (
                f"exported {doc.name}: {len(doc.nodes)} nodes, {len(doc.edges)} relationships,"
                f" {len(doc.alerts)} alerts to {args.file}"
                + (" (BloodHound OpenGraph)" if args.export_format == "opengraph" else "")
            )
            _emit(payload, args.json, text)
            return EXIT_OK
        if args.command == "import-aws":
            from .cli_commands import _import_aws

            return _import_aws(services, args)
        if args.command == "contain":
            from .cli_commands import _contain

            return _contain(services, args)
        if args.command == "release":
            from .cli_commands import _release

            return _release(services, args)
        if args.command == "audit":
            from .cli_commands import _audit_verify

            return _audit_verify(services, args)
        if args.command == "runs":
            runs = services.audit.list_runs()
            payload = {"status": "ok", "runs": [r.model_dump(mode="json", exclude={"steps"}) for r in runs]}
            text = _lines(
                f"{r.run_id}  {r.state.value:<11} {r.alert_id:<22} {r.decider:<8} {r.actor or '-':<12}"
                f" actions {len(r.actions)}"
                f"  remaining {'-' if r.remaining_paths is None else r.remaining_paths}"
                for r in runs
            )
            _emit(payload, args.json, text or "no runs yet")
            return EXIT_OK
        if args.command == "run":
            from ..graph.audit import RUN_ID_PATTERN
            from .cli_commands import _run_text

            found = services.audit.get(args.run_id) if re.fullmatch(RUN_ID_PATTERN, args.run_id) else None
            if found is None:
                return _fail(args.json, Status.UNKNOWN_ALERT, f"no run with id {args.run_id!r}", EXIT_UNKNOWN)
            _emit({"status": "ok", **found.model_dump(mode="json")}, args.json, _run_text(found, with_steps=True))
            return EXIT_OK
        if args.command == "brief":
            from .cli_commands import _brief

            return _brief(services, args)
        if args.command == "check-briefing":
            assert proposed is not None
            from .cli_commands import _check_briefing

            return _check_briefing(services, args, proposed)
        if args.command == "report":
            from .cli_commands import _report

            return _report(services, args)
        result = _tool_result(services, args)
        _emit(result.model_dump(mode="json"), args.json, _render(result))
        return EXIT_CODES[result.status]
    except QueryFailed as exc:
        return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
    except Exception as exc:
        if not _evidence_unavailable(exc):
            raise
        return _fail(args.json, exc.status, exc.message, EXIT_CODES[exc.status])  # type: ignore[attr-defined]
    finally:
        services.close()
