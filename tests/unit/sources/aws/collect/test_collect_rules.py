"""The collector's pure rules: names on disk, service error summaries, failure lines, bounds, the
manifest's record of missing parts, secrets left out."""

from __future__ import annotations

import pytest

from blastshield_core.sources.aws.collect.bounds import Bounds
from blastshield_core.sources.aws.collect.manifest import (
    ACCOUNT_RE,
    CollectError,
    Manifest,
    error_summary,
    failure_line,
    missing_parts,
)
from blastshield_core.sources.aws.collect.services import SECRET_MARKER, safe_name, without_secrets


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("..", "_.."),
        (".", "_."),
        ("../../etc", "_.._.._etc"),
        ("/abs/path", "_abs_path"),
        ("ok-name_1.x", "ok-name_1.x"),
    ],
)
def test_a_resource_name_is_one_visible_file_name(name, safe):
    assert safe_name(name) == safe
    assert "/" not in safe_name(name) and not safe_name(name).startswith(".")


@pytest.mark.parametrize("account", ["../../x", "/tmp/x", "12345678901", "1234567890123", "12345678901a", ""])
def test_only_twelve_digits_are_an_account(account):
    assert ACCOUNT_RE.fullmatch(account) is None
    assert ACCOUNT_RE.fullmatch("123456789012")


def test_a_service_error_is_code_and_message_never_markup():
    raw = "<Error><Code>X</Code><Message>bad <b>thing</b></Message></Error>" + "x" * 500
    summary = error_summary("<Code>Boom</Code>", raw)
    assert summary.startswith("Boom: ") and "<" not in summary and len(summary) < 260


def test_a_failure_line_names_the_profile_the_endpoint_and_the_fix():
    line = failure_line(CollectError("unreachable", "connection refused", "http://127.0.0.1:9"), "collect")
    assert line == (
        "cannot reach http://127.0.0.1:9 (connection refused); check the network and DNS, and endpoint_url in"
        " profile 'collect'; nothing collected"
    )
    assert "\n" not in failure_line(CollectError("no_credentials", "Unable to locate credentials"), "")


def test_bounds_out_of_range_are_refused():
    Bounds().check()
    for bad in (Bounds(pool=0), Bounds(call_s=0), Bounds(max_pages=0), Bounds(max_attempts=11)):
        with pytest.raises(ValueError):
            bad.check()


def test_the_manifest_lists_every_part_that_is_not_complete():
    manifest = Manifest(account="123456789012")
    manifest.record("iam:GetAccountAuthorizationDetails", "complete", pages=3)
    manifest.record("kms:ListKeys", "denied", reason="refused", file="kms-list-keys.json")
    data = manifest.to_dict({"pool": 8})
    assert data["state"] == "partial" and data["calls"]["iam:GetAccountAuthorizationDetails"]["pages"] == 3
    assert missing_parts(data) == [
        {"call": "kms:ListKeys", "item": "", "state": "denied", "reason": "refused", "file": "kms-list-keys.json"}
    ]
    assert missing_parts({"Keys": []}) == []  # not a manifest


def test_lambda_environment_values_are_replaced_names_kept():
    function = {"FunctionName": "f", "Environment": {"Variables": {"DB_PASSWORD": "s3cr3t"}}}
    assert without_secrets(function)["Environment"]["Variables"] == {"DB_PASSWORD": SECRET_MARKER}
    assert function["Environment"]["Variables"]["DB_PASSWORD"] == "s3cr3t"  # the input is not changed


def test_the_manifest_is_a_row_of_the_exports_table():
    from blastshield_core.sources.aws.collect.manifest import MANIFEST_FILE
    from blastshield_core.sources.aws.exports import EXPORT

    assert EXPORT["collection_manifest"].file == MANIFEST_FILE and not EXPORT["collection_manifest"].imported
