"""The one turn loop (ask, judge, retry once with a hint, fall back) that model and
Python seats share, the one list of sources it tags with, and the episode scope."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from typing import Any, get_args

import pytest

from harness import closing, summary
from harness.errors import PlayBudgetExhausted
from harness.protocol import ParseFailure
from harness.records import (
    AGENT_SOURCES,
    FALLBACK_SOURCES,
    HUMAN_SOURCES,
    MODEL_SOURCES,
    PLAIN_SOURCES,
    RETRY_SOURCES,
    SOURCES,
    CallRecord,
    Source,
    TurnSources,
)
from harness.registry import get_game
from harness.seats import SeatRequest, episode_running, episode_scope, turn_source
from harness.turn import Asked, Retry, play_turn

GOOD = '{"transmit": true, "message": "Sprocket N"}'
CALL = CallRecord.model_validate(
    {"provider": "openai", "model": "m", "attempts": 1, "errors": [], "failure": None,
     "inputTokens": 1, "outputTokens": 1, "reasoningTokens": None, "costUsd": None,
     "cached": False, "message": None, "promptSha256": "0" * 64, "wallClock": None}
)  # fmt: skip


def test_the_sets_of_sources_are_derived_from_the_one_list() -> None:
    assert get_args(Source) == SOURCES
    assert {s for s in SOURCES if s.startswith("fallback")} == FALLBACK_SOURCES
    assert "fallback_error" in FALLBACK_SOURCES  # a Python agent's: counted everywhere
    assert {"llm_retry", "python_retry", "human_retry"} == RETRY_SOURCES
    assert {"baseline", "llm", "python", "human"} == PLAIN_SOURCES
    # every reader uses these very sets: none keeps a list of its own
    assert summary.FALLBACK_SOURCES is FALLBACK_SOURCES
    assert summary.RETRY_SOURCES is RETRY_SOURCES
    # a turn not its seat's own is a fallback, one rule for every reader (play's too)
    assert {s for s in SOURCES if summary.not_own(s)} == FALLBACK_SOURCES
    assert closing.TurnCount is summary.TurnCount  # type: ignore[attr-defined]
    for tags in (MODEL_SOURCES, AGENT_SOURCES, HUMAN_SOURCES):
        assert tags.first in PLAIN_SOURCES
        assert tags.retry in RETRY_SOURCES
        assert tags.failed in FALLBACK_SOURCES


@pytest.mark.parametrize(
    ("replies", "failure", "model", "agent", "human"),
    [
        ([None], None, "llm", "python", "human"),
        ([ParseFailure("not_json", "x"), None], None, "llm_retry", "python_retry", "human_retry"),
        ([], "timeout", "fallback_timeout", "fallback_timeout", "fallback_timeout"),
        ([], "error", "fallback_api", "fallback_error", "fallback_timeout"),
        ([ParseFailure("not_json", "x")], "server", "fallback_api", "fallback_error",
         "fallback_timeout"),
        ([ParseFailure("not_json", "x"), ParseFailure("not_json", "y")], None,
         "fallback_parse", "fallback_parse", "fallback_parse"),
        ([ParseFailure("not_json", "x"), ParseFailure("refused:wall", "y")], None,
         "fallback_refused", "fallback_refused", "fallback_refused"),
    ],
)  # fmt: skip
def test_a_seat_kinds_tags_name_its_turns(
    replies: list[ParseFailure | None], failure: str | None, model: str, agent: str, human: str
) -> None:
    assert turn_source(replies, failure, MODEL_SOURCES) == model
    assert turn_source(replies, failure, AGENT_SOURCES) == agent
    # a person's turn (decision L4): the same rule, and a timer that ran out is a timeout
    assert turn_source(replies, failure, HUMAN_SOURCES) == human


def keeper_request(deadline: float | None = None) -> SeatRequest:
    game = get_game("lighthouse")
    state = game.rules.new_state(game.rules.make_config("default", {}), 7)
    spec = game.rules.seats(state)[0]
    observation = game.rules.observe(state, spec.seat)
    return SeatRequest(
        game.seat_io, game.baselines[spec.role], spec, 0, observation, deadline=deadline
    )


def scripted(answers: Sequence[Asked], asked: list[Retry | None]) -> Any:
    """An ask that gives ``answers`` in order, noting what each ask was about."""
    queue = list(answers)

    async def ask(retry: Retry | None) -> Asked:
        asked.append(retry)
        return queue.pop(0)

    return ask


def turn(answers: Sequence[Asked], tags: TurnSources = AGENT_SOURCES) -> Any:
    asked: list[Retry | None] = []
    reply = asyncio.run(play_turn(keeper_request(), scripted(answers, asked), tags))
    return reply, asked


def test_a_reply_that_parses_ends_the_turn_at_once() -> None:
    reply, asked = turn([Asked(text=GOOD, calls=(CALL,))], MODEL_SOURCES)
    assert (reply.raw, reply.source, reply.calls, reply.error) == (GOOD, "llm", (CALL,), None)
    assert reply.decision.message == "Sprocket N"
    assert asked == [None]
    assert [r.parse_error for r in reply.replies] == [None]


def test_a_reply_that_does_not_parse_is_asked_about_once_with_its_problem() -> None:
    reply, asked = turn([Asked(text="radio"), Asked(text=GOOD)])
    assert reply.source == "python_retry"
    first_retry = asked[1]
    assert first_retry is not None
    assert first_retry.reply == "radio"
    assert first_retry.problem.kind == "not_json"
    assert [r.parse_error is None for r in reply.replies] == [False, True]


def test_two_replies_that_cannot_be_used_fall_back_to_the_baseline() -> None:
    unusable = ParseFailure("not_a_reply", "the agent returned a object object")
    reply, asked = turn([Asked(text="a object object", unusable=unusable), Asked(text="?")])
    assert reply.source == "fallback_parse"
    assert (reply.raw, reply.decision) == keeper_request().baseline()
    assert asked[1] is not None
    assert asked[1].reply == "a object object"
    assert [r.raw for r in reply.replies] == ["a object object", "?"]
    assert reply.error is None


def test_an_ask_without_an_answer_falls_back_with_its_error() -> None:
    reply, _ = turn([Asked(failure="timeout", error="no answer within 1 s")])
    assert (reply.source, reply.error, reply.replies) == (
        "fallback_timeout",
        "no answer within 1 s",
        (),
    )
    reply, _ = turn([Asked(text="?"), Asked(failure="error", error="ValueError: x")])
    assert (reply.source, reply.error, len(reply.replies)) == ("fallback_error", "ValueError: x", 1)


def test_no_answer_once_the_play_budget_is_spent_is_the_budgets_not_the_seats() -> None:
    async def ask(retry: Retry | None) -> Asked:
        return Asked(failure="timeout")

    with pytest.raises(PlayBudgetExhausted):
        asyncio.run(play_turn(keeper_request(deadline=-math.inf), ask, AGENT_SOURCES))


def test_an_episode_scope_is_seen_inside_and_tells_of_its_end_however_it_ends() -> None:
    ended: list[str] = []
    assert episode_scope() is None

    async def seat_call() -> str:
        scope = episode_scope()
        assert scope is not None
        scope.on_end(lambda: ended.append(scope.episode_id))
        return scope.episode_id

    async def episode(episode_id: str, fail: bool) -> str:
        with episode_running(episode_id):
            seen = await asyncio.create_task(seat_call())  # a task sees its episode
            if fail:
                raise RuntimeError("the tick broke")
            return seen

    assert asyncio.run(episode("a", fail=False)) == "a"
    with pytest.raises(RuntimeError):
        asyncio.run(episode("b", fail=True))
    assert ended == ["a", "b"]
    assert episode_scope() is None
