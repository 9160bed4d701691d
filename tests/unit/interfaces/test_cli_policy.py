"""`policy-eval REQUEST.json`: the command's answers and exit codes (no database)."""

from __future__ import annotations

import json

from blastshield_core.interfaces.cli import main

A = "111122223333"
REQUEST = {
    "principal": f"arn:aws:iam::{A}:user/alice",
    "action": "s3:GetObject",
    "resource": "arn:aws:s3:::bucket/key",
    "resource_account": A,
    "identity_policies": [
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": "s3:*",
                    "Resource": "*",
                    "Condition": {"Bool": {"aws:MultiFactorAuthPresent": "true"}},
                }
            ],
        }
    ],
    "permissions_boundary": None,
    "resource_policy": None,
    "scps": [],
    "rcps": [],
    "session_policy": None,
    "context": {"aws:MultiFactorAuthPresent": "true"},
}


def run(tmp_path, capsys, payload, *flags):
    path = tmp_path / "request.json"
    path.write_text(payload if isinstance(payload, str) else json.dumps(payload))
    code = main(["policy-eval", str(path), *flags])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_one_request_as_json(tmp_path, capsys):
    code, out, _ = run(tmp_path, capsys, REQUEST, "--json")
    answer = json.loads(out)
    assert code == 0
    assert (answer["decision"], answer["conditional"], answer["unknown_keys"]) == ("allowed", False, [])


def test_one_request_as_text_names_the_unknown_key(tmp_path, capsys):
    code, out, _ = run(tmp_path, capsys, {**REQUEST, "context": {}, "partial_context": ["aws:MultiFactorAuthPresent"]})
    assert code == 0
    assert out.startswith("allowed: ")
    assert "conditional on aws:MultiFactorAuthPresent (if they fail: implicitly_denied)" in out


def test_a_list_is_answered_in_order_and_an_invalid_item_gets_its_error(tmp_path, capsys):
    code, out, _ = run(
        tmp_path, capsys, [REQUEST, {"principal": "nobody"}, {**REQUEST, "action": "ec2:RunInstances"}], "--json"
    )
    answers = json.loads(out)
    assert code == 0
    assert answers[0]["decision"] == "allowed"
    assert "principal 'nobody'" in answers[1]["error"]
    assert answers[2]["decision"] == "implicitly_denied"


def test_an_invalid_request_exits_2_with_the_reason(tmp_path, capsys):
    code, out, _ = run(tmp_path, capsys, {**REQUEST, "action": 7}, "--json")
    assert code == 2
    assert "action" in json.loads(out)["error"]
    code, _, err = run(tmp_path, capsys, {**REQUEST, "action": 7})
    assert code == 2 and err.startswith("error: action")


def test_text_that_is_not_json_and_a_missing_file_exit_2(tmp_path, capsys):
    code, _, err = run(tmp_path, capsys, "{not json")
    assert code == 2 and "not JSON" in err
    code = main(["policy-eval", str(tmp_path / "absent.json"), "--json"])
    assert code == 2 and "no such file" in json.loads(capsys.readouterr().out)["error"]


def test_rules_before_any_policy_and_alias_sides_read_in_text(tmp_path, capsys):
    anonymous = {"principal": "*", "action": "kms:Decrypt", "resource": f"arn:aws:kms:us-east-1:{A}:key/k"}
    code, out, _ = run(tmp_path, capsys, anonymous)
    assert code == 0
    assert out.splitlines() == [
        "implicitly_denied: kms:Decrypt needs a signed request: an anonymous caller cannot make it",
        "  request signing: does not allow",
    ]
    code, out, _ = run(tmp_path, capsys, {**REQUEST, "action": "sts:GetCallerIdentity", "resource": "*"})
    assert out.splitlines()[1] == "  sts:GetCallerIdentity: allows"
    alias = f"arn:aws:kms:us-east-1:{A}:alias/a"
    key = f"arn:aws:kms:us-east-1:{A}:key/k"
    statement = {"Effect": "Allow", "Action": "kms:CreateAlias", "Resource": [alias, key]}
    key_policy = {"Statement": [{"Effect": "Allow", "Principal": {"AWS": A}, "Action": "kms:*", "Resource": "*"}]}
    code, out, _ = run(
        tmp_path,
        capsys,
        {
            **REQUEST,
            "action": "kms:CreateAlias",
            "resource": alias,
            "key": key,
            "identity_policies": [{"Statement": [statement]}],
            "resource_policy": key_policy,
        },
    )
    lines = out.splitlines()
    assert lines[0].startswith("allowed: on the alias: ")
    assert f"  identity_policies[0] on {alias} statement 0: Allow (yes)" in lines
    assert f"  resource_policy on {key} statement 0: Allow (yes)" in lines
