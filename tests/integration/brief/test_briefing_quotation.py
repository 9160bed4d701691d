"""A quoted third party claims nothing; the writer's own clause around the quote does. Held against the real
seeded graph, on sentences of their own (in no corpus), each with its control: BH-1042 as seeded (one live path
developer_07 -> sess-dev07 -> ... -> customer-db; of developer_07's own two session routes one is active, one
blocked) and after a rules run (every session route blocked, no live path). A count of session routes said of a
named entity ("developer_07 with one active session route") is a count of that entity's own routes, not of the
alert's. Judged by the grammar alone (no learned vocabulary), so the readers are what is tested."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from blastshield_core.brief.checker import FlagKind, check_text_outcome
from tests.helpers.briefing_states import states_evidence

D = "BH-1042"
EXP, CON, COUNT = FlagKind.FALSE_EXPOSURE, FlagKind.FALSE_CONTAINMENT, FlagKind.WRONG_COUNT


@pytest.fixture(scope="module")
def check(embedded_store) -> Iterator[object]:
    with states_evidence(embedded_store, "quote", (D,)) as evidence:

        def judge(state: str, text: str) -> tuple[set[FlagKind], bool]:
            ev, services = evidence[(state, D)]
            outcome = check_text_outcome(text, ev, services.tools, vocabulary=None)
            return {f.kind for f in outcome.flags}, bool(outcome.unverified)

        yield judge


# (state, text, expected flags): the writer's clause after the quote is judged, the quote is not
CASES = [
    ("exposed", 'The engineer replied "all sessions are dead", and BH-1042 is contained.', {CON}),
    ("after", 'The engineer replied "all sessions are dead", and BH-1042 is contained.', set()),
    ("after", 'The engineer replied "all sessions are dead", but route-dev07-a is still active.', {EXP}),
    ("exposed", 'The engineer replied "all sessions are dead", but route-dev07-a is still active.', set()),
    ("exposed", 'The owner insisted "nothing of mine is exposed"; developer_07 can still reach customer-db.', set()),
    ("after", 'The owner insisted "nothing of mine is exposed"; developer_07 can still reach customer-db.', {EXP}),
    # a record's field quoted is the record's; the writer's clause beside it is judged
    ("exposed", 'The ticket was moved to "resolved"; nevertheless BH-1042 is not contained.', set()),
    ("after", 'The ticket was moved to "resolved"; nevertheless BH-1042 is not contained.', {EXP}),
    ("exposed", 'The ticket was moved to "open", yet BH-1042 is contained.', {CON}),
    # a connective after a quote changes nothing the writer claims
    ("exposed", 'The owner told us "that session is mine". Regardless, route-dev07-a is blocked.', {CON}),
    ("after", 'The owner told us "that session is mine". Regardless, route-dev07-a is blocked.', set()),
    # a count of a named entity's own session routes
    ("exposed", "developer_07 holds one active session route.", set()),
    ("after", "developer_07 holds one active session route.", {COUNT}),
    ("exposed", "developer_07 holds three active session routes.", {COUNT}),
    ("exposed", 'The user reported "I only had one session", whereas developer_07 has two session routes.', set()),
    ("exposed", 'The user reported "I only had one session", whereas developer_07 has five session routes.', {COUNT}),
    # the alert's routes, as before
    ("exposed", "The alert has three active session routes.", set()),
    ("exposed", "The alert has five active session routes.", {COUNT}),
]


@pytest.mark.parametrize(("state", "text", "flags"), CASES)
def test_the_writers_clause_beside_a_quote_is_judged(check, state, text, flags):
    found, _ = check(state, text)
    assert found == flags, (state, text, found)


def test_a_quote_alone_claims_nothing(check):
    for state in ("exposed", "after"):
        assert check(state, 'The user replied "everything is locked down and every session was revoked".') == (
            set(),
            False,
        )
        assert check(state, 'The ticket was updated to "contained".') == (set(), False)
        assert check(state, 'The key\'s owner said "I already rotated the key".') == (set(), False)
