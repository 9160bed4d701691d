"""Named templates: loaded once, all present, allowlist-only substitution."""

from __future__ import annotations

import pytest

from blastshield_core.model import Label, RelType
from blastshield_core.templates import REQUIRED, TemplateError, load_templates, path_template, render


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
