"""Hand-written briefing sentences of the third round (issue 31), written before the checker changed for them.

Five categories: Markdown structure read as claims, verdicts about risk or
safety, emptiness claims, actions on other entities claimed as the cause of
containment, and unfamiliar names that read as entity ids. Each case names its
scenario and state ("exposed": as seeded; "after-run": after a rules run, when
BH-1042 and BH-CONTAINMENT-4001 are contained), and the flag kinds that catch it
(any one of them), or None for a truthful control of the same shape.

`python -m tests.helpers.briefing_handwritten` prints recall and false flags per category.
"""

from __future__ import annotations

from blastshield_core.brief.checker import FlagKind

D, I, W, C = "BH-1042", "BH-IAM-2001", "BH-WORKLOAD-3001", "BH-CONTAINMENT-4001"  # noqa: E741
E, R = "exposed", "after-run"
FC = (FlagKind.FALSE_CONTAINMENT,)
FE = (FlagKind.FALSE_EXPOSURE,)
FCC = (FlagKind.FALSE_CONTAINMENT, FlagKind.WRONG_COUNT)
FEC = (FlagKind.FALSE_EXPOSURE, FlagKind.WRONG_COUNT)
UE = (FlagKind.UNKNOWN_ENTITY,)
OK = None
CATEGORIES = ("structure", "verdict", "emptiness", "action", "name")

STRUCTURE = [
    (D, E, "| state | contained |", FC),
    (C, E, "| Status | Contained |", FC),
    (I, E, "| Containment | achieved |", FC),
    (W, E, "| Field | Value |\n|---|---|\n| containment_state | contained |", FC),
    (C, E, "| Alert | State |\n|---|---|\n| BH-CONTAINMENT-4001 | Contained |", FC),
    (D, E, "| Alert | Paths | Verdict |\n|---|---|---|\n| BH-1042 | 1 | safe |", FC),
    (W, E, "## Verdict\nContained.", FC),
    (I, E, "### Containment status\n**Contained**", FC),
    (C, E, "## Outcome\n\nFully contained.", FC),
    (D, E, "## Status\nAll clear.", FC),
    (W, E, "Status: contained", FC),
    (I, E, "- **Risk:** none", FC),
    (C, E, "**Containment:** complete", FC),
    (D, E, "State = contained", FC),
    (W, E, "* Exposure status: closed", FC),
    (C, E, "Verdict: **safe**", FC),
    (D, E, "**CONTAINED**", FC),
    (I, E, "The alert is **contained**.", FC),
    (W, E, "**Contained.** No further action is needed.", FC),
    (C, E, "Contained: yes", FC),
    (D, E, "Exposed: no", FC),
    (I, E, "- Current state: resolved", FC),
    (W, E, "| Risk | None |", FC),
    (C, E, "| containment | ✅ |", FC),
    (D, E, "Outcome: the exposure is closed.", FC),
    (I, E, "### Verdict\nSafe.", FC),
    (W, E, "## Bottom line\nNo longer exposed.", FC),
    (C, E, "Result: contained", FC),
    (D, E, "> **Status:** Contained", FC),
    (I, E, "1. Containment: done", FC),
    (W, E, "| Check | Result |\n|---|---|\n| Qualifying paths | 0 |", FCC),
    (C, E, "Remaining paths: none", FCC),
    (D, E, "**Risk level:** none", FC),
    (I, E, "## Conclusion\nThe role is contained.", FC),
    (W, E, "Containment state: **contained**", FC),
    (C, E, "| route-c11-primary | blocked |", FC),
    (D, E, "| Session | Status |\n|---|---|\n| sess-dev07 | revoked |", FC),
    (W, E, "Threat: neutralised", FC),
    (I, E, "## Assessment\nResolved.", FC),
    (C, E, "TL;DR: contained.", FC),
    (D, E, "- **Exposure:** eliminated", FC),
    (C, E, "Overall: secure", FC),
    (I, E, "| Alert | Containment |\n|:--|:--|\n| BH-IAM-2001 | yes |", FC),
    (D, R, "| state | exposed |", FE),
    (C, R, "Status: open", FE),
    (D, R, "## Verdict\nNot contained.", FE),
    (C, R, "**NOT CONTAINED**", FE),
    (D, R, "Contained: no", FE),
    (C, R, "- **Exposure:** ongoing", FE),
    (D, R, "| Containment | pending |", FE),
    (C, R, "Containment state: exposed", FE),
    (D, R, "### Status\nStill exposed.", FE),
    (C, R, "| route-c11-primary | active |", FE),
    # truthful controls of the same shapes
    (D, E, "| state | exposed |", OK),
    (C, E, "| Status | Not contained |", OK),
    (I, E, "Status: exposed", OK),
    (I, E, "- **Risk:** high", OK),
    (W, E, "Risk: high", OK),
    (D, E, "Risk: medium", OK),
    (W, E, "## Verdict\nExposed.", OK),
    (C, E, "## Verdict\nNot contained.", OK),
    (D, E, "**NOT CONTAINED**", OK),
    (I, E, "Contained: no", OK),
    (W, E, "Exposed: yes", OK),
    (C, E, "| route-c11-stale | blocked |", OK),
    (C, E, "| route-c11-primary | active |", OK),
    (D, E, "| Alert | Paths | Verdict |\n|---|---|---|\n| BH-1042 | 1 | exposed |", OK),
    (C, E, "Severity: high", OK),
    (I, E, "| Field | Value |\n|---|---|\n| Risk score | 65 |\n| Severity | high |", OK),
    (W, E, "Containment: not achieved", OK),
    (D, E, "## Status\nOpen.", OK),
    (C, E, "### Containment status\nPending.", OK),
    (W, E, "Qualifying paths: 3", OK),
    (C, E, "Remaining paths: 2", OK),
    (D, E, "**Recommendation:** block route-dev07-a", OK),
    (I, E, "Next step: revoke the wildcard policy.", OK),
    (D, E, "## Summary\nOne qualifying path remains.", OK),
    (I, R, "Outcome: still exposed", OK),
    (W, E, "| Asset | Sensitivity |\n|---|---|\n| payments-db | critical |\n| orders-db | high |", OK),
    (D, R, "| state | contained |", OK),
    (C, R, "Status: contained", OK),
    (D, R, "## Verdict\nContained.", OK),
    (C, R, "**CONTAINED**", OK),
    (D, R, "- **Risk:** none", OK),
    (C, R, "Exposed: no", OK),
    (C, R, "| route-c11-primary | blocked |", OK),
    (D, R, "Remaining paths: 0", OK),
    (C, R, "Risk: low", OK),
    (C, R, "| Check | Result |\n|---|---|\n| Qualifying paths | 0 |", OK),
]

VERDICT = [
    (D, E, "developer_07 no longer poses any risk.", FC),
    (C, E, "Risk: none.", FC),
    (W, E, "All clear.", FC),
    (I, E, "finance-ledger is secured.", FC),
    (C, E, "payments-vault is safe now.", FC),
    (D, E, "There is no further danger.", FC),
    (W, E, "The gateway no longer presents a risk to orders-db.", FC),
    (I, E, "The risk has passed.", FC),
    (C, E, "contractor_11 is harmless now.", FC),
    (D, E, "customer-db is out of danger.", FC),
    (W, E, "There is zero risk to customer-pii.", FC),
    (I, E, "analytics-poweruser is no longer a risk.", FC),
    (C, E, "The vault is fully secured.", FC),
    (D, E, "We are in the clear.", FC),
    (W, E, "The environment is safe.", FC),
    (I, E, "No residual risk remains.", FC),
    (C, E, "The danger is over.", FC),
    (D, E, "Nothing to worry about: customer-db is safe.", FC),
    (W, E, "public-api-gw no longer endangers the data tier.", FC),
    (I, E, "The ledger is no longer at risk.", FC),
    (C, E, "There is no longer any threat to payments-vault.", FC),
    (D, E, "The threat has been fully neutralised and the database is safe.", FC),
    (W, E, "Risk is now negligible.", FC),
    (I, E, "hr-records is protected.", FC),
    (C, E, "The coast is clear.", FC),
    (D, E, "developer_07 presents no danger anymore.", FC),
    (W, E, "orders-db is no longer vulnerable.", FC),
    (I, E, "The wildcard grant no longer poses a threat.", FC),
    (C, E, "contractor_11 is not a threat anymore.", FC),
    (D, E, "The situation is safe.", FC),
    (W, E, "Customer data is secure.", FC),
    (I, E, "Risk: eliminated.", FC),
    (C, E, "No risk remains to payments-vault.", FC),
    (D, E, "The risk is gone.", FC),
    (W, E, "The data tier is out of harm's way.", FC),
    (I, E, "finance-ledger is no longer in danger.", FC),
    (C, E, "All risk has been removed.", FC),
    (D, E, "The alert is risk-free now.", FC),
    (W, E, "payments-db is safe from the gateway.", FC),
    (I, E, "There is no more danger to hr-records.", FC),
    (C, E, "We are safe.", FC),
    (D, E, "The exposure no longer poses any danger.", FC),
    (D, R, "developer_07 still poses a risk to customer-db.", FE),
    (C, R, "payments-vault is not safe yet.", FE),
    (D, R, "customer-db remains in danger.", FE),
    (C, R, "The vault is still vulnerable.", FE),
    (D, R, "The danger persists.", FE),
    (C, R, "contractor_11 remains a threat.", FE),
    (D, R, "customer-db is unsafe.", FE),
    (C, R, "payments-vault is not yet secured.", FE),
    # truthful controls
    (D, E, "developer_07 still poses a risk to customer-db.", OK),
    (C, E, "payments-vault is not safe yet.", OK),
    (W, E, "The risk remains.", OK),
    (I, E, "finance-ledger is still at risk.", OK),
    (W, E, "The gateway remains a threat to orders-db.", OK),
    (W, E, "status-page-assets poses no risk.", OK),
    (C, E, "The danger is ongoing.", OK),
    (D, E, "customer-db is not secure.", OK),
    (C, E, "Nothing is safe until both routes are blocked.", OK),
    (C, E, "The vault would be safe if both routes were blocked.", OK),
    (I, E, "Risk: high", OK),
    (W, E, "The risk is high.", OK),
    (D, E, "lint-cache is safe: no qualifying path reaches it.", OK),
    (D, E, "It is not yet safe to close the alert.", OK),
    (I, E, "There is still a risk to hr-records.", OK),
    (I, E, "The ledger is in danger.", OK),
    (C, E, "contractor_11 is a threat to payments-vault.", OK),
    (W, R, "The data tier is still at risk.", OK),
    (I, R, "analytics-poweruser still poses a risk.", OK),
    (D, R, "developer_07 no longer poses any risk.", OK),
    (C, R, "All clear.", OK),
    (C, R, "payments-vault is safe now.", OK),
    (D, R, "There is no further danger.", OK),
    (C, R, "The coast is clear.", OK),
    (D, R, "customer-db is secured.", OK),
    (C, R, "Risk: none", OK),
    (D, R, "The danger is over.", OK),
]

EMPTINESS = [
    (D, E, "The blast radius is now empty.", FCC),
    (C, E, "Nothing is reachable.", FCC),
    (W, E, "Zero assets exposed.", FCC),
    (I, E, "No assets are exposed.", FCC),
    (D, E, "The blast radius holds no assets.", FCC),
    (C, E, "No data asset can be reached.", FCC),
    (W, E, "Not a single asset is reachable.", FCC),
    (I, E, "The blast radius shrank to zero.", FCC),
    (D, E, "0 assets at risk.", FCC),
    (C, E, "There are no reachable assets.", FCC),
    (W, E, "The list of exposed assets is empty.", FCC),
    (I, E, "No sensitive data is reachable.", FCC),
    (D, E, "Reachable assets: none.", FCC),
    (C, E, "The path count is now zero.", FCC),
    (W, E, "There are zero qualifying paths.", FCC),
    (I, E, "Not one path remains.", FCC),
    (D, E, "The blast radius is empty after the fresh query.", FCC),
    (C, E, "The blast radius contains nothing.", FCC),
    (W, E, "No asset remains exposed.", FCC),
    (I, E, "The number of reachable assets is zero.", FCC),
    (D, E, "Nothing is exposed anymore.", FCC),
    (C, E, "Nothing in the blast radius is reachable.", FCC),
    (W, E, "The set of reachable assets is empty.", FCC),
    (I, E, "None of the assets is reachable.", FCC),
    (D, E, "Zero paths, zero assets.", FCC),
    (C, E, "The blast radius has been reduced to nothing.", FCC),
    (W, E, "No high or critical asset is exposed.", FCC),
    (I, E, "The exposed-asset count is 0.", FCC),
    (D, E, "No data is exposed.", FCC),
    (C, E, "The blast radius is clean.", FCC),
    (W, E, "All assets are now unreachable.", FCC),
    (I, E, "Not a single path is left.", FCC),
    (D, E, "Every asset is out of reach.", FCC),
    (C, E, "No paths, no assets.", FCC),
    (W, E, "The blast radius is empty.", FCC),
    (I, E, "No qualifying paths were found by the fresh query.", FCC),
    (D, E, "Blast radius: empty.", FCC),
    (C, E, "Nothing can be reached from contractor_11.", FCC),
    (W, E, "There is nothing left in the blast radius.", FCC),
    (I, E, "The qualifying path list is empty.", FCC),
    (D, E, "Zero reachable assets remain.", FCC),
    (D, R, "The blast radius still holds 3 assets.", FEC),
    (C, R, "The blast radius is not empty.", FEC),
    (D, R, "customer-db is still in the blast radius.", FEC),
    (C, R, "Three assets are still exposed.", FEC),
    (D, R, "The blast radius still contains data assets.", FEC),
    (C, R, "One path is left.", FEC),
    (D, R, "Assets remain exposed.", FEC),
    # truthful controls
    (D, E, "The blast radius still holds 3 assets.", OK),
    (C, E, "The blast radius is not empty.", OK),
    (D, E, "The blast radius still holds 8 entities.", OK),
    (D, E, "1 asset is exposed.", OK),
    (W, E, "Three assets are reachable.", OK),
    (W, E, "No low-sensitivity asset is on a qualifying path.", OK),
    (W, E, "The list of blocked routes is empty.", OK),
    (W, E, "No route is blocked.", OK),
    (I, E, "There are two reachable assets.", OK),
    (W, E, "The blast radius holds four data assets.", OK),
    (I, E, "Zero routes were blocked.", OK),
    (W, E, "status-page-assets is not reachable through a qualifying path.", OK),
    (W, E, "The path count is 3.", OK),
    (C, E, "None of the blocked routes carries a path.", OK),
    (I, R, "The blast radius still holds 3 data assets.", OK),
    (D, R, "The blast radius is now empty.", OK),
    (C, R, "Nothing is reachable.", OK),
    (D, R, "Zero assets exposed.", OK),
    (C, R, "No assets are exposed.", OK),
    (D, R, "The path count is now zero.", OK),
    (C, R, "Reachable assets: none.", OK),
    (C, R, "The blast radius is empty.", OK),
    (C, R, "There are zero qualifying paths.", OK),
    (D, R, "Nothing in the blast radius is reachable.", OK),
]

ACTION = [
    (D, E, "We took the build runner offline, ending the exposure.", FC),
    (D, E, "The legacy session was revoked, which ended the exposure.", FC),
    (W, E, "Rotating api-gw-role's keys closed the gap.", FC),
    (I, E, "We detached data-lake-admin, and the exposure is over.", FC),
    (C, E, "Blocking route-c11-stale ended the exposure.", FC),
    (D, E, "lint-worker was shut down, cutting off access to customer-db.", FC),
    (W, E, "The orders service role was disabled, ending all access.", FC),
    (C, E, "We terminated the sso session; this eliminated the exposure.", FC),
    (I, E, "Removing the wildcard policy closed all three paths.", FC),
    (D, E, "After we isolated build-runner-07, the threat was gone.", FC),
    (W, E, "Disabling the gateway's role stopped the exposure.", FC),
    (C, E, "Our team killed bastion-01, so access to payments-vault has ended.", FC),
    (D, E, "deploy-role was detached, which removed the path.", FC),
    (I, E, "The analyst revoked hr-records access, and with that the alert was resolved.", FC),
    (C, E, "We quarantined admin-console, ending contractor_11's reach.", FC),
    (W, E, "payments-role was deleted, closing the last path.", FC),
    (D, E, "We rotated the deploy key, which neutralised the risk.", FC),
    (I, E, "Taking data-lake-admin out of the trust policy ended the exposure.", FC),
    (C, E, "The VPN session was terminated and the exposure ended with it.", FC),
    (D, E, "We disabled lint-role, thereby ending the exposure.", FC),
    (W, E, "By stripping api-gw-role, we eliminated the exposure.", FC),
    (C, E, "Shutting down console-role cut off the last route.", FC),
    (D, E, "The build runner is offline now, so the exposure is over.", FC),
    (I, E, "We locked the finance-ledger bucket, ending the risk.", FC),
    (W, E, "The gateway was taken offline, which contained the alert.", FC),
    (C, E, "Revoking the primary route's session closed the incident.", FC),
    (D, E, "We suspended prod-admin-role, and nothing reaches customer-db any more.", FC),
    (I, E, "Pulling the CAN_ASSUME grant from analytics-poweruser severed every path.", FC),
    (W, E, "orders-svc-role has been decommissioned, ending the exposure of customer-pii.", FC),
    (C, E, "We shut bastion-01 down, which took care of the exposure.", FC),
    (D, E, "sess-dev07-legacy was terminated, which resolved the incident.", FC),
    (I, E, "Deleting data-lake-admin made the ledger unreachable.", FC),
    (W, E, "We isolated public-api-gw from the internet, closing the exposure.", FC),
    (C, E, "The ops-role was detached and the exposure ended.", FC),
    (D, E, "Killing lint-worker ended developer_07's access.", FC),
    (I, E, "We narrowed the wildcard policy; the exposure is closed.", FC),
    (W, E, "Quarantining payments-role removed the risk.", FC),
    (C, E, "route-c11-stale was blocked, which closed the exposure.", FC),
    (D, E, "We unplugged the build runner, and that ended the threat.", FC),
    (I, E, "The analyst disabled marketing-assets, ending the exposure.", FC),
    (W, E, "We revoked status-page-assets, which contained the alert.", FC),
    (C, E, "Terminating sess-c11-stale stopped the exposure.", FC),
    (D, R, "Blocking route-dev07-a did not end the exposure.", FE),
    (C, R, "We blocked both routes, but the exposure continues.", FE),
    (D, R, "The run blocked route-dev07-a, yet the path remains.", FE),
    (C, R, "Blocking route-c11-primary left the vault exposed.", FE),
    # truthful controls
    (D, E, "We took the build runner offline, but the exposure continues.", OK),
    (C, E, "Blocking route-c11-stale did not end the exposure.", OK),
    (W, E, "Revoking api-gw-role would end the exposure.", OK),
    (I, E, "If we detached data-lake-admin, the exposure would end.", OK),
    (D, E, "Blocking route-dev07-a would cut the only path.", OK),
    (C, E, "route-c11-stale was blocked earlier, but the exposure continues.", OK),
    (D, E, "Disabling lint-worker did not change the exposure.", OK),
    (W, E, "Taking the gateway offline would contain the alert.", OK),
    (I, E, "Removing the wildcard policy is the only way to end the exposure.", OK),
    (W, E, "We have not revoked any role, so the exposure continues.", OK),
    (D, E, "The legacy session was revoked before this alert; the exposure continues through sess-dev07.", OK),
    (C, E, "route-c11-stale was blocked, but that did not end the exposure.", OK),
    (D, R, "The run blocked route-dev07-a, ending the exposure.", OK),
    (C, R, "Blocking route-c11-primary and route-c11-alternate ended the exposure.", OK),
    (D, R, "We revoked sess-dev07, which closed the last path.", OK),
    (C, R, "The run blocked both routes, and the exposure is over.", OK),
    (D, R, "Blocking route-dev07-a cut the only path.", OK),
    (C, R, "We terminated the sso session, ending the exposure.", OK),
    (I, R, "The run changed nothing, and the exposure continues.", OK),
    (W, R, "No route could be blocked, so the gateway remains exposed.", OK),
]

NAME = [
    (D, E, "customer-db-replica is also reachable.", UE),
    (C, E, "The path ends at payments-vault-backup.", UE),
    (W, E, "orders-db-replica holds a copy of the orders.", UE),
    (I, E, "finance-ledger-archive is readable by the role.", UE),
    (D, R, "A snapshot, customer-db-snapshot, was taken before the run.", UE),
    (C, E, "contractor_11 also used sess-c11-backup.", UE),
    (W, E, "api-gw-role-v2 is attached to the gateway.", UE),
    (I, E, "The role can also read hr-records-mirror.", UE),
    (D, E, "arn:aws:iam::123456789012:role/deploy-role grants the access.", UE),
    (C, E, "The vault is arn:aws:s3:::payments-vault.", UE),
    (W, E, "payments-db-primary is the target.", UE),
    (I, E, "data-lake-admin-role trusts the poweruser.", UE),
    (D, E, "prod-customer-db is the asset at risk.", UE),
    (C, E, "bastion-host-01 forwards the session.", UE),
    (W, E, "billing-db is also exposed.", UE),
    (I, E, "The analytics_reader role is involved.", UE),
    (D, E, "The runner build-runner-prod is involved.", UE),
    (C, E, "ops-role-legacy also reaches payments-vault.", UE),
    (W, E, "orders-svc-role-admin is on the path.", UE),
    (I, E, "hr-records-export is reachable.", UE),
    (D, R, "customer-db-backup was restored after the run.", UE),
    (C, R, "payments-vault-dr is still listed.", UE),
    (W, R, "customer-pii-staging is also reachable.", UE),
    (I, R, "finance-ledger-replica is reachable through data-lake-admin.", UE),
    (D, E, "sess-dev07-old carries a second path.", UE),
    (C, E, "The sso session sess-sso-contractor carries one path.", UE),
    (W, E, "analytics-db is not part of this alert.", UE),
    (I, E, "ledger-admin can assume data-lake-admin.", UE),
    (D, E, "build-runner-staging runs as deploy-role.", UE),
    (C, E, "admin-console-prod is on the second path.", UE),
    (W, E, "payments_role is the last hop.", UE),
    (I, E, "arn:aws:iam::role/analytics-poweruser has the wildcard policy.", UE),
    (D, E, "customer-db.replica is reachable.", UE),
    (C, E, "payments-vault.internal is the target host.", UE),
    (W, E, "orders-db-reader is also on the path.", UE),
    (I, E, "finance-ledger-v2 is critical.", UE),
    (D, E, "The session sess-dev-backup is active.", UE),
    (C, E, "console-role-backup mirrors console-role.", UE),
    (W, E, "public-api-gw-canary serves the same traffic.", UE),
    (I, E, "hr-db is critical.", UE),
    (D, E, "deploy-role-prod can assume prod-admin-role.", UE),
    (C, E, "bastion-02-replica is on the path.", UE),
    (W, E, "customer-pii-backup is reachable.", UE),
    (I, E, "marketing-assets-cdn is low sensitivity.", UE),
    (D, R, "prod-admin-role-break-glass was also revoked.", UE),
    # truthful controls: ordinary hyphenated English next to real ids
    (D, E, "developer_07 signed in off-hours from an unusual location.", OK),
    (I, E, "The role has cross-account access to finance-ledger.", OK),
    (W, E, "The gateway's role is not read-only.", OK),
    (C, E, "contractor_11 is a third-party contractor with a time-boxed session.", OK),
    (D, E, "A follow-up review of deploy-role is recommended.", OK),
    (I, E, "The wildcard policy is a well-known anti-pattern.", OK),
    (W, E, "public-api-gw is internet-facing and runs as api-gw-role.", OK),
    (C, E, "Use least-privilege roles for the contractor.", OK),
    (D, E, "The 5-hop path is a multi-step chain.", OK),
    (I, E, "finance-ledger holds business-critical data.", OK),
    (W, E, "customer-pii is a high-sensitivity asset.", OK),
    (C, E, "Re-run the investigation after each change.", OK),
    (D, E, "The session was set up by a self-service portal.", OK),
    (I, E, "Cross-role trust lets analytics-poweruser assume data-lake-admin.", OK),
    (W, E, "The gateway is publicly reachable, a worst-case exposure.", OK),
    (C, E, "bastion-01 is a jump-host for ops-role.", OK),
    (D, E, "The build-runner role chain is long.", OK),
    (I, E, "This is a read-write grant on hr-records.", OK),
    (W, E, "orders-svc-role has a one-to-many trust.", OK),
    (C, E, "The stale route was blocked as a clean-up step.", OK),
    (D, R, "The run blocked route-dev07-a in real-time.", OK),
    (C, R, "Both routes were blocked by the rules-based decider.", OK),
    (W, E, "The data tier sits behind an API gateway with role-based access.", OK),
    (I, E, "Point-in-time recovery is enabled on finance-ledger.", OK),
    (C, E, "A man-in-the-middle attack is not indicated.", OK),
    (D, E, "developer_07 used a non-standard client.", OK),
    (W, E, "The end-to-end path has 4 hops.", OK),
    (I, E, "The grant is account-wide.", OK),
    (C, E, "ops-role is a break-glass role.", OK),
    (W, E, "An on-call engineer should review api-gw-role.", OK),
    (D, E, "customer-db is a production database with write-ahead logging.", OK),
    (I, E, "The poweruser role is over-privileged.", OK),
    (C, E, "The contractor's sign-in came from two geo-locations.", OK),
    (W, E, "The gateway is a multi-tenant service.", OK),
    (D, E, "The alert fired on an out-of-hours sign-in.", OK),
    (W, E, "payments-db is a PCI-scoped, business-critical store.", OK),
    (I, E, "Use short-lived credentials for the role.", OK),
    (C, E, "The second path is a two-step hand-off through admin-console.", OK),
    (D, E, "Lint-worker is unrelated to the exposure.", OK),
    (I, R, "The role's access is account-level, not resource-level.", OK),
]

CASES = [
    (category, alert, state, text, kinds)
    for category, rows in zip(CATEGORIES, (STRUCTURE, VERDICT, EMPTINESS, ACTION, NAME), strict=True)
    for alert, state, text, kinds in rows
]


def measure(check) -> tuple[dict[str, list[int]], list[tuple]]:
    """Per category: [false caught, false total, truthful flagged, truthful total]; and the wrong cases."""
    scores = {c: [0, 0, 0, 0] for c in (*CATEGORIES, "all")}
    wrong = []
    for category, alert, state, text, kinds in CASES:
        flags = check(alert, state, text)
        got = {f.kind for f in flags}
        for key in (category, "all"):
            sc = scores[key]
            if kinds is None:
                sc[3] += 1
                sc[2] += bool(flags)
            else:
                sc[1] += 1
                sc[0] += bool(got & set(kinds))
        if (kinds is None and flags) or (kinds is not None and not got & set(kinds)):
            wrong.append((category, alert, state, text, kinds, flags))
    return scores, wrong


def table(scores: dict[str, list[int]]) -> str:
    rows = ["| category | recall (false) | false flags (truthful) |", "|---|---|---|"]
    for key, (caught, false_total, flagged, true_total) in scores.items():
        rows.append(
            f"| {key} | {caught / false_total:.1%} ({caught}/{false_total}) |"
            f" {flagged / true_total:.1%} ({flagged}/{true_total}) |"
        )
    return "\n".join(rows)


def main() -> None:  # pragma: no cover - prints the table for docs/briefings.md
    import tempfile
    import uuid

    from blastshield_core.base.settings import load_settings
    from blastshield_core.brief.checker import check_text
    from blastshield_core.graph.store import Store
    from tests.integration.brief.test_briefing_corpus import build_evidence

    store = Store(load_settings(environ={}, data_dir=tempfile.mkdtemp()))
    try:
        evidence, _, tools = build_evidence(store.for_graph(f"round3_{uuid.uuid4().hex[:8]}"))
        scores, wrong = measure(lambda a, s, t: check_text(t, evidence[(a, s)], tools))
        for category, alert, state, text, kinds, flags in wrong:
            shown = text.replace("\n", " / ")
            print(f"WRONG [{category}] {alert}/{state} expected={kinds and [k.value for k in kinds]}: {shown}")
            for f in flags:
                print(f"      {f.kind.value}: {f.offending_text!r}")
        print(table(scores))
    finally:
        store.close()


if __name__ == "__main__":  # pragma: no cover
    main()
