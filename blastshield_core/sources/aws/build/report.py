"""The AWS import report: what was read, what the graph got, what was odd."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["MAX_WARNINGS", "AwsImportReport"]

MAX_WARNINGS = 1000  # listed one by one; past them a count (a forged export can hold millions)


def _policy_counts() -> dict[str, Any]:
    """What resource policies and organisation guardrails read and changed (docs/aws-import.md)."""
    return dict(
        resource_policies_read={"bucket": 0, "secret": 0, "kms_key": 0},
        scps_read=0,
        rcps_read=0,
        edges_added_by_resource_policies=0,
        edges_removed_by_resource_policies=0,
        edges_denied_by_resource_policies=0,
        edges_removed_by_guardrails=0,
        edges_denied_by_guardrails=0,
        edges_identity_policy_only=0,
        public_assets=0,
        edges_unconditional_by_conditions=0,
        edges_removed_by_conditions=0,
        edges_denied_by_conditions=0,
    )


@dataclass
class AwsImportReport:
    """What an AWS import read and wrote.

    `status` is `built` for a document not yet written, `imported` once loaded.
    `counts` holds `nodes` (by label), `relationships` (by type) and `alerts`;
    `warnings` are `{file, item, message}`, `skipped` are `{file, reason}`, each listed up to
    a thousand and then counted (`warnings_beyond`, `skipped_beyond`);
    `preserved_blocks` are the routes BlastShield blocked that stayed blocked although the
    snapshot names them, `blocks_gone` those whose routes the snapshot no longer has;
    `policy_counts` say how many resource policies (by kind), SCPs and RCPs were read and how many
    relationships they added, removed or turned into denies; `actor` is who imported.
    `timings` hold `parse_s`, `evaluate_s`, `load_s` in seconds.
    """

    status: str = "built"
    accounts: list[str] = field(default_factory=list)
    counts: dict[str, Any] = field(default_factory=lambda: {"nodes": {}, "relationships": {}, "alerts": 0})
    warnings: list[dict[str, str]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    preserved_blocks: list[Any] = field(default_factory=list)
    blocks_gone: list[Any] = field(default_factory=list)
    actor: str | None = None
    removed: dict[str, int] = field(default_factory=lambda: {"nodes": 0, "relationships": 0, "alerts": 0})
    files: list[dict[str, str]] = field(default_factory=list)
    replaced: bool = False
    policy_counts: dict[str, Any] = field(default_factory=_policy_counts)
    timings: dict[str, float] = field(default_factory=lambda: {"parse_s": 0.0, "evaluate_s": 0.0, "load_s": 0.0})

    warnings_beyond: int = 0  # warnings past the MAX_WARNINGS listed, only counted
    skipped_beyond: int = 0  # skipped files past those listed, only counted

    def warn(self, file: str, item: str, message: str) -> None:
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append({"file": file, "item": item, "message": message})
        else:
            self.warnings_beyond += 1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
