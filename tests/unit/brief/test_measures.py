"""What the quantity, distance and what-if readers read from a clause (blastshield_core/brief/measures.py and
numbers.py): the claim, its value and what it is about, or nothing. Judged against the graph in
tests/integration/brief/test_briefing_measures.py."""

from __future__ import annotations

from blastshield_core.brief.measures import measure_claims
from blastshield_core.brief.numbers import before_after_row, elliptic_counts, number_claims, value_claims

KINDS = {
    "alice": "alert",
    "vault": "asset",
    "hop-a": "node",
    "hop-b": "node",
    "route-x": "route",
    "route-y": "route",
    "123456789012:user:alice:access-key-1": "route",
}


def kind(token: str) -> str | None:
    return KINDS.get(token)


def read(clause: str) -> list[tuple[str, object]]:
    return [(k, v) for k, v, _, _ in measure_claims(clause, kind)]


def test_a_distance_between_named_entities_in_any_order_and_bound():
    assert read("vault sits three hops from alice.") == [
        ("distance", ("==", 3, False, ("id", "vault", ""), ("id", "alice", ""), "shortest"))
    ]
    assert read("Four hops separate alice and vault.")[0][1][:3] == ("==", 4, False)
    assert read("alice and vault are two hops apart.")[0][1][:3] == ("==", 2, False)
    assert read("vault is no longer within 2 hops of hop-a.")[0][1][:3] == ("<=", 2, True)
    assert read("vault is more than one hop away from alice.")[0][1][:3] == (">", 1, False)


def test_an_omitted_end_is_the_alert_and_a_class_of_assets_is_one_end():
    (claim,) = read("The nearest high asset is 3 hops away.")
    assert claim[1] == ("==", 3, False, ("class", "nearest", "high"), ("id", "", ""), "shortest")
    (claim,) = read("alice is over one hop away from every sensitive asset.")
    assert claim[1][3:5] == (("id", "alice", ""), ("class", "every", "sensitive"))
    # "the path from A to B", "A reaches B in N hops": one of the paths; "it takes N hops": the shortest
    assert read("The path from alice to vault is 4 hops long.")[0][1][5] == "any"
    assert read("alice reaches vault in 4 hops.")[0][1][5] == "any"
    assert read("It takes 4 hops to get from alice to vault.")[0][1][5] == "shortest"
    assert read("The report is 3 pages away from done.") == []  # no entity and no asset class
    assert read("vault sits 3 hops from the office.") == []  # a word, not an entity


def test_a_what_if_reads_what_a_block_would_leave_or_cut():
    def what(clause: str) -> object:
        (claim,) = read(clause)
        return claim[1]

    assert what("Blocking route-x alone would cut every remaining path.") == (
        ("left", "==", 0),
        False,
        False,
        "",
        ("route-x",),
    )
    assert what("Even with route-x blocked, at least one path would remain.")[0] == ("left", ">=", 1)
    assert what("Even with route-x blocked, one path would remain.")[0] == ("left", "==", 1)
    assert what("If route-x were blocked, no path would remain.")[0] == ("left", "==", 0)
    assert what("Blocking route-x would leave two paths open.")[0] == ("left", "==", 2)
    assert what("Blocking route-x would not change the exposure.")[:2] == (("cut", ">=", 1), True)
    assert what("Only blocking both route-x and route-y closes it.")[2:] == (True, "", ("route-x", "route-y"))
    assert what("Blocking a single session route would contain alice.")[3] == "single"
    # a supposed block without a modal: "if we block", "once R is blocked", a gerund's present effect
    assert what("If we block route-x, one path stays open.")[0] == ("left", "==", 1)
    assert what("Once route-x is blocked, the exposure ends.")[0] == ("left", "==", 0)
    assert what("Blocking route-x leaves no path open.")[0] == ("left", "==", 0)
    assert what("Releasing route-x would bring a path back.") == ("release", ("route-x",))
    # an id holding "key" is a route, not a word about keys
    assert what("Blocking 123456789012:user:alice:access-key-1 would be enough.")[0] == ("left", "==", 0)


def test_other_modals_conditionals_and_actions_are_no_what_if():
    for clause in (
        "We would block route-x if the analyst approves.",
        "Should the analyst approve, blocking route-x would end it.",
        "Revoking alice's sessions would not cut route-x.",
        "Blocking route-x cut the path.",  # what was done: a state claim, not a what-if
        "Blocking the session would be enough.",  # no route named
        "When route-x was blocked, one path remained.",  # a record, not a supposition
        "Blocking route-x would cut every path that is not blocked yet.",  # a restricted object: some paths
    ):
        assert [k for k, _ in read(clause) if k == "what_if"] == [], clause


def test_the_one_open_path_is_a_claim_about_every_live_path():
    assert measure_claims("The open path goes through hop-a.", kind) == [
        ("through", ("all", False), "The open path goes through hop-a", ("hop-a",))
    ]
    assert read("The only remaining path no longer runs via hop-b.") == [("through", ("all", True))]
    assert read("The open path goes through the office.") == []


def test_a_negated_severity_or_score_is_read_with_its_negation_and_its_subject():
    assert read("The alert does not currently rate as high severity.") == [("severity_not", "high")]
    assert read("It is no longer critical.") == [("severity_not", "critical")]
    assert read("The score is not 65.") == [("score_not", 65)]
    assert read("vault is not critical.") == []  # an asset's sensitivity
    assert read("The alert is not only high but rising.") == []
    assert value_claims("It is not rated high severity.", [(3, 28)]) == []  # the negated value is read once
    plain = value_claims("The alert is rated high.")
    assert [(k, v) for k, v, _, _ in plain] == [("severity", "high")]


def test_a_share_of_the_paths_is_of_those_cut_when_a_closing_verb_governs_it():
    assert number_claims("The run cut zero of the three paths it started with.") == [
        ("path_share", (0, 3, True), "zero of the three paths")
    ]
    assert number_claims("Two of the original three paths remain open.") == [
        ("path_share", (2, 3, False), "Two of the original three paths")
    ]
    assert number_claims("Between 80 and 100 percent of the starting paths were severed.") == [
        ("path_percent_range", (80, 100, True), "Between 80 and 100 percent of the starting paths")
    ]
    assert number_claims("The score is between 60 and 70.") == [("score_range", (60, 70), "score is between 60 and 70")]


def test_a_share_written_the_other_way_round_or_as_a_fraction():
    assert number_claims("The run removed 1 path out of 2.") == [("path_share", (1, 2, True), "1 path out of 2")]
    assert number_claims("One in two paths is still open.") == [("path_share", (1, 2, False), "One in two paths")]
    assert number_claims("1/2 paths remain open.") == [("path_share", (1, 2, False), "1/2 paths")]
    assert number_claims("Half of the original paths were closed.") == [
        ("path_percent", (50, True, "=="), "Half of the original paths")
    ]
    assert number_claims("At most half of the starting paths are still open.") == [
        ("path_percent", (50, False, "<="), "half of the starting paths")
    ]


def test_a_bound_on_the_score_is_no_score_of_its_own():
    assert number_claims("The risk score is not above 70.") == [
        ("score_bound", (">", 70, True), "score is not above 70")
    ]
    assert [k for k, *_ in value_claims("The risk score is above 60.")] == []


def test_a_percentage_of_the_paths_is_never_a_score_and_a_range_of_paths_is_two_bounds():
    assert [k for k, *_ in value_claims("Between 40 and 60 percent of the starting paths were severed.")] == []
    assert [(k, v) for k, v, _, _ in value_claims("Between two and four qualifying paths are open.")] == [
        ("path_bound", (">=", 2)),
        ("path_bound", ("<=", 4)),
    ]


def test_a_bound_on_every_path_s_length():
    assert number_claims("Every open path is 4 hops or shorter.") == [
        ("hops", ("all_le", 4), "Every open path is 4 hops or shorter")
    ]
    assert number_claims("All the live paths are at least three hops long.") == [
        ("hops", ("all_ge", 3), "All the live paths are at least three hops long")
    ]
    assert number_claims("No open path is longer than 2 hops.") == [
        ("hops", ("all_le", 2), "No open path is longer than 2 hops")
    ]
    assert number_claims("No remaining path is 3 hops or more.") == [
        ("hops", ("all_lt", 3), "No remaining path is 3 hops or more")
    ]


def test_not_a_single_path_is_none_and_a_negated_count_no_count():
    assert [(k, v) for k, v, _, _ in value_claims("Not a single path remains open.")] == [("path_count", 0)]
    assert [(k, v) for k, v, _, _ in value_claims("Not even one qualifying path is left.")] == [("path_count", 0)]
    assert value_claims("Not two paths remain, but one.") == []


def test_a_count_whose_noun_an_earlier_clause_gave():
    sentence = "Whereas four paths were open before the block, two are open after it."
    assert elliptic_counts("two are open after it.", sentence) == [("path_count", 2, "two are open after it.")]
    assert elliptic_counts("two were open before.", sentence) == []
    assert elliptic_counts("Two are open after it.", "Two are open after it.") == []  # no noun before it
    assert elliptic_counts("one is still open before noon", "Of the paths, one is still open before noon") == []


def test_a_before_and_after_table_row_is_a_change():
    header = ["Measure", "Before the run", "After the run"]
    assert before_after_row(header, ["Qualifying paths (graph)", "3", "2"]) == "The qualifying paths went from 3 to 2."
    assert before_after_row(header, ["Risk score", "**60**", "45"]) == "The risk score went from 60 to 45."
    assert before_after_row(header, ["Analyst on call", "dana", "sam"]) is None  # no measure the checker reads
    assert before_after_row(["Run", "Decider", "State"], ["run-1", "rules", "stopped"]) is None
