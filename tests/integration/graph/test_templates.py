"""Named templates: loaded once, all present, allowlist-only substitution."""

from __future__ import annotations

import pytest

from blastshield_core.graph.model import Label, RelType
from blastshield_core.graph.templates import REQUIRED, TemplateError, load_templates, path_template, render


def test_every_required_template_is_present_and_described():
    """Each name the code uses exists and has a description."""
    templates = load_templates()
    assert REQUIRED <= templates.keys()
    assert all(t.description for t in templates.values())


@pytest.mark.parametrize("depth", range(1, 7))
def test_six_fixed_depth_templates(depth):
    """Depth picks one of six fixed templates, each bounded by its own depth."""
    assert f"*1..{depth}]" in path_template("sensitive", depth).text
    assert f"*1..{depth}]" in path_template("target", depth).text


@pytest.mark.parametrize("depth", [0, 7, "3", 2.5, True])
def test_path_template_refuses_bad_depth(depth):
    """A depth that is not an int 1..6 cannot select a template."""
    with pytest.raises(TemplateError):
        path_template("sensitive", depth)


def test_render_accepts_only_allowlisted_labels_and_types():
    """Labels and types are substituted only from the enums."""
    assert ":Entity:Identity " in render("upsert_nodes", label=Label.IDENTITY)
    assert "[r:CAN_READ]" in render("upsert_edges", rel_type=RelType.CAN_READ)
    with pytest.raises(TemplateError):
        render("upsert_nodes", label="Identity) DETACH DELETE (n")  # type: ignore[arg-type]
    with pytest.raises(TemplateError):
        render("upsert_nodes")


def test_missing_template_fails_at_load(tmp_path):
    """A template directory missing a required name fails at start-up."""
    (tmp_path / "x.cypher").write_text("// name: only_one\n// description: d\nRETURN 1\n")
    with pytest.raises(TemplateError, match="missing templates"):
        load_templates.__wrapped__(tmp_path)


def test_template_file_parsing_keeps_query_lines_and_drops_comments(tmp_path):
    """A template is the lines after its name: the first description line before any query text,
    other comment lines dropped, text before the first name ignored; no text or no description fails."""
    from blastshield_core.graph.templates import _parse

    path = tmp_path / "t.cypher"
    path.write_text(
        "RETURN 'before any name'\n// name: first\n// description:  the first \n// a comment\n"
        "MATCH (n)\n\n  // indented, kept\nRETURN n\n// description: not a description after text\n"
        "// name: second   \n// description: two\nRETURN 2\n"
    )
    first, second = _parse(path)
    assert (first.name, first.description, first.source) == ("first", "the first", "t.cypher")
    assert first.text == "MATCH (n)\n\n  // indented, kept\nRETURN n"
    assert (second.name, second.description, second.text) == ("second", "two", "RETURN 2")
    path.write_text("// name: empty\n// description: d\n// only a comment\n")
    with pytest.raises(TemplateError, match="no query text"):
        _parse(path)
    path.write_text("// name: nodesc\nRETURN 1\n")
    with pytest.raises(TemplateError, match="no description"):
        _parse(path)


PATH_PARAMS = {"include_blocked": False, "exclude_routes": [], "limit": 101}
INDEX_DRIVEN = {
    **{
        f"paths_to_sensitive_d{d}": {"source_id": "developer_07", "sensitivities": ["high", "critical"], **PATH_PARAMS}
        for d in range(1, 7)
    },
    **{
        f"paths_to_target_d{d}": {"source_id": "developer_07", "target_id": "customer-db", **PATH_PARAMS}
        for d in range(1, 7)
    },
    "alert_evidence": {"id": "BH-1042", "sensitivities": ["high", "critical"], "exclude_routes": [], "limit": 101},
    "entity_by_id": {"id": "developer_07"},
    "entities_by_ids": {"ids": ["developer_07", "customer-db"]},
    "alert_by_id": {"id": "BH-1042"},
    "expand_frontier": {"frontier": ["developer_07", "sess-dev07"], "exclude_routes": []},
    "expand_frontier_any_status": {"frontier": ["developer_07"], "limit": 10},
    "relationship_by_ends": {"source": "developer_07", "target": "sess-dev07", "type": "HAS_SESSION"},
    "identities_reaching": {"id": "deploy-role", "limit": 501},
    "blastshield_blocks": {},  # imports and the Containment page: only the blocked routes are read
    # Routes by id (no index holds every route id, see graph/routes.py): through their ends, or
    # through the blocked_by_run index for the routes BlastShield blocked.
    "routes_at_ends": {"rows": [{"source": "developer_07", "type": "HAS_SESSION", "target": "sess-dev07"}]},
    "blocked_route": {"route_id": "route-c11-primary"},
    "release_route": {"route_id": "route-c11-primary"},
    "restore_blocks": {
        "blocks": [
            {
                "route_id": "route-c11-primary",
                "source": "developer_07",
                "type": "HAS_SESSION",
                "target": "sess-dev07",
                "blocked_by_run": "run-1",
                "blocked_at": "",
                "blocked_by": "x",
            }
        ]
    },
}


@pytest.mark.parametrize("name", sorted(INDEX_DRIVEN))
def test_per_alert_templates_start_from_an_index(seeded_store, name):
    """Every query an investigation runs starts from the id index, never a label scan, so its
    cost follows what the alert touches rather than the graph's size (a plan that started from
    every DataAsset once made each investigation scan the whole graph)."""
    from blastshield_core.graph.store import _params_header
    from blastshield_core.graph.templates import template

    text = _params_header(INDEX_DRIVEN[name]) + template(name).text
    plan = seeded_store.command("GRAPH.EXPLAIN", seeded_store.settings.graph, text)
    assert any("Index Scan" in line for line in plan), plan
    assert not [line for line in plan if "Label Scan" in line or "All Node Scan" in line], plan


def test_expansion_by_node_id_seeks_each_node(seeded_store):
    """Later levels of a breadth-first expansion find each frontier node by its internal id."""
    from blastshield_core.graph.store import _params_header
    from blastshield_core.graph.templates import template

    text = _params_header({"nodes": [0, 1], "exclude_routes": []}) + template("expand_frontier_nodes").text
    plan = seeded_store.command("GRAPH.EXPLAIN", seeded_store.settings.graph, text)
    assert any("NodeByIdSeek" in line for line in plan), plan
    assert not [line for line in plan if "Scan" in line], plan


def test_routes_by_id_are_read_from_an_index_not_from_every_route(seeded_store):
    """Releasing a route, reading what can be released and putting blocks back after an import find
    their routes through an index, one Edge By Index Scan per routed type for the routes BlastShield
    blocked; only the two look-ups that must consider every route scan them."""
    from blastshield_core.graph.model import RelType
    from blastshield_core.graph.store import _params_header
    from blastshield_core.graph.templates import template

    def plan(text: str, params: dict) -> list[str]:
        return seeded_store.command("GRAPH.EXPLAIN", seeded_store.settings.graph, _params_header(params) + text)

    for name in ("release_route", "blocked_route"):
        lines = plan(template(name).text, INDEX_DRIVEN[name])
        assert [line.strip() for line in lines if "Scan" in line] == [
            "Edge By Index Scan | [r:HAS_SESSION]",
            "Edge By Index Scan | [r:CAN_ACCESS]",
        ], lines
    for text, params in (
        (template("routes_by_ids").text, {"route_ids": ["route-c11-primary"]}),
        (render("route_ids_in_range", rel_type=RelType.HAS_SESSION), {"low": "a", "high": "b"}),
    ):
        assert any("All Node Scan" in line for line in plan(text, params))
