"""Rate limits, in-flight caps and the retry wrapper, measured rather than timed.

Every test runs on a fast-forwarded loop clock (looptime): it stands still while any
task can run and jumps to the next timer when all of them wait. Sleeps, timeouts and
deadlines take no real time, and the instants the tests read are exactly the ones
the code decided on, whatever the load on the machine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from types import SimpleNamespace
from typing import Any, TypeVar

import asyncio_throttle.throttler
import looptime
import pytest

from harness.errors import FatalProviderError, TransientProviderError
from harness.llm.calls import CallReport, RetryPolicy, call_llm
from harness.llm.limits import CallLimiter, LimiterRegistry, Limits
from harness.llm.scripted import ScriptedProvider
from harness.llm.types import CompletionRequest, Message

REQUEST = CompletionRequest(model="m", messages=(Message("user", "hi"),))
T = TypeVar("T")


def fast_forward(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` on an event loop whose clock is fast-forwarded."""
    with asyncio.Runner(loop_factory=looptime.new_event_loop) as runner:
        return runner.run(main)


def now() -> float:
    return asyncio.get_running_loop().time()


def test_rate_limit_windows_and_first_come_first_served(monkeypatch: pytest.MonkeyPatch) -> None:
    # asyncio-throttle reads time.monotonic(); here it reads the loop's clock instead,
    # so an admission's stamp below is the very instant the throttle admitted it at.
    monkeypatch.setattr(asyncio_throttle.throttler, "time", SimpleNamespace(monotonic=now))
    n, callers, period = 5, 17, 1.0
    limiter = CallLimiter(Limits(requests=n, period_s=period))
    admitted: list[tuple[int, float]] = []

    async def caller(i: int) -> None:
        async with limiter.slot():
            admitted.append((i, now()))

    async def main() -> None:
        # tasks start in creation order, so they reach the limiter in that order
        await asyncio.gather(*(caller(i) for i in range(callers)))

    fast_forward(main())
    order = [i for i, _ in admitted]
    assert order == list(range(callers))  # first come, first served
    stamps = [t for _, t in admitted]
    assert stamps[:n] == [stamps[0]] * n  # a first burst of n is admitted at once
    for i in range(callers - n):
        # any n + 1 consecutive admissions span more than one period, so no window
        # of one period admits more than n ...
        assert stamps[i + n] - stamps[i] > period
        # ... and a waiter is admitted within one poll (10 ms) of its turn
        assert stamps[i + n] - stamps[i] <= period + 0.011
    assert limiter.admitted == callers


def test_in_flight_cap() -> None:
    limiter = CallLimiter(Limits(in_flight=3))
    inside = peak = 0

    async def caller() -> None:
        nonlocal inside, peak
        async with limiter.slot():
            inside += 1
            peak = max(peak, inside)
            await asyncio.sleep(0.01)
            inside -= 1

    async def main() -> float:
        began = now()
        await asyncio.gather(*(caller() for _ in range(12)))
        return now() - began

    took = fast_forward(main())
    assert peak == 3
    # 12 callers, 3 at a time, 10 ms each: four waves, none waiting on a free slot
    assert took == pytest.approx(0.04)


def test_registry_shares_one_limiter_per_provider_and_model() -> None:
    registry = LimiterRegistry()
    a = registry.get("openai", "m1", Limits(requests=3))
    assert registry.get("openai", "m1", Limits(requests=99)) is a
    assert registry.get("openai", "m2", Limits(requests=3)) is not a
    assert registry.get("anthropic", "m1", Limits(requests=3)) is not a


def run_call(
    provider: ScriptedProvider, deadline_in: float, **policy: float
) -> tuple[CallReport, CallLimiter, float]:
    """The call's report, its limiter and how much loop time it took."""
    limiter = CallLimiter(Limits())

    async def main() -> tuple[CallReport, float]:
        began = now()
        report = await call_llm(
            provider,
            REQUEST,
            limiter=limiter,
            policy=RetryPolicy(**policy),
            deadline=began + deadline_in,
        )
        return report, now() - began

    report, took = fast_forward(main())
    return report, limiter, took


def test_each_attempt_takes_its_own_limiter_slot() -> None:
    provider = ScriptedProvider(
        [
            TransientProviderError("server", "boom"),
            TransientProviderError("rate_limit", "slow", 0),
            "ok",
        ]
    )
    report, limiter, _ = run_call(provider, 10.0, backoff_initial_s=0.001, backoff_max_s=0.01)
    assert report.completion is not None
    assert report.completion.text == "ok"
    assert (report.attempts, report.errors) == (3, ["server", "rate_limit"])
    assert limiter.admitted == 3


def test_backoff_never_sleeps_past_the_deadline() -> None:
    # The server asks for 20 s; only 1 s is left: give up now rather than sleep past it.
    provider = ScriptedProvider([TransientProviderError("rate_limit", "slow down", 20.0), "late"])
    report, _, took = run_call(provider, 1.0)
    assert report.completion is None
    assert report.failure is not None
    assert report.failure.kind == "rate_limit"
    assert report.attempts == 1
    assert len(provider.requests) == 1
    assert took == 0.0  # it did not sleep at all


def test_retry_after_is_capped() -> None:
    provider = ScriptedProvider([TransientProviderError("rate_limit", "slow", 3600.0), "ok"])
    report, _, took = run_call(provider, 5.0, retry_after_cap_s=0.05, backoff_floor_s=0.01)
    assert report.completion is not None
    assert report.attempts == 2
    assert took == pytest.approx(0.05)  # slept the cap, not the hour asked for


def test_an_attempt_is_bounded_by_the_call_timeout() -> None:
    provider = ScriptedProvider(["slow"] * 20, latency_s=0.5)
    report, _, took = run_call(provider, 1.0, call_timeout_s=0.1, backoff_initial_s=0.01)
    assert report.completion is None
    assert report.failure is not None
    assert report.failure.kind == "timeout"
    assert report.attempts >= 2
    assert report.errors == ["timeout"] * report.attempts
    assert len(provider.requests) == report.attempts
    assert took <= 1.0  # never past the deadline


def test_fatal_errors_are_not_retried() -> None:
    provider = ScriptedProvider([FatalProviderError("auth", "no"), "ok"])
    with pytest.raises(FatalProviderError):
        run_call(provider, 5.0)
    assert len(provider.requests) == 1
