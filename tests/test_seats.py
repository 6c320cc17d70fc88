"""Seats: the one classification of a turn's source, and baselines asked through a request."""

from __future__ import annotations

import pytest

from harness.errors import HarnessError
from harness.protocol import FailureKind, ParseFailure
from harness.records import Source
from harness.registry import get_game
from harness.seats import SeatRequest, turn_source

BAD = ParseFailure(FailureKind.NOT_JSON, "not JSON")
REFUSED = ParseFailure("refused:wall", "a wall")


@pytest.mark.parametrize(
    ("replies", "failure", "source"),
    [
        ([None], None, "llm"),
        ([BAD, None], None, "llm_retry"),
        ([REFUSED, None], None, "llm_retry"),
        ([BAD], None, None),  # open: the retry with a hint comes next
        ([REFUSED], None, None),
        ([BAD, BAD], None, "fallback_parse"),
        ([REFUSED, BAD], None, "fallback_parse"),
        ([BAD, REFUSED], None, "fallback_refused"),
        ([], "timeout", "fallback_timeout"),
        ([], "server", "fallback_api"),
        ([], "decode", "fallback_api"),
        ([BAD], "timeout", "fallback_timeout"),  # the retry call timed out
        ([BAD], "rate_limit", "fallback_api"),
        ([], None, None),
        # replay's re-parse: a first reply the current parser accepts ends the turn there
        ([None, BAD], None, "llm"),
        ([None, None], None, "llm"),
    ],
)
def test_a_turns_source_follows_from_what_happened(
    replies: list[ParseFailure | None], failure: str | None, source: Source | None
) -> None:
    assert turn_source(replies, failure) == source


def request(name: str = "lighthouse") -> SeatRequest:
    game = get_game(name)
    config = game.rules.make_config(game.variants[0], {})
    state = game.rules.new_state(config, 7)
    spec = game.rules.seats(state)[0]
    observation = game.rules.observe(state, spec.seat)
    return SeatRequest(game.seat_io, game.baselines[spec.role], spec, 0, observation)


def test_a_request_asks_its_roles_baselines_and_parses_their_replies() -> None:
    keeper = request()
    raw, decision = keeper.baseline()
    assert raw == get_game("lighthouse").baselines["keeper"]["lantern"](keeper.observation)
    assert decision == keeper.io.parse_reply(keeper.observation, raw)
    raw, decision = keeper.baseline("silent")
    assert (raw, decision.transmit) == ('{"transmit": false}', False)
    with pytest.raises(HarnessError, match="no keeper baseline 'wallhug'"):
        keeper.baseline("wallhug")


def test_a_baseline_reply_that_does_not_parse_is_a_harness_error() -> None:
    keeper = request()
    broken = SeatRequest(keeper.io, {"broken": lambda obs: "{"}, keeper.seat, 0, keeper.observation)
    with pytest.raises(HarnessError, match="baseline broken gave an unparseable reply"):
        broken.baseline()


def test_a_requests_own_fallback_answers_when_no_baseline_is_named() -> None:
    keeper = request()
    silent = keeper.io.parse_reply(keeper.observation, '{"transmit": false}')
    given = SeatRequest(
        keeper.io,
        keeper.baselines,
        keeper.seat,
        0,
        keeper.observation,
        fallback=lambda obs: '{"transmit": false}',
    )
    assert given.baseline() == ('{"transmit": false}', silent)
    # a baseline asked by name is still that baseline
    assert given.baseline("lantern") == keeper.baseline()
    broken = SeatRequest(
        keeper.io, keeper.baselines, keeper.seat, 0, keeper.observation, fallback=lambda obs: "{"
    )
    with pytest.raises(HarnessError, match="baseline fallback gave an unparseable reply"):
        broken.baseline()
