"""The google-genai client, built the one way every Gemini caller uses it: the Gemini decider
(`respond/decide.py`) and the model briefings (`brief/briefing.py`). It sits here, below both, so
a briefing does not reach into the responder's folder for it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .settings import Settings

if TYPE_CHECKING:  # google-genai is imported when a client is built, not with this module
    from google.genai import Client

__all__ = ["gemini_client"]


def gemini_client(settings: Settings) -> Client:
    """A client with the configured key, base URL and timeout, and no retries (a caller with a
    key only: check `settings.gemini_api_key` first). google-genai is imported here, when a client
    is built."""
    from google import genai
    from google.genai import types

    assert settings.gemini_api_key is not None
    http = types.HttpOptions(
        base_url=settings.gemini_base_url,
        timeout=int(settings.gemini_timeout_s * 1000),
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    return genai.Client(api_key=settings.gemini_api_key.get_secret_value(), http_options=http)
