"""Hand-written briefings and sentences of the checker's product tests (tests/integration/brief/test_briefing.py).

They are regression tests, and part of what the checker's gate learns its vocabulary from
(tests/helpers/briefing_crossval.py): TRUTHFUL and PLANTED on the seed scenarios as seeded,
EXPOSED_AFTER_RUN on BH-CONTAINMENT-4001 and RUN_SENTENCES on their alerts after a rules run.
"""

from __future__ import annotations

from blastshield_core.brief.checker import BriefingClaims, FlagKind

__all__ = ["EXPOSED_AFTER_RUN", "PLANTED", "RUN_SENTENCES", "TRUTHFUL"]

C4001 = "BH-CONTAINMENT-4001"

TRUTHFUL = [
    ("BH-1042", "Alert BH-1042: developer_07 has risk score 35 (medium severity). One qualifying path: developer_07 "
                "HAS_SESSION sess-dev07, CAN_ACCESS build-runner-07, RUNS_AS deploy-role, CAN_ASSUME prod-admin-role, "
                "CAN_READ customer-db. The alert is not contained."),
    ("BH-1042", "developer_07 is still exposed: 1 qualifying path reaches 1 critical asset, customer-db, in 5 hops. "
                "Blocking route-dev07-a would contain it."),
    ("BH-1042", "The blast radius also holds lint-worker, lint-role, build-artifacts and lint-cache, none of them on a "
                "qualifying path. Severity: medium."),
    ("BH-1042", "Risk 35/100. The legacy session route-dev07-legacy is blocked and sess-dev07-legacy carries no "
                "qualifying path. The 5-hop path remains; a read-only follow-up should review deploy-role."),
    ("BH-IAM-2001", "analytics-poweruser scores 65/100 (high). There are three qualifying paths to two high or critical "
                    "assets: finance-ledger directly via CAN_READ and, through CAN_ASSUME of data-lake-admin, "
                    "finance-ledger and hr-records."),
    ("BH-IAM-2001", "No session route carries these paths, so the role remains exposed until its grants change. "
                    "marketing-assets is reachable but has low sensitivity."),
    ("BH-IAM-2001", "Excessive IAM permissions: wildcard policy on analytics-poweruser. S-wildcard_policy adds 20 "
                    "points under demo-rules-v1."),
    ("BH-WORKLOAD-3001", "public-api-gw is internet-exposed and scores 75, high severity. Three paths reach three "
                         "assets: orders-db, customer-pii and payments-db."),
    ("BH-WORKLOAD-3001", "The shortest path is 2 hops: RUNS_AS api-gw-role, then CAN_READ orders-db; payments-db is 4 "
                         "hops away through orders-svc-role and payments-role. Rule E4-breadth fired."),
    ("BH-WORKLOAD-3001", "Blast radius: 3 IAM roles and 4 data assets, including status-page-assets. The workload "
                         "remains at risk."),
    ("BH-CONTAINMENT-4001", "contractor_11 (score 60, severity high) reaches payments-vault over 2 qualifying paths: "
                            "via sess-c11-vpn and bastion-01, and via sess-c11-sso, admin-console, console-role and "
                            "payments-reader."),
    ("BH-CONTAINMENT-4001", "Both route-c11-primary and route-c11-alternate are active; route-c11-stale is already "
                            "blocked. The alert is not yet contained."),
    ("BH-CONTAINMENT-4001", "If both routes were blocked, no qualifying path would remain. Candidate "
                            "block-route:route-c11-primary cuts 1 of 2 paths."),
    ("BH-1042", "There is no path at depth 4; at depth 6 there is one, the highest-risk 5-hop chain. Playbook v1.2 "
                "applies until route-dev07-a is blocked."),
    ("BH-WORKLOAD-3001", "Of the 4 data assets in the blast radius, 3 are high or critical; status-page-assets is low. "
                         "1 critical asset and 2 high assets are reachable."),
    ('BH-1042', '## Summary\nAlert **BH-1042** flags `developer_07`, who signed in off-hours. The computed risk score is 35/100 (medium severity) under demo-rules-v1.\n\n## Access path\nA single qualifying path (5 hops) leads from developer_07 to the critical asset customer-db:\ndeveloper_07 → sess-dev07 → build-runner-07 → deploy-role → prod-admin-role → customer-db\n(HAS_SESSION, CAN_ACCESS, RUNS_AS, CAN_ASSUME, CAN_READ).\n\n## Containment\nThe alert is **not contained**. Two session routes carry the path: route-dev07-a and route-dev07-build; blocking either one would cut it. The legacy route (route-dev07-legacy) is already blocked.\n\n## Recommendation\nBlock route-dev07-a, then re-run the investigation to confirm that no qualifying path remains.'),
    ('BH-IAM-2001', 'analytics-poweruser holds a wildcard policy and scores 65 (high). Three qualifying paths reach two sensitive assets: finance-ledger (critical) directly via CAN_READ, and finance-ledger and hr-records through data-lake-admin (CAN_ASSUME, then CAN_READ).\nNo session route carries these paths, so a route block cannot contain this alert; the grants themselves must change. Until then the role remains exposed.'),
    ('BH-WORKLOAD-3001', 'public-api-gw is reachable from the internet and scores 75/100, severity high. It runs as api-gw-role, which reads orders-db and can assume orders-svc-role (customer-pii) and, through it, payments-role (payments-db).\nThat is 3 qualifying paths to 3 high or critical assets. There is no session route to block; the exposure persists until the role chain is narrowed.'),
    ('BH-CONTAINMENT-4001', 'contractor_11 is active from two locations (score 60, high). Two independent paths lead to payments-vault: via sess-c11-vpn and bastion-01 (ops-role), and via sess-c11-sso, admin-console, console-role and payments-reader.\nBoth route-c11-primary and route-c11-alternate are active and each carries one path; route-c11-stale was blocked earlier. Blocking both active routes is required to contain the alert.'),
    ("BH-CONTAINMENT-4001", BriefingClaims(
        entity_ids=["contractor_11", "payments-vault", "ops-role", "sess-c11-sso"],
        relationship_types=["HAS_SESSION", "CAN_ACCESS", "RUNS_AS", "CAN_ASSUME", "CAN_READ"],
        risk_score=60, severity="high", path_count=2, asset_count=1, containment_state="exposed",
        prose="Two independent paths remain from contractor_11 to payments-vault.")),
    ("BH-WORKLOAD-3001", BriefingClaims(
        entity_ids=["public-api-gw", "api-gw-role", "status-page-assets"], relationship_types=["RUNS_AS", "CAN_READ"],
        risk_score=75, severity="high", path_count=3, asset_count=3, containment_state="exposed",
        prose="public-api-gw still reaches payments-db through payments-role.")),
    ("BH-IAM-2001", BriefingClaims(
        entity_ids=["analytics-poweruser", "hr-records"], risk_score=65, severity="high", path_count=3,
        asset_count=2, containment_state="exposed", prose="")),
]  # fmt: skip

PLANTED = [
    ("BH-1042", "developer_O7 has one qualifying path to customer-db.", FlagKind.UNKNOWN_ENTITY),
    ("BH-1042", "developer_07 can reach customer-dbs through prod-admin-role.", FlagKind.UNKNOWN_ENTITY),
    ("BH-CONTAINMENT-4001", "contractor_11 reached payments-vault via bastion-02.", FlagKind.UNKNOWN_ENTITY),
    ("BH-IAM-2001", "analytics-poweruser can also read customer-db.", FlagKind.UNKNOWN_ENTITY),
    ("BH-1042", "developer_07 has a risk score of 53 (medium severity).", FlagKind.WRONG_SCORE),
    ("BH-IAM-2001", "analytics-poweruser scored 56 under demo-rules-v1.", FlagKind.WRONG_SCORE),
    ("BH-1042", "Severity: high. developer_07 reaches customer-db.", FlagKind.WRONG_SEVERITY),
    ("BH-WORKLOAD-3001", BriefingClaims(severity="critical", prose="public-api-gw reaches payments-db."),
     FlagKind.WRONG_SEVERITY),
    ("BH-IAM-2001", "analytics-poweruser -[CAN_WRITE]-> finance-ledger is the shortest path.",
     FlagKind.UNKNOWN_RELATIONSHIP),
    ("BH-WORKLOAD-3001", "public-api-gw reaches orders-db via HAS_SESSION.", FlagKind.UNKNOWN_RELATIONSHIP),
    ("BH-IAM-2001", "analytics-poweruser has five qualifying paths.", FlagKind.WRONG_COUNT),
    ("BH-1042", "developer_07 has two paths to customer-db.", FlagKind.WRONG_COUNT),
    ("BH-WORKLOAD-3001", "public-api-gw reaches 2 high or critical assets.", FlagKind.WRONG_COUNT),
    ("BH-CONTAINMENT-4001", BriefingClaims(path_count=1, prose=""), FlagKind.WRONG_COUNT),
    ("BH-CONTAINMENT-4001", "contractor_11 is contained.", FlagKind.FALSE_CONTAINMENT),
    ("BH-CONTAINMENT-4001", "Access was cut off: no remaining paths to payments-vault.", FlagKind.FALSE_CONTAINMENT),
    ("BH-CONTAINMENT-4001", "We blocked all routes for contractor_11.", FlagKind.FALSE_CONTAINMENT),
    ("BH-1042", "The alert is fully mitigated.", FlagKind.FALSE_CONTAINMENT),
    ("BH-WORKLOAD-3001", "public-api-gw is no longer exposed.", FlagKind.FALSE_CONTAINMENT),
    ("BH-1042", "No access remains for developer_07.", FlagKind.FALSE_CONTAINMENT),
    ("BH-IAM-2001", BriefingClaims(containment_state="contained", prose=""), FlagKind.FALSE_CONTAINMENT),
    ("BH-CONTAINMENT-4001", "The threat is neutralized.", FlagKind.FALSE_CONTAINMENT),
    ("BH-CONTAINMENT-4001", "contractor_11 can no longer reach payments-vault.", FlagKind.FALSE_CONTAINMENT),
    ("BH-CONTAINMENT-4001", "All access was revoked for contractor_11.", FlagKind.FALSE_CONTAINMENT),
    ("BH-1042", "developer_07 is now isolated.", FlagKind.FALSE_CONTAINMENT),
    ("BH-IAM-2001", "analytics-poweruser -CAN_WRITE-> finance-ledger.", FlagKind.UNKNOWN_RELATIONSHIP),
    ("BH-IAM-2001", "analytics-poweruser reaches hr-records via can write.", FlagKind.UNKNOWN_RELATIONSHIP),
    ("BH-CONTAINMENT-4001", "contractor_11's sessions have been shut down.", FlagKind.FALSE_CONTAINMENT),
    ("BH-CONTAINMENT-4001", "The exposure is over.", FlagKind.FALSE_CONTAINMENT),
    ("BH-1042", "developer_07's access was rescinded.", FlagKind.FALSE_CONTAINMENT),
    ("BH-CONTAINMENT-4001", "console-role can assume ops-role directly.", FlagKind.WRONG_RELATIONSHIP),
    ("BH-CONTAINMENT-4001", "Both paths run through bastion-01.", FlagKind.WRONG_RELATIONSHIP),
]  # fmt: skip

# Claims of exposure after BH-CONTAINMENT-4001's completed rules run: each is a false_exposure.
EXPOSED_AFTER_RUN = [
    "contractor_11 remains exposed.",
    "Qualifying paths still remain for contractor_11.",
    "contractor_11 can still reach payments-vault.",
    "The alert is not contained.",
    "payments-vault is exposed through two independent sessions.",
]

# What a run did, said of the run: BH-IAM-2001's rules run stops (no session route to block, 3 paths
# remain), BH-CONTAINMENT-4001's completes (both routes blocked, no path). Only a fresh "no qualifying
# path" completes a run, so "the run completed" of a stopped run is a claim of containment.
RUN_SENTENCES = [
    ("BH-IAM-2001", "The run ended with paths remaining.", None),
    ("BH-IAM-2001", "The run stopped after no action; three qualifying paths remain.", None),
    ("BH-IAM-2001", "The rules run cut no path: the alert is not contained.", None),
    ("BH-IAM-2001", "The run has stopped, and the exposure continues.", None),
    ("BH-IAM-2001", "The run completed.", FlagKind.FALSE_CONTAINMENT),
    ("BH-IAM-2001", "The containment run has completed after checking every route.", FlagKind.FALSE_CONTAINMENT),
    ("BH-IAM-2001", "The run stopped the exposure.", FlagKind.FALSE_CONTAINMENT),  # a claim about the exposure
    (C4001, "The run completed after two verified actions.", None),
    (C4001, "The run has not stopped early: it completed.", None),
    (C4001, "The run ended with paths remaining.", FlagKind.FALSE_EXPOSURE),
]
