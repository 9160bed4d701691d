"""The AWS commands' handlers: `collect-aws`, and `contain`/`release` when AWS responding applies.

Imported only by those commands (read commands stay fast). Profiles: `--profile`, else
`BLASTSHIELD_AWS_COLLECT_PROFILE` for collection; `BLASTSHIELD_AWS_RESPOND_PROFILE` for the
responder. Both are plain boto3 profiles, so botocore's configured endpoints (`endpoint_url` in
the AWS config file) apply to them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..results import Status
from .cli_output import EXIT_FAILED, EXIT_INVALID, EXIT_OK, _emit, _fail

__all__ = ["COLLECTIONS_FILE", "aws_command", "collect_session", "recorded_collections"]

COLLECTIONS_FILE = "aws-collections.json"  # in the data folder: account -> its last imported collection


def _session(profile: str | None) -> Any:
    import boto3
    import botocore.exceptions

    try:
        return boto3.Session(profile_name=profile or None)
    except botocore.exceptions.ProfileNotFound as exc:
        raise ValueError(f"AWS profile {profile!r} is not in the AWS config: {exc}") from None


def collect_session(profile: str | None = None) -> Any:
    return _session(profile or os.environ.get("BLASTSHIELD_AWS_COLLECT_PROFILE") or None)


def recorded_collections(settings: Any) -> dict[str, str]:
    path = Path(settings.data_dir) / COLLECTIONS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def record_collections(settings: Any, folders: dict[str, str]) -> None:
    from ..base.privatefile import write_private

    known = recorded_collections(settings)
    known.update({k: str(Path(v).resolve()) for k, v in folders.items()})
    Path(settings.data_dir).mkdir(parents=True, exist_ok=True)
    write_private(Path(settings.data_dir) / COLLECTIONS_FILE, json.dumps(known, indent=1, sort_keys=True))


def aws_command(args: argparse.Namespace, settings: Any) -> int | None:
    """Handle the command when AWS is involved; None lets the command line handle it as before."""
    if args.command == "collect-aws":
        return _collect(args, settings)
    if args.command == "contain" and (args.plan or args.confirm):
        return _contain_command(args, settings)
    if args.command == "release" and args.confirm:
        return _release_command(args, settings)
    return None


def responder(services: Any, settings: Any) -> Any:
    """The account responder: writes with BLASTSHIELD_AWS_RESPOND_PROFILE when it is set (else
    every AWS-backed route is blocked in the graph only, "not applied in AWS"), re-collects with
    the collect profile into the folder `collect-aws --import` recorded, and re-syncs the user's slice
    in place (`resync_user`: that slice alone, in one query, not the whole account)."""
    from ..respond.aws_respond import AccountResponder
    from ..sources.aws.collect import CollectError, botocore_config, recollect_user_keys

    respond_profile = os.environ.get("BLASTSHIELD_AWS_RESPOND_PROFILE") or ""
    respond = _session(respond_profile) if respond_profile else None
    collect = collect_session() if os.environ.get("BLASTSHIELD_AWS_COLLECT_PROFILE") or respond else None

    def resync(account: str, user: str) -> str:
        from ..base.actor import local_actor
        from ..graph.model import DocumentError
        from ..graph.store import QueryFailed
        from ..sources.aws import AwsInputError, resync_user

        folder = recorded_collections(settings).get(account)
        if not folder or not Path(folder).is_dir():
            return f"no collection of account {account} is recorded (run collect-aws --import)"
        try:
            recollect_user_keys(collect or respond, folder, user)
            resync_user(services.store, [folder], account, user, actor=local_actor())
        except (CollectError, AwsInputError, DocumentError, QueryFailed) as exc:
            return str(exc)
        return ""

    return AccountResponder(
        services.store,
        respond_session=respond,
        read_session=collect or respond,
        resync=resync,
        client_config=botocore_config(),
    )


def _open(args: argparse.Namespace, settings: Any) -> tuple[Any, int | None]:
    from ..graph.store import QueryFailed
    from .service import open_services

    try:
        return open_services(settings), None
    except QueryFailed as exc:
        return None, _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)


def _contain_command(args: argparse.Namespace, settings: Any) -> int:
    from ..graph.store import QueryFailed

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
        services.controller.effector = effector
        from .cli_commands import _contain

        return _contain(services, args)
    except QueryFailed as exc:
        return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
    finally:
        services.close()


def _plan(services: Any, effector: Any, args: argparse.Namespace) -> int:
    """Each candidate's exact calls, side effects and reversibility; nothing is executed."""
    from .cli_output import EXIT_CODES

    candidates = services.tools.get_response_candidates(args.alert_id)
    if not candidates.status.is_answer:
        return _fail(args.json, candidates.status, candidates.message, EXIT_CODES[candidates.status])
    plans = []
    lines = [f"plan for {args.alert_id}: {len(candidates.candidates)} candidate(s); nothing is executed"]
    for candidate in candidates.candidates:
        plan = effector.plan(candidate.route_id)
        entry = {"candidate_id": candidate.id, "route_id": candidate.route_id, "paths_cut": candidate.paths_cut}
        if plan is None:
            entry["graph_only"] = True
            lines.append(f"  {candidate.id}: block_route {candidate.route_id} in the graph (not an AWS credential)")
        else:
            entry["aws"] = plan.to_dict()
            lines.append(f"  {candidate.id}: " + plan.text().replace("\n", "\n  "))
        plans.append(entry)
    _emit({"status": "ok", "alert_id": args.alert_id, "plans": plans}, args.json, "\n".join(lines))
    return EXIT_OK


def _aws_action(services: Any, route_id: str) -> tuple[Any, dict[str, Any]] | None:
    """The newest run action that changed the account for this route and is not released."""
    for run in services.audit.list_runs():
        for action in reversed(run.actions):
            aws = action.aws or {}
            if action.route_id != route_id or not aws.get("applied_in_aws") or not aws.get("applied"):
                continue
            released = [
                e
                for e in services.audit.events_for_run(run.run_id)
                if e.route_id == route_id and e.data.get("status") == "released" and e.data.get("aws")
            ]
            return None if released else (run, aws)
    return None


def _release_command(args: argparse.Namespace, settings: Any) -> int:
    from ..base.actor import local_actor
    from ..graph.store import QueryFailed
    from ..respond.act import ActionService
    from ..respond.aws_respond import DriftRefused

    services, failed = _open(args, settings)
    if services is None:
        return failed or EXIT_FAILED
    try:
        found = _aws_action(services, args.route_id)
        if found is None:
            from .cli_commands import _release

            return _release(services, args)
        run, aws = found
        actor = local_actor()
        invalid = ActionService._release_input_error(args.route_id, args.reason, args.confirm, actor)
        if invalid:
            return _fail(args.json, Status.INVALID_INPUT, invalid, EXIT_INVALID)
        try:
            effector = responder(services, settings)
        except ValueError as exc:
            return _fail(args.json, Status.INVALID_INPUT, f"{exc}; nothing was done", EXIT_INVALID)
        before_counts = services.actions._path_counts()
        intent = {"status": "intended", "reason": args.reason, "aws": True, "before_image": aws["plan"]["before_image"]}
        services.audit.add_event(
            "release",
            actor,
            f"{actor} is releasing {args.route_id} on the AWS account (applied by {run.run_id}): {args.reason}",
            intent,
            graph=services.store.settings.graph,
            run_id=run.run_id,
            route_id=args.route_id,
        )
        try:
            outcome = effector.release(aws)
        except DriftRefused as exc:
            services.audit.add_event(
                "release",
                actor,
                f"release of {args.route_id} refused: {exc}",
                {"status": "refused", "reason": str(exc), "aws": True},
                graph=services.store.settings.graph,
                run_id=run.run_id,
                route_id=args.route_id,
            )
            return _fail(args.json, Status.INVALID_INPUT, f"release refused: {exc}", EXIT_INVALID)
        from ..respond.aws_respond import AccountPlan

        plan = AccountPlan(**aws["plan"])
        why = effector.resync(plan)
        after_counts = services.actions._path_counts()
        reopened = [
            {"alert_id": a, "paths_before": before_counts.get(a, 0), "paths_after": n}
            for a, n in sorted(after_counts.items())
            if n > before_counts.get(a, 0)
        ]
        payload = {
            "status": "ok",
            "state": "released",
            "route_id": args.route_id,
            "blocked_by_run": run.run_id,
            "actor": actor,
            "reason": args.reason,
            "aws": True,
            "before_image": aws["plan"]["before_image"],
            **outcome,
            "resync": why or "re-synced",
            "alerts_reopened": reopened,
        }
        services.audit.add_event(
            "release",
            actor,
            f"{actor} released {args.route_id} on the AWS account (request {outcome['request_id']}): {args.reason}",
            {**payload, "status": "released"},
            graph=services.store.settings.graph,
            run_id=run.run_id,
            route_id=args.route_id,
        )
        lines = [
            f"[released] {args.route_id} on the AWS account: {outcome['call']['api']}"
            f" {outcome['call']['params']} (request {outcome['request_id']}); re-read through the API:"
            f" {'verified' if outcome['api_verified'] else 'NOT confirmed'}; graph re-sync: {why or 'ok'}",
            *(f"  {a['alert_id']}: {a['paths_before']} -> {a['paths_after']} qualifying path(s)" for a in reopened),
        ]
        _emit(payload, args.json, "\n".join(lines))
        return EXIT_OK if outcome["api_verified"] and not why else 1
    except QueryFailed as exc:
        return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
    finally:
        services.close()


def _collect(args: argparse.Namespace, settings: Any) -> int:
    from ..sources.aws.collect import CollectError, collect_accounts

    if args.organization and not args.member_role:
        return _fail(args.json, Status.INVALID_INPUT, "--organization needs --member-role NAME", EXIT_INVALID)
    if args.sensitivity and not args.do_import:
        return _fail(args.json, Status.INVALID_INPUT, "--sensitivity is only for --import", EXIT_INVALID)
    accounts = [a.strip() for a in args.accounts.split(",") if a.strip()]
    if any(not (a.isdigit() and len(a) == 12) for a in accounts):
        return _fail(args.json, Status.INVALID_INPUT, "--accounts takes 12-digit account ids", EXIT_INVALID)
    try:
        session = collect_session(args.profile)
    except ValueError as exc:
        return _fail(args.json, Status.INVALID_INPUT, f"{exc}; nothing collected", EXIT_INVALID)

    def progress(event: dict[str, Any]) -> None:
        if args.json or event.get("state") == "calling":
            return
        item = f" {event['item']}" if event.get("item") else ""
        print(f"[{event['account']}] {event['call']}{item}: {event['state']}", file=sys.stderr, flush=True)

    try:
        report = collect_accounts(
            session,
            Path(args.out),
            regions=args.region or None,
            endpoint_url=args.endpoint_url,
            progress=progress,
            organization=args.organization,
            member_role=args.member_role,
            accounts=accounts or None,
        )
    except CollectError as exc:
        return _fail(args.json, Status.QUERY_FAILED, f"collection failed: {exc}", EXIT_FAILED)
    except OSError as exc:
        return _fail(args.json, Status.INVALID_INPUT, f"cannot write {args.out}: {exc}", EXIT_INVALID)
    lines = [
        f"collected accounts {', '.join(report.accounts)} into {report.out}: {report.files} files,"
        f" {sum(report.calls.values())} calls in {report.seconds:.1f} s",
        *(f"warning: [{w['account']}] {w['call']}: {w['message']}" for w in report.warnings),
    ]
    if args.do_import:
        from ..base.actor import local_actor
        from ..graph.store import QueryFailed
        from ..sources.aws import AwsInputError, import_aws
        from .service import open_services

        try:
            services = open_services(settings)
        except QueryFailed as exc:
            return _fail(args.json, Status.QUERY_FAILED, str(exc), EXIT_FAILED)
        try:
            imported = import_aws(
                services.store,
                list(report.folders.values()),
                sensitivity_file=Path(args.sensitivity) if args.sensitivity else None,
                actor=local_actor(),
            )
        except AwsInputError as exc:
            return _fail(args.json, Status.INVALID_INPUT, f"collected, but nothing imported: {exc}", EXIT_INVALID)
        except QueryFailed as exc:
            return _fail(args.json, Status.QUERY_FAILED, f"collected, but the import failed: {exc}", EXIT_FAILED)
        finally:
            services.close()
        record_collections(settings, report.folders)
        report.imported = imported.to_dict()
        counts = imported.counts
        lines.append(
            f"imported accounts {', '.join(imported.accounts)}: "
            + ", ".join(f"{n} {label}" for label, n in sorted(counts["nodes"].items()))
            + f"; {counts['alerts']} alerts; {len(imported.warnings)} warning(s)"
        )
    _emit(report.to_dict(), args.json, "\n".join(lines))
    return EXIT_OK
