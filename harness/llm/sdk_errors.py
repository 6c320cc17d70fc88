"""Turning the openai and anthropic SDKs' exceptions into the harness's provider errors.

Both SDKs share one exception design (status errors with a response, connection
errors, timeouts), so one classifier serves both. Messages go through the one
redaction (:func:`harness.llm.secrets.redact`) and are never chained to the SDK
exception, whose text may echo a request's key.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Iterable
from typing import Any

from harness.errors import (
    BadResponseError,
    ErrorKind,
    FatalProviderError,
    ProviderError,
    TransientProviderError,
)
from harness.llm.secrets import REDACTED, redact


def retry_after_seconds(headers: Any) -> float | None:
    """The server's retry hint: ``retry-after-ms``, else ``retry-after`` (seconds or a date)."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value is not None:
        try:
            return max(float(value) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        if parsed is None:
            return None
        return max(parsed.timestamp() - time.time(), 0.0)


def classify(exc: BaseException, provider: str, secrets: Iterable[str] = ()) -> ProviderError:
    """The provider error an SDK exception stands for.

    ``secrets`` are hidden along with every registered key (see :mod:`harness.llm.secrets`).
    """
    secrets = tuple(secrets)
    detail = redact(f"{type(exc).__name__}: {exc}", secrets)
    if isinstance(exc, UnicodeDecodeError):
        return BadResponseError("decode", f"{provider}: the response is not valid UTF-8")
    name = type(exc).__name__
    if name == "APITimeoutError":
        return TransientProviderError("timeout", f"{provider}: the request timed out")
    if name == "APIConnectionError":
        return TransientProviderError("connection", f"{provider}: connection failed ({detail})")
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        kind = _status_kind(status)
        message = f"{provider}: HTTP {status}: {detail}"
        if kind in ("rate_limit", "server"):
            response = getattr(exc, "response", None)
            headers = getattr(response, "headers", None)
            return TransientProviderError(kind, message, retry_after_seconds(headers))
        return FatalProviderError(kind, message)
    if name == "APIResponseValidationError":
        return BadResponseError("decode", f"{provider}: malformed response ({detail})")
    return BadResponseError("decode", f"{provider}: unusable response ({detail})")


def _status_kind(status: int) -> ErrorKind:
    if status == 429:
        return "rate_limit"
    if status >= 500 or status in (408, 409):
        return "server"
    if status in (401, 403):
        return "auth"
    if status == 404:
        return "not_found"
    return "bad_request"


__all__ = [
    "REDACTED",
    "classify",
    "redact",
    "retry_after_seconds",
]
