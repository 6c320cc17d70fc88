"""Completion, awards, sealing, the stream and refusals (H3-H6, H23-H28)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from harness.errors import ConfigError
from harness.games.hourloom.events import (
    ChamberSealed,
    ChamberStarted,
    KeystoneTaken,
    LapCompleted,
    RunEnded,
    SandglassEmpty,
    SparkTaken,
)
from harness.games.hourloom.generator import generate
from harness.games.hourloom.rng import MAX_SEED
from harness.games.hourloom.rules import REFUSAL_REASONS, legal_actions, new_game, step
from harness.games.hourloom.state import State
from tests.hourloom.hand import (
    DESCEND,
    END_RUN,
    MOVE_E,
    MOVE_N,
    MOVE_S,
    MOVE_W,
    WAIT,
    draw,
    lap_start,
    tile_of,
)

# Lap 1 walks E over a spark and its keystone onto the exit; lap 2 goes along row 1.
TWO_LAPS = draw("1..X\n2...", keystones=[(0, 2), (1, 2)], sparks=[(0, 1)], budgets=[10, 12])


def play(state: State, *actions: dict[str, Any]) -> State:
    for action in actions:
        result = step(state, action)
        assert result.ok, result.message
        state = result.state
    return state


def test_a_lap_completes_on_the_turn_the_sand_reaches_0():
    state = lap_start(TWO_LAPS, 1, has_keystone=True, player=2, turn=2, log=("E", "E"), sand=1)
    result = step(state, MOVE_E)
    done = next(e for e in result.events if isinstance(e, LapCompleted))
    assert (done.lap, done.grains_left, done.points) == (1, 0, 50)
    assert result.state.phase == "lap"
    assert result.state.lap == 2


def test_zero_sand_without_completing_ends_the_run():
    state = lap_start(TWO_LAPS, 1, turn=2, log=("S", "N"), sand=1)
    result = step(state, MOVE_E)
    assert result.state.phase == "over"
    assert result.state.end_reason == "sandglass_empty"
    assert any(isinstance(e, SandglassEmpty) for e in result.events)
    assert result.game_over
    assert result.legal_actions == ()


def test_sand_never_goes_below_zero_on_lit_flux():
    chamber = draw("1.X\n2..", keystones=[(1, 2), (1, 1)], flux={(0, 1): 2})
    result = step(lap_start(chamber, 1, sand=2), MOVE_E)  # turn 0, phase 2: lit, costs 4
    assert result.state.sand == 0
    assert result.state.end_reason == "sandglass_empty"


def test_a_wait_on_the_exit_never_completes_a_lap():
    state = lap_start(TWO_LAPS, 1, has_keystone=True, player=3, turn=3, log=("E",) * 3)
    result = step(state, WAIT)
    assert not any(isinstance(e, LapCompleted) for e in result.events)
    assert result.state.phase == "lap"
    assert result.state.lap == 1


def test_the_exit_without_the_keystone_is_a_plain_tile():
    state = lap_start(TWO_LAPS, 1, player=2, turn=2, log=("E", "E"))
    result = step(state, MOVE_E)
    assert result.state.player == 3
    assert result.state.lap == 1
    assert not any(isinstance(e, LapCompleted) for e in result.events)


def test_the_next_lap_starts_at_once_with_every_echo_on_its_alcove():
    after = play(lap_start(TWO_LAPS, 1), MOVE_E, MOVE_E, MOVE_E)
    assert after.phase == "lap"
    assert after.lap == 2
    assert after.turn == 0
    assert after.player == TWO_LAPS.alcoves[1]
    assert after.echoes == (TWO_LAPS.alcoves[0],)
    assert after.sand == 12
    assert not after.has_keystone
    assert after.logs == (("E", "E", "E"),)
    assert after.log == ()
    assert after.sparks_left == ()  # taken on lap 1, gone for the rest of the chamber


def test_each_award_is_rounded_on_its_own():
    chamber = replace(TWO_LAPS, multiplier_pct=125)
    state = lap_start(chamber, 1)
    spark = step(state, MOVE_E)
    assert [e.points for e in spark.events if isinstance(e, SparkTaken)] == [19]  # 18.75
    key = step(spark.state, MOVE_E)
    assert [e.points for e in key.events if isinstance(e, KeystoneTaken)] == [31]  # 31.25
    lap = step(key.state, MOVE_E)
    done = next(e for e in lap.events if isinstance(e, LapCompleted))
    # 50 + 3 x 7 grains = 71, one award: 88.75 -> 89.
    assert (done.grains_left, done.points) == (7, 89)
    assert lap.state.score == 19 + 31 + 89


def test_sealing_sets_turn_0_and_keeps_sand_and_lap():
    chamber = replace(TWO_LAPS, multiplier_pct=125)
    lap2 = play(lap_start(chamber, 1), MOVE_E, MOVE_E, MOVE_E)
    before = lap2.score
    # Lap 2: E, E (its keystone), E, then N onto the exit; echo 1 has gone by then.
    result = step(play(lap2, MOVE_E, MOVE_E, MOVE_E), MOVE_N)
    sealed = result.state
    assert sealed.phase == "sealed"
    assert (sealed.turn, sealed.lap, sealed.sand) == (0, 2, 12 - 4)
    assert sealed.echoes == (None, None)
    assert sealed.log == ()
    assert sealed.logs == (("E", "E", "E"), ("E", "E", "E", "N"))
    seal = next(e for e in result.events if isinstance(e, ChamberSealed))
    lap = next(e for e in result.events if isinstance(e, LapCompleted))
    assert seal.points == 188  # 150 x 125% = 187.5, rounded on its own
    assert lap.points == 93  # (50 + 3 x 8 grains) x 125% = 92.5, halves up
    assert sealed.score == before + 31 + 93 + 188
    assert legal_actions(sealed) == [DESCEND, END_RUN]


def test_lap_turns_refusals_and_end_run_leave_rng_state_alone():
    state = new_game(11)
    assert state.rng_state == generate(1, 11).rng_state != 11
    moved = step(state, legal_actions(state)[0])
    assert moved.ok
    assert moved.state.rng_state == state.rng_state
    refused = step(state, {"type": "DESCEND"})
    assert refused.state is state
    ended = step(state, END_RUN)
    assert ended.state.rng_state == state.rng_state
    assert ended.state.end_reason == "end_run"
    assert [type(e) for e in ended.events] == [RunEnded]


def _sealed_run(seed: int) -> State:
    built = generate(1, seed)
    state = new_game(seed)
    for inputs in built.plan:
        for entry in inputs:
            state = play(state, WAIT if entry == "WAIT" else {"type": "MOVE", "dir": entry})
    assert state.phase == "sealed"
    return state


def test_descend_draws_the_next_chamber_and_keeps_only_score_seed_and_stream():
    sealed = _sealed_run(5)
    result = step(sealed, DESCEND)
    nxt = generate(2, sealed.rng_state)
    after = result.state
    assert after.chamber == nxt.chamber
    assert after.rng_state == nxt.rng_state
    assert (after.seed, after.score) == (5, sealed.score)
    assert (after.phase, after.lap, after.turn, after.sand) == (
        "lap",
        1,
        0,
        nxt.chamber.lap_budgets[0],
    )
    assert after.logs == ()
    assert after.echoes == ()
    assert after.player == nxt.chamber.alcoves[0]
    assert after.sparks_left == nxt.chamber.sparks
    started = next(e for e in result.events if isinstance(e, ChamberStarted))
    assert (started.chamber, started.laps) == (2, nxt.chamber.laps)


def test_a_seed_fixes_every_chamber_whatever_the_player_does():
    # Two different plays of chamber 1 descend into the same chamber 2.
    a = step(_sealed_run(9), DESCEND).state
    b = step(replace(_sealed_run(9), score=0), DESCEND).state
    assert a.chamber == b.chamber
    assert a.rng_state == b.rng_state


@pytest.mark.parametrize("seed", [True, -1, MAX_SEED + 1, 1.0, "7"])
def test_a_seed_outside_the_range_is_a_config_error(seed: Any):
    with pytest.raises(ConfigError, match="seed"):
        new_game(seed)


def test_the_reasons_are_checked_in_h27_order():
    assert REFUSAL_REASONS == (
        "unknown_action",
        "run_ended",
        "bad_direction",
        "lap_not_running",
        "chamber_not_sealed",
        "edge_of_chamber",
        "wall",
        "echo_in_the_way",
        "gate_shut",
    )


# One chamber for every blocked move: lap 2 starts on (1,1) with echo 1 on (1,2).
BLOCKS = draw("#..A\n.21a\n....", keystones=[(2, 3), (2, 0)])
LAP = lap_start(BLOCKS, 2, ["WAIT WAIT"], player=tile_of(4, (1, 1)))
SEALED = replace(
    LAP, phase="sealed", lap=2, logs=(("E",), ("E",)), echoes=(None, None), player=BLOCKS.exit
)
OVER = replace(LAP, phase="over", end_reason="end_run")


@pytest.mark.parametrize(
    ("state", "action", "reason"),
    [
        (LAP, "MOVE", "unknown_action"),
        (LAP, None, "unknown_action"),
        (LAP, [MOVE_N], "unknown_action"),
        (LAP, {}, "unknown_action"),
        (LAP, {"type": "move", "dir": "N"}, "unknown_action"),
        (LAP, {"type": 1}, "unknown_action"),
        (LAP, {"type": "MOVE"}, "unknown_action"),
        (LAP, {"type": "MOVE", "dir": 1}, "unknown_action"),
        (OVER, {"type": "MOVE"}, "unknown_action"),  # the shape is judged first
        (OVER, {"type": "MOVE", "dir": "X"}, "run_ended"),  # then whether the run is over
        (OVER, WAIT, "run_ended"),
        (OVER, DESCEND, "run_ended"),
        (OVER, END_RUN, "run_ended"),
        (LAP, {"type": "MOVE", "dir": "up"}, "bad_direction"),
        (SEALED, {"type": "MOVE", "dir": "NE"}, "bad_direction"),  # before lap_not_running
        (SEALED, MOVE_N, "lap_not_running"),
        (SEALED, WAIT, "lap_not_running"),
        (LAP, DESCEND, "chamber_not_sealed"),
        (replace(LAP, player=tile_of(4, (0, 1))), MOVE_N, "edge_of_chamber"),
        (replace(LAP, player=tile_of(4, (0, 1))), MOVE_W, "wall"),
        (LAP, MOVE_E, "echo_in_the_way"),
        (replace(LAP, player=tile_of(4, (0, 2))), MOVE_E, "gate_shut"),
        # An echo standing on a gate tile is in the way before the gate is shut.
        (replace(LAP, player=tile_of(4, (0, 2)), echoes=(3,)), MOVE_E, "echo_in_the_way"),
    ],
)
def test_every_refusal_reason_first_match_wins(state: State, action: Any, reason: str):
    result = step(state, action)
    assert (result.ok, result.reason) == (False, reason)
    assert result.state is state
    assert result.events == ()
    assert list(result.legal_actions) == legal_actions(state)


def test_extra_keys_are_ignored_and_end_run_is_legal_mid_lap_and_sealed():
    assert step(LAP, {"type": "WAIT", "dir": "N", "note": [1]}).ok
    assert step(LAP, END_RUN).state.phase == "over"
    assert step(SEALED, END_RUN).state.end_reason == "end_run"


def test_legal_actions_in_h28_order():
    # From (1,1): N is open, E holds echo 1, S is open, W is open.
    assert legal_actions(LAP) == [MOVE_N, MOVE_S, MOVE_W, WAIT, END_RUN]
    assert legal_actions(SEALED) == [DESCEND, END_RUN]
    assert legal_actions(OVER) == []
