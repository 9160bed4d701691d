"""An action that closed nothing is no claim that nothing is open (blastshield_core/brief/prose.py).

"The revocation cuts no path" says what an action did not close: read as a claim that no path is open, it was
flagged as false containment on an alert whose paths remain, where the sentence is true. The emptiness that
follows any other word ("No path remains", "the block leaves no path open") is still a containment claim.
"""

from __future__ import annotations

import pytest

from blastshield_core.brief.prose import read_prose


def states(text: str) -> list[tuple[str, object]]:
    return [(c.kind, c.value) for c in read_prose(text, lambda _: None, {}, set()) if c.kind == "state"]


@pytest.mark.parametrize(
    "text",
    [
        "The revocation cuts no path.",
        "This cuts no path.",
        "Revoking the sessions closes no path.",
        "The revocation cut no path.",
        "It removes no path and severs no route.",
    ],
)
def test_what_an_action_did_not_close_is_no_containment_claim(text):
    assert ("state", "contained") not in states(text), text


@pytest.mark.parametrize(
    "text",
    [
        "No path remains.",
        "The block leaves no path open.",
        "The graph contains no path to the vault.",
        "The revocation cut no path; no path remains.",
        "Zero paths are left.",
    ],
)
def test_emptiness_after_any_other_word_is_still_a_containment_claim(text):
    assert ("state", "contained") in states(text), text
