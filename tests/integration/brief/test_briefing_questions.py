"""Questions with their answers, hedged claims and the writer's verdict on reported words, held against the real
seeded graph (`blastshield_core/brief/questions.py`).

Sentences of their own (in no corpus), each beside its truthful control or its negation, on BH-1042 (one live path
developer_07 -> sess-dev07 -> build-runner-07 -> deploy-role -> prod-admin-role -> customer-db, five hops, severity
medium; route-dev07-build active) and BH-CONTAINMENT-4001 (two live paths, one through bastion-01), as seeded and
after a rules run (no live path left). Judged by the grammar alone (no learned vocabulary): the readers are what is
tested. A hedged answer, a question without an answer and a question under a condition stay no claim."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from blastshield_core.brief.checker import FlagKind, check_text_outcome
from tests.helpers.briefing_states import states_evidence

D, C = "BH-1042", "BH-CONTAINMENT-4001"
EXP, CON, COUNT, SEV = (
    FlagKind.FALSE_EXPOSURE,
    FlagKind.FALSE_CONTAINMENT,
    FlagKind.WRONG_COUNT,
    FlagKind.WRONG_SEVERITY,
)


@pytest.fixture(scope="module")
def check(embedded_store) -> Iterator[object]:
    """A check per state: as seeded, and after a rules run (each on a graph of its own)."""
    with states_evidence(embedded_store, "qa", (D, C)) as evidence:

        def run(state: str, alert: str, text: str) -> set[FlagKind]:
            ev, services = evidence[(state, alert)]
            return {f.kind for f in check_text_outcome(text, ev, services.tools, vocabulary=None).flags}

        yield run


# (state, alert, text, expected flags)
CASES = [
    # a yes/no question and its answer: inversion, negation, a bare predicate completing the subject
    ("exposed", D, "Has route-dev07-build been blocked? No, it is still active.", set()),
    ("exposed", D, "Has route-dev07-build been blocked? Yes.", {CON}),
    ("exposed", D, "Can developer_07 still get to customer-db? Yes.", set()),
    ("exposed", D, "Can developer_07 still get to customer-db? No.", {CON}),
    ("after", D, "Can developer_07 still get to customer-db? No, not any more.", set()),
    ("after", D, "Can developer_07 still get to customer-db? Yes.", {EXP}),
    ("exposed", C, "Is bastion-01 still on a path to payments-vault? Yes.", set()),
    ("after", C, "Is bastion-01 still on a path to payments-vault? Yes.", {EXP}),
    ("after", C, "Is bastion-01 still on a path to payments-vault? No, it has been cut off.", set()),
    ("exposed", C, "Is bastion-01 still on a path to payments-vault? No, it has been cut off.", {CON}),
    ("after", D, "Did anyone block route-dev07-build? No.", set()),
    # a wh-question and the statement its short answer completes
    ("exposed", C, "How many qualifying paths does BH-CONTAINMENT-4001 have at the moment? Two.", set()),
    ("exposed", C, "How many qualifying paths does BH-CONTAINMENT-4001 have at the moment? Five.", {COUNT}),
    ("exposed", D, "How far is customer-db from developer_07? Five hops.", set()),
    ("exposed", D, "How far is customer-db from developer_07? Two hops.", {COUNT}),
    ("exposed", D, "What is BH-1042's severity? Critical.", {SEV}),
    ("exposed", D, "Q: Is BH-1042 contained?\nA: Not yet, one path is still open.", set()),
    ("after", D, "Q: Is BH-1042 contained?\nA: Not yet, one path is still open.", {EXP, COUNT}),
    ("exposed", D, "Is BH-1042 contained or exposed? Contained.", {CON}),
    ("exposed", D, "Is BH-1042 contained or exposed? Exposed.", set()),
    ("exposed", C, "How many qualifying paths are still open? None.", {CON}),
    ("after", C, "How many qualifying paths are still open? None.", set()),
    # no claim: a hedged answer, no answer, a condition
    ("exposed", D, "Can developer_07 still get to customer-db? Probably not.", set()),
    ("exposed", D, "Is BH-1042 contained?", set()),
    ("after", D, "Is BH-1042 contained? Partly.", set()),
    ("after", D, "Is BH-1042 contained?", set()),
    ("exposed", D, "If the session were revoked, would BH-1042 be contained? Yes.", set()),
    # a hedged claim claims what it hedges
    ("exposed", D, "I am fairly sure BH-1042 is still exposed.", set()),
    ("after", D, "I am fairly sure BH-1042 is still exposed.", {EXP}),
    ("exposed", D, "BH-1042 is contained, I think.", {CON}),
    ("after", D, "BH-1042 is contained, I think.", set()),
    ("exposed", D, "I don't think BH-1042 is contained.", set()),
    ("after", D, "I don't think BH-1042 is contained.", {EXP}),
    # reported words and the writer's verdict on them
    ("exposed", D, "Omar says BH-1042 is contained. He's wrong, it's still exposed.", set()),
    ("after", D, "Omar says BH-1042 is contained. He's wrong, it's still exposed.", {EXP}),
    ("exposed", D, "Omar says BH-1042 is contained. He is right.", {CON}),
    ("after", D, "Omar says BH-1042 is contained. He is right.", set()),
    ("exposed", D, "Omar says BH-1042 is contained. He is wrong.", set()),
    ("after", D, "Omar says BH-1042 is contained. He is wrong.", {EXP}),
    ("exposed", D, 'Lee wrote "BH-1042 is still exposed" in the ticket; that was accurate.', set()),
    ("after", D, 'Lee wrote "BH-1042 is still exposed" in the ticket; that was accurate.', {EXP}),
    ("exposed", D, 'Kim: "BH-1042 is contained." Me: not quite, it is still exposed.', set()),
    ("after", D, 'Kim: "BH-1042 is contained." Me: not quite, it is still exposed.', {EXP}),
    ("exposed", D, "Correction to my last update: BH-1042 is still exposed.", set()),
    ("after", D, "Correction to my last update: BH-1042 is still exposed.", {EXP}),
]


@pytest.mark.parametrize(("state", "alert", "text", "expected"), CASES)
def test_questions_hedges_and_verdicts(check, state, alert, text, expected):
    assert check(state, alert, text) == expected


HEDGES = [
    # a hedged claim, however it is hedged, claims what it hedges; doubt claims the opposite; not knowing claims nothing
    ("exposed", "BH-1042 is probably contained.", {CON}),
    ("after", "BH-1042 is probably contained.", set()),
    ("exposed", "From what I can see, BH-1042 is still exposed.", set()),
    ("after", "From what I can see, BH-1042 is still exposed.", {EXP}),
    ("exposed", "BH-1042 is contained, if I'm not mistaken.", {CON}),
    ("exposed", "I doubt BH-1042 is contained.", set()),
    ("after", "I doubt BH-1042 is contained.", {EXP}),
    ("exposed", "I'm not sure BH-1042 is contained.", set()),
    ("after", "I'm not sure BH-1042 is still exposed.", set()),
]


@pytest.mark.parametrize(("state", "text", "expected"), HEDGES)
def test_hedged_claims(check, state, text, expected):
    assert check(state, D, text) == expected
