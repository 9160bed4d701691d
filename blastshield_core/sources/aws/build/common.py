"""What the parts of the AWS transform share: ids, the modelled actions, sensitivity levels,
property and date cleaning, and the principal and role records the builder keeps.
Pure: no I/O, no store, and no import of the other parts."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ....graph.model import ENTITY_ID_PATTERN, MAX_LIST, MAX_STRING
from ..iam.policy import ASSUME_ACTION, Principal, Statement, as_list

_ID_RE = re.compile(ENTITY_ID_PATTERN)
_BAD_ID_CHARS = re.compile(r"[^A-Za-z0-9_.:@-]")
_ARN_RE = re.compile(r"^arn:(aws[\w-]*):([\w-]+):([\w-]*):(\d{12}|aws)?:(.+)$")
_ACCOUNT_RE = re.compile(r"^\d{12}$")

# The data-read actions, by service: the asset kind they read and the actions.
DATA_ACTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "s3": ("bucket", ("s3:GetObject", "s3:GetObjectVersion")),
    "dynamodb": ("table", ("dynamodb:GetItem", "dynamodb:Query", "dynamodb:Scan", "dynamodb:BatchGetItem")),
    "secretsmanager": ("secret", ("secretsmanager:GetSecretValue",)),
    "ssm": ("parameter", ("ssm:GetParameter", "ssm:GetParameters", "ssm:GetParametersByPath")),
    "kms": ("kms_key", ("kms:Decrypt",)),
}
# What lets a credential reach a workload.
ACCESS_ACTIONS: dict[str, tuple[str, ...]] = {
    "instance": ("ssm:StartSession", "ssm:SendCommand", "ec2-instance-connect:SendSSHPublicKey"),
    "function": ("lambda:UpdateFunctionCode",),
}
# Every action the evaluation asks about (statements are classified against these once).
_MODELLED_ACTIONS = frozenset(
    [ASSUME_ACTION]
    + [a for _, actions in DATA_ACTIONS.values() for a in actions]
    + [a for actions in ACCESS_ACTIONS.values() for a in actions]
)
# Without a tag or a --sensitivity rule.
DEFAULT_SENSITIVITY: dict[str, str] = {
    "wildcard": "critical",
    "secret": "high",
    "kms_key": "high",
    "bucket": "medium",
    "table": "medium",
    "parameter": "medium",
}
SENSITIVITY_TAGS = ("sensitivity", "data-classification", "classification")
LEVELS = ("low", "medium", "high", "critical")
_EMPTY_DATES = {"", "N/A", "no_information", "not_supported"}


def entity_id(*parts: str) -> str:
    """A valid entity id from parts joined with `:`.

    Characters outside `[A-Za-z0-9_.:@-]` become `_`; when anything was replaced,
    or the id would exceed 128 characters, it is cut to 119 and a `.` and the first
    8 hex digits of the SHA-1 of the original text are appended, so distinct
    inputs keep distinct ids.
    """
    raw = ":".join(parts)
    clean = _BAD_ID_CHARS.sub("_", raw)
    if clean != raw or len(clean) > 128 or not clean[:1].isalnum():
        digest = hashlib.sha1(raw.encode(), usedforsecurity=False).hexdigest()[:8]
        clean = ("x" if not clean[:1].isalnum() else "") + clean[:119] + "." + digest
    assert _ID_RE.fullmatch(clean), clean
    return clean


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _text(value: str, limit: int = MAX_STRING) -> str:
    """Text as the model accepts it: no control characters, at most `limit` characters."""
    if _CONTROL.search(value):
        value = _CONTROL.sub(" ", value)
    return value[:limit]


def _clean_props(props: Mapping[str, Any]) -> dict[str, Any]:
    """Properties as the model accepts them: scalars or lists of strings, text cleaned, empty ones dropped."""
    out: dict[str, Any] = {}
    for key, value in props.items():
        if value is None or value == []:
            continue
        if isinstance(value, str):
            out[key] = _text(value)
        elif isinstance(value, list):
            out[key] = [_text(str(v)) for v in value[:MAX_LIST]]
        elif isinstance(value, bool | int):
            out[key] = value
        else:
            out[key] = _text(str(value))
    return out


def _obj(value: Any) -> dict[str, Any]:
    """A value that should be an object, or an empty one."""
    return value if isinstance(value, dict) else {}


def _arn_account(arn: str) -> str | None:
    found = _ARN_RE.match(arn) if isinstance(arn, str) else None
    if found and found[4] and found[4] != "aws":
        return found[4]
    return None


def _tags(value: Any) -> dict[str, str]:
    """Tags (keys in lower case) in AWS's shapes: `[{"Key", "Value"}]`, KMS's `[{"TagKey", "TagValue"}]`,
    or Lambda's `{"key": "value"}`."""
    tags: dict[str, str] = {}
    for tag in as_list(value):
        if isinstance(tag, dict) and "Key" in tag:
            tags[str(tag["Key"]).lower()] = str(tag.get("Value", ""))
        elif isinstance(tag, dict) and "TagKey" in tag:
            tags[str(tag["TagKey"]).lower()] = str(tag.get("TagValue", ""))
    if isinstance(value, dict) and not tags:  # Lambda's {"key": "value"} shape
        tags = {str(k).lower(): str(v) for k, v in value.items()}
    return tags


def _date(value: Any) -> str | None:
    """A date in any of the formats AWS exports use, as ISO text; None when empty; ValueError if unreadable."""
    if value is None or (isinstance(value, str) and value.strip() in _EMPTY_DATES):
        return None
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value / (1000 if value > 1e11 else 1)).isoformat()
    text = str(value).strip()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).isoformat()
    except ValueError:
        pass
    for fmt in ("%Y-%m-%dT%H:%M:%S.%f%z", "%a, %d %b %Y %H:%M:%S %Z", "%d/%m/%Y %H:%M:%S", "%Y-%m-%d %H:%M:%S.%f"):
        try:
            return datetime.strptime(text, fmt).isoformat()
        except ValueError:
            continue
    raise ValueError(f"unreadable date {text[:40]!r}")


@dataclass
class _Principal:
    """A role, or the role-like node of a user: what it may do."""

    node: str
    arn: str
    account: str
    kind: str  # role | user
    name: str
    statements: list[Statement] = field(default_factory=list)
    boundary: list[Statement] | None = None
    ids: tuple[Any, ...] | None = None  # (ids of statements, id of boundary): principals alike share work

    @property
    def who(self) -> Principal:
        return Principal(self.arn, self.account, self.kind)


@dataclass
class _Role:
    principal: _Principal
    trust: list[Statement]
    services: list[str]
    file: str
    named: tuple[frozenset[str], bool] | None = None  # policy.arns_named(trust), once
