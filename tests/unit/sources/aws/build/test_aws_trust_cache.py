"""A role assumption decided once is shared only by principals it holds for.

`CAN_ASSUME` decisions are cached by what they depend on: the role, the principal's account and
kind, and its ARN when the trust policy names it. A trust policy names a role's session
(`arn:aws:sts::ACCOUNT:assumed-role/NAME/SESSION`) by the role's name without its path (IAM User
Guide, "AWS JSON policy elements: Principal", role session principals; role names are unique in an
account whatever their path). The principal's name key was overwritten inside its loop over roles,
so from its second candidate role on, a role whose trust names the principal's sessions shared
another principal's decision: here p1 was allowed into `t2`, whose trust denies p1's sessions.
"""

from __future__ import annotations

import json

import pytest

from blastshield_core.sources.aws import build_document, read_sources

A = "111111111111"


def _role(name: str, path: str, trust: list[dict], inline: dict | None = None) -> dict:
    return {
        "Path": path,
        "RoleName": name,
        "RoleId": f"AROA{name.upper():0<17}"[:21],
        "Arn": f"arn:aws:iam::{A}:role{path}{name}",
        "CreateDate": "2026-01-01T00:00:00Z",
        "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": trust},
        "RolePolicyList": (
            [{"PolicyName": f"{name}-inline", "PolicyDocument": {"Version": "2012-10-17", "Statement": [inline]}}]
            if inline
            else []
        ),
        "AttachedManagedPolicies": [],
        "InstanceProfileList": [],
        "Tags": [],
    }


ASSUME_ANY = {"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}
ACCOUNT_TRUST = {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{A}:root"}, "Action": "sts:AssumeRole"}
DENY_P1_SESSIONS = {
    "Effect": "Deny",
    "Principal": {"AWS": f"arn:aws:sts::{A}:assumed-role/p1/incident"},
    "Action": "sts:AssumeRole",
}


def _assumptions(tmp_path, principals: list[dict]) -> dict[tuple[str, str], str]:
    gaad = {
        "UserDetailList": [],
        "GroupDetailList": [],
        "Policies": [],
        "RoleDetailList": [
            *principals,
            _role("t1", "/", [ACCOUNT_TRUST]),
            _role("t2", "/", [ACCOUNT_TRUST, DENY_P1_SESSIONS]),
        ],
    }
    (tmp_path / "gaad.json").write_text(json.dumps(gaad))
    doc, _ = build_document(read_sources([tmp_path / "gaad.json"]))
    return {
        (e.source, e.target): str(e.properties.get("permission", "allow"))
        for e in doc.edges
        if e.type.value == "CAN_ASSUME"
    }


@pytest.mark.parametrize("order", ["p1 first", "p2 first"])
def test_a_trust_naming_one_roles_sessions_decides_for_that_role_alone(tmp_path, order):
    p1 = _role("p1", "/team/", [ACCOUNT_TRUST], ASSUME_ANY)
    p2 = _role("p2", "/team/", [ACCOUNT_TRUST], ASSUME_ANY)
    edges = _assumptions(tmp_path, [p1, p2] if order == "p1 first" else [p2, p1])
    allowed = {pair for pair, permission in edges.items() if permission != "deny"}
    assert (f"{A}:role:p1", f"{A}:role:t1") in allowed
    assert (f"{A}:role:p2", f"{A}:role:t1") in allowed
    assert (f"{A}:role:p2", f"{A}:role:t2") in allowed
    assert (f"{A}:role:p1", f"{A}:role:t2") not in allowed  # its sessions are denied by t2's trust
