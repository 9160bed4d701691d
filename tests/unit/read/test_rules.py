"""The rule set demo-rules-v1: scores from signals and evidence, never from alert ids."""

from __future__ import annotations

import pytest

from blastshield_core.read.rules import assess, severity_for
from blastshield_core.results import AccessPath, NodeView, RelView


def path(hops: int, sensitivity: str, asset: str = "a") -> AccessPath:
    nodes = [NodeView(id=f"n{i}", label="X", name=f"n{i}") for i in range(hops)]
    nodes.append(NodeView(id=asset, label="DataAsset", name=asset, properties={"sensitivity": sensitivity}))
    rels = [RelView(type="T", source=nodes[i].id, target=nodes[i + 1].id) for i in range(hops)]
    return AccessPath(nodes=nodes, relationships=rels)


@pytest.mark.parametrize(
    ("score", "band"), [(0, "low"), (29, "low"), (30, "medium"), (59, "medium"), (60, "high"), (80, "critical")]
)
def test_severity_bands(score, band):
    """Scores map to the documented bands."""
    assert severity_for(score) == band


def test_no_paths_scores_signals_only():
    """Without qualifying paths only signal rules fire."""
    result = assess({"impossible_travel": True}, [])
    assert (result.score, result.severity) == (20, "low")
    assert [f.rule for f in result.factors] == ["S-impossible_travel"]


def test_evidence_rules():
    """Reach, path length, path count and breadth each add their points."""
    result = assess({}, [path(2, "high", "a1"), path(3, "critical", "a2"), path(5, "high", "a3")])
    assert {f.rule: f.points for f in result.factors} == {
        "E1-critical-reach": 20,
        "E2-short-path": 15,
        "E3-multiple-paths": 10,
        "E4-breadth": 5,
    }
    assert result.score == 50


def test_signals_must_be_true_to_count():
    """A signal counts only when it is literally true; unknown signals add nothing."""
    assert assess({"internet_exposed": "yes", "made_up": True}, []).score == 0


def test_score_is_capped_at_100():
    """Many rules firing never exceed 100."""
    signals = dict.fromkeys(("internet_exposed", "wildcard_policy", "impossible_travel", "off_hours_login"), True)
    paths = [path(1, "critical", f"a{i}") for i in range(3)]
    assert assess(signals, paths).score == 100
