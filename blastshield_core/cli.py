"""The command line: `python -m blastshield_core COMMAND ...`.

With `--json` every command prints its pydantic result as JSON. Exit codes:
0 an answer (paths found, no path, ok), 2 invalid input or usage, 3 unknown
alert/source/target, 4 query failure or database unreachable.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from .generate import GenerateOptions, write_generated
from .ingest import import_document, load_document
from .model import DocumentError
from .read import describe_input_error
from .results import AccessPath, Status, ToolResult
from .seeds import seed
from .service import Services, open_services
from .settings import SettingsError, load_settings
from .store import QueryFailed

__all__ = ["EXIT_CODES", "main"]

EXIT_OK, EXIT_INVALID, EXIT_UNKNOWN, EXIT_FAILED = 0, 2, 3, 4
EXIT_CODES = {
    Status.PATHS_FOUND: EXIT_OK,
    Status.NO_PATH: EXIT_OK,
    Status.OK: EXIT_OK,
    Status.INVALID_INPUT: EXIT_INVALID,
    Status.UNKNOWN_ALERT: EXIT_UNKNOWN,
    Status.UNKNOWN_SOURCE: EXIT_UNKNOWN,
    Status.UNKNOWN_TARGET: EXIT_UNKNOWN,
    Status.QUERY_FAILED: EXIT_FAILED,
}


def _int_or_text(text: str) -> int | str:
    """Whole numbers become ints; anything else is passed on for the tool to refuse."""
    return int(text) if re.fullmatch(r"[+-]?\d{1,6}", text.strip()) else text


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print the result as JSON")
    common.add_argument("--data-dir", help="embedded database directory (BLASTSHIELD_DATA_DIR)")
    common.add_argument("--falkordb-url", help="use a FalkorDB server instead (FALKORDB_URL)")

    parser = argparse.ArgumentParser(
        prog="python -m blastshield_core",
        description="BlastShield: access-path evidence for security alerts, from a FalkorDB graph.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("seed", parents=[common], help="load the built-in scenarios")
    p.add_argument("--reset", action="store_true", help="restore every scenario to its original state")

    p = sub.add_parser("import", parents=[common], help="import a graph document (validated whole first)")
    p.add_argument("file")
    p.add_argument("--replace", action="store_true", help="swap the whole graph for the document, atomically")

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

    p = sub.add_parser("generate", parents=[common], help="write a synthetic graph document (no database needed)")
    p.add_argument("--edges", type=int, required=True, help="about this many relationships (100..5000000)")
    p.add_argument("--seed", type=int, default=0, help="random seed: the same seed gives the same bytes")
    p.add_argument("--dense", action="store_true", help="hub roles assume dozens of roles (path explosion)")
    p.add_argument("--name", help="document name (default generated-N-sSEED[-dense])")
    p.add_argument("--out", required=True, help="file to write")
    return parser


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
        lines.append(f"  {entity['label']:<9} {entity['id']:<28} hops {entity['hops']}{mark}")
    for route in data.get("routes", []):
        lines.append(
            f"  {route['route_id']:<28} {route['status']:<8} {route['source']} -{route['type']}-> {route['target']}"
            f" | carries {route['paths_carried']} path(s)"
        )
    for cand in data.get("candidates", []):
        lines.append(f"  {cand['id']}: cuts {cand['paths_cut']} | {cand['reason']}")
    for alert_row in data.get("alerts", []):
        score = "-" if alert_row["risk_score"] is None else alert_row["risk_score"]
        lines.append(
            f"  {alert_row['id']:<22} {alert_row['severity'] or alert_row['status']!s:<9} {score!s:>3}"
            f"  paths {alert_row['path_count'] if alert_row['path_count'] is not None else '-':<4}"
            f" entity {alert_row['entity_id']:<22} {alert_row['title']}"
        )
    return "\n".join(lines)


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
    raise AssertionError(f"unhandled command {args.command}")  # pragma: no cover


def _fail(as_json: bool, status: Status, message: str, code: int) -> int:
    if as_json:
        print(json.dumps({"status": status.value, "message": message}, indent=2))
    else:
        print(f"error: {message}", file=sys.stderr)
    return code


def _generate(args: argparse.Namespace) -> int:
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


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "generate":
        return _generate(args)
    try:
        settings = load_settings(data_dir=args.data_dir, falkordb_url=args.falkordb_url)
    except SettingsError as exc:
        return _fail(args.json, Status.INVALID_INPUT, str(exc), EXIT_INVALID)

    document = None
    if args.command == "import":
        try:
            document = load_document(args.file)
        except DocumentError as exc:
            return _fail(args.json, Status.INVALID_INPUT, f"invalid document, nothing written: {exc}", EXIT_INVALID)

    try:
        services = open_services(settings)
    except QueryFailed as exc:
        return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
    try:
        if args.command == "seed":
            report = seed(services.store, reset=args.reset)
            text = f"loaded: {', '.join(report.loaded) or '-'}; unchanged: {', '.join(report.unchanged) or '-'}"
            _emit(report.to_dict(), args.json, text)
            return EXIT_OK
        if args.command == "import":
            assert document is not None

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
                report = import_document(services.store, document, replace=args.replace, progress=progress)
            except DocumentError as exc:
                if not args.json:
                    print(file=sys.stderr)
                return _fail(args.json, Status.INVALID_INPUT, f"invalid document, nothing written: {exc}", EXIT_INVALID)
            if not args.json:
                print(file=sys.stderr)
            verb = "replaced the graph with" if report.replaced else "imported"
            _emit(
                report.to_dict(),
                args.json,
                f"{verb} {report.name}: {report.nodes} nodes, {report.edges} relationships, {report.alerts} alerts",
            )
            return EXIT_OK
        result = _tool_result(services, args)
        _emit(result.model_dump(mode="json"), args.json, _render(result))
        return EXIT_CODES[result.status]
    except QueryFailed as exc:
        return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
    finally:
        services.close()
