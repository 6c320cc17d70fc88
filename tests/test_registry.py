"""The registry: each game's entry, its metadata checked when it is built."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from harness.errors import ConfigError
from harness.protocol import ParseFailure, SeatGroup
from harness.registry import game_names, get_game


def test_every_registered_game_is_built_once_and_named_as_registered() -> None:
    assert game_names() == ("lighthouse", "relayroam", "hourloom")
    for name in game_names():
        entry = get_game(name)
        assert entry.name == name
        assert get_game(name) is entry  # built once, then shared


def test_an_unknown_game_is_a_config_error_naming_the_choices() -> None:
    with pytest.raises(ConfigError, match=r"unknown game 'chess'; choose one of \['lighthouse'"):
        get_game("chess")


def test_the_first_baseline_of_a_role_is_its_fallback() -> None:
    lighthouse = get_game("lighthouse")
    assert lighthouse.baseline_names("keeper") == ("lantern", "silent", "pilot")
    assert lighthouse.baseline_names("runner") == ("wallhug", "scout")
    assert lighthouse.fallback("keeper") is lighthouse.baselines["keeper"]["lantern"]
    assert lighthouse.fallback("runner") is lighthouse.baselines["runner"]["wallhug"]
    assert get_game("relayroam").baseline_names("player") == ("greedy", "vent-aware-greedy")
    with pytest.raises(ConfigError, match="lighthouse has no role 'player'"):
        lighthouse.baseline_names("player")


def test_a_named_fallback_answers_instead_of_the_first_baseline() -> None:
    hourloom = get_game("hourloom")
    assert hourloom.baseline_names("player") == ("timestep", "planner")
    named = hourloom.fallbacks["player"]
    assert hourloom.fallback("player") is named
    assert named is not hourloom.baselines["player"]["timestep"]
    lighthouse = get_game("lighthouse")
    with pytest.raises(ConfigError, match="a fallback for 'player', which is no role"):
        replace(lighthouse, fallbacks={"player": lambda obs: "{}"})


def test_an_entry_refuses_a_role_without_a_baseline_and_a_ceiling_that_is_none() -> None:
    lighthouse = get_game("lighthouse")
    extra = SeatGroup("pilots", "pilot", ("pilot1",))
    with pytest.raises(ConfigError, match="role 'pilot' has no baseline"):
        replace(lighthouse, seat_groups=(*lighthouse.seat_groups, extra))
    with pytest.raises(ConfigError, match="the ceiling 'oracle' is no baseline"):
        replace(lighthouse, ceiling="oracle")


@pytest.mark.parametrize("name", ["relayroam", "hourloom"])
def test_a_single_player_baseline_replies_with_json_text_the_rules_accept(name: str) -> None:
    game = get_game(name)
    state = game.rules.new_state(game.rules.make_config("default", {}), 7)
    observation = game.rules.observe(state, "player")
    for bot in [*game.baselines["player"].values(), game.fallback("player")]:
        reply = bot(observation)
        decision = game.seat_io.parse_reply(observation, reply)
        assert not isinstance(decision, ParseFailure), reply
        assert decision == json.loads(reply)
        assert game.seat_io.refuse(observation, decision) is None
