"""A collection is a snapshot, and holds no secret: moto on loopback (tests/helpers/aws_live.py).

AWS documentation cited: EC2 User Guide "IAM roles for Amazon EC2" (an instance profile passes
its role to the instance; `DisassociateIamInstanceProfile` removes it); Lambda Developer Guide
"Working with Lambda environment variables" (values are often secrets, encrypted at rest, and
returned by `ListFunctions` in `Environment.Variables`).
"""

from __future__ import annotations

import json
from pathlib import Path

from blastshield_core.interfaces.cli import main
from tests.helpers import aws_live
from tests.helpers.aws_live import ACCOUNT

moto_server, moto_account = aws_live.moto_server, aws_live.moto_account  # the fixtures

EC2_TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
LAMBDA_TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
PLANTED = "hunter2-planted-9f3c1e"


def _runs_as(data: Path) -> list[dict]:
    from blastshield_core import load_settings, open_services

    services = open_services(load_settings(environ={}, data_dir=data))
    try:
        return services.store.read_text(
            "MATCH (w)-[r:RUNS_AS]->(role) RETURN w.id AS workload, role.id AS role ORDER BY workload"
        )
    finally:
        services.close()


def _instance_with_profile(account) -> tuple[str, str]:
    iam, ec2 = account.client("iam"), account.client("ec2")
    iam.create_role(RoleName="app-ec2-role", AssumeRolePolicyDocument=json.dumps(EC2_TRUST))
    iam.create_instance_profile(InstanceProfileName="app-ec2")
    iam.add_role_to_instance_profile(InstanceProfileName="app-ec2", RoleName="app-ec2-role")
    image = ec2.describe_images()["Images"][0]["ImageId"]
    instance = ec2.run_instances(ImageId=image, MinCount=1, MaxCount=1, IamInstanceProfile={"Name": "app-ec2"})[
        "Instances"
    ][0]["InstanceId"]
    association = ec2.describe_iam_instance_profile_associations()["IamInstanceProfileAssociations"][0]
    return instance, association["AssociationId"]


def test_recollecting_replaces_the_snapshot_and_a_removed_instance_profile_loses_its_runs_as(moto_account, tmp_path):
    instance, association = _instance_with_profile(moto_account)
    out, data = tmp_path / "out", tmp_path / "db"
    folder = out / ACCOUNT
    assert main(["collect-aws", "--out", str(out), "--import", "--data-dir", str(data), "--json"]) == 0
    runs = _runs_as(data)
    assert [r["workload"] for r in runs if r["role"].endswith("role:app-ec2-role")] == [
        f"{ACCOUNT}:instance:{instance}"
    ]
    (folder / "stale-export.json").write_text(json.dumps({"Reservations": [{"Instances": []}]}))  # an earlier file

    moto_account.client("ec2").disassociate_iam_instance_profile(AssociationId=association)
    assert main(["collect-aws", "--out", str(out), "--import", "--data-dir", str(data), "--json"]) == 0
    assert _runs_as(data) == []  # the false path is gone
    assert not (folder / "stale-export.json").exists()  # the folder is this collection, nothing else
    reservations = json.loads((folder / "ec2-describe-instances.json").read_text())["Reservations"]
    assert len(reservations) == 1  # replaced, not appended to the earlier file
    manifest = json.loads((folder / "collection-manifest.json").read_text())
    assert set(manifest["files"]) == {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} - {
        "collection-manifest.json"
    }
    assert [p.name for p in out.iterdir()] == [ACCOUNT]  # no staging folder left behind


def test_no_lambda_environment_value_reaches_the_disk(moto_account, tmp_path, capsys):
    iam = moto_account.client("iam")
    role = iam.create_role(RoleName="fn-role", AssumeRolePolicyDocument=json.dumps(LAMBDA_TRUST))["Role"]["Arn"]
    moto_account.client("lambda").create_function(
        FunctionName="billing",
        Runtime="python3.12",
        Role=role,
        Handler="index.handler",
        Code={"ZipFile": b"PK\x05\x06" + b"\x00" * 18},
        Environment={"Variables": {"DB_PASSWORD": PLANTED, "API_TOKEN": PLANTED + "-token"}},
    )
    out = tmp_path / "out"
    assert main(["collect-aws", "--out", str(out)]) == 0
    capsys.readouterr()
    raw = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    assert PLANTED.encode() not in raw  # grep the whole collection for the planted values
    functions = json.loads((out / ACCOUNT / "lambda-list-functions.json").read_text())["Functions"]
    assert functions[0]["Environment"]["Variables"] == {
        "DB_PASSWORD": "<not collected>",
        "API_TOKEN": "<not collected>",
    }
