"""The live account for the command line and the dashboard alike: profiles, collection with
progress, the plans of an alert's candidates, and release of an action made on the account.

`cli_aws` (the commands) and the pages (through the service facade) call these, so a plan, a
release or a collection means the same thing wherever it is started. Imported only when used.
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...results import Status

if TYPE_CHECKING:
    from ...base.settings import Settings
    from ...graph.audit import AuditEvent
    from ...graph.store import Store
    from ...respond.aws.responder import AccountResponder
    from ...respond.effector import AccountEffector
    from ...results import CandidatesResult, RunAction, RunRecord
    from ...results.account import AccountOutcome, AccountPlan, AccountTarget, CandidatePlan
    from ...sources.aws.collect.bounds import Bounds
    from ...sources.aws.collect.collector import Progress
    from .view import ServicesView

__all__ = [
    "COLLECTIONS_FILE",
    "AccountRefused",
    "CollectionJob",
    "account_calls",
    "account_plans",
    "account_releasable",
    "aws_profiles",
    "aws_regions",
    "collect_profiles",
    "collect_session",
    "collection_step",
    "recorded_collections",
    "release_on_account",
    "responder",
    "responder_for",
    "revocation_undone_event",
    "revocations_in_force",
]


COLLECTIONS_FILE = "aws-collections.json"  # in the data folder: account -> its last imported collection


def _session(profile: str | None) -> Any:
    """A boto3 session of the profile (opened in `sources/aws/collect/`, the read side's AWS room)."""
    from ...sources.aws.collect import profiles

    return profiles.profile_session(profile)


def collect_session(profile: str | None = None) -> Any:
    return _session(profile or os.environ.get("BLASTSHIELD_AWS_COLLECT_PROFILE") or None)


def recorded_collections(settings: Settings) -> dict[str, str]:
    path = Path(settings.data_dir) / COLLECTIONS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def record_collections(settings: Settings, folders: dict[str, str]) -> None:
    from ...base.privatefile import write_private

    known = recorded_collections(settings)
    known.update({k: str(Path(v).resolve()) for k, v in folders.items()})
    Path(settings.data_dir).mkdir(parents=True, exist_ok=True)
    write_private(Path(settings.data_dir) / COLLECTIONS_FILE, json.dumps(known, indent=1, sort_keys=True))


RESPOND_PROFILES_VAR = "BLASTSHIELD_AWS_RESPOND_PROFILES"


def respond_profiles(path: str) -> dict[str, tuple[str, str]]:
    """The mapping file of respond profiles per account (JSON, or TOML when it ends in `.toml`):
    `{"123456789012": "respond-a", "999988887777": {"respond": "respond-b", "collect": "collect-b"}}`.
    Account id -> (respond profile, collect profile or '' for the collect profile configured). Raises
    ValueError, naming the entry, for a file that cannot be read or an entry that is not an account id
    and a profile name."""
    import tomllib

    try:
        text = Path(path).read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.endswith(".toml") else json.loads(text)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{RESPOND_PROFILES_VAR} {path} cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{RESPOND_PROFILES_VAR} {path} is not a mapping of account ids to profiles")
    out: dict[str, tuple[str, str]] = {}
    for account, entry in data.items():
        respond, collect = (entry, "") if isinstance(entry, str) else (
            (entry.get("respond"), entry.get("collect") or "") if isinstance(entry, dict) else (None, "")
        )  # fmt: skip
        if not (isinstance(account, str) and account.isdigit() and len(account) == 12):
            raise ValueError(f"{RESPOND_PROFILES_VAR} {path}: {account!r} is not a 12-digit account id")
        if not isinstance(respond, str) or not respond or not isinstance(collect, str):
            raise ValueError(f"{RESPOND_PROFILES_VAR} {path}: account {account} names no respond profile")
        out[account] = (respond, collect)
    return out


def responder(services: ServicesView, settings: Settings) -> AccountResponder:
    """The account responder: writes with BLASTSHIELD_AWS_RESPOND_PROFILE when it is set (else
    every AWS-backed route is blocked in the graph only, "not applied in AWS"), or with the profile
    the mapping file BLASTSHIELD_AWS_RESPOND_PROFILES names for the target's account (an account it
    does not name is graph only: never acted on with another account's credentials); re-collects
    with the collect profile into the folder `collect-aws --import` recorded, and re-syncs the
    user's slice in place (`resync_user`: that slice alone, in one query, not the whole account)."""
    from ...respond.aws.actions import AccountSessions
    from ...respond.aws.responder import AccountResponder
    from ...sources.aws.collect.collector import CollectError, botocore_config, recollect_user_keys

    config = botocore_config()
    mapping_file = os.environ.get(RESPOND_PROFILES_VAR) or ""
    respond_profile = os.environ.get("BLASTSHIELD_AWS_RESPOND_PROFILE") or ""
    if mapping_file and respond_profile:
        raise ValueError(f"set BLASTSHIELD_AWS_RESPOND_PROFILE or {RESPOND_PROFILES_VAR}, not both")
    collect_configured = bool(os.environ.get("BLASTSHIELD_AWS_COLLECT_PROFILE"))

    def sessions_of(respond_name: str, collect_name: str, account: str = "") -> AccountSessions:
        respond = _session(respond_name) if respond_name else None
        if collect_name:
            collect = collect_session(collect_name)
        else:
            collect = collect_session() if collect_configured or respond else None
        reader = collect or respond

        def recollection(target_account: str) -> str:
            folder = recorded_collections(settings).get(target_account)
            if not folder or not Path(folder).is_dir():
                return (
                    f"no collection of account {target_account} is recorded (run collect-aws --import): the"
                    " write could not be verified"
                )
            return "" if reader is not None else "no collect profile to re-collect with"

        why = (
            f"no respond profile for account {account} in {RESPOND_PROFILES_VAR} ({mapping_file})"
            if mapping_file
            else "no respond profile is configured (BLASTSHIELD_AWS_RESPOND_PROFILE)"
        )
        return AccountSessions(
            respond=respond, read=reader, client_config=config, recollection=recollection, why_not_applied=why
        )

    if mapping_file:
        by_account = {a: sessions_of(r, c, a) for a, (r, c) in respond_profiles(mapping_file).items()}

        def sessions_for(account: str) -> AccountSessions:
            return by_account.get(account) or sessions_of("", "", account)

        default = sessions_of("", "", "?")
    else:
        default = sessions_of(respond_profile, "")

        def sessions_for(account: str) -> AccountSessions:
            return default

    def resync(account: str, user: str) -> str:
        from ...base.actor import local_actor
        from ...graph.model import DocumentError
        from ...graph.store import QueryFailed
        from ...sources.aws import AwsInputError, resync_user

        folder = recorded_collections(settings).get(account)
        if not folder or not Path(folder).is_dir():
            return f"no collection of account {account} is recorded (run collect-aws --import)"
        reader = sessions_for(account).reader
        if reader is None:
            return "no collect profile to re-collect with"
        try:
            recollect_user_keys(reader, folder, user)
            resync_user(services.store, [folder], account, user, actor=local_actor())
        except (CollectError, AwsInputError, DocumentError, QueryFailed) as exc:
            return str(exc)
        return ""

    return AccountResponder(
        services.store,
        default,
        resync=resync,
        identify=lambda *a: identify(settings, *a),
        sessions_for=sessions_for if mapping_file else None,
    )


def identify(settings: Settings, account: str, principal: str, arn: str) -> tuple[AccountTarget, tuple[str, ...]] | str:
    """The principal of `arn` as the recorded collection of `account` names it (its name, ARN and
    unique id) and, for a user, its listed access key ids; or why it is not known."""
    from ...results.account import AccountTarget
    from ...sources.aws.build.identity import IdentityUnknown, collected_principal

    folder = recorded_collections(settings).get(account)
    if not folder or not Path(folder).is_dir():
        return (
            f"no collection of account {account} is recorded (run collect-aws --import): {arn}'s unique id is not known"
        )
    try:
        found = collected_principal(folder, account, principal, arn)
    except IdentityUnknown as exc:
        return str(exc)
    target = AccountTarget(
        account=account, principal="user" if principal == "user" else "role", name=found.name, arn=found.arn,
        unique_id=found.unique_id,
    )  # fmt: skip
    return target, found.access_key_ids


class AccountRefused(ValueError):
    """A release on the account that was refused (bad input, no respond profile, drift): nothing changed."""

    def __init__(self, message: str, status: Status = Status.INVALID_INPUT):
        super().__init__(message)
        self.status = status


def account_calls() -> tuple[str, ...]:
    """The kinds of call one account's collection makes (a progress bar's whole)."""
    from ...sources.aws.exports import COLLECTOR_ACTIONS, OTHER_COLLECTOR_ACTIONS  # (those: later, or not at all)

    return tuple(a for a in COLLECTOR_ACTIONS if a not in OTHER_COLLECTOR_ACTIONS)


def collection_step(event: dict[str, Any]) -> str:
    """One progress event as the command line and the page both say it: a count of principals
    (`ListAccessKeys 812/2000 (alice)`), else the call, its item and its state."""
    if "total" in event:
        return f"{str(event['call']).split(':')[-1]} {event['done']}/{event['total']} ({event['item']})"
    item = f" {event['item']}" if event.get("item") else ""
    return f"{event['call']}{item}: {event['state']}"


def aws_regions() -> list[str]:
    """The regions botocore knows for EC2 (from its bundled endpoint data; no call is made)."""
    from ...sources.aws.collect.profiles import aws_regions as regions

    return regions()


def aws_profiles() -> list[str]:
    """The profiles of the user's AWS config and credentials files (botocore's own listing)."""
    from ...sources.aws.collect.profiles import aws_profiles as profiles

    return profiles()


def collect_profiles() -> tuple[list[str], int | None, set[str]]:
    """The profiles a collection form offers: BLASTSHIELD_AWS_COLLECT_PROFILE first and chosen, the
    profile that can write (BLASTSHIELD_AWS_RESPOND_PROFILE) marked and never chosen for you. The
    profiles, the index to preselect (None: none is safe to preselect) and the writing ones."""
    profiles = aws_profiles()
    collect = os.environ.get("BLASTSHIELD_AWS_COLLECT_PROFILE") or ""
    writing = {p for p in (os.environ.get("BLASTSHIELD_AWS_RESPOND_PROFILE") or "",) if p} & set(profiles)
    if collect in profiles:
        profiles.remove(collect)
        profiles.insert(0, collect)
        return profiles, (0 if collect not in writing else None), writing
    return profiles, None, writing


def responder_for(services: ServicesView) -> AccountResponder:
    """The account responder over these services (see `responder`). Raises ValueError for
    a profile that is not in the AWS config."""
    return responder(services, services.store.settings)


def account_plans(
    services: ServicesView, alert_id: str, effector: AccountEffector
) -> tuple[CandidatesResult, list[CandidatePlan]]:
    """The alert's candidates and, for each, what blocking it does (`aws`: the account plan, or
    `graph_only`). Reads only: nothing is executed."""
    from ...results.account import CandidatePlan

    candidates = services.tools.get_response_candidates(alert_id)
    plans: list[CandidatePlan] = []
    if not candidates.status.is_answer:
        return candidates, plans
    for candidate in candidates.candidates:
        plan = effector.plan(candidate.route_id)
        plans.append(
            CandidatePlan(
                candidate_id=candidate.id,
                route_id=candidate.route_id,
                paths_cut=candidate.paths_cut,
                graph_only=plan is None,
                aws=plan,
            )
        )
    return candidates, plans


def verified_record(
    services: ServicesView, effector: AccountResponder, candidate_id: str, plan: AccountPlan, record: str
) -> None:
    """Refuse a release (AccountRefused, nothing done) unless the audit's hash chain and anchor
    verify, and the record's target is the principal `candidate_id` names now (account, full ARN,
    unique id): a release writes only what a verifiable record says, to whom the candidate is."""
    check = services.audit.verify()
    if not check.intact and check.broken is not None:
        broken = check.broken
        raise AccountRefused(
            f"the audit does not verify ({broken.record} {broken.id}: {broken.reason}): release takes nothing"
            f" from {record}; nothing was done"
        )
    if check.anchor == "missing":
        raise AccountRefused(f"the audit's anchor log is missing: {record} cannot be verified; nothing was done")
    principal = effector.principal_of(candidate_id)
    if isinstance(principal, str):
        raise AccountRefused(f"{principal}: {record} cannot be matched to it; nothing was done")
    from ...results.account import AccountActionKind

    target = plan.target
    recorded: tuple[str, ...] | None = (
        (target.account, target.principal, target.arn, target.unique_id) if target else None
    )
    now: tuple[str, ...] = (principal.account, principal.principal, principal.arn, principal.unique_id)
    if plan.kind is AccountActionKind.DEACTIVATE_ACCESS_KEY:  # and the very key the route stands for
        recorded = (*recorded, target.access_key_id) if target and recorded else None
        now = (*now, principal.access_key_id)
    if recorded != now:
        aimed = f"{target.arn or '?'} ({target.unique_id or 'no unique id'})" if target else "no named principal"
        raise AccountRefused(
            f"{record} aims at {aimed}, not at {principal.arn} ({principal.unique_id}), the principal of"
            f" {candidate_id}: release refused; nothing was done"
        )


def _other_blocks(services: ServicesView, route_id: str) -> list[dict[str, Any]]:
    """BlastShield's unreleased deny-all policies on the user of `route_id` (made for another of the
    user's routes): while one holds, every credential route of that user stays blocked."""
    from ...respond.aws.responder import AccountResponder
    from ...results.account import AccountActionKind

    props = AccountResponder(services.store).session_props(route_id)
    if props is None:
        return []
    out = []
    for entry in account_releasable(services):
        if entry["route_id"] == route_id or entry["kind"] != AccountActionKind.DENY_ALL_INLINE_POLICY.value:
            continue
        found = _account_action(services, entry["route_id"])
        target = found[1].plan.target if found is not None else None
        if target is not None and (target.account, target.arn) == (str(props.get("account", "")), props["arn"]):
            out.append({**entry, "principal": target.arn})
    return out


def _order_text(route_id: str, blocking: list[dict[str, Any]]) -> str:
    """Why `route_id` stays blocked, and the command that releases the rest."""
    return "; ".join(
        f"{route_id} stays blocked by BlastShield's deny-all policy on {b['principal']} (run {b['run_id']},"
        f" route {b['route_id']}), which stops every credential of the user: release it with"
        f" `release {b['route_id']} --reason TEXT --confirm`"
        for b in blocking
    )


def _releasable_here(action: RunAction) -> bool:
    """A run action this release restores: a route change applied on the account. A session
    revocation is released through `sessions.release_revocation` (with its acknowledgement)."""
    from ...results.account import REVOCATION_OPERATIONS

    aws = action.aws
    return aws is not None and aws.applied_in_aws and aws.applied and action.operation not in REVOCATION_OPERATIONS


def _account_action(services: ServicesView, route_id: str) -> tuple[RunRecord, AccountOutcome] | None:
    """The newest run action that changed the account for this route and is not released."""
    for run in services.audit.list_runs():
        for action in reversed(run.actions):
            if action.route_id != route_id or not _releasable_here(action) or action.aws is None:
                continue
            released = [
                e
                for e in services.audit.events_for_run(run.run_id)
                if e.route_id == route_id and e.data.get("status") == "released" and e.data.get("aws")
            ]
            return None if released else (run, action.aws)
    return None


def account_releasable(services: ServicesView) -> list[dict[str, Any]]:
    """Routes a run changed on the account and no release has restored yet (newest first)."""
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for run in services.audit.list_runs():
        for action in run.actions:
            if action.route_id in seen or not _releasable_here(action) or action.aws is None:
                continue
            seen.add(action.route_id)
            if _account_action(services, action.route_id) is not None:
                out.append({"route_id": action.route_id, "run_id": run.run_id, "kind": action.aws.plan.kind.value})
    return out


def revocations_in_force(services: ServicesView, limit: int = 1000) -> list[dict[str, Any]]:
    """Applied revocations not released since (newest first): candidate id, the applied event's data,
    and its id and time (`event_id`, `applied_at`). One found undone on the account is still listed
    (`verify.undone_revocations` tells those apart) until it is revoked again or forgotten."""
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for event in services.audit.events_of_kind("revoke_sessions", limit):  # newest first
        if event.route_id in seen:
            continue
        status = event.data.get("status")
        if status in {"released", "applied"}:
            seen.add(event.route_id)
            if status == "applied":
                out.append({"candidate_id": event.route_id, **event.data, "event_id": event.event_id,
                            "applied_at": event.at.isoformat(timespec="seconds")})  # fmt: skip
    return out


UNDONE = "undone_on_account"  # the audit event of an account action found undone (`verify.py`)


def undone_event(services: ServicesView, run_id: str, route_id: str) -> AuditEvent | None:
    """The `undone_on_account` event of this run's action on this route, if one was recorded."""
    return next((e for e in services.audit.events_for_run(run_id) if e.kind == UNDONE and e.route_id == route_id), None)


UNDONE_READ = 500  # the newest undone events searched for a revocation's


def revocation_undone_event(services: ServicesView, candidate_id: str, applied_event: str) -> AuditEvent | None:
    """The `undone_on_account` event of the revocation applied by the audit event `applied_event`
    (a revocation made again later is another applied event, re-read afresh), if one was recorded."""
    return next(
        (
            e
            for e in services.audit.events_of_kind(UNDONE, UNDONE_READ)
            if e.route_id == candidate_id and e.data.get("applied_event") == applied_event
        ),
        None,
    )


def _forget_undone(
    services: ServicesView, run: RunRecord, route_id: str, reason: str, actor: str, *, undone: AuditEvent
) -> dict[str, Any]:
    """Acknowledge an action undone on the account and forget its block: nothing is called on the
    account (it no longer holds what BlastShield set); the audit records the release as forgotten."""
    seen_at = undone.data.get("seen_at", "")
    summary = f"{actor} acknowledged that {route_id} was undone on the account (seen at {seen_at}) and forgot the block"
    services.audit.add_event(
        "release",
        actor,
        f"{summary}: {reason}",
        {"status": "released", "reason": reason, "aws": True, "forgotten": True, "undone_event": undone.event_id},
        graph=services.store.settings.graph,
        run_id=run.run_id,
        route_id=route_id,
    )
    return {
        "status": "ok",
        "state": "forgotten",
        "route_id": route_id,
        "blocked_by_run": run.run_id,
        "actor": actor,
        "reason": reason,
        "aws": True,
        "undone_seen_at": seen_at,
        "message": summary + "; nothing was called on the account",
    }


def release_on_account(
    services: ServicesView, route_id: str, reason: object, confirm: object, actor: str, *, acknowledge: object = False
) -> dict[str, Any] | None:
    """Restore the before-image of the action a run made on the account for `route_id`.

    None when no unreleased account action exists for the route (the ordinary graph release
    applies). Raises AccountRefused (audited when it is drift) and changes nothing when the
    input is bad, no respond profile is configured or the live object is not what BlastShield set.
    """
    from ...respond.act import ActionService
    from ...respond.aws.responder import DriftRefused, release_needs_acknowledgement

    found = _account_action(services, route_id)
    if found is None:
        blocking = _other_blocks(services, route_id)
        graph_blocks = {b["route_id"] for b in services.actions.blocked_routes()}
        if blocking and route_id not in graph_blocks:
            raise AccountRefused(f"{route_id} has nothing of its own to release: {_order_text(route_id, blocking)}")
        return None
    run, aws = found
    invalid = ActionService._release_input_error(route_id, reason, confirm, actor)
    if invalid or not isinstance(reason, str):  # the input check refuses any reason but text
        raise AccountRefused(invalid or "a release needs a reason")
    undone = undone_event(services, run.run_id, route_id)
    if undone is not None:  # the account no longer holds it: nothing to restore, the block is forgotten
        return _forget_undone(services, run, route_id, reason, actor, undone=undone)
    needs = release_needs_acknowledgement(aws.plan.kind)
    if needs and acknowledge is not True:
        raise AccountRefused(f"{needs}; nothing was done")
    try:
        effector = responder_for(services)
    except ValueError as exc:
        raise AccountRefused(f"{exc}; nothing was done") from None
    verified_record(services, effector, route_id, aws.plan, f"the action of run {run.run_id} on {route_id}")
    graph = services.store.settings.graph
    before_counts = services.actions._path_counts()
    intent = {"status": "intended", "reason": reason, "aws": True, "before_image": aws.plan.before_image}
    services.audit.add_event(
        "release",
        actor,
        f"{actor} is releasing {route_id} on the AWS account (applied by {run.run_id}): {reason}",
        intent,
        graph=graph,
        run_id=run.run_id,
        route_id=route_id,
    )
    try:
        outcome = effector.release(aws.plan)
    except DriftRefused as exc:
        services.audit.add_event(
            "release",
            actor,
            f"release of {route_id} refused: {exc}",
            {"status": "refused", "reason": str(exc), "aws": True},
            graph=graph,
            run_id=run.run_id,
            route_id=route_id,
        )
        raise AccountRefused(f"release refused: {exc}") from None
    why = effector.resync(aws.plan)
    after_counts = services.actions._path_counts()
    reopened = [
        {"alert_id": a, "paths_before": before_counts.get(a, 0), "paths_after": n}
        for a, n in sorted(after_counts.items())
        if n > before_counts.get(a, 0)
    ]
    payload = {
        "status": "ok",
        "state": "released",
        "route_id": route_id,
        "blocked_by_run": run.run_id,
        "actor": actor,
        "reason": reason,
        "aws": True,
        "before_image": aws.plan.before_image,
        **outcome.model_dump(mode="json"),
        "resync": why or "re-synced",
        "alerts_reopened": reopened,
    }
    if needs:
        payload["acknowledged"] = needs
    blocking = _other_blocks(services, route_id)
    if blocking:  # released, and still blocked by another of BlastShield's actions on the same principal
        payload["still_blocked_by"] = blocking
        payload["release_order"] = _order_text(route_id, blocking)
    services.audit.add_event(
        "release",
        actor,
        f"{actor} released {route_id} on the AWS account (request {outcome.request_id}): {reason}",
        {**payload, "status": "released"},
        graph=graph,
        run_id=run.run_id,
        route_id=route_id,
    )
    return payload


# -- collection with progress -----------------------------------------------------------


@dataclass
class CollectionJob:
    """A collection (and its import) running in a thread of its own; the caller drains its
    progress events on its own thread (a page draws only from the thread of its script run)."""

    profile: str
    regions: list[str]
    out: Path
    actor: str
    store: Store
    settings: Settings
    events: queue.Queue[dict[str, Any] | None] = field(default_factory=queue.Queue)
    bounds: Bounds | None = None  # None: the defaults
    result: dict[str, Any] | None = None
    error: str = ""
    status: Status = Status.OK
    _thread: threading.Thread | None = None

    def start(self) -> CollectionJob:
        self._thread = threading.Thread(target=self._run, name="blastshield-collect", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self.result = collect_and_import(
                self.store,
                self.settings,
                profile=self.profile,
                regions=self.regions,
                out=self.out,
                progress=self.events.put,
                actor=self.actor,
                bounds=self.bounds,
            )
        except AccountRefused as exc:  # bad input, or nothing could be collected
            self.error, self.status = str(exc), exc.status
        except Exception as exc:  # said on the page, never a thread dying in the server log
            self.error = f"the collection failed unexpectedly ({type(exc).__name__}: {exc}); nothing imported"
            self.status = Status.QUERY_FAILED
        finally:
            self.events.put(None)

    def progress(self, wait_s: float = 0.2, heartbeat_s: float | None = None):
        """Yield progress events until the collection and import are over. With `heartbeat_s`, a
        `{"state": "waiting", "elapsed": S}` event whenever nothing else came for that long (a call
        that takes its time still moves the page's bar)."""
        started = last = time.monotonic()
        while True:
            try:
                event = self.events.get(timeout=wait_s)
            except queue.Empty:
                now = time.monotonic()
                if heartbeat_s is not None and now - last >= heartbeat_s:
                    last = now
                    yield {"account": "", "call": "", "item": "", "state": "waiting", "elapsed": now - started}
                continue
            if event is None:
                break
            last = time.monotonic()
            yield event
        if self._thread is not None:
            self._thread.join()


def collect_and_import(
    store: Store, settings: Settings, *, profile: str, regions: list[str], out: Path, progress: Progress, actor: str,
    bounds: Bounds | None = None,
) -> dict[str, Any]:  # fmt: skip
    """`collect-aws --profile P --region R … --out OUT --import`: the collection report with the
    import report under `imported`. Raises AccountRefused (with its status) on failure."""
    from ...graph.store import QueryFailed
    from ...sources.aws import AwsInputError, import_aws
    from ...sources.aws.collect.collector import CollectError, collect_accounts
    from ...sources.aws.collect.manifest import failure_line

    if profile not in aws_profiles():
        raise AccountRefused(f"AWS profile {profile!r} is not in the AWS config; nothing collected")
    bad = [r for r in regions if not r.replace("-", "").isalnum() or len(r) > 32]
    if not regions or bad:
        raise AccountRefused(f"choose one or more regions (not {bad}); nothing collected")
    try:
        session = collect_session(profile)
        started = time.perf_counter()
        report = collect_accounts(session, out, regions=regions, progress=progress, bounds=bounds)
    except ValueError as exc:
        raise AccountRefused(f"{exc}; nothing collected") from None
    except CollectError as exc:  # the same line as the command line's
        raise AccountRefused(failure_line(exc, profile), Status.QUERY_FAILED) from None
    except OSError as exc:
        raise AccountRefused(f"cannot write {out}: {exc}; nothing collected") from None
    progress({"account": "", "call": "import", "item": "", "state": "calling"})
    try:
        imported = import_aws(store, list(report.folders.values()), actor=actor)
    except AwsInputError as exc:
        raise AccountRefused(f"collected, but nothing imported: {exc}") from None
    except QueryFailed as exc:
        raise AccountRefused(f"collected, but the import failed: {exc}", Status.QUERY_FAILED) from None
    record_collections(settings, report.folders)
    report.imported = imported.to_dict()
    result = report.to_dict()
    result["seconds_total"] = round(time.perf_counter() - started, 3)
    return result
