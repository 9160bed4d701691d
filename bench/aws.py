"""Benchmark: importing a large synthetic AWS account end to end (parse, evaluate, load).

    python -m bench.aws [--size 20000x5000x10000x5000] [--size ...] [--escalations N] [--seed 1] [--timeout 1800]
        [--bucket-policies N] [--org-levels L] [--scps N] [--out BENCHMARKS.md]

A size is USERSxROLESxPOLICIESxBUCKETS. For each: `generate-aws` writes the collection
folder (not timed as part of the import), then the import runs in its three phases,
each timed: **parse** (`read_sources`: read and recognise the files), **evaluate**
(`build_document`: the IAM policy evaluator and the mapping to one graph document, its
relationships plain rows) and **load** (`import_document`: the relationships validated with the
graph model's rules, then written into a fresh embedded FalkorDB, as `import-aws --replace`
does: `GRAPH.BULK` into a staging graph, indexes, `RENAME`).
The evaluator's share is evaluate ÷ (parse + evaluate + load). With `--escalations N` the
account holds N planted privilege-escalation permissions (`generate-aws --escalations`); the
escalation share is the part of the relationships that are `CAN_ESCALATE`. With `--bucket-policies N
--org-levels L --scps N` the account also holds N bucket policies and an organisation of L levels
with N SCPs (`generate-aws`, `generate_policies.py`). The target is the
issue's: the 20,000 users / 5,000 roles / 10,000 policies / 5,000 buckets account in at
most 30 s. An evaluation still running after `--timeout` seconds is stopped and
reported as such (nothing is written to a database before it ends). The section
"AWS import" of the Markdown report is replaced (or added).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "FULL_SIZE",
    "TARGET_S",
    "carry_section",
    "measure_aws_import",
    "parse_aws_size",
    "render_aws_section",
    "write_section",
]

ROOT = Path(__file__).resolve().parent.parent
FULL_SIZE = (20_000, 5_000, 10_000, 5_000)
TARGET_S = 30.0
SECTION = "## AWS import"


def parse_aws_size(text: str) -> tuple[int, int, int, int]:
    """`USERSxROLESxPOLICIESxBUCKETS`, e.g. `20000x5000x10000x5000`."""
    match = re.fullmatch(r"(\d+)x(\d+)x(\d+)x(\d+)", text.strip().lower())
    if not match:
        raise argparse.ArgumentTypeError(f"bad size {text!r} (use USERSxROLESxPOLICIESxBUCKETS)")
    users, roles, policies, buckets = (int(g) for g in match.groups())
    return users, roles, policies, buckets


class _Timeout(Exception):
    pass


def _alarm(_signum: int, _frame: Any) -> None:
    raise _Timeout


def _phases(row: dict[str, Any], folder: Path, timeout_s: float | None, log: Callable[[str], None]) -> dict[str, Any]:
    """Parse, evaluate and load one generated account, each phase timed (into `row`)."""
    from blastshield_core.base.settings import load_settings
    from blastshield_core.graph.ingest import import_document
    from blastshield_core.graph.store import Store
    from blastshield_core.sources.aws import build_document, read_sources

    cpu, started = time.process_time(), time.perf_counter()
    sources = read_sources([folder])
    row["parse_s"] = round(time.perf_counter() - started, 2)
    log(f"[aws {row['size']}] parsed in {row['parse_s']} s")

    started = time.perf_counter()
    previous = signal.signal(signal.SIGALRM, _alarm) if timeout_s else None
    if timeout_s:
        signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        doc, report = build_document(sources)
    except _Timeout:
        row["evaluate_s"] = round(time.perf_counter() - started, 2)
        row["cpu_s"] = round(time.process_time() - cpu, 2)
        row["load_avg"].append(round(os.getloadavg()[0], 1))
        log(f"[aws {row['size']}] evaluation stopped after {row['evaluate_s']} s (timeout)")
        return row
    finally:
        if timeout_s:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    row["evaluate_s"] = round(time.perf_counter() - started, 2)
    row["nodes"] = len(doc.nodes)
    row["relationships"] = len(doc.edges)
    row["by_type"] = dict(report.counts["relationships"])
    row["escalation_share"] = round(row["by_type"].get("CAN_ESCALATE", 0) / max(1, row["relationships"]), 4)
    row["warnings"] = len(report.warnings)
    log(f"[aws {row['size']}] evaluated in {row['evaluate_s']} s: {row['nodes']} nodes, {row['relationships']} rels")

    with tempfile.TemporaryDirectory(prefix="blastshield-bench-aws-db-") as data_dir:
        store = Store(load_settings(environ={}, data_dir=Path(data_dir), graph="bench_aws"))
        try:
            started = time.perf_counter()
            import_document(store, doc, replace=True)
            row["load_s"] = round(time.perf_counter() - started, 2)
        finally:
            store.close()
    row["cpu_s"] = round(time.process_time() - cpu, 2)
    row["total_s"] = round(row["parse_s"] + row["evaluate_s"] + row["load_s"], 2)
    row["evaluator_share"] = round(row["evaluate_s"] / row["total_s"], 3) if row["total_s"] else 0.0
    row["finished"] = True
    row["load_avg"].append(round(os.getloadavg()[0], 1))
    log(
        f"[aws {row['size']}] loaded in {row['load_s']} s; end to end {row['total_s']} s,"
        f" evaluator {100 * row['evaluator_share']:.0f}%"
    )
    return row


def measure_aws_import(
    size: tuple[int, int, int, int],
    *,
    seed: int = 1,
    escalations: int = 0,
    timeout_s: float | None = None,
    policies_options: dict[str, int] | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Generate the account and import it phase by phase into a fresh embedded database."""
    from blastshield_core.graph.ingest import paused_gc
    from blastshield_core.sources.aws.synthetic.generate import AwsGenerateOptions, write_aws_collection

    users, roles, policies, buckets = size
    row: dict[str, Any] = {
        "size": f"{users}x{roles}x{policies}x{buckets}",
        "users": users,
        "roles": roles,
        "policies": policies,
        "buckets": buckets,
        "escalations": escalations,
        **(policies_options or {}),
        "finished": False,
        "load_avg": [round(os.getloadavg()[0], 1)],
    }
    with tempfile.TemporaryDirectory(prefix="blastshield-bench-aws-") as tmp:
        folder = Path(tmp) / "account"
        started = time.perf_counter()
        written = write_aws_collection(
            AwsGenerateOptions(
                users=users,
                roles=roles,
                policies=policies,
                buckets=buckets,
                seed=seed,
                escalations=escalations,
                **(policies_options or {}),
            ),
            folder,
        )
        row["generate_s"] = round(time.perf_counter() - started, 2)
        row["bytes"] = sum(written.files.values())
        log(f"[aws {row['size']}] generated {row['bytes']:,} bytes in {row['generate_s']} s")

        # as `import_aws` does: the collector stays paused while the parsed files and the document live
        with paused_gc():
            row = _phases(row, folder, timeout_s, log)
    return row


def render_aws_section(rows: Sequence[dict[str, Any]], command: str = "python -m bench.aws") -> list[str]:
    """The "AWS import" section of BENCHMARKS.md."""
    out = [
        SECTION,
        "",
        f"Generated by `{command}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Accounts come from",
        "`python -m blastshield_core generate-aws` (seed 1); a size is users × roles × customer managed policies ×",
        "buckets. Phases: **parse** (`read_sources`), **evaluate** (`build_document`: the IAM policy evaluator and",
        "the mapping to one document, its relationships plain rows), **load** (`import_document`: the relationships",
        "validated with the graph model's rules, then written into a fresh embedded FalkorDB, as",
        "`import-aws --replace`); as in `import_aws`, Python's cyclic garbage collector stays paused through the",
        "three phases. `cpu s` is this process's CPU time over the three phases (the server's is not in it);",
        "with the machine's load above 2, wall time includes waiting for a core.",
        "",
        "| size | relationships | parse s | evaluate s | load s | end to end s | evaluator share | cpu s"
        " | load before/after | target ≤ 30 s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        full = (row["users"], row["roles"], row["policies"], row["buckets"]) == FULL_SIZE
        loads = " / ".join(str(x) for x in row["load_avg"])
        if row["finished"]:
            met = ("yes" if row["total_s"] <= TARGET_S else "**no**") if full else "—"
            out.append(
                f"| {row['size']} | {row['relationships']:,} | {row['parse_s']} | {row['evaluate_s']} | {row['load_s']}"
                f" | {row['total_s']} | {100 * row['evaluator_share']:.0f}% | {row['cpu_s']} | {loads} | {met} |"
            )
        else:
            met = "**no**" if full else "—"
            out.append(
                f"| {row['size']} | — | {row['parse_s']} | stopped after {row['evaluate_s']} | —"
                f" | > {row['evaluate_s']} | — | {row.get('cpu_s', '—')} | {loads} | {met} (unfinished) |"
            )
    by_type = [r for r in rows if r.get("by_type")]
    if by_type:
        out += ["", "Relationships by type:", ""]
        for row in by_type:
            out.append(f"- {row['size']}: " + ", ".join(f"{k} {v:,}" for k, v in sorted(row["by_type"].items())))
            if row.get("escalations"):
                out.append(
                    f"  (`--escalations {row['escalations']}`: CAN_ESCALATE is"
                    f" {100 * row['escalation_share']:.2f}% of the relationships)"
                )
            if row.get("bucket_policies") or row.get("org_levels"):
                out.append(
                    f"  (`--bucket-policies {row.get('bucket_policies', 0)} --org-levels {row.get('org_levels', 0)}"
                    f" --scps {row.get('scps', 0)}`: bucket policies and an organisation with SCPs)"
                )
    out.append("")
    return out


def write_section(path: Path, lines: list[str]) -> None:
    """Replace the "AWS import" section of the report at `path` (or append it)."""
    from bench.cli import write_section as write_named_section

    write_named_section(path, lines, SECTION)


def carry_section(path: Path, previous: str) -> None:
    """Put the "AWS import" section of `previous` (the report before a rewrite) back into the report at `path`."""
    from bench.cli import carry_section as carry_named_section

    carry_named_section(path, previous, SECTION)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.aws", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--size", action="append", type=parse_aws_size, help="USERSxROLESxPOLICIESxBUCKETS (repeatable)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--escalations", type=int, default=0, help="planted privilege escalations (generate-aws)")
    parser.add_argument("--bucket-policies", type=int, default=0, help="bucket policies (generate-aws)")
    parser.add_argument("--org-levels", type=int, default=0, help="organisation levels (generate-aws)")
    parser.add_argument("--scps", type=int, default=0, help="SCPs over the organisation's levels (generate-aws)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="stop an evaluation after this many seconds")
    parser.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"), help="Markdown report ('-' for none)")
    args = parser.parse_args(argv)
    sizes = args.size or [FULL_SIZE]
    extra = {"bucket_policies": args.bucket_policies, "org_levels": args.org_levels, "scps": args.scps}
    extra = {k: v for k, v in extra.items() if v}
    rows = [
        measure_aws_import(
            size, seed=args.seed, escalations=args.escalations, timeout_s=args.timeout, policies_options=extra
        )
        for size in sizes
    ]
    command = "python -m bench.aws" + "".join(f" --size {'x'.join(map(str, s))}" for s in args.size or [])
    command += f" --escalations {args.escalations}" if args.escalations else ""
    command += "".join(f" --{k.replace('_', '-')} {v}" for k, v in extra.items())
    lines = render_aws_section(rows, command)
    print("\n".join(lines))
    if args.out != "-":
        write_section(Path(args.out), lines)
        print(f"wrote the AWS import section of {args.out}")
    full = [r for r in rows if (r["users"], r["roles"], r["policies"], r["buckets"]) == FULL_SIZE]
    return 0 if all(r["finished"] and r["total_s"] <= TARGET_S for r in full) else 1


if __name__ == "__main__":
    sys.exit(main())
