"""One turn of a seat that answers in text: ask, judge, retry once with a hint, fall back.

A model's seat (:class:`harness.llm.seat.LLMSeat`) and a Python agent's
(:class:`harness.agents.PythonSeat`) both play their turns here, so the two follow
one rule (decisions R5, R7): a reply is judged as any reply is (:func:`judge_reply`);
one that cannot be used is sent back once, with a hint naming the problem; a second
that cannot be used, or an ask that gets no answer, falls back to the role's baseline
on the same observation, tagged with its source (:func:`turn_source`). What is asked,
and how, is the seat's: it hands :func:`play_turn` its ask.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from harness.errors import PlayBudgetExhausted
from harness.protocol import ParseFailure
from harness.records import CallRecord, ModelReply, TurnSources
from harness.seats import (
    SeatReply,
    SeatRequest,
    judge_clipped_async,
    judge_reply_async,
    model_reply,
    turn_source,
)
from harness.text import ClippedReply


@dataclass(frozen=True)
class Asked:
    """What one ask of a turn came to: a reply, an answer that is no reply, or nothing.

    With ``text`` None the ask got no answer: ``failure`` is its kind (``timeout``
    falls back as ``fallback_timeout``, any other kind as the seat's failed source)
    and ``error`` says why, for the turn's ``error`` field. With ``unusable`` set, the
    answer was no reply at all: it fails without being parsed, and ``text`` is what
    the record shows of it. With ``clipped`` set, the reply is known only in its
    record form (cut at 1 MiB, as the call cache keeps it): ``text`` is its start, and
    it is judged as the whole reply was (:func:`~harness.seats.judge_clipped_async`).
    """

    text: str | None = None
    unusable: ParseFailure | None = None
    clipped: ClippedReply | None = None
    failure: str | None = None
    error: str | None = None
    calls: tuple[CallRecord, ...] = ()
    """The calls the ask made (a model's), for the record."""
    cut: bool = False
    """The reply was cut by the length limit (its stop reason said so)."""
    reasoning: str | None = None
    """The model's reasoning beside the reply, as checked (cut at 1 MiB), for the record."""
    reasoning_clipped: bool = False
    """``reasoning`` was cut at 1 MiB."""


@dataclass(frozen=True)
class Retry:
    """What the retry is asked about: the reply that could not be used, and why."""

    reply: str
    problem: ParseFailure


#: A seat's ask: the first (None) or the retry's, answered.
Ask = Callable[[Retry | None], Awaitable[Asked]]


async def play_turn(request: SeatRequest, ask: Ask, sources: TurnSources) -> SeatReply:
    """The seat's answer to ``request``: its reply judged, retried once, or the fallback.

    Two asks at most: the second reply, or an ask without one, ends the turn. An ask
    without an answer once the play budget (``request.deadline``) is spent raises
    :class:`PlayBudgetExhausted`: the budget ran out, not the seat (D2).
    """
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    budget = request.deadline if request.deadline is not None else math.inf
    io, observation = request.io, request.observation
    replies: list[ModelReply] = []
    calls: list[CallRecord] = []
    problems: list[ParseFailure | None] = []
    retry: Retry | None = None
    while True:
        asked = await ask(retry)
        calls.extend(asked.calls)
        failure: str | None = None
        text, decision, problem = asked.text, None, asked.unusable
        if text is None:
            if loop.time() >= budget:
                raise PlayBudgetExhausted(f"tick {request.tick}: play budget exhausted")
            failure = asked.failure or "error"
        elif problem is not None:
            replies.append(model_reply(text, problem))
            problems.append(problem)
        elif asked.clipped is not None:
            decision, problem, reply = await judge_clipped_async(io, observation, asked.clipped)
            replies.append(reply)
            problems.append(problem)
        else:
            decision, problem, reply = await judge_reply_async(io, observation, text)
            replies.append(reply)
            problems.append(problem)
        if asked.reasoning and text is not None:
            # kept beside the reply it led to (the reply's entry is the last one made)
            replies[-1] = replies[-1].model_copy(
                update={"reasoning": asked.reasoning, "reasoning_clipped": asked.reasoning_clipped}
            )
        source = turn_source(problems, failure, sources, cut=asked.cut)
        if source is None:  # the first reply failed: retry once, with a hint
            assert text is not None  # an open turn has a reply that failed
            assert problem is not None
            retry = Retry(text, problem)
            continue
        error: str | None = None
        if source not in (sources.first, sources.retry):
            text, decision = request.baseline()
            error = asked.error
        assert text is not None
        latency = time.perf_counter() - started
        return SeatReply(text, decision, source, latency, tuple(replies), tuple(calls), error=error)


__all__ = ["Ask", "Asked", "Retry", "play_turn"]
