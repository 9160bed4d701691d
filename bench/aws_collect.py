"""Benchmark: `collect-aws` against the same boto3 calls made bare in a loop, on a moto account.

    python -m bench.aws_collect [--users 2000] [--roles 500] [--repeat 3] [--out BENCHMARKS.md]

A moto server on loopback holds an account of USERS users (one access key each) and ROLES roles.
Each round times, one after the other, (a) the bare calls: `sts:GetCallerIdentity`, every page of
`iam:GetAccountAuthorizationDetails`, the credential report (generate, get), `iam:ListAccessKeys`
per user, and the one-region listings the collector makes (instances, functions, buckets,
secrets, KMS keys, GuardDuty detectors, the organisation), with default clients and nothing
written; and (b) `collect_account`, which makes those calls with its retry configuration, error
handling and progress events and writes the files. The report gives the median of each and the
ratio of the medians; the target is at most 0.6. The section "AWS collection" of the Markdown
report is replaced (or added).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECTION = "AWS collection"
TARGET_RATIO = 0.6


def _populate(session, users: int, roles: int) -> None:
    iam = session.client("iam")
    trust = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
            ],
        }
    )
    for n in range(users):
        iam.create_user(UserName=f"u{n:05d}")
        iam.create_access_key(UserName=f"u{n:05d}")
    for n in range(roles):
        iam.create_role(RoleName=f"r{n:05d}", AssumeRolePolicyDocument=trust)


def _bare(session) -> None:
    """The collector's calls, bare: default clients, nothing written, no error handling."""
    from botocore.exceptions import ClientError

    session.client("sts").get_caller_identity()
    iam = session.client("iam")
    users = []
    for page in iam.get_paginator("get_account_authorization_details").paginate():
        users += [u["UserName"] for u in page.get("UserDetailList", [])]
    iam.generate_credential_report()
    iam.get_credential_report()
    for name in users:
        for _ in iam.get_paginator("list_access_keys").paginate(UserName=name):
            pass
    for service, op in (
        ("ec2", "describe_instances"),
        ("lambda", "list_functions"),
        ("secretsmanager", "list_secrets"),
        ("kms", "list_keys"),
        ("guardduty", "list_detectors"),
    ):
        for _ in session.client(service).get_paginator(op).paginate():
            pass
    session.client("s3").list_buckets()
    try:
        session.client("organizations").describe_organization()
    except ClientError:
        pass


def _moto_process() -> tuple[subprocess.Popen, str]:
    """moto's server in a process of its own on loopback (as an account is: not in the client's
    process, so the client's work and the server's can overlap)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(f"{url}/moto-api/", timeout=1).close()  # noqa: S310 - loopback
            return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("moto's server did not start")


def measure(users: int, roles: int, repeat: int, pool: int = 8) -> dict:
    import boto3

    from blastshield_core.sources.aws.collect.bounds import Bounds
    from blastshield_core.sources.aws.collect.collector import collect_account

    proc, url = _moto_process()
    try:
        os.environ["AWS_ENDPOINT_URL"] = url
        session = boto3.Session(aws_access_key_id="bench", aws_secret_access_key="bench", region_name="us-east-1")  # noqa: S106 - moto accepts any
        started = time.perf_counter()
        _populate(session, users, roles)
        populate_s = time.perf_counter() - started
        _bare(session)  # a warm-up round of each, not counted: moto builds each service's backend on first use
        bounds = Bounds(pool=pool)
        with tempfile.TemporaryDirectory() as out:
            collect_account(session, out, bounds=bounds)
        bare, collected = [], []
        for _ in range(repeat):
            t = time.perf_counter()
            _bare(session)
            bare.append(time.perf_counter() - t)
            with tempfile.TemporaryDirectory() as out:
                t = time.perf_counter()
                report = collect_account(session, out, bounds=bounds)
                collected.append(time.perf_counter() - t)
                manifest = json.loads((Path(out) / report.accounts[0] / "collection-manifest.json").read_text())
            assert manifest["state"] == "complete", manifest["missing"]
            assert manifest["calls"]["iam:ListAccessKeys"]["complete"] == users  # every user, keys or not
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        os.environ.pop("AWS_ENDPOINT_URL", None)
    b, c = statistics.median(bare), statistics.median(collected)
    return {
        "users": users,
        "roles": roles,
        "repeat": repeat,
        "populate_s": populate_s,
        "bare": bare,
        "collect": collected,
        "bare_median": b,
        "collect_median": c,
        "ratio": c / b,
        "pool": pool,
        "at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load": os.getloadavg(),
    }


def render(row: dict, command: str) -> list[str]:
    verdict = "met" if row["ratio"] <= TARGET_RATIO else "NOT met"
    return [
        f"## {SECTION}",
        "",
        f"`{command}` on {row.get('at', '-')} ({os.cpu_count()} cores, load"
        f" {', '.join(f'{x:.2f}' for x in row.get('load', ()))} at the end): a moto server on loopback",
        f"in a process of its own with {row['users']} users (one access key each) and {row['roles']} roles;"
        f" {row['repeat']} rounds, each the bare boto3 calls one after the other and then `collect_account`",
        f"(the same calls, every request bounded, the per-user calls {row.get('pool', 8)} at a time, files and",
        "manifest written; each round checks the manifest says complete with every user listed), after one",
        "warm-up round of each.",
        "",
        "| | median (s) | rounds (s) |",
        "|---|---|---|",
        f"| bare boto3 calls | {row['bare_median']:.2f} | {', '.join(f'{x:.2f}' for x in row['bare'])} |",
        f"| `collect_account` | {row['collect_median']:.2f} | {', '.join(f'{x:.2f}' for x in row['collect'])} |",
        "",
        f"Ratio of the medians: **{row['ratio']:.2f}** (target at most {TARGET_RATIO}: {verdict}). Most of the",
        f"time is {row['users']} `iam:ListAccessKeys` calls, one per user: in a pool, the client's work on one",
        "call overlaps the server's on another. The spread of the rounds says how much is the machine's noise.",
        "",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.aws_collect", description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--roles", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pool", type=int, default=8)
    parser.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"), help="Markdown report ('-' for none)")
    args = parser.parse_args(argv)
    row = measure(args.users, args.roles, args.repeat, args.pool)
    command = f"python -m bench.aws_collect --users {args.users} --roles {args.roles} --repeat {args.repeat}"
    lines = render(row, command)
    print("\n".join(lines))
    if args.out != "-":
        from bench.cli import write_section

        write_section(Path(args.out), lines, f"## {SECTION}")
    return 0 if row["ratio"] <= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
