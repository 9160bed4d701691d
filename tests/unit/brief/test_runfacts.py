"""The run's facts as the reader finds them in a sentence (blastshield_core/brief/runfacts.py): subject, predicate,
quantity and negation, on sentences of no corpus."""

from __future__ import annotations

import pytest

from blastshield_core.brief.runfacts import RunFact, read_run_facts, taken_by


def _kind(token: str) -> str | None:
    return {"route-east": "route", "route-west": "route", "acct:user:bo:access-key-1": "route"}.get(token)


def facts(sentence: str) -> set[RunFact]:
    return {f for r in read_run_facts(sentence, _kind) for f in r.facts}


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # how the run ended, in any order of its words, with its negation where the verb has one
        ("The response run has halted.", {RunFact("state", "stopped")}),
        ("The run hasn't completed.", {RunFact("state", "completed", negated=True)}),
        ("Never did the run complete", {RunFact("state", "completed", negated=True)}),
        ("Final status of the run is graph_only", {RunFact("state", "graph_only")}),
        ("Verdict: interrupted", {RunFact("state", "interrupted")}),
        ("The run finished as abandoned.", {RunFact("state", "abandoned")}),
        ("The run ended with the incident still exposed.", {RunFact("state", "completed", negated=True)}),
        ("The run halted short of containment.", {RunFact("state", "completed", negated=True)}),
        ("This run remains in progress.", {RunFact("state", "running")}),
        ("In the end the run wound up graph-only.", {RunFact("state", "graph_only")}),
        ("When the cap was hit, the run halted.", {RunFact("cap_hit"), RunFact("state", "stopped")}),
        # a transitive "stopped" is a closing verb with its object, not the run's end
        ("The run stopped every lateral move.", set()),
        (
            "The run completed three blocks before it halted.",
            {RunFact("actions", "block", 3), RunFact("state", "stopped")},
        ),
        ("The run failed to reach the vault.", set()),
        ("The run managed, in the end, by blocking route-east.", {RunFact("target", "blocked", target="route-east")}),
        ("It halted without blocking route-west.", set()),  # no run named: "it" alone is not the run
        # why: the cap, its value, and its denial
        ("The run halted because its action limit was hit.", {RunFact("state", "stopped"), RunFact("cap_hit")}),
        ("The action budget played no part in ending the run.", set()),  # no predicate the reader knows
        ("The run never ran into its cap.", {RunFact("cap_hit", negated=True)}),
        ("The run halted owing to its action budget.", {RunFact("state", "stopped"), RunFact("cap_hit")}),
        ("The run had not run out of actions.", {RunFact("cap_hit", negated=True)}),
        ("A four-action cap applied to the run.", {RunFact("cap", number=4)}),
        # how much: counts, not bounds
        ("The run carried out 5 actions.", {RunFact("actions", "action", 5)}),
        ("Actions applied: three", {RunFact("actions", "action", 3)}),
        ("Seven routes were blocked by the run.", {RunFact("actions", "block", 7)}),
        ("More than one action was taken by the run.", set()),
        ("By then the run had no actions left.", {RunFact("cap_hit")}),
        ("No block of the run touched route-west.", {RunFact("target", "touched", target="route-west", negated=True)}),
        ("The run severed four of the six paths.", {RunFact("cut", number=4, whole=6)}),
        ("The second block moved the open paths from 5 to 3.", {RunFact("step", "second", 5, 3)}),
        (
            "The run spent two of its four permitted actions.",
            {RunFact("actions", "action", 2), RunFact("cap", number=4)},
        ),
        ("The run began with 2 open paths.", {RunFact("start", number=2)}),
        ("When the response run started, bo had four open paths.", {RunFact("start", number=4)}),
        ("Before the run there were no paths at all.", {RunFact("start", number=0)}),
        ("It halted, the run, leaving three paths in place.", {RunFact("state", "stopped"), RunFact("left", number=3)}),
        ("Nothing got blocked by the run.", {RunFact("actions", "block", 0)}),
        ("The run was capped at five actions.", {RunFact("cap", number=5)}),
        ("Not every one of the run's blocks was verified.", {RunFact("all_verified", negated=True)}),
        # what it acted on, by id, with "untouched" and "left alone" as denials
        ("The run did not block route-east.", {RunFact("target", "blocked", target="route-east", negated=True)}),
        ("route-west stayed untouched by the run.", {RunFact("target", "touched", target="route-west", negated=True)}),
        (
            "The run's last action targeted acct:user:bo:access-key-1.",
            {RunFact("target", "touched", target="acct:user:bo:access-key-1")},
        ),
        # whether there was one, and by which decider
        ("There was no containment run on record.", {RunFact("exists", negated=True)}),
        ("No response runs were logged for it.", {RunFact("exists", negated=True)}),
        ("Containment has not yet been attempted.", {RunFact("exists", negated=True)}),
        ("This incident has no response run.", {RunFact("exists", negated=True)}),
        ("One containment run was already carried out.", {RunFact("exists")}),
        ("The gemini decider already ran here.", {RunFact("exists"), RunFact("decider", "gemini")}),
        # no claim: conditions, modals, questions, suggestions
        ("If the run stops at its cap, one path stays open.", set()),
        ("The run would have halted at its cap.", set()),
        ("Did the run halt?", set()),
        ("The suggested next step is to block route-east.", set()),
        ("You can run the gemini decider once more.", set()),
        ("The run halted; its next action would have blocked route-east.", {RunFact("state", "stopped")}),
        # not about the run: paths that run through something
        ("Both paths run through route-east.", set()),
        ("Analysts may want to run containment again.", set()),
    ],
)
def test_reader_finds_the_facts(sentence: str, expected: set[RunFact]) -> None:
    assert facts(sentence) == expected


def test_status_line_is_the_runs_state_and_its_remark_the_reason() -> None:
    readings = read_run_facts("Halted (action limit reached)", _kind)
    # each clause with its facts, then the line itself: every clause of it was read
    assert [(r.clause, bool(r.facts)) for r in readings] == [
        ("Halted", True),
        ("action limit reached", True),
        ("Halted (action limit reached)", False),
    ]
    assert {f for r in readings for f in r.facts} == {RunFact("state", "stopped"), RunFact("cap_hit")}


def test_a_sentence_read_in_part_is_not_read_whole() -> None:
    readings = read_run_facts("The run halted, and the vault is safe now.", _kind)
    assert [r.clause for r in readings] == ["The run halted"]


def test_another_run_is_not_this_one() -> None:
    assert read_run_facts("The previous run completed in one action.", _kind) == []


def test_a_status_mark_before_the_state_and_a_denied_status() -> None:
    assert facts("🛑 Halted") == {RunFact("state", "stopped")}
    (reading,) = read_run_facts("not Halted (action limit reached)", _kind)  # "❌ Halted (...)" as normalised
    assert reading.facts == (RunFact("state", "stopped", negated=True),)
    assert reading.clause == "not Halted (action limit reached)"  # the remark of a denied status is not asserted


def test_the_words_left_over_are_what_the_gate_holds() -> None:
    reading, _ = read_run_facts("Sadly the run halted.", _kind)
    assert reading.facts == (RunFact("state", "stopped"),) and reading.rest.split() == ["Sadly", "the"]


def test_the_grammar_gives_way_only_for_the_clauses_read() -> None:
    sentence = "The run blocked route-east, yet the path remains."
    read = {sentence: read_run_facts(sentence, _kind)}
    assert taken_by(sentence, "The run blocked route-east", read)
    assert not taken_by(sentence, sentence, read)  # the grammar's whole sentence holds a clause not read here
    assert not taken_by("Another sentence.", "The run blocked route-east", read)


@pytest.mark.parametrize(
    ("header", "cells", "expected"),
    [
        (
            ["Run", "Alert", "Actions", "State"],
            ["r1", "A", "2", "stopped"],
            ["The run took 2 actions.", "Status of the run: stopped."],
        ),
        (["Run", "Notes"], ["r1", "no paths open after"], ["The run left 0 paths open."]),
        (["Run", "Notes"], ["r1", "operator paused it"], []),  # a note that is no count: nothing
        (["field", "value"], ["state", "graph_only"], ["Status of the run: graph_only."]),
        (["field", "value"], ["status", "contained"], None),  # the alert's state, not the run's: not the run's table
        (["Entity", "State"], ["route-east", "blocked"], None),
    ],
)
def test_run_table_row(header, cells, expected):
    from blastshield_core.brief.runtables import run_table_row

    assert run_table_row(header, cells) == expected


def test_answer_and_retraction_readings():
    told = facts("Earlier I said the run completed; actually it stopped.")
    assert told == {RunFact("state", "stopped")}
    assert facts("did the run finish? no, it stopped.") == {RunFact("state", "stopped")}
    assert facts("did the run finish?") == set()
    assert facts("The earlier run stopped, but this one completed.") == {RunFact("state", "completed")}


def test_a_bare_count_answers_how_many():
    from blastshield_core.brief.runfacts import answer_in_full

    assert answer_in_full("How many paths did we start with?", "two; 1 left now.") == [
        "Before the run, the alert had two paths.",
        "The run left 1 paths open.",
    ]
    assert answer_in_full("How many actions did it take?", "3") == ["The run took 3 actions."]
    assert answer_in_full("How many paths did we start with?", "two, I think") == []  # a hedge: not read
    assert answer_in_full("How many paths are left?", "two") == []  # not a question the reader knows


def _alert_kind(token: str) -> str | None:
    return "alert" if token == "INC-77" else _kind(token)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # "did not end": the base form after its auxiliary
        ("The response run for INC-77 did not finish as completed.", {RunFact("state", "completed", negated=True)}),
        ("The run did not conclude in graph_only.", {RunFact("state", "graph_only", negated=True)}),
        # a subordinate clause of time keeps its modal: the main clause is a claim
        ("The run halted before anyone could review it.", {RunFact("state", "stopped")}),
        ("The run halted before containment.", {RunFact("state", "completed", negated=True)}),
        ("The run would have halted before it blocked anything.", set()),  # the main clause's own modal
        # a state keyed by the alert's id
        ("🛑 Halted: INC-77", {RunFact("state", "stopped")}),
        ("Not completed — INC-77", {RunFact("state", "completed", negated=True)}),
        # a share of the cap in the passive, and a lower bound on the actions
        (
            "Two of its four allowed actions were spent by the run.",
            {RunFact("actions", "action", 2), RunFact("cap", number=4)},
        ),
        ("At least two actions have been applied by the run.", {RunFact("actions", "at_least", 2)}),
        ("Actions applied: none yet", {RunFact("actions", "action", 0)}),
        ("No containment action has been performed yet.", {RunFact("actions", "action", 0)}),
        # whether there was a run, said by what it did
        ("The exposure was closed by an automatic run.", {RunFact("exists")}),
        ("The ticket was never passed to a response run.", {RunFact("exists", negated=True)}),
        ("One rules run has already gone through.", {RunFact("exists")}),
        ("No response run has taken place so far.", {RunFact("exists", negated=True)}),
        # what it had left to act on
        ("The run had nothing left to block.", {RunFact("no_candidate")}),
        ("It was not the cap; the run simply ran out of routes to cut.", {RunFact("no_candidate")}),
    ],
)
def test_third_pass_readings(sentence: str, expected: set[RunFact]) -> None:
    got = {f for r in read_run_facts(sentence, _alert_kind) for f in r.facts}
    assert expected <= got if expected else got == set(), got


def test_an_opener_before_the_run_clause_is_the_run_readers() -> None:
    sentence = "All told, the run halted."
    read = {sentence: read_run_facts(sentence, _kind)}
    assert taken_by(sentence, sentence, read)
    long = "After a long review by the team, the run halted."
    read = {long: read_run_facts(long, _kind)}
    assert not taken_by(long, long, read)  # an opener of more words is a clause of its own
    denied = "Not really, the run halted."
    read = {denied: read_run_facts(denied, _kind)}
    assert not taken_by(denied, denied, read)  # a denial before it is no opener


def test_a_table_of_alerts_with_their_runs_state() -> None:
    from blastshield_core.brief.runtables import run_table_row

    assert run_table_row(["alert", "run state"], ["INC-77", "none yet"]) == ["No containment run has been made yet."]
    assert run_table_row(["alert", "run status"], ["INC-77", "halted"]) == ["Status of the run: stopped."]
    assert run_table_row(["alert", "run state", "owner"], ["INC-77", "halted", "bo"]) is None  # not every column read
    assert run_table_row(["alert", "state"], ["INC-77", "contained"]) is None  # the alert's state, not its run's
