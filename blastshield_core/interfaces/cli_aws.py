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
    return None


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
