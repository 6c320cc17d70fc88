"""Turning the openai and anthropic SDKs' exceptions into the harness's provider errors.

Both SDKs share one exception design (status errors with a response, connection
errors, timeouts), so one classifier serves both. Messages go through the one
redaction (:func:`harness.llm.secrets.redact`) and are never chained to the SDK
exception, whose text may echo a request's key.

Timeouts and connection failures are told apart by what the transport raised, not
by the SDK's wrapper alone: the openai SDK's aiohttp adapter maps every aiohttp
connection error (a refused connection, a server that hung up) to a connect
*timeout*, so the wrapper's word is checked against the chain of causes.
"""

from __future__ import annotations

import datetime
import email.utils
import math
import re
import time
from collections.abc import Iterable, Iterator
from typing import Any

from aiohttp import ClientConnectionError

from harness.errors import (
    BadResponseError,
    ErrorKind,
    FatalProviderError,
    ProviderError,
    RefusedRequestError,
    TransientProviderError,
)
from harness.llm.secrets import REDACTED, redact

#: How many causes of an exception are looked at (chains can be long, or loop).
MAX_CAUSES = 32

#: What a 5xx body says when the server blamed the request, not itself: pydantic's
#: validation messages (llama-cpp-python answers a response_format it does not know
#: with HTTP 500 "Input should be 'text' or 'json_object'"), OpenAI-style error types,
#: and the usual words for an unknown or unsupported parameter. One alternation of
#: plain words: linear in the text.
INVALID_REQUEST = re.compile(
    r"input should be|validation error|invalid[ _]request|not supported|unsupported"
    r"|unrecognized request argument|extra (?:inputs|fields) (?:are )?not permitted"
    r"|field required|unknown (?:field|parameter|argument)|response_format",
    re.IGNORECASE,
)
#: Only the start of an error body is searched for those words.
INVALID_SCAN_CHARS = 4096


#: A retry hint is believed up to this many seconds (a day); a longer one, like a date
#: in the year 99999, is a server's nonsense, and the backoff applies instead. Hints
#: that are believed are still capped (``RetryPolicy.retry_after_cap_s``, 30 s).
MAX_RETRY_HINT_S = 86_400.0
#: A hint longer than this many characters is not read at all.
MAX_HINT_CHARS = 64
# delay-seconds as HTTP writes it (RFC 9110), with a fraction as retry-after-ms has
_DELAY = re.compile(r"[0-9]{1,12}+(?:\.[0-9]{1,9}+)?+")


def retry_after_seconds(headers: Any) -> float | None:
    """The server's retry hint in seconds: ``retry-after-ms``, else ``retry-after``.

    ``retry-after`` is a number of seconds or an HTTP date. Only a hint that reads as
    a wait of more than 0 and at most :data:`MAX_RETRY_HINT_S` seconds is returned;
    anything else (garbage, ``nan``, ``inf``, negative, zero, a date in the past, a
    date no calendar holds, a year like 99999) is None, and the caller's backoff
    applies. Never raises.
    """
    if headers is None:
        return None
    try:
        millis = _hint(headers.get("retry-after-ms"))
        if millis is not None:
            return _believed(millis / 1000.0)
        value = headers.get("retry-after")
    except (AttributeError, TypeError, ValueError):  # headers not as an SDK gives them
        return None
    seconds = _hint(value)
    if seconds is not None:
        return _believed(seconds)
    if not isinstance(value, str) or not value or len(value) > MAX_HINT_CHARS:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # HTTP dates are in GMT, whatever they say
        when = when.replace(tzinfo=datetime.UTC)
    try:
        wait = when.timestamp() - time.time()
    except (OverflowError, OSError, ValueError):
        return None
    return _believed(wait)


def _hint(value: Any) -> float | None:
    """A header's value as a plain decimal number, or None."""
    if not isinstance(value, str) or len(value) > MAX_HINT_CHARS:
        return None
    text = value.strip()
    return float(text) if _DELAY.fullmatch(text) else None


def _believed(seconds: float) -> float | None:
    """``seconds`` when it is a wait worth honouring (see :func:`retry_after_seconds`)."""
    if math.isfinite(seconds) and 0.0 < seconds <= MAX_RETRY_HINT_S:
        return seconds
    return None


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """The exceptions behind ``exc`` (``__cause__``, else ``__context__``), nearest first."""
    seen = {id(exc)}
    link = exc.__cause__ or exc.__context__
    for _ in range(MAX_CAUSES):
        if link is None or id(link) in seen:
            return
        seen.add(id(link))
        yield link
        link = link.__cause__ or link.__context__


def transport_failure(exc: BaseException) -> ErrorKind | None:
    """``timeout`` or ``connection``, as the transport under the SDK saw it; None if unknown.

    A :class:`TimeoutError` anywhere in the chain (aiohttp's timeouts derive from it,
    httpcore's come from one) means a timeout; otherwise an operating-system error
    (a refused connection, an unreachable host, a reset) or an aiohttp connection
    error (a server that hung up) means the connection failed.
    """
    causes = list(_causes(exc))
    if any(isinstance(c, TimeoutError) for c in causes):
        return "timeout"
    if any(isinstance(c, OSError | ClientConnectionError) for c in causes):
        return "connection"
    return None


def classify(exc: BaseException, provider: str, secrets: Iterable[str] = ()) -> ProviderError:
    """The provider error an SDK exception stands for.

    ``secrets`` are hidden along with every registered key (see :mod:`harness.llm.secrets`).
    """
    secrets = tuple(secrets)
    own = next(
        (c for c in (exc, *_causes(exc)) if isinstance(c, BadResponseError)),
        None,
    )
    if own is not None:
        # raised by the harness's own code under the SDK (a body past its cap): the
        # SDK may have wrapped it as a connection error, but it is what it says
        return BadResponseError(own.kind, redact(f"{provider}: {own}", secrets))
    # cut before the redaction: a server's message may be megabytes long
    detail = redact(f"{type(exc).__name__}: {_text(exc)}", secrets)
    if isinstance(exc, UnicodeDecodeError):
        return BadResponseError("decode", f"{provider}: the response is not valid UTF-8")
    name = type(exc).__name__
    if name in ("APITimeoutError", "APIConnectionError"):
        said: ErrorKind = "timeout" if name == "APITimeoutError" else "connection"
        kind = transport_failure(exc) or said
        if kind == "timeout":
            return TransientProviderError("timeout", f"{provider}: the request timed out")
        causes = list(_causes(exc))
        if causes:
            # the innermost error says what happened ("Connect call failed"), where the
            # SDK's own text may say "Request timed out" for a refused connection
            detail = redact(f"{type(causes[-1]).__name__}: {_text(causes[-1])}", secrets)
        return TransientProviderError("connection", f"{provider}: connection failed ({detail})")
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        kind = _status_kind(status)
        message = f"{provider}: HTTP {status}: {detail}"
        if kind == "bad_request" or (
            kind == "server" and INVALID_REQUEST.search(detail[:INVALID_SCAN_CHARS])
        ):
            # the server blamed the request: asking again gets the same answer
            return RefusedRequestError("bad_request", message)
        if kind in ("rate_limit", "server"):
            response = getattr(exc, "response", None)
            headers = getattr(response, "headers", None)
            return TransientProviderError(kind, message, retry_after_seconds(headers))
        return FatalProviderError(kind, message)
    if name == "APIResponseValidationError":
        return BadResponseError("decode", f"{provider}: malformed response ({detail})")
    return BadResponseError("decode", f"{provider}: unusable response ({detail})")


#: An exception's text is read up to this many characters (the record keeps 1000).
DETAIL_CHARS = 8192


def _text(exc: BaseException) -> str:
    """The exception's text on one line (a server's body quoted raw may hold line
    breaks), cut to :data:`DETAIL_CHARS`."""
    try:
        text = str(exc)[:DETAIL_CHARS]
    except Exception:  # an exception whose str() fails says nothing more
        return ""
    return " ".join(text.splitlines())


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
    "DETAIL_CHARS",
    "INVALID_REQUEST",
    "MAX_CAUSES",
    "MAX_HINT_CHARS",
    "MAX_RETRY_HINT_S",
    "REDACTED",
    "classify",
    "redact",
    "retry_after_seconds",
    "transport_failure",
]
