"""Formats of an incident channel and a memo (blastshield_core/brief/normalise.py, evidence.py, checker.py).

- A line written in capitals is read in small letters: its words are words, not relationship types.
- A block quote whose next line says whose words it held ("(Text of the phishing message forwarded by the
  reporter)", "— the vendor's ticket") is quotation, as one introduced before it is.
- A key of the evidence or of a run's record quoted in a briefing ("paths_carried=1", "applied_in_aws: false") is a
  field, not an unknown entity; an unknown id-like name is still reported.
"""

from __future__ import annotations

import pytest

from blastshield_core.brief.evidence import FIELD_NAMES
from blastshield_core.brief.normalise import normalise


def test_a_shouted_line_is_read_in_small_letters():
    assert normalise("ALICE'S ACCESS KEY STILL WORKS IN AWS!!", {}, {}) == "alice's access key still works in aws!!"
    assert normalise("BH-1042 IS STILL EXPOSED", {}, {"bh-1042": "BH-1042"}) == "BH-1042 is still exposed"
    assert normalise("BH-1042 CAN_ASSUME prod-admin-role", {}, {}) == "BH-1042 CAN_ASSUME prod-admin-role"


@pytest.mark.parametrize(
    "after",
    [
        "(Text of the phishing message forwarded by the reporter, reproduced for reference only.)",
        "— the vendor's ticket, pasted here for context, not verified",
        "— the MSSP's email",
    ],
)
def test_a_block_quote_attributed_after_it_is_quotation(after):
    text = f"> Your session has been revoked and all access suspended.\n\n{after}"
    assert normalise(text, {}, {}) == "> (quoted)\n\n(quoted)"


def test_a_block_quote_without_attribution_is_the_briefings_own():
    assert normalise("> **Note:** the alert is contained.", {}, {}) == "> **Note:** the alert is contained."


def test_the_evidences_keys_are_fields_not_entities():
    assert {"paths_carried", "applied_in_aws", "risk_score", "containment_state", "graph_only"} <= FIELD_NAMES
    assert "developer_07" not in FIELD_NAMES


def test_a_shouted_line_is_judged_by_its_words_not_by_the_letters_of_its_ids():
    """Whether a line is shouted does not depend on the random letters of an id on it (an analyst alert's id ends in
    random hex, a key id in random letters): ids keep their letters, and only plain words count."""
    for tail in ("0b1234567890", "abcdefabcdef"):  # no hex letter, or twelve
        alert = f"AN-20261205T102629-{tail}"
        assert normalise(f"UPDATE: {alert} IS CONTAINED", {}, {}) == f"{alert} is contained."
    assert normalise("KEY AKIAABCDEFGHIJKLMNOP IS STILL ACTIVE", {}, {}) == "key AKIAABCDEFGHIJKLMNOP is still active"
