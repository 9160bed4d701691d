"""Settings read from the environment, validated once."""

import os
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

__all__ = ["ENVIRONMENT_VARIABLES", "Settings", "SettingsError", "load_settings"]

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
    # The Gemini decider. Without a key it is reported as unavailable, never faked.
    gemini_api_key: SecretStr | None = None
    gemini_model: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")] = "gemini-2.5-flash"
    gemini_base_url: str | None = None
    gemini_timeout_s: Annotated[float, Field(gt=0, le=600)] = 60.0
    gemini_max_turns: Annotated[int, Field(ge=1, le=20)] = 8
    # Dashboard sign-in: who has which role (see access.py). Only read when sign-in is configured.
    roles_file: Path = Path(".streamlit/roles.toml")
    # The audit anchor log's directory (graph/anchor.py): None is beside the data directory.
    anchor_dir: Path | None = None
    anchor_syslog: bool = False
    # The dashboard's token file on loopback without sign-in (base/dashboard_token.py): None is in the data directory.
    token_file: Path | None = None

    @field_validator("gemini_base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        if value in (None, ""):
            return None
        if not value.startswith(("http://", "https://")):
            raise ValueError("GEMINI_BASE_URL must start with http:// or https://")
        from .access import is_loopback  # the sign-in module; settings without a base URL never load it

        if value.startswith("http://") and not is_loopback(urlsplit(value).hostname):
            # the API key travels in a header: over plain http only to this machine
            raise ValueError("GEMINI_BASE_URL over plain http:// is only allowed to a loopback host; use https://")
        return value.rstrip("/")

    @field_validator("gemini_api_key", mode="before")
    @classmethod
    def _key(cls, value: object) -> object:
        return None if value in (None, "") else value

    @field_validator("falkordb_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value in (None, ""):
            return None
        if not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("FALKORDB_URL must start with redis://, rediss:// or unix://")
        return value

    @model_validator(mode="after")
    def _separate_audit(self) -> "Settings":
        if self.audit_graph == self.graph:
            raise ValueError("the audit graph must differ from the scenario graph")
        return self

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
    "gemini_api_key": "GEMINI_API_KEY",
    "gemini_model": "GEMINI_MODEL",
    "gemini_base_url": "GEMINI_BASE_URL",
    "gemini_timeout_s": "GEMINI_TIMEOUT_S",
    "gemini_max_turns": "GEMINI_MAX_TURNS",
    "roles_file": "BLASTSHIELD_ROLES_FILE",
    "anchor_dir": "BLASTSHIELD_ANCHOR_DIR",
    "anchor_syslog": "BLASTSHIELD_ANCHOR_SYSLOG",
    "token_file": "BLASTSHIELD_TOKEN_FILE",
}

ENVIRONMENT_VARIABLES = tuple(_ENV.values())


def load_settings(environ: dict[str, str] | None = None, **overrides: object) -> Settings:
    """Settings from environment variables, then explicit overrides."""
    env = os.environ if environ is None else environ
    values: dict[str, object] = {field: env[var] for field, var in _ENV.items() if env.get(var)}
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return Settings(**values)
    except ValidationError as exc:
        problems = "; ".join(
            (f"{_ENV.get(str(err['loc'][0]), err['loc'][0])}: " if err["loc"] else "") + str(err["msg"])
            for err in exc.errors()
        )
        raise SettingsError(f"invalid settings: {problems}") from None
