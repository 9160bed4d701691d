"""Claims naming entities, held against the real seeded graph: reach from the alert's entity, a third entity on
the way, grants with their adjectives, the paths through an entity, and a verdict said through a verb of naming.

Sentences of their own (in no corpus), each with its truthful control or negation, on BH-1042 (one live path
developer_07 -> sess-dev07 -> build-runner-07 -> deploy-role -> prod-admin-role -> customer-db; the legacy session
blocked) and BH-CONTAINMENT-4001 (two live paths, through bastion-01 and through admin-console), as seeded and
after a rules run (every session route blocked: no live path). Judged by the grammar alone (no learned
vocabulary), so the readers are what is tested; the gate is measured in test_briefing_families.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from blastshield_core.brief.checker import FlagKind, check_text_outcome
from tests.helpers.briefing_states import states_evidence

D, C, IAM = "BH-1042", "BH-CONTAINMENT-4001", "BH-IAM-2001"
REL, EXP, CON = FlagKind.WRONG_RELATIONSHIP, FlagKind.FALSE_EXPOSURE, FlagKind.FALSE_CONTAINMENT
SEV = FlagKind.WRONG_SEVERITY


@pytest.fixture(scope="module")
def checks(embedded_store) -> Iterator[dict[str, object]]:
    """A check per state: as seeded, and after a rules run (each on a graph of its own)."""
    with states_evidence(embedded_store, "scope", (D, C, IAM)) as evidence:

        def check(state: str, alert: str, text: str) -> set[FlagKind]:
            ev, services = evidence[(state, alert)]
            return {f.kind for f in check_text_outcome(text, ev, services.tools, vocabulary=None).flags}

        yield {"check": check}


# (state, alert, text, expected flags)
CASES = [
    # reach from the alert's entity, by id or plain name, in either order
    ("exposed", D, "Right now developer_07 can get to customer-db.", set()),
    ("after", D, "Right now developer_07 can get to customer-db.", {EXP}),
    ("exposed", D, "developer_07 no longer has any route to customer-db.", {CON}),
    ("after", D, "developer_07 no longer has any route to customer-db.", set()),
    ("exposed", D, "A live path from developer_07 goes all the way to customer-db.", set()),
    ("after", D, "A live path from developer_07 goes all the way to customer-db.", {EXP}),
    ("exposed", C, "payments-vault is out of reach for contractor_11.", {CON}),
    ("after", C, "payments-vault is out of reach for contractor_11.", set()),
    ("exposed", C, "payments-vault is still within reach for contractor_11.", set()),
    # a third entity on the way
    ("exposed", D, "Along its way to customer-db, developer_07 first goes through deploy-role.", set()),
    ("after", D, "Along its way to customer-db, developer_07 first goes through deploy-role.", {REL}),
    ("exposed", D, "developer_07 reaches customer-db by way of sess-dev07-legacy.", {REL}),
    (
        "exposed",
        D,
        "On the way to customer-db, developer_07 passes through sess-dev07, build-runner-07 and deploy-role.",
        set(),
    ),
    (
        "exposed",
        D,
        "On the way to customer-db, developer_07 passes through deploy-role and then build-runner-07.",
        {REL},
    ),
    ("exposed", D, "On its way to customer-db, developer_07 never passes through sess-dev07-legacy.", set()),
    ("exposed", C, "The path from contractor_11 to payments-vault runs via console-role.", set()),
    ("exposed", C, "The path from contractor_11 to payments-vault runs via deploy-role.", {FlagKind.UNKNOWN_ENTITY}),
    # grants with adjectives
    ("exposed", D, "deploy-role holds a live, direct read permission on build-artifacts.", set()),
    ("exposed", D, "deploy-role has no working grant to assume prod-admin-role.", {CON}),
    ("exposed", D, "deploy-role keeps an active, unconditional grant to assume prod-admin-role.", set()),
    ("exposed", D, "deploy-role keeps a conditional grant to assume prod-admin-role.", {REL}),
    ("exposed", C, "console-role holds a denied grant on ops-role.", set()),
    # a grant named "for A on B" or "A's grant on B", with its state
    ("exposed", C, "The permission for console-role over ops-role is denied.", set()),
    ("exposed", C, "The permission for console-role over ops-role is allowed.", {REL}),
    ("exposed", C, "console-role's grant on ops-role is not denied.", {REL}),
    # a colon before "it": the clause after it is a claim of its own, the negation before it is not its
    ("exposed", D, "route-dev07-a was left alone: it is still active.", set()),
    ("after", D, "route-dev07-a was left alone: it is still active.", {EXP}),
    ("exposed", C, "console-role has a working, direct grant to assume ops-role.", {REL}),
    ("exposed", D, "developer_07 keeps an active session sess-dev07-legacy.", {REL}),
    # a grant in the passive voice; several targets
    ("exposed", D, "prod-admin-role can be assumed by deploy-role.", set()),
    ("exposed", D, "customer-db is no longer readable by prod-admin-role.", {CON}),
    ("exposed", IAM, "analytics-poweruser can still reach finance-ledger, hr-records and secrets-vault.", {EXP}),
    ("exposed", IAM, "analytics-poweruser can still reach finance-ledger and hr-records.", set()),
    # a trust: a grant to assume, the other way round
    ("exposed", D, "prod-admin-role no longer trusts deploy-role.", {CON}),
    ("exposed", C, "ops-role does not trust console-role.", set()),
    ("exposed", C, "console-role is trusted by ops-role.", {REL}),
    # the paths through an entity
    ("exposed", D, "The open path goes through deploy-role.", set()),
    ("exposed", D, "The open path goes through sess-dev07-legacy.", {REL}),
    ("exposed", D, "The only open path avoids sess-dev07-legacy.", set()),
    ("exposed", C, "Not every open path passes through bastion-01.", set()),
    ("exposed", C, "Not all of the live paths run through contractor_11.", {REL}),
    ("exposed", D, "sess-dev07-legacy is on none of the open paths.", set()),
    ("exposed", C, "contractor_11 is on both paths.", set()),
    ("exposed", C, "bastion-01 is on both paths.", {REL}),
    ("exposed", C, "bastion-01 sits on only one of the paths.", set()),
    ("exposed", D, "deploy-role is on none of the live paths.", {CON}),
    # the paths to a target through an entity (BH-IAM-2001: two paths to finance-ledger, one through data-lake-admin)
    ("exposed", IAM, "Every path to hr-records passes through data-lake-admin.", set()),
    ("exposed", IAM, "Every path to finance-ledger passes through data-lake-admin.", {REL}),
    ("exposed", IAM, "The path to hr-records does not go through data-lake-admin.", {REL}),
    ("exposed", IAM, "The path to finance-ledger does not go through data-lake-admin.", set()),  # which path: unread
    # "that grant" takes the two entities of the clause before it
    ("exposed", IAM, "analytics-poweruser cannot read secrets-vault; that grant is denied.", set()),
    ("exposed", IAM, "analytics-poweruser reads finance-ledger directly; that grant is denied.", {REL}),
    # a step on the paths, the blast radius
    ("exposed", D, "No open path has prod-admin-role reading customer-db.", {REL}),
    ("exposed", D, "Every live path has prod-admin-role reading customer-db.", set()),
    ("exposed", D, "No open path has deploy-role reading build-artifacts.", set()),
    ("exposed", D, "customer-db lies inside developer_07's current blast radius.", set()),
    ("after", D, "customer-db lies inside developer_07's current blast radius.", {FlagKind.WRONG_COUNT}),
    ("after", D, "customer-db now sits outside the blast radius.", set()),
    ("exposed", D, "The blast radius still includes customer-db.", set()),
    ("after", D, "The blast radius still includes customer-db.", {FlagKind.WRONG_COUNT}),
    # a path listed as open
    ("exposed", D, "Paths still live:\n- developer_07 → sess-dev07 → build-runner-07 → deploy-role", set()),
    ("exposed", D, "Paths still live:\n- developer_07 → sess-dev07-legacy → build-runner-07", {EXP}),
    ("after", D, "Paths still live:\n- developer_07 → sess-dev07 → build-runner-07 → deploy-role", {EXP}),
    ("after", D, "Paths the run cut:\n- developer_07 → sess-dev07 → build-runner-07 → deploy-role", set()),
    # a verdict through a verb of naming
    ("exposed", D, "With that path open, the alert cannot yet be regarded as contained.", set()),
    ("after", D, "With that path open, the alert cannot yet be regarded as contained.", {EXP}),
    ("exposed", D, "BH-1042 can now be called contained.", {CON}),
    # "avoids": the paths without the entity are counted ("at least one avoids Z" is "not every path holds Z")
    ("exposed", C, "At least one live path avoids bastion-01.", set()),
    ("exposed", C, "At least one live path avoids contractor_11.", {REL}),
    ("exposed", C, "No live path avoids contractor_11.", set()),
    ("exposed", D, "No live path avoids sess-dev07-legacy.", {REL}),
    ("exposed", C, "At least one open path does not pass through bastion-01.", set()),
    ("exposed", C, "At least one open path does not pass through contractor_11.", {REL}),
    ("exposed", D, "At least one open path avoids deploy-role.", {REL}),
    ("after", D, "An open path still passes through deploy-role.", {REL}),
    ("exposed", D, "An open path still passes through deploy-role.", set()),
    # the count of the paths that run through Z is that claim's quantity, not a count of the live paths
    ("exposed", C, "Only one open path runs via bastion-01.", set()),
    ("exposed", C, "Only one open path runs via contractor_11.", {REL}),
    ("exposed", D, "sess-dev07-legacy appears on an open path.", {EXP}),
    ("exposed", C, "bastion-01 and admin-console each sit on one open path.", set()),
    ("after", C, "bastion-01 and admin-console each sit on one open path.", {EXP}),
    ("exposed", D, "sess-dev07-legacy sits on one open path.", {EXP}),
    ("exposed", D, "sess-dev07-legacy appears on none of the open paths.", set()),
    # membership with the adverb before the verb
    ("exposed", D, "deploy-role still sits on a qualifying path.", set()),
    ("after", D, "deploy-role still sits on a qualifying path.", {EXP}),
    ("exposed", D, "deploy-role no longer sits on any qualifying path.", {CON}),
    # a session route as a class: any of the alert's routes on the path
    ("exposed", D, "The only live path passes through no session route.", {REL}),
    ("exposed", D, "The only live path is carried by a session route.", set()),
    ("exposed", C, "Each of the live paths passes through a session route.", set()),
    ("exposed", C, "No live path passes through a session route.", {REL}),
    # a relative clause takes the entity before "which" as its subject
    ("exposed", D, "build-runner-07 runs as deploy-role, which can assume prod-admin-role.", set()),
    ("after", D, "build-runner-07 runs as deploy-role, which can assume prod-admin-role.", set()),
    ("exposed", C, "admin-console runs as console-role, which can assume ops-role.", {REL}),
    # "that one is denied, blocked or not there": no relationship between the two works; with no two, unread
    ("exposed", C, "console-role cannot assume ops-role; that one is denied or missing.", set()),
    ("exposed", D, "deploy-role cannot assume prod-admin-role; that one is blocked, denied or not there.", {CON, REL}),
    ("exposed", D, "That one is blocked or denied.", set()),
    # "it" after a clause naming a node is that node; "part of" an open path is "on" one
    ("exposed", D, "sess-dev07-legacy is no longer on a path to customer-db; it has been cut off.", set()),
    ("exposed", D, "sess-dev07 is no longer on a path to customer-db; it has been cut off.", {CON}),
    ("after", D, "sess-dev07 is no longer on a path to customer-db; it has been cut off.", set()),
    ("exposed", D, "deploy-role was reviewed, and it is now isolated.", {CON}),
    ("exposed", D, "sess-dev07-legacy is still part of an open path.", {EXP}),
    ("exposed", D, "sess-dev07 is still part of an open path.", set()),
    # no asset of a class in reach (in scope) of an entity
    ("exposed", D, "No critical asset is in scope for developer_07.", {CON}),
    ("after", D, "No critical asset is in scope for developer_07.", set()),
    ("exposed", D, "developer_07 can reach no critical asset.", {CON}),
    ("after", D, "developer_07 can reach no critical asset.", set()),
    # a session by its name or by its route's id ("the session K", K a key's route on an AWS account)
    ("exposed", D, "developer_07 can use the session sess-dev07-legacy directly.", {REL}),
    ("exposed", D, "developer_07 uses the session sess-dev07.", set()),
    ("exposed", D, "developer_07 can use the session route-dev07-a.", set()),
    ("exposed", D, "developer_07 can use the session route-dev07-legacy.", {REL}),
    ("exposed", D, "developer_07 can no longer use the session route-dev07-legacy.", set()),
    ("exposed", D, "If it reopens, developer_07 could use the session route-dev07-legacy.", set()),
    # a chain said to be part of an open path
    ("exposed", D, "developer_07 → sess-dev07 → build-runner-07 is still part of an open qualifying path.", set()),
    ("after", D, "developer_07 → sess-dev07 → build-runner-07 is still part of an open qualifying path.", {EXP}),
    ("exposed", D, "developer_07 → sess-dev07-legacy → build-runner-07 is part of a live path.", {EXP}),
    ("exposed", D, "build-runner-07 → deploy-role is no longer part of any open path.", {CON}),
    # a route said to carry a path; "neither ... nor", "either ... or"
    ("exposed", D, "route-dev07-a still carries an open path.", set()),
    ("after", D, "route-dev07-a still carries an open path.", {EXP}),
    ("exposed", D, "Neither route-dev07-a nor route-dev07-legacy carries an open path now.", {CON}),
    ("after", D, "Neither route-dev07-a nor route-dev07-legacy carries an open path now.", set()),
    ("exposed", D, "Either route-dev07-legacy or route-dev07-a carries an open path.", set()),
    ("after", D, "Either route-dev07-legacy or route-dev07-a carries an open path.", {EXP}),
    # an asset's sensitivity is not the alert's severity (BH-1042 is rated high)
    ("exposed", D, "customer-db is classified critical.", set()),
    ("after", D, "customer-db is classified critical.", set()),
    ("exposed", D, "customer-db is labelled as a high-sensitivity asset.", {SEV}),
    ("exposed", D, "customer-db is not classified low.", set()),
    ("exposed", D, "BH-1042 is classified low.", {SEV}),
    # conditionals and plans make no claim
    ("exposed", D, "If the route were blocked, developer_07 could no longer get to customer-db.", set()),
    ("after", D, "Should it reopen, developer_07 would pass through deploy-role on the way to customer-db.", set()),
]


@pytest.mark.parametrize(("state", "alert", "text", "expected"), CASES)
def test_claims_naming_entities(checks, state, alert, text, expected):
    assert checks["check"](state, alert, text) == expected, text
