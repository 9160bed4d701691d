"""Load: an AWS import through the existing import path (one validated document, one staging graph, one rename).

Re-importing an account re-syncs it: what the new snapshot no longer holds is
removed (see `ingest.snapshot_pruner`), what changed is updated, and other
accounts and the scenario data are untouched. `replace` swaps the whole graph.
`resync_user` re-syncs one user's slice only, in place (after a containment action).
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ....graph.ingest import ImportReport, import_document, paused_gc, snapshot_pruner
from ....graph.inplace import principal_slice, replace_slice
from ....graph.model import BuiltDocument, DocumentError
from ....graph.store import Store
from ..cloudtrail import CLOUDTRAIL_EVENT, IamChange, iam_changes
from .common import entity_id
from .get import AwsInputError, AwsSources, read_sources
from .report import AwsImportReport
from .transform import build_from_sources, parse_sensitivity

__all__ = ["build_document", "import_aws", "read_sensitivity_file", "resync_user", "user_sources"]


def read_sensitivity_file(path: Path | str) -> dict[str, str]:
    """A --sensitivity file: a JSON object mapping ARN globs to levels (first match wins). AwsInputError if bad."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise AwsInputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AwsInputError(f"{path}: is not valid JSON ({exc})") from None
    try:
        parse_sensitivity(data)
    except ValueError as exc:
        raise AwsInputError(f"{path}: {exc}") from None
    return data


def build_document(
    sources: AwsSources, *, sensitivity: Mapping[str, str] | None = None
) -> tuple[BuiltDocument, AwsImportReport]:
    """The graph document for recognised sources and the report (nothing is written). Pure."""
    try:
        rules = parse_sensitivity(dict(sensitivity or {}))
    except ValueError as exc:
        raise AwsInputError(str(exc)) from None
    started = time.perf_counter()
    doc, report = build_from_sources(sources, rules)
    report.timings["evaluate_s"] = round(time.perf_counter() - started, 3)
    return doc, report


def import_aws(
    store: Store,
    items: Sequence[Path | str | tuple[str, bytes]],
    *,
    sensitivity_file: Path | None = None,
    replace: bool = False,
    progress: Callable[..., None] | None = None,
    actor: str | None = None,
) -> AwsImportReport:
    """Read, transform and load AWS exports; the report says what was written.

    Raises AwsInputError (nothing written) for inputs that cannot be imported;
    QueryFailed when the database fails (nothing written either).
    """
    started = time.perf_counter()
    sensitivity = read_sensitivity_file(sensitivity_file) if sensitivity_file is not None else None
    # The parsed files and the document are millions of objects that form no cycles: the collector
    # stays paused until they are gone (see `ingest.paused_gc`), or its next collections walk them all.
    with paused_gc():
        sources = read_sources(items)
        changes, records = iam_changes(f.data for f in sources.of("cloudtrail"))
        parsed = time.perf_counter()
        doc, report = build_document(sources, sensitivity=sensitivity)
        warn_missing_parts(sources, report)
        report.timings["parse_s"] = round(parsed - started, 3)
        loading = time.perf_counter()
        removed: dict[str, int] = {"nodes": 0, "relationships": 0, "alerts": 0}
        prune = None if replace else snapshot_pruner(doc, report.accounts, removed)
        result = import_document(store, doc, replace=replace, progress=progress, prune=prune, actor=actor)
        report.timings["load_s"] = round(time.perf_counter() - loading, 3)
        del sources, doc, prune
    report.status = "imported"
    report.replaced = replace
    report.removed = removed
    report.preserved_blocks = list(result.preserved_blocks)
    report.blocks_gone = list(result.blocks_gone)
    report.actor = result.actor
    if records:
        _record_cloudtrail(store, changes, records, result.actor)
    return report


def _record_cloudtrail(store: Store, changes: list[IamChange], records: int, actor: str | None) -> None:
    """Keep, in the audit, the IAM changes of the imported CloudTrail events that can undo a containment
    action (`cloudtrail.py`): `verify-account` names from them who undid one."""
    from ....graph.audit import AuditLog

    AuditLog(store).add_event(
        CLOUDTRAIL_EVENT,
        actor or "",
        f"CloudTrail: {records} event(s) read, {len(changes)} IAM change(s) that can undo containment kept",
        {"records": records, "changes": [c.to_dict() for c in changes]},
        graph=store.settings.graph,
    )


def warn_missing_parts(sources: AwsSources, report: AwsImportReport) -> None:
    """A warning for each part a collection's manifest says is missing (denied, failed, cut off)."""
    from ..collect.manifest import missing_parts

    for manifest in sources.of("collection_manifest"):
        for part in missing_parts(manifest.data):
            what = f"{part.get('call', '')} {part.get('state', '')}: {part.get('reason', '')}".strip()
            lost = f"{part.get('file')} is not in this collection" if part.get("file") else "its data is not imported"
            report.warn(manifest.name, str(part.get("item", "")), f"{what}; {lost}")


SLICE_KINDS = frozenset({"credential_report", "access_keys", "instances", "functions"})


def _policy_arns(entries: list[dict]) -> set[str]:
    """The managed policies the entries attach or take as their permissions boundary."""
    arns: set[str] = set()
    for entry in entries:
        for attached in entry.get("AttachedManagedPolicies") or []:
            if isinstance(attached, dict) and isinstance(attached.get("PolicyArn"), str):
                arns.add(attached["PolicyArn"])
        boundary = entry.get("PermissionsBoundary")
        if isinstance(boundary, dict) and isinstance(boundary.get("PermissionsBoundaryArn"), str):
            arns.add(boundary["PermissionsBoundaryArn"])
    return arns


def user_sources(sources: AwsSources, account: str, user: str) -> AwsSources:
    """What the slice of one IAM user is derived from: the account authorization details cut to the
    user, its groups and the managed policies they attach (no role), the credential report, the access key
    listing, and the instances and functions its sessions may reach. The transform of these gives
    the user's Identity, sessions and the relationships leaving them as the whole collection's
    transform does (`tests/integration/graph/test_inplace.py` compares them for every user of its accounts), without
    evaluating every other principal and resource of the account. Pure."""
    files = []
    for source in sources.files:
        if source.kind == "gaad":
            users = [
                entry
                for entry in source.data.get("UserDetailList") or []
                if isinstance(entry, dict)
                and entry.get("UserName") == user
                and str(entry.get("Arn", "")).startswith(f"arn:aws:iam::{account}:user/")
            ]
            if not users:
                continue
            groups = set(users[0].get("GroupList") or [])
            listed = source.data.get("GroupDetailList") or []
            group_list = [g for g in listed if isinstance(g, dict) and g.get("GroupName") in groups]
            used = _policy_arns([users[0], *group_list])
            data = {
                **source.data,
                "UserDetailList": users,
                "RoleDetailList": [],
                "GroupDetailList": group_list,
                "Policies": [
                    p for p in source.data.get("Policies") or [] if not isinstance(p, dict) or p.get("Arn") in used
                ],
            }
            files.append(dataclasses.replace(source, data=data))
        elif source.kind in SLICE_KINDS:
            files.append(source)
    return AwsSources(files=files)


def resync_user(
    store: Store,
    items: Sequence[Path | str | tuple[str, bytes]],
    account: str,
    user: str,
    *,
    sensitivity_file: Path | None = None,
    actor: str | None = None,
) -> ImportReport:
    """Re-sync one IAM user's slice from an account's collection: the collection is read, cut to
    what the user's slice is derived from (`user_sources`) and transformed as `import_aws` does
    (nothing written), the user's slice (its Identity, its sessions and the relationships leaving
    them, as the transform derives them) is cut out,
    and `inplace.replace_slice` makes the live slice exactly that, in one query, keeping
    blocks, audited. Nothing else in the graph is touched.

    Raises AwsInputError (nothing written) for inputs that cannot be read or a user the
    collection does not hold, DocumentError (nothing written) for a slice the graph refuses,
    QueryFailed when the database fails."""
    sensitivity = read_sensitivity_file(sensitivity_file) if sensitivity_file is not None else None
    principal = entity_id(account, "user", user)
    with paused_gc():
        doc, _ = build_document(user_sources(read_sources(items), account, user), sensitivity=sensitivity)
        try:
            part = principal_slice(doc, principal, name=f"aws-slice-{account}-{user}")
        except DocumentError:
            raise AwsInputError(f"the collection of account {account} holds no user {user!r}") from None
        del doc
    return replace_slice(store, part, principal, actor=actor)
