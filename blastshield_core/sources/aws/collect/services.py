"""The calls of one account's collection, service by service (the file layout is in collector.py).

Each writes a file only when every call it rests on is complete; what is missing is in the
account's manifest. Per-principal calls run in a bounded pool and report a count of principals.
"""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, Protocol

from ....base.pools import track
from ..exports import EXPORT
from .bounds import BoundExceeded, Bounds, Clock

__all__ = [
    "SECRET_MARKER",
    "Account",
    "access_keys",
    "buckets",
    "findings",
    "iam",
    "keys",
    "organization",
    "safe_name",
    "secrets",
    "without_secrets",
    "workloads",
]

SECRET_MARKER = "<not collected>"  # noqa: S105 - a value BlastShield does not collect (a Lambda environment variable's)


class Settings(Protocol):
    regions: list[str]
    bounds: Bounds
    clock: Clock


class Account(Protocol):
    """What these calls need of one account's collection (collector._Account)."""

    account: str

    @property
    def ctx(self) -> Settings: ...

    def client(self, service: str, region: str | None = None) -> Any: ...
    def call(self, permission: str, fn: Callable[[], Any], *, item: str = "", file: str = "") -> Any: ...
    def pages(self, permission: str, client: Any, operation: str, key: str | None, *, item: str = "",
              file: str = "", quiet: bool = False, on_page: Callable[[dict[str, Any]], None] | None = None,
              **kwargs: Any) -> list[Any] | None: ...  # fmt: skip
    def write(self, name: str, data: Any) -> None: ...
    def missing(self, call: str, state: str, reason: str, *, item: str = "", file: str = "") -> None: ...
    def tell(self, **event: Any) -> None: ...


def safe_name(text: str) -> str:
    """A resource's name as one file name: no separator, never `.`, `..` or hidden."""
    name = "".join(c if c.isalnum() or c in "_.@=+-" else "_" for c in str(text))[:200] or "_"
    return "_" + name if name.startswith(".") else name


def without_secrets(function: dict[str, Any]) -> dict[str, Any]:
    """A Lambda function with its environment variables' values replaced by a marker (names kept)."""
    env = function.get("Environment")
    if isinstance(env, dict) and isinstance(env.get("Variables"), dict):
        hidden = {str(k): SECRET_MARKER for k in env["Variables"]}
        return {**function, "Environment": {**env, "Variables": hidden}}
    return function


GAAD_KEYS = ("UserDetailList", "GroupDetailList", "RoleDetailList", "Policies")
REPORT_POLLS = 30
PROGRESS_EVERY_S = 0.5  # per-principal progress: at most this often, and at the last one


def iam(acc: Account) -> list[str] | None:
    """The GAAD (every page merged) and the credential report; the users' names (None: the GAAD
    is not complete, so no list of users can be trusted)."""
    client = acc.client("iam")
    merged: dict[str, list[Any]] = {k: [] for k in GAAD_KEYS}

    def take(page: dict[str, Any]) -> None:
        for key, items in merged.items():
            items.extend(page.get(key, []))

    name = EXPORT["gaad"].path()
    got = acc.pages(EXPORT["gaad"].action, client, "get_account_authorization_details", None, on_page=take, file=name)
    credential_report(acc, client)
    if got is None:
        return None
    acc.write(name, merged)
    return [str(u["UserName"]) for u in merged["UserDetailList"] if u.get("UserName")]


def credential_report(acc: Account, client: Any) -> None:
    from botocore.exceptions import ClientError

    name = EXPORT["credential_report"].path()
    if acc.call(EXPORT["credential_report"].actions[0], client.generate_credential_report, file=name) is None:
        return

    def fetch() -> dict[str, Any]:
        for _ in range(REPORT_POLLS):  # the report being generated: not a retry of a failure
            try:
                return client.get_credential_report()
            except ClientError as exc:
                code = exc.response.get("Error", {}).get("Code", "")
                if code not in ("ReportInProgress", "ReportNotPresent", "ReportExpired"):
                    raise
            if acc.ctx.clock.left() < 0.5:
                break
            time.sleep(0.5)
        raise BoundExceeded("polls", f"the credential report was not ready after {REPORT_POLLS} polls")

    report = acc.call(EXPORT["credential_report"].actions[1], fetch, file=name)
    if report is None:
        return
    content = report.get("Content", b"")
    acc.write(
        name,
        {
            "Content": base64.b64encode(content).decode("ascii") if isinstance(content, bytes) else content,
            "ReportFormat": report.get("ReportFormat", "text/csv"),
            "GeneratedTime": report.get("GeneratedTime"),
        },
    )


def access_keys(acc: Account, users: list[str] | None) -> None:
    """`iam:ListAccessKeys` for every user (the credential report's key columns can be hours old, so
    no user is skipped on its strength), `bounds.pool` at a time, at most `bounds.max_principals`."""
    call, name = EXPORT["access_keys"].action, EXPORT["access_keys"].path()
    if users is None:
        acc.missing(call, "partial", f"{call} not called: the list of users (the GAAD) is not complete", file=name)
        return
    bounds = acc.ctx.bounds
    if len(users) > bounds.max_principals:
        acc.missing(
            call,
            "partial",
            f"{call}: {len(users)} users, more than the limit of {bounds.max_principals} (max_principals);"
            " no key listing is written",
            file=name,
        )
        return
    client = acc.client("iam")
    total = len(users)
    found: list[Any] = []
    state = {"done": 0, "complete": True, "told": 0.0}
    lock = threading.Lock()

    def one(user: str) -> None:
        got = acc.pages(call, client, "list_access_keys", "AccessKeyMetadata", item=user, file=name, quiet=True,
                        UserName=user)  # fmt: skip
        with lock:
            state["done"] += 1
            if got is None:
                state["complete"] = False
            else:
                found.extend(dict(k, UserName=k.get("UserName") or user) for k in got)
            now = time.monotonic()
            last = state["done"] == total
            if not (last or now - state["told"] >= PROGRESS_EVERY_S):
                return
            state["told"] = now
            done = state["done"]
        acc.tell(call=call, item=user, state="done" if last else "calling", done=done, total=total)

    pool = track(ThreadPoolExecutor(max_workers=bounds.pool, thread_name_prefix="blastshield-collect"))
    try:
        for future in [pool.submit(one, u) for u in users]:
            future.result()
    except BaseException:  # a signal: users not begun are not begun (base/pools.py ends the running ones)
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    if state["complete"]:
        acc.write(name, {"AccessKeyMetadata": found})


def workloads(acc: Account) -> None:
    """EC2 instances and Lambda functions of every region asked for: one file each, written only
    when every region answered (Lambda environment variables' values are not collected)."""
    for name, permission, service, operation, key in (
        (EXPORT["instances"].path(), EXPORT["instances"].action, "ec2", "describe_instances", "Reservations"),
        (EXPORT["functions"].path(), EXPORT["functions"].action, "lambda", "list_functions", "Functions"),
    ):
        items: list[Any] = []
        complete = True
        for region in acc.ctx.regions:
            got = acc.pages(permission, acc.client(service, region), operation, key, item=region, file=name)
            if got is None:
                complete = False
            else:
                items.extend(got)
        if complete:
            if key == "Functions":
                items = [without_secrets(f) if isinstance(f, dict) else f for f in items]
            acc.write(name, {key: items})


def buckets(acc: Account) -> None:
    s3 = acc.client("s3")
    listed = acc.call(EXPORT["buckets"].actions[0], s3.list_buckets, file=EXPORT["buckets"].path())
    if listed is None:
        return
    found = []
    for bucket in listed.get("Buckets", []):
        name = str(bucket.get("Name", ""))
        tags = acc.call(EXPORT["buckets"].actions[1], partial(s3.get_bucket_tagging, Bucket=name), item=name)
        entry = dict(bucket)
        if tags:
            entry["Tags"] = tags.get("TagSet", [])
        found.append(entry)
        file = EXPORT["bucket_policy"].path(safe_name(name))
        policy = acc.call(
            EXPORT["bucket_policy"].action, partial(s3.get_bucket_policy, Bucket=name), item=name, file=file
        )
        if policy and policy.get("Policy"):
            acc.write(file, {"Policy": policy["Policy"]})
    acc.write(EXPORT["buckets"].path(), {"Buckets": found, "Owner": listed.get("Owner", {})})


def _regional_with_policies(
    acc: Account,
    listing: str,
    policy: str,
    *,
    list_call: tuple[str, str, str],  # service, operation, the page's key
    names: Callable[[dict[str, Any]], tuple[str, str]],  # an item's id for its policy call, and its file name
    get_policy: Callable[[Any, str], Callable[[], Any]],
    kept: Callable[[dict[str, Any]], dict[str, Any] | None],  # what of a policy reply is written, if any
) -> None:
    """A listing read in every region into one file (written only when every region answered), and each
    listed item's resource policy into its own file."""
    name = EXPORT[listing].path()
    service, operation, key = list_call
    found: list[Any] = []
    complete = True
    for region in acc.ctx.regions:
        client = acc.client(service, region)
        got = acc.pages(EXPORT[listing].action, client, operation, key, item=region, file=name)
        if got is None:
            complete = False
        for item in got or []:
            found.append(item)
            item_id, file_name = names(item)
            file = EXPORT[policy].path(safe_name(file_name))
            reply = acc.call(EXPORT[policy].action, get_policy(client, item_id), item=item_id, file=file)
            written = kept(reply) if reply else None
            if written:
                acc.write(file, written)
    if complete:
        acc.write(name, {key: found})


def secrets(acc: Account) -> None:
    _regional_with_policies(
        acc,
        "secrets",
        "secret_policy",
        list_call=("secretsmanager", "list_secrets", "SecretList"),
        names=lambda secret: (str(secret.get("ARN") or secret.get("Name")), str(secret.get("Name"))),
        get_policy=lambda sm, arn: partial(sm.get_resource_policy, SecretId=arn),
        kept=lambda reply: (
            {k: v for k, v in reply.items() if k != "ResponseMetadata"} if reply.get("ResourcePolicy") else None
        ),
    )


def keys(acc: Account) -> None:
    _regional_with_policies(
        acc,
        "kms_keys",
        "key_policy",
        list_call=("kms", "list_keys", "Keys"),
        names=lambda key: (str(key.get("KeyId")), str(key.get("KeyId"))),
        get_policy=lambda kms, key_id: partial(kms.get_key_policy, KeyId=key_id, PolicyName="default"),
        kept=lambda reply: {"Policy": reply["Policy"]} if reply.get("Policy") else None,
    )


def findings(acc: Account) -> None:
    name = EXPORT["findings"].path()
    found: list[Any] = []
    complete = True
    for region in acc.ctx.regions:
        gd = acc.client("guardduty", region)
        detectors = acc.pages(
            EXPORT["findings"].actions[0], gd, "list_detectors", "DetectorIds", item=region, file=name
        )
        if detectors is None:
            complete = False
        for detector in detectors or []:
            ids = acc.pages(EXPORT["findings"].actions[1], gd, "list_findings", "FindingIds", item=str(detector),
                            file=name, DetectorId=detector)  # fmt: skip
            if ids is None:
                complete = False
                continue
            for start in range(0, len(ids), 50):
                chunk = ids[start : start + 50]
                got = acc.call(
                    EXPORT["findings"].actions[2],
                    partial(gd.get_findings, DetectorId=detector, FindingIds=chunk),
                    item=str(detector),
                    file=name,
                )
                if got is None:
                    complete = False
                found.extend((got or {}).get("Findings", []))
    if complete:
        acc.write(name, {"Findings": found})


def organization(acc: Account) -> None:
    org = acc.client("organizations")
    described = acc.call(EXPORT["organization"].action, org.describe_organization, file=EXPORT["organization"].path())
    if described is None:
        return
    acc.write(EXPORT["organization"].path(), {"Organization": described.get("Organization", {})})
    roots = acc.pages(EXPORT["org_roots"].action, org, "list_roots", "Roots", file=EXPORT["org_roots"].path())
    if roots is not None:
        acc.write(EXPORT["org_roots"].path(), {"Roots": roots})
    file = EXPORT["org_parents"].path(acc.account)
    parents = acc.pages(EXPORT["org_parents"].action, org, "list_parents", "Parents", file=file, ChildId=acc.account)
    if parents is not None:
        acc.write(file, {"Parents": parents})
    for kind in ("SERVICE_CONTROL_POLICY", "RESOURCE_CONTROL_POLICY"):
        file = EXPORT["org_policies"].path(kind)
        policies = acc.pages(EXPORT["org_policies"].action, org, "list_policies", "Policies", file=file, Filter=kind)
        if policies is None:
            continue
        acc.write(file, {"Policies": policies})
        for policy in policies:
            pid = str(policy.get("Id"))
            file = EXPORT["org_policy"].path(safe_name(pid))
            got = acc.call(EXPORT["org_policy"].action, partial(org.describe_policy, PolicyId=pid), item=pid,
                           file=file)  # fmt: skip
            if got:
                acc.write(file, {"Policy": got.get("Policy", {})})
            file = EXPORT["org_targets"].path(safe_name(pid))
            targets = acc.pages(EXPORT["org_targets"].action, org, "list_targets_for_policy", "Targets",
                                item=pid, file=file, PolicyId=pid)  # fmt: skip
            if targets is not None:
                acc.write(file, {"Targets": targets})
