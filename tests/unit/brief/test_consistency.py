"""The gate's consistency rule (blastshield_core/brief/consistency.py): which readings are withheld or dropped."""

from __future__ import annotations

from blastshield_core.brief.consistency import withheld
from blastshield_core.brief.prose import ProseClaim


def state(value: str, text: str, clause: str, **extra: object) -> ProseClaim:
    return ProseClaim("state", value, text, clause, **extra)  # type: ignore[arg-type]


def test_a_hypothetical_a_quantity_or_another_scope_withholds_a_state_claim():
    for clause in (
        "Even with route-x blocked, one path would remain.",
        "Not every path has been shut down.",
        "Exactly one of the two paths is open.",
        "The key was disabled in AWS.",
        "alice has a working read grant on the vault.",
    ):
        assert withheld([state("contained", "blocked", clause)]) == ({0}, set()), clause
    assert withheld([state("contained", "is blocked", "route-x is blocked.")]) == (set(), set())


def test_an_account_claim_scoped_to_the_graph_or_negated_unread_is_withheld():
    done = ProseClaim("account", True, "x", "This run changed nothing in AWS;", qualifier="any")
    graph = ProseClaim("account", True, "x", "The key was disabled in the graph.", qualifier="key")
    plain = ProseClaim("account", True, "x", "The key was disabled in AWS.", qualifier="key")
    only = ProseClaim("account", False, "x", "The key was blocked in the graph only.", qualifier="key")
    assert withheld([done, graph, plain, only]) == ({0, 1}, set())


def test_words_read_twice_to_opposite_verdicts_keep_the_first_reading():
    clause = "The exposure is not over: alice retains a working path."
    first = state("exposed", "The exposure is not over: alice", clause)
    again = state("contained", "is not over: alice retains a working", clause)
    assert withheld([first, again]) == (set(), {1})
    apart = "route-x was blocked, yet the path remains."
    claims = [state("contained", "route-x was blocked", apart), state("exposed", "yet the path remains.", apart)]
    assert withheld(claims) == (set(), set())  # two predicates, each read once


def test_a_share_inside_a_claim_about_the_paths_through_an_entity_is_its_quantity():
    clause = "Exactly two of the three paths pass via role-a."
    share = ProseClaim("path_share", (2, 3, False), "two of the three paths", clause)
    through = ProseClaim("through", (2, False), "two of the three paths pass via role-a", clause, scope=("role-a",))
    assert withheld([share, through]) == (set(), {0})


def test_an_account_claim_in_a_hypothetical_clause_is_withheld():
    plan = ProseClaim(
        "account", True, "x", "BlastShield would attach a deny-all policy to bob in AWS.", qualifier="policy"
    )
    done = ProseClaim("account", True, "x", "BlastShield attached a deny-all policy to bob in AWS.", qualifier="policy")
    assert withheld([plan, done]) == ({0}, set())
