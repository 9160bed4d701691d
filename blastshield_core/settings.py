"""Settings read from the environment, validated once."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = ["Settings", "SettingsError", "load_settings"]

GRAPH_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_-]{0,63}$"


class SettingsError(ValueError):
    """A setting from the environment is invalid."""


class Settings(BaseModel):
    """Where the graph lives and how long a query may take."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    data_dir: Path = Path(".blastshield")
    falkordb_url: str | None = None
    graph: Annotated[str, Field(pattern=GRAPH_NAME_PATTERN)] = "blastshield"
    audit_graph: Annotated[str, Field(pattern=GRAPH_NAME_PATTERN)] = "blastshield_audit"
    # Server-side query timeout. The client socket timeout is set above it, so a
    # slow query is ended by the server and reported, never silently re-sent.
    query_timeout_ms: Annotated[int, Field(ge=100, le=600_000)] = 10_000

    @field_validator("falkordb_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value in (None, ""):
            return None
        if not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("FALKORDB_URL must start with redis://, rediss:// or unix://")
        return value

    @property
    def socket_timeout_s(self) -> float:
        return self.query_timeout_ms / 1000 + 5.0

    @property
    def database_file(self) -> Path:
        return self.data_dir / "falkordb.rdb"

    @property
    def mode(self) -> str:
        return "remote" if self.falkordb_url else "embedded"


_ENV = {
    "data_dir": "BLASTSHIELD_DATA_DIR",
    "falkordb_url": "FALKORDB_URL",
    "graph": "BLASTSHIELD_GRAPH",
    "audit_graph": "BLASTSHIELD_AUDIT_GRAPH",
    "query_timeout_ms": "BLASTSHIELD_QUERY_TIMEOUT_MS",
}


def load_settings(environ: dict[str, str] | None = None, **overrides: object) -> Settings:
    """Settings from environment variables, then explicit overrides."""
    env = os.environ if environ is None else environ
    values: dict[str, object] = {field: env[var] for field, var in _ENV.items() if env.get(var)}
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return Settings(**values)
    except ValidationError as exc:
        problems = "; ".join(f"{_ENV.get(str(err['loc'][0]), err['loc'][0])}: {err['msg']}" for err in exc.errors())
        raise SettingsError(f"invalid settings: {problems}") from None
