"""Hostile export files: bounded before they are read, links not followed, parse failures as clear
errors, terminal escapes shown, a closed pipe ended quietly.

Figures (before -> after, this machine; see HARDENING.md, "Hostile exports"): a 3 GiB sparse file was
read in full (17.7 s, 3.2 GB RSS) before the limit refused it -> refused from its size in milliseconds;
a 735 KB zip of three 240 MiB members ran 93 s to 13.4 GB and a `MemoryError` -> refused at the
total limit; a member failing its CRC was a `BadZipFile` traceback -> exit 2 naming the member.
"""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import time
import uuid
import zipfile
from pathlib import Path

import pytest

from blastshield_core.sources.aws import AwsInputError, read_sources
from blastshield_core.sources.aws.build import get
from blastshield_core.sources.aws.build.get import MAX_FILE_BYTES, MAX_LISTED
from blastshield_core.sources.aws.build.load import build_document
from tests.conftest import ROOT, run_cli

A = "111111111111"
GAAD = {
    "UserDetailList": [
        {"UserName": "u", "UserId": "AIDA0000000000000001", "Arn": f"arn:aws:iam::{A}:user/u", "UserPolicyList": []}
    ],
    "GroupDetailList": [],
    "RoleDetailList": [],
    "Policies": [],
}


def _gaad(account: str = A) -> bytes:
    return json.dumps(GAAD).replace(A, account).encode()


def test_a_sparse_file_is_refused_from_its_size_before_it_is_read(tmp_path):
    """Before: a 3 GiB sparse file was read in full (17.7 s, 3.2 GB) and then refused."""
    big = tmp_path / "gaad.json"
    with big.open("wb") as out:
        out.truncate(3 * 1024**3)
    started = time.perf_counter()
    with pytest.raises(AwsInputError, match=f"file is {3 * 1024**3} bytes; the limit is {MAX_FILE_BYTES >> 20} MB"):
        read_sources([big])
    assert time.perf_counter() - started < 1.0
    folder = tmp_path / "folder"
    folder.mkdir()
    big.rename(folder / "big.json")
    with pytest.raises(AwsInputError, match=r"big\.json: file is"):
        read_sources([folder])


def _zip(members: dict[str, bytes], *, links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return buffer.getvalue()


def test_the_inflated_total_of_an_archive_is_bounded_as_it_is_read(monkeypatch):
    """Members each under the file limit, together over the total: refused, counted as inflated.

    The limits are lowered here so the archive stays small; the real ones are 256 MiB a file and
    512 MiB in all (HARDENING.md has the figure for the 735 KB archive of three 240 MiB members).
    """
    monkeypatch.setattr(get, "MAX_FILE_BYTES", 4 * 1024 * 1024)
    monkeypatch.setattr(get, "MAX_TOTAL_BYTES", 8 * 1024 * 1024)
    filler = b" " * (3 * 1024 * 1024)
    archive = _zip({"a/gaad.json": _gaad() + filler, "b/gaad.json": _gaad() + filler, "c/gaad.json": _gaad() + filler})
    assert len(archive) < 100_000
    with pytest.raises(AwsInputError, match="more than 8388608 bytes in all"):
        read_sources([("bomb.zip", archive)])
    # the same members, two of them: within the total, imported
    sources = read_sources([("fine.zip", _zip({"a/gaad.json": _gaad() + filler, "b/gaad.json": _gaad() + filler}))])
    assert len(sources.of("gaad")) == 2


def test_a_member_larger_than_its_header_says_is_refused_when_read():
    """A header may lie about a member's size: the read stops at it and the CRC check names the member."""
    data = _gaad() + b" " * 5000
    archive = bytearray(_zip({"gaad.json": data}))
    header = archive.index(b"PK\x03\x04")
    central = archive.index(b"PK\x01\x02")
    small = (100).to_bytes(4, "little")
    archive[header + 22 : header + 26] = small  # local header: uncompressed size
    archive[central + 24 : central + 28] = small  # central directory: uncompressed size
    with pytest.raises(AwsInputError, match=r"lying\.zip:gaad\.json: cannot be read from the archive"):
        read_sources([("lying.zip", bytes(archive))])


def test_parse_failures_are_clear_errors_naming_the_file():
    archive = bytearray(_zip({"gaad.json": _gaad() * 20}))
    start = archive.index(b"PK\x03\x04") + 30 + len("gaad.json")
    archive[start + 40] ^= 0xFF  # damage the compressed data: a bad CRC or a bad stream
    for items, said in (
        ([("crc.zip", bytes(archive))], "crc.zip:gaad.json: cannot be read from the archive"),
        ([("deep.json", b"[" * 100_000 + b"]" * 100_000)], "deep.json: is nested too deeply"),
        ([("latin.json", '{"n": "caf\xe9"}'.encode("latin-1"))], "latin.json: is not UTF-8 text"),
        ([("trunc.zip", _zip({"gaad.json": _gaad()})[:60])], "trunc.zip: is not a valid zip archive"),
    ):
        with pytest.raises(AwsInputError, match=said.replace(".", r"\.")):
            read_sources(items)


def test_links_leaving_the_folder_or_in_an_archive_are_not_followed(tmp_path):
    """Before: a link to a 0600 export elsewhere was imported as an account; one to /etc/shadow was read."""
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "other.json").write_bytes(_gaad("222222222222"))
    os.chmod(outside / "other.json", 0o600)
    folder = tmp_path / "export"
    (folder / "sub").mkdir(parents=True)
    (folder / "gaad.json").write_bytes(_gaad())
    (folder / "sub" / "again.json").symlink_to(folder / "gaad.json")  # inside: read
    (folder / "stolen.json").symlink_to(outside / "other.json")
    (folder / "shadow.json").symlink_to("/etc/shadow")
    (folder / "up").symlink_to(outside, target_is_directory=True)
    sources = read_sources([folder])
    assert sorted(Path(f.name).name for f in sources.files) == ["again.json", "gaad.json"]
    reasons = {Path(s["file"]).name: s["reason"] for s in sources.skipped}
    assert reasons["stolen.json"] == reasons["shadow.json"] == "a symbolic link leaving the folder (not followed)"
    assert reasons["up"] == "a symbolic link to a folder (not followed)"
    _, report = build_document(sources)
    assert report.accounts == [A]

    archive = _zip({"gaad.json": _gaad()}, links={"etc.json": "/etc/passwd"})
    sources = read_sources([("linked.zip", archive)])
    assert sources.skipped == [{"file": "linked.zip:etc.json", "reason": "a symbolic link (links are not followed)"}]


def test_skipped_files_and_warnings_are_listed_up_to_a_cap_then_counted(tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    (folder / "gaad.json").write_bytes(_gaad())
    for i in range(MAX_LISTED + 25):
        (folder / f"n{i:05d}.txt").write_text("x")
    sources = read_sources([folder])
    assert len(sources.skipped) == MAX_LISTED and sources.skipped_beyond == 25
    policies = [{"PolicyName": f"p{i}", "PolicyDocument": "not json"} for i in range(MAX_LISTED + 40)]
    data = json.loads(_gaad())
    data["UserDetailList"][0]["UserPolicyList"] = policies
    _, report = build_document(read_sources([("gaad.json", json.dumps(data).encode())]))
    assert len(report.warnings) == MAX_LISTED and report.warnings_beyond == 40
    assert report.skipped == [] and report.skipped_beyond == 0


def test_cli_shows_terminal_escapes_in_names_and_ends_quietly_on_a_closed_pipe(loopback_server, tmp_path):
    """Before: a member name's `ESC[2J` cleared the analyst's screen, U+202E reordered the line; and
    `... --json | head` ended with a BrokenPipeError traceback."""
    hostile = "\x1b[2J\x1b]8;;https://example.invalid\x07link\u202eevil\nline.txt"
    archive = tmp_path / "export.zip"
    archive.write_bytes(_zip({"gaad.json": _gaad(), hostile: b"x"}))
    env = {"FALKORDB_URL": loopback_server.url, "BLASTSHIELD_GRAPH": f"hostile_{uuid.uuid4().hex[:8]}"}
    result = run_cli("import-aws", str(archive), env=env)
    assert result.returncode == 0, result.stderr
    shown = result.stdout + result.stderr
    assert "\x1b" not in shown and "\u202e" not in shown and "\x07" not in shown
    skipped = [line for line in result.stdout.splitlines() if line.startswith("skipped:")]
    assert skipped == [
        f"skipped: {archive}:\\x1b[2J\\x1b]8;;https://example.invalid\\x07link\\u202eevil\\x0aline.txt: not a .json file"
    ]

    read, write = os.pipe()
    os.close(read)  # the reader is gone before the command writes
    with os.fdopen(write, "wb") as out:
        proc = subprocess.run(
            [sys.executable, "-m", "blastshield_core", "import-aws", str(archive), "--json"],
            cwd=ROOT,
            env={**{k: v for k, v in os.environ.items() if not k.startswith(("BLASTSHIELD_", "FALKORDB_"))}, **env},
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    assert proc.stderr == ""
    assert proc.returncode == 128 + 13  # as a shell reports a writer ended by SIGPIPE
