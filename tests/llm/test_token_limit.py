"""The tokens-per-minute limit: calls counted for their bound, then for what they cost.

On a fast-forwarded loop clock (looptime, as in test_limits.py) a minute's window
takes no real time, and the instants read are the ones the limiter decided on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import looptime
import pytest

from harness.llm.calls import RetryPolicy, call_llm, token_bound
from harness.llm.limits import TOKEN_PERIOD_SECONDS, CallLimiter, Limits
from harness.llm.options import ProviderOptions
from harness.llm.scripted import ScriptedProvider
from harness.llm.types import Completion, CompletionRequest, Message, Usage

T = TypeVar("T")


def fast_forward(main: Coroutine[Any, Any, T]) -> T:
    with asyncio.Runner(loop_factory=looptime.new_event_loop) as runner:
        return runner.run(main)


def now() -> float:
    return asyncio.get_running_loop().time()


def test_no_minute_admits_more_than_the_limit() -> None:
    limit, bound, callers = 1000, 400, 9
    limiter = CallLimiter(Limits(tokens_per_minute=limit))
    admitted: list[tuple[int, float]] = []

    async def caller(i: int) -> None:
        async with limiter.slot(bound):  # never settled: each counts for its bound
            admitted.append((i, now()))

    async def main() -> None:
        await asyncio.gather(*(caller(i) for i in range(callers)))

    fast_forward(main())
    assert [i for i, _ in admitted] == list(range(callers))  # first come, first served
    stamps = [t for _, t in admitted]
    # two bounds fit a minute, a third does not: the third waited for the first to leave
    assert stamps[0] == stamps[1] < stamps[2]
    for i, start in enumerate(stamps):
        in_window = [t for t in stamps[i:] if t < start + TOKEN_PERIOD_SECONDS]
        assert len(in_window) * bound <= limit
    assert limiter.admitted == callers


def test_a_settled_call_frees_the_rest_of_its_bound_at_once() -> None:
    limiter = CallLimiter(Limits(tokens_per_minute=1000))
    stamps: dict[str, float] = {}

    async def first() -> None:
        async with limiter.slot(900) as admission:
            stamps["first"] = now()
            await asyncio.sleep(1.0)  # the request
            admission.settle(100)  # the answer cost 100 tokens

    async def second() -> None:
        await asyncio.sleep(0.5)
        async with limiter.slot(800):
            stamps["second"] = now()

    async def main() -> None:
        await asyncio.gather(first(), second())

    fast_forward(main())
    # 900 + 800 do not fit; once the first is 100, 100 + 800 do: the second goes when the
    # first settles, not a minute later
    assert stamps["second"] - stamps["first"] == pytest.approx(1.0)
    assert limiter.tokens is not None


def test_an_oversized_call_goes_alone_rather_than_never() -> None:
    limiter = CallLimiter(Limits(tokens_per_minute=100))
    stamps: list[float] = []

    async def caller() -> None:
        async with limiter.slot(500):
            stamps.append(now())

    async def main() -> None:
        await asyncio.gather(caller(), caller())

    fast_forward(main())
    assert stamps[1] - stamps[0] == pytest.approx(TOKEN_PERIOD_SECONDS)


def _request(max_tokens: int) -> CompletionRequest:
    return CompletionRequest(
        model="m", messages=(Message("user", "x" * 400),), max_tokens=max_tokens
    )


def _spent(input_tokens: int, output_tokens: int) -> Completion:
    return Completion(text="ok", usage=Usage(input_tokens, output_tokens), model="m")


def test_calls_count_their_bound_until_their_usage_corrects_it() -> None:
    """Through call_llm: the seat's max_tokens bounds a call before it is sent, the
    answer's usage corrects it, and the limit delays the calls that do not fit."""
    request = _request(max_tokens=500)
    bound = token_bound(request)
    assert bound == 100 + 500  # 400 bytes of input at 4 a token, plus max_tokens
    limiter = CallLimiter(Limits(tokens_per_minute=1000))
    sent: list[float] = []

    async def answer(_request: CompletionRequest) -> Completion:
        sent.append(now())
        await asyncio.sleep(2.0)  # the request's time on the server
        return _spent(100, 20)

    provider = ScriptedProvider(script=answer)
    policy = RetryPolicy()

    async def call() -> None:
        report = await call_llm(
            provider, request, limiter=limiter, policy=policy, deadline=now() + 3600
        )
        assert report.completion is not None

    async def main() -> float:
        # two at once: 600 + 600 do not fit, so the second waits for the first's answer
        # (120 tokens), not for the minute
        await asyncio.gather(call(), call())
        # settled, the window holds 240 tokens: two more calls in a row wait for nothing
        await call()
        await call()
        assert limiter.tokens is not None
        return limiter.tokens.spent(now())

    spent = fast_forward(main())
    began = sent[0]
    assert [t - began for t in sent] == pytest.approx([0.0, 2.0, 4.0, 6.0])
    assert spent == 4 * 120


def test_the_option_validates_and_stays_out_of_a_dump_when_unset() -> None:
    options = ProviderOptions.model_validate({"kind": "openai", "tokensPerMinute": 30000})
    assert options.tokens_per_minute == 30000
    plain = ProviderOptions.model_validate({"kind": "openai"})
    assert "tokensPerMinute" not in plain.model_dump(by_alias=True)
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        ProviderOptions.model_validate({"kind": "openai", "tokens_per_minute": 0})
