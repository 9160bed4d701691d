"""The graph model and document validation (no database needed)."""

from __future__ import annotations

import pytest

from blastshield_core import DocumentError, parse_document
from blastshield_core.ingest import parse_bytes
from blastshield_core.model import ENDPOINTS, Label, RelType, is_valid_id


def test_endpoints_cover_every_relationship_type():
    """Every allowlisted type has its start and end labels."""
    assert set(ENDPOINTS) == set(RelType)
    assert ENDPOINTS[RelType.CAN_ASSUME] == (Label.IAM_ROLE, Label.IAM_ROLE)


@pytest.mark.parametrize("value", ["developer_07", "BH-1042", "a", "x.y:z@w-1"])
def test_valid_ids(value):
    """Ids in the grammar are accepted."""
    assert is_valid_id(value)


@pytest.mark.parametrize("value", ["", " a", "a b", "a'b", "`a`", "$a", "-a", "a" * 129, "é", 7, None])
def test_invalid_ids(value):
    """Ids outside the grammar are refused."""
    assert not is_valid_id(value)


def test_defaults_are_filled_on_edges():
    """Edges get status active, and permission allow where the type carries one."""
    doc = parse_document(
        {
            "format": "blastshield-graph/v1",
            "name": "d",
            "nodes": [
                {"id": "r1", "label": "IAMRole", "name": "r1"},
                {"id": "a1", "label": "DataAsset", "name": "a1", "properties": {"sensitivity": "low"}},
            ],
            "edges": [{"source": "r1", "type": "CAN_READ", "target": "a1"}],
        }
    )
    assert doc.edges[0].properties == {"status": "active", "permission": "allow"}


@pytest.mark.parametrize(
    ("raw", "pointer"),
    [
        (b"not json", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b"\xff\xfe", "UTF-8"),
        (b'{"format": "blastshield-graph/v1", "name": "x", "extra": 1}', "extra"),
        (b'{"format": "blastshield-graph/v1", "name": "x", "nodes": {}}', "nodes"),
        (b"[" * 100_000 + b"]" * 100_000, "document"),
    ],
)
def test_unreadable_documents(raw, pointer):
    """Bytes that are not a document are refused with a reason."""
    with pytest.raises(DocumentError) as err:
        parse_bytes(raw)
    assert pointer in str(err.value)


def test_permission_only_on_grants():
    """permission is refused on relationship types that do not carry it."""
    with pytest.raises(DocumentError, match="permission is only allowed"):
        parse_document(
            {
                "format": "blastshield-graph/v1",
                "name": "d",
                "edges": [{"source": "a", "type": "RUNS_AS", "target": "b", "properties": {"permission": "deny"}}],
            }
        )


def test_error_names_the_item_by_id():
    """A pydantic error points at the item index and its id."""
    with pytest.raises(DocumentError) as err:
        parse_document(
            {"format": "blastshield-graph/v1", "name": "d", "nodes": [{"id": "n-7", "label": "Robot", "name": "x"}]}
        )
    assert err.value.item.startswith("nodes[0].label (n-7)")
