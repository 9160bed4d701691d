"""Where a claim about the whole alert's containment is said to hold (the graph, the AWS account, or neither), and
which counts say whether anything is left. Judged against a graph-only run and an applied one on a moto account in
tests/integration/brief/test_briefing_banner_account.py."""

from __future__ import annotations

import pytest

from blastshield_core.brief.accountside import existence_state, where


@pytest.mark.parametrize(
    ("text", "scope"),
    [
        ("The alert is contained.", set()),
        ("Nothing is left open.", set()),
        ("The graph view on the Path graph page shows it.", set()),  # the page, not a claim's place
        ("There is no qualifying path in the graph.", {"graph"}),
        ("The alert is contained in the graph only.", {"graph"}),
        ("Blocked graph-only, for now.", {"graph"}),
        ("Run: graph_only (0 paths left)", {"graph"}),
        ("As of the fresh query, nothing reaches critical data.", {"graph"}),
        ("The latest graph query finds no qualifying path.", {"graph"}),
        ("The graph still shows a qualifying path for alice.", {"graph"}),
        ("No qualifying path was found from alice within six hops.", {"graph"}),  # what a query found
        ("The alert is contained on the AWS account.", {"account"}),
        ("alice is still exposed in AWS.", {"account"}),
        ("It is contained on the account.", {"account"}),
        ("Containment is complete both in the graph and on AWS account 123456789012.", {"graph", "account"}),
    ],
)
def test_where_a_containment_claim_is_said(text: str, scope: set[str]):
    assert where(text) == scope


@pytest.mark.parametrize(
    ("kind", "value", "state"),
    [
        ("path_count", 0, "contained"),  # "0 qualifying paths remain"
        ("asset_count", 0, "contained"),  # "no route to critical data is left"
        ("path_bound", (">=", 1), "exposed"),  # "at least one qualifying path remains open"
        ("path_bound", (">", 0), "exposed"),
        ("path_count", 2, None),  # a count is the graph's
        ("asset_count", 1, None),
        ("path_bound", ("==", 0), None),  # "the paths went from 1 to 0": a change of the count
        ("path_bound", (">=", 2), None),
        ("score", 0, None),
    ],
)
def test_which_counts_say_whether_anything_is_left(kind: str, value: object, state: str | None):
    assert existence_state(kind, value) == state
