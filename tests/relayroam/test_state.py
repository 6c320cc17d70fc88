"""Relayroam state: constants, canonical JSON, validation, RNG, chamber set-up (RR1, RR2,
RR9, RR10)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from harness.errors import HarnessError, RecordError
from harness.games.relayroam import state as st
from harness.games.relayroam.layouts import layout_for
from harness.games.relayroam.rng import GAMMA, MASK64, MAX_SEED, draw, mix, output
from harness.games.relayroam.rules import new_game, step
from harness.games.relayroam.solver import solve_seeded_chamber
from harness.games.relayroam.state import (
    STATE_KEYS,
    State,
    StateError,
    chamber_setup,
    chamber_start,
    from_canonical_json,
    rng_cursor_before,
    rr9_offsets,
    state_problem,
    to_canonical_json,
    to_json_dict,
)

MOVE_RIGHT = {"type": "move", "direction": "right"}


def test_constants() -> None:
    assert (st.CHARGE_START, st.CHARGE_CAP) == (28, 32)
    assert (st.STEP_COST, st.REPAIR_COST, st.BATTERY_GAIN, st.SHOCK_COST) == (1, 2, 6, 3)
    assert st.VENT_PERIOD == 3
    assert (st.RELAY_POINTS, st.HELPER_POINTS) == (60, 80)
    assert (st.CLEAR_POINTS, st.CHARGE_POINTS, st.NO_SHOCK_BONUS) == (150, 3, 75)
    assert st.PHASES == ("playing", "chamber-clear", "ended")
    assert st.END_REASONS == ("banked", "depleted")


# SplitMix64 (RR10).


def test_splitmix64_reference_vectors() -> None:
    # The published SplitMix64 stream of seed 1234567 (Vigna's splitmix64.c).
    assert [output(1234567, k) for k in range(5)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]


def test_output_k_is_mix_of_seed_plus_k_plus_one_gammas() -> None:
    for seed in (0, 7, MAX_SEED):
        for k in range(10):
            assert output(seed, k) == mix((seed + (k + 1) * GAMMA) % 2**64)
            assert 0 <= output(seed, k) <= MASK64


def test_draw_returns_value_and_advanced_cursor() -> None:
    assert draw(42, 0) == (output(42, 0), 1)
    assert draw(42, 5) == (output(42, 5), 6)
    with pytest.raises(ValueError, match="0 or more"):
        output(42, -1)


# Chamber set-up (RR9, RR10).


def test_rr9_offsets_for_chambers_one_to_three() -> None:
    assert chamber_setup(99, 1) == st.ChamberSetup(1, False, (0,), 0)
    assert chamber_setup(99, 2) == st.ChamberSetup(2, False, (0, 1), 0)
    assert chamber_setup(99, 3) == st.ChamberSetup(3, False, (0, 1, 2), 0)
    assert rr9_offsets(2, 5) == (0, 1, 0, 1, 0)
    assert rr9_offsets(3, 5) == (0, 1, 2, 0, 1)
    with pytest.raises(ValueError, match="chambers 1-3 only"):
        rr9_offsets(4, 1)


@pytest.mark.parametrize("seed", [0, 1, 7, 123456789, MAX_SEED])
def test_chamber_four_onwards_draws_reflection_then_offsets(seed: int) -> None:
    cursor = 0
    for chamber in range(4, 16):
        vents = len(layout_for(chamber, False).vents)
        assert rng_cursor_before(chamber) == cursor
        u, cursor = draw(seed, cursor)
        offsets = []
        for _ in range(vents):
            v, cursor = draw(seed, cursor)
            offsets.append(v % 3)
        assert chamber_setup(seed, chamber) == st.ChamberSetup(
            chamber, u % 2 == 1, tuple(offsets), cursor
        )


def test_seeded_setups_vary_with_the_seed() -> None:
    setups = {(chamber_setup(s, 6).reflected, chamber_setup(s, 6).vent_offsets) for s in range(40)}
    assert len(setups) > 5
    assert {chamber_setup(s, 4).reflected for s in range(40)} == {False, True}


def test_rng_cursor_before_has_a_closed_form_for_huge_chambers() -> None:
    assert rng_cursor_before(4) == 0
    assert rng_cursor_before(5) == 2  # chamber 4 is layout A: 1 + 1 vent
    assert rng_cursor_before(6) == 5  # chamber 5 is layout B: 1 + 2 vents
    assert rng_cursor_before(7) == 9  # chamber 6 is layout C: 1 + 3 vents
    assert rng_cursor_before(3 * 10**9 + 4) == 9 * 10**9
    assert chamber_setup(5, 10**12).rng_cursor > 0


# The state and its JSON (RR1, RR2).


def test_new_game_state() -> None:
    state = new_game(7)
    assert state == State(
        seed=7,
        rng_cursor=0,
        chamber=1,
        reflected=False,
        vent_offsets=(0,),
        phase="playing",
        end_reason=None,
        charge=28,
        turn=0,
        chamber_shock_count=0,
        score=0,
        total_rescued=0,
        cleared_chamber_count=0,
        player=(0, 2),
        used_relays=frozenset(),
        used_helpers=frozenset(),
        used_batteries=frozenset(),
    )
    assert state.layout == layout_for(1, False)
    assert state.exit_open is False


def test_canonical_json_of_a_new_game() -> None:
    assert to_canonical_json(new_game(7)) == (
        '{"chamber":1,"chamberShockCount":0,"charge":28,"clearedChamberCount":0,'
        '"endReason":null,"phase":"playing","player":{"x":0,"y":2},"reflected":false,'
        '"rngCursor":0,"score":0,"seed":7,"totalRescued":0,"turn":0,"usedBatteries":[],'
        '"usedHelpers":[],"usedRelays":[],"ventOffsets":[0]}'
    )


def test_the_state_json_carries_no_map_rr2() -> None:
    assert set(to_json_dict(new_game(1))) == STATE_KEYS
    for word in ("grid", "layout", "walls", "cells", "map"):
        assert word not in to_canonical_json(new_game(1))


def test_canonical_json_is_sorted_compact_ascii_with_ids_in_order() -> None:
    state = replace(
        new_game(3),
        turn=12,
        charge=10,
        used_relays=frozenset({"R2", "R1"}),
        used_helpers=frozenset({"H2"}),
        score=200,
        total_rescued=1,
    )
    text = to_canonical_json(state)
    data = json.loads(text)
    assert text == json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    assert data["usedRelays"] == ["R1", "R2"]
    assert from_canonical_json(text) == state


def _played_states() -> list[State]:
    """States from every phase: a solver run through chambers 1-6, then bank and deplete."""
    states = [new_game(11)]
    state = states[0]
    for chamber in range(1, 7):
        for action in solve_seeded_chamber(11, chamber).actions:
            state = step(state, action).state
            states.append(state)
        state = step(state, {"type": "next"}).state
        states.append(state)
    states.append(step(state, {"type": "bank"}).state)
    states.append(step(states[-3], {"type": "bank"}).state)  # banked from chamber-clear
    low = replace(chamber_start(11, 2, cleared_chamber_count=1), charge=1, turn=27)
    states.append(step(low, {"type": "wait"}).state)  # depleted
    return states


def test_round_trip_of_played_states() -> None:
    states = _played_states()
    assert {s.phase for s in states} == {"playing", "chamber-clear", "ended"}
    assert {s.end_reason for s in states} == {None, "banked", "depleted"}
    assert max(s.chamber for s in states) == 7
    for state in states:
        assert state_problem(state) is None
        assert from_canonical_json(to_canonical_json(state)) == state


def _mutated(**changes: Any) -> str:
    data = to_json_dict(new_game(7))
    data.update(changes)
    return json.dumps(data)


def _cleared_json(**changes: Any) -> str:
    state = new_game(7)
    for action in solve_seeded_chamber(7, 1).actions:
        state = step(state, action).state
    assert state.phase == "chamber-clear"
    data = to_json_dict(state)
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not strict JSON"),
        ('{"seed": NaN}', "NaN is not a JSON number"),
        ('{"seed": 1, "seed": 2}', "duplicate key 'seed'"),
        ("[]", "must be a JSON object, got an array"),
        (json.dumps({"seed": 1}), "missing field"),
        (_mutated(extra=1), "unknown field"),
        (_mutated(seed=True), "seed must be an integer, got true"),
        (_mutated(seed=1.0), "seed must be an integer, got 1.0"),
        (_mutated(seed=-1), "seed must be 0..9007199254740991, got -1"),
        (_mutated(seed=2**53), "seed must be 0..9007199254740991"),
        (_mutated(chamber=0), "chamber must be 1 or more, got 0"),
        (_mutated(reflected=0), "reflected must be true or false"),
        (_mutated(phase="won"), "phase must be one of playing, chamber-clear, ended"),
        (_mutated(endReason="quit"), "endReason must be null, banked or depleted"),
        (_mutated(endReason="banked"), "endReason must be null while the phase is playing"),
        (_mutated(phase="ended"), "phase ended needs an endReason"),
        (_mutated(player=[0, 2]), "player must be an object"),
        (_mutated(player={"x": 0}), "player must be an object"),
        (_mutated(player={"x": -1, "y": 2}), "player.x must be 0 or more"),
        (_mutated(player={"x": 2, "y": "2"}), "player.y must be an integer"),
        (_mutated(ventOffsets=[3]), "ventOffsets must be a list of 0, 1 or 2"),
        (_mutated(ventOffsets=[1]), r"ventOffsets are \[1\] but chamber 1 with seed 7 has \[0\]"),
        (_mutated(ventOffsets=[0, 0]), "ventOffsets are"),
        (_mutated(reflected=True), "reflected is true but chamber 1 with seed 7 is not reflected"),
        (_mutated(rngCursor=1), "rngCursor is 1 but chamber 1 has used 0 random draws"),
        (_mutated(charge=33), "charge must be 0..32, got 33"),
        (_mutated(turn=-1), "turn must be 0 or more"),
        (_mutated(usedRelays="R1"), 'usedRelays must be a list of IDs like "R1"'),
        (_mutated(usedRelays=["R3"], turn=3, charge=20), "usedRelays names R3, which layout A"),
        (_mutated(usedRelays=["R2", "R1"], turn=9), "each ID once, in ID order"),
        (_mutated(usedHelpers=["H1", "H1"], turn=9), "each ID once, in ID order"),
        (_mutated(usedBatteries=["B3"], turn=3), "usedBatteries names B3"),
        (_mutated(player={"x": 1, "y": 1}, turn=2, charge=26), "x=1, y=1 is not on a floor cell"),
        (_mutated(player={"x": 7, "y": 2}, turn=2), "x=7, y=2 is not on a floor cell"),
        (_mutated(chamberShockCount=2, turn=1, charge=20), "chamberShockCount 2 exceeds turn 1"),
        (_mutated(usedHelpers=["H1"], turn=0, totalRescued=1, score=80), "1 objects are used"),
        (_mutated(charge=27), "at turn 0 the player must be on the start"),
        (_mutated(turn=4, charge=28), "charge 28 is more than this chamber's actions"),
        (_mutated(usedHelpers=["H1"], turn=4, charge=24, score=80), "totalRescued 0 is less"),
        (_mutated(usedRelays=["R1"], turn=4, charge=22), "score 0 is less than this chamber's 60"),
        (_mutated(charge=0, turn=28), "a playing state must have charge"),
        (_mutated(clearedChamberCount=1), "clearedChamberCount must be 0 while chamber 1"),
        (
            _mutated(phase="ended", endReason="depleted", turn=3, charge=4),
            "a depleted run has charge 0, not 4",
        ),
        (
            _mutated(phase="ended", endReason="depleted", turn=28, charge=0, clearedChamberCount=1),
            "clearedChamberCount must be 0 after depleting chamber 1",
        ),
        (
            _mutated(phase="ended", endReason="banked", clearedChamberCount=2),
            "clearedChamberCount must be 0 or 1 when banked",
        ),
        (
            _mutated(phase="ended", endReason="banked", clearedChamberCount=1),
            "a cleared chamber needs every relay repaired",
        ),
        (_mutated(phase="chamber-clear"), "a chamber-clear state needs every relay repaired"),
        (_cleared_json(clearedChamberCount=0), "clearedChamberCount must be 1 once"),
        (_cleared_json(endReason="banked"), "endReason must be null while the phase is chamber"),
    ],
)
def test_from_canonical_json_refuses_bad_states(text: str, message: str) -> None:
    with pytest.raises(StateError, match=message) as info:
        from_canonical_json(text)
    assert isinstance(info.value, RecordError)
    assert isinstance(info.value, HarnessError)
    assert str(info.value).startswith("state: ")


def test_from_canonical_json_accepts_a_cleared_state() -> None:
    state = from_canonical_json(_cleared_json())
    assert state.phase == "chamber-clear"
    assert state.cleared_chamber_count == 1


def test_used_ids_must_exist_in_the_chambers_layout() -> None:
    # B2 exists in layout A (chamber 1) but not in layout B (chamber 2).
    state = replace(chamber_start(7, 2), turn=5, charge=20, used_batteries=frozenset({"B2"}))
    assert state_problem(state) == (
        "usedBatteries names B2, which layout B does not have (it has B1)"
    )
    state = replace(chamber_start(7, 3), turn=5, charge=20, used_helpers=frozenset({"H2"}))
    assert "usedHelpers names H2" in (state_problem(state) or "")


def test_seeded_chamber_state_must_match_its_draws() -> None:
    seed = 5
    state = chamber_start(seed, 6, cleared_chamber_count=5)
    assert state_problem(state) is None
    text = to_canonical_json(state)
    assert from_canonical_json(text) == state
    flipped = replace(state, reflected=not state.reflected)
    flipped = replace(flipped, player=flipped.layout.start)
    assert "reflected" in (state_problem(flipped) or "")
    bumped = replace(state, rng_cursor=state.rng_cursor + 1)
    assert "rngCursor" in (state_problem(bumped) or "")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[" * 5000 + "]" * 5000, "nested too deeply"),
        ('{"seed": ' + "9" * 5000 + "}", "not strict JSON"),
    ],
)
def test_pathological_json_is_a_state_error(text: str, says: str) -> None:
    with pytest.raises(StateError, match=says):
        from_canonical_json(text)
