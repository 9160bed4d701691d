"""What blocking a route takes from other identities: the `collateral` tool returns these
models, and every response candidate is summarised from them. `get_response_candidates` is a
read command, so they have a module of their own: the command defines these three models and
not the rest of the analysis models.

Import them from `results`, which loads this module the first time one is used."""

from pydantic import Field

from .core import RelView, ToolResult, _Out

__all__ = ["CollateralResult", "IdentityCollateral", "LostEntity"]


class LostEntity(_Out):
    id: str
    label: str
    name: str
    sensitivity: str | None = None


class IdentityCollateral(_Out):
    identity_id: str
    name: str
    lost: list[LostEntity] = Field(default_factory=list)


class CollateralResult(ToolResult):
    route_id: str | None = None
    relationship: RelView | None = None
    route_status: str | None = None
    identities: list[IdentityCollateral] = Field(default_factory=list)
    lost_by_label: dict[str, int] = Field(default_factory=dict)
    lost_sensitive_assets: list[str] = Field(default_factory=list)
    truncated: bool = False
    truncated_reason: str | None = None  # which budget (time, search nodes) cut the answer short
