"""The one wrapper around every LLM call: retries, time bounds, limits, accounting.

- tenacity is the only retry layer (the SDKs are built with ``max_retries=0``). It
  retries 429s (honouring a believable Retry-After, capped), 5xx, timeouts and
  dropped connections, with jittered exponential backoff. Every wait is at least a
  floor and at most the time left before the caller's deadline, and a retry that
  would not have the floor's worth of time left after its wait is not made: no hint,
  however odd, defeats the deadline.
- ``asyncio.timeout`` bounds each attempt by min(call timeout, time left).
- Each attempt takes its own slot from the (provider, model) limiter, so a retry
  waits its turn like any other call; under a tokens-per-minute limit it counts for
  its bound (:func:`token_bound`) until its answer says what it cost.
- A :class:`FatalProviderError` (auth, not found) propagates: the run must stop.
  Transient failures that outlast the deadline, unusable responses, and requests
  the server refused as invalid (:class:`RefusedRequestError`, never retried) come
  back as a :class:`CallReport` with ``failure`` set and the server's message in
  ``message``: the seat falls back.
- A :class:`~harness.llm.fleet.Fleet` (a provider with several base URLs) is asked
  for an endpoint once the limiter admitted the attempt; the report names the
  endpoint that answered and counts the failed attempts per endpoint.
- The answered attempt's request says whether it shared the server with another
  (``overlapped``) and, where the server reports it, the server's own time for it
  (``server_ms``): the raw facts of the queueing figures (:mod:`harness.llm.queueing`).
- Each attempt's time is split in two: waiting for the limiter (``wait_s``) and in
  the HTTP request (``request_s``), so a figure of latency says where it went.
- With a :class:`~harness.llm.cache.CallCache` and a key, an answer stored under the
  key is returned without any request (``cached``), and a new answer is stored.
- Every answer, from any provider or the cache, is checked before it is used: its
  token counts (:meth:`Usage.checked`) and its text, from which any registered key
  is redacted (a model may repeat one it saw), before the record or the cache sees it.
- A count that is unknown is priced as the budget bounds the call
  (:func:`input_tokens_priced`, the request's ``max_tokens``), so a recorded cost,
  and ``--max-cost``, never take a call whose server said nothing usable about its
  tokens (or a negative count) for a free one.
"""

from __future__ import annotations

import asyncio
import math
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
from harness.llm.fleet import Fleet
from harness.llm.limits import CallLimiter
from harness.llm.pricing import Price, input_tokens_priced
from harness.llm.queueing import in_flight
from harness.llm.secrets import redact
from harness.llm.types import (
    Completion,
    CompletionRequest,
    Provider,
    Usage,
    messages_sha256,
)
from harness.llm.wire import server_ms, stop_reason
from harness.text import clip_reply

#: A failed attempt's message is kept up to this many characters.
MESSAGE_CHARS = 1000
#: Answers longer than this (in characters) are checked and redacted in a worker thread.
CHECK_OFF_LOOP_CHARS = 1 << 16


@dataclass(frozen=True)
class RetryPolicy:
    """How long one attempt may take and how retries back off.

    A wait is the server's hint (capped at ``retry_after_cap_s``) when it gave a
    believable one, else jittered exponential backoff; never less than
    ``backoff_floor_s``, never past the deadline.
    """

    call_timeout_s: float = CALL_TIMEOUT_SECONDS
    backoff_initial_s: float = 0.5
    backoff_max_s: float = 8.0
    retry_after_cap_s: float = 30.0
    backoff_floor_s: float = 0.25


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
    endpoint: str | None = None
    """For a :class:`~harness.llm.fleet.Fleet`: the endpoint that answered."""
    overlapped: bool | None = None
    """Whether another request to the same server was in flight during the answered
    attempt (:mod:`harness.llm.queueing`); None without an answer."""
    server_ms: float | None = None
    """The server's own time for the answered attempt, where it reports one."""
    endpoint_errors: dict[str, int] = field(default_factory=dict)
    """For a fleet: the failed attempts per endpoint (an attempt made while every
    endpoint was out went to none, and is only in ``errors``)."""

    def failed_at(self, endpoint: str | None, kind: ErrorKind) -> None:
        """Count a failed attempt of ``kind``, at ``endpoint`` when it went to one."""
        self.errors.append(kind)
        if endpoint is not None:
            self.endpoint_errors[endpoint] = self.endpoint_errors.get(endpoint, 0) + 1

    @property
    def usage(self) -> Usage:
        """Tokens of the successful attempt (failed attempts report none: zero)."""
        return self.completion.usage if self.completion else Usage(0, 0)


def usable_hint(hint: object) -> float | None:
    """A retry hint (seconds) worth waiting for: a finite number above zero, else None."""
    if isinstance(hint, bool) or not isinstance(hint, int | float):
        return None
    seconds = float(hint)
    return seconds if math.isfinite(seconds) and seconds > 0 else None


class _Wait:
    """The server's (capped) hint, else jittered exponential backoff; at least the floor,
    at most the time left before the deadline."""

    def __init__(self, policy: RetryPolicy, deadline: float) -> None:
        self._jitter = wait_random_exponential(
            multiplier=policy.backoff_initial_s, max=policy.backoff_max_s
        )
        self._cap = policy.retry_after_cap_s
        self._floor = policy.backoff_floor_s
        self._deadline = deadline

    def __call__(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        hint = usable_hint(getattr(exc, "retry_after", None))
        wait = min(hint, self._cap) if hint is not None else float(self._jitter(state))
        wait = max(wait, self._floor)
        left = self._deadline - asyncio.get_running_loop().time()
        return max(min(wait, left), 0.0)


class _StopAtDeadline:
    """Stop when the next attempt, after its wait, would have less than ``least`` seconds
    before the deadline: an attempt cut off as it starts only turns a server's answer
    into a timeout."""

    def __init__(self, deadline: float, least: float) -> None:
        self._deadline = deadline
        self._least = least

    def __call__(self, state: RetryCallState) -> bool:
        now = asyncio.get_running_loop().time()
        sleep = state.upcoming_sleep
        return not math.isfinite(sleep) or now + sleep + self._least >= self._deadline


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
            report.completion, report.cached = await checked(stored), True
            report.latency_s = time.perf_counter() - started
            return report

    async def attempt() -> Completion:
        report.attempts += 1
        left = deadline - loop.time()
        bound = min(policy.call_timeout_s, left)
        asked = time.perf_counter()
        sent: float | None = None
        where: str | None = None  # the fleet's endpoint this attempt went to
        try:
            if bound <= 0:
                raise TimeoutError
            async with asyncio.timeout(bound):
                async with limiter.slot(token_bound(request)) as admission:
                    sent = time.perf_counter()
                    report.wait_s += sent - asked
                    shaped = replace(request, timeout_s=bound)
                    try:
                        if isinstance(provider, Fleet):
                            async with provider.lease() as endpoint:
                                where = endpoint.label
                                with endpoint.requests.span() as span:
                                    completion = await provider.send(endpoint, shaped)
                        else:
                            with in_flight(provider).span() as span:
                                completion = await provider.complete(shaped)
                        admission.settle(tokens_spent(completion.usage))
                        report.endpoint = where
                        report.overlapped = span.overlapped
                        report.server_ms = server_ms(completion.server_ms)
                        return completion
                    finally:
                        report.request_s += time.perf_counter() - sent
        except TimeoutError:
            if sent is None:  # the bound ran out in the limiter's queue
                report.wait_s += time.perf_counter() - asked
            report.failed_at(where, "timeout")
            report.message = f"{provider.name}: no answer within {bound:.1f} s"
            raise TransientProviderError("timeout", report.message) from None
        except (TransientProviderError, BadResponseError, RefusedRequestError) as exc:
            report.failed_at(where, exc.kind)
            report.message = str(exc)[:MESSAGE_CHARS]
            raise

    retrying = AsyncRetrying(
        retry=retry_if_exception_type(TransientProviderError),
        wait=_Wait(policy, deadline),
        stop=_StopAtDeadline(deadline, policy.backoff_floor_s),
        reraise=True,
        sleep=asyncio.sleep,
    )
    try:
        report.completion = await checked(await retrying(attempt))
    except (TransientProviderError, BadResponseError, RefusedRequestError) as exc:
        report.failure = exc
    report.latency_s = time.perf_counter() - started
    if report.completion is not None:
        if price is not None:
            # at the rates of the tier that served the call, else of the one asked for
            tier = report.completion.service_tier or request.service_tier
            report.cost_usd = price.for_tier(tier).cost(report.completion.usage, request)
        if cache is not None and cache_key is not None:
            await cache.put(cache_key, report.completion)
    return report


def token_bound(request: CompletionRequest) -> int:
    """What ``request`` may cost in tokens before it is sent, for a tokens-per-minute
    limit: its input as the budget estimates it (:func:`input_tokens_priced`) plus its
    ``max_tokens`` (every output token it may be given)."""
    return input_tokens_priced(request) + request.max_tokens


def tokens_spent(usage: Usage) -> int | None:
    """What an answer cost against a tokens-per-minute limit: its input and output
    tokens, or None when either count is unknown (the call's bound stays)."""
    counted = usage.checked()
    if counted.input_tokens is None or counted.output_tokens is None:
        return None
    return counted.input_tokens + counted.output_tokens


def check_completion(completion: Completion) -> Completion:
    """``completion`` as the harness uses it: counts checked, keys redacted from the text.

    A provider built on the SDKs has checked its answer already (:mod:`harness.llm.wire`);
    the others (Inspect's, scripted ones) and the cache are checked here, the one place
    every answer passes.
    """
    text = completion.text if isinstance(completion.text, str) else ""
    model = completion.model if isinstance(completion.model, str) else ""
    reasoning = completion.reasoning if isinstance(completion.reasoning, str) else None
    clipped = completion.reasoning_clipped
    if reasoning:
        # a model may think aloud about a key it saw, as it may repeat one; then cut
        # where a record cuts a reply (decision R8)
        kept = clip_reply(redact(reasoning))
        reasoning, clipped = kept.text, clipped or kept.clipped
    return replace(
        completion,
        text=redact(text),
        model=model,
        usage=completion.usage.checked(),
        stop_reason=stop_reason(completion.stop_reason),
        server_ms=server_ms(completion.server_ms),
        reasoning=reasoning or None,
        reasoning_clipped=bool(reasoning) and clipped,
        service_tier=stop_reason(completion.service_tier),
    )


async def checked(completion: Completion) -> Completion:
    """:func:`check_completion`, in a worker thread for an answer over
    :data:`CHECK_OFF_LOOP_CHARS` (redaction is linear, but Python work)."""
    size = sum(len(t) for t in (completion.text, completion.reasoning) if isinstance(t, str))
    if size > CHECK_OFF_LOOP_CHARS:
        return await asyncio.to_thread(check_completion, completion)
    return check_completion(completion)


__all__ = [
    "CHECK_OFF_LOOP_CHARS",
    "MESSAGE_CHARS",
    "CallReport",
    "Price",
    "RetryPolicy",
    "call_llm",
    "check_completion",
    "checked",
    "input_tokens_priced",
    "token_bound",
    "tokens_spent",
    "usable_hint",
]
