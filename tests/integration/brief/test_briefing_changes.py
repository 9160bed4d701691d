"""A change written with an arrow, a share in parentheses, and an unchecked item, on the seeded graph.

- "score 40 -> 65" is a change from then to now: the value after the arrow is the one held against the risk score.
- "one (50%) is critical" is a share: a percentage is the risk score only beside a word for it ("the risk score is
  65%"); otherwise the clause is reported unverified, never flagged as a wrong score.
- "[ ] re-query X: no qualifying path left" is still to do: the expected result of a step is no claim.
- "risk_score=65" names a field of the evidence, not an unknown entity; an unknown id is still reported.
"""

from __future__ import annotations

import pytest

from blastshield_core.brief.checker import FlagKind, check_text_outcome
from tests.helpers.briefing_states import seeded_services

ALERT = "BH-IAM-2001"  # as seeded: 3 qualifying paths, risk score 65 (high)


@pytest.fixture(scope="module")
def seeded(embedded_store):
    with seeded_services(embedded_store, "changes") as services:
        yield services, services.briefer.evidence(ALERT)


def outcome(seeded, text):
    services, ev = seeded
    return check_text_outcome(text, ev, services.tools)


def test_the_value_after_the_arrow_is_now(seeded):
    assert seeded[1].risk_score == 65
    assert not outcome(seeded, "score 40 -> 65").flags
    assert not outcome(seeded, "- risk score: 40 → 65").flags
    flags = outcome(seeded, "score 65 -> 40").flags
    assert [f.kind for f in flags] == [FlagKind.WRONG_SCORE], flags


@pytest.mark.parametrize("text", ["Of the two assets at risk, one (50%) is critical.", "Paths down 100% in the graph."])
def test_a_share_is_not_the_risk_score(seeded, text):
    got = outcome(seeded, text)
    assert not any(f.kind is FlagKind.WRONG_SCORE for f in got.flags), got
    assert got.unverified, got


def test_a_percentage_beside_the_score_is_the_score(seeded):
    got = outcome(seeded, "The risk score is 40%.")
    assert [f.kind for f in got.flags][:1] == [FlagKind.WRONG_SCORE], got


@pytest.mark.parametrize(
    "text", ["- [ ] re-query BH-IAM-2001: no qualifying path left", "[ ] block the last route: nothing left open"]
)
def test_an_unchecked_item_claims_nothing(seeded, text):
    got = outcome(seeded, text)
    assert not got.flags, got


def test_a_checked_claim_is_still_judged(seeded):
    got = outcome(seeded, "- [x] BH-IAM-2001 contained")
    assert [f.kind for f in got.flags] == [FlagKind.FALSE_CONTAINMENT], got


def test_a_field_of_the_evidence_is_no_unknown_entity(seeded):
    got = outcome(seeded, "bot: BH-IAM-2001 risk_score=65 path_count=3")
    assert not any(f.kind is FlagKind.UNKNOWN_ENTITY for f in got.flags), got
    got = outcome(seeded, "bot: BH-IAM-2001 reaches ledger_backup_9")
    assert [f.offending_text for f in got.flags if f.kind is FlagKind.UNKNOWN_ENTITY] == ["ledger_backup_9"], got
