"""What one account's collection holds, and why a collection could not be made.

Every account folder gets `collection-manifest.json`: each call made, as `complete`, `partial`
(cut off by a bound, or failed) or `denied`, with the reason, and the files written. A call that
is not complete writes no file that looks complete; `import-aws` reads the manifest and warns per
missing part. A collection that cannot be made at all raises `CollectError`, whose one line names
the profile, the endpoint and the fix (`failure_line`).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "ACCOUNT_RE",
    "MANIFEST_FILE",
    "MANIFEST_KEY",
    "CollectError",
    "Manifest",
    "error_summary",
    "failure_line",
    "missing_parts",
]

MANIFEST_FILE = "collection-manifest.json"  # exports.py: EXPORT["collection_manifest"]
MANIFEST_KEY = "blastshield_collection"  # the manifest's format version, and how the importer knows it
ACCOUNT_RE = re.compile(r"\d{12}")
MAX_PARTS = 1000  # missing parts listed one by one; the rest counted
_TAG_RE = re.compile(r"<[^>]{0,200}>")


class CollectError(RuntimeError):
    """A collection that cannot be made. `kind` is one of `FIXES`; `endpoint` what was called."""

    def __init__(self, kind: str, detail: str, endpoint: str = ""):
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.endpoint = endpoint


# kind -> (what happened, the fix); {profile} and {endpoint} are filled in
FIXES = {
    "no_credentials": (
        "profile {profile} has no credentials",
        "add keys or an SSO session to the profile (aws configure / aws sso login --profile {profile})",
    ),
    "expired": (
        "the credentials of profile {profile} have expired",
        "renew them (aws sso login --profile {profile}, or a new session token) and collect again",
    ),
    "refused": (
        "the credentials of profile {profile} were refused",
        "check the profile's access key and secret",
    ),
    "unreachable": (
        "cannot reach {endpoint}",
        "check the network and DNS, and endpoint_url in profile {profile}",
    ),
    "timeout": (
        "{endpoint} did not answer in time",
        "check the endpoint (endpoint_url in profile {profile}), or raise --call-timeout",
    ),
    "not_aws": (
        "{endpoint} did not answer as AWS does",
        "check endpoint_url in profile {profile}: it must name an AWS endpoint or a faithful mirror",
    ),
    "bad_account": (
        "{endpoint} named an account id that is not 12 digits",
        "check endpoint_url in profile {profile}: it must name an AWS endpoint or a faithful mirror",
    ),
    "no_identity": (
        "sts:GetCallerIdentity gave no account at {endpoint}",
        "allow sts:GetCallerIdentity for profile {profile}",
    ),
    "unwritable": ("the output folder cannot be written", "choose a folder you can write with --out"),
}


def failure_line(exc: CollectError, profile: str) -> str:
    """One line: what happened (with the detail), and the fix."""
    what, fix = FIXES.get(exc.kind, ("the collection failed", "see the detail"))
    names = {"profile": repr(profile or "default"), "endpoint": exc.endpoint or "the AWS endpoint"}
    return f"{what.format(**names)} ({exc.detail}); {fix.format(**names)}; nothing collected"


def error_summary(code: str, message: str) -> str:
    """A service error as `Code: message`, markup stripped and cut short (never a raw body)."""
    text = _TAG_RE.sub(" ", str(message or ""))
    text = " ".join(text.split())[:240]
    code = _TAG_RE.sub("", str(code or ""))[:80] or "error"
    return f"{code}: {text}" if text else code


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class Manifest:
    """One account's record of its calls: counted per call, every part that is not complete listed."""

    account: str = ""
    started_at: str = field(default_factory=_now)
    calls: dict[str, dict[str, int]] = field(default_factory=dict)
    parts: list[dict[str, str]] = field(default_factory=list)
    parts_beyond: int = 0
    files: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, call: str, state: str, *, item: str = "", reason: str = "", file: str = "", pages: int = 0):
        with self._lock:
            counts = self.calls.setdefault(call, {"complete": 0, "partial": 0, "denied": 0, "pages": 0})
            counts[state] += 1
            counts["pages"] += pages
            if state == "complete":
                return
            if len(self.parts) < MAX_PARTS:
                self.parts.append({"call": call, "item": item, "state": state, "reason": reason, "file": file})
            else:
                self.parts_beyond += 1

    def wrote(self, name: str) -> None:
        with self._lock:
            self.files.append(name)

    @property
    def complete(self) -> bool:
        return not self.parts and not self.parts_beyond

    def to_dict(self, bounds: dict[str, Any]) -> dict[str, Any]:
        return {
            MANIFEST_KEY: 1,
            "account": self.account,
            "started_at": self.started_at,
            "finished_at": _now(),
            "state": "complete" if self.complete else "partial",
            "bounds": bounds,
            "calls": self.calls,
            "missing": self.parts,
            "missing_beyond": self.parts_beyond,
            "files": sorted(self.files),
        }


def missing_parts(manifest: Any) -> list[dict[str, str]]:
    """The parts a manifest says are missing (for the importer's warnings); [] for anything else."""
    if not isinstance(manifest, dict) or manifest.get(MANIFEST_KEY) is None:
        return []
    parts = manifest.get("missing")
    out = [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []
    beyond = manifest.get("missing_beyond")
    if isinstance(beyond, int) and beyond > 0:
        out.append({"call": "", "item": "", "state": "partial", "reason": f"{beyond} more part(s) missing"})
    return out
