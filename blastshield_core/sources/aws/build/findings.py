"""Findings: GuardDuty findings become alerts on the user, role, instance or bucket they name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..iam.policy import as_list
from .common import _obj, entity_id
from .get import SourceFile
from .report import AwsImportReport
from .state import EdgeSink, Inventory


class FindingReader:
    """The last step: GuardDuty findings as alerts on the nodes the steps before made."""

    def __init__(self, inv: Inventory, sink: EdgeSink, report: AwsImportReport):
        self.inv = inv
        self.sink = sink
        self.report = report

    def warn(self, file: str, item: str, message: str) -> None:
        self.report.warn(file, item, message)

    def run(self) -> None:
        for source in self.inv.sources.of("findings"):
            for index, finding in enumerate(as_list(source.data.get("Findings"))):
                item = f"Findings[{index}]"
                if not isinstance(finding, dict) or not isinstance(finding.get("Id"), str):
                    self.warn(source.name, item, "finding without an Id ignored")
                    continue
                self.finding(source, f"finding {finding['Id']}", finding)

    def finding(self, source: SourceFile, item: str, finding: Mapping[str, Any]) -> None:
        resource = _obj(finding.get("Resource"))
        account = str(finding.get("AccountId", ""))
        rtype = str(resource.get("ResourceType", ""))
        entity: str | None = None
        key = _obj(resource.get("AccessKeyDetails"))
        if rtype == "AccessKey" or key:
            user_type = key.get("UserType")
            name = str(key.get("UserName", ""))
            if user_type == "AssumedRole" and (account, name) in self.inv.role_names:
                entity = self.inv.roles[self.inv.role_names[(account, name)]].principal.node
            elif (account, name) in self.inv.user_by_name:
                entity = entity_id(account, "user", name)
        elif rtype == "Instance":
            iid = _obj(resource.get("InstanceDetails")).get("InstanceId", "")
            entity = entity_id(account, "instance", str(iid)) if iid else None
        elif rtype == "S3Bucket":
            buckets = as_list(resource.get("S3BucketDetails"))
            bucket = buckets[0].get("Name") if buckets and isinstance(buckets[0], dict) else None
            entity = entity_id(account, "bucket", str(bucket)) if bucket else None
        if entity is None or entity not in self.sink.nodes:
            self.warn(source.name, item, f"the finding's resource ({rtype or 'none'}) is not in the graph: no alert")
            return
        severity: Any = finding.get("Severity")
        try:
            severity = float(severity)
        except (TypeError, ValueError):
            self.warn(source.name, item, f"severity {str(severity)[:20]!r} is not a number: left out")
            severity = None
        action = _obj(_obj(finding.get("Service")).get("Action")).get("ActionType")
        signals = {
            "source": "guardduty",
            "finding_type": str(finding.get("Type", "")),
            "severity": severity,
            "resource_type": rtype,
            "account": account,
            "region": finding.get("Region"),
            "access_key_id": key.get("AccessKeyId"),
            "action_type": action,
            "count": _obj(finding.get("Service")).get("Count"),
            "updated_at": finding.get("UpdatedAt"),
        }
        signals = {k: v for k, v in signals.items() if isinstance(v, str | int | float) and not isinstance(v, bool)}
        if isinstance(signals.get("severity"), float):
            signals["severity"] = round(signals["severity"], 1)
        alert_id = entity_id("gd", finding["Id"])
        title = str(finding.get("Title") or finding.get("Type") or "GuardDuty finding")[:256]
        self.sink.alerts[alert_id] = {
            "id": alert_id,
            "title": title,
            "entity_id": entity,
            "kind": "guardduty_finding",
            "signals": signals,
        }
