"""Collect: read-only boto3 calls that write an account in the file layout `import-aws` reads.

One folder per account under the output folder, collected into a fresh hidden folder and put in
place when done (a snapshot), with `collection-manifest.json` (manifest.py). Every call is
read-only (the list is `COLLECTOR_ACTIONS`; docs/aws-live.md gives the IAM policy that allows
exactly these and a test feeds it to the policy evaluator). Every request is bounded (bounds.py:
time over the whole answer, size, pages, principals, the collection's deadline); botocore's
`standard` retry mode is the one retry layer. A call refused with AccessDenied, failed or cut off
is recorded as missing, with a warning naming the call; the collection goes on and writes no file
that looks complete for it. No credentials, an expired token, an unreachable or non-AWS endpoint
end it with a `CollectError` whose one line names the profile, the endpoint and the fix. Progress
is reported per call through `progress`, and per principal as a count.

| file | call |
|---|---|
| `sts-get-caller-identity.json` | `sts:GetCallerIdentity` (the account id, 12 digits, names the folder) |
| `collection-manifest.json` | every call complete, partial or denied, with the reason; the files written |
| `iam-get-account-authorization-details.json` | `iam:GetAccountAuthorizationDetails` (every page, merged) |
| `iam-get-credential-report.json` | `iam:GenerateCredentialReport`, then `iam:GetCredentialReport` (polled) |
| `iam-list-access-keys.json` | `iam:ListAccessKeys` per user (merged; `AccessKeyMetadata` with `UserName`) |
| `ec2-describe-instances.json`, `lambda-list-functions.json` | per region asked for (merged) |
| `s3-list-buckets.json` | `s3:ListAllMyBuckets`, each bucket's `Tags` from `s3:GetBucketTagging` |
| `s3-get-bucket-policy/BUCKET` | `s3:GetBucketPolicy` (`{"Policy": "<json text>"}`) |
| `secretsmanager-list-secrets.json`, `secretsmanager-get-resource-policy/NAME` | Secrets Manager |
| `kms-list-keys.json`, `kms-get-key-policy/KEY_ID` | KMS |
| `guardduty-get-findings.json` | `guardduty:ListDetectors`, `ListFindings`, `GetFindings` |
| `organizations-*.json`, `organizations-*/ID` | the organisation, its roots, SCPs and RCPs |
"""

from __future__ import annotations

import base64
import json
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from ....base.pools import track
from ..exports import COLLECTOR_ACTIONS, EXPORT
from . import services
from .bounds import BoundedSender, BoundExceeded, Bounds, Clock, NotAws
from .manifest import ACCOUNT_RE, MANIFEST_FILE, CollectError, Manifest, error_summary

__all__ = [
    "COLLECTOR_ACTIONS",
    "Bounds",
    "CollectError",
    "CollectReport",
    "botocore_config",
    "collect_account",
    "collect_accounts",
    "recollect_user_keys",
]

DENIED_CODES = frozenset({"AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "AuthorizationError"})
EXPIRED_CODES = frozenset({"ExpiredToken", "ExpiredTokenException", "RequestExpired", "TokenRefreshRequired"})
REFUSED_CODES = frozenset(
    {"InvalidClientTokenId", "UnrecognizedClientException", "SignatureDoesNotMatch", "InvalidAccessKeyId"}
)
ABSENT_CODES = frozenset(
    {"NoSuchBucketPolicy", "NoSuchTagSet", "NoSuchTagSetError", "ResourceNotFoundException", "NotFoundException"}
)
MAX_ACCOUNTS_IN_PARALLEL = 4
MAX_WARNINGS = 1000

Progress = Callable[[dict[str, Any]], None]


@dataclass
class CollectReport:
    """What a collection wrote: per account its folder, the calls made and the warnings."""

    status: str = "collected"  # or "partial": some part is missing (each account's manifest says which)
    out: str = ""
    accounts: list[str] = field(default_factory=list)
    folders: dict[str, str] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    warnings: list[dict[str, str]] = field(default_factory=list)
    warnings_beyond: int = 0
    files: int = 0
    seconds: float = 0.0
    imported: dict[str, Any] | None = None
    bounds: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


def botocore_config(bounds: Bounds | None = None) -> Any:
    """botocore's `standard` retry mode with a stated maximum of attempts (the one retry layer),
    and connect and read timeouts."""
    from botocore.config import Config

    b = bounds or Bounds()
    return Config(
        retries={"mode": "standard", "total_max_attempts": b.max_attempts},  # the first call included
        connect_timeout=b.connect_s,
        read_timeout=b.call_s,
        max_pool_connections=max(10, b.pool + 2),
    )


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"cannot write {type(value).__name__}")


@dataclass
class _Context:
    """What every account of one collection shares: the session's settings, the bounds, the clock,
    the sender, the report (guarded by its lock) and the progress callback."""

    out: Path
    regions: list[str]
    report: CollectReport
    progress: Progress | None
    endpoint_url: str | None
    bounds: Bounds
    clock: Clock
    sender: BoundedSender
    clients: dict[str, Any] = field(default_factory=dict)  # tests hand in stubbed clients
    lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def make(cls, out: Path, regions: list[str], progress: Progress | None, endpoint_url: str | None, *,
             bounds: Bounds | None, report: CollectReport | None = None, clients: dict[str, Any] | None = None,
             clock: Clock | None = None) -> _Context:  # fmt: skip
        b = bounds or Bounds()
        b.check()
        c = clock or Clock(b)
        report = report or CollectReport(out=str(out))
        report.bounds = {k: getattr(b, k) for k in b.__dataclass_fields__}
        return cls(out, regions, report, progress, endpoint_url, b, c, BoundedSender(b, c), clients or {})


class _Account:
    """One account's collection: the clients, the folder it is written to, the manifest."""

    def __init__(self, session: Any, ctx: _Context, label: str = ""):
        self.session = session
        self.ctx = ctx
        self.label = label
        self.folder: Path | None = None
        self.account = ""
        self.manifest = Manifest()
        self._clients: dict[tuple[str, str], Any] = {}
        self._client_lock = threading.Lock()

    # -- clients and calls ---------------------------------------------------------
    def client(self, service: str, region: str | None = None) -> Any:
        region = region or self.ctx.regions[0]
        if service in self.ctx.clients:
            return self.ctx.clients[service]
        key = (service, region)
        with self._client_lock:
            if key not in self._clients:
                kwargs: dict[str, Any] = {"region_name": region, "config": botocore_config(self.ctx.bounds)}
                if self.ctx.endpoint_url:
                    kwargs["endpoint_url"] = self.ctx.endpoint_url
                client = self.session.client(service, **kwargs)
                client.meta.events.register_first("before-send", self.ctx.sender)
                self._clients[key] = client
            return self._clients[key]

    def endpoint(self, service: str = "sts") -> str:
        try:
            return str(self.client(service).meta.endpoint_url)
        except Exception:
            return self.ctx.endpoint_url or ""

    def tell(self, **event: Any) -> None:
        if self.ctx.progress is not None:
            self.ctx.progress({"account": self.account or self.label, **event})

    def missing(self, call: str, state: str, reason: str, *, item: str = "", file: str = "") -> None:
        """A part of the collection that is not complete: in the manifest and the report's warnings."""
        self.manifest.record(call, state, item=item, reason=reason, file=file)
        report = self.ctx.report
        with self.ctx.lock:
            report.status = "partial"
            if len(report.warnings) < MAX_WARNINGS:
                report.warnings.append(
                    {"account": self.account or self.label, "call": call, "item": item, "state": state,
                     "permission": call if state == "denied" else "", "message": reason}
                )  # fmt: skip
            else:
                report.warnings_beyond += 1

    def note(self, call: str, message: str) -> None:
        with self.ctx.lock:
            self.ctx.report.warnings.append(
                {"account": self.account or self.label, "call": call, "item": "", "state": "complete",
                 "permission": "", "message": message}
            )  # fmt: skip

    def call(self, permission: str, fn: Callable[[], Any], *, item: str = "", file: str = "",
             quiet: bool = False, pages: Callable[[], int] | None = None) -> Any:  # fmt: skip
        """Run one call (botocore retries it). Denied, failed or cut off: recorded as missing, None.
        Absent: None. No credentials, expired, unreachable: CollectError (the collection ends)."""
        from botocore.exceptions import (
            BotoCoreError,
            ClientError,
            ConnectTimeoutError,
            CredentialRetrievalError,
            EndpointConnectionError,
            NoCredentialsError,
            PaginationError,
            PartialCredentialsError,
        )
        from botocore.parsers import ResponseParserError

        with self.ctx.lock:
            self.ctx.report.calls[permission] = self.ctx.report.calls.get(permission, 0) + 1
        if not quiet:
            self.tell(call=permission, item=item, state="calling")
        try:
            result = fn()
        except ClientError as exc:
            error = exc.response.get("Error", {}) or {}
            code, message = str(error.get("Code", "")), str(error.get("Message", ""))
            summary = error_summary(code, message)
            if code in ABSENT_CODES:
                self.manifest.record(permission, "complete", item=item)
                return None
            if code == "AWSOrganizationsNotInUseException":
                self.manifest.record(permission, "complete", item=item)
                self.note(permission, "the account is not a member of an organization: no SCPs or RCPs to collect")
                return None
            if code in EXPIRED_CODES:
                raise CollectError("expired", f"{permission}: {summary}", self.endpoint()) from None
            if code in REFUSED_CODES:
                raise CollectError("refused", f"{permission}: {summary}", self.endpoint()) from None
            if code in DENIED_CODES or code.endswith("AccessDenied") or code.endswith("AccessDeniedException"):
                reason = f"{permission} was refused ({summary}); the collector's policy needs {permission}"
                self.missing(permission, "denied", reason, item=item, file=file)
                self.tell(call=permission, item=item, state="denied")
                return None
            self.missing(permission, "partial", f"{permission} failed ({summary})", item=item, file=file)
            self.tell(call=permission, item=item, state="failed")
            return None
        except BoundExceeded as exc:
            self.missing(permission, "partial", f"{permission}: {exc} (limit {exc.limit})", item=item, file=file)
            self.tell(call=permission, item=item, state="cut off")
            return None
        except (NoCredentialsError, PartialCredentialsError, CredentialRetrievalError) as exc:
            raise CollectError("no_credentials", str(exc), self.endpoint()) from None
        except (EndpointConnectionError, ConnectTimeoutError) as exc:
            raise CollectError("unreachable", f"{permission}: {exc}", self.endpoint()) from None
        except (ResponseParserError, NotAws):
            reason = f"{permission} failed: the endpoint's answer is not an AWS response"
            self.missing(permission, "partial", reason, item=item, file=file)
            return None
        except PaginationError as exc:
            self.missing(permission, "partial", f"{permission}: {exc}", item=item, file=file)
            return None
        except BotoCoreError as exc:
            self.missing(permission, "partial", f"{permission} failed ({type(exc).__name__}: {exc})", item=item)
            return None
        self.manifest.record(permission, "complete", item=item, pages=pages() if pages else 0)
        if not quiet:
            self.tell(call=permission, item=item, state="done")
        return result

    def pages(self, permission: str, client: Any, operation: str, key: str | None, *, item: str = "",
              file: str = "", quiet: bool = False, on_page: Callable[[dict[str, Any]], None] | None = None,
              **kwargs: Any) -> list[Any] | None:  # fmt: skip
        """Every page of a listing, at most `max_pages`, ending at a marker seen before. Cut off:
        recorded as partial, None (no file may look complete)."""
        got: list[Any] = []
        count = 0
        seen: set[str] = set()

        def run() -> list[Any]:
            nonlocal count
            for page in client.get_paginator(operation).paginate(**kwargs):
                count += 1
                if on_page is not None:
                    on_page(page)
                elif key is not None:
                    got.extend(page.get(key, []))
                marker = next((page[k] for k in ("NextToken", "NextMarker", "Marker") if page.get(k)), None)
                if marker is None:
                    break
                if str(marker) in seen:
                    raise BoundExceeded("repeated marker", f"{operation} repeated an earlier marker (page {count})")
                seen.add(str(marker))
                if count >= self.ctx.bounds.max_pages:
                    raise BoundExceeded("max_pages", f"{operation} has more than {self.ctx.bounds.max_pages} pages")
            return got

        return self.call(permission, run, item=item, file=file, quiet=quiet, pages=lambda: count)

    def write(self, name: str, data: Any) -> None:
        """Write one file of this account's collection, resolved inside its folder."""
        assert self.folder is not None
        root = self.folder.resolve()
        path = (root / name).resolve()
        if not path.is_relative_to(root) or path == root:
            raise CollectError("unwritable", f"{name!r} would be written outside {self.ctx.out}")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".collect-")
        try:
            with open(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, default=_json_default, indent=1)
            Path(tmp).replace(path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self.manifest.wrote(name)
        with self.ctx.lock:
            self.ctx.report.files += 1

    # -- the collection --------------------------------------------------------------
    def identity(self) -> dict[str, Any]:
        """The caller's identity; its account id checked to be 12 digits before it is used anywhere.
        Any failure here ends the collection: nothing can be written without the account."""
        from botocore.exceptions import (
            BotoCoreError,
            ClientError,
            ConnectTimeoutError,
            CredentialRetrievalError,
            EndpointConnectionError,
            NoCredentialsError,
            PartialCredentialsError,
        )
        from botocore.parsers import ResponseParserError

        call = EXPORT["caller_identity"].action
        with self.ctx.lock:
            self.ctx.report.calls[call] = self.ctx.report.calls.get(call, 0) + 1
        try:  # told once the account is known (a progress bar is per account)
            got = self.client("sts").get_caller_identity()
        except BoundExceeded as exc:
            raise CollectError("timeout", f"{call}: {exc}", self.endpoint()) from None
        except ClientError as exc:
            error = exc.response.get("Error", {}) or {}
            code = str(error.get("Code", ""))
            summary = error_summary(code, str(error.get("Message", "")))
            kind = "expired" if code in EXPIRED_CODES else "refused" if code in REFUSED_CODES else "not_aws"
            kind = "no_identity" if code in DENIED_CODES else kind
            raise CollectError(kind, f"{call}: {summary}", self.endpoint()) from None
        except (NoCredentialsError, PartialCredentialsError, CredentialRetrievalError) as exc:
            raise CollectError("no_credentials", str(exc), self.endpoint()) from None
        except (EndpointConnectionError, ConnectTimeoutError) as exc:
            raise CollectError("unreachable", str(exc), self.endpoint()) from None
        except NotAws as exc:
            raise CollectError("not_aws", str(exc), self.endpoint()) from None
        except (BotoCoreError, ResponseParserError) as exc:  # a body botocore cannot parse, among others
            raise CollectError("not_aws", f"{call}: {type(exc).__name__}", self.endpoint()) from None
        got = {k: v for k, v in (got or {}).items() if k != "ResponseMetadata"}
        if "Account" not in got:
            raise CollectError("not_aws", f"{call} gave no account", self.endpoint())
        account = str(got.get("Account", ""))
        if not ACCOUNT_RE.fullmatch(account):
            raise CollectError("bad_account", f"{call} gave {account[:40]!r}", self.endpoint())
        self.account = account
        self.manifest.account = account
        self.manifest.record(call, "complete")
        self.tell(call=call, item="", state="done")
        return got

    def run(self) -> str:
        """Collect into a fresh folder beside `out/ACCOUNT`, then put it in its place: a
        re-collection replaces the account's files (a snapshot), and a failed one changes nothing."""
        identity = self.identity()
        out = self.ctx.out
        out.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(dir=out, prefix=f".{self.account}.collecting-"))
        self.folder = stage
        try:
            self.write(EXPORT["caller_identity"].path(), identity)
            users = services.iam(self)
            services.access_keys(self, users)
            services.workloads(self)
            services.buckets(self)
            services.secrets(self)
            services.keys(self)
            services.findings(self)
            services.organization(self)
            self.write(MANIFEST_FILE, self.manifest.to_dict(self.ctx.report.bounds))
            _replace_folder(stage, out / self.account)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
        self.folder = out / self.account
        return self.account


def _replace_folder(new: Path, final: Path) -> None:
    """Put `new` where `final` is: the earlier collection is moved aside, then removed."""
    old = final.with_name(f".{final.name}.old-{uuid.uuid4().hex[:8]}")
    if final.is_symlink() or final.exists():
        final.rename(old)
    new.rename(final)
    if old.is_symlink() or old.is_file():
        old.unlink()
    elif old.exists():
        shutil.rmtree(old, ignore_errors=True)


def collect_account(
    session: Any,
    out: Path | str,
    *,
    regions: list[str] | None = None,
    endpoint_url: str | None = None,
    progress: Progress | None = None,
    clients: dict[str, Any] | None = None,
    report: CollectReport | None = None,
    bounds: Bounds | None = None,
) -> CollectReport:
    """Collect the account `session` signs in to into `out/ACCOUNT/`."""
    region_list = list(regions or [session.region_name or "us-east-1"])
    started = time.perf_counter()
    ctx = _Context.make(Path(out), region_list, progress, endpoint_url, bounds=bounds, report=report, clients=clients)
    _collect_one(session, ctx)
    ctx.report.seconds = round(time.perf_counter() - started, 3)
    return ctx.report


def _collect_one(session: Any, ctx: _Context) -> None:
    account = _Account(session, ctx).run()
    with ctx.lock:
        if account not in ctx.report.accounts:
            ctx.report.accounts.append(account)
        ctx.report.folders[account] = str(ctx.out / account)


def collect_accounts(
    session: Any,
    out: Path | str,
    *,
    regions: list[str] | None = None,
    endpoint_url: str | None = None,
    progress: Progress | None = None,
    organization: bool = False,
    member_role: str = "",
    accounts: list[str] | None = None,
    bounds: Bounds | None = None,
) -> CollectReport:
    """The caller's account, and with `organization` every (or each named) member account,
    reached by assuming `member_role` in it, at most `MAX_ACCOUNTS_IN_PARALLEL` at a time. One
    deadline (`bounds.collection_s`) covers them all."""
    started = time.perf_counter()
    region_list = list(regions or [session.region_name or "us-east-1"])
    ctx = _Context.make(Path(out), region_list, progress, endpoint_url, bounds=bounds)
    report = ctx.report
    _collect_one(session, ctx)
    if organization:
        _members(session, ctx, member_role, accounts)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _members(session: Any, ctx: _Context, member_role: str, accounts: list[str] | None) -> None:
    import boto3

    caller = ctx.report.accounts[0]
    probe = _Account(session, ctx)
    probe.account = caller
    listed = probe.pages("organizations:ListAccounts", probe.client("organizations"), "list_accounts", "Accounts")
    wanted = [str(a.get("Id", "")) for a in listed or [] if a.get("Status", "ACTIVE") == "ACTIVE"]
    bad = [a for a in wanted if not ACCOUNT_RE.fullmatch(a)]
    for account_id in bad:
        probe.missing("organizations:ListAccounts", "partial", f"{account_id[:40]!r} is not a 12-digit account id")
    wanted = [a for a in wanted if ACCOUNT_RE.fullmatch(a) and a != caller]
    if accounts:
        wanted = [a for a in wanted if a in set(accounts)]

    def member(account_id: str) -> None:
        role_arn = f"arn:aws:iam::{account_id}:role/{member_role}"
        sts = probe.client("sts")
        creds = probe.call(
            "sts:AssumeRole",
            lambda: sts.assume_role(RoleArn=role_arn, RoleSessionName="blastshield-collect"),
            item=role_arn,
        )
        if not creds:
            return
        c = creds["Credentials"]
        # The member's credentials under the caller's profile, so the profile's configured endpoint
        # (`endpoint_url` in the AWS config) applies to the member account's calls too.
        profile = getattr(session, "profile_name", None)
        member_session = boto3.Session(
            aws_access_key_id=c["AccessKeyId"],
            aws_secret_access_key=c["SecretAccessKey"],
            aws_session_token=c["SessionToken"],
            region_name=session.region_name,
            profile_name=profile if profile in (getattr(session, "available_profiles", None) or []) else None,
        )
        _collect_one(member_session, ctx)

    pool = track(ThreadPoolExecutor(max_workers=MAX_ACCOUNTS_IN_PARALLEL))
    try:
        list(pool.map(member, wanted))
    except BaseException:  # a signal: accounts not begun are not begun; the command ends the running ones
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


def recollect_user_keys(session: Any, folder: Path | str, user: str, *, endpoint_url: str | None = None) -> int:
    """Re-collect one user's slice into an account's collection folder: the user's entries of
    `iam-list-access-keys.json` (`iam:ListAccessKeys`) and the user's inline policies in the GAAD
    (`iam:ListUserPolicies`, `iam:GetUserPolicy`) are replaced by what the account says now. The
    number of keys listed. Raises CollectError when the call fails (the folder is then unchanged)."""
    from botocore.exceptions import BotoCoreError, ClientError

    ctx = _Context.make(Path(folder).parent, ["us-east-1"], None, endpoint_url, bounds=None)
    account = _Account(session, ctx)
    account.folder = Path(folder)
    try:
        client = account.client("iam")
        keys: list[Any] = []
        for page in client.get_paginator("list_access_keys").paginate(UserName=user):
            keys.extend(page.get("AccessKeyMetadata", []))
    except (ClientError, BotoCoreError, BoundExceeded) as exc:
        raise CollectError("failed", f"iam:ListAccessKeys {user}: {exc}", account.endpoint("iam")) from None
    try:
        inline = []
        for page in client.get_paginator("list_user_policies").paginate(UserName=user):
            for name in page.get("PolicyNames", []):
                got = client.get_user_policy(UserName=user, PolicyName=name)
                inline.append({"PolicyName": name, "PolicyDocument": got["PolicyDocument"]})
    except (ClientError, BotoCoreError, BoundExceeded) as exc:
        raise CollectError("failed", f"iam:GetUserPolicy {user}: {exc}", account.endpoint("iam")) from None
    path = Path(folder) / EXPORT["access_keys"].path()
    earlier = json.loads(path.read_text(encoding="utf-8")).get("AccessKeyMetadata", []) if path.exists() else []
    kept = [k for k in earlier if k.get("UserName") != user]
    gaad_path = Path(folder) / EXPORT["gaad"].path()
    gaad = json.loads(gaad_path.read_text(encoding="utf-8")) if gaad_path.exists() else None
    if gaad is not None:
        for entry in gaad.get("UserDetailList", []):
            if entry.get("UserName") == user:
                entry["UserPolicyList"] = inline
        account.write(EXPORT["gaad"].path(), gaad)
    if path.exists():  # a listing the collection left out (partial) stays out: one user is not all of them
        account.write(EXPORT["access_keys"].path(), {"AccessKeyMetadata": kept + keys})
    return len(keys)
