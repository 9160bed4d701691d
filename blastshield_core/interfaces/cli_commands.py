"""The handlers of commands that are not read commands (containment, release, audit verify,
briefings, reports, analyst alerts, generating graphs and AWS accounts, importing AWS exports)
and the text of a run. The command line imports this module only for the command that uses it,
so a read command never loads it."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..graph.model import DocumentError
from ..results import RunState, Status
from .cli_output import (
    EXIT_CODES,
    EXIT_GRAPH_ONLY,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_REPORT_INTERRUPTED,
    EXIT_UNKNOWN,
    _emit,
    _fail,
    _lines,
)

if TYPE_CHECKING:
    from ..brief.checker import BriefingClaims, Flag
    from ..graph.store import Store
    from ..results.runs import RunRecord
    from ..sources.analyst_alert import AlertRequest
    from .service import Services


def _run_text(run: RunRecord, with_steps: bool) -> str:
    lines = [
        f"{run.run_id}  {run.state.value.upper()}  alert {run.alert_id}  decider {run.decider}  cap {run.max_actions}",
        *(
            ["PLANNED IN THE GRAPH ONLY: the credentials still work on the account; this run is not containment"]
            if run.state is RunState.GRAPH_ONLY
            else []
        ),
        f"actor: {run.actor or '-'}",
        f"reason: {run.reason}",
        f"remaining qualifying paths: {'-' if run.remaining_paths is None else run.remaining_paths}",
    ]
    lines += [
        f"  action {a.step}: {a.candidate_id} -> {a.status}, verified {a.verified}"
        f" ({a.paths_before} -> {a.paths_after} paths)" + _aws_text(a)
        for a in run.actions
    ]
    if with_steps:
        lines += [f"  {s.seq:>2}. [{s.kind}] {s.summary}" for s in run.steps]
    lines += [
        f"  released later: {r.route_id} by {r.actor} at {r.at.isoformat(timespec='seconds')}: {r.reason}"
        for r in run.releases
    ]
    return _lines(lines)


def _aws_text(action: Any) -> str:
    """An action's account side: applied in AWS with both checks and the request id, or not."""
    aws = action.aws
    if aws is None:
        return ""
    if not aws.applied_in_aws:
        from ..results.account import REVOCATION_OPERATIONS

        where = "nothing changed" if action.operation in REVOCATION_OPERATIONS else "graph only"
        return f"; not applied in AWS ({where})"
    api = aws.call.api if aws.call is not None else aws.plan.kind.value
    return (
        f"; AWS {api}: applied {action.applied}, api_verified {action.api_verified},"
        f" graph_verified {action.graph_verified}, request {aws.request_id or '-'}"
    )


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
    if run.state is RunState.GRAPH_ONLY:
        return EXIT_GRAPH_ONLY
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

    briefer = services.briefer
    run_id = args.run_id or briefer.latest_run_id(args.alert_id)
    outcome = briefer.check_outcome(args.alert_id, proposed, briefer.evidence(args.alert_id, run_id))
    flags = outcome.flags
    payload = {
        "status": "ok",
        "alert_id": args.alert_id,
        "run_id": run_id,
        "input": "claims" if isinstance(proposed, BriefingClaims) else "text",
        "clean": not flags,
        "flags": [f.model_dump(mode="json") for f in flags],
        "unverified": outcome.unverified,
    }
    against = f" (run {run_id})" if run_id else " (no run of this alert)"
    text = (
        "clean: nothing contradicts the graph evidence" + against
        if not flags
        else f"{len(flags)} flag(s){against}:\n" + _flags_text(flags)
    )
    if outcome.unverified:
        text += f"\n{len(outcome.unverified)} unverified (neither confirmed nor contradicted):\n" + "\n".join(
            f"  {u!r}" for u in outcome.unverified
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
    _emit(result.model_dump(mode="json"), args.json, _lines(lines))
    return EXIT_OK


def _audit_verify(services: Services, args: argparse.Namespace) -> int:
    expect = args.expect_head
    if expect is not None and not re.fullmatch(r"[0-9a-f]{64}", expect):
        message = "--expect-head must be a chain hash: 64 lowercase hexadecimal digits; nothing was checked"
        return _fail(args.json, Status.INVALID_INPUT, message, EXIT_INVALID)
    result = services.audit.verify(expect_head=expect)
    payload = {"status": "ok", **result.model_dump(mode="json")}
    if result.intact:
        text = f"intact: {result.records} record(s); chain head {result.head_seq} {result.head_hash}"
        if result.anchor == "compared":
            text += f"\nmatches the anchor log {result.anchor_file} (last anchored record {result.anchored_seq})"
        else:
            where = f" ({result.anchor_file})" if result.anchor_file else ""
            text += f"\nanchor log: {result.anchor}{where}; truncation and consistent rewrites are not detectable"
        if expect is not None:
            text += f"\nthe expected head {expect} is in the chain"
        if result.legacy_runs:
            text += (
                f"\n{result.legacy_runs} run(s) predate hashing of what a run shows:"
                " their state, reason and actions are not covered"
            )
    else:
        assert result.broken is not None
        b = result.broken
        text = f"BROKEN at record {b.chain_seq} ({b.record} {b.id}): {b.reason}"
    _emit(payload, args.json, text)
    return EXIT_OK if result.intact else 1


def _generate(args: argparse.Namespace) -> int:
    from ..graph.generate import GenerateOptions, write_generated
    from ..read.paths import describe_input_error

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

    # the entity may be an id, an ARN or a name: it is resolved against the graph (`_open_alert`)
    return build_request("entity", args.title, args.kind, parse_signals(args.signal))


def _open_alert(store: Store, args: argparse.Namespace, request: AlertRequest) -> int:
    from ..base.actor import local_actor
    from ..sources.analyst_alert import AlertInputError, UnknownEntity, open_alert
    from .cli_entities import _resolved

    entity_id = _resolved(store, args)
    if isinstance(entity_id, int):
        return entity_id
    request = request.model_copy(update={"entity_id": entity_id})
    try:
        opened = open_alert(store, request, actor=local_actor())
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
    from ..read.paths import describe_input_error
    from ..sources.aws.synthetic.generate import AwsGenerateOptions, write_aws_collection

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
            escalations=args.escalations,
            bucket_policies=args.bucket_policies,
            org_levels=args.org_levels,
            scps=args.scps,
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
    from ..base.interrupts import after_commit
    from ..sources.aws import AwsInputError, import_aws
    from .terminal import interrupted_by, signal_name

    def progress(done: int, total: int) -> None:
        if not args.json and total:
            percent = 100 * done // total
            bar = "#" * (percent // 5)
            print(f"\rimporting [{bar:<20}] {percent:3d}% {done}/{total} items", end="", file=sys.stderr)

    # A signal before the commit stops the import (nothing written: "stopped"); one after it is held until
    # the import is recorded in the audit and has returned (base/interrupts.py), then reported as such.
    try:
        with after_commit() as guard:
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
    if guard.pending is not None:
        return _report_interrupted(report, args.json, signal_name(guard.pending))
    try:  # committed and audited from here on: an interrupt now stops the report, not the import
        return _imported(services, args, report)
    except KeyboardInterrupt as exc:
        return _report_interrupted(report, args.json, interrupted_by(exc))


def _report_interrupted(report: Any, as_json: bool, signal_name: str) -> int:
    """A signal after the import committed: say so (the import stays), exit EXIT_REPORT_INTERRUPTED."""
    from .terminal import one_line

    accounts = ", ".join(one_line(a) for a in report.accounts)
    try:
        if as_json:
            print(json.dumps({**report.to_dict(), "next": None, "interrupted": signal_name}, indent=2, default=str))
        print(
            f"\ninterrupted ({signal_name}): imported; report interrupted (accounts {accounts} are imported;"
            " the principals to look at first were not listed)",
            file=sys.stderr,
        )
    except (BrokenPipeError, OSError):
        pass
    return EXIT_REPORT_INTERRUPTED


def _imported(services: Services, args: argparse.Namespace, report: Any) -> int:
    """The import's report: what was written, then the principals to look at first (read afresh)."""
    from .terminal import one_line

    counts = report.counts
    lines = [
        f"imported accounts {', '.join(report.accounts)}: "
        + ", ".join(f"{n} {label}" for label, n in sorted(counts["nodes"].items()))
        + "; "
        + ", ".join(f"{n} {rel}" for rel, n in sorted(counts["relationships"].items()))
        + f"; {counts['alerts']} alerts",
        f"removed (gone from the snapshot): {report.removed['nodes']} nodes, {report.removed['relationships']}"
        f" relationships; preserved blocks: {len(report.preserved_blocks)}",
        *(f"warning: {one_line(w['file'])}: {one_line(w['item'])}: {one_line(w['message'])}" for w in report.warnings),
        *([f"... and {report.warnings_beyond} more warnings"] if report.warnings_beyond else []),
        *(f"skipped: {one_line(s['file'])}: {one_line(s['reason'])}" for s in report.skipped),
        *([f"... and {report.skipped_beyond} more files skipped"] if report.skipped_beyond else []),
    ]
    from ..read.top_principals import top_principals

    nxt = top_principals(services.tools, report.accounts)  # what to do next, findings or not
    lines.append(f"next: {nxt.message}" + (":" if nxt.principals else ""))
    lines += [
        f"  {p.paths}{'+' if p.more else ''} path(s) ({p.critical} to critical data)  {p.id}"
        f"  -> alert open {p.id} --title TEXT"
        for p in nxt.principals
    ]
    _emit({**report.to_dict(), "next": nxt.model_dump(mode="json")}, args.json, _lines(lines))
    return EXIT_OK
