"""The generated account's other records: the credential report, EC2 instances, Lambda
functions, S3 buckets and GuardDuty findings."""

from __future__ import annotations

import base64
import string
import uuid
from datetime import timedelta
from typing import Any

from .account import BASE_TIME, REGIONS, _AccountBase, _iso

CREDENTIAL_COLUMNS = (
    "user,arn,user_creation_time,password_enabled,password_last_used,password_last_changed,"
    "password_next_rotation,mfa_active,access_key_1_active,access_key_1_last_rotated,"
    "access_key_1_last_used_date,access_key_1_last_used_region,access_key_1_last_used_service,"
    "access_key_2_active,access_key_2_last_rotated,access_key_2_last_used_date,access_key_2_last_used_region,"
    "access_key_2_last_used_service,cert_1_active,cert_1_last_rotated,cert_2_active,cert_2_last_rotated"
)
FINDING_TYPES = (
    ("UnauthorizedAccess:IAMUser/InstanceCredentialExfiltration.OutsideAWS", "AccessKey", 8.0),
    ("UnauthorizedAccess:IAMUser/ConsoleLoginSuccess.B", "AccessKey", 5.0),
    ("Recon:EC2/PortProbeUnprotectedPort", "Instance", 2.0),
    ("CryptoCurrency:EC2/BitcoinTool.B!DNS", "Instance", 8.0),
    ("Policy:IAMUser/RootCredentialUsage", "AccessKey", 2.0),
)


class _ResourceRecords(_AccountBase):
    # -- other services -------------------------------------------------------
    def credential_report(self, users: list[dict[str, Any]]) -> dict[str, Any]:
        lines = [CREDENTIAL_COLUMNS]
        na = "N/A"
        lines.append(
            f"<root_account>,arn:aws:iam::{self.acct}:root,{_iso(BASE_TIME - timedelta(days=2000))},not_supported,"
            f"{self._time(30)},not_supported,not_supported,true,false,{na},{na},{na},{na},false,{na},{na},{na},{na},"
            f"false,{na},false,{na}"
        )
        rows = [(u["UserName"], u["Arn"], u["CreateDate"]) for u in users]
        if self.o.messy:
            rows.append(("departed.user", f"arn:aws:iam::{self.acct}:user/departed.user", self._time()))
        for name, arn, created in rows:
            password = self.rng.random() < 0.6
            key1 = self.rng.random() < 0.8
            key1_active = key1 and self.rng.random() < 0.85
            key2 = self.rng.random() < 0.15
            key2_active = key2 and self.rng.random() < 0.5
            used = self._time(30)
            cells = [
                name,
                arn,
                created,
                "true" if password else "false",
                (used if self.rng.random() < 0.8 else "no_information") if password else na,
                self._time(300) if password else na,
                na,
                "true" if password and self.rng.random() < 0.7 else "false",
                "true" if key1_active else "false",
                self._time(400) if key1 else na,
                self._time(20) if key1_active else na,
                self.rng.choice(REGIONS) if key1_active else na,
                self.rng.choice(("s3", "sts", "ec2", "iam")) if key1_active else na,
                "true" if key2_active else "false",
                self._time(400) if key2 else na,
                self._time(20) if key2_active else na,
                self.rng.choice(REGIONS) if key2_active else na,
                "s3" if key2_active else na,
                "false",
                na,
                "false",
                na,
            ]
            lines.append(",".join(cells))
        content = "\n".join(lines)
        return {
            "Content": base64.b64encode(content.encode()).decode(),
            "ReportFormat": "text/csv",
            "GeneratedTime": _iso(BASE_TIME),
        }

    def instances(self, profiles: dict[int, dict[str, Any]]) -> dict[str, Any]:
        reservations = []
        roles = sorted(profiles)
        for n in range(self.o.instance_count):
            instance_id, region = self.instance_ids[n]
            zone = f"{region}{self.rng.choice('abc')}"
            launched = self._time(200)
            private_ip = f"10.{self.rng.randint(0, 255)}.{self.rng.randint(0, 255)}.{self.rng.randint(1, 254)}"
            public = self.rng.random() < 0.3
            public_ip = f"54.{self.rng.randint(0, 255)}.{self.rng.randint(0, 255)}.{self.rng.randint(1, 254)}"
            vpc, subnet = f"vpc-{self.rng.getrandbits(68):017x}", f"subnet-{self.rng.getrandbits(68):017x}"
            team = n % self.teams
            eni: dict[str, Any] = {
                "Attachment": {
                    "AttachTime": launched,
                    "AttachmentId": f"eni-attach-{self.rng.getrandbits(68):017x}",
                    "DeleteOnTermination": True,
                    "DeviceIndex": 0,
                    "Status": "attached",
                    "NetworkCardIndex": 0,
                },
                "Description": "",
                "Groups": [{"GroupId": f"sg-{self.rng.getrandbits(68):017x}", "GroupName": "default"}],
                "Ipv6Addresses": [],
                "MacAddress": "02:00:00:" + ":".join(f"{self.rng.randrange(256):02x}" for _ in range(3)),
                "NetworkInterfaceId": f"eni-{self.rng.getrandbits(68):017x}",
                "OwnerId": self.acct,
                "PrivateDnsName": f"ip-{private_ip.replace('.', '-')}.ec2.internal",
                "PrivateIpAddress": private_ip,
                "PrivateIpAddresses": [{"Primary": True, "PrivateIpAddress": private_ip}],
                "SourceDestCheck": True,
                "Status": "in-use",
                "SubnetId": subnet,
                "VpcId": vpc,
                "InterfaceType": "interface",
            }
            if public:
                association = {
                    "IpOwnerId": "amazon",
                    "PublicDnsName": f"ec2-{public_ip.replace('.', '-')}.compute-1.amazonaws.com",
                    "PublicIp": public_ip,
                }
                eni["Association"] = association
                eni["PrivateIpAddresses"][0]["Association"] = association
            instance: dict[str, Any] = {
                "Architecture": "x86_64",
                "BlockDeviceMappings": [
                    {
                        "DeviceName": "/dev/xvda",
                        "Ebs": {
                            "AttachTime": launched,
                            "DeleteOnTermination": True,
                            "Status": "attached",
                            "VolumeId": f"vol-{self.rng.getrandbits(68):017x}",
                        },
                    }
                ],
                "ClientToken": "",
                "EbsOptimized": False,
                "Hypervisor": "xen",
                "NetworkInterfaces": [eni],
                "RootDeviceName": "/dev/xvda",
                "RootDeviceType": "ebs",
                "SecurityGroups": [{"GroupId": eni["Groups"][0]["GroupId"], "GroupName": "default"}],
                "SourceDestCheck": True,
                "SriovNetSupport": "simple",
                "StateReason": {"Code": "", "Message": ""},
                "Tags": [{"Key": "Name", "Value": f"t{team}-{self._word()}-{n}"}, {"Key": "team", "Value": f"t{team}"}],
                "VirtualizationType": "hvm",
                "HibernationOptions": {"Configured": False},
                "MetadataOptions": {
                    "State": "applied",
                    "HttpTokens": self.rng.choice(("optional", "required")),
                    "HttpPutResponseHopLimit": 2,
                    "HttpEndpoint": "enabled",
                    "HttpProtocolIpv6": "disabled",
                    "InstanceMetadataTags": "disabled",
                },
                "InstanceId": instance_id,
                "ImageId": f"ami-{self.rng.getrandbits(68):017x}",
                "State": {"Code": 16, "Name": "running"},
                "PrivateDnsName": eni["PrivateDnsName"],
                "PublicDnsName": eni.get("Association", {}).get("PublicDnsName", ""),
                "StateTransitionReason": "",
                "AmiLaunchIndex": 0,
                "ProductCodes": [],
                "InstanceType": self.rng.choice(("t3.micro", "t3.medium", "m5.large", "c5.xlarge")),
                "LaunchTime": launched,
                "Placement": {"GroupName": "", "Tenancy": "default", "AvailabilityZone": zone},
                "Platform": "windows",
                "Monitoring": {"State": "disabled"},
                "SubnetId": subnet,
                "VpcId": vpc,
                "PrivateIpAddress": private_ip,
            }
            if self.rng.random() < 0.85:
                del instance["Platform"]  # only Windows instances carry it
            if public:
                instance["PublicIpAddress"] = public_ip
            if roles and self.rng.random() < 0.85:
                profile = profiles[self.rng.choice(roles)]
                instance["IamInstanceProfile"] = {"Arn": profile["Arn"], "Id": profile["InstanceProfileId"]}
            reservations.append(
                {
                    "ReservationId": f"r-{self.rng.getrandbits(68):017x}",
                    "OwnerId": self.acct,
                    "Groups": [],
                    "Instances": [instance],
                }
            )
        return {"Reservations": reservations}

    def functions(self) -> dict[str, Any]:
        out = []
        for n in range(self.o.function_count):
            team = n % self.teams
            region = self.rng.choice(REGIONS)
            name = f"t{team}-{self._word()}-fn-{n}"
            role = (
                self.role_arn(self.rng.choice(self.lambda_roles))
                if self.lambda_roles
                else f"arn:aws:iam::{self.acct}:role/service-role/{name}-role"
            )
            modified = BASE_TIME - timedelta(seconds=self.rng.randrange(300 * 86400))
            out.append(
                {
                    "FunctionName": name,
                    "FunctionArn": f"arn:aws:lambda:{region}:{self.acct}:function:{name}",
                    "Runtime": self.rng.choice(("python3.12", "nodejs20.x", "java21")),
                    "Role": role,
                    "Handler": "index.handler",
                    "CodeSize": self.rng.randint(200, 5_000_000),
                    "Description": "",
                    "Timeout": self.rng.choice((3, 30, 300)),
                    "MemorySize": self.rng.choice((128, 256, 1024)),
                    "LastModified": modified.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.rng.randrange(1000):03d}+0000",
                    "CodeSha256": base64.b64encode(self.rng.randbytes(32)).decode(),
                    "Version": "$LATEST",
                    "TracingConfig": {"Mode": "PassThrough"},
                    "RevisionId": str(uuid.UUID(int=self.rng.getrandbits(128), version=4)),
                    "Layers": [],
                    "State": "Active",
                    "LastUpdateStatus": "Successful",
                    "PackageType": "Zip",
                    "Architectures": ["x86_64"],
                    "EphemeralStorage": {"Size": 512},
                    "SnapStart": {"ApplyOn": "None", "OptimizationStatus": "Off"},
                }
            )
        return {"Functions": out}

    def list_buckets(self) -> dict[str, Any]:
        return {
            "Buckets": [{"Name": name, "CreationDate": self._time()} for name in self.buckets],
            "Owner": {"DisplayName": f"owner-{self.acct[-4:]}", "ID": f"{self.rng.getrandbits(256):064x}"},
        }

    def findings(self, users: list[dict[str, Any]], instances: dict[str, Any]) -> dict[str, Any]:
        out = []
        instance_ids = [r["Instances"][0]["InstanceId"] for r in instances["Reservations"]]
        detector = f"{self.rng.getrandbits(128):032x}"
        for n in range(self.o.findings):
            finding_type, resource_type, severity = FINDING_TYPES[n % len(FINDING_TYPES)]
            region = self.rng.choice(REGIONS)
            finding_id = f"{self.rng.getrandbits(128):032x}"
            first = self._time(10)
            resource: dict[str, Any] = {"ResourceType": resource_type}
            if resource_type == "AccessKey":
                user = self.rng.choice(users) if users else None
                resource["AccessKeyDetails"] = {
                    "AccessKeyId": "AKIA" + "".join(self.rng.choices(string.ascii_uppercase + string.digits, k=16)),
                    "PrincipalId": user["UserId"] if user else self._id("AIDA"),
                    "UserName": user["UserName"] if user else "ghost",
                    "UserType": "IAMUser",
                }
            elif instance_ids:
                resource["InstanceDetails"] = {
                    "InstanceId": self.rng.choice(instance_ids),
                    "InstanceType": "t3.micro",
                    "AvailabilityZone": f"{region}a",
                    "InstanceState": "running",
                    "Tags": [],
                }
            else:
                resource["InstanceDetails"] = {
                    "InstanceId": "i-00000000000000000",
                    "InstanceState": "terminated",
                    "Tags": [],
                }
            out.append(
                {
                    "AccountId": self.acct,
                    "Arn": f"arn:aws:guardduty:{region}:{self.acct}:detector/{detector}/finding/{finding_id}",
                    "CreatedAt": first.replace("+00:00", ".000Z"),
                    "Description": f"{finding_type} was observed.",
                    "Id": finding_id,
                    "Partition": "aws",
                    "Region": region,
                    "Resource": resource,
                    "SchemaVersion": "2.0",
                    "Service": {
                        "Archived": False,
                        "Count": self.rng.randint(1, 40),
                        "DetectorId": detector,
                        "EventFirstSeen": first.replace("+00:00", ".000Z"),
                        "EventLastSeen": self._time(1).replace("+00:00", ".000Z"),
                        "ResourceRole": "TARGET",
                        "ServiceName": "guardduty",
                    },
                    "Severity": severity,
                    "Title": f"{finding_type.split('/')[-1]} on {resource_type.lower()}",
                    "Type": finding_type,
                    "UpdatedAt": self._time(1).replace("+00:00", ".000Z"),
                }
            )
        return {"Findings": out}
