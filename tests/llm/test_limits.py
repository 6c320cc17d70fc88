"""Rate limits, in-flight caps and the retry wrapper, measured rather than timed."""

from __future__ import annotations

import asyncio
import time

import pytest

from harness.errors import FatalProviderError, TransientProviderError
from harness.llm.calls import CallReport, RetryPolicy, call_llm
from harness.llm.limits import CallLimiter, LimiterRegistry, Limits
from harness.llm.scripted import ScriptedProvider
from harness.llm.types import CompletionRequest, Message

REQUEST = CompletionRequest(model="m", messages=(Message("user", "hi"),))


def test_rate_limit_windows_and_first_come_first_served() -> None:
    n, callers = 5, 17
    limiter = CallLimiter(Limits(requests=n, period_s=1.0))
    admitted: list[tuple[int, float]] = []

    async def caller(i: int) -> None:
        async with limiter.slot():
            admitted.append((i, time.monotonic()))

    async def main() -> None:
        # tasks start in creation order, so they reach the limiter in that order
        await asyncio.gather(*(caller(i) for i in range(callers)))

    asyncio.run(main())
    order = [i for i, _ in admitted]
    assert order == list(range(callers))  # first come, first served
    stamps = [t for _, t in admitted]
    for i in range(callers - n):
        # any n + 1 consecutive admissions span more than one period:
        # no window of one second admits more than n
        assert stamps[i + n] - stamps[i] > 1.0
    assert limiter.admitted == callers


def test_in_flight_cap() -> None:
    limiter = CallLimiter(Limits(in_flight=3))
    now = peak = 0

    async def caller() -> None:
        nonlocal now, peak
        async with limiter.slot():
            now += 1
            peak = max(peak, now)
            await asyncio.sleep(0.01)
            now -= 1

    async def main() -> None:
        await asyncio.gather(*(caller() for _ in range(12)))

    asyncio.run(main())
    assert peak == 3


def test_registry_shares_one_limiter_per_provider_and_model() -> None:
    registry = LimiterRegistry()
    a = registry.get("openai", "m1", Limits(requests=3))
    assert registry.get("openai", "m1", Limits(requests=99)) is a
    assert registry.get("openai", "m2", Limits(requests=3)) is not a
    assert registry.get("anthropic", "m1", Limits(requests=3)) is not a


def run_call(
    provider: ScriptedProvider, deadline_in: float, **policy: float
) -> tuple[CallReport, CallLimiter]:
    limiter = CallLimiter(Limits())

    async def main() -> CallReport:
        loop = asyncio.get_running_loop()
        return await call_llm(
            provider,
            REQUEST,
            limiter=limiter,
            policy=RetryPolicy(**policy),
            deadline=loop.time() + deadline_in,
        )

    return asyncio.run(main()), limiter


def test_each_attempt_takes_its_own_limiter_slot() -> None:
    provider = ScriptedProvider(
        [
            TransientProviderError("server", "boom"),
            TransientProviderError("rate_limit", "slow", 0),
            "ok",
        ]
    )
    report, limiter = run_call(provider, 10.0, backoff_initial_s=0.001, backoff_max_s=0.01)
    assert report.completion is not None
    assert report.completion.text == "ok"
    assert (report.attempts, report.errors) == (3, ["server", "rate_limit"])
    assert limiter.admitted == 3


def test_backoff_never_sleeps_past_the_deadline() -> None:
    # The server asks for 20 s; only 1 s is left: give up now rather than sleep past it.
    provider = ScriptedProvider([TransientProviderError("rate_limit", "slow down", 20.0), "late"])
    report, _ = run_call(provider, 1.0)
    assert report.completion is None
    assert report.failure is not None
    assert report.failure.kind == "rate_limit"
    assert report.attempts == 1
    assert len(provider.requests) == 1


def test_retry_after_is_capped() -> None:
    provider = ScriptedProvider([TransientProviderError("rate_limit", "slow", 3600.0), "ok"])
    report, _ = run_call(provider, 5.0, retry_after_cap_s=0.05)
    assert report.completion is not None
    assert report.attempts == 2


def test_an_attempt_is_bounded_by_the_call_timeout() -> None:
    provider = ScriptedProvider(["slow"] * 20, latency_s=0.5)
    report, _ = run_call(provider, 1.0, call_timeout_s=0.1, backoff_initial_s=0.01)
    assert report.completion is None
    assert report.failure is not None
    assert report.failure.kind == "timeout"
    assert report.attempts >= 2
    assert set(report.errors) == {"timeout"}


def test_fatal_errors_are_not_retried() -> None:
    provider = ScriptedProvider([FatalProviderError("auth", "no"), "ok"])
    with pytest.raises(FatalProviderError):
        run_call(provider, 5.0)
    assert len(provider.requests) == 1
