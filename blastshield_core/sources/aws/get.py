"""Get: read AWS CLI export files and recognise each one by its content.

No interpretation happens here: a recognised file is kept as parsed JSON with
its kind and where it came from. Inputs are files, folders (searched
recursively) and `.zip` archives, given as paths or as `(name, bytes)` pairs (an
upload). A file named explicitly that is not recognised, and any file that is
not valid JSON, is an `AwsInputError`; a JSON file inside a folder or archive
that is not recognised is listed as skipped with the reason.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

__all__ = ["KINDS", "MAX_FILE_BYTES", "AwsInputError", "AwsSources", "SourceFile", "read_sources", "recognise"]

MAX_FILE_BYTES = 256 * 1024 * 1024

# kind -> what the file is, as the report names it
KINDS = {
    "gaad": "aws iam get-account-authorization-details",
    "instances": "aws ec2 describe-instances",
    "functions": "aws lambda list-functions",
    "credential_report": "aws iam get-credential-report",
    "buckets": "aws s3api list-buckets",
    "findings": "aws guardduty get-findings",
}


class AwsInputError(ValueError):
    """An input that cannot be imported at all (unreadable, not JSON, not recognised when named)."""


@dataclass(frozen=True)
class SourceFile:
    """One recognised export file: its kind, its name as given, its folder (for grouping) and its JSON."""

    kind: str
    name: str
    folder: str
    data: dict[str, Any]


@dataclass
class AwsSources:
    """Every recognised file of one import, by kind, and the files skipped with their reason."""

    files: list[SourceFile] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)

    def of(self, kind: str) -> list[SourceFile]:
        return [f for f in self.files if f.kind == kind]


def recognise(data: Any) -> str | None:
    """The kind of an export from its top-level keys, or None."""
    if not isinstance(data, dict):
        return None
    keys = set(data)
    if keys & {"UserDetailList", "RoleDetailList"} and keys & {"GroupDetailList", "Policies", "RoleDetailList"}:
        return "gaad"
    if isinstance(data.get("Reservations"), list):
        return "instances"
    if isinstance(data.get("Functions"), list):
        return "functions"
    if isinstance(data.get("Content"), str) and keys & {"ReportFormat", "GeneratedTime"}:
        return "credential_report"
    if isinstance(data.get("Buckets"), list):
        return "buckets"
    if isinstance(data.get("Findings"), list):
        return "findings"
    return None


def _decode(name: str, raw: bytes) -> Any:
    if len(raw) > MAX_FILE_BYTES:
        raise AwsInputError(f"{name}: file is {len(raw)} bytes; the limit is {MAX_FILE_BYTES >> 20} MB per export")
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise AwsInputError(f"{name}: is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise AwsInputError(f"{name}: is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise AwsInputError(f"{name}: is nested too deeply") from None


def _add(sources: AwsSources, name: str, folder: str, raw: bytes, *, named: bool) -> None:
    data = _decode(name, raw)
    kind = recognise(data)
    if kind is None:
        reason = "not a recognised AWS CLI export (" + ", ".join(KINDS.values()) + ")"
        if named:
            raise AwsInputError(f"{name}: {reason}")
        sources.skipped.append({"file": name, "reason": reason})
        return
    sources.files.append(SourceFile(kind, name, folder, data))


def _add_zip(sources: AwsSources, name: str, raw: bytes) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except zipfile.BadZipFile:
        raise AwsInputError(f"{name}: is not a valid zip archive") from None
    with archive:
        for info in sorted(archive.infolist(), key=lambda i: i.filename):
            member = PurePosixPath(info.filename)
            if info.is_dir() or any(part.startswith(".") or part == "__MACOSX" for part in member.parts):
                continue
            label = f"{name}:{info.filename}"
            if member.suffix.lower() != ".json":
                sources.skipped.append({"file": label, "reason": "not a .json file"})
                continue
            if info.file_size > MAX_FILE_BYTES:
                raise AwsInputError(
                    f"{label}: file is {info.file_size} bytes; the limit is {MAX_FILE_BYTES >> 20} MB per export"
                )
            _add(sources, label, f"{name}:{member.parent}", archive.read(info), named=False)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise AwsInputError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def read_sources(items: Sequence[Path | str | tuple[str, bytes]]) -> AwsSources:
    """Read every input and recognise each JSON file by content.

    Raises AwsInputError for a missing path, an unreadable or non-JSON file, a
    bad archive, or an unrecognised file named directly.
    """
    sources = AwsSources()
    for item in items:
        if isinstance(item, tuple):
            name, raw = item
            if name.lower().endswith(".zip"):
                _add_zip(sources, name, raw)
            else:
                _add(sources, name, "upload", raw, named=True)
            continue
        path = Path(item)
        if path.is_dir():
            for child in sorted(p for p in path.rglob("*") if p.is_file()):
                rel = child.relative_to(path)
                if any(part.startswith(".") for part in rel.parts):
                    continue
                if child.suffix.lower() == ".zip":
                    _add_zip(sources, str(child), _read(child))
                elif child.suffix.lower() == ".json":
                    _add(sources, str(child), str(child.parent), _read(child), named=False)
                else:
                    sources.skipped.append({"file": str(child), "reason": "not a .json file"})
        elif path.is_file():
            if path.suffix.lower() == ".zip":
                _add_zip(sources, str(path), _read(path))
            else:
                _add(sources, str(path), str(path.parent), _read(path), named=True)
        else:
            raise AwsInputError(f"{path}: no such file or folder")
    if not sources.of("gaad"):
        raise AwsInputError("no get-account-authorization-details export among the inputs: at least one is required")
    return sources
