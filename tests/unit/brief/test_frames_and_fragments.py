"""A frame around a claim, and a claim written without its verb (blastshield_core/brief/clauses.py, normalise.py).

- A frame that recommends, plans or points out ("It is worth noting that ...", "for the next shift: ...", "the next
  shift can ignore X, it's been contained") no longer silences the finite clause after it: that clause is the
  briefing's claim. A recommendation with no such clause ("Next: block R", "We recommend that R be blocked") still
  claims nothing.
- "it's been" is "it has been", not "it is been".
- "path(s)" is "paths" ("1 path(s)" is "1 path"); "prob" and "prolly" are "probably" (a hedged claim claims it).
- A plan said after a claim (", need to double-check") leaves the claim; a what-if about a named block that no
  reader reads is unverified, not passed.
- An entity followed by what is said of it without a verb ("build-runner-07: still on an open path", "deploy-role
  no longer on X's path") is read with the copula; a line that has its verb is left as it is.
"""

from __future__ import annotations

import pytest

from blastshield_core.brief.normalise import normalise
from blastshield_core.brief.prose import read_prose

IDS = {"BH-1042": "alert", "route-dev07-a": "route", "build-runner-07": "node", "deploy-role": "node"}


def kind(token: str) -> str | None:
    return IDS.get(token)


def states(text: str) -> list[tuple[str, object]]:
    return [(c.kind, c.value) for c in read_prose(text, kind, {}, set()) if c.kind == "state"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("It is worth noting that BH-1042 is contained.", "contained"),
        ("For the next shift: BH-1042 is contained.", "contained"),
        ("Next shift can ignore BH-1042, it has been contained.", "contained"),
        ("It is worth noting that route-dev07-a is still active.", "exposed"),
    ],
)
def test_the_clause_after_a_frame_is_a_claim(text, value):
    assert ("state", value) in states(text), text


@pytest.mark.parametrize(
    "text",
    [
        "Next: block route-dev07-a.",
        "We recommend that route-dev07-a be blocked.",
        "For the next shift: block route-dev07-a so that BH-1042 is contained.",
        "It is worth noting that BH-1042 would be contained once route-dev07-a is blocked.",
        "We suggest that, if route-dev07-a is blocked, BH-1042 is contained.",
    ],
)
def test_a_recommendation_without_an_asserted_clause_claims_nothing(text):
    assert states(text) == [], text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("next shift can ignore it, it's been contained", "next shift can ignore it, it has been contained"),
        ("that's got no path left", "that has got no path left"),
        ("it's contained", "it is contained"),
        ("2 path(s) would remain", "2 paths would remain"),
        ("1 path(s) open", "1 path open"),
        ("one hop(s) away", "one hop away"),
        ("build-runner-07: still on an open path", "build-runner-07 is still on an open path"),
        ("- deploy-role no longer on the path", "- deploy-role is no longer on the path"),
        ("**deploy-role: carries 2 of the paths**", "**deploy-role carries 2 of the paths**"),
        ("deploy-role: still reaches the vault", "deploy-role: still reaches the vault"),
        ("unknown-thing: still on an open path", "unknown-thing: still on an open path"),
    ],
)
def test_normalised_forms(text, expected):
    ids = {i.lower(): i for i in IDS}
    assert normalise(text, {}, ids) == expected


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Five paths are still open, need to double-check.", 5),
        ("BH-1042 has two paths open, will re-query at 10:00.", 2),
    ],
)
def test_a_plan_after_a_claim_leaves_the_claim(text, value):
    counts = [c.value for c in read_prose(text, kind, {}, set()) if c.kind == "path_count"]
    assert counts == [value], (text, counts)


def test_a_short_chat_hedge_is_a_hedge():
    assert normalise("prob two paths still open", {}, {}) == normalise("probably two paths still open", {}, {})
    assert normalise("Note: prolly two paths open", {}, {}) == "Note: probably two paths open"
    assert normalise("a problem with the key", {}, {}) == "a problem with the key"


def test_an_unread_what_if_about_a_named_block_is_unverified():
    read = read_prose("If route-dev07-a were blocked, the one current path would still be open.", kind, {}, set())
    assert [c.kind for c in read] == ["unverified"], read
    assert read_prose("If route-dev07-a were blocked, we would write it up.", kind, {}, set()) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- [x] block route-dev07-a", "- route-dev07-a has been blocked"),
        ("* [x] revoke the sessions", "* the sessions has been revoked"),
        ("[ ] block route-dev07-a", "route-dev07-a has not been blocked yet"),
        ("- [ ] route-dev07-a blocked", "- route-dev07-a has not been blocked yet"),
        ("- [x] route-dev07-a blocked", "- route-dev07-a blocked"),
        ("- [ ] re-query BH-1042: no qualifying path left", "- (todo) re-query BH-1042: no qualifying path left"),
        ("[ ] next: write the post-incident note", "(todo) next: write the post-incident note"),
    ],
)
def test_a_checklist_item_says_what_was_done_and_what_was_not(text, expected):
    """A checked "[x] block R" says R was blocked and "[ ] block R" that it has not been yet; an unchecked item that names no
    closing of an object is still to do, and claims nothing."""
    assert normalise(text, {}, {}) == expected


def test_an_unchecked_closing_is_a_claim_that_it_is_not_done():
    text = normalise("[ ] block route-dev07-a", {}, {})
    read = [(c.kind, c.value, c.scope) for c in read_prose(text, kind, {}, set()) if c.kind == "state"]
    assert read == [("state", "exposed", ("route-dev07-a",))], read
    assert read_prose(normalise("- [ ] re-query BH-1042: no qualifying path left", {}, {}), kind, {}, set()) == []
