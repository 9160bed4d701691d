"""Organisation guardrails: SCPs and RCPs read from the organisation's exports, as the policy
levels (root, then each OU, then the account) that apply to each member account.

From the AWS Organizations User Guide, "Service control policies" and "Resource control
policies": every SCP level from the root down to the account must allow (RCPs only deny:
`RCPFullAWSAccess` sits at every level and cannot be detached); policies attach to the
root, OUs and accounts; the management account is not subject to SCPs or RCPs. A level whose
policies were not all collected cannot be judged: that policy type is then not applied to the
account, with a warning (an edge is never removed for lack of data). Pure: no I/O, no store.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..iam.evaluate_input import Rule, read_policy
from ..iam.policy import PolicyFormatError, as_list
from .get import AwsSources

__all__ = ["GUARDRAIL_TYPES", "Organization", "read_organization"]

GUARDRAIL_TYPES = {"SERVICE_CONTROL_POLICY": "scp", "RESOURCE_CONTROL_POLICY": "rcp"}
_ACCOUNT = re.compile(r"^\d{12}$")


@dataclass
class Organization:
    """What the snapshot knows of the organisation: its id, management account, members, and per
    member account and guardrail type (`scp`, `rcp`) the levels root first, each a list of policies."""

    id: str = ""
    management: str = ""
    members: set[str] = field(default_factory=set)
    levels: dict[tuple[str, str], list[list[list[Rule]]]] = field(default_factory=dict)
    read: dict[str, int] = field(default_factory=lambda: {"scp": 0, "rcp": 0})

    def guardrails(self, account: str, kind: str) -> list[list[list[Rule]]]:
        """The levels of `kind` (`scp` / `rcp`) that apply to `account` ([] when none apply)."""
        if not account or account == self.management:
            return []
        return self.levels.get((account, kind), [])


def read_organization(sources: AwsSources, warn: Callable[[str, str, str], None]) -> Organization | None:
    """The organisation from its exports, or None when none was collected."""
    org = Organization()
    found = False
    for source in sources.of("organization"):
        found = True
        data = source.data["Organization"]
        org.id = str(data.get("Id") or org.id)
        org.management = str(data.get("MasterAccountId") or data.get("ManagementAccountId") or org.management)
    enabled: dict[str, bool] = {}  # policy type -> enabled at the root (absent: taken as enabled)
    roots: set[str] = set()
    for source in sources.of("org_roots"):
        found = True
        for root in as_list(source.data.get("Roots")):
            if isinstance(root, dict) and isinstance(root.get("Id"), str):
                roots.add(root["Id"])
                for entry in as_list(root.get("PolicyTypes")):
                    if isinstance(entry, dict) and entry.get("Type") in GUARDRAIL_TYPES:
                        enabled[entry["Type"]] = entry.get("Status") == "ENABLED"
    parents: dict[str, str] = {}
    for source in sources.of("org_parents"):
        found = True
        listed = [p for p in as_list(source.data.get("Parents")) if isinstance(p, dict) and p.get("Id")]
        if not listed:
            warn(source.name, source.resource, "no parent listed: not placed in the organisation")
            continue
        parents[source.resource] = str(listed[0]["Id"])
    # policies: summaries, contents, targets
    kinds: dict[str, str] = {}  # policy id -> scp | rcp
    for source in sources.of("org_policies"):
        found = True
        for entry in as_list(source.data.get("Policies")):
            if isinstance(entry, dict) and entry.get("Type") in GUARDRAIL_TYPES:
                kinds[str(entry["Id"])] = GUARDRAIL_TYPES[entry["Type"]]
    contents: dict[str, list[Rule] | None] = {}
    for source in sources.of("org_policy"):
        found = True
        policy: dict[str, Any] = source.data["Policy"] if isinstance(source.data.get("Policy"), dict) else {}
        summary: dict[str, Any] = policy["PolicySummary"] if isinstance(policy.get("PolicySummary"), dict) else {}
        kind = GUARDRAIL_TYPES.get(str(summary.get("Type", "")))
        if kind is None and source.resource not in kinds:
            continue  # another policy type (tag, backup, AI opt-out): not a guardrail
        kinds.setdefault(source.resource, kind or kinds.get(source.resource, ""))
        try:
            contents[source.resource] = read_policy(policy.get("Content"))
        except PolicyFormatError as exc:
            warn(source.name, source.resource, f"policy not read ({exc}): its levels are not applied")
            contents[source.resource] = None
    attached: dict[str, list[str]] = {}  # target (root, OU, account) -> policy ids
    targeted: set[str] = set()
    for source in sources.of("org_targets"):
        found = True
        targeted.add(source.resource)
        for target in as_list(source.data.get("Targets")):
            if isinstance(target, dict) and target.get("TargetId"):
                attached.setdefault(str(target["TargetId"]), []).append(source.resource)
    if not found:
        return None
    for policy_id, kind in sorted(kinds.items()):
        if policy_id in contents and contents[policy_id] is not None:
            org.read[kind] += 1
        if policy_id not in contents:
            warn("organizations-describe-policy", policy_id, f"{kind.upper()} listed but its content was not collected")
        if policy_id not in targeted:
            warn("organizations-list-targets-for-policy", policy_id, f"{kind.upper()} targets were not collected")
    complete = {
        kind: all(p in contents and p in targeted for p, k in kinds.items() if k == kind) for kind in ("scp", "rcp")
    }
    for account in sorted(a for a in parents if _ACCOUNT.match(a)):
        chain = [account]
        while chain[-1] in parents and len(chain) < 10 and parents[chain[-1]] not in chain:
            chain.append(parents[chain[-1]])
        chain.reverse()
        if not (chain[0] in roots or chain[0].startswith("r-")):
            warn("organizations-list-parents", account, f"the path to the root is incomplete (stops at {chain[0]})")
            continue
        org.members.add(account)
        for type_name, kind in GUARDRAIL_TYPES.items():
            if not enabled.get(type_name, any(k == kind for k in kinds.values())):
                continue
            levels = [[contents[p] for p in attached.get(node, []) if kinds.get(p) == kind] for node in chain]
            # an SCP level with no policy cannot be judged; an RCP level with none holds RCPFullAWSAccess
            # alone, which AWS attaches everywhere and which denies nothing (RCPs only deny)
            empty = any(not level for level in levels) and kind == "scp"
            if not complete[kind] or empty or any(p is None for level in levels for p in level):
                warn(
                    "organizations",
                    account,
                    f"{kind.upper()}s not applied: a level from the root to the account has none as collected",
                )
                continue
            org.levels[(account, kind)] = levels  # type: ignore[assignment]
    if org.management:
        org.members.add(org.management)
    return org
