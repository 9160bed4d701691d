"""AWS profiles as boto3 sessions: the collect profile's, and the respond profile's that containment
hands to `respond/aws/` (which never opens a profile itself). The profiles and regions a page lists."""

from __future__ import annotations

from typing import Any

__all__ = ["aws_profiles", "aws_regions", "profile_session"]


def profile_session(profile: str | None) -> Any:
    """A boto3 session of `profile` (None or '': boto3's default chain). Raises ValueError for a
    profile that is not in the AWS config."""
    import boto3
    import botocore.exceptions

    try:
        return boto3.Session(profile_name=profile or None)
    except botocore.exceptions.ProfileNotFound as exc:
        raise ValueError(f"AWS profile {profile!r} is not in the AWS config: {exc}") from None


def aws_regions() -> list[str]:
    """The regions botocore knows for EC2 (from its bundled endpoint data; no call is made)."""
    import botocore.session

    return sorted(botocore.session.Session().get_available_regions("ec2")) or ["us-east-1"]


def aws_profiles() -> list[str]:
    """The profiles of the user's AWS config and credentials files (botocore's own listing)."""
    import botocore.session

    return sorted(botocore.session.Session().available_profiles)
