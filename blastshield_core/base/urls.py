"""URLs as they may be shown: without the password they may carry."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit, urlunsplit

__all__ = ["redact_url"]


def redact_url(url: str) -> str:
    """A URL without its password, read with a URL parser (a password may itself contain `@`)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "***"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostinfo = netloc.rpartition("@")  # the host follows the last `@`
        user, has_password, _ = userinfo.partition(":")
        netloc = f"{user}:***@{hostinfo}" if has_password else f"***@{hostinfo}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = "&".join(f"{k}={'***' if 'pass' in k.lower() else v}" for k, v in pairs)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
