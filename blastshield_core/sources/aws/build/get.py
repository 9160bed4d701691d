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
import os
import stat
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any
from urllib.parse import unquote_plus

from ..exports import EXPORTS

__all__ = ["KINDS", "MAX_FILE_BYTES", "AwsInputError", "AwsSources", "SourceFile", "read_sources", "recognise"]

MAX_FILE_BYTES = 256 * 1024 * 1024
# Every input of one import together, as inflated from archives: the graph document's limit.
MAX_TOTAL_BYTES = 512 * 1024 * 1024
MAX_LISTED = 1000  # skipped files (and the report's warnings) listed one by one; the rest counted
_CHUNK = 1024 * 1024

# kind -> what the file is, as the report names it (the exports the importer reads: exports.py)
KINDS = {e.kind: e.what for e in EXPORTS if e.imported}
# the collector's own files (its caller identity, its manifest): recognised by name, not mapped
OWN_FILES = {e.file: e.kind for e in EXPORTS if not e.imported}
# per-resource folders (cloudmapper's layout): the call's folder name -> kind; the file is named after its resource
PER_RESOURCE = {e.file: e.kind for e in EXPORTS if e.per_resource}


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
    skipped_beyond: int = 0  # skipped files past the MAX_LISTED listed

    def of(self, kind: str) -> list[SourceFile]:
        return [f for f in self.files if f.kind == kind]


def recognise(data: Any) -> str | None:
    """The kind of an export from its content (the first recogniser of exports.py that accepts it), or None."""
    if not isinstance(data, dict):
        return None
    return next((e.kind for e in EXPORTS if e.recognise is not None and e.recognise(data)), None)


def _per_resource_kind(parts: Sequence[str]) -> str | None:
    """The kind of a file in a per-resource folder (by the folder's name), or None."""
    return PER_RESOURCE.get(parts[-2]) if len(parts) >= 2 else None


def _add_per_resource(sources: AwsSources, kind: str, name: str, folder: str, raw: bytes) -> None:
    """A per-resource file: its folder gives the kind, its name the resource (cloudmapper quotes names)."""
    if len(raw) > MAX_FILE_BYTES:
        raise AwsInputError(f"{name}: file is {len(raw)} bytes; the limit is {_mb(MAX_FILE_BYTES)} per export")
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
        raise AwsInputError(f"{name}: file is {len(raw)} bytes; the limit is {_mb(MAX_FILE_BYTES)} per export")
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise AwsInputError(f"{name}: is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise AwsInputError(f"{name}: is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise AwsInputError(f"{name}: is nested too deeply") from None


def _skip(sources: AwsSources, file: str, reason: str) -> None:
    """List a skipped file, up to MAX_LISTED; past that only count it."""
    if len(sources.skipped) < MAX_LISTED:
        sources.skipped.append({"file": file, "reason": reason})
    else:
        sources.skipped_beyond += 1


def _add(sources: AwsSources, name: str, folder: str, raw: bytes, *, named: bool) -> None:
    data = _decode(name, raw)
    kind = recognise(data) or (
        OWN_FILES.get(PurePosixPath(name.replace("\\", "/")).name) if isinstance(data, dict) else None
    )
    if kind is None:
        reason = "not a recognised AWS CLI export (" + ", ".join(KINDS.values()) + ")"
        if named:
            raise AwsInputError(f"{name}: {reason}")
        _skip(sources, name, reason)
        return
    sources.files.append(SourceFile(kind, name, folder, data))


class _Budget:
    """The bytes one import may read in all (the graph document's limit), counted as they are read."""

    def __init__(self) -> None:
        self.left = MAX_TOTAL_BYTES

    def take(self, name: str, size: int) -> None:
        self.left -= size
        if self.left < 0:
            raise AwsInputError(f"{name}: the inputs hold more than {MAX_TOTAL_BYTES} bytes in all (the limit)")


def _mb(limit: int) -> str:
    """A byte limit as people read it: the same figure everywhere (the upload boxes say MB too)."""
    return f"{limit >> 20} MB" if limit >= 1 << 20 and not limit % (1 << 20) else f"{limit} bytes"


def _read_stream(name: str, stream: IO[bytes], budget: _Budget, limit: int | None = None) -> bytes:
    """At most `limit` bytes (a file's limit by default) from `stream`, counted as they are read
    (inflated), never trusting a declared size."""
    limit = MAX_FILE_BYTES if limit is None else limit
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limit:
            raise AwsInputError(f"{name}: file is more than {limit} bytes; the limit is {_mb(limit)}")
        budget.take(name, len(chunk))
        chunks.append(chunk)


def _is_link(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def _add_zip(sources: AwsSources, name: str, raw: bytes, budget: _Budget | None = None) -> None:
    budget = budget or _Budget()
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        raise AwsInputError(f"{name}: is not a valid zip archive") from None
    with archive:
        for info in sorted(archive.infolist(), key=lambda i: i.filename):
            member = PurePosixPath(info.filename)
            if info.is_dir() or any(part.startswith(".") or part == "__MACOSX" for part in member.parts):
                continue
            label = f"{name}:{info.filename}"
            if _is_link(info):
                _skip(sources, label, "a symbolic link (links are not followed)")
                continue
            kind = _per_resource_kind(member.parts)
            if kind is not None:
                if info.file_size > MAX_FILE_BYTES:
                    raise AwsInputError(
                        f"{label}: file is {info.file_size} bytes; the limit is {_mb(MAX_FILE_BYTES)} per export"
                    )
                _add_per_resource(
                    sources, kind, label, f"{name}:{member.parent.parent}", _member(archive, info, label, budget)
                )
                continue
            if member.suffix.lower() != ".json":
                _skip(sources, label, "not a .json file")
                continue
            if info.file_size > MAX_FILE_BYTES:
                raise AwsInputError(
                    f"{label}: file is {info.file_size} bytes; the limit is {_mb(MAX_FILE_BYTES)} per export"
                )
            _add(sources, label, f"{name}:{member.parent}", _member(archive, info, label, budget), named=False)


def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, label: str, budget: _Budget) -> bytes:
    """A member's bytes, counted against the import's budget as they are inflated."""
    try:
        with archive.open(info) as stream:
            return _read_stream(label, stream, budget)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError, NotImplementedError) as exc:
        raise AwsInputError(f"{label}: cannot be read from the archive ({exc})") from None


def _read(path: Path, budget: _Budget | None) -> bytes:
    """The file's bytes, its size checked before anything is read (and the read bounded all the same).

    A JSON file counts against the import's `budget`; an archive (budget None) is bounded by the
    whole import's limit, and its members count as they are inflated.
    """
    limit = MAX_FILE_BYTES if budget is not None else MAX_TOTAL_BYTES
    try:
        with path.open("rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            if size > limit:
                raise AwsInputError(f"{path}: file is {size} bytes; the limit is {_mb(limit)}")
            return _read_stream(str(path), stream, budget or _Budget(), limit)
    except OSError as exc:
        raise AwsInputError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def _folder_files(sources: AwsSources, root: Path) -> list[Path]:
    """The files under `root`, in order, without following a link that leaves it (skipped with the reason)."""
    inside = root.resolve()
    found: list[Path] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for entry in list(dirs):
            if (here / entry).is_symlink():  # os.walk lists a link to a folder among dirs but never enters it
                _skip(sources, str(here / entry), "a symbolic link to a folder (not followed)")
        for entry in files:
            child = here / entry
            if any(part.startswith(".") for part in child.relative_to(root).parts):
                continue
            if child.is_symlink():
                target = child.resolve()
                if not target.is_relative_to(inside):
                    _skip(sources, str(child), "a symbolic link leaving the folder (not followed)")
                    continue
            if child.is_file():
                found.append(child)
    return sorted(found)


def read_sources(items: Sequence[Path | str | tuple[str, bytes]]) -> AwsSources:
    """Read every input and recognise each JSON file by content.

    Raises AwsInputError for a missing path, an unreadable or non-JSON file, a
    bad archive, or an unrecognised file named directly.
    """
    sources = AwsSources()
    budget = _Budget()
    for item in items:
        if isinstance(item, tuple):
            name, raw = item
            kind = _per_resource_kind(PurePosixPath(name.replace("\\", "/")).parts)
            if kind is not None:
                budget.take(name, len(raw))
                _add_per_resource(sources, kind, name, "upload", raw)
            elif name.lower().endswith(".zip"):
                _add_zip(sources, name, raw, budget)
            else:
                budget.take(name, len(raw))
                _add(sources, name, "upload", raw, named=True)
            continue
        path = Path(item)
        if path.is_dir():
            for child in _folder_files(sources, path):
                kind = _per_resource_kind(child.parts)
                if kind is not None:
                    _add_per_resource(sources, kind, str(child), str(child.parent.parent), _read(child, budget))
                elif child.suffix.lower() == ".zip":
                    _add_zip(sources, str(child), _read(child, None), budget)
                elif child.suffix.lower() == ".json":
                    _add(sources, str(child), str(child.parent), _read(child, budget), named=False)
                else:
                    _skip(sources, str(child), "not a .json file")
        elif path.is_file():
            kind = _per_resource_kind(path.parts)
            if kind is not None:
                _add_per_resource(sources, kind, str(path), str(path.parent.parent), _read(path, budget))
            elif path.suffix.lower() == ".zip":
                _add_zip(sources, str(path), _read(path, None), budget)
            else:
                _add(sources, str(path), str(path.parent), _read(path, budget), named=True)
        else:
            raise AwsInputError(f"{path}: no such file or folder")
    if not sources.of("gaad"):
        raise AwsInputError("no get-account-authorization-details export among the inputs: at least one is required")
    return sources
