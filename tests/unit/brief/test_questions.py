"""The statements questions with their answers, hedges and verdicts on reported words make
(`blastshield_core/brief/questions.py`), and the lines left as written because they make none."""

from __future__ import annotations

import pytest

from blastshield_core.brief.normalise import normalise
from blastshield_core.brief.questions import answered, negated


@pytest.mark.parametrize(
    ("line", "statement"),
    [
        ("Is route-x9 blocked? Yes.", "route-x9 is blocked."),
        ("- Is route-x9 blocked? No, still active.", "- route-x9 is not blocked; route-x9 is still active."),
        ("Is vault-7 still on a path? No.", "vault-7 is no longer on a path."),
        ("Can role-a assume role-b directly? No.", "role-a cannot assume role-b directly."),
        ("Can role-a still reach db-3? No, not any more.", "role-a can no longer reach db-3."),
        ("Did the run stop the key? Yes.", "The run stopped the key."),
        (
            "Does every path from u-1 go through r-2? No, at least one avoids it.",
            "Every path from u-1 does not go through r-2; at least one avoids it.",
        ),
        ("Were any keys disabled for u-1? No.", "No keys were disabled for u-1."),
        ("Does any open path pass through r-2? Yes.", "Some open path passes through r-2."),
        ("Did the score move? No, it stayed at 40.", "The score did not move; the score stayed at 40."),
        ("**How many open paths does u-1 have now? Three.**", "**u-1 has three open paths now.**"),
        ("How far is db-3 from u-1? Four hops.", "The shortest path from u-1 to db-3 is Four hops."),
        ("Q: how long is the shortest path? A: two hops.", "The shortest path is two hops."),
        ("Which routes did the run block? r-1, r-2.", "The run blocked r-1, r-2."),
        ("Note: I think u-1 is contained.", "Note: u-1 is contained."),
        ("u-1 is exposed, I believe.", "u-1 is exposed."),
        ("I do not think u-1 is contained yet.", "u-1 is not contained yet."),
        ("Ana says u-1 is exposed. She's wrong, it is contained.", "u-1 is contained."),
        ("Ana says u-1 is exposed. She is right.", "u-1 is exposed."),
        ("Jo said u-1 was contained, which is wrong: one path is still open.", "One path is still open."),
        ("The ticket says u-1 is exposed, and that is correct.", "u-1 is exposed."),
        (
            "Did the legacy route get blocked? Yes, it is blocked.",
            "The legacy route got blocked; the legacy route is blocked.",
        ),
        ("Is u-1 rated high? No, medium.", "u-1 is not rated high; u-1 is medium."),
        ("Ana says u-1 is contained. She is wrong.", "u-1 is not contained."),
        ('Bo wrote "u-1 is contained" in chat; that was not accurate.', "u-1 is not contained."),
        ('Cy: "u-1 is contained." Me: correct.', "u-1 is contained."),
        (
            'Cy: "we disabled the key in the account." Me: not quite, it was only blocked in the graph.',
            "The key was only blocked in the graph.",
        ),
        ("BH-9 is probably contained.", "BH-9 is contained."),
        ("It looks like u-1 is contained.", "u-1 is contained."),
        ("u-1 is contained, if I am not mistaken.", "u-1 is contained."),
        ("I doubt u-1 is contained.", "u-1 is not contained."),
        ("Is u-1 contained or exposed? Exposed.", "u-1 is Exposed."),
        ("What is still exposed? Nothing.", "Nothing is still exposed."),
        ("Who can still reach db-3? Nobody.", "Nobody can still reach db-3."),
        ("How many paths are left? None.", "No paths are left."),
        ("Is u-1 contained? Definitely not.", "u-1 is not contained."),
        ("Is u-1 contained? It is not.", "u-1 is not contained."),
        ("Is u-1 still exposed? Not any more.", "u-1 is no longer exposed."),
        ("Will blocking r-2 contain u-1? Yes.", "Blocking r-2 would contain u-1."),
        (
            "- Q: Is u-1 contained? A: No, blocked in the graph only.",
            "- u-1 is not contained; u-1 is blocked in the graph only.",
        ),
        ("I am not sure u-1 is contained.", "Whether u-1 is contained."),  # an open question: no claim
        ("Correction to my earlier note: u-1 is exposed.", "u-1 is exposed."),
    ],
)
def test_the_statement_an_answer_makes(line, statement):
    assert answered(line) == statement


@pytest.mark.parametrize(
    "line",
    [
        "Is u-1 contained?",  # a question without an answer
        "Is u-1 contained? Probably.",  # a hedged answer
        "Is u-1 contained? Not sure.",
        "Is u-1 contained? Yes, I think so.",
        "Is u-1 contained? Partly.",
        "Is u-1 contained? Yes and no.",
        "If r-2 were blocked, would u-1 be contained? Yes.",  # under a condition
        "Is u-1 contained? Is r-2 blocked? Yes.",  # two questions: which one the answer answers is unclear
        "Is u-1 → s-1 → db-3 on an open path? No.",  # a chain as the subject
        "Did the run finish? No, it stopped.",  # the run reader keeps what it reads
        "| Is u-1 exposed? | yes |",  # a table's cells
        "u-1 is exposed.",
        "u-1 is likely to stay exposed.",
    ],
)
def test_lines_without_a_statement_stay_as_written(line):
    assert answered(line) == line


def test_negation_at_the_first_auxiliary():
    assert negated("u-1 is still exposed") == "u-1 is no longer exposed"
    assert negated("u-1 is not contained") == "u-1 is contained"
    assert negated("the key can reach db-3") == "the key cannot reach db-3"
    assert negated("we disabled the key") is None  # no auxiliary: left unread rather than guessed


def test_contractions_are_spelled_out_before_the_answer_is_read():
    assert normalise("Is u-1 rated critical? No, it's medium.") == "u-1 is not rated critical; u-1 is medium."
    assert normalise("Priya says u-1 is exposed. She's wrong, it's contained.") == "u-1 is contained."


def test_neither_nor_keeps_the_verb_whole():
    assert normalise("Neither r-1 nor r-2 carries an open path.") == (
        "r-1 does not carry an open path; r-2 does not carry an open path."
    )


def test_an_answer_on_the_line_after_its_question():
    assert normalise("Q: Is u-1 contained?\nA: No, still exposed.") == "\nu-1 is not contained; u-1 is still exposed."
    assert normalise("Is u-1 contained?\nWe will know tomorrow.") == "Is u-1 contained?\nWe will know tomorrow."
