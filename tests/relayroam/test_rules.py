"""Relayroam's transition: the atomic order, scoring, phases, refusals, results (RR7-RR16),
plus what a player sees (RR16) and how a reply becomes an action (RR19)."""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from harness.errors import ConfigError, HarnessError
from harness.games.relayroam.actions import parse_action
from harness.games.relayroam.layouts import layout_for
from harness.games.relayroam.observe import observation_json, observe, render_text
from harness.games.relayroam.rng import MAX_SEED, output
from harness.games.relayroam.rules import (
    REFUSAL_REASONS,
    Banked,
    BatteryUsed,
    ChamberStarted,
    Cleared,
    Depleted,
    Event,
    ExitOpened,
    HelperRescued,
    RelayRepaired,
    Shock,
    StepResult,
    actions_until_spark,
    event_json,
    legal_actions,
    new_game,
    result_json,
    sparks_on,
    step,
)
from harness.games.relayroam.solver import solve_seeded_chamber
from harness.games.relayroam.state import (
    State,
    chamber_start,
    from_canonical_json,
    to_canonical_json,
)
from harness.protocol import ParseFailure

UP = {"type": "move", "direction": "up"}
RIGHT = {"type": "move", "direction": "right"}
DOWN = {"type": "move", "direction": "down"}
LEFT = {"type": "move", "direction": "left"}
WAIT = {"type": "wait"}
NEXT = {"type": "next"}
BANK = {"type": "bank"}


def at(state: State, **changes: Any) -> State:
    """``state`` with fields replaced (a test shortcut)."""
    return replace(state, **changes)


def ok(state: State, action: Any) -> StepResult:
    result = step(state, action)
    assert result.ok, result.message
    return result


def kinds(result: StepResult) -> list[str]:
    return [e.KIND for e in result.events]


def play(state: State, actions: Any) -> State:
    for action in actions:
        state = ok(state, action).state
    return state


@functools.cache  # states are immutable, so sharing one between tests is safe
def cleared_chamber(seed: int = 7, chamber: int = 1) -> State:
    """A state in chamber-clear after the solver's optimal play of ``chamber``."""
    state = new_game(seed)
    for n in range(1, chamber + 1):
        state = play(state, solve_seeded_chamber(seed, n).actions)
        assert state.phase == "chamber-clear"
        if n < chamber:
            state = ok(state, NEXT).state
    return state


# Layout A in chamber 1: start (0,2); R1 (6,0), R2 (0,4); H1 (0,0), H2 (5,2);
# B1 (1,2), B2 (3,4); V1 (6,1) offset 0; exit (6,2).
A = new_game(7)


# new_game (RR10).


def test_new_game_starts_chamber_one_without_drawing() -> None:
    state = new_game(123)
    assert (state.chamber, state.phase, state.charge, state.turn, state.rng_cursor) == (
        1, "playing", 28, 0, 0,
    )  # fmt: skip
    assert (state.score, state.total_rescued, state.cleared_chamber_count) == (0, 0, 0)
    assert state.player == (0, 2)
    assert new_game(0).seed == 0
    assert new_game(MAX_SEED).seed == MAX_SEED


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1, 1.0, True, "7", None])
def test_new_game_refuses_bad_seeds(seed: Any) -> None:
    with pytest.raises(ConfigError, match=r"seed must be an integer 0\.\.9007199254740991") as e:
        new_game(seed)
    assert isinstance(e.value, HarnessError)
    assert isinstance(e.value, ValueError)


# legalActions (RR13).


def test_legal_actions_exact_order_while_playing() -> None:
    assert legal_actions(A) == [UP, RIGHT, DOWN, WAIT, BANK]  # left is off grid
    assert legal_actions(at(A, player=(3, 2))) == [UP, DOWN, WAIT, BANK]
    assert legal_actions(at(A, player=(0, 0))) == [RIGHT, DOWN, WAIT, BANK]
    b = chamber_start(7, 2, cleared_chamber_count=1)
    assert legal_actions(at(b, player=(3, 2))) == [UP, RIGHT, DOWN, LEFT, WAIT, BANK]


def test_legal_actions_in_chamber_clear_and_ended() -> None:
    assert legal_actions(cleared_chamber()) == [NEXT, BANK]
    assert legal_actions(ok(A, BANK).state) == []


def test_moves_that_will_deplete_are_legal() -> None:
    state = at(A, charge=1, turn=27)
    assert legal_actions(state) == [UP, RIGHT, DOWN, WAIT, BANK]
    assert ok(state, UP).state.end_reason == "depleted"


def test_legal_actions_are_fresh_lists() -> None:
    first = legal_actions(A)
    first[0]["direction"] = "left"
    assert legal_actions(A)[0] == UP


# MOVE AND WAIT.


def test_a_move_costs_one_charge_and_advances_the_turn() -> None:
    result = ok(A, UP)
    assert (result.state.player, result.charge, result.turn) == ((0, 1), 27, 1)
    assert result.events == ()
    assert result.score == 0


def test_a_wait_costs_one_and_stays() -> None:
    result = ok(A, WAIT)
    assert (result.state.player, result.charge, result.turn) == ((0, 2), 27, 1)


def test_waiting_on_an_object_is_not_an_entry() -> None:
    state = at(A, player=(1, 2), turn=1, charge=27)  # standing on unused battery B1
    result = ok(state, WAIT)
    assert result.charge == 26
    assert result.events == ()
    assert result.state.used_batteries == frozenset()
    relay = at(A, player=(0, 4), turn=2, charge=26)  # standing on unused relay R2
    assert ok(relay, WAIT).state.used_relays == frozenset()


def test_directions_keep_their_meaning_under_reflection_rr5() -> None:
    state = chamber_start(0, 1)
    mirrored = at(state, reflected=True, player=layout_for(1, True).start)  # (6, 2)
    result = ok(mirrored, LEFT)  # left is still x - 1: onto mirrored battery B1 at (5, 2)
    assert result.state.player == (5, 2)
    assert result.events == (BatteryUsed("B1", 5, 2, gained=5),)


# One-time entries: relays, helpers, batteries.


def test_relay_repair_costs_two_extra_and_scores_sixty() -> None:
    state = at(A, player=(0, 3), turn=1, charge=27)
    result = ok(state, DOWN)
    assert result.charge == 24
    assert result.score == 60
    assert result.events == (RelayRepaired("R2", 0, 4),)
    assert result.state.used_relays == {"R2"}
    assert not result.state.exit_open


def test_relay_repair_scores_even_when_it_empties_charge() -> None:
    state = at(A, player=(0, 3), turn=25, charge=3)
    result = ok(state, DOWN)
    assert (result.charge, result.score, result.phase, result.end_reason) == (
        0, 60, "ended", "depleted",
    )  # fmt: skip
    assert kinds(result) == ["relayRepaired", "depleted"]
    # Below zero too: 2 - 1 - 2 = -1 clamps to 0, and the 60 points still count.
    result = ok(at(state, charge=2), DOWN)
    assert (result.charge, result.score, result.end_reason) == (0, 60, "depleted")


def test_last_relay_opens_the_exit_immediately() -> None:
    state = at(A, player=(5, 0), used_relays=frozenset({"R2"}), score=60, turn=10, charge=15)
    result = ok(state, RIGHT)
    assert result.events == (RelayRepaired("R1", 6, 0), ExitOpened(6, 2))
    assert result.state.exit_open
    assert result.phase == "playing"
    # ... even when the repair empties the charge: the exit opens, then the run depletes.
    result = ok(at(state, charge=3), RIGHT)
    assert kinds(result) == ["relayRepaired", "exitOpened", "depleted"]
    assert result.score == 120


def test_helper_rescue_scores_eighty_and_counts() -> None:
    state = at(A, player=(0, 1), turn=1, charge=27, total_rescued=4)
    result = ok(state, UP)
    assert result.events == (HelperRescued("H1", 0, 0),)
    assert (result.charge, result.score, result.state.total_rescued) == (26, 80, 5)


def test_battery_cap_example_rr7() -> None:
    # 28, move onto a battery: 27 + 6 = 33 -> 32.
    result = ok(A, RIGHT)
    assert result.charge == 32
    assert result.events == (BatteryUsed("B1", 1, 2, gained=5),)
    assert event_json(result.events[0]) == {
        "type": "batteryUsed", "id": "B1", "x": 1, "y": 2, "gained": 5,
    }  # fmt: skip


def test_battery_adds_six_below_the_cap() -> None:
    state = at(A, player=(2, 4), turn=10, charge=20)
    result = ok(state, RIGHT)
    assert result.charge == 25
    assert result.events == (BatteryUsed("B2", 3, 4, gained=6),)


def test_battery_replenishes_the_last_base_charge_before_depletion() -> None:
    state = at(A, player=(2, 4), turn=27, charge=1)
    result = ok(state, RIGHT)
    assert (result.charge, result.phase) == (6, "playing")
    assert kinds(result) == ["batteryUsed"]


def test_revisited_objects_never_award_or_cost_again() -> None:
    state = play(A, [UP, UP, DOWN, DOWN, RIGHT, LEFT])  # H1, back, B1, back
    assert (state.score, state.charge) == (80, 28 - 4 + 5 - 1)  # B1 gains 6 at 23 -> 29
    again = play(state, [RIGHT])
    assert (again.score, again.charge) == (80, state.charge - 1)
    relay = at(A, player=(0, 3), used_relays=frozenset({"R2"}), score=60, turn=3, charge=20)
    result = ok(relay, DOWN)
    assert (result.score, result.charge, result.events) == (60, 19, ())


# SPARKS.


def test_offset_zero_sparks_on_actions_three_six_nine() -> None:
    state = at(A, player=(6, 1), turn=0)  # on V1, offset 0
    shocks = []
    for _ in range(9):
        result = ok(state, WAIT)
        shocks.append(kinds(result) == ["shock"])
        state = result.state
    assert [n for n, s in enumerate(shocks, 1) if s] == [3, 6, 9]
    assert state.chamber_shock_count == 3
    assert state.charge == 28 - 9 - 3 * 3


def test_waiting_on_a_vent_can_shock() -> None:
    state = at(A, player=(6, 1), turn=2, charge=20)
    result = ok(state, WAIT)
    assert result.events == (Shock("V1", 6, 1),)
    assert (result.charge, result.state.chamber_shock_count, result.turn) == (16, 1, 3)


def test_moving_onto_a_sparking_vent_shocks() -> None:
    state = at(A, player=(6, 2), turn=5, charge=20)
    result = ok(state, UP)
    assert result.events == (Shock("V1", 6, 1),)
    assert result.charge == 16
    assert ok(at(state, turn=4), UP).events == ()  # not this action


def test_neighbouring_tiles_are_unaffected_by_a_spark() -> None:
    c = chamber_start(7, 3, cleared_chamber_count=2)
    state = at(c, player=(1, 2), turn=0)  # next to V1 (offset 0)
    for _ in range(6):
        result = ok(state, WAIT)
        assert result.events == ()
        state = result.state
    assert state.chamber_shock_count == 0


@pytest.mark.parametrize(
    ("chamber", "vent_cell", "offset", "sparking_actions"),
    [
        (2, (3, 1), 0, [3, 6]),  # B: V1 offset 0
        (2, (3, 3), 1, [2, 5]),  # B: V2 offset 1
        (3, (2, 2), 0, [3, 6]),  # C: V1 offset 0
        (3, (3, 2), 1, [2, 5]),  # C: V2 offset 1
        (3, (4, 2), 2, [1, 4]),  # C: V3 offset 2
    ],
)
def test_each_offset_shifts_the_sparks_rr9(
    chamber: int, vent_cell: tuple[int, int], offset: int, sparking_actions: list[int]
) -> None:
    state = chamber_start(7, chamber, cleared_chamber_count=chamber - 1)
    vent = state.layout.vent_at(vent_cell)
    assert vent is not None
    assert state.vent_offsets[vent.index] == offset
    state = at(state, player=vent_cell, turn=0)
    hits = []
    for n in range(1, 7):
        result = ok(state, WAIT)
        if result.events:
            assert result.events == (Shock(vent.id, *vent_cell),)
            hits.append(n)
        state = result.state
    assert hits == sparking_actions


def test_sparks_on_and_actions_until_spark_agree() -> None:
    for offset in range(3):
        for turn in range(12):
            until = actions_until_spark(turn, offset)
            assert until in (1, 2, 3)
            assert sparks_on(turn, offset) == (until == 1)
            assert sparks_on(turn + until - 1, offset)
            assert not any(sparks_on(turn + k, offset) for k in range(until - 1))
    assert actions_until_spark(0, 0) == 3  # offset 0: the third action sparks


def test_a_shock_is_applied_after_the_turn_and_before_the_clamp() -> None:
    state = at(A, player=(6, 1), turn=2, charge=2)
    result = ok(state, WAIT)  # 2 - 1 - 3 = -2 -> 0
    assert (result.charge, result.end_reason) == (0, "depleted")
    assert kinds(result) == ["shock", "depleted"]
    assert result.state.chamber_shock_count == 1
    assert result.turn == 3


# EXIT and clearing.

OPEN = at(A, used_relays=frozenset({"R1", "R2"}), score=120, turn=20, charge=10)


def test_entering_the_open_exit_clears_and_scores() -> None:
    state = at(OPEN, player=(6, 3))
    result = ok(state, UP)
    assert result.phase == "chamber-clear"
    assert result.charge == 9
    points = 150 + 3 * 9 + 75
    assert result.events == (Cleared(1, points, 9, no_shock_bonus=True),)
    assert result.score == 120 + points
    assert result.state.cleared_chamber_count == 1
    assert result.legal_actions == (NEXT, BANK)


def test_a_shocked_chamber_clears_without_the_bonus() -> None:
    state = at(OPEN, player=(6, 3), chamber_shock_count=1)
    result = ok(state, UP)
    assert result.events == (Cleared(1, 150 + 27, 9, no_shock_bonus=False),)


def test_entering_the_open_exit_at_exactly_zero_charge_clears() -> None:
    state = at(OPEN, player=(6, 3), charge=1)
    result = ok(state, UP)
    assert (result.phase, result.end_reason, result.charge) == ("chamber-clear", None, 0)
    assert result.events == (Cleared(1, 225, 0, no_shock_bonus=True),)  # zero charge: 225
    assert result.score == 120 + 225


def test_the_closed_exit_is_walkable_but_does_not_clear() -> None:
    state = at(A, player=(6, 3), used_relays=frozenset({"R2"}), score=60, turn=9, charge=12)
    result = ok(state, UP)
    assert (result.state.player, result.phase, result.events) == ((6, 2), "playing", ())
    result = ok(at(state, charge=1), UP)
    assert (result.phase, result.end_reason) == ("ended", "depleted")


def test_waiting_on_an_exit_never_clears() -> None:
    closed = at(A, player=(6, 2), turn=9, charge=12)
    assert ok(closed, WAIT).phase == "playing"
    # Even on an open exit (a state only a test can build: entering it would clear).
    on_open = at(OPEN, player=(6, 2))
    result = ok(on_open, WAIT)
    assert (result.phase, result.events) == ("playing", ())
    result = ok(at(on_open, charge=1), WAIT)
    assert (result.phase, result.end_reason) == ("ended", "depleted")


def test_a_clear_awards_once_and_freezes_the_chamber() -> None:
    state = ok(at(OPEN, player=(6, 3)), UP).state
    for action in (UP, DOWN, LEFT, RIGHT, WAIT):
        result = step(state, action)
        assert (result.ok, result.reason) == (False, "wrong_phase")
        assert result.state is state


def test_the_optimal_chamber_one_play_lists_its_events_in_order() -> None:
    state = A
    seen: list[str] = []
    for action in solve_seeded_chamber(7, 1).actions:
        result = ok(state, action)
        seen += kinds(result)
        state = result.state
    assert seen == [
        "helperRescued", "batteryUsed", "relayRepaired", "batteryUsed", "helperRescued",
        "relayRepaired", "exitOpened", "cleared",
    ]  # fmt: skip
    assert state.score == 544


# Depletion and the ended phase.


def test_non_clearing_zero_charge_ends_depleted() -> None:
    state = at(A, turn=27, charge=1)
    result = ok(state, WAIT)
    assert (result.phase, result.end_reason, result.charge) == ("ended", "depleted", 0)
    assert result.events == (Depleted(1),)
    assert result.legal_actions == ()


@pytest.mark.parametrize("action", [UP, RIGHT, WAIT, NEXT, BANK])
def test_ended_is_absorbing(action: dict[str, str]) -> None:
    for ended in (ok(A, BANK).state, ok(at(A, turn=27, charge=1), WAIT).state):
        result = step(ended, action)
        assert (result.ok, result.reason) == (False, "game_ended")
        assert result.state is ended
        assert result.legal_actions == ()


# BANK and CONTINUATION (RR11).


def test_bank_while_playing_keeps_points_turn_and_charge() -> None:
    state = play(A, [UP, UP])
    result = ok(state, BANK)
    assert (result.phase, result.end_reason) == ("ended", "banked")
    assert (result.score, result.charge, result.turn) == (80, state.charge, state.turn)
    assert result.events == (Banked(80),)
    assert result.state.player == state.player
    assert result.state.rng_cursor == 0


def test_bank_in_chamber_clear_keeps_points_turn_and_charge() -> None:
    state = cleared_chamber()
    result = ok(state, BANK)
    assert (result.score, result.charge, result.turn) == (544, state.charge, state.turn)
    assert result.state.cleared_chamber_count == 1
    assert result.end_reason == "banked"


def test_next_builds_a_fresh_chamber_keeping_the_totals() -> None:
    state = cleared_chamber()
    result = ok(state, NEXT)
    after = result.state
    assert after == chamber_start(7, 2, score=544, total_rescued=2, cleared_chamber_count=1)
    assert (after.charge, after.turn, after.chamber_shock_count) == (28, 0, 0)
    assert after.used_relays == after.used_helpers == after.used_batteries == frozenset()
    assert after.player == (1, 4)
    assert after.rng_cursor == 0
    assert result.events == (ChamberStarted(2, "B", False, (0, 1)),)
    assert event_json(result.events[0]) == {
        "type": "chamberStarted", "chamber": 2, "layout": "B", "reflected": False,
        "ventOffsets": [0, 1],
    }  # fmt: skip


def test_next_is_wrong_phase_while_playing() -> None:
    result = step(A, NEXT)
    assert (result.ok, result.reason) == (False, "wrong_phase")
    assert "still being played" in result.message
    assert '"next"' in result.message


def test_chambers_one_to_three_draw_nothing_and_four_onwards_draw() -> None:
    seed = 2024
    state = cleared_chamber(seed, 3)
    assert state.rng_cursor == 0
    result = ok(state, NEXT)
    four = result.state
    u0, u1 = output(seed, 0), output(seed, 1)
    assert four.chamber == 4
    assert four.rng_cursor == 2
    assert four.reflected == (u0 % 2 == 1)
    assert four.vent_offsets == (u1 % 3,)
    assert four.player == four.layout.start
    assert result.events == (ChamberStarted(4, "A", four.reflected, four.vent_offsets),)
    # Refusals never draw: the cursor only moves on a successful next.
    assert step(state, WAIT).state.rng_cursor == 0


def test_seeded_draws_are_deterministic_per_seed() -> None:
    first = ok(cleared_chamber(31, 3), NEXT).state
    second = ok(cleared_chamber.__wrapped__(31, 3), NEXT).state  # computed afresh
    assert first == second
    three = cleared_chamber(7, 3)
    many = {
        (s.reflected, s.vent_offsets)
        for s in (ok(at(three, seed=seed), NEXT).state for seed in range(30))
    }
    assert len(many) > 2


def test_chambers_four_to_seven_follow_the_cursor() -> None:
    seed = 99
    state = cleared_chamber(seed, 6)
    assert (state.chamber, state.rng_cursor) == (6, 2 + 3 + 4)
    seven = ok(state, NEXT).state
    assert seven.chamber == 7
    assert seven.layout.letter == "A"
    assert seven.rng_cursor == 11
    assert seven.score == state.score
    assert seven.cleared_chamber_count == 6


# REFUSALS (RR12, RR14).

MALFORMED: list[Any] = [
    None,
    [],
    "wait",
    5,
    True,
    {},
    {"direction": "up"},
    {"type": None},
    {"type": 5},
    {"type": "MOVE", "direction": "up"},
    {"type": "jump"},
    {"type": "move"},
    {"type": "move", "direction": None},
    {"type": "move", "direction": 1},
    {"type": "move", "direction": ["up"]},
    {"type": "jump", "extra": 1},
    {"type": "move", "direction": 1, "extra": 1},
]
UNKNOWN_FIELD: list[Any] = [
    {"type": "wait", "direction": "up"},
    {"type": "bank", "why": "tired"},
    {"type": "next", "chamber": 3},
    {"type": "move", "direction": "up", "steps": 2},
    {"type": "move", "direction": "north", "steps": 2},
    {"type": "wait", 1: 2},
]
UNKNOWN_DIRECTION: list[Any] = [
    {"type": "move", "direction": "north"},
    {"type": "move", "direction": "Up"},
    {"type": "move", "direction": ""},
    {"type": "move", "direction": "up "},
]


@pytest.mark.parametrize("action", MALFORMED)
def test_malformed_actions(action: Any) -> None:
    for state in (A, cleared_chamber(), ok(A, BANK).state):
        assert step(state, action).reason == "malformed_action"


@pytest.mark.parametrize("action", UNKNOWN_FIELD)
def test_unknown_fields_come_after_malformed_and_before_everything_else(action: Any) -> None:
    for state in (A, cleared_chamber(), ok(A, BANK).state):
        assert step(state, action).reason == "unknown_field"


@pytest.mark.parametrize("action", UNKNOWN_DIRECTION)
def test_unknown_directions_come_before_phase_checks(action: Any) -> None:
    for state in (A, cleared_chamber(), ok(A, BANK).state):
        assert step(state, action).reason == "unknown_direction"


def test_game_ended_comes_before_wrong_phase_and_grid_checks() -> None:
    ended = ok(A, BANK).state  # player at (0, 2): left would be off grid
    assert step(ended, LEFT).reason == "game_ended"
    assert step(ended, NEXT).reason == "game_ended"


def test_wrong_phase_comes_before_grid_checks() -> None:
    state = at(cleared_chamber(), player=(6, 2))
    assert step(state, RIGHT).reason == "wrong_phase"  # x = 7 is off grid
    assert step(state, LEFT).reason == "wrong_phase"  # (5, 2) is the pocket


def test_off_grid_and_wall() -> None:
    assert step(A, LEFT).reason == "off_grid"
    assert step(at(A, player=(0, 0)), UP).reason == "off_grid"
    assert step(at(A, player=(6, 4)), DOWN).reason == "off_grid"
    assert step(at(A, player=(6, 4)), RIGHT).reason == "off_grid"
    assert step(at(A, player=(0, 1)), RIGHT).reason == "wall"
    assert step(at(A, player=(3, 2)), LEFT).reason == "wall"


def test_refusal_reasons_are_the_closed_set_in_precedence_order() -> None:
    assert REFUSAL_REASONS == (
        "malformed_action", "unknown_field", "unknown_direction", "game_ended",
        "wrong_phase", "off_grid", "wall",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("state_name", "action", "reason", "must_mention"),
    [
        ("playing", [1], "malformed_action", ["[1]", "not a JSON object", '{"type":"wait"}']),
        ("playing", {}, "malformed_action", ['no "type" field', '"move", "wait", "next", "bank"']),
        ("playing", {"type": "Wait"}, "malformed_action", ['"type" is "Wait"', "lower case"]),
        ("playing", {"type": "move"}, "malformed_action", ['"direction"', '"up", "right"']),
        ("playing", {"type": "move", "direction": 3}, "malformed_action", ['"direction" is 3']),
        ("playing", {"type": "wait", "x": 1}, "unknown_field", ['"x" (set to 1)', 'remove "x"']),
        ("playing", {"type": "move", "direction": "n"}, "unknown_direction", ['"n"', '"left"']),
        ("ended", WAIT, "game_ended", ['"wait"', "banked", "no actions"]),
        ("clear", WAIT, "wrong_phase", ['"wait"', "already clear", '{"type":"next"}']),
        ("playing", NEXT, "wrong_phase", ['"next"', "still being played"]),
        ("playing", LEFT, "off_grid", ['"direction" is "left"', "x=0, y=2", "7 x 5 grid"]),
        ("playing", {"type": "move", "direction": "right"}, None, []),
    ],
)
def test_refusal_messages_name_the_field_the_value_and_the_fix(
    state_name: str, action: Any, reason: str | None, must_mention: list[str]
) -> None:
    states = {"playing": A, "ended": ok(A, BANK).state, "clear": cleared_chamber()}
    state = states[state_name]
    result = step(state, action)
    assert result.reason == reason
    if reason is None:
        return
    for text in must_mention:
        assert text in result.message
    assert result.legal_actions == tuple(legal_actions(state))
    if result.legal_actions:
        for legal in result.legal_actions:
            assert json.dumps(legal, separators=(",", ":")) in result.message


def test_wall_message() -> None:
    result = step(at(A, player=(0, 1)), RIGHT)
    assert result.message.startswith('"direction" is "right", but x=1, y=1 (right of you at')
    assert "is a wall" in result.message


def test_a_refusal_returns_the_identical_state() -> None:
    result = step(A, LEFT)
    assert result.state is A
    assert (result.ok, result.events, result.score, result.charge, result.turn) == (
        False, (), 0, 28, 0,
    )  # fmt: skip
    assert (result.phase, result.end_reason) == ("playing", None)


def _every_bad_action() -> list[Any]:
    return [*MALFORMED, *UNKNOWN_FIELD, *UNKNOWN_DIRECTION, UP, RIGHT, DOWN, LEFT, WAIT, NEXT]


def _assert_refusals_change_nothing(state: State) -> int:
    before = to_canonical_json(state)
    refused = 0
    for action in _every_bad_action():
        result = step(state, action)
        if result.ok:
            continue
        refused += 1
        assert result.state is state
        assert to_canonical_json(result.state) == before
        assert result.state.rng_cursor == state.rng_cursor
        assert result.events == ()
        assert result.legal_actions == tuple(legal_actions(state))
    return refused


def test_refusals_change_nothing_in_every_phase_rr14() -> None:
    playing = at(A, player=(0, 0), turn=2, charge=26)
    clear = cleared_chamber()
    banked = ok(A, BANK).state
    depleted = ok(at(A, turn=27, charge=1), WAIT).state
    assert _assert_refusals_change_nothing(playing) >= len(_every_bad_action()) - 4
    assert _assert_refusals_change_nothing(clear) == len(_every_bad_action()) - 1  # next
    assert _assert_refusals_change_nothing(banked) == len(_every_bad_action())
    assert _assert_refusals_change_nothing(depleted) == len(_every_bad_action())


def test_refusals_change_nothing_in_chamber_six_rr14() -> None:
    seed = 20250101
    six_clear = cleared_chamber(seed, 6)
    assert six_clear.chamber == 6
    assert six_clear.rng_cursor == 9
    six_playing = ok(cleared_chamber(seed, 5), NEXT).state
    assert six_playing.chamber == 6
    assert six_playing.phase == "playing"
    six_mid = play(six_playing, solve_seeded_chamber(seed, 6).actions[:4])
    for state in (six_playing, six_mid, six_clear, ok(six_clear, BANK).state):
        assert _assert_refusals_change_nothing(state) > 0
        assert from_canonical_json(to_canonical_json(state)) == state


# Results (RR15).


def test_result_json_shape() -> None:
    result = ok(A, RIGHT)
    data: Any = result_json(result)
    assert list(data) == [
        "ok", "reason", "message", "events", "legalActions", "score", "phase", "endReason",
        "charge", "turn",
    ]  # fmt: skip
    assert data["ok"] is True
    assert data["reason"] is None
    assert data["events"] == [{"type": "batteryUsed", "id": "B1", "x": 1, "y": 2, "gained": 5}]
    assert data["legalActions"] == [LEFT, WAIT, BANK]
    assert (data["score"], data["phase"], data["endReason"], data["charge"], data["turn"]) == (
        0, "playing", None, 32, 1,
    )  # fmt: skip
    assert "moved right to x=1, y=2" in data["message"]
    json.dumps(data)  # JSON-serialisable as it stands


def test_result_json_of_a_refusal_and_of_a_clear() -> None:
    refused = result_json(step(A, {"type": "fly"}))
    assert refused["ok"] is False
    assert refused["reason"] == "malformed_action"
    assert refused["events"] == []
    assert refused["legalActions"] == [UP, RIGHT, DOWN, WAIT, BANK]
    cleared = result_json(ok(at(OPEN, player=(6, 3), charge=1), UP))
    assert cleared["events"] == [
        {"type": "cleared", "chamber": 1, "points": 225, "remainingCharge": 0, "noShockBonus": True}
    ]
    assert cleared["phase"] == "chamber-clear"
    assert cleared["legalActions"] == [NEXT, BANK]


def test_every_event_has_camel_case_json() -> None:
    events: list[Event] = [
        RelayRepaired("R1", 6, 0),
        ExitOpened(6, 2),
        HelperRescued("H1", 0, 0),
        BatteryUsed("B1", 1, 2, 6),
        Shock("V1", 6, 1),
        Cleared(1, 200, 5, False),
        Depleted(3),
        Banked(10),
        ChamberStarted(4, "A", True, (2,)),
    ]
    assert [event_json(e)["type"] for e in events] == [
        "relayRepaired", "exitOpened", "helperRescued", "batteryUsed", "shock", "cleared",
        "depleted", "banked", "chamberStarted",
    ]  # fmt: skip
    assert event_json(events[0]) == {
        "type": "relayRepaired", "id": "R1", "x": 6, "y": 0, "points": 60, "cost": 2,
    }  # fmt: skip
    assert event_json(events[4]) == {"type": "shock", "id": "V1", "x": 6, "y": 1, "cost": 3}


# Property tests.

ACTIONS = hs.sampled_from([UP, RIGHT, DOWN, LEFT, WAIT, NEXT, BANK])
JUNK = hs.one_of(
    hs.none(),
    hs.integers(),
    hs.text(max_size=5),
    hs.dictionaries(hs.sampled_from(["type", "direction", "x"]), hs.text(max_size=6), max_size=3),
)


@settings(max_examples=150, deadline=None)
@given(
    seed=hs.integers(0, MAX_SEED),
    actions=hs.lists(hs.one_of(ACTIONS, ACTIONS, ACTIONS, JUNK), max_size=80),
)
def test_random_play_keeps_the_invariants(seed: int, actions: list[Any]) -> None:
    state = new_game(seed)
    for action in actions:
        before = to_canonical_json(state)
        result = step(state, action)
        if not result.ok:
            assert result.state is state
            assert to_canonical_json(result.state) == before
            continue
        after = result.state
        assert 0 <= after.charge <= 32
        assert after.score >= state.score
        assert after.rng_cursor >= state.rng_cursor
        kind = action["type"]
        if kind in ("move", "wait"):
            assert after.turn == state.turn + 1
        if kind == "bank":
            assert (after.turn, after.charge, after.score) == (
                state.turn,
                state.charge,
                state.score,
            )
        if kind == "next":
            assert (after.charge, after.turn, after.chamber) == (28, 0, state.chamber + 1)
        if kind in ("move", "wait", "bank"):
            assert after.rng_cursor == state.rng_cursor
        assert (result.score, result.charge, result.turn, result.phase) == (
            after.score, after.charge, after.turn, after.phase,
        )  # fmt: skip
        assert list(result.legal_actions) == legal_actions(after)
        assert from_canonical_json(to_canonical_json(after)) == after
        state = after


@settings(max_examples=60, deadline=None)
@given(seed=hs.integers(0, MAX_SEED), picks=hs.lists(hs.integers(0, 10), max_size=120))
def test_playing_only_legal_actions_is_never_refused(seed: int, picks: list[int]) -> None:
    state = new_game(seed)
    for pick in picks:
        legal = legal_actions(state)
        if not legal:
            break
        result = step(state, legal[pick % len(legal)])
        assert result.ok
        state = result.state
    assert from_canonical_json(to_canonical_json(state)) == state


# What a player sees (RR16).


def test_observation_of_a_fresh_game() -> None:
    obs = observe(A)
    data = observation_json(obs)
    assert data == {
        "phase": "playing",
        "endReason": None,
        "chamber": 1,
        "layout": "A",
        "layoutName": "Ring",
        "reflected": False,
        "charge": 28,
        "chargeCap": 32,
        "turn": 0,
        "chamberShockCount": 0,
        "score": 0,
        "totalRescued": 0,
        "clearedChamberCount": 0,
        "player": {"x": 0, "y": 2},
        "exit": {"x": 6, "y": 2, "open": False},
        "relays": [
            {"id": "R1", "x": 6, "y": 0, "used": False},
            {"id": "R2", "x": 0, "y": 4, "used": False},
        ],
        "helpers": [
            {"id": "H1", "x": 0, "y": 0, "used": False},
            {"id": "H2", "x": 5, "y": 2, "used": False},
        ],
        "batteries": [
            {"id": "B1", "x": 1, "y": 2, "used": False},
            {"id": "B2", "x": 3, "y": 4, "used": False},
        ],
        "vents": [{"id": "V1", "x": 6, "y": 1, "offset": 0, "actionsUntilSpark": 3}],
        "grid": ["H.....R", ".##.##1", "@B#.#HX", ".##.##.", "R..B..."],
        "legalActions": [UP, RIGHT, DOWN, WAIT, BANK],
    }


def test_actions_until_spark_counts_down_to_the_spark() -> None:
    state = at(A, player=(6, 1))
    for expected in (3, 2, 1, 3, 2, 1):
        assert observe(state).vents[0].actions_until_spark == expected
        result = ok(state, WAIT)
        assert (kinds(result) == ["shock"]) == (expected == 1)
        state = result.state


def test_observation_of_chamber_three_vents() -> None:
    c = chamber_start(7, 3, cleared_chamber_count=2)
    obs = observe(c)
    assert [(v.id, v.offset, v.actions_until_spark) for v in obs.vents] == [
        ("V1", 0, 3), ("V2", 1, 2), ("V3", 2, 1),
    ]  # fmt: skip
    assert obs.grid == ("B......", ".#####.", "@.123.R", ".##.##.", "R##H##X")


def test_render_text_shows_the_grid_every_field_and_the_legal_actions() -> None:
    state = play(A, [UP, UP])
    text = render_text(observe(state))
    for needle in [
        'chamber 1: layout A "Ring", original orientation',
        "Phase: playing.",
        "Charge 26 of 32 max. Turn 2 of this chamber. Shocks this chamber: 0.",
        "Score 80. Helpers rescued in total: 1. Chambers cleared: 0.",
        "You (@) are at x=0, y=0. Exit at x=6, y=2: closed",
        "     x=0123456",
        "  y=0  @.....R",
        "  y=1  .##.##1",
        "  y=2  .B#.#HX",
        "  y=3  .##.##.",
        "  y=4  R..B...",
        "R1 at x=6, y=0 (not yet)",
        "H1 at x=0, y=0 (rescued)",
        "B2 at x=3, y=4 (not yet)",
        "V1 at x=6, y=1, offset 0, sparks on your next action (actionsUntilSpark 1)",
        '  {"type":"move","direction":"right"}',
        '  {"type":"move","direction":"down"}',
        '  {"type":"wait"}',
        '  {"type":"bank"}',
    ]:
        assert needle in text, needle
    assert '"direction":"up"' not in text


def test_render_text_of_ended_and_reflected_states() -> None:
    text = render_text(observe(ok(A, BANK).state))
    assert "Phase: ended (banked)." in text
    assert "Legal actions: none (the run has ended)." in text
    four = ok(cleared_chamber(1, 3), NEXT).state
    text = render_text(observe(four))
    assert ("reflected left to right" in text) == four.reflected
    assert observe(four).reflected == four.reflected


# Parsing a reply (RR19).


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"type":"wait"}', WAIT),
        ('  {"type": "move", "direction": "up"}\n', UP),
        ('```\n{"type":"bank"}\n```', BANK),
        ('```json\n{"type":"next"}\n```', NEXT),
        ('```JSON {"type":"next"} ```', NEXT),
        ('{"type":"jump"}', {"type": "jump"}),  # the rules refuse it, not the parser
        ('{"type":"move","direction":"north","x":[1,{"y":null}]}', None),
        ('{"type":"wait","note":"\\ud800"}', {"type": "wait", "note": "\ufffd"}),
        ('{"\\udc00":"\\ud83d"}', {"\ufffd": "\ufffd"}),
        ('{"type":"wait","l":["\\ud800"]}', {"type": "wait", "l": ["\ufffd"]}),
    ],
)
def test_parse_action_returns_any_json_object(text: str, expected: Any) -> None:
    parsed = parse_action(text)
    assert isinstance(parsed, dict)
    if expected is not None:
        assert parsed == expected
    else:
        assert parsed == json.loads(text)


@pytest.mark.parametrize(
    ("text", "kind", "mention"),
    [
        ("", "empty", "empty"),
        ("   \n", "empty", "empty"),
        ("wait", "not_json", "exactly one JSON object"),
        ('{"type":"wait"} please', "not_json", "Extra data"),
        ("{'type':'wait'}", "not_json", "not valid JSON"),
        ('{"type": NaN}', "not_json", "NaN is not JSON"),
        ('{"type":"wait","type":"bank"}', "duplicate_key", '"type" appears twice'),
        ('["wait"]', "not_object", "a JSON array"),
        ('"wait"', "not_object", "a JSON string"),
        ("null", "not_object", "a JSON null"),
        ("3", "not_object", "a JSON number"),
        ("true", "not_object", "a JSON boolean"),
        ('```python\n{"type":"wait"}\n```', "bad_fence", "tagged 'python'"),
        ('```json\n{"type":"wait"}', "bad_fence", "not closed"),
        ('```\n```\n{"type":"wait"}\n```\n```', "bad_fence", "not closed"),
        ("x" * (2**20 + 1), "too_long", "reply too long"),
    ],
)
def test_parse_action_failures(text: str, kind: str, mention: str) -> None:
    parsed = parse_action(text)
    assert isinstance(parsed, ParseFailure)
    assert parsed.kind == kind
    assert mention in parsed.message
    if kind != "bad_fence":
        assert '{"type":"move","direction":"up"}' in parsed.message


def test_a_parsed_reply_goes_straight_to_the_rules() -> None:
    parsed = parse_action('{"type":"move","direction":"left"}')
    assert isinstance(parsed, dict)
    assert step(A, parsed).reason == "off_grid"
    parsed = parse_action('```json\n{"type":"move","direction":"right"}\n```')
    assert isinstance(parsed, dict)
    assert step(A, parsed).ok
