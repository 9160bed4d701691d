"""The readers of account facts, of links between named entities and of verdicts said through a verb of naming
(blastshield_core/brief/account.py, links.py, structure.py): what each reads from one clause, in wording of its
own, with truthful controls, negations and conditionals."""

from __future__ import annotations

from blastshield_core.brief.account import account_claims
from blastshield_core.brief.links import link_claims
from blastshield_core.brief.structure import restructure

KINDS = {
    "dev_1": "alert",
    "vault-a": "asset",
    "hop-role": "node",
    "jump-host": "node",
    "reader-role": "node",
    "sess-1": "node",
    "route-1": "route",
}


def links(clause: str) -> list[tuple[str, object, tuple[str, ...]]]:
    return [(kind, value, scope) for kind, value, _, scope in link_claims(clause, KINDS.get)]


def test_account_negation_on_the_subject_the_verb_or_the_object():
    assert account_claims("No deny-all policy was placed on bob.") == [
        ("policy", False, "No deny-all policy was placed on bob.")
    ]
    assert [c[:2] for c in account_claims("Nothing was changed on the AWS account for bob.")] == [("any", False)]
    assert [c[:2] for c in account_claims("The cleanup changed nothing in IAM.")] == [("any", False)]
    assert [c[:2] for c in account_claims("The key deactivation never made it to AWS.")] == [("key", False)]
    assert [c[:2] for c in account_claims("A deny-all policy was put on bob.")] == [("policy", True)]
    # a plan or a possibility is not what was done
    assert account_claims("A respond profile would let BlastShield deactivate the key in AWS.") == []
    assert account_claims("The analyst should disable bob's key in AWS by hand.") == []
    assert [c[:2] for c in account_claims("The key could not be disabled in AWS.")] == [("key", False)]
    assert [c[:2] for c in account_claims("IAM: access key disabled for bob")] == [("key", True)]


def test_a_verdict_said_of_the_account_and_a_run_placed_in_the_graph():
    assert [c[:2] for c in account_claims("Contained on the AWS account")] == [("any", True)]
    assert [c[:2] for c in account_claims("bob is not yet contained in IAM.")] == [("any", False)]
    assert [c[:2] for c in account_claims("On the account bob stays exposed.")] == [("any", False)]
    assert [c[:2] for c in account_claims("Everything the run blocked was in the graph.")] == [("any", False)]
    # a verdict of the graph is not one of the account
    assert account_claims("The incident is contained in the graph.") == []


def test_verification_on_the_account_is_read():
    assert [c[:2] for c in account_claims("The key deactivation was verified in IAM.")] == [("key", True)]
    assert [c[:2] for c in account_claims("IAM confirms the key is Inactive.")] == [("key", True)]
    assert [c[:2] for c in account_claims("The change was not confirmed on the account.")] == [("any", False)]


def test_a_negation_before_a_colon_is_not_the_next_claims():
    assert [c[:2] for c in account_claims("bob's key no longer works: it is Inactive in IAM.")] == [("key", True)]
    assert [c[:2] for c in account_claims("Not this time: the key was disabled in AWS.")] == [("key", True)]
    # a colon inside an id or an action name is no such boundary
    assert [c[:2] for c in account_claims("No aws:TokenIssueTime Deny was written for 1234:user:bob.")] == [
        ("revocation", False)
    ]


def test_the_use_of_a_key_says_whether_it_works():
    key = "AKIAEXAMPLEKEY000001"
    assert [c[:2] for c in account_claims(f"Calls signed with {key} now fail.")] == [("key", True)]
    assert [c[:2] for c in account_claims(f"Calls signed with {key} still succeed.")] == [("key", False)]
    assert [c[:2] for c in account_claims(f"Calls signed with {key} are rejected by IAM.")] == [("key", True)]
    assert [c[:2] for c in account_claims("bob can still use his key against the AWS account.")] == [("key", False)]
    assert [c[:2] for c in account_claims("Nothing was sent to AWS.")] == [("any", False)]
    assert [c[:2] for c in account_claims("No UpdateAccessKey call was made for bob.")] == [("key", False)]
    assert [c[:2] for c in account_claims("BlastShield called iam:UpdateAccessKey for bob.")] == [("key", True)]
    assert [c[:2] for c in account_claims("The deactivation has not taken effect on the account.")] == [("any", False)]
    # "fails to" negates what follows it: no claim that the key stopped working
    assert [c[:2] for c in account_claims("The key block fails to reach AWS.")] == [("key", False)]


def test_there_takes_the_account_scope_of_the_clause_before():
    sentence = "Nothing reached IAM, so bob's password still works there."
    assert [c[:2] for c in account_claims("bob's password still works there.", sentence)] == [("credential", False)]
    sentence = "Nothing was applied in AWS, and bob's credentials keep working."
    assert [c[:2] for c in account_claims("bob's credentials keep working.", sentence)] == [("credential", False)]
    # "there is" is no place
    assert (
        account_claims(
            "there is nothing left to revoke.", "The key was disabled in AWS, so there is nothing left to revoke."
        )
        == []
    )
    # without a clause about the account before it, "there" is no place of the account
    assert (
        account_claims(
            "bob's password still works there.", "The graph was updated, so bob's password still works there."
        )
        == []
    )


def test_a_table_column_about_the_account_is_a_claim_per_row():
    table = "| change | verified on the account |\n|---|---|\n| revoke sessions | ❌ |\n| deny-all policy | ✅ |"
    assert restructure(table).splitlines()[2:] == [
        "The session revocation action was not applied in AWS.",
        "The deny-all policy action was applied in AWS.",
    ]
    # a row that names no change on the account, or a value that is no yes or no, is not read as one
    other = "| step | applied in AWS |\n|---|---|\n| route-1 | yes |\n| access key | maybe later |"
    assert "applied in AWS." not in restructure(other)


def test_a_chain_under_a_lead_in_that_says_open_is_a_claim_that_the_path_is_open():
    listing = "Paths that remain open:\n- `dev_1` → `hop-role` → `vault-a`\n- dev_1 -> jump-host"
    assert restructure(listing).splitlines()[1:] == [
        "The path dev_1 → hop-role → vault-a is open.",
        "The path dev_1 → jump-host is open.",
    ]
    assert links("The path dev_1 → hop-role → vault-a is open.") == [("chain", True, ("dev_1", "hop-role", "vault-a"))]
    assert restructure("- **Open path:** dev_1 → jump-host") == "The path dev_1 → jump-host is open."
    assert "is open" not in restructure("Cut path: dev_1 → jump-host")
    # under a lead-in about cut or earlier paths, or none, a chain is evidence shown, not a claim
    for lead in ("Paths cut by the run:", "Before the run these were open:", "## Evidence", ""):
        text = f"{lead}\n1. dev_1 → hop-role → vault-a"
        assert "is open" not in restructure(text), lead


def test_a_verdict_said_through_a_verb_of_naming():
    assert restructure("The incident cannot yet be regarded as contained.") == "The incident is not contained."
    assert restructure("dev_1 can now be considered contained.") == "dev_1 is contained."
    assert restructure("dev_1 can be considered contained.") == "dev_1 can be considered contained."
    assert (
        restructure("It could be called contained once the key is off.")
        == "It could be called contained once the key is off."
    )


def test_reach_from_the_alert_entity_in_either_order():
    assert links("dev_1 is still able to reach vault-a.") == []  # "able to" is no reading of this reader's
    assert links("dev_1 can still get at vault-a.") == [("reach", True, ("dev_1", "vault-a"))]
    assert links("dev_1 no longer has any route to vault-a.") == [("reach", False, ("dev_1", "vault-a"))]
    assert links("A live path from dev_1 goes all the way to vault-a.") == [("reach", True, ("dev_1", "vault-a"))]
    assert links("No path from dev_1 leads to vault-a.") == [("reach", False, ("dev_1", "vault-a"))]
    assert links("No path from dev_1 reaches vault-a any more.") == [("reach", False, ("dev_1", "vault-a"))]
    assert links("vault-a is out of reach for dev_1.") == [("reach", False, ("dev_1", "vault-a"))]
    assert links("vault-a stays accessible from dev_1.") == [("reach", True, ("dev_1", "vault-a"))]
    # bounded by hops, or hypothetical: not this reader's claim
    assert links("hop-role can reach vault-a.") == [("reach", True, ("hop-role", "vault-a"))]
    assert links("vault-a can reach dev_1.") == []  # an asset reaches nothing
    assert links("dev_1 can reach vault-a within 3 hops.") == []
    assert links("dev_1 could reach vault-a if the route reopened.") == []


def test_via_a_third_entity_on_the_way():
    assert links("On its way to vault-a, dev_1 first passes through jump-host.") == [
        ("via", True, ("dev_1", "jump-host", "vault-a"))
    ]
    assert ("via", False, ("dev_1", "jump-host", "vault-a")) in links(
        "dev_1 never goes via jump-host on the way to vault-a."
    )
    assert ("via", True, ("dev_1", "route-1", "vault-a")) in links("dev_1 reaches vault-a by way of route-1.")
    assert links("On the way to vault-a, dev_1 goes through sess-1, jump-host and then hop-role.") == [
        ("via", True, ("dev_1", "sess-1", "jump-host", "hop-role", "vault-a"))
    ]
    assert ("via", True, ("dev_1", "hop-role", "vault-a")) in links("The path from dev_1 to vault-a runs via hop-role.")


def test_a_step_on_the_paths_and_the_blast_radius():
    assert links("No live path has hop-role reading vault-a.") == [("step", ("none", False), ("hop-role", "vault-a"))]
    assert links("Every open path still has reader-role reading vault-a.") == [
        ("step", ("all", False), ("reader-role", "vault-a"))
    ]
    assert links("jump-host now sits outside the current blast radius.") == [("blast_in", False, ("jump-host",))]
    assert links("vault-a is no longer inside dev_1's blast radius.") == [("blast_in", False, ("vault-a",))]
    assert links("vault-a remains within the blast radius.") == [("blast_in", True, ("vault-a",))]
    assert links("The blast radius no longer includes vault-a.") == [("blast_in", False, ("vault-a",))]
    assert links("dev_1's blast radius still contains jump-host.") == [("blast_in", True, ("jump-host",))]


def test_grants_with_their_adjectives():
    assert links("reader-role holds no direct, working read permission on vault-a.") == [
        ("link", ("CAN_READ", False, True, ""), ("reader-role", "vault-a"))
    ]
    assert links("hop-role keeps an active, unconditional grant to assume reader-role.") == [
        ("link", ("CAN_ASSUME", True, False, "unconditional"), ("hop-role", "reader-role"))
    ]
    assert links("hop-role has a conditional trust on reader-role.") == [
        ("link", ("CAN_ASSUME", True, False, "conditional"), ("hop-role", "reader-role"))
    ]
    assert links("hop-role has a denied grant on vault-a.") == [
        ("link_state", ("denied", True), ("hop-role", "vault-a"))
    ]
    assert links("hop-role does not hold any permission over vault-a.") == [
        ("link", ("ANY", False, False, ""), ("hop-role", "vault-a"))
    ]
    assert links("dev_1 still holds the active session sess-1.") == [
        ("link", ("HAS_SESSION", True, False, ""), ("dev_1", "sess-1"))
    ]
    assert links("hop-role might hold a grant to assume reader-role.") == []


def test_a_relationship_named_by_its_type_or_between_two_entities():
    assert links("The trust between hop-role and reader-role is denied.") == [
        ("link_state", ("denied", True), ("hop-role", "reader-role"))
    ]
    assert links("The CAN_READ from reader-role to vault-a is not blocked.") == [
        ("link_state", ("blocked", False), ("reader-role", "vault-a"))
    ]


def test_a_trust_is_a_grant_to_assume_the_other_way_round():
    assert links("reader-role trusts hop-role.") == [
        ("link", ("CAN_ASSUME", True, True, ""), ("hop-role", "reader-role"))
    ]
    assert links("reader-role's trust policy no longer allows hop-role.") == [
        ("link", ("CAN_ASSUME", False, True, ""), ("hop-role", "reader-role"))
    ]
    assert links("hop-role is not trusted by reader-role.") == [
        ("link", ("CAN_ASSUME", False, True, ""), ("hop-role", "reader-role"))
    ]
    assert links("reader-role allows hop-role.") == []


def test_a_grant_in_the_passive_voice_and_several_targets_reached():
    assert links("reader-role can still be assumed by hop-role.") == [
        ("link", ("CAN_ASSUME", True, False, ""), ("hop-role", "reader-role"))
    ]
    assert links("vault-a is no longer readable by reader-role.") == [
        ("link", ("CAN_READ", False, False, ""), ("reader-role", "vault-a"))
    ]
    assert links("dev_1 can still reach vault-a, jump-host and hop-role.") == [
        ("reach", True, ("dev_1", "vault-a")),
        ("reach", True, ("dev_1", "jump-host")),
        ("reach", True, ("dev_1", "hop-role")),
    ]


def test_that_grant_takes_the_two_entities_named_before_it():
    sentence = "hop-role cannot assume reader-role; that trust is explicitly denied."
    claims = link_claims("that trust is explicitly denied.", KINDS.get, sentence)
    assert [(k, v, s) for k, v, _, s in claims] == [("link_state", ("denied", True), ("hop-role", "reader-role"))]
    assert (
        link_claims("that trust is explicitly denied.", KINDS.get, "It was reviewed; that trust is explicitly denied.")
        == []
    )


def test_through_it_names_the_entity_named_before():
    sentence = "jump-host was blocked before the run, so no path goes through it."
    claims = link_claims("no path goes through it.", KINDS.get, sentence)
    assert [(k, v, s) for k, v, _, s in claims] == [("through", ("none", False), ("jump-host",))]


def test_paths_through_an_entity_with_the_and_not_all():
    assert links("The remaining path goes through jump-host.") == [("through", ("the", False), ("jump-host",))]
    # "avoids": the paths without jump-host are counted ("~"), so "at least one path avoids it" is "not all hold it"
    assert links("The only live path avoids jump-host.") == [("through", ("~all", False), ("jump-host",))]
    assert links("At least one open path avoids jump-host.") == [("through", ("~some", False), ("jump-host",))]
    assert links("No open path avoids jump-host.") == [("through", ("~none", False), ("jump-host",))]
    assert links("At least one path does not cross jump-host.") == [("through", ("~some", False), ("jump-host",))]
    assert links("Not every qualifying path crosses hop-role.") == [("through", ("not_all", False), ("hop-role",))]
    assert links("All of the paths pass through hop-role.") == [("through", ("all", False), ("hop-role",))]
    assert links("The path to vault-a does not go through jump-host.") == [
        ("through", ("the", True), ("jump-host", "vault-a"))
    ]
    # a path that was: not a claim about the open ones
    assert links("The blocked path went through jump-host.") == []
    assert links("jump-host is on none of the open paths.") == [("member", False, ("jump-host",))]
    assert links("jump-host is on both paths.") == [("through", ("all", False), ("jump-host",))]
    assert links("hop-role is not on all the live paths.") == [("through", ("all", True), ("hop-role",))]
    assert links("hop-role sits on only one of the paths.") == [("through", ("one", False), ("hop-role",))]


def test_a_relative_clause_takes_the_entity_before_which():
    sentence = "jump-host runs as hop-role, which can assume reader-role."
    claims = link_claims("can assume reader-role.", KINDS.get, sentence)
    assert [(k, v, s) for k, v, _, s in claims] == [("link", ("CAN_ASSUME", True, False), ("hop-role", "reader-role"))]
    # "which" after something that is not an entity: no subject to give
    assert link_claims("can assume reader-role.", KINDS.get, "It rotates keys, which can assume reader-role.") == []


def test_that_one_in_a_disjunction_of_states():
    sentence = "hop-role cannot assume reader-role; that one is denied, blocked or not there."
    claims = link_claims("that one is denied, blocked or not there.", KINDS.get, sentence)
    assert [(k, v, s) for k, v, _, s in claims] == [("link_state", ("closed", False), ("hop-role", "reader-role"))]
    # a disjunction that allows either answer is no claim; "that one" with no two entities before it is unread
    either = "hop-role cannot assume reader-role; that one is blocked or allowed."
    assert link_claims("that one is blocked or allowed.", KINDS.get, either) == []
    alone = link_claims("No, that one is blocked.", KINDS.get, "No, that one is blocked.")
    assert [k for k, *_ in alone] == ["unverified"]


def test_routes_and_chains_on_the_paths():
    assert links("route-1 still carries an open path.") == [("member", True, ("route-1",))]
    assert links("route-1 does not carry any open path now.") == [("member", False, ("route-1",))]
    assert links("Either route-1 or sess-1 carries an open path.") == [("member_any", True, ("route-1", "sess-1"))]
    assert links("Either route-1 or sess-1 does not carry an open path.") == []  # which one: unread
    assert links("jump-host and hop-role are on an open path.") == [
        ("member", True, ("jump-host",)),
        ("member", True, ("hop-role",)),
    ]
    assert links("jump-host still lies on a qualifying path.") == [("member", True, ("jump-host",))]
    assert links("jump-host → hop-role → vault-a is still part of an open path.") == [
        ("chain", True, ("jump-host", "hop-role", "vault-a"))
    ]
    assert links("jump-host → hop-role is not part of any open qualifying path.") == [
        ("chain", False, ("jump-host", "hop-role"))
    ]


def test_a_class_of_routes_and_an_assets_sensitivity():
    assert links("At least one open path passes through a session route.") == [
        ("through", ("some", False), ("*session-route*",))
    ]
    assert links("The open path is carried by no session route.") == [("through", ("the", True), ("*session-route*",))]
    assert links("vault-a is classified critical.") == [("asset_sensitivity", ("critical", True), ("vault-a",))]
    assert links("vault-a is not a high-sensitivity asset.") == [("asset_sensitivity", ("high", False), ("vault-a",))]
    assert links("dev_1 is classified critical.") == []  # the alert's severity: another reader's


def test_it_after_a_clause_naming_a_node():
    sentence = "jump-host is no longer on a path to vault-a; it has been cut off."
    claims = link_claims("it has been cut off.", KINDS.get, sentence)
    assert [(k, v, s) for k, v, _, s in claims] == [("member", False, ("jump-host",))]
    # "it" after the alert or a route has a state of its own: not read here
    assert link_claims("it has been cut off.", KINDS.get, "dev_1 was reviewed; it has been cut off.") == []
    assert link_claims("it has been cut off.", KINDS.get, "route-1 was reviewed; it has been cut off.") == []
    assert links("hop-role is still part of an open path.") == [("member", True, ("hop-role",))]


def test_no_asset_of_a_class_in_scope():
    assert links("No critical asset is in scope for jump-host.") == [
        ("reach_class", ("critical", False), ("jump-host",))
    ]
    assert links("jump-host can reach no sensitive data.") == [("reach_class", ("", False), ("jump-host",))]
    assert links("No high-sensitivity asset is reachable from dev_1.") == [("reach_class", ("high", False), ("dev_1",))]
