"""Principals and credentials: users, roles, groups and their policies from the GAAD, and one
session per credential from the credential report."""

from __future__ import annotations

import base64
import binascii
import csv
import io
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..iam.bounds import is_aws_managed, policy_bound_error
from ..iam.deny_all import denies_everything
from ..iam.policy import PolicyFormatError, Statement, as_list, parse_policy
from .access_keys import listed_access_keys
from .builder import created, default_account
from .common import _arn_account, _date, _obj, _Principal, _Role, _tags, entity_id
from .get import SourceFile
from .report import AwsImportReport
from .state import EdgeSink, Inventory


def _contradicts(entry: Mapping[str, Any], name_key: str) -> bool:
    """The entry's name is not its ARN's last part: the export contradicts itself about who it is."""
    return str(entry[name_key]) != str(entry["Arn"]).rsplit("/", 1)[-1]


def _contradiction(entry: Mapping[str, Any], name_key: str) -> str:
    kind = "user" if name_key == "UserName" else "role"
    return (
        f"{kind} refused: {name_key} {str(entry[name_key])!r} and Arn {entry['Arn']!r} name different"
        f" {kind}s; nothing of it is imported and no action can aim at it"
    )


class GaadReader:
    """The read step of the GAADs: principals, groups and policies into the inventory, their nodes into
    the sink."""

    def __init__(self, inv: Inventory, sink: EdgeSink, report: AwsImportReport):
        self.inv = inv
        self.sink = sink
        self.report = report

    def warn(self, file: str, item: str, message: str) -> None:
        self.report.warn(file, item, message)

    def run(self) -> None:
        """Every GAAD: the managed policies of all first (a principal of one file may attach a policy of
        another), then each file's principals under the account in their own ARN."""
        gaads = self.inv.sources.of("gaad")
        for source in gaads:
            self.read_policies(source)
        exported: set[str] = set()  # the accounts a file is the export of (re-synced by the load)
        for source in gaads:
            accounts = self.gaad_accounts(source)
            if not accounts:
                self.warn(source.name, "document", "no ARN with an account id: the file was ignored")
                continue
            account = accounts[0]
            if account in exported:
                self.warn(source.name, "document", f"account {account} is also in {self.inv.accounts[account]}: merged")
            else:
                self.inv.accounts[account] = source.name  # its own export, even if another file named it first
            exported.add(account)
            for other in accounts:  # principals of other accounts are filed under their own account
                self.inv.accounts.setdefault(other, source.name)
            self.read_gaad(source, account)
        self.report.accounts = sorted(exported)

    # ------------------------------------------------------------ GAAD

    def statements(self, file: str, item: str, document: Any, aws_managed: bool = False) -> list[Statement]:
        beyond = policy_bound_error(document, aws_managed)
        if beyond is not None:
            self.warn(file, item, f"policy document ignored: {beyond}")
            return []
        try:
            return parse_policy(document)
        except PolicyFormatError as exc:
            self.warn(file, item, f"policy document ignored: {exc}")
        except RecursionError:
            self.warn(file, item, "policy document ignored: nested too deeply")
        return []

    def managed_statements(self, file: str, item: str, arn: str) -> list[Statement]:
        found = self.inv.managed.get(arn, ...)
        if found is ...:
            self.warn(file, item, f"managed policy {arn} is not in any Policies list: its permissions are unknown")
            self.inv.managed[arn] = None
            return []
        return found or []

    def gaad_accounts(self, source: SourceFile) -> list[str]:
        """The accounts of the file's principals, the one it is an export of first (most of its principals;
        without principals, the first account a policy ARN names). Each principal is filed under the account
        in its own ARN: a file holding principals of several accounts gets a warning naming them and counts."""
        data = source.data
        counts: Counter[str] = Counter()
        for key in ("UserDetailList", "RoleDetailList", "GroupDetailList"):
            for entry in as_list(data.get(key)):
                account = _arn_account(entry.get("Arn", "")) if isinstance(entry, dict) else None
                if account:
                    counts[account] += 1
        if len(counts) > 1:
            listed = ", ".join(f"{account} ({n})" for account, n in counts.most_common())
            self.warn(
                source.name,
                "document",
                f"principals of {len(counts)} accounts in one file: {listed}; each is filed under the account "
                "in its own ARN",
            )
        if counts:
            return [account for account, _ in counts.most_common()]
        for entry in as_list(data.get("Policies")):
            account = _arn_account(entry.get("Arn", "")) if isinstance(entry, dict) else None
            if account:
                return [account]
        return []

    def read_policies(self, source: SourceFile) -> None:
        for index, policy in enumerate(as_list(source.data.get("Policies"))):
            item = f"Policies[{index}]"
            if not isinstance(policy, dict) or not isinstance(policy.get("Arn"), str):
                self.warn(source.name, item, "policy without an Arn ignored")
                continue
            item = f"policy {policy['Arn']}"
            versions = [v for v in as_list(policy.get("PolicyVersionList")) if isinstance(v, dict)]
            default = [v for v in versions if v.get("IsDefaultVersion") is True]
            if not default and policy.get("DefaultVersionId"):
                default = [v for v in versions if v.get("VersionId") == policy["DefaultVersionId"]]
            if not default:
                self.warn(source.name, item, "no default policy version: its permissions are unknown")
                self.inv.managed[policy["Arn"]] = None
                continue
            by_aws = is_aws_managed(policy["Arn"])
            self.inv.managed[policy["Arn"]] = self.statements(source.name, item, default[0].get("Document"), by_aws)
            others = [v for v in versions if v is not default[0] and v.get("Document") is not None]
            if others:
                self.inv.policy_versions[policy["Arn"]] = [
                    (
                        str(v.get("VersionId", "?")),
                        self.statements(source.name, f"{item} version", v.get("Document"), by_aws),
                    )
                    for v in others
                ]

    def attached(self, file: str, item: str, entry: Mapping[str, Any]) -> list[Statement]:
        out: list[Statement] = []
        for arn in self.attached_refs(entry):
            out += self.managed_statements(file, item, arn)
        return out

    @staticmethod
    def attached_refs(entry: Mapping[str, Any]) -> list[str]:
        refs = [
            ref.get("PolicyArn") if isinstance(ref, dict) else None
            for ref in as_list(entry.get("AttachedManagedPolicies"))
        ]
        return [arn for arn in refs if isinstance(arn, str)]

    def inline(self, file: str, item: str, entry: Mapping[str, Any], key: str) -> list[Statement]:
        out: list[Statement] = []
        for policy in as_list(entry.get(key)):
            if isinstance(policy, dict):
                out += self.statements(
                    file, f"{item} inline {policy.get('PolicyName', '?')}", policy.get("PolicyDocument")
                )
        return out

    def boundary(self, file: str, item: str, entry: Mapping[str, Any]) -> list[Statement] | None:
        ref = entry.get("PermissionsBoundary")
        if not isinstance(ref, dict) or not ref.get("PermissionsBoundaryArn"):
            return None
        arn = ref["PermissionsBoundaryArn"]
        if self.inv.managed.get(arn) is None:
            self.warn(file, item, f"permissions boundary {arn} is not in the export: treated as no boundary")
            return None
        found = self.inv.managed[arn]
        self.inv.boundary_arns[id(found)] = arn
        return found

    def read_gaad(self, source: SourceFile, account: str) -> None:
        data = source.data
        groups: dict[tuple[str, str], list[Statement]] = {}  # (account, group name) -> statements
        for entry in as_list(data.get("GroupDetailList")):
            if not isinstance(entry, dict) or "GroupName" not in entry:
                continue
            item = f"group {entry['GroupName']}"
            key = (_arn_account(entry.get("Arn", "")) or account, entry["GroupName"])
            groups[key] = self.inline(source.name, item, entry, "GroupPolicyList") + self.attached(
                source.name, item, entry
            )
            group_arn = entry.get("Arn")
            if isinstance(group_arn, str):
                self.inv.groups[group_arn] = (key[0], str(entry["GroupName"]), groups[key])
                self.inv.group_by_name[(account, str(entry["GroupName"]))] = group_arn
                self.inv.attached_arns[group_arn] = self.attached_refs(entry)
        for index, entry in enumerate(as_list(data.get("RoleDetailList"))):
            if not isinstance(entry, dict) or not isinstance(entry.get("Arn"), str) or "RoleName" not in entry:
                self.warn(source.name, f"RoleDetailList[{index}]", "role without Arn or RoleName ignored")
                continue
            if _contradicts(entry, "RoleName"):
                self.warn(source.name, f"RoleDetailList[{index}]", _contradiction(entry, "RoleName"))
                continue
            self.read_role(source, account, entry)
        for index, entry in enumerate(as_list(data.get("UserDetailList"))):
            if not isinstance(entry, dict) or not isinstance(entry.get("Arn"), str) or "UserName" not in entry:
                self.warn(source.name, f"UserDetailList[{index}]", "user without Arn or UserName ignored")
                continue
            if _contradicts(entry, "UserName"):
                self.warn(source.name, f"UserDetailList[{index}]", _contradiction(entry, "UserName"))
                continue
            self.read_user(source, account, entry, groups)

    def read_role(self, source: SourceFile, account: str, entry: Mapping[str, Any]) -> None:
        arn, name = entry["Arn"], str(entry["RoleName"])
        account = _arn_account(arn) or account  # the account in its own ARN, whatever file it came in
        item = f"role {arn}"
        node = entity_id(account, "role", name)
        statements = self.inline(source.name, item, entry, "RolePolicyList") + self.attached(source.name, item, entry)
        principal = _Principal(node, arn, account, "role", name, statements, self.boundary(source.name, item, entry))
        trust_doc = entry.get("AssumeRolePolicyDocument")
        trust = self.statements(source.name, f"{item} trust policy", trust_doc) if trust_doc is not None else []
        services = sorted({s for st in trust if st.effect == "Allow" for s in (st.principals or {}).get("Service", ())})
        self.inv.roles[arn] = _Role(principal, trust, services, source.name)
        self.inv.attached_arns[arn] = self.attached_refs(entry)
        self.inv.role_names[(account, name)] = arn
        for profile in as_list(entry.get("InstanceProfileList")):
            if isinstance(profile, dict) and isinstance(profile.get("Arn"), str):
                self.inv.profiles[profile["Arn"]] = arn
        tags = _tags(entry.get("Tags"))
        self.sink.node(
            node,
            "IAMRole",
            name,
            arn=arn,
            aws_kind="role",
            account=account,
            aws_snapshot=account,
            path=entry.get("Path"),
            created=created(self.report, source.name, item, entry.get("CreateDate")),
            trusted_services=services,
            permissions_boundary=_obj(entry.get("PermissionsBoundary")).get("PermissionsBoundaryArn"),
            owner=tags.get("owner"),
        )

    def read_user(
        self,
        source: SourceFile,
        account: str,
        entry: Mapping[str, Any],
        groups: Mapping[tuple[str, str], list[Statement]],
    ) -> None:
        arn, name = entry["Arn"], str(entry["UserName"])
        account = _arn_account(arn) or account  # the account in its own ARN, whatever file it came in
        item = f"user {arn}"
        statements = self.inline(source.name, item, entry, "UserPolicyList") + self.attached(source.name, item, entry)
        member_of = [g for g in as_list(entry.get("GroupList")) if isinstance(g, str)]
        for group in member_of:
            if (account, group) not in groups:
                self.warn(source.name, item, f"group {group} is not in GroupDetailList: its policies are unknown")
            statements += groups.get((account, group), [])
        role_node = entity_id(account, "user", name, "policies")
        group_arns = [self.inv.group_by_name[(account, g)] for g in member_of if (account, g) in self.inv.group_by_name]
        self.inv.user_groups[arn] = group_arns
        self.inv.attached_arns[arn] = self.attached_refs(entry) + [
            a for g in group_arns for a in self.inv.attached_arns[g]
        ]
        self.inv.users[arn] = _Principal(
            role_node, arn, account, "user", name, statements, self.boundary(source.name, item, entry)
        )
        self.inv.user_by_name[(account, name)] = arn
        identity = entity_id(account, "user", name)
        common = {"arn": arn, "account": account, "aws_snapshot": account}
        self.sink.node(
            identity,
            "Identity",
            name,
            aws_kind="user",
            groups=member_of,
            created=created(self.report, source.name, item, entry.get("CreateDate")),
            **common,
        )
        api = entity_id(account, "user", name, "api")
        self.sink.node(api, "Workload", f"{name} (API calls)", aws_kind="user_api", **common)
        self.sink.node(
            role_node, "IAMRole", f"{name} (user policies)", aws_kind="user_policies", groups=member_of, **common
        )
        self.sink.edge(api, "RUNS_AS", role_node)


class CredentialReader:
    """The read step of the credential reports: one session per credential of the users the GAADs hold."""

    def __init__(self, inv: Inventory, sink: EdgeSink, report: AwsImportReport):
        self.inv = inv
        self.sink = sink
        self.report = report

    def warn(self, file: str, item: str, message: str) -> None:
        self.report.warn(file, item, message)

    def run(self) -> None:
        reported: set[str] = set()
        for source in self.inv.sources.of("credential_report"):
            text = source.data["Content"]
            try:
                decoded = base64.b64decode(text, validate=True).decode("utf-8")
                if decoded.lstrip().startswith("user,"):
                    text = decoded
            except (binascii.Error, ValueError):
                pass
            rows = list(csv.DictReader(io.StringIO(text)))
            if not rows or "arn" not in rows[0]:
                self.warn(source.name, "Content", "credential report has no rows or no arn column")
                continue
            for row in rows:
                arn = row.get("arn") or ""
                if row.get("user") == "<root_account>" or arn.endswith(":root"):
                    continue  # the root user is not modelled (see docs/aws-import.md)
                if arn not in self.inv.users:
                    self.warn(source.name, f"user {arn}", "credential report names a user the GAAD does not contain")
                    continue
                reported.add(arn)
                self.credentials_from_row(source.name, arn, row)
        reported_accounts = self._reported_accounts()
        for arn, user in self.inv.users.items():
            if arn in reported:
                continue
            if user.account in reported_accounts:
                self.warn(
                    self.inv.accounts[user.account],
                    f"user {arn}",
                    "not in the credential report: one credential assumed active",
                )
            self.session(user, "credential", "credential", True, assumed=True)

    def _reported_accounts(self) -> set[str]:
        out = set()
        for source in self.inv.sources.of("credential_report"):
            for match in re.finditer(r":(\d{12}):", source.data["Content"][:2000]):
                out.add(match[1])
        return out

    def credentials_from_row(self, file: str, arn: str, row: Mapping[str, str]) -> None:
        user = self.inv.users[arn]
        item = f"user {arn}"

        def date(key: str) -> str | None:
            try:
                return _date(row.get(key))
            except ValueError as exc:
                self.warn(file, item, f"{key}: {exc}")
                return None

        keys = 0
        if row.get("password_enabled") == "true":
            self.session(user, "console", "console_password", True, last_used=date("password_last_used"))
        listed = self.listed_keys().get((user.account, user.name))
        for n in ("1", "2"):
            if listed is not None:  # `iam list-access-keys`: the key ids, and a status that is current
                if int(n) <= len(listed):
                    key = listed[int(n) - 1]
                    self.session(
                        user,
                        f"access-key-{n}",
                        "access_key",
                        key.get("Status") == "Active",
                        access_key_id=str(key["AccessKeyId"]),
                        last_used=date(f"access_key_{n}_last_used_date"),
                        last_rotated=created(self.report, file, item, key.get("CreateDate")),
                    )
                continue
            active = row.get(f"access_key_{n}_active") == "true"
            rotated = date(f"access_key_{n}_last_rotated")
            if active or rotated:
                keys += 1
                self.session(
                    user,
                    f"access-key-{n}",
                    "access_key",
                    active,
                    last_used=date(f"access_key_{n}_last_used_date"),
                    last_rotated=rotated,
                )
        self.inv.credentials[arn] = (row.get("password_enabled") == "true", keys)
        if row.get("mfa_active") in ("true", "false"):
            identity = entity_id(user.account, "user", user.name)
            self.sink.nodes[identity].properties["mfa_active"] = row["mfa_active"] == "true"

    def listed_keys(self) -> dict[tuple[str, str], list[dict[str, Any]]]:
        inv = self.inv
        if inv.listed_keys is None:
            inv.listed_keys = listed_access_keys(inv.sources, lambda source: default_account(inv, source))
        return inv.listed_keys

    def session(
        self, user: _Principal, slug: str, kind: str, active: bool, *, assumed: bool = False, **extra: Any
    ) -> None:
        identity = entity_id(user.account, "user", user.name)
        session = entity_id(user.account, "user", user.name, slug)
        denied = denies_everything(user.statements)  # an explicit deny-all: no credential of the user works
        label = {"console": "console password", "credential": "credential (assumed active)"}.get(
            slug, slug.replace("-", " ")
        )
        self.sink.node(
            session,
            "Session",
            f"{user.name} {label}",
            arn=user.arn,
            aws_kind=kind,
            account=user.account,
            aws_snapshot=user.account,
            active=active,
            assumed=assumed or None,
            denied_by_policy=denied or None,
            **extra,
        )
        status = "active" if active and not denied else "blocked"
        self.sink.edge(identity, "HAS_SESSION", session, route_id=session, status=status)
        self.sink.edge(session, "CAN_ACCESS", entity_id(user.account, "user", user.name, "api"))
        self.inv.user_sessions[user.arn].append(session)
