"""The AWS commands' handlers: `collect-aws`, and `contain`/`release` when AWS responding applies.

Imported only by those commands (read commands stay fast). Profiles: `--profile`, else
`BLASTSHIELD_AWS_COLLECT_PROFILE` for collection; `BLASTSHIELD_AWS_RESPOND_PROFILE` for the
responder. Both are plain boto3 profiles, so botocore's configured endpoints (`endpoint_url` in
the AWS config file) apply to them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...results import Status
from ..cli_output import EXIT_CODES, EXIT_FAILED, EXIT_INVALID, EXIT_OK, EXIT_REPORT_INTERRUPTED, _emit, _fail, _lines
from ..terminal import signal_name
from .account import (
    COLLECTIONS_FILE,
    collect_session,
    record_collections,
    recorded_collections,
    responder,
)

if TYPE_CHECKING:
    from ...base.settings import Settings
    from ...respond.effector import AccountEffector
    from ...sources.aws.collect.bounds import Bounds
    from ...sources.aws.collect.collector import Progress
    from ..service import Services

__all__ = ["COLLECTIONS_FILE", "aws_command", "collect_session", "recorded_collections"]


def aws_command(args: argparse.Namespace, settings: Settings) -> int | None:
    """Handle the command when AWS is involved; None lets the command line handle it as before."""
    if args.command == "collect-aws":
        return _collect(args, settings)
    if args.command == "contain" and (args.plan or args.confirm):
        return _contain_command(args, settings)
    if args.command == "release" and args.confirm:
        return _release_command(args, settings)
    if args.command == "revoke-sessions":
        return _revoke_command(args, settings)
    if args.command == "verify-account":
        return _verify_command(args, settings)
    return None


def _verify_after_collection(settings: Settings) -> dict[str, Any] | None:
    """After a collection's import, what BlastShield applied on the account compared with what it
    holds now (`verify-account --all`); None when nothing was applied there. Never fails the collection:
    a check that cannot run says why."""
    from ...base.actor import local_actor
    from ...graph.store import QueryFailed
    from ..service import open_services
    from .verify import verify_account

    try:
        services = open_services(settings)
    except QueryFailed as exc:
        return {"status": "query_failed", "message": f"not verified: {exc}", "checked": []}
    try:
        payload = verify_account(services, None, local_actor())
    except (ValueError, QueryFailed) as exc:
        return {"status": "not_verified", "message": f"not verified: {exc}", "checked": []}
    finally:
        services.close()
    return payload if payload["checked"] else None


def _caller_text(row: dict[str, Any]) -> str:
    """Who undid an action, as CloudTrail recorded it (`aws/callers.py`), or why that is unknown."""
    caller = str(row.get("caller") or "caller unknown")
    return caller + (f" ({row['caller_event']} at {row['caller_event_time']})" if row.get("caller_event") else "")


def _again_text(row: dict[str, Any]) -> str:
    """What an undone session revocation lets work again."""
    return f"; sessions issued before {row['issued_before']} work again" if row.get("issued_before") else ""


def _verify_command(args: argparse.Namespace, settings: Settings) -> int:
    """`verify-account [ALERT|--all]`: exit 0 when every applied action holds, 1 when one was undone
    on the account or could not be read, 2 for bad input, 3 for an unknown alert, 4 for a query failure."""
    from ...base.actor import local_actor
    from ...graph.store import QueryFailed
    from .verify import verify_account

    if bool(args.alert_id) == bool(args.all_alerts):
        return _fail(args.json, Status.INVALID_INPUT, "give an ALERT_ID or --all (one of them)", EXIT_INVALID)
    services, failed = _open(args, settings)
    if services is None:
        return failed or EXIT_FAILED
    try:
        if args.alert_id:
            known = services.tools.investigate_alert(args.alert_id)
            if not known.status.is_answer:
                return _fail(args.json, known.status, known.message, EXIT_CODES[known.status])
        try:
            payload = verify_account(services, args.alert_id or None, local_actor())
        except ValueError as exc:
            return _fail(args.json, Status.INVALID_INPUT, f"{exc}; nothing was read", EXIT_INVALID)
        lines = [f"[verify-account] {payload['message']}"]
        for row in payload["checked"]:
            if row["state"] == "undone":
                lines.append(
                    f"  UNDONE ON THE ACCOUNT, seen at {row['seen_at']}: {row['route_id']} (run {row['run_id'] or '—'},"
                    f" alert {row['alert_id']}): {row['detail']}{_again_text(row)}; by {_caller_text(row)}"
                )
                lines += [
                    f"    {a['alert_id']}: {a['paths_before']} -> {a['paths_after']} qualifying path(s)"
                    for a in row.get("alerts_reopened", [])
                ]
            elif row["state"] == "unreadable":
                lines.append(f"  NOT READ: {row['route_id']} (run {row['run_id'] or '—'}): {row['detail']}")
            else:
                lines.append(f"  holds: {row['route_id']} (run {row['run_id'] or '—'}): {row['kind']} {row['subject']}")
        _emit(payload, args.json, _lines(lines))
        return EXIT_OK if not payload["undone"] and not payload["unreadable"] else 1
    except QueryFailed as exc:
        return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
    finally:
        services.close()


def _revoke_command(args: argparse.Namespace, settings: Settings) -> int:
    """`revoke-sessions ALERT --plan`, or `--candidate ID --confirm`: the role's sessions on the account."""
    from ...base.actor import local_actor
    from ...graph.store import QueryFailed
    from .account import AccountRefused
    from .sessions import revocation_plans, revoke_role_sessions

    services, failed = _open(args, settings)
    if services is None:
        return failed or EXIT_FAILED
    try:
        if args.plan:
            plans = revocation_plans(services, args.alert_id)
            lines = [f"revocation plan for {args.alert_id}: {len(plans)} candidate(s); nothing is executed"]
            lines += [f"  {p['id']}: {p['plan'].kind.value} {p['arn']}" for p in plans]
            shown = [{**p, "plan": p["plan"].to_dict()} for p in plans]
            _emit({"status": "ok", "alert_id": args.alert_id, "plans": shown}, args.json, _lines(lines))
            return EXIT_OK
        payload = revoke_role_sessions(
            services, args.alert_id, args.candidate, confirm=args.confirm, max_actions=args.max_actions,
            actor=local_actor(),
        )  # fmt: skip
        text = (
            f"[revoke-sessions] {args.candidate}: applied {payload['applied']}, api_verified"
            f" {payload['api_verified']}, request {payload['request_id'] or '-'}; {payload['note']}"
        )
        _emit(payload, args.json, text)
        return EXIT_OK if payload["applied"] and payload["api_verified"] else 1
    except AccountRefused as exc:
        return _fail(args.json, exc.status, str(exc), EXIT_INVALID)
    except QueryFailed as exc:
        return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
    finally:
        services.close()


def _open(args: argparse.Namespace, settings: Settings) -> tuple[Services | None, int | None]:
    from ...graph.store import QueryFailed
    from ..service import open_services

    try:
        return open_services(settings), None
    except QueryFailed as exc:
        return None, _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)


def _contain_command(args: argparse.Namespace, settings: Settings) -> int:
    from ...graph.store import QueryFailed

    services, failed = _open(args, settings)
    if services is None:
        return failed or EXIT_FAILED
    try:
        try:
            effector = responder(services, settings)
        except ValueError as exc:
            return _fail(args.json, Status.INVALID_INPUT, f"{exc}; nothing was done", EXIT_INVALID)
        if args.plan:
            return _plan(services, effector, args)
        from .sessions import prewrite_refusals

        refused = prewrite_refusals(services, args.alert_id, effector)
        if refused:
            text = "refused before any write, nothing was written: " + "; ".join(refused)
            return _fail(args.json, Status.INVALID_INPUT, text, EXIT_INVALID)
        services.controller.effector = effector
        from ..cli_commands import _contain

        return _contain(services, args)
    except QueryFailed as exc:
        return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
    finally:
        services.close()


def _plan(services: Services, effector: AccountEffector, args: argparse.Namespace) -> int:
    """Each candidate's exact calls, side effects and reversibility; nothing is executed."""
    from ..cli_output import EXIT_CODES
    from .account import account_plans

    candidates, plans = account_plans(services, args.alert_id, effector)
    if not candidates.status.is_answer:
        return _fail(args.json, candidates.status, candidates.message, EXIT_CODES[candidates.status])
    count = len(candidates.ids())
    lines = [f"plan for {args.alert_id}: {count} candidate(s); nothing is executed"]
    for entry in plans:
        if entry.aws is None:
            where = "in the graph (not an AWS credential)"
            lines.append(f"  {entry.candidate_id}: block_route {entry.route_id} {where}")
        else:
            lines.append(f"  {entry.candidate_id}: " + entry.aws.text().replace("\n", "\n  "))
    from .sessions import revocation_plans

    revocations = revocation_plans(services, args.alert_id, effector)
    for revocation in revocations:
        lines.append(f"  {revocation['id']}: {revocation['kind']} {revocation['arn']} (cuts no path)")
        if revocation.get("collateral"):
            lines.append(f"      collateral: {revocation['collateral']['summary']}")
        lines.append("  " + revocation["plan"].text().replace("\n", "\n  "))
    payload = {
        "status": "ok",
        "alert_id": args.alert_id,
        "plans": [p.model_dump(mode="json", exclude_none=True) for p in plans],
        "revocations": [{**r, "plan": r["plan"].to_dict()} for r in revocations],
    }
    _emit(payload, args.json, "\n".join(lines))
    return EXIT_OK


def _release_command(args: argparse.Namespace, settings: Settings) -> int:
    from ...base.actor import local_actor
    from ...graph.store import QueryFailed
    from .account import AccountRefused, release_on_account

    services, failed = _open(args, settings)
    if services is None:
        return failed or EXIT_FAILED
    try:
        try:
            if args.route_id.startswith("revoke-sessions:"):
                from .sessions import release_revocation

                payload = release_revocation(
                    services, args.route_id, args.reason, args.confirm, local_actor(),
                    acknowledge=args.acknowledge_stolen_sessions,
                )  # fmt: skip
                if payload is None:
                    return _fail(args.json, Status.INVALID_INPUT, f"no revocation of {args.route_id} to release", 2)
                if payload["state"] == "forgotten":  # undone on the account: acknowledged, the revocation forgotten
                    _emit(payload, args.json, f"[forgotten] {payload['message']}")
                    return EXIT_OK
                read = "verified" if payload["api_verified"] else "NOT confirmed"
                text = f"[released] {args.route_id}: {payload['call']['api']} (request {payload['request_id']}); {read}"
                _emit(payload, args.json, text)
                return EXIT_OK if payload["api_verified"] else 1
            payload = release_on_account(
                services, args.route_id, args.reason, args.confirm, local_actor(),
                acknowledge=getattr(args, "acknowledge_stolen_sessions", False),
            )  # fmt: skip
        except AccountRefused as exc:
            return _fail(args.json, exc.status, str(exc), EXIT_INVALID)
        if payload is None:
            from ..cli_commands import _release

            return _release(services, args)
        if payload["state"] == "forgotten":  # undone on the account: acknowledged, the block forgotten
            _emit(payload, args.json, f"[forgotten] {payload['message']}")
            return EXIT_OK
        why = "" if payload["resync"] == "re-synced" else payload["resync"]
        lines = [
            f"[released] {args.route_id} on the AWS account: {payload['call']['api']}"
            f" {payload['call']['params']} (request {payload['request_id']}); re-read through the API:"
            f" {'verified' if payload['api_verified'] else 'NOT confirmed'}; graph re-sync: {why or 'ok'}",
            *(
                f"  {a['alert_id']}: {a['paths_before']} -> {a['paths_after']} qualifying path(s)"
                for a in payload["alerts_reopened"]
            ),
            *([f"  {payload['release_order']}"] if payload.get("release_order") else []),
        ]
        _emit(payload, args.json, _lines(lines))
        return EXIT_OK if payload["api_verified"] and not why else 1
    except QueryFailed as exc:
        return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
    finally:
        services.close()


def collect_bounds(args: argparse.Namespace) -> Bounds:
    """The collection's bounds from the command's options (ValueError: out of range)."""
    from ...sources.aws.collect.bounds import Bounds

    bounds = Bounds(
        call_s=args.call_timeout,
        collection_s=args.deadline,
        max_pages=args.max_pages,
        max_bytes=args.max_response_mb << 20 if 0 < args.max_response_mb <= 4096 else 0,
        max_principals=args.max_principals,
        pool=args.pool,
    )
    bounds.check()
    return bounds


def progress_printer(json_mode: bool) -> Progress:
    """Progress on stderr: one line per call, and for per-principal calls a count
    (`[ACCOUNT] ListAccessKeys 812/2000 (alice)`)."""

    from .account import collection_step

    def progress(event: dict[str, Any]) -> None:
        if json_mode or (event.get("state") == "calling" and "total" not in event):
            return
        print(f"[{event['account']}] {collection_step(event)}", file=sys.stderr, flush=True)

    return progress


def _collect(args: argparse.Namespace, settings: Settings) -> int:
    from ...sources.aws.collect.collector import CollectError, collect_accounts
    from ...sources.aws.collect.manifest import failure_line
    from ..terminal import one_line

    if args.organization and not args.member_role:
        return _fail(args.json, Status.INVALID_INPUT, "--organization needs --member-role NAME", EXIT_INVALID)
    if args.sensitivity and not args.do_import:
        return _fail(args.json, Status.INVALID_INPUT, "--sensitivity is only for --import", EXIT_INVALID)
    accounts = [a.strip() for a in args.accounts.split(",") if a.strip()]
    if any(not (a.isdigit() and len(a) == 12) for a in accounts):
        return _fail(args.json, Status.INVALID_INPUT, "--accounts takes 12-digit account ids", EXIT_INVALID)
    try:
        bounds = collect_bounds(args)
        session = collect_session(args.profile)
    except ValueError as exc:
        return _fail(args.json, Status.INVALID_INPUT, f"{exc}; nothing collected", EXIT_INVALID)
    profile = args.profile or getattr(session, "profile_name", "") or "default"
    try:
        report = collect_accounts(
            session,
            Path(args.out),
            regions=args.region or None,
            endpoint_url=args.endpoint_url,
            progress=progress_printer(args.json),
            organization=args.organization,
            member_role=args.member_role,
            accounts=accounts or None,
            bounds=bounds,
        )
    except CollectError as exc:
        return _fail(args.json, Status.QUERY_FAILED, failure_line(exc, profile), EXIT_FAILED)
    except OSError as exc:
        return _fail(
            args.json, Status.INVALID_INPUT, f"cannot write {args.out}: {exc}; nothing collected", EXIT_INVALID
        )
    missing = sum(1 for w in report.warnings if w.get("state") != "complete") + report.warnings_beyond
    lines = [
        f"collected accounts {', '.join(report.accounts)} into {report.out}: {report.files} files,"
        f" {sum(report.calls.values())} calls in {report.seconds:.1f} s"
        + (f"; PARTIAL: {missing} part(s) missing (each account's collection-manifest.json)" if missing else ""),
        *(f"warning: [{w['account']}] {w['call']}: {one_line(w['message'])}" for w in report.warnings),
        *([f"... and {report.warnings_beyond} more warnings"] if report.warnings_beyond else []),
    ]
    if args.do_import:
        from ...base.actor import local_actor
        from ...base.interrupts import after_commit
        from ...graph.store import QueryFailed
        from ...read.top_principals import top_principals
        from ...sources.aws import AwsInputError, import_aws
        from ..service import open_services

        try:
            services = open_services(settings)
        except QueryFailed as exc:
            return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
        try:
            with after_commit() as guard:  # a signal from the commit on waits for the audit (base/interrupts.py)
                imported = import_aws(
                    services.store,
                    list(report.folders.values()),
                    sensitivity_file=Path(args.sensitivity) if args.sensitivity else None,
                    actor=local_actor(),
                )
            nxt = top_principals(services.tools, imported.accounts)
        except AwsInputError as exc:
            return _fail(args.json, Status.INVALID_INPUT, f"collected, but nothing imported: {exc}", EXIT_INVALID)
        except QueryFailed as exc:
            return _fail(args.json, Status.QUERY_FAILED, f"collected, but the import failed: {exc}", EXIT_FAILED)
        finally:
            services.close()
        record_collections(settings, report.folders)
        report.imported = {**imported.to_dict(), "next": nxt.model_dump(mode="json")}
        counts = imported.counts
        lines.append(
            f"imported accounts {', '.join(imported.accounts)}: "
            + ", ".join(f"{n} {label}" for label, n in sorted(counts["nodes"].items()))
            + f"; {counts['alerts']} alerts; {len(imported.warnings)} warning(s)"
        )
        lines += [f"import warning: {one_line(w['file'])}: {one_line(w['message'])}" for w in imported.warnings]
        lines.append(f"next: {nxt.message}" + (":" if nxt.principals else ""))
        lines += [
            f"  {p.paths}{'+' if p.more else ''} path(s) ({p.critical} to critical data)  {p.id}"
            f"  -> alert open {p.id} --title TEXT"
            for p in nxt.principals
        ]
        verification = _verify_after_collection(settings)
        if verification is not None:
            report.imported["account_verification"] = verification
            lines.append(f"verify-account: {verification['message']}")
            lines += [
                f"  UNDONE ON THE ACCOUNT, seen at {r['seen_at']}: {r['route_id']} (run {r['run_id'] or '—'}):"
                f" {r['detail']}{_again_text(r)}; by {_caller_text(r)}"
                for r in verification.get("checked", [])
                if r["state"] == "undone"
            ]
        if guard.pending is not None:  # the accounts are collected and imported: say so, then stop
            _emit({**report.to_dict(), "interrupted": signal_name(guard.pending)}, args.json, _lines(lines))
            print(f"interrupted ({signal_name(guard.pending)}): collected and imported", file=sys.stderr)
            return EXIT_REPORT_INTERRUPTED
    _emit(report.to_dict(), args.json, _lines(lines))
    return EXIT_OK
