"""The command line: `python -m blastshield_core COMMAND ...`.

With `--json` every command prints its pydantic result as JSON. Exit codes:
0 an answer (paths found, no path, ok), 2 invalid input or usage, 3 unknown
alert/source/target/run, 4 query failure or database unreachable.
`check-briefing` exits 1 when the briefing is flagged; `audit verify` exits 1
when the audit's hash chain does not hold. `release` exits 2 for a route
BlastShield did not block and 3 for an unknown route.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..base.settings import SettingsError, load_settings
from ..graph.model import ANALYST_ALERT_KIND, DOCUMENT_NAME_PATTERN, DocumentError
from ..graph.store import QueryFailed
from ..results import DECIDER_NAMES, DEFAULT_MAX_ACTIONS, AccessPath, RunState, Status, ToolResult

# Everything else is imported by the command that uses it: a read command pays
# only for the store, the read tools and their results (see bench/cli.py).
if TYPE_CHECKING:
    from ..brief.checker import BriefingClaims, Flag
    from ..results.runs import RunRecord
    from ..sources.analyst_alert import AlertRequest
    from .service import Services

__all__ = ["EXIT_CODES", "READ_COMMANDS", "main"]

EXIT_OK, EXIT_INVALID, EXIT_UNKNOWN, EXIT_FAILED = 0, 2, 3, 4
# Commands answered by the read tools alone: they open the store and nothing else
# (no action service, audit recovery, analysis or MCP stack), to start in a blink.
READ_COMMANDS = frozenset({"alerts", "investigate", "blast-radius", "path", "routes", "candidates"})
EXPORT_FORMATS = ("blastshield", "opengraph")
EXIT_CODES = {
    Status.PATHS_FOUND: EXIT_OK,
    Status.NO_PATH: EXIT_OK,
    Status.OK: EXIT_OK,
    Status.INVALID_INPUT: EXIT_INVALID,
    Status.UNKNOWN_ALERT: EXIT_UNKNOWN,
    Status.UNKNOWN_SOURCE: EXIT_UNKNOWN,
    Status.UNKNOWN_TARGET: EXIT_UNKNOWN,
    Status.UNKNOWN_ROUTE: EXIT_UNKNOWN,
    Status.QUERY_FAILED: EXIT_FAILED,
}


def _int_or_text(text: str) -> int | str:
    """Whole numbers become ints; anything else is passed on for the tool to refuse."""
    return int(text) if re.fullmatch(r"[+-]?\d{1,6}", text.strip()) else text


class _Skipped:
    """Stands in for the parser of a command other than the one being run (see `_Commands`)."""

    def add_argument(self, *args: Any, **kwargs: Any) -> None:
        return None

    def add_subparsers(self, **kwargs: Any) -> _Skipped:
        return self

    def add_parser(self, *args: Any, **kwargs: Any) -> _Skipped:
        return self


class _Commands:
    """The subcommand registry of `_parser`: with `only`, every other command's parser is
    skipped. Building all 27 of them (argparse looks up a translation for each help text)
    costs several ms of every command, and a command line names its command first."""

    def __init__(self, sub: Any, only: str | None) -> None:
        self.sub, self.only, self.found = sub, only, False

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        if self.only is not None and name != self.only:
            return _Skipped()
        self.found = True
        return self.sub.add_parser(name, formatter_class=_HelpFormatter, **kwargs)


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help formatter, taking the terminal's width as `shutil.get_terminal_size` finds
    it without importing shutil: argparse makes a formatter for every argument it adds, and
    importing shutil (and the compression modules it imports) was about 4 ms of every command."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        width = _terminal_columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


def _terminal_columns() -> int:
    """`shutil.get_terminal_size().columns`: `COLUMNS` when a positive number, else the width of
    the terminal on standard output, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """`_parser().parse_args(argv)`, building only the named command's parser when the first
    argument names one (the same namespace, help and errors: a test holds them equal)."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args and not args[0].startswith("-"):
        parser = _parser(only=args[0])
        if parser is not None:
            return parser.parse_args(args)
    full = _parser()
    assert full is not None  # without `only` every command is there
    return full.parse_args(args)


def _parser(only: str | None = None) -> argparse.ArgumentParser | None:
    """The command line's parser; with `only`, that command's alone (None for no such command)."""
    common = argparse.ArgumentParser(add_help=False, formatter_class=_HelpFormatter)
    common.add_argument("--json", action="store_true", help="print the result as JSON")
    common.add_argument("--data-dir", help="embedded database directory (BLASTSHIELD_DATA_DIR)")
    common.add_argument("--falkordb-url", help="use a FalkorDB server instead (FALKORDB_URL)")

    parser = argparse.ArgumentParser(
        formatter_class=_HelpFormatter,
        prog="python -m blastshield_core",
        description="BlastShield: access-path evidence for security alerts, from a FalkorDB graph.",
    )
    sub = _Commands(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"), only)

    p = sub.add_parser("seed", parents=[common], help="load the built-in scenarios")
    p.add_argument("--reset", action="store_true", help="restore every scenario to its original state")

    p = sub.add_parser("import", parents=[common], help="import a graph document (validated whole first)")
    p.add_argument("file")
    p.add_argument("--replace", action="store_true", help="swap the whole graph for the document, atomically")

    p = sub.add_parser("import-aws", parents=[common], help="import AWS CLI exports (files, folders, zips) of accounts")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--sensitivity", metavar="FILE", help="JSON object: ARN glob -> low|medium|high|critical")
    p.add_argument("--replace", action="store_true", help="swap the whole graph for the accounts, atomically")

    sub.add_parser("alerts", parents=[common], help="list alerts with computed scores")

    p = sub.add_parser("investigate", parents=[common], help="qualifying paths from an alert's entity")
    p.add_argument("alert_id")
    p.add_argument("--depth", type=_int_or_text, default=6, help="path length bound 1..6 (default 6)")

    p = sub.add_parser("blast-radius", parents=[common], help="what an alert's entity can reach")
    p.add_argument("alert_id")

    p = sub.add_parser("path", parents=[common], help="shortest qualifying paths between two entities")
    p.add_argument("source")
    p.add_argument("target")
    p.add_argument("--max-hops", type=_int_or_text, default=6, help="bound 1..6 (default 6)")

    p = sub.add_parser("routes", parents=[common], help="session routes an alert's paths use, with status")
    p.add_argument("alert_id")

    p = sub.add_parser("candidates", parents=[common], help="response candidates for an alert")
    p.add_argument("alert_id")

    p = sub.add_parser("choke-points", parents=[common], help="the minimum set of relationships severing every path")
    p.add_argument("alert_id")
    p.add_argument("--routes-only", action="store_true", help="only session routes (what a containment can block)")

    p = sub.add_parser("what-if", parents=[common], help="paths that would remain with routes blocked (no write)")
    p.add_argument("alert_id")
    p.add_argument("--block", action="append", required=True, metavar="ROUTE_ID", help="a route to treat as blocked")

    p = sub.add_parser("collateral", parents=[common], help="who else loses access if a route is blocked")
    p.add_argument("route_id")

    p = sub.add_parser("multi-alert", parents=[common], help="several alerts: shared reach and joint choke points")
    p.add_argument("alert_ids", nargs="+", metavar="ALERT_ID")
    p.add_argument("--routes-only", action="store_true", help="joint choke points among session routes only")

    p = sub.add_parser("export", parents=[common], help="write the current graph as a graph document")
    p.add_argument("file")
    p.add_argument("--name", help="document name (default: the graph's name)")
    p.add_argument(
        "--format",
        dest="export_format",
        choices=EXPORT_FORMATS,
        default=EXPORT_FORMATS[0],
        help="blastshield (blastshield-graph/v1, the default) or opengraph (BloodHound OpenGraph JSON)",
    )

    p = sub.add_parser("contain", parents=[common], help="run the containment loop (needs --confirm)")
    p.add_argument("alert_id")
    p.add_argument("--decider", required=True, choices=DECIDER_NAMES, help="who proposes each action")
    p.add_argument("--choose", action="append", default=[], metavar="CANDIDATE_ID", help="analyst choice, in order")
    p.add_argument("--max-actions", type=_int_or_text, default=DEFAULT_MAX_ACTIONS, help="action cap 1..10 (default 3)")
    p.add_argument("--confirm", action="store_true", help="confirm that the run may block routes")

    p = sub.add_parser("release", parents=[common], help="unblock a route BlastShield blocked (audited; --confirm)")
    p.add_argument("route_id")
    p.add_argument("--reason", required=True, help="why the route is released (recorded in the audit)")
    p.add_argument("--confirm", action="store_true", help="confirm that the route's paths may come back")

    p = sub.add_parser("audit", parents=[common], help="check the audit's hash chain")
    p.add_argument("audit_command", choices=("verify",), help="verify: recompute the chain")

    sub.add_parser("runs", parents=[common], help="list persisted containment runs")
    p = sub.add_parser("run", parents=[common], help="show one run with its steps")
    p.add_argument("run_id")

    p = sub.add_parser("brief", parents=[common], help="the briefing an analyst is shown (model, or labelled fallback)")
    p.add_argument("alert_id")
    p.add_argument("--run", dest="run_id", metavar="RUN_ID", help="brief on a containment run of this alert")

    p = sub.add_parser("check-briefing", parents=[common], help="check a text or JSON briefing against the graph")
    p.add_argument("alert_id")
    p.add_argument("file", help="a text briefing, or JSON claims (BriefingClaims)")

    p = sub.add_parser("report", parents=[common], help="incident report for a run or an alert")
    p.add_argument("target", metavar="RUN_ID|ALERT_ID")
    p.add_argument("--format", choices=("md", "json"), default="md", help="Markdown (default) or JSON")
    p.add_argument("--out", metavar="FILE", help="write the report to FILE instead of printing it")

    sub.add_parser("mcp", parents=[common], help="serve the read-only tools over MCP (stdio)")

    p = sub.add_parser("alert", help="analyst alerts: open one on any entity")
    alert_sub = p.add_subparsers(dest="alert_action", required=True, metavar="ACTION")
    p = alert_sub.add_parser("open", parents=[common], help="open an alert on an entity (investigate this entity)")
    p.add_argument("entity_id", metavar="ENTITY_ID")
    p.add_argument("--title", required=True, help="the alert's title")
    p.add_argument("--kind", help=f"a lowercase word (default {ANALYST_ALERT_KIND})")
    p.add_argument("--signal", action="append", default=[], metavar="KEY=VALUE", help="a signal (repeatable)")

    p = sub.add_parser("generate", parents=[common], help="write a synthetic graph document (no database needed)")
    p.add_argument("--edges", type=int, required=True, help="about this many relationships (100..5000000)")
    p.add_argument("--seed", type=int, default=0, help="random seed: the same seed gives the same bytes")
    p.add_argument("--dense", action="store_true", help="hub roles assume dozens of roles (path explosion)")
    p.add_argument("--name", help="document name (default generated-N-sSEED[-dense])")
    p.add_argument("--out", required=True, help="file to write")

    p = sub.add_parser(
        "generate-aws", parents=[common], help="write a synthetic AWS account as AWS CLI output (no database needed)"
    )
    p.add_argument("--users", type=int, default=100, help="IAM users (default 100)")
    p.add_argument("--roles", type=int, default=50, help="IAM roles (default 50)")
    p.add_argument("--policies", type=int, default=100, help="customer managed policies (default 100)")
    p.add_argument("--buckets", type=int, default=50, help="S3 buckets (default 50)")
    p.add_argument("--groups", type=int, help="IAM groups (default users/100)")
    p.add_argument("--instances", type=int, help="EC2 instances (default roles/10)")
    p.add_argument("--functions", type=int, help="Lambda functions (default roles/10)")
    p.add_argument("--findings", type=int, default=10, help="GuardDuty findings (default 10)")
    p.add_argument("--account-id", default="111122223333", help="the 12-digit account id")
    p.add_argument("--seed", type=int, default=0, help="random seed: the same seed gives the same files")
    p.add_argument("--messy", action="store_true", help="add what real exports have: encoded documents, dangling names")
    p.add_argument("--out", required=True, help="folder to write the collection into")
    return parser if sub.found else None


def _emit(payload: dict[str, Any], as_json: bool, text: str) -> None:
    if as_json:
        print(json.dumps(payload, indent=2, default=str))
    else:
        print(text)


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
        return lines[0]
    alert = data.get("alert")
    if alert:
        lines.append(
            f"alert {alert['id']}: {alert['title']} | entity {alert['entity_id']} ({alert['entity_label']})"
            f" | score {alert['risk_score']} {alert['severity']} ({alert['rule_set']})"
        )
        lines += [f"  +{f['points']:>2} {f['rule']}: {f['evidence']}" for f in alert["factors"]]
    if "paths" in data and hasattr(result, "paths"):
        lines += _paths_text(result.paths, data.get("truncated", False), data.get("path_cap", 0))  # type: ignore[attr-defined]
    for entity in data.get("entities", []):
        mark = " *on critical path*" if entity["on_critical_path"] else ""
        hops = entity.get("hops", entity.get("min_hops"))
        seen_from = f" | alerts {', '.join(entity['alerts'])}" if "alerts" in entity else ""
        lines.append(f"  {entity['label']:<9} {entity['id']:<28} hops {hops}{mark}{seen_from}")
    for route in data.get("routes", []):
        lines.append(
            f"  {route['route_id']:<28} {route['status']:<8} {route['source']} -{route['type']}-> {route['target']}"
            f" | carries {route['paths_carried']} path(s)"
        )
    for cand in data.get("candidates", []):
        lines.append(f"  {cand['id']}: cuts {cand['paths_cut']} | {cand['reason']}")
        if cand.get("collateral"):
            lines.append(f"      collateral: {cand['collateral']['summary']}")
    lines += _analysis_text(data)
    for alert_row in data.get("alerts", []):
        score = "-" if alert_row["risk_score"] is None else alert_row["risk_score"]
        lines.append(
            f"  {alert_row['id']:<22} {alert_row['severity'] or alert_row['status']!s:<9} {score!s:>3}"
            f"  paths {alert_row['path_count'] if alert_row['path_count'] is not None else '-':<4}"
            f" entity {alert_row['entity_id']:<22} {alert_row['title']}"
        )
    return "\n".join(lines)


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
            result = tools.list_alerts()
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
            return tools.get_containment_route_statuses(args.alert_id)
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


def _fail(as_json: bool, status: Status, message: str, code: int) -> int:
    if as_json:
        print(json.dumps({"status": status.value, "message": message}, indent=2))
    else:
        print(f"error: {message}", file=sys.stderr)
    return code


def _run_text(run: RunRecord, with_steps: bool) -> str:
    lines = [
        f"{run.run_id}  {run.state.value.upper()}  alert {run.alert_id}  decider {run.decider}  cap {run.max_actions}",
        f"actor: {run.actor or '-'}",
        f"reason: {run.reason}",
        f"remaining qualifying paths: {'-' if run.remaining_paths is None else run.remaining_paths}",
    ]
    lines += [
        f"  action {a.step}: {a.candidate_id} -> {a.status}, verified {a.verified}"
        f" ({a.paths_before} -> {a.paths_after} paths)"
        for a in run.actions
    ]
    if with_steps:
        lines += [f"  {s.seq:>2}. [{s.kind}] {s.summary}" for s in run.steps]
    lines += [
        f"  released later: {r.route_id} by {r.actor} at {r.at.isoformat(timespec='seconds')}: {r.reason}"
        for r in run.releases
    ]
    return "\n".join(lines)


def _contain(services: Services, args: argparse.Namespace) -> int:
    from ..base.actor import local_actor
    from ..respond.loop import RunRefused

    if args.decider == "analyst" and not args.choose:
        return _fail(args.json, Status.INVALID_INPUT, "--decider analyst needs --choose CANDIDATE_ID", EXIT_INVALID)
    if args.choose and args.decider != "analyst":
        return _fail(args.json, Status.INVALID_INPUT, "--choose is only for --decider analyst", EXIT_INVALID)

    def progress(run: RunRecord, step) -> None:
        if not args.json:
            print(f"  {step.seq:>2}. [{step.kind}] {step.summary}", file=sys.stderr, flush=True)

    decider = services.decider(args.decider, args.choose)
    try:
        run = services.controller.run(
            args.alert_id, decider, args.max_actions, args.confirm, on_step=progress, actor=local_actor()
        )
    except RunRefused as exc:
        return _fail(args.json, Status.INVALID_INPUT, str(exc), EXIT_INVALID)
    _emit(run.model_dump(mode="json"), args.json, _run_text(run, with_steps=False))
    return EXIT_OK if run.state is RunState.COMPLETED else 1


def _brief(services: Services, args: argparse.Namespace) -> int:
    briefing = services.briefer.brief(args.alert_id, args.run_id)
    text = f"[{briefing.label}] " + (briefing.reason or f"model {briefing.model}") + "\n\n" + briefing.markdown
    if briefing.flags:
        text += "\nflags on the model's briefing:\n" + _flags_text(briefing.flags)
    _emit({"status": "ok", **briefing.model_dump(mode="json")}, args.json, text.rstrip())
    return EXIT_OK


def _flags_text(flags: list[Flag]) -> str:
    return "\n".join(f"  {f.kind.value}: {f.offending_text!r} — {f.evidence}" for f in flags)


def _check_briefing(services: Services, args: argparse.Namespace, proposed: str | BriefingClaims) -> int:
    from ..brief.checker import BriefingClaims

    flags = services.briefer.check(args.alert_id, proposed)
    payload = {
        "status": "ok",
        "alert_id": args.alert_id,
        "input": "claims" if isinstance(proposed, BriefingClaims) else "text",
        "clean": not flags,
        "flags": [f.model_dump(mode="json") for f in flags],
    }
    text = (
        "clean: nothing contradicts the graph evidence"
        if not flags
        else f"{len(flags)} flag(s):\n" + _flags_text(flags)
    )
    _emit(payload, args.json, text)
    return EXIT_OK if not flags else 1


def _report(services: Services, args: argparse.Namespace) -> int:
    from ..base.privatefile import write_private
    from ..brief.report import render_markdown

    report = services.reporter.report(args.target)
    as_json = args.json or args.format == "json"
    body = report.model_dump_json(indent=2) if as_json else render_markdown(report)
    if args.out:
        try:
            write_private(args.out, body)  # 0600, atomic, never through a symbolic link
        except OSError as exc:
            return _fail(args.json, Status.INVALID_INPUT, f"cannot write {args.out}: {exc}", EXIT_INVALID)
        message = f"wrote the {report.kind} report ({'json' if as_json else 'md'}) to {args.out}"
        _emit({"status": "ok", "out": args.out, "kind": report.kind}, args.json, message)
    else:
        print(body.rstrip())
    return EXIT_OK


def _release(services: Services, args: argparse.Namespace) -> int:
    from ..base.actor import local_actor

    result = services.actions.release_route(args.route_id, args.reason, confirm=args.confirm, actor=local_actor())
    if result.status is not Status.OK:
        return _fail(args.json, result.status, result.message, EXIT_CODES[result.status])
    lines = [f"[released] {result.message}", f"blocked by {result.blocked_by_run}; released by {result.actor}"]
    lines += [f"  {a.alert_id}: {a.paths_before} -> {a.paths_after} qualifying path(s)" for a in result.alerts_reopened]
    _emit(result.model_dump(mode="json"), args.json, "\n".join(lines))
    return EXIT_OK


def _audit_verify(services: Services, args: argparse.Namespace) -> int:
    result = services.audit.verify()
    payload = {"status": "ok", **result.model_dump(mode="json")}
    if result.intact:
        text = f"intact: {result.records} record(s); chain head {result.head_seq} {result.head_hash}"
        if result.unchained:
            text += f"\n{result.unchained} record(s) predate the chain and are not covered"
    else:
        assert result.broken is not None
        b = result.broken
        text = f"BROKEN at record {b.chain_seq} ({b.record} {b.id}): {b.reason}"
    _emit(payload, args.json, text)
    return EXIT_OK if result.intact else 1


def _serve_mcp(args: argparse.Namespace, settings: Any) -> int:
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
        return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
    try:
        serve_stdio(build_mcp_server(services.tools, ProposalLog(), AnalysisTools(services.tools)))
    finally:
        services.close()
    return EXIT_OK


def _generate(args: argparse.Namespace) -> int:
    from ..graph.generate import GenerateOptions, write_generated
    from ..read.tools import describe_input_error

    try:
        options = GenerateOptions(edges=args.edges, seed=args.seed, dense=args.dense, name=args.name)
    except ValidationError as exc:
        return _fail(args.json, Status.INVALID_INPUT, describe_input_error(exc), EXIT_INVALID)
    try:
        graph = write_generated(options, args.out)
    except OSError as exc:
        return _fail(args.json, Status.INVALID_INPUT, f"cannot write {args.out}: {exc.strerror or exc}", EXIT_INVALID)
    report = {
        "status": "ok",
        "out": str(args.out),
        "name": options.document_name,
        "nodes": len(graph.nodes),
        "edges": len(graph.edges),
        "alerts": len(graph.alerts),
        "hubs": len(graph.hubs),
    }
    text = (
        f"wrote {args.out}: {report['nodes']} nodes, {report['edges']} relationships, {report['alerts']} alerts"
        f" ({report['hubs']} hub roles{', dense' if options.dense else ''})"
    )
    _emit(report, args.json, text)
    return EXIT_OK


def _alert_request(args: argparse.Namespace) -> AlertRequest:
    """The validated `alert open` request (AlertInputError for bad input)."""
    from ..sources.analyst_alert import build_request, parse_signals

    return build_request(args.entity_id, args.title, args.kind, parse_signals(args.signal))


def _open_alert(services: Services, args: argparse.Namespace, request: AlertRequest) -> int:
    from ..base.actor import local_actor
    from ..sources.analyst_alert import AlertInputError, UnknownEntity, open_alert

    try:
        opened = open_alert(services.store, request, actor=local_actor())
    except UnknownEntity as exc:
        return _fail(args.json, Status.UNKNOWN_SOURCE, str(exc), EXIT_UNKNOWN)
    except (AlertInputError, DocumentError) as exc:
        return _fail(args.json, Status.INVALID_INPUT, f"{exc}; nothing written", EXIT_INVALID)
    text = (
        f"{opened.alert_id}\nopened alert {opened.alert_id} ({opened.kind}) on {opened.entity_id}"
        f" ({opened.entity_label}): {opened.title}"
    )
    _emit(opened.model_dump(mode="json"), args.json, text)
    return EXIT_OK


def _generate_aws(args: argparse.Namespace) -> int:
    from ..read.tools import describe_input_error
    from ..sources.aws.generate import AwsGenerateOptions, write_aws_collection

    try:
        options = AwsGenerateOptions(
            users=args.users,
            roles=args.roles,
            policies=args.policies,
            buckets=args.buckets,
            groups=args.groups,
            instances=args.instances,
            functions=args.functions,
            findings=args.findings,
            account_id=args.account_id,
            seed=args.seed,
            messy=args.messy,
        )
    except ValidationError as exc:
        return _fail(args.json, Status.INVALID_INPUT, describe_input_error(exc), EXIT_INVALID)
    try:
        report = write_aws_collection(options, args.out)
    except OSError as exc:
        return _fail(args.json, Status.INVALID_INPUT, f"cannot write {args.out}: {exc.strerror or exc}", EXIT_INVALID)
    counts = ", ".join(f"{value} {key}" for key, value in report.counts.items())
    size = sum(report.files.values())
    _emit(report.to_dict(), args.json, f"wrote {len(report.files)} files ({size} bytes) to {args.out}: {counts}")
    return EXIT_OK


def _import_aws(services: Services, args: argparse.Namespace) -> int:
    from ..base.actor import local_actor
    from ..sources.aws import AwsInputError, import_aws

    def progress(done: int, total: int) -> None:
        if not args.json and total:
            percent = 100 * done // total
            bar = "#" * (percent // 5)
            print(f"\rimporting [{bar:<20}] {percent:3d}% {done}/{total} items", end="", file=sys.stderr)

    try:
        report = import_aws(
            services.store,
            args.paths,
            sensitivity_file=Path(args.sensitivity) if args.sensitivity else None,
            replace=args.replace,
            progress=progress,
            actor=local_actor(),
        )
    except (AwsInputError, DocumentError) as exc:
        return _fail(args.json, Status.INVALID_INPUT, f"nothing written: {exc}", EXIT_INVALID)
    finally:
        if not args.json:
            print(file=sys.stderr)
    counts = report.counts
    lines = [
        f"imported accounts {', '.join(report.accounts)}: "
        + ", ".join(f"{n} {label}" for label, n in sorted(counts["nodes"].items()))
        + "; "
        + ", ".join(f"{n} {rel}" for rel, n in sorted(counts["relationships"].items()))
        + f"; {counts['alerts']} alerts",
        f"removed (gone from the snapshot): {report.removed['nodes']} nodes, {report.removed['relationships']}"
        f" relationships; preserved blocks: {len(report.preserved_blocks)}",
        *(f"warning: {w['file']}: {w['item']}: {w['message']}" for w in report.warnings),
        *(f"skipped: {s['file']}: {s['reason']}" for s in report.skipped),
    ]
    _emit(report.to_dict(), args.json, "\n".join(lines))
    return EXIT_OK


def _evidence_unavailable(exc: Exception) -> bool:
    """Whether `exc` is the briefing checker's `EvidenceUnavailable` (only commands that
    imported the checker can raise it, so a read command never imports it)."""
    checker = sys.modules.get(f"{__package__.rpartition('.')[0]}.brief.checker")
    return checker is not None and isinstance(exc, checker.EvidenceUnavailable)


class _ReadOnly:
    """What a read command needs of the services: the read tools over an open store."""

    def __init__(self, settings: Any) -> None:
        from ..graph.store import Store
        from ..read.tools import ReadTools

        self.store = Store(settings, reads_only=True)
        self.tools = ReadTools(self.store)

    def close(self) -> None:
        self.store.close()


def _read_command(args: argparse.Namespace, settings: Any) -> int:
    """A read command (`READ_COMMANDS`): store and read tools only, same output and exit codes."""
    try:
        services = _ReadOnly(settings)
    except QueryFailed as exc:
        return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
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


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    if args.command == "generate":
        return _generate(args)
    if args.command == "generate-aws":
        return _generate_aws(args)
    try:
        settings = load_settings(data_dir=args.data_dir, falkordb_url=args.falkordb_url)
    except SettingsError as exc:
        return _fail(args.json, Status.INVALID_INPUT, str(exc), EXIT_INVALID)
    if args.command in READ_COMMANDS:
        return _read_command(args, settings)
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
    alert_request = None
    if args.command == "alert":
        from ..sources.analyst_alert import AlertInputError

        try:
            alert_request = _alert_request(args)
        except AlertInputError as exc:
            return _fail(args.json, Status.INVALID_INPUT, f"{exc}; nothing written", EXIT_INVALID)
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
        return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
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
                report = import_document(
                    services.store, document, replace=args.replace, progress=progress, actor=local_actor()
                )
            except DocumentError as exc:
                if not args.json:
                    print(file=sys.stderr)
                return _fail(args.json, Status.INVALID_INPUT, f"invalid document, nothing written: {exc}", EXIT_INVALID)
            if not args.json:
                print(file=sys.stderr)
            verb = "replaced the graph with" if report.replaced else "imported"
            text = f"{verb} {report.name}: {report.nodes} nodes, {report.edges} relationships, {report.alerts} alerts"
            if report.preserved_blocks:
                text += f"\nkept blocked (blocked by BlastShield): {', '.join(report.preserved_blocks)}"
            if report.blocks_gone:
                text += f"\nblocked routes no longer in the graph: {', '.join(report.blocks_gone)}"
            if report.audit_error:
                text += f"\nwarning: {report.audit_error}"
            _emit(report.to_dict(), args.json, text)
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
            return _import_aws(services, args)
        if args.command == "contain":
            return _contain(services, args)
        if args.command == "release":
            return _release(services, args)
        if args.command == "audit":
            return _audit_verify(services, args)
        if args.command == "runs":
            runs = services.audit.list_runs()
            payload = {"status": "ok", "runs": [r.model_dump(mode="json", exclude={"steps"}) for r in runs]}
            text = "\n".join(
                f"{r.run_id}  {r.state.value:<11} {r.alert_id:<22} {r.decider:<8} {r.actor or '-':<12}"
                f" actions {len(r.actions)}"
                f"  remaining {'-' if r.remaining_paths is None else r.remaining_paths}"
                for r in runs
            )
            _emit(payload, args.json, text or "no runs yet")
            return EXIT_OK
        if args.command == "run":
            from ..graph.audit import RUN_ID_PATTERN

            found = services.audit.get(args.run_id) if re.fullmatch(RUN_ID_PATTERN, args.run_id) else None
            if found is None:
                return _fail(args.json, Status.UNKNOWN_ALERT, f"no run with id {args.run_id!r}", EXIT_UNKNOWN)
            _emit({"status": "ok", **found.model_dump(mode="json")}, args.json, _run_text(found, with_steps=True))
            return EXIT_OK
        if args.command == "brief":
            return _brief(services, args)
        if args.command == "check-briefing":
            assert proposed is not None
            return _check_briefing(services, args, proposed)
        if args.command == "report":
            return _report(services, args)
        if args.command == "alert":
            assert alert_request is not None
            return _open_alert(services, args, alert_request)
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
