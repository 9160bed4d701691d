"""Collect: read-only boto3 calls that write an account in the file layout `import-aws` reads.

One folder per account under the output folder, one file per export of `exports.py` (the table of
every export's CLI call, file name and the IAM actions its calls need; docs/aws-live.md lists them).
Every call is read-only (the list is `COLLECTOR_ACTIONS`, from that table; docs/aws-live.md gives the
IAM policy that allows exactly these and a test holds it to the table and feeds it to the policy
evaluator). botocore runs in `standard` retry mode with connect and read timeouts; a throttled call
that botocore gave up on is tried again a bounded number of times here. A call refused with
AccessDenied is a warning naming the call and the permission it needs; the collection goes on.
Progress is reported per call through `progress`.
"""

from __future__ import annotations

import base64
import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from ....base.pools import track
from ..exports import COLLECTOR_ACTIONS, EXPORT

__all__ = [
    "COLLECTOR_ACTIONS",
    "CollectError",
    "CollectReport",
    "botocore_config",
    "collect_account",
    "collect_accounts",
    "recollect_user_keys",
]


DENIED_CODES = frozenset(
    {
        "AccessDenied",
        "AccessDeniedException",
        "UnauthorizedOperation",
        "AuthorizationError",
    }
)
THROTTLE_CODES = frozenset(
    {"Throttling", "ThrottlingException", "TooManyRequestsException", "RequestLimitExceeded", "SlowDown"}
)
ABSENT_CODES = frozenset(
    {"NoSuchBucketPolicy", "NoSuchTagSet", "NoSuchTagSetError", "ResourceNotFoundException", "NotFoundException"}
)
THROTTLE_RETRIES = 4
REPORT_POLLS = 30
MAX_ACCOUNTS_IN_PARALLEL = 4
_NAME_RE = re.compile(r"[^A-Za-z0-9_.@=+-]")

Progress = Callable[[dict[str, Any]], None]


class CollectError(RuntimeError):
    """A collection that cannot go on (no identity, an unreachable endpoint, an unwritable folder)."""


@dataclass
class CollectReport:
    """What a collection wrote: per account its folder, the calls made and the warnings."""

    status: str = "collected"
    out: str = ""
    accounts: list[str] = field(default_factory=list)
    folders: dict[str, str] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    warnings: list[dict[str, str]] = field(default_factory=list)
    files: int = 0
    seconds: float = 0.0
    imported: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


def botocore_config() -> Any:
    """`standard` retry mode with connect and read timeouts (botocore's own retries)."""
    from botocore.config import Config

    return Config(retries={"mode": "standard", "max_attempts": 5}, connect_timeout=5, read_timeout=30)


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"cannot write {type(value).__name__}")


def _safe_name(text: str) -> str:
    return _NAME_RE.sub("_", text)[:200] or "_"


class _Account:
    """One account's collection: the clients, the folder, the calls, the warnings."""

    def __init__(
        self,
        session: Any,
        out: Path,
        *,
        regions: list[str],
        report: CollectReport,
        progress: Progress | None,
        endpoint_url: str | None,
        label: str = "",
        clients: dict[str, Any] | None = None,
    ):
        self.session = session
        self.out = out
        self.regions = regions
        self.report = report
        self.progress = progress
        self.endpoint_url = endpoint_url
        self.label = label
        self.folder: Path | None = None
        self._clients: dict[tuple[str, str], Any] = {}
        self._given = clients or {}
        self.account = ""

    # -- clients and calls ---------------------------------------------------------
    def client(self, service: str, region: str | None = None) -> Any:
        region = region or self.regions[0]
        if service in self._given:  # tests hand in stubbed clients
            return self._given[service]
        key = (service, region)
        if key not in self._clients:
            kwargs: dict[str, Any] = {"region_name": region, "config": botocore_config()}
            if self.endpoint_url:
                kwargs["endpoint_url"] = self.endpoint_url
            self._clients[key] = self.session.client(service, **kwargs)
        return self._clients[key]

    def _tell(self, **event: Any) -> None:
        if self.progress is not None:
            self.progress({"account": self.account or self.label, **event})

    def call(self, permission: str, fn: Callable[[], Any], *, item: str = "") -> Any:
        """Run one call. AccessDenied: a warning, None. Throttling: retried. Absent: None."""
        from botocore.exceptions import ClientError, EndpointConnectionError

        self.report.calls[permission] = self.report.calls.get(permission, 0) + 1
        self._tell(call=permission, item=item, state="calling")
        attempt = 0
        while True:
            try:
                result = fn()
                self._tell(call=permission, item=item, state="done")
                return result
            except ClientError as exc:
                code = exc.response.get("Error", {}).get("Code", "")
                if code in THROTTLE_CODES and attempt < THROTTLE_RETRIES:
                    attempt += 1
                    time.sleep(min(0.2 * 2**attempt, 2.0))
                    continue
                if code in ABSENT_CODES:
                    return None
                if code == "AWSOrganizationsNotInUseException":
                    self.report.warnings.append(
                        {
                            "account": self.account or self.label,
                            "call": permission,
                            "item": item,
                            "permission": "",
                            "message": "the account is not a member of an organization: no SCPs or RCPs to collect",
                        }
                    )
                    return None
                if code in DENIED_CODES or code.endswith("AccessDenied") or code.endswith("AccessDeniedException"):
                    message = exc.response.get("Error", {}).get("Message", "") or code
                    self.report.warnings.append(
                        {
                            "account": self.account or self.label,
                            "call": permission,
                            "item": item,
                            "permission": permission,
                            "message": f"{permission} was refused ({code}): {message}; "
                            f"the collector's policy needs {permission}",
                        }
                    )
                    self._tell(call=permission, item=item, state="denied")
                    return None
                self.report.warnings.append(
                    {
                        "account": self.account or self.label,
                        "call": permission,
                        "item": item,
                        "permission": permission,
                        "message": f"{permission} failed ({code}): {exc}",
                    }
                )
                return None
            except EndpointConnectionError as exc:
                raise CollectError(f"{permission}: cannot reach the endpoint: {exc}") from None

    def pages(self, permission: str, client: Any, operation: str, key: str, **kwargs: Any) -> list[Any] | None:
        def run() -> list[Any]:
            out: list[Any] = []
            for page in client.get_paginator(operation).paginate(**kwargs):
                out.extend(page.get(key, []))
            return out

        return self.call(permission, run)

    def write(self, name: str, data: Any) -> None:
        assert self.folder is not None
        path = self.folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".collect-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, default=_json_default, indent=1)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self.report.files += 1

    # -- the collection --------------------------------------------------------------
    def run(self) -> str:
        caller = EXPORT["caller_identity"]
        identity = self.call(caller.action, lambda: self.client("sts").get_caller_identity())
        if not identity or not identity.get("Account"):
            raise CollectError(f"{caller.action} gave no account: nothing can be collected")
        self.account = str(identity["Account"])
        self.folder = self.out / self.account
        self.folder.mkdir(parents=True, exist_ok=True)
        identity = {k: v for k, v in identity.items() if k != "ResponseMetadata"}
        self.write(caller.path(), identity)
        users = self.iam()
        self.access_keys(users)
        for region in self.regions:
            self.workloads(region)
        self.buckets()
        self.secrets()
        self.keys()
        self.findings()
        self.organization()
        return self.account

    def iam(self) -> list[str]:
        iam = self.client("iam")
        merged: dict[str, list[Any]] = {
            "UserDetailList": [],
            "GroupDetailList": [],
            "RoleDetailList": [],
            "Policies": [],
        }

        def gaad() -> dict[str, list[Any]]:
            for page in iam.get_paginator("get_account_authorization_details").paginate():
                for key, items in merged.items():
                    items.extend(page.get(key, []))
            return merged

        export = EXPORT["gaad"]
        got = self.call(export.action, gaad)
        if got is not None:
            self.write(export.path(), merged)
        self.credential_report(iam)
        return [str(u["UserName"]) for u in merged["UserDetailList"] if u.get("UserName")]

    def credential_report(self, iam: Any) -> None:
        from botocore.exceptions import ClientError

        export = EXPORT["credential_report"]
        generate, get = export.actions
        started = self.call(generate, iam.generate_credential_report)
        if started is None:
            return

        def fetch() -> dict[str, Any] | None:
            for _ in range(REPORT_POLLS):
                try:
                    return iam.get_credential_report()
                except ClientError as exc:
                    code = exc.response.get("Error", {}).get("Code", "")
                    if code not in ("ReportInProgress", "ReportNotPresent", "ReportExpired"):
                        raise
                    time.sleep(0.5)
            return None

        report = self.call(get, fetch)
        if report is None:
            return
        content = report.get("Content", b"")
        self.write(
            export.path(),
            {
                "Content": base64.b64encode(content).decode("ascii") if isinstance(content, bytes) else content,
                "ReportFormat": report.get("ReportFormat", "text/csv"),
                "GeneratedTime": report.get("GeneratedTime"),
            },
        )

    def access_keys(self, users: Iterable[str]) -> None:
        iam = self.client("iam")
        keys: list[Any] = []
        export = EXPORT["access_keys"]
        for name in users:
            got = self.pages(export.action, iam, "list_access_keys", "AccessKeyMetadata", UserName=name)
            keys.extend(got or [])
        self.write(export.path(), {"AccessKeyMetadata": keys})

    def workloads(self, region: str) -> None:
        instances, lambdas = EXPORT["instances"], EXPORT["functions"]
        reservations = self.pages(instances.action, self.client("ec2", region), "describe_instances", "Reservations")
        functions = self.pages(lambdas.action, self.client("lambda", region), "list_functions", "Functions")
        for name, key, got in (
            (instances.path(), "Reservations", reservations),
            (lambdas.path(), "Functions", functions),
        ):
            if got is None:
                continue
            path = self.folder / name  # type: ignore[operator]
            earlier = json.loads(path.read_text(encoding="utf-8")).get(key, []) if path.exists() else []
            if path.exists():
                self.report.files -= 1
            self.write(name, {key: earlier + got})

    def buckets(self) -> None:
        s3 = self.client("s3")
        export, policies = EXPORT["buckets"], EXPORT["bucket_policy"]
        list_buckets, get_tags = export.actions
        listed = self.call(list_buckets, s3.list_buckets)
        if listed is None:
            return
        buckets = []
        for bucket in listed.get("Buckets", []):
            name = str(bucket["Name"])
            tags = self.call(get_tags, lambda n=name: s3.get_bucket_tagging(Bucket=n), item=name)
            entry = dict(bucket)
            if tags:
                entry["Tags"] = tags.get("TagSet", [])
            buckets.append(entry)
            policy = self.call(policies.action, lambda n=name: s3.get_bucket_policy(Bucket=n), item=name)
            if policy and policy.get("Policy"):
                self.write(policies.path(_safe_name(name)), {"Policy": policy["Policy"]})
        self.write(export.path(), {"Buckets": buckets, "Owner": listed.get("Owner", {})})

    def secrets(self) -> None:
        secrets: list[Any] = []
        export, policies = EXPORT["secrets"], EXPORT["secret_policy"]
        for region in self.regions:
            sm = self.client("secretsmanager", region)
            got = self.pages(export.action, sm, "list_secrets", "SecretList")
            for secret in got or []:
                secrets.append(secret)
                arn = secret.get("ARN") or secret.get("Name")
                policy = self.call(policies.action, lambda a=arn, c=sm: c.get_resource_policy(SecretId=a), item=arn)
                if policy and policy.get("ResourcePolicy"):
                    self.write(
                        policies.path(_safe_name(str(secret.get("Name")))),
                        {k: v for k, v in policy.items() if k != "ResponseMetadata"},
                    )
        self.write(export.path(), {"SecretList": secrets})

    def keys(self) -> None:
        keys: list[Any] = []
        export, policies = EXPORT["kms_keys"], EXPORT["key_policy"]
        for region in self.regions:
            kms = self.client("kms", region)
            got = self.pages(export.action, kms, "list_keys", "Keys")
            for key in got or []:
                keys.append(key)
                key_id = str(key.get("KeyId"))
                policy = self.call(
                    policies.action,
                    lambda k=key_id, c=kms: c.get_key_policy(KeyId=k, PolicyName="default"),
                    item=key_id,
                )
                if policy and policy.get("Policy"):
                    self.write(policies.path(_safe_name(key_id)), {"Policy": policy["Policy"]})
        self.write(export.path(), {"Keys": keys})

    def findings(self) -> None:
        findings: list[Any] = []
        export = EXPORT["findings"]
        list_detectors, list_findings, get_findings = export.actions
        for region in self.regions:
            gd = self.client("guardduty", region)
            detectors = self.pages(list_detectors, gd, "list_detectors", "DetectorIds")
            for detector in detectors or []:
                ids = self.pages(list_findings, gd, "list_findings", "FindingIds", DetectorId=detector)
                ids = ids or []
                for start in range(0, len(ids), 50):
                    chunk = ids[start : start + 50]
                    got = self.call(
                        get_findings,
                        lambda d=detector, c=chunk, g=gd: g.get_findings(DetectorId=d, FindingIds=c),
                        item=detector,
                    )
                    findings.extend((got or {}).get("Findings", []))
        self.write(export.path(), {"Findings": findings})

    def organization(self) -> None:
        org = self.client("organizations")
        organization, roots_export, parents_export = EXPORT["organization"], EXPORT["org_roots"], EXPORT["org_parents"]
        listed, described_policy, targets_export = EXPORT["org_policies"], EXPORT["org_policy"], EXPORT["org_targets"]
        described = self.call(organization.action, org.describe_organization)
        if described is None:
            return
        self.write(organization.path(), {"Organization": described.get("Organization", {})})
        roots = self.pages(roots_export.action, org, "list_roots", "Roots")
        if roots is not None:
            self.write(roots_export.path(), {"Roots": roots})
        parents = self.pages(parents_export.action, org, "list_parents", "Parents", ChildId=self.account)
        if parents is not None:
            self.write(parents_export.path(self.account), {"Parents": parents})
        for kind in ("SERVICE_CONTROL_POLICY", "RESOURCE_CONTROL_POLICY"):
            policies = self.pages(listed.action, org, "list_policies", "Policies", Filter=kind)
            if policies is None:
                continue
            self.write(listed.path(kind), {"Policies": policies})
            for policy in policies:
                pid = str(policy.get("Id"))
                got = self.call(described_policy.action, lambda p=pid: org.describe_policy(PolicyId=p), item=pid)
                if got:
                    self.write(described_policy.path(_safe_name(pid)), {"Policy": got.get("Policy", {})})
                targets = self.pages(targets_export.action, org, "list_targets_for_policy", "Targets", PolicyId=pid)
                if targets is not None:
                    self.write(targets_export.path(_safe_name(pid)), {"Targets": targets})


def collect_account(
    session: Any,
    out: Path | str,
    *,
    regions: list[str] | None = None,
    endpoint_url: str | None = None,
    progress: Progress | None = None,
    clients: dict[str, Any] | None = None,
    report: CollectReport | None = None,
) -> CollectReport:
    """Collect the account `session` signs in to into `out/ACCOUNT/`."""
    started = time.perf_counter()
    report = report or CollectReport(out=str(out))
    region_list = list(regions or [session.region_name or "us-east-1"])
    account = _Account(
        session,
        Path(out),
        regions=region_list,
        report=report,
        progress=progress,
        endpoint_url=endpoint_url,
        clients=clients,
    ).run()
    if account not in report.accounts:
        report.accounts.append(account)
    report.folders[account] = str(Path(out) / account)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


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
) -> CollectReport:
    """The caller's account, and with `organization` every (or each named) member account,
    reached by assuming `member_role` in it, at most `MAX_ACCOUNTS_IN_PARALLEL` at a time."""
    started = time.perf_counter()
    report = CollectReport(out=str(out))
    collect_account(session, out, regions=regions, endpoint_url=endpoint_url, progress=progress, report=report)
    if not organization:
        report.seconds = round(time.perf_counter() - started, 3)
        return report
    caller = report.accounts[0]
    probe = _Account(
        session,
        Path(out),
        regions=list(regions or ["us-east-1"]),
        report=report,
        progress=progress,
        endpoint_url=endpoint_url,
    )
    probe.account = caller
    listed = probe.pages("organizations:ListAccounts", probe.client("organizations"), "list_accounts", "Accounts")
    wanted = [str(a["Id"]) for a in listed or [] if a.get("Status", "ACTIVE") == "ACTIVE"]
    if accounts:
        wanted = [a for a in wanted if a in set(accounts)]
    wanted = [a for a in wanted if a != caller]

    def member(account_id: str) -> None:
        import boto3

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
        collect_account(
            member_session, out, regions=regions, endpoint_url=endpoint_url, progress=progress, report=report
        )

    pool = track(ThreadPoolExecutor(max_workers=MAX_ACCOUNTS_IN_PARALLEL))
    try:
        list(pool.map(member, wanted))
    except BaseException:  # a signal: accounts not begun are not begun; the command ends the running ones
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def recollect_user_keys(session: Any, folder: Path | str, user: str, *, endpoint_url: str | None = None) -> int:
    """Re-collect one user's slice into an account's collection folder: the user's entries of
    `iam-list-access-keys.json` (`iam:ListAccessKeys`) and the user's inline policies in the GAAD
    (`iam:ListUserPolicies`, `iam:GetUserPolicy`) are replaced by what the account says now. The
    number of keys listed. Raises CollectError when the call fails (the folder is then unchanged)."""
    from botocore.exceptions import BotoCoreError, ClientError

    report = CollectReport(out=str(folder))
    account = _Account(
        session, Path(folder).parent, regions=["us-east-1"], report=report, progress=None, endpoint_url=endpoint_url
    )
    account.folder = Path(folder)
    try:
        client = account.client("iam")
        keys: list[Any] = []
        for page in client.get_paginator("list_access_keys").paginate(UserName=user):
            keys.extend(page.get("AccessKeyMetadata", []))
    except (ClientError, BotoCoreError) as exc:
        raise CollectError(f"iam:ListAccessKeys {user}: {exc}") from None
    try:
        inline = []
        for page in client.get_paginator("list_user_policies").paginate(UserName=user):
            for name in page.get("PolicyNames", []):
                got = client.get_user_policy(UserName=user, PolicyName=name)
                inline.append({"PolicyName": name, "PolicyDocument": got["PolicyDocument"]})
    except (ClientError, BotoCoreError) as exc:
        raise CollectError(f"iam:GetUserPolicy {user}: {exc}") from None
    keys_file, gaad_file = EXPORT["access_keys"].path(), EXPORT["gaad"].path()
    path = Path(folder) / keys_file
    earlier = json.loads(path.read_text(encoding="utf-8")).get("AccessKeyMetadata", []) if path.exists() else []
    kept = [k for k in earlier if k.get("UserName") != user]
    gaad_path = Path(folder) / gaad_file
    gaad = json.loads(gaad_path.read_text(encoding="utf-8")) if gaad_path.exists() else None
    if gaad is not None:
        for entry in gaad.get("UserDetailList", []):
            if entry.get("UserName") == user:
                entry["UserPolicyList"] = inline
        account.write(gaad_file, gaad)
    account.write(keys_file, {"AccessKeyMetadata": kept + keys})
    return len(keys)
