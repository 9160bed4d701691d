"""Get: read AWS CLI export files and recognise each one by its content.

No interpretation happens here: a recognised file is kept as parsed JSON with
its kind and where it came from. Inputs are files, folders (searched
recursively) and `.zip` archives, given as paths or as `(name, bytes)` pairs (an
upload). A file named explicitly that is not recognised, and any file that is
not valid JSON, is an `AwsInputError`; a JSON file inside a folder or archive
that is not recognised is listed as skipped with the reason.

Calls whose output does not name its resource (a bucket policy, a key policy, an
organisation's policy) are read in cloudmapper's per-resource layout: a folder named
after the call (`PER_RESOURCE`) holding one file per resource, named after it. Such a
file is recognised by its folder and keeps the resource's name; one that is not JSON
(a collector's error text) is skipped with the reason, not an error.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote_plus

__all__ = ["KINDS", "AwsInputError", "AwsSources", "SourceFile", "read_sources", "recognise"]

MAX_FILE_BYTES = 256 * 1024 * 1024

# kind -> what the file is, as the report names it
KINDS = {
    "gaad": "aws iam get-account-authorization-details",
    "instances": "aws ec2 describe-instances",
    "functions": "aws lambda list-functions",
    "credential_report": "aws iam get-credential-report",
    "buckets": "aws s3api list-buckets",
    "findings": "aws guardduty get-findings",
    "secrets": "aws secretsmanager list-secrets",
    "kms_keys": "aws kms list-keys",
    "organization": "aws organizations describe-organization",
    "org_roots": "aws organizations list-roots",
    "org_policies": "aws organizations list-policies",
    "bucket_policy": "aws s3api get-bucket-policy (one file per bucket)",
    "secret_policy": "aws secretsmanager get-resource-policy (one file per secret)",
    "key_policy": "aws kms get-key-policy (one file per key)",
    "org_parents": "aws organizations list-parents (one file per account or OU)",
    "org_policy": "aws organizations describe-policy (one file per policy)",
    "org_targets": "aws organizations list-targets-for-policy (one file per policy)",
}
# per-resource folders (cloudmapper's layout): the call's folder name -> kind; the file is named after its resource
PER_RESOURCE = {
    "s3-get-bucket-policy": "bucket_policy",
    "secretsmanager-get-resource-policy": "secret_policy",
    "kms-get-key-policy": "key_policy",
    "organizations-list-parents": "org_parents",
    "organizations-describe-policy": "org_policy",
    "organizations-list-targets-for-policy": "org_targets",
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
    resource: str = ""  # a per-resource file: the resource its name names


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
    if isinstance(data.get("SecretList"), list):
        return "secrets"
    if isinstance(data.get("Keys"), list):
        return "kms_keys"
    if isinstance(data.get("Organization"), dict):
        return "organization"
    if isinstance(data.get("Roots"), list):
        return "org_roots"
    policies = data.get("Policies")
    if isinstance(policies, list) and all(isinstance(p, dict) and "Type" in p and "Id" in p for p in policies):
        return "org_policies"
    return None


def _per_resource_kind(parts: Sequence[str]) -> str | None:
    """The kind of a file in a per-resource folder (by the folder's name), or None."""
    return PER_RESOURCE.get(parts[-2]) if len(parts) >= 2 else None


def _add_per_resource(sources: AwsSources, kind: str, name: str, folder: str, raw: bytes) -> None:
    """A per-resource file: its folder gives the kind, its name the resource (cloudmapper quotes names)."""
    if len(raw) > MAX_FILE_BYTES:
        raise AwsInputError(f"{name}: file is {len(raw)} bytes; the limit is {MAX_FILE_BYTES}")
    try:
        data = _decode(name, raw)
    except AwsInputError as exc:  # a collector writes its error text where the output would be
        sources.skipped.append({"file": name, "reason": str(exc).removeprefix(f"{name}: ")})
        return
    if not isinstance(data, dict):
        sources.skipped.append({"file": name, "reason": f"not an {KINDS[kind]} output (not a JSON object)"})
        return
    resource = PurePosixPath(name.replace("\\", "/")).name
    sources.files.append(SourceFile(kind, name, folder, data, unquote_plus(resource)))


def _decode(name: str, raw: bytes) -> Any:
    if len(raw) > MAX_FILE_BYTES:
        raise AwsInputError(f"{name}: file is {len(raw)} bytes; the limit is {MAX_FILE_BYTES}")
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
            kind = _per_resource_kind(member.parts)
            if kind is not None:
                if info.file_size > MAX_FILE_BYTES:
                    raise AwsInputError(f"{label}: file is {info.file_size} bytes; the limit is {MAX_FILE_BYTES}")
                _add_per_resource(sources, kind, label, f"{name}:{member.parent.parent}", archive.read(info))
                continue
            if member.suffix.lower() != ".json":
                sources.skipped.append({"file": label, "reason": "not a .json file"})
                continue
            if info.file_size > MAX_FILE_BYTES:
                raise AwsInputError(f"{label}: file is {info.file_size} bytes; the limit is {MAX_FILE_BYTES}")
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
            kind = _per_resource_kind(PurePosixPath(name.replace("\\", "/")).parts)
            if kind is not None:
                _add_per_resource(sources, kind, name, "upload", raw)
            elif name.lower().endswith(".zip"):
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
                kind = _per_resource_kind(child.parts)
                if kind is not None:
                    _add_per_resource(sources, kind, str(child), str(child.parent.parent), _read(child))
                elif child.suffix.lower() == ".zip":
                    _add_zip(sources, str(child), _read(child))
                elif child.suffix.lower() == ".json":
                    _add(sources, str(child), str(child.parent), _read(child), named=False)
                else:
                    sources.skipped.append({"file": str(child), "reason": "not a .json file"})
        elif path.is_file():
            kind = _per_resource_kind(path.parts)
            if kind is not None:
                _add_per_resource(sources, kind, str(path), str(path.parent.parent), _read(path))
            elif path.suffix.lower() == ".zip":
                _add_zip(sources, str(path), _read(path))
            else:
                _add(sources, str(path), str(path.parent), _read(path), named=True)
        else:
            raise AwsInputError(f"{path}: no such file or folder")
    if not sources.of("gaad"):
        raise AwsInputError("no get-account-authorization-details export among the inputs: at least one is required")
    return sources
