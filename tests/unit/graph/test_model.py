"""The graph model and document validation (no database needed)."""

from __future__ import annotations

import pytest

from blastshield_core import DocumentError, parse_document
from blastshield_core.graph.ingest import parse_bytes
from blastshield_core.graph.model import ENDPOINTS, Label, RelType, is_valid_id


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


def _chain(edges: list[dict]) -> dict:
    nodes = [{"id": f"r{i}", "label": "IAMRole", "name": f"r{i}"} for i in range(6)]
    return {"format": "blastshield-graph/v1", "name": "chain", "nodes": nodes, "edges": edges}


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"source": "r4", "type": "CAN_ASSUME", "target": "r4"}, "edges[3] (r4 -CAN_ASSUME-> r4)"),
        ({"source": "r0", "type": "CAN_ASSUME", "target": "r1"}, "edges[3] (r0 -CAN_ASSUME-> r1): duplicate"),
        ({"source": "r4", "type": "CAN_ASSUME", "target": "ghost"}, "edges[3] (r4 -CAN_ASSUME-> ghost)"),
    ],
)
def test_first_offending_relationship_is_named(bad, message):
    """With several bad relationships, the error names the first of them in document order."""
    good = [{"source": f"r{i}", "type": "CAN_ASSUME", "target": f"r{i + 1}"} for i in range(3)]
    later = {"source": "r5", "type": "CAN_ASSUME", "target": "r5"}
    document = parse_document(_chain([*good, bad, later]))
    with pytest.raises(DocumentError) as err:
        document.check_internal()
    assert message in str(err.value)


class _SameHash:
    def __init__(self, value: int):
        self.value = value

    def __hash__(self) -> int:
        return 7

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _SameHash) and other.value == self.value


def test_distinct_rows_survive_a_hash_collision():
    """Rows whose hashes collide are told apart by comparing them; equal rows are not distinct."""
    from blastshield_core.graph.model import _distinct

    assert _distinct([_SameHash(1), _SameHash(2)], ["a", "a"])
    assert not _distinct([_SameHash(1), _SameHash(1)], ["a", "a"])
    assert _distinct(["x", "y"], ["a", "a"]) and not _distinct(["x", "x"], ["a", "a"])


def _built(*rows):
    """A built document (as the AWS import makes one) of a role reading an asset, with extra relationship rows."""
    from blastshield_core.graph.model import BuiltDocument, EdgeRow

    nodes = parse_document(
        {
            "format": "blastshield-graph/v1",
            "name": "built",
            "nodes": [
                {"id": "r1", "label": "IAMRole", "name": "r1"},
                {"id": "r2", "label": "IAMRole", "name": "r2"},
                {"id": "a1", "label": "DataAsset", "name": "a1", "properties": {"sensitivity": "low"}},
            ],
        }
    ).nodes
    shared = {"status": "active", "permission": "allow"}
    good = [EdgeRow("r1", RelType.CAN_READ, "a1", shared), EdgeRow("r2", RelType.CAN_READ, "a1", shared)]
    return BuiltDocument("built", nodes, good + [EdgeRow(*row) for row in rows], [])


def test_built_relationships_are_checked_by_the_model_rules():
    """A built document's plain relationship rows pass through `EdgeSpec`'s own validation: defaults are
    added as a document gets them, a type given as text becomes the type, and rows that are already
    complete keep their (shared) properties object."""
    doc = _built(("r1", "CAN_ASSUME", "r2", {}))
    checked = doc.validated()
    assert checked.edges[2].type is RelType.CAN_ASSUME
    assert checked.edges[2].properties == {"status": "active", "permission": "allow"}
    assert checked.edges[0].properties is doc.edges[0].properties is checked.edges[1].properties
    assert doc.edges[2].properties == {}  # the document given is not changed
    checked.check_internal()


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            ("r1", "CAN_ASSUME", "r2", {"status": "gone"}),
            "edges[2] (r1 -CAN_ASSUME-> r2): status must be active|blocked",
        ),
        (("r1", "OWNS", "r2", {}), "edges[2] (r1 -OWNS-> r2)"),
        (("r1", "CAN_ASSUME", "r2", {"blocked_by": "me"}), "reserved"),
        (("r1", "RUNS_AS", "r2", {"permission": "allow"}), "permission is only allowed"),
        (("r1", "CAN_ASSUME", "r2", {"route_id": "x"}), "route_id is only allowed"),
        (("r1", "CAN_ASSUME", "r2", {"note": "a\x00b"}), "control characters"),
        (("r1", "CAN_ASSUME", "r 2", {}), "edges[2] (r1 -CAN_ASSUME-> r 2)"),
    ],
)
def test_a_bad_built_relationship_is_named(row, message):
    """Each rule of a document's relationship holds for a built one, and the error names the relationship."""
    with pytest.raises(DocumentError) as err:
        _built(row).validated()
    assert message in str(err.value)


def test_a_bad_end_shared_by_good_properties_is_found():
    """An end id outside the grammar is refused even when its properties object was already checked on another row."""
    doc = _built()
    bad = doc.edges[0]._replace(source="r 1")
    doc.edges.append(bad)
    with pytest.raises(DocumentError) as err:
        doc.validated()
    assert "edges[2] (r 1 -CAN_READ-> a1)" in str(err.value) and "'r 1'" in str(err.value)
