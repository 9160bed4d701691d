"""Reading AWS export files: recognition by content, folders, archives, refused inputs (no database)."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from blastshield_core.sources.aws import AwsInputError, read_sources
from blastshield_core.sources.aws.build.get import recognise

GAAD = {"UserDetailList": [], "GroupDetailList": [], "RoleDetailList": [], "Policies": []}


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (GAAD, "gaad"),
        ({"RoleDetailList": []}, "gaad"),
        ({"Reservations": []}, "instances"),
        ({"Functions": []}, "functions"),
        ({"Content": "dXNlcg==", "ReportFormat": "text/csv"}, "credential_report"),
        ({"Buckets": [], "Owner": {}}, "buckets"),
        ({"Findings": []}, "findings"),
        ({"Users": []}, None),
        ([GAAD], None),
        ({"Content": "x"}, None),
    ],
)
def test_recognise_by_content(data, kind):
    """Each export is recognised by its top-level keys, not its name."""
    assert recognise(data) == kind


def test_folder_is_searched_recursively_and_unknown_files_are_skipped(tmp_path):
    """A folder's nested exports are read; other JSON and non-JSON files are skipped with a reason."""
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "whatever-name.json").write_text(json.dumps(GAAD))
    (tmp_path / "a" / "list.json").write_text(json.dumps({"Buckets": []}))
    (tmp_path / "other.json").write_text("{}")
    (tmp_path / "README.txt").write_text("hi")
    sources = read_sources([tmp_path])
    assert sorted(f.kind for f in sources.files) == ["buckets", "gaad"]
    assert {s["file"].rsplit("/", 1)[1]: s["reason"][:20] for s in sources.skipped} == {
        "README.txt": "not a .json file",
        "other.json": "not a recognised AWS",
    }


def test_zip_file_on_disk_is_read(tmp_path):
    """A .zip path is opened and its JSON members recognised."""
    path = tmp_path / "bundle.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("acct/gaad.json", json.dumps(GAAD))
        archive.writestr("acct/notes.md", "x")
    sources = read_sources([path])
    assert [(f.kind, f.name) for f in sources.files] == [("gaad", f"{path}:acct/gaad.json")]
    assert sources.skipped == [{"file": f"{path}:acct/notes.md", "reason": "not a .json file"}]


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ([("x.json", b"{")], "is not valid JSON"),
        ([("x.json", b"\xff\xfe")], "is not UTF-8"),
        ([("x.zip", b"not a zip")], "is not a valid zip"),
        ([("gaad.json", json.dumps(GAAD).encode()), ("x.json", b'{"a": 1}')], "not a recognised AWS CLI export"),
        ([("b.json", b'{"Buckets": []}')], "at least one is required"),
        (["/no/such/path"], "no such file or folder"),
    ],
)
def test_inputs_that_cannot_be_imported_are_errors(items, message):
    """Bad JSON, bad archives, unrecognised named files, missing paths and no GAAD raise AwsInputError."""
    with pytest.raises(AwsInputError, match=message):
        read_sources(items)


def test_invalid_json_inside_a_folder_is_an_error(tmp_path):
    """A JSON file that does not parse is an error even inside a folder."""
    (tmp_path / "gaad.json").write_text(json.dumps(GAAD))
    (tmp_path / "broken.json").write_text("{,")
    with pytest.raises(AwsInputError, match=r"broken\.json: is not valid JSON"):
        read_sources([tmp_path])


def test_uploaded_zip_bytes_are_read():
    """A zip given as (name, bytes) is read like one on disk."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("gaad.json", json.dumps(GAAD))
    sources = read_sources([("upload.zip", buffer.getvalue())])
    assert [f.name for f in sources.files] == ["upload.zip:gaad.json"]
