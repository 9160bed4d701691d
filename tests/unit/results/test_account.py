"""The account actions' typed plans and outcomes, and the audit records written before them.

A run's action on an AWS account used to be recorded as a plain mapping (`RunAction.aws`); such
records must still load, as the typed models, and read the same in the command line and the report."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from blastshield_core.brief.report import _account_lines
from blastshield_core.interfaces.cli_commands import _aws_text
from blastshield_core.results import AccountActionKind, AccountOutcome, AccountPlan, RunAction, RunRecord

KEY = "AKIAOLDRECORD0000001"
# A run's action exactly as the code before the typed models wrote it to the audit.
OLD_KEY_ACTION = {
    "step": 1,
    "candidate_id": "block-route:123456789012:user:alice:access-key-1",
    "route_id": "123456789012:user:alice:access-key-1",
    "status": "applied",
    "verified": True,
    "paths_before": 1,
    "paths_after": 0,
    "reason": f"iam:UpdateAccessKey on {KEY} (request R1)",
    "applied": True,
    "api_verified": True,
    "graph_verified": True,
    "aws": {
        "applied_in_aws": True,
        "plan": {
            "route_id": "123456789012:user:alice:access-key-1",
            "account": "123456789012",
            "user": "alice",
            "kind": "deactivate_access_key",
            "applied_in_aws": True,
            "calls": [{"api": "iam:UpdateAccessKey",
                       "params": {"UserName": "alice", "AccessKeyId": KEY, "Status": "Inactive"}}],
            "side_effects": ["every request signed with access key … fails"],
            "reversibility": "exact (release sets the key back to its before-image status)",
            "before_image": {"kind": "access_key", "user": "alice", "access_key_id": KEY, "status": "Active"},
            "note": "",
            "read_error": "",
        },
        "applied": True,
        "api_verified": True,
        "request_id": "R1",
        "error": "",
        "read_back": "Inactive",
        "resync": "re-synced",
    },
    "operation": "block_route",
}  # fmt: skip
# A revocation as the old run recorded it (its read-back None when nothing was read back).
OLD_REVOCATION_AWS = {
    "applied_in_aws": False,
    "plan": {
        "route_id": "revoke-sessions:123456789012:role:ops-role", "account": "123456789012", "user": "ops-role",
        "kind": "revoke_role_sessions", "applied_in_aws": False, "calls": [], "side_effects": [],
        "reversibility": "", "before_image": {}, "note": "no respond profile is configured", "read_error": "",
    },
    "applied": False, "api_verified": False, "request_id": "", "error": "not applied in AWS", "read_back": None,
    "graph_verified": False, "note": "not applied in AWS: no respond profile is configured; nothing was changed",
}  # fmt: skip


def test_an_action_recorded_as_a_mapping_loads_as_the_typed_outcome():
    run = RunRecord(
        run_id="run-old", alert_id="AN-1", decider="rules", max_actions=3, state="completed", reason="done",
        started_at=datetime(2026, 12, 1, tzinfo=UTC), actions=[OLD_KEY_ACTION],
    )  # fmt: skip
    [action] = run.actions
    assert isinstance(action.aws, AccountOutcome)
    assert action.aws.plan.kind is AccountActionKind.DEACTIVATE_ACCESS_KEY
    assert action.aws.call is not None and action.aws.call.text() == (
        f"iam:UpdateAccessKey(UserName=alice, AccessKeyId={KEY}, Status=Inactive)"
    )
    assert action.aws.plan.subject() == KEY and action.aws.plan.target is None
    # it displays as it did: the command line's line and the report's lines
    assert _aws_text(action) == (
        "; AWS iam:UpdateAccessKey: applied True, api_verified True, graph_verified True, request R1"
    )
    lines = _account_lines(action)
    assert f"`iam:UpdateAccessKey` (UserName=alice, AccessKeyId={KEY}, Status=Inactive)" in lines
    assert "request id `R1`" in lines and '"status": "Active"' in lines
    # and the model writes back the same fields it read, so a record round-trips
    again = RunAction.model_validate(action.model_dump(mode="json"))
    assert again == action


def test_an_old_revocation_record_loads_and_reads_not_applied():
    outcome = AccountOutcome.model_validate(OLD_REVOCATION_AWS)
    assert outcome.read_back == "" and outcome.call is None
    action = RunAction(
        step=1, candidate_id="revoke-sessions:x", route_id="revoke-sessions:x", status="rejected", verified=False,
        paths_before=1, paths_after=1, reason="r", aws=outcome, operation="revoke_role_sessions",
    )  # fmt: skip
    assert _aws_text(action) == "; not applied in AWS (nothing changed)"


def test_a_kind_outside_the_enum_is_refused():
    bad = {**OLD_KEY_ACTION["aws"]["plan"], "kind": "delete_user"}
    with pytest.raises(ValidationError, match="kind"):
        AccountPlan.model_validate(bad)
    assert {k.value for k in AccountActionKind} == {
        "deactivate_access_key", "deny_all_inline_policy", "revoke_role_sessions", "revoke_user_sessions",
    }  # fmt: skip
