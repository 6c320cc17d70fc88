"""The one wrapper around every LLM call: retries, time bounds, limits, accounting.

- tenacity is the only retry layer (the SDKs are built with ``max_retries=0``). It
  retries 429s (honouring Retry-After, capped), 5xx, timeouts and dropped
  connections, with jittered exponential backoff, and stops rather than sleep past
  the caller's deadline.
- ``asyncio.timeout`` bounds each attempt by min(call timeout, time left).
- Each attempt takes its own slot from the (provider, model) limiter, so a retry
  waits its turn like any other call.
- A :class:`FatalProviderError` (auth, not found) propagates: the run must stop.
  Transient failures that outlast the deadline, unusable responses, and requests
  the server refused as invalid (:class:`RefusedRequestError`, never retried) come
  back as a :class:`CallReport` with ``failure`` set and the server's message in
  ``message``: the seat falls back.
- Each attempt's time is split in two: waiting for the limiter (``wait_s``) and in
  the HTTP request (``request_s``), so a figure of latency says where it went.
- With a :class:`~harness.llm.cache.CallCache` and a key, an answer stored under the
  key is returned without any request (``cached``), and a new answer is stored.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    wait_random_exponential,
)

from harness.defaults import CALL_TIMEOUT_SECONDS
from harness.errors import (
    BadResponseError,
    ErrorKind,
    RefusedRequestError,
    TransientProviderError,
)
from harness.llm.cache import CallCache
from harness.llm.limits import CallLimiter
from harness.llm.types import Completion, CompletionRequest, Provider, Usage, messages_sha256

#: A failed attempt's message is kept up to this many characters.
MESSAGE_CHARS = 1000


@dataclass(frozen=True)
class RetryPolicy:
    """How long one attempt may take and how retries back off."""

    call_timeout_s: float = CALL_TIMEOUT_SECONDS
    backoff_initial_s: float = 0.5
    backoff_max_s: float = 8.0
    retry_after_cap_s: float = 30.0


@dataclass(frozen=True)
class Price:
    """US dollars per million input and output tokens."""

    input_per_mtok: float
    output_per_mtok: float

    def cost(self, usage: Usage) -> float:
        """The price of ``usage``."""
        return (
            usage.input_tokens * self.input_per_mtok + usage.output_tokens * self.output_per_mtok
        ) / 1_000_000


@dataclass
class CallReport:
    """Accounting for one logical call, every retry included."""

    provider: str
    model: str
    attempts: int = 0
    errors: list[ErrorKind] = field(default_factory=list)
    latency_s: float = 0.0
    wait_s: float = 0.0
    """Time spent waiting for the limiter, every attempt together."""
    request_s: float = 0.0
    """Time spent in HTTP requests, every attempt together."""
    completion: Completion | None = None
    failure: TransientProviderError | BadResponseError | RefusedRequestError | None = None
    message: str | None = None
    """The last failed attempt's message (already redacted), cut to MESSAGE_CHARS."""
    cost_usd: float | None = None
    cached: bool = False
    """The answer came from the cache: no request was made."""
    prompt_sha256: str | None = None
    """sha256 of the messages sent (:func:`~harness.llm.types.messages_sha256`)."""

    @property
    def usage(self) -> Usage:
        """Tokens of the successful attempt (failed attempts report none)."""
        return self.completion.usage if self.completion else Usage()


class _Wait:
    """Jittered exponential backoff, but never shorter than a (capped) Retry-After."""

    def __init__(self, policy: RetryPolicy) -> None:
        self._jitter = wait_random_exponential(
            multiplier=policy.backoff_initial_s, max=policy.backoff_max_s
        )
        self._cap = policy.retry_after_cap_s

    def __call__(self, state: RetryCallState) -> float:
        backoff: float = self._jitter(state)
        exc = state.outcome.exception() if state.outcome else None
        hint = getattr(exc, "retry_after", None)
        if hint is not None:
            return min(float(hint), self._cap)
        return backoff


class _StopAtDeadline:
    """Stop when the next attempt could not start before the deadline."""

    def __init__(self, deadline: float) -> None:
        self._deadline = deadline

    def __call__(self, state: RetryCallState) -> bool:
        now = asyncio.get_running_loop().time()
        return now + state.upcoming_sleep >= self._deadline


async def call_llm(
    provider: Provider,
    request: CompletionRequest,
    *,
    limiter: CallLimiter,
    policy: RetryPolicy,
    deadline: float,
    price: Price | None = None,
    cache: CallCache | None = None,
    cache_key: str | None = None,
) -> CallReport:
    """Call ``provider`` with retries until it answers or ``deadline`` (``loop.time()``).

    With ``cache`` and ``cache_key``, a stored answer is returned at once (no request,
    ``cached`` set) and a new answer is stored before this returns.
    """
    loop = asyncio.get_running_loop()
    report = CallReport(
        provider=provider.name, model=request.model, prompt_sha256=messages_sha256(request.messages)
    )
    started = time.perf_counter()
    if cache is not None and cache_key is not None:
        stored = await cache.get(cache_key)
        if stored is not None:
            report.completion, report.cached = stored, True
            report.latency_s = time.perf_counter() - started
            return report

    async def attempt() -> Completion:
        report.attempts += 1
        left = deadline - loop.time()
        bound = min(policy.call_timeout_s, left)
        asked = time.perf_counter()
        sent: float | None = None
        try:
            if bound <= 0:
                raise TimeoutError
            async with asyncio.timeout(bound):
                async with limiter.slot():
                    sent = time.perf_counter()
                    report.wait_s += sent - asked
                    try:
                        return await provider.complete(replace(request, timeout_s=bound))
                    finally:
                        report.request_s += time.perf_counter() - sent
        except TimeoutError:
            if sent is None:  # the bound ran out in the limiter's queue
                report.wait_s += time.perf_counter() - asked
            report.errors.append("timeout")
            report.message = f"{provider.name}: no answer within {bound:.1f} s"
            raise TransientProviderError("timeout", report.message) from None
        except (TransientProviderError, BadResponseError, RefusedRequestError) as exc:
            report.errors.append(exc.kind)
            report.message = str(exc)[:MESSAGE_CHARS]
            raise

    retrying = AsyncRetrying(
        retry=retry_if_exception_type(TransientProviderError),
        wait=_Wait(policy),
        stop=_StopAtDeadline(deadline),
        reraise=True,
        sleep=asyncio.sleep,
    )
    try:
        report.completion = await retrying(attempt)
    except (TransientProviderError, BadResponseError, RefusedRequestError) as exc:
        report.failure = exc
    report.latency_s = time.perf_counter() - started
    if report.completion is not None:
        if price is not None:
            report.cost_usd = price.cost(report.completion.usage)
        if cache is not None and cache_key is not None:
            await cache.put(cache_key, report.completion)
    return report


__all__ = ["MESSAGE_CHARS", "CallReport", "Price", "RetryPolicy", "call_llm"]
