"""The account reader on sentences of its own (in no corpus): what a pronoun stands for, a status the account
reports, sessions already issued, a policy that locks a user out, what AWS did with a call, and a status cell of
a table whose column names the key. Each with its negation or control; judged against a run in
tests/integration/brief/test_briefing_account.py."""

from __future__ import annotations

from blastshield_core.brief.account import account_claims, cell_status
from blastshield_core.brief.consistency import withheld
from blastshield_core.brief.prose import ProseClaim
from blastshield_core.brief.structure import restructure


def claims(clause: str, sentence: str = "") -> list[tuple[str, bool]]:
    return [c[:2] for c in account_claims(clause, sentence or clause)]


def test_a_pronoun_takes_what_the_clause_before_named_on_the_account():
    sentence = "Sessions bob got with the key keep working until they expire; nobody revoked them."
    assert claims("Sessions bob got with the key keep working until they expire;", sentence) == [("revocation", False)]
    assert claims("nobody revoked them.", sentence) == [("revocation", False)]
    sentence = "The sessions bob previously issued stay valid; the run did not revoke them."
    assert claims("the run did not revoke them.", sentence) == [("revocation", False)]
    sentence = "Were bob's sessions revoked? Yes, they were revoked on the account."
    assert claims("Yes, they were revoked on the account.", sentence) == [("revocation", True)]
    sentence = "bob's access key was handled first: it was deactivated afterwards."
    assert claims("it was deactivated afterwards.", sentence) == [("key", True)]
    # no account named before the pronoun: the graph's, not the account's
    assert claims("they stay blocked.", "The session routes were blocked and they stay blocked.") == []
    assert claims("nobody revoked them.", "The routes are active; nobody revoked them.") == []


def test_a_status_the_account_reports_of_a_key():
    assert claims("It reads back Inactive.") == [("key", True)]
    assert claims("bob's key still reads back Active.") == [("key", False)]
    assert claims("bob's key does not read back Inactive.") == [("key", False)]
    assert claims("The access key shows as Inactive in IAM.") == [("key", True)]
    assert claims("In IAM the access key status is Active.") == [("key", False)]


def test_sessions_already_issued_are_the_accounts():
    assert claims("Sessions already issued to bob were cut off.") == [("revocation", True)]
    assert claims("bob's already-issued sessions were not cut off.") == [("revocation", False)]
    assert claims("The sessions bob previously issued were revoked.") == [("revocation", True)]
    # a session of the graph, and its route, are not
    assert claims("bob's session was cut off.") == []
    assert claims("The session route was cut off.") == []


def test_a_policy_that_locks_a_user_out_and_what_aws_did_with_a_call():
    assert claims("A deny-all policy now locks bob out.") == [("policy", True)]
    assert claims("No deny-all policy locks bob out.") == [("policy", False)]
    assert claims("IAM accepted the UpdateAccessKey call.") == [("key", True)]
    assert claims("IAM never accepted an UpdateAccessKey call.") == [("key", False)]
    assert claims("Nothing was sent to the account.") == [("any", False)]
    assert claims("BlastShield sent UpdateAccessKey, and AWS accepted it.", "") == [("key", True)]
    # a plan is no claim
    assert claims("A deny-all policy would lock bob out.") == []


def test_a_status_cell_of_a_key_a_credential_or_a_session():
    assert cell_status("key", ["Active"]) is False
    assert cell_status("key", ["Inactive"]) is True
    assert cell_status("key", ["still", "active"]) is False
    assert cell_status("key", ["not", "active"]) is True
    assert cell_status("revocation", ["revoked"]) is True
    assert cell_status("policy", ["active"]) is None  # a policy in effect: the table's own reading
    assert cell_status("key", ["✅"]) is None


def test_a_column_that_names_the_key_on_the_account():
    text = "| principal | key status in AWS |\n|---|---|\n| bob | Active |"
    assert "The access key action was not applied in AWS." in restructure(text)
    text = "| principal | key status in AWS |\n|---|---|\n| bob | Inactive |"
    assert "The access key action was applied in AWS." in restructure(text)
    text = "| item | graph | AWS account |\n|---|---|---|\n| bob's access key | blocked | active |"
    assert "The access key action was not applied in AWS." in restructure(text)
    text = "| item | AWS account |\n|---|---|\n| deny-all policy | active |"
    assert "The deny-all policy action was applied in AWS." in restructure(text)
    # a column of the graph: no account claim
    text = "| principal | key status in the graph |\n|---|---|\n| bob | Active |"
    assert "applied in AWS" not in restructure(text)


def test_a_pronoun_takes_what_the_sentence_before_named():
    assert [
        c[:2]
        for c in account_claims(
            "Yes, they were revoked on the account.",
            "Yes, they were revoked on the account.",
            "Were bob's sessions revoked?",
        )
    ] == [("revocation", True)]
    assert [
        c[:2]
        for c in account_claims(
            "It was deactivated in AWS.", "It was deactivated in AWS.", "bob's access key was handled first."
        )
    ] == [("key", True)]
    # the answer word is not the clause's negation
    assert [
        c[:2]
        for c in account_claims(
            "No, they were not revoked on the account.",
            "No, they were not revoked on the account.",
            "Were the sessions revoked?",
        )
    ] == [("revocation", False)]


def test_the_api_a_key_set_inactive_and_a_block_only_in_the_graph():
    assert claims("Yes, one key was set Inactive.") == [("key", True)]
    assert claims("No key was set Inactive.") == [("key", False)]
    assert claims("The API confirms it.") == [("any", True)]
    assert claims("The API shows the key as Active.") == [("key", False)]
    assert claims("Me: not quite, it was only blocked in the graph.") == [("any", False)]
    assert claims("No access keys were touched in AWS.") == [("key", False)]
    # "key" as an adjective names no key
    assert claims("One key control is still missing.") == []
    assert claims("The key finding is the open path.") == []


def test_a_row_that_names_the_account_under_a_column_that_names_the_key():
    text = "| scope | bob's key |\n|---|---|\n| AWS account | deactivated |"
    assert "The access key action was applied in AWS." in restructure(text)
    text = "| scope | bob's key |\n|---|---|\n| AWS account | still active |"
    assert "The access key action was not applied in AWS." in restructure(text)
    # the graph's row is not the account's
    text = "| scope | bob's key |\n|---|---|\n| graph | blocked |"
    assert "applied in AWS" not in restructure(text)


def test_a_cell_that_names_the_key_and_its_status():
    text = "| Alert | Graph | AWS account |\n|---|---|---|\n| BH-9 | contained | key disabled |"
    assert "The access key action was applied in AWS." in restructure(text)
    text = "| Alert | Graph | AWS account |\n|---|---|---|\n| BH-9 | contained | key still active |"
    assert "The access key action was not applied in AWS." in restructure(text)


def test_an_account_claim_that_names_both_the_account_and_the_graph_is_judged():
    both = ProseClaim(
        "account", True, "x", "It is contained on the AWS account as well as in the graph.", qualifier="any"
    )
    graph = ProseClaim("account", True, "x", "The key was disabled in the graph.", qualifier="key")
    assert withheld([both]) == (set(), set())
    assert withheld([graph]) == ({0}, set())


def test_a_negation_before_a_colon_does_not_withhold_the_account_claim_after_it():
    after = ProseClaim("account", True, "x", "None remains: bob's key was disabled in AWS", qualifier="key")
    within = ProseClaim("account", True, "x", "Risk: bob's key was never disabled in AWS", qualifier="key")
    assert withheld([after]) == (set(), set())
    assert withheld([within]) == ({0}, set())
    assert claims("None remains: bob's key was disabled in AWS") == [("key", True)]
