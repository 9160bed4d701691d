"""`collect-aws` against an endpoint that misbehaves (tests/helpers/aws_fake.py, in front of moto).

Each case ends within its bound, with the documented exit code and one line, writes nothing
outside `--out`, and leaves a manifest that says what is missing (docs/aws-live.md, "Bounds").

AWS documentation cited: IAM API Reference "GetAccountAuthorizationDetails" (`IsTruncated` and
`Marker`: a new request carries the marker of the last answer); STS API Reference
"GetCallerIdentity" (`Account`: "The AWS account ID number of the account that owns or contains
the calling entity", a 12-digit number); AWS SDKs and Tools Reference Guide "Retry behavior"
(standard mode: `max_attempts` counts the first call, throttling errors are retried);
Lambda API Reference "ListFunctions" (the function configuration includes `Environment.Variables`).
"""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path

import pytest

from blastshield_core.interfaces.cli import main
from tests.helpers import aws_fake, aws_live
from tests.helpers.aws_live import ACCOUNT

moto_server, fake_endpoint = aws_live.moto_server, aws_fake.fake_endpoint  # the fixtures

GAAD = "iam-get-account-authorization-details.json"


def _run(out: Path, *extra: str) -> int:
    return main(["collect-aws", "--out", str(out), "--call-timeout", "2", *extra])


def _manifest(out: Path) -> dict:
    return json.loads((out / ACCOUNT / "collection-manifest.json").read_text(encoding="utf-8"))


def _missing(manifest: dict, call: str) -> list[dict]:
    return [p for p in manifest["missing"] if p["call"] == call]


def _only_inside(tmp_path: Path, out: Path) -> None:
    """Nothing was written outside `--out` (the AWS config the fixture wrote aside)."""
    outside = [
        p
        for p in tmp_path.rglob("*")
        if p.is_file()
        and not p.is_relative_to(out)
        and p.name != "aws-config"
        and not p.relative_to(tmp_path).parts[0].startswith("db")  # the data folder and its audit anchor
    ]
    assert outside == []


def _users(fake, n: int) -> None:
    iam = aws_live.MotoAccount(fake.moto_url, Path()).client("iam")
    for i in range(n):
        iam.create_user(UserName=f"user{i:03d}")
        if i % 2 == 0:
            iam.create_access_key(UserName=f"user{i:03d}")


@pytest.mark.parametrize(
    "case",
    [
        ("endless_markers", ("--max-pages", "20"), 20, "max_pages"),
        ("repeated_marker", (), 2, "repeated marker"),
        ("cycling_markers", (), 4, "repeated marker"),
    ],
)
def test_markers_that_never_end_are_cut_and_the_listing_is_not_written(fake_endpoint, tmp_path, capsys, case):
    how, extra, requests, limit = case
    fake_endpoint.spoil("GetAccountAuthorizationDetails", how)
    out = tmp_path / "out"
    started = time.monotonic()
    assert _run(out, *extra) == 0
    assert time.monotonic() - started < 30
    captured = capsys.readouterr()
    assert "PARTIAL" in captured.out and "iam:GetAccountAuthorizationDetails" in captured.out
    assert fake_endpoint.seen["GetAccountAuthorizationDetails"] == requests
    assert not (out / ACCOUNT / GAAD).exists()  # no file that looks complete
    assert not (out / ACCOUNT / "iam-list-access-keys.json").exists()  # nor keys for an unknown list of users
    manifest = _manifest(out)
    assert manifest["state"] == "partial"
    (part,) = _missing(manifest, "iam:GetAccountAuthorizationDetails")
    assert part["state"] == "partial" and f"limit {limit}" in part["reason"] and part["file"] == GAAD
    assert _missing(manifest, "iam:ListAccessKeys")
    _only_inside(tmp_path, out)


@pytest.mark.parametrize("how", ["drip", "hang"])
def test_a_drip_or_a_hang_ends_at_the_call_deadline(fake_endpoint, tmp_path, capsys, how):
    fake_endpoint.spoil("ListBuckets", how)
    out = tmp_path / "out"
    started = time.monotonic()
    assert _run(out) == 0
    assert time.monotonic() - started < 20  # the 2 s deadline, once (never retried), plus the rest
    assert fake_endpoint.seen["ListBuckets"] == 1
    (part,) = _missing(_manifest(out), "s3:ListAllMyBuckets")
    assert "per-call deadline of 2 s" in part["reason"] and "limit call_s" in part["reason"]
    assert not (out / ACCOUNT / "s3-list-buckets.json").exists()
    assert (out / ACCOUNT / GAAD).exists()  # the rest was collected
    _only_inside(tmp_path, out)
    capsys.readouterr()


def test_the_collection_deadline_cuts_everything_after_it(fake_endpoint, tmp_path, capsys):
    fake_endpoint.spoil("ListBuckets", "drip")
    out = tmp_path / "out"
    started = time.monotonic()
    assert main(["collect-aws", "--out", str(out), "--call-timeout", "60", "--deadline", "4"]) == 0
    assert time.monotonic() - started < 15
    manifest = _manifest(out)
    cut = [p for p in manifest["missing"] if "collection's deadline of 4 s" in p["reason"]]
    assert {p["call"] for p in cut} >= {"s3:ListAllMyBuckets", "kms:ListKeys", "guardduty:ListDetectors"}
    assert fake_endpoint.seen["ListKeys"] == 0  # nothing is sent once the deadline has passed
    assert "PARTIAL" in capsys.readouterr().out
    _only_inside(tmp_path, out)


def test_a_huge_body_is_dropped_as_it_streams(fake_endpoint, tmp_path, capsys):
    import tracemalloc

    def peak_mb(out: Path) -> float:  # the collection's peak of Python memory (botocore's models included)
        tracemalloc.start()
        try:
            assert _run(out, "--max-response-mb", "4", "--call-timeout", "20") == 0
            return tracemalloc.get_traced_memory()[1] / (1 << 20)
        finally:
            tracemalloc.stop()

    usual = peak_mb(tmp_path / "usual")
    fake_endpoint.spoil("GetAccountAuthorizationDetails", "huge")
    fake_endpoint.huge_mb = 60
    out = tmp_path / "out"
    huge = peak_mb(out)
    (part,) = _missing(_manifest(out), "iam:GetAccountAuthorizationDetails")
    assert "larger than the limit of 4 MB" in part["reason"] and "limit max_bytes" in part["reason"]
    assert huge < usual + 12  # the 60 MB sent were never held: at most the 4 MB limit, and its copies
    capsys.readouterr()


@pytest.mark.parametrize("hostile", ["../../x", "/tmp/elsewhere", "12345678901a", "1234567890123"])
def test_a_hostile_account_id_is_refused_before_it_names_anything(fake_endpoint, tmp_path, capsys, hostile):
    fake_endpoint.spoil("GetCallerIdentity", "account")
    fake_endpoint.hostile_account = hostile
    out, data = tmp_path / "out", tmp_path / "db"
    assert main(["collect-aws", "--out", str(out), "--import", "--data-dir", str(data)]) == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "account id that is not 12 digits" in err[0]
    assert fake_endpoint.url in err[0] and "'collect'" in err[0] and "endpoint_url" in err[0]
    assert not out.exists() or list(out.iterdir()) == []
    assert not (data / "aws-collections.json").exists()
    _only_inside(tmp_path, out)


@pytest.mark.parametrize(
    "case",
    [
        ("not_aws", "collect", (), "did not answer as AWS does"),
        ("hang", "collect", (), "did not answer in time"),
        ("", "nokeys", (), "has no credentials"),
        ("", "collect", ("--endpoint-url", "http://127.0.0.1:9"), "cannot reach http://127.0.0.1:9"),
    ],
)
def test_failures_exit_4_with_one_line_naming_profile_endpoint_and_fix(fake_endpoint, tmp_path, capsys, case):
    spoil, profile, extra, words = case
    if spoil:
        fake_endpoint.spoil("GetCallerIdentity", spoil)
    out = tmp_path / "out"
    started = time.monotonic()
    assert _run(out, "--profile", profile, *extra) == 4
    assert time.monotonic() - started < 20
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert words in lines[0] and f"'{profile}'" in lines[0] and "nothing collected" in lines[0]
    assert "Traceback" not in captured.err
    assert not out.exists() or list(out.iterdir()) == []
    _only_inside(tmp_path, out)


def test_an_expired_token_exits_4_with_the_fix(fake_endpoint, tmp_path, capsys):
    from blastshield_core.sources.aws.collect.manifest import CollectError, failure_line

    line = failure_line(CollectError("expired", "sts:GetCallerIdentity: ExpiredToken: expired", "https://x"), "p")
    assert "have expired" in line and "aws sso login --profile 'p'" in line
    fake_endpoint.spoil("GetCallerIdentity", "expired")
    # the fake answers ExpiredToken in the query protocol's error body
    assert _run(tmp_path / "out") == 4
    err = capsys.readouterr().err
    assert "credentials of profile 'collect' have expired" in err and "<" not in err


def test_denied_calls_write_no_file_the_manifest_says_so_and_import_warns(fake_endpoint, tmp_path, capsys):
    for action in ("ListKeys", "ListSecrets", "ListDetectors"):
        fake_endpoint.spoil(action, "denied")
    out, data = tmp_path / "out", tmp_path / "db"
    assert main(["collect-aws", "--out", str(out), "--import", "--json", "--data-dir", str(data)]) == 0
    report = json.loads(capsys.readouterr().out)
    folder = out / ACCOUNT
    for name in ("kms-list-keys.json", "secretsmanager-list-secrets.json", "guardduty-get-findings.json"):
        assert not (folder / name).exists(), name
    manifest = _manifest(out)
    assert {p["call"] for p in manifest["missing"] if p["state"] == "denied"} == {
        "kms:ListKeys",
        "secretsmanager:ListSecrets",
        "guardduty:ListDetectors",
    }
    assert manifest["calls"]["iam:GetAccountAuthorizationDetails"]["complete"] == 1
    imported = report["imported"]
    warned = [w for w in imported["warnings"] if w["file"].endswith("collection-manifest.json")]
    assert len(warned) == 3 and all("denied" in w["message"] for w in warned)
    skipped = {Path(s["file"]).name for s in imported["skipped"]}
    assert "sts-get-caller-identity.json" not in skipped and "collection-manifest.json" not in skipped
    assert "next" in imported  # the principals to look at first, as after import-aws
    _only_inside(tmp_path, out)


def test_service_errors_are_summarised_never_raw_xml(fake_endpoint, tmp_path, capsys):
    fake_endpoint.spoil("ListBuckets", "not_aws")
    fake_endpoint.spoil("GetBucketTagging", "throttle")
    out = tmp_path / "out"
    assert _run(out) == 0
    captured = capsys.readouterr()
    warning = next(line for line in captured.out.splitlines() if "s3:ListAllMyBuckets" in line)
    assert "not an AWS response" in warning and "<html" not in captured.out


def test_one_retry_layer_with_a_stated_maximum(fake_endpoint, tmp_path, capsys):
    _users(fake_endpoint, 2)
    fake_endpoint.spoil("ListAccessKeys", "throttle_once")
    out = tmp_path / "out"
    assert _run(out) == 0
    assert fake_endpoint.seen["ListAccessKeys"] == 3  # one throttled, tried again by botocore; two users
    assert (out / ACCOUNT / "iam-list-access-keys.json").exists()
    fake_endpoint.clear()
    fake_endpoint.spoil("ListAccessKeys", "throttle")
    assert _run(out) == 0
    assert fake_endpoint.seen["ListAccessKeys"] == 2 * 3  # max_attempts 3 per user, nothing stacked on it
    assert not (out / ACCOUNT / "iam-list-access-keys.json").exists()  # replaced by a collection without it
    capsys.readouterr()


def test_principals_in_a_bounded_pool_every_user_listed_progress_counted(fake_endpoint, tmp_path, capsys):
    from blastshield_core.sources.aws.collect.bounds import Bounds
    from blastshield_core.sources.aws.collect.collector import collect_account

    _users(fake_endpoint, 40)
    fake_endpoint.spoil("ListAccessKeys", "slow")
    events: list[dict] = []
    report = collect_account(aws_live.MotoAccount(fake_endpoint.url, Path()).session(), tmp_path / "out",
                             progress=events.append, bounds=Bounds(pool=4))  # fmt: skip
    assert fake_endpoint.seen["ListAccessKeys"] == 40  # no user skipped, keys or not
    assert 1 < fake_endpoint.most_in_flight <= 4
    counted = [e for e in events if e.get("call") == "iam:ListAccessKeys" and "total" in e]
    assert counted[-1]["done"] == counted[-1]["total"] == 40 and counted[-1]["state"] == "done"
    assert [e["done"] for e in counted] == sorted(e["done"] for e in counted)
    keys = json.loads((tmp_path / "out" / ACCOUNT / "iam-list-access-keys.json").read_text())["AccessKeyMetadata"]
    assert len(keys) == 20 and report.status == "collected"
    assert main(["collect-aws", "--out", str(tmp_path / "cli"), "--pool", "4"]) == 0
    err = capsys.readouterr().err
    assert f"[{ACCOUNT}] ListAccessKeys 40/40 (" in err


def test_too_many_principals_is_a_bound_not_a_fan_out(fake_endpoint, tmp_path, capsys):
    _users(fake_endpoint, 5)
    out = tmp_path / "out"
    assert _run(out, "--max-principals", "3") == 0
    assert fake_endpoint.seen["ListAccessKeys"] == 0
    (part,) = _missing(_manifest(out), "iam:ListAccessKeys")
    assert "5 users, more than the limit of 3 (max_principals)" in part["reason"]
    capsys.readouterr()


def test_bad_bounds_are_refused_and_nothing_is_written(fake_endpoint, tmp_path, capsys):
    out = tmp_path / "out"
    assert _run(out, "--pool", "0") == 2
    assert _run(out, "--deadline", "-1") == 2
    assert not out.exists()
    assert "pool must be 1 to 64" in capsys.readouterr().err


def test_the_dashboards_collection_says_the_command_lines_line(fake_endpoint, tmp_path, capsys):
    from blastshield_core import load_settings, open_services
    from blastshield_core.interfaces.aws.account import CollectionJob

    assert _run(tmp_path / "cli", "--profile", "nokeys") == 4
    line = capsys.readouterr().err.strip()
    settings = load_settings(environ={}, data_dir=tmp_path / "data")
    services = open_services(settings)
    try:
        job = CollectionJob("nokeys", ["us-east-1"], tmp_path / "dash", "tester", services.store, settings)
        assert list(job.start().progress()) == []  # no account, so no bar: the failure line
        assert job.result is None and job.error and line.endswith(job.error)
    finally:
        services.close()


def test_the_collect_form_prefers_the_collect_profile_and_marks_the_one_that_writes(fake_endpoint, monkeypatch):
    from blastshield_core.interfaces.aws.account import collect_profiles

    monkeypatch.setenv("BLASTSHIELD_AWS_RESPOND_PROFILE", "respond")
    monkeypatch.setenv("BLASTSHIELD_AWS_COLLECT_PROFILE", "nokeys")
    assert collect_profiles() == (["nokeys", "collect", "respond"], 0, {"respond"})
    monkeypatch.setenv("BLASTSHIELD_AWS_COLLECT_PROFILE", "respond")  # the writer: never chosen for you
    assert collect_profiles() == (["respond", "collect", "nokeys"], None, {"respond"})
    monkeypatch.delenv("BLASTSHIELD_AWS_COLLECT_PROFILE")
    assert collect_profiles()[1] is None


def test_the_dashboards_progress_moves_at_least_every_2_s_while_a_call_hangs(fake_endpoint, tmp_path):
    from blastshield_core import load_settings, open_services
    from blastshield_core.interfaces.aws.account import CollectionJob
    from blastshield_core.sources.aws.collect.bounds import Bounds

    _users(fake_endpoint, 3)
    fake_endpoint.spoil("ListBuckets", "hang")
    settings = load_settings(environ={}, data_dir=tmp_path / "data")
    services = open_services(settings)
    try:
        job = CollectionJob("collect", ["us-east-1"], tmp_path / "dash", "tester", services.store, settings,
                            bounds=Bounds(call_s=5))  # fmt: skip
        seen = [time.monotonic()]
        events = []
        for event in job.start().progress(heartbeat_s=1.0):
            seen.append(time.monotonic())
            events.append(event)
        gaps = [b - a for a, b in itertools.pairwise(seen)]
        assert max(gaps) < 2.0, max(gaps)
        assert any(e["state"] == "waiting" for e in events)  # the hang was covered by the heartbeat
        assert [e for e in events if e.get("total")][-1]["done"] == 3  # principals counted
        assert job.result is not None and job.result["status"] == "partial"
    finally:
        services.close()


def test_the_collection_reads_at_most_its_total_of_bytes(fake_endpoint, tmp_path):
    from blastshield_core.sources.aws.collect.bounds import Bounds
    from blastshield_core.sources.aws.collect.collector import collect_account

    fake_endpoint.spoil("GetAccountAuthorizationDetails", "endless_markers")  # small pages, for ever
    report = collect_account(aws_live.MotoAccount(fake_endpoint.url, Path()).session(), tmp_path / "out",
                             bounds=Bounds(max_total_bytes=20_000))  # fmt: skip
    (part,) = _missing(_manifest(tmp_path / "out"), "iam:GetAccountAuthorizationDetails")
    assert "passed 20000 bytes in all" in part["reason"] and "limit max_total_bytes" in part["reason"]
    assert fake_endpoint.seen["GetAccountAuthorizationDetails"] < 100 and report.status == "partial"
