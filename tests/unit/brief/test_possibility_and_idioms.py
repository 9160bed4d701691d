"""What could be closed, an idiom negated, and where a path ends (blastshield_core/brief/prose.py).

- "None of the three remaining paths can be cut by blocking a session route" says what could be done, not that no
  path is open: no containment claim, and the clause is reported unverified (the checker does not judge abilities).
  A relative clause ("passes through a session route that could be blocked") leaves its main clause a claim.
- "We are not out of the woods yet" is the idiom negated: exposure, not containment.
- "A 5-hop chain ending at the vault" is where the path ends, not an end to the exposure.
"""

from __future__ import annotations

import pytest

from blastshield_core.brief.prose import read_prose

IDS = {"BH-1042": "alert", "route-dev07-a": "route", "customer-db": "asset"}


def claims(text: str) -> list[tuple[str, object]]:
    return [(c.kind, c.value) for c in read_prose(text, IDS.get, {}, set())]


@pytest.mark.parametrize(
    "text",
    [
        "None of the three remaining paths can be cut by blocking a session route.",
        "The path can be cut by blocking route-dev07-a.",
        "Both paths could easily be closed by one block.",
    ],
)
def test_what_could_be_closed_is_unverified_not_contained(text):
    read = claims(text)
    assert ("state", "contained") not in read, read
    assert ("unverified", None) in read, read


def test_a_closing_in_a_relative_clause_leaves_the_main_clause_a_claim():
    read = claims("Every open path passes through route-dev07-a, a session route that could be blocked.")
    assert read == [("through", ("all", False))], read


def test_a_condition_is_still_no_claim():
    assert claims("If route-dev07-a were blocked, the alert could be contained.") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("We are not out of the woods yet.", "exposed"),
        ("BH-1042 is not yet out of the woods.", "exposed"),
        ("We are out of the woods.", "contained"),
        ("BH-1042 is no longer a threat.", "contained"),
    ],
)
def test_an_idiom_and_its_negation(text, value):
    states = [v for k, v in claims(text) if k == "state"]
    assert states and set(states) == {value}, (text, states)


@pytest.mark.parametrize(
    "text",
    [
        "The longest qualifying path is a 5-hop chain ending at customer-db.",
        "Each path ends at customer-db.",
        "The chain ended in customer-db.",
    ],
)
def test_where_a_path_ends_is_no_containment(text):
    assert ("state", "contained") not in claims(text), text


def test_an_ended_exposure_is_still_containment():
    assert ("state", "contained") in claims("Blocking route-dev07-a ended the exposure.")
