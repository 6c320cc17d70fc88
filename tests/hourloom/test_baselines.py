"""PLANNER, TIMESTEP (H35) and a run under the harness's caps (H33)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from baselines.hourloom import chamber_plan, planner, timestep
from baselines.hourloom.timestep import bare_grains
from harness.errors import RulesError
from harness.games.hourloom.capped import play_capped
from harness.games.hourloom.events import Event, GateCrossed, TurnPaid
from harness.games.hourloom.generator import generate
from harness.games.hourloom.rules import legal_actions, new_game, step
from harness.games.hourloom.state import State
from tests.hourloom.hand import DESCEND, END_RUN, MOVE_E, WAIT, draw, lap_start


def run(state: State, player: Any, limit: int = 200) -> tuple[State, list[Event]]:
    """Play ``player`` until the lap state leaves phase lap; every action must be legal."""
    events: list[Event] = []
    for _ in range(limit):
        if state.phase != "lap":
            break
        result = step(state, player(state))
        assert result.ok, result.message
        events.extend(result.events)
        state = result.state
    return state, events


def test_planner_replays_the_plan_then_descends():
    seed = 21
    built = generate(1, seed)
    assert chamber_plan(seed, 1) == built
    state = new_game(seed)
    played = []
    while state.phase == "lap":
        action = planner(state)
        played.append("WAIT" if action["type"] == "WAIT" else action["dir"])
        state = step(state, action).state
    assert tuple(played) == sum(built.plan, ())
    assert planner(state) == DESCEND
    assert chamber_plan(seed, 2) == generate(2, built.rng_state)


def test_planner_hands_over_to_timestep_off_the_plan():
    state = new_game(8)
    plan_first = planner(state)
    other = next(a for a in legal_actions(state) if a != plan_first and a != END_RUN)
    off = step(state, other).state
    assert planner(off) == timestep(off)
    forged = replace(state, chamber=replace(state.chamber, lap_budgets=(99,) * state.chamber.laps))
    assert planner(forged) == timestep(forged)


def test_both_refuse_to_choose_once_the_run_is_over():
    over = step(new_game(1), END_RUN).state
    with pytest.raises(RulesError, match="over"):
        planner(over)
    with pytest.raises(RulesError, match="over"):
        timestep(over)


def test_timestep_takes_the_keystone_then_the_exit():
    chamber = draw("1.K.X\n.....", keystones=[(0, 2)])
    state, events = run(lap_start(chamber, 1), timestep)
    assert state.phase == "sealed"
    assert sum(isinstance(e, TurnPaid) for e in events) == 4  # the shortest walk


def test_timestep_finds_the_cheapest_walk_past_lit_flux():
    # Stepping onto (0,2) on turn 1 or 2 costs 4 grains: waiting or the row-1 detour
    # costs less, and the cheapest completion spends 5 grains.
    chamber = draw("1..X\n....", keystones=[(0, 1)], flux={(0, 2): 1})
    state, events = run(lap_start(chamber, 1), timestep)
    paid = [e for e in events if isinstance(e, TurnPaid)]
    assert state.phase == "sealed"
    assert sum(e.grains for e in paid) == 5
    assert not any(e.flux for e in paid)


# Lap 2's keystone sits at (1,0) behind gate A; echo 1 walks onto plate a and holds it
# on turns 4 to 12, then leaves.
POCKET = draw("#a...\n.A.2X\n#1...", keystones=[(2, 4), (1, 0)])
ECHO_LOG = "E N N W " + "WAIT " * 8 + "E"


def test_timestep_times_a_gate_by_the_echoes_forecast():
    state, events = run(lap_start(POCKET, 2, [ECHO_LOG]), timestep)
    assert state.phase == "sealed"
    crossings = [e for e in events if isinstance(e, GateCrossed)]
    assert len(crossings) == 2  # in and out of the pocket


def test_timestep_waits_while_no_walk_exists_and_ends_the_run_when_sand_cannot_reach():
    stuck = lap_start(POCKET, 2, ["WAIT"])  # echo 1 never holds the plate
    assert bare_grains(stuck) == 7  # 3 steps in to the keystone, 4 out to the exit
    assert timestep(stuck) == WAIT
    assert timestep(replace(stuck, sand=6)) == END_RUN
    assert timestep(replace(stuck, sand=7)) == WAIT


def test_timestep_descends_when_sealed():
    chamber = draw("1.K.X\n.....", keystones=[(0, 2)])
    state, _ = run(lap_start(chamber, 1), timestep)
    assert timestep(state) == DESCEND


def test_timestep_ends_the_run_when_even_the_bare_walk_is_too_long():
    chamber = draw("1.K.X\n.....", keystones=[(0, 2)])
    assert timestep(lap_start(chamber, 1, sand=3)) == END_RUN
    assert timestep(lap_start(chamber, 1, sand=4)) == MOVE_E


@pytest.mark.parametrize("seed", [0, 13])
def test_planner_seals_every_chamber_up_to_the_cap(seed: int):
    outcome = play_capped(seed, planner)
    assert outcome.reason == "chamber_cap"
    assert outcome.chambers_sealed == 6
    assert outcome.laps_completed == 3 + 3 + 4 + 4 + 4 + 5
    assert outcome.refusals == 0
    assert outcome.state.phase == "over"
    assert outcome.state.end_reason == "end_run"
    assert outcome.state.chamber.number == 6
    short = play_capped(seed, planner, max_chambers=2)
    assert (short.chambers_sealed, short.reason) == (2, "chamber_cap")


def test_timestep_plays_legal_actions_and_falls_short_of_planner():
    for seed in range(4):
        ts = play_capped(seed, timestep)
        assert ts.refusals == 0
        assert ts.laps_completed >= 1
        assert ts.score < play_capped(seed, planner).score


def test_the_action_cap_counts_refusals_and_ends_the_run():
    outcome = play_capped(3, lambda state: {"type": "JUMP"}, max_actions=25)
    assert (outcome.reason, outcome.actions, outcome.refusals) == ("action_cap", 25, 25)
    assert outcome.state.end_reason == "end_run"
    assert outcome.score == 0


def test_the_sandglass_ends_a_run_of_waits():
    outcome = play_capped(3, lambda state: WAIT)
    assert outcome.reason == "sandglass_empty"
    assert outcome.actions == new_game(3).sand
    assert outcome.laps_completed == 0
