"""Choke points: the exact minimum hitting set, checked against brute force and the seed scenarios."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from blastshield_core import Status
from blastshield_core.graph.ingest import import_document, parse_document
from blastshield_core.read.analysis import AnalysisTools
from blastshield_core.read.chokepoints import _greedy, minimum_hitting_set
from blastshield_core.read.tools import ReadTools
from tests.helpers.small_graphs import brute_force_minimum, qualifying_paths, route_of, small_graph_document

SEEDS = range(48)

# The trap from the issue: `m` is on four paths, but the two session edges p and q cut all six.
GREEDY_TRAP = [
    frozenset({"p", "m", "a"}),
    frozenset({"p", "m", "b"}),
    frozenset({"p", "c"}),
    frozenset({"q", "m", "d"}),
    frozenset({"q", "m", "e"}),
    frozenset({"q", "f"}),
]


def _brute_sets(sets: list[frozenset]) -> int:
    universe = sorted(set().union(*sets))
    for size in range(len(universe) + 1):
        if any(all(s & set(c) for s in sets) for c in combinations(universe, size)):
            return size
    raise AssertionError("unreachable")


def _analysis_on(store, doc: dict) -> AnalysisTools:
    import_document(store, parse_document(doc), replace=True)
    return AnalysisTools(ReadTools(store))


def _keys(result) -> set[tuple[str, str, str]]:
    return {(r.source, r.type, r.target) for r in result.relationships}


# -- the search, without a database ---------------------------------------------


def test_greedy_is_not_minimal_on_the_trap():
    """Busiest-first needs three elements on the trap (the reason for an exact search)."""
    assert len(_greedy(GREEDY_TRAP, lambda e: (e,))) == 3


def test_exact_search_finds_the_two_session_edges_on_the_trap():
    """The exact search returns {p, q} and proves it minimum."""
    found = minimum_hitting_set(GREEDY_TRAP)
    assert (set(found.chosen), found.exact) == ({"p", "q"}, True)


@pytest.mark.parametrize("seed", range(200))
def test_minimum_hitting_set_equals_brute_force_on_random_set_systems(seed):
    """On random systems of 1..12 sets over 10 elements the size equals brute force and every set is hit."""
    rng = random.Random(seed)
    elements = list("abcdefghij")
    sets = [frozenset(rng.sample(elements, rng.randint(1, 6))) for _ in range(rng.randint(1, 12))]
    found = minimum_hitting_set(sets)
    assert all(s & set(found.chosen) for s in sets)
    assert len(found.chosen) == _brute_sets(sets)


def test_empty_set_cannot_be_hit():
    """A set with no element is refused rather than silently ignored."""
    with pytest.raises(ValueError, match="empty"):
        minimum_hitting_set([frozenset({"a"}), frozenset()])


def test_exhausted_budget_is_reported_as_not_exact():
    """With no search budget the greedy bound comes back, still hitting every set, marked not exact."""
    found = minimum_hitting_set(GREEDY_TRAP, node_limit=0)
    assert found.exact is False
    assert all(s & set(found.chosen) for s in GREEDY_TRAP)


# -- small random graphs, in FalkorDB ---------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_template_paths_equal_the_oracle(store, seed):
    """The qualifying paths the tools work on are exactly the ones a plain depth-first search finds."""
    doc = small_graph_document(seed)
    analysis = _analysis_on(store, doc)
    result = analysis.choke_points(f"ALERT-{seed}")
    got = sorted(tuple((r.source, r.type, r.target) for r in p.relationships) for p in result.paths)
    assert got == sorted(qualifying_paths(doc, doc["alerts"][0]["entity_id"]))


@pytest.mark.parametrize("seed", SEEDS)
def test_choke_points_equal_brute_force_minimum(store, seed):
    """All relationships: the set is as small as the brute-force minimum and severs every oracle path."""
    doc = small_graph_document(seed)
    paths = qualifying_paths(doc, doc["alerts"][0]["entity_id"])
    result = _analysis_on(store, doc).choke_points(f"ALERT-{seed}")
    assert result.status is (Status.PATHS_FOUND if paths else Status.NO_PATH)
    assert (result.severable, result.exact, result.truncated) == (True, True, False)
    chosen = _keys(result)
    assert all(set(p) & chosen for p in paths)
    assert len(chosen) == (brute_force_minimum(paths) if paths else 0)


@pytest.mark.parametrize("seed", SEEDS)
def test_routes_only_choke_points_equal_brute_force_minimum(store, seed):
    """Routes only: minimum among routes, uncuttable = the paths with no route, and blocking the set leaves only those."""
    doc = small_graph_document(seed)
    source = doc["alerts"][0]["entity_id"]
    routes = route_of(doc)
    paths = qualifying_paths(doc, source)
    cuttable = [p for p in paths if set(p) & routes.keys()]
    analysis = _analysis_on(store, doc)
    result = analysis.choke_points(f"ALERT-{seed}", routes_only=True)
    chosen = [r.route_id for r in result.relationships]
    assert all(r is not None for r in chosen)
    assert len(chosen) == (brute_force_minimum(cuttable, set(routes)) if cuttable else 0)
    uncuttable = {
        tuple((r.source, r.type, r.target) for r in result.paths[i].relationships) for i in result.uncuttable_paths
    }
    assert uncuttable == {p for p in paths if not set(p) & routes.keys()}
    assert result.severable is (not uncuttable)
    assert set(qualifying_paths(doc, source, exclude_routes=frozenset(chosen))) == uncuttable


@pytest.mark.parametrize("seed", [s for s in SEEDS if s % 4 == 0])
def test_paths_cut_lists_every_path_through_the_relationship(store, seed):
    """Each chosen relationship names exactly the paths (by index) that use it."""
    result = _analysis_on(store, small_graph_document(seed)).choke_points(f"ALERT-{seed}")
    for rel in result.relationships:
        using = [
            i
            for i, p in enumerate(result.paths)
            if (rel.source, rel.type, rel.target) in {(r.source, r.type, r.target) for r in p.relationships}
        ]
        assert rel.paths_cut == using


# -- the seed scenarios -------------------------------------------------------------

SEED_CHOKE_POINTS = {
    ("BH-1042", False): {("developer_07", "HAS_SESSION", "sess-dev07", "route-dev07-a")},
    ("BH-1042", True): {("developer_07", "HAS_SESSION", "sess-dev07", "route-dev07-a")},
    ("BH-IAM-2001", False): {
        ("analytics-poweruser", "CAN_ASSUME", "data-lake-admin", None),
        ("analytics-poweruser", "CAN_READ", "finance-ledger", None),
    },
    ("BH-WORKLOAD-3001", False): {("public-api-gw", "RUNS_AS", "api-gw-role", None)},
    ("BH-CONTAINMENT-4001", False): {
        ("contractor_11", "HAS_SESSION", "sess-c11-vpn", "route-c11-primary"),
        ("contractor_11", "HAS_SESSION", "sess-c11-sso", "route-c11-alternate"),
    },
    ("BH-CONTAINMENT-4001", True): {
        ("contractor_11", "HAS_SESSION", "sess-c11-vpn", "route-c11-primary"),
        ("contractor_11", "HAS_SESSION", "sess-c11-sso", "route-c11-alternate"),
    },
}


@pytest.mark.parametrize(("alert_id", "routes_only"), sorted(SEED_CHOKE_POINTS))
def test_seed_scenario_choke_points(tools, alert_id, routes_only):
    """The seed scenarios' minimum sets are the ones stated in docs/internals.md ("Analysis")."""
    result = AnalysisTools(tools).choke_points(alert_id, routes_only)
    assert (result.status, result.severable, result.exact) == (Status.PATHS_FOUND, True, True)
    assert {(r.source, r.type, r.target, r.route_id) for r in result.relationships} == SEED_CHOKE_POINTS[
        (alert_id, routes_only)
    ]


@pytest.mark.parametrize("alert_id", ["BH-IAM-2001", "BH-WORKLOAD-3001"])
def test_routes_only_is_not_severable_without_session_routes(tools, alert_id):
    """A role or workload alert's paths carry no session route: not severable, every path shown as uncuttable."""
    result = AnalysisTools(tools).choke_points(alert_id, routes_only=True)
    assert (result.status, result.severable, result.relationships) == (Status.PATHS_FOUND, False, [])
    assert result.uncuttable_paths == [0, 1, 2]


def test_ranking_puts_the_busiest_relationship_first(tools):
    """BH-WORKLOAD-3001: the workload's RUNS_AS carries all three paths and ranks first."""
    result = AnalysisTools(tools).choke_points("BH-WORKLOAD-3001")
    top = result.ranking[0]
    assert (top.source, top.type, top.target, top.paths_carried, top.allowed) == (
        "public-api-gw",
        "RUNS_AS",
        "api-gw-role",
        3,
        True,
    )
    counts = [r.paths_carried for r in result.ranking]
    assert counts == sorted(counts, reverse=True)


def test_routes_only_ranking_marks_unroutable_relationships_not_allowed(tools):
    """In routes-only mode only routed relationships are marked allowed in the ranking."""
    result = AnalysisTools(tools).choke_points("BH-CONTAINMENT-4001", routes_only=True)
    assert {r.route_id is not None for r in result.ranking if r.allowed} == {True}
    assert any(not r.allowed for r in result.ranking)


def test_truncated_path_list_is_reported(seeded_store):
    """With a path cap below the path count the answer says it is truncated."""
    result = AnalysisTools(ReadTools(seeded_store, path_cap=1)).choke_points("BH-CONTAINMENT-4001")
    assert (result.truncated, result.qualifying_paths) == (True, 1)
    assert "only the first 1 paths" in result.message


@pytest.mark.parametrize(
    ("alert_id", "routes_only", "status"),
    [
        ("BH-NOPE", False, Status.UNKNOWN_ALERT),
        ("bad id!", False, Status.INVALID_INPUT),
        ("BH-1042", "yes", Status.INVALID_INPUT),
    ],
)
def test_bad_input_and_unknown_alert_stay_distinct(tools, alert_id, routes_only, status):
    """Unknown alerts and invalid input come back as their own states."""
    assert AnalysisTools(tools).choke_points(alert_id, routes_only).status is status


def test_choke_points_is_traced(tools):
    """Every call is recorded in the tool trace with its validated input."""
    AnalysisTools(tools).choke_points("BH-1042", True)
    entry = tools.tracer.entries()[-1]
    assert (entry.tool, entry.input, entry.status) == (
        "get_choke_points",
        {"alert_id": "BH-1042", "routes_only": True},
        Status.PATHS_FOUND,
    )


# -- graphs from the synthetic generator ---------------------------------------------

GENERATED_SEEDS = range(24)
ALERTS_PER_GRAPH = 4


@pytest.mark.parametrize("seed", GENERATED_SEEDS)
def test_generated_graphs_choke_points_equal_brute_force(store, seed):
    """On small generated graphs, both modes equal the brute-force minimum (and alerts without paths say no_path)."""
    from blastshield_core.graph.generate import GenerateOptions, generate

    doc = generate(GenerateOptions(edges=150, seed=seed)).to_document()
    analysis = _analysis_on(store, doc)
    routes = route_of(doc)
    with_paths = [a for a in doc["alerts"] if qualifying_paths(doc, a["entity_id"])]
    without = [a for a in doc["alerts"] if a not in with_paths]
    for alert in without[:ALERTS_PER_GRAPH]:
        assert analysis.choke_points(alert["id"]).status is Status.NO_PATH
    for alert in with_paths[:ALERTS_PER_GRAPH]:
        paths = qualifying_paths(doc, alert["entity_id"])
        result = analysis.choke_points(alert["id"])
        assert (result.status, result.exact, result.truncated) == (Status.PATHS_FOUND, True, False)
        chosen = _keys(result)
        assert all(set(p) & chosen for p in paths)
        assert len(chosen) == brute_force_minimum(paths)
        routed = analysis.choke_points(alert["id"], routes_only=True)
        cuttable = [p for p in paths if set(p) & routes.keys()]
        assert len(routed.relationships) == (brute_force_minimum(cuttable, set(routes)) if cuttable else 0)
        assert routed.severable is (len(cuttable) == len(paths))


def test_generated_graphs_exercise_the_search():
    """Across the generated seeds, most graphs give several alerts paths to cut (the test above is not vacuous)."""
    from blastshield_core.graph.generate import GenerateOptions, generate

    counts = []
    for seed in GENERATED_SEEDS:
        doc = generate(GenerateOptions(edges=150, seed=seed)).to_document()
        counts.append(sum(1 for a in doc["alerts"] if qualifying_paths(doc, a["entity_id"])))
    assert sum(1 for c in counts if c >= ALERTS_PER_GRAPH) >= len(counts) // 2
