"""The command line's parser: `_parser` builds it (with `only`, the named command's alone) and
`_parse_args` parses a command line with it. The standard library's argparse and the names of
the choices only: a read command imports nothing more for it."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

from ..graph.model import ANALYST_ALERT_KIND
from ..results import DECIDER_NAMES, DEFAULT_MAX_ACTIONS

EXPORT_FORMATS = ("blastshield", "opengraph")


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

    p = sub.add_parser("policy-eval", parents=[common], help="decide one AWS request from its policies (no database)")
    p.add_argument("request", metavar="REQUEST.json", help="a request object or a list of them ('-': standard input)")

    p = sub.add_parser(
        "collect-aws", parents=[common], help="collect AWS accounts read-only into the import-aws layout"
    )
    p.add_argument("--profile", help="AWS profile (default BLASTSHIELD_AWS_COLLECT_PROFILE, else boto3's chain)")
    p.add_argument("--region", action="append", default=[], metavar="R", help="a region to collect (repeatable)")
    p.add_argument("--endpoint-url", metavar="URL", help="an endpoint for every service (default: botocore's config)")
    p.add_argument("--organization", action="store_true", help="also collect the organisation's member accounts")
    p.add_argument("--member-role", default="", metavar="NAME", help="read-only role assumed in each member account")
    p.add_argument("--accounts", default="", metavar="ID,...", help="only these member accounts")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write (one folder per account)")
    p.add_argument("--import", dest="do_import", action="store_true", help="then import the collection")
    p.add_argument("--sensitivity", metavar="FILE", help="with --import: JSON object ARN glob -> level")
    p.add_argument("--call-timeout", type=float, default=30.0, metavar="S", help="per request, whole answer (30)")
    p.add_argument("--deadline", type=float, default=1800.0, metavar="S", help="the whole collection (1800)")
    p.add_argument("--max-pages", type=int, default=1000, metavar="N", help="pages of one listing (1000)")
    p.add_argument("--max-response-mb", type=int, default=32, metavar="MB", help="one answer's size (32)")
    p.add_argument("--max-principals", type=int, default=20000, metavar="N", help="users listed for keys (20000)")
    p.add_argument("--pool", type=int, default=8, metavar="N", help="per-principal calls at once (8)")

    sub.add_parser("alerts", parents=[common], help="list alerts with computed scores")

    p = sub.add_parser("entities", parents=[common], help="find entities by id, name or ARN, best matches first")
    p.add_argument("query", metavar="QUERY", help="part of an id, a name or an ARN (any case)")
    p.add_argument("--label", help="only this label (Identity, Session, Workload, IAMRole, DataAsset)")
    p.add_argument("--account", help="only entities of this account")
    p.add_argument("--limit", type=_int_or_text, default=20, help="at most this many matches, 1..100 (default 20)")

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
    p.add_argument("--plan", action="store_true", help="show the AWS calls each candidate would make; run nothing")

    p = sub.add_parser(
        "revoke-sessions",
        parents=[common],
        help="revoke sessions already issued: of the AWS role an alert names, or of the AWS user it names and"
        " the roles on the user's paths",
    )
    p.add_argument("alert_id")
    p.add_argument("--candidate", default="", metavar="CANDIDATE_ID", help="the server-derived candidate to act on")
    p.add_argument("--max-actions", type=_int_or_text, default=1, help="action cap 1..10 (default 1)")
    p.add_argument("--confirm", action="store_true", help="confirm the revocation")
    p.add_argument("--plan", action="store_true", help="show the candidate's exact call and before-image; run nothing")

    p = sub.add_parser("release", parents=[common], help="unblock a route BlastShield blocked (audited; --confirm)")
    p.add_argument("route_id")
    p.add_argument("--reason", required=True, help="why the route is released (recorded in the audit)")
    p.add_argument("--confirm", action="store_true", help="confirm that the route's paths may come back")
    p.add_argument(
        "--acknowledge-stolen-sessions",
        action="store_true",
        help="for a session revocation (a role's or a user's): acknowledge that release re-enables the sessions"
        " it stopped",
    )

    p = sub.add_parser(
        "verify-account",
        parents=[common],
        help="re-read on the AWS account what BlastShield applied there; report and audit what was undone",
    )
    p.add_argument("alert_id", nargs="?", help="only the account actions of this alert's runs")
    p.add_argument("--all", dest="all_alerts", action="store_true", help="every applied, unreleased account action")

    p = sub.add_parser("audit", parents=[common], help="check the audit's hash chain")
    p.add_argument(
        "audit_command", choices=("verify",), help="verify: recompute the chain and compare it with the anchor log"
    )
    p.add_argument(
        "--expect-head",
        metavar="HASH",
        help="a chain head kept elsewhere (an incident report's): the chain must still hold a record with this hash",
    )

    sub.add_parser("runs", parents=[common], help="list persisted containment runs")
    p = sub.add_parser("run", parents=[common], help="show one run with its steps")
    p.add_argument("run_id")

    p = sub.add_parser("brief", parents=[common], help="the briefing an analyst is shown (model, or labelled fallback)")
    p.add_argument("alert_id")
    p.add_argument("--run", dest="run_id", metavar="RUN_ID", help="brief on a containment run of this alert")

    p = sub.add_parser("check-briefing", parents=[common], help="check a text or JSON briefing against the graph")
    p.add_argument("alert_id")
    p.add_argument("file", help="a text briefing, or JSON claims (BriefingClaims)")
    p.add_argument(
        "--run",
        dest="run_id",
        metavar="RUN_ID",
        help="hold claims about the run and the account against this run of the alert (default: its latest run)",
    )

    p = sub.add_parser("report", parents=[common], help="incident report for a run or an alert")
    p.add_argument("target", metavar="RUN_ID|ALERT_ID")
    p.add_argument("--format", choices=("md", "json"), default="md", help="Markdown (default) or JSON")
    p.add_argument("--out", metavar="FILE", help="write the report to FILE instead of printing it")

    sub.add_parser("mcp", parents=[common], help="serve the read-only tools over MCP (stdio)")

    p = sub.add_parser("alert", help="analyst alerts: open one on any entity")
    alert_sub = p.add_subparsers(dest="alert_action", required=True, metavar="ACTION")
    p = alert_sub.add_parser("open", parents=[common], help="open an alert on an entity (investigate this entity)")
    p.add_argument("entity_id", metavar="ENTITY", help="the entity: its id, its ARN or its name (if only one has it)")
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
    p.add_argument(
        "--escalations",
        type=int,
        default=0,
        help="privilege-escalation permissions to plant, of mixed methods, one in five with a control (default 0)",
    )
    p.add_argument("--bucket-policies", type=int, default=0, help="bucket policies, of mixed kinds (default 0)")
    p.add_argument("--org-levels", type=int, default=0, help="organisation levels above the account (0: none)")
    p.add_argument("--scps", type=int, default=0, help="SCPs spread over the organisation's levels (default 0)")
    p.add_argument("--account-id", default="111122223333", help="the 12-digit account id")
    p.add_argument("--seed", type=int, default=0, help="random seed: the same seed gives the same files")
    p.add_argument("--messy", action="store_true", help="add what real exports have: encoded documents, dangling names")
    p.add_argument("--out", required=True, help="folder to write the collection into")
    return parser if sub.found else None
