"""The twelve-step tick, the end check and scoring, on hand-drawn boards."""

from __future__ import annotations

import pytest

from harness.errors import RulesError
from harness.games.lighthouse.rules import end_by_deadline, resolve_tick, results, transmits
from harness.games.lighthouse.state import (
    GameState,
    KeeperDecision,
    Move,
    Reason,
    RunnerDecision,
    RunnerStatus,
)
from tests.conftest import OPEN_ROOM, at, place, state_from

SILENT = KeeperDecision(transmit=False)
N, S, E, W, WAIT = Move.N, Move.S, Move.E, Move.W, Move.WAIT


def moves(state: GameState, *ms: Move) -> dict[int, RunnerDecision]:
    """Decisions for the active runners, in seat order."""
    seats = [r.seat for r in state.runners if r.active]
    return {seat: RunnerDecision(m) for seat, m in zip(seats, ms, strict=True)}


def tick(state: GameState, *ms: Move, keeper: KeeperDecision = SILENT) -> GameState:
    return resolve_tick(state, keeper, moves(state, *ms))[0]


@pytest.fixture
def room() -> GameState:
    return state_from(OPEN_ROOM)


# --- step 3 and T1: the transmit rule -------------------------------------------------


@pytest.mark.parametrize(
    ("decision", "on_air"),
    [
        (KeeperDecision(transmit=True, message="Sprocket N"), True),
        (KeeperDecision(transmit=None, message="Sprocket N"), True),  # inferred
        (KeeperDecision(transmit=False, message="Sprocket N"), False),  # flag decides
        (KeeperDecision(transmit=True, message=""), False),
        (KeeperDecision(transmit=True, message=" \t\n "), False),  # whitespace is silence
        (KeeperDecision(transmit=None, message="   "), False),
        (KeeperDecision(transmit=False), False),
    ],
)
def test_transmit_rule(room: GameState, decision: KeeperDecision, on_air: bool) -> None:  # T1
    assert transmits(decision) is on_air
    after, events = resolve_tick(room, decision, moves(room, WAIT, WAIT, WAIT))
    assert (events.transmission is not None) is on_air
    assert len(after.transmissions) == int(on_air)
    assert after.clock == (2 if on_air else 1)  # step 8: +1, +1 more for a transmission
    if on_air:
        assert after.transmissions[0].tick == 0
        assert after.transmissions[0].message == decision.message


# --- step 4: moves and bumps ----------------------------------------------------------


def test_moves_and_bumps(room: GameState) -> None:  # step 4, T3
    after, events = resolve_tick(room, SILENT, moves(room, N, WAIT, E))
    assert [r.pos for r in after.runners] == [(1, 6), (5, 7), (9, 7)]
    assert [e.bumped for e in events.runners] == [False, False, True]  # (10, 7) is wall
    after, events = resolve_tick(after, SILENT, moves(after, W, S, S))
    assert [e.bumped for e in events.runners] == [True, True, True]
    assert [r.pos for r in after.runners] == [(1, 6), (5, 7), (9, 7)]


def test_wait_is_never_a_bump(room: GameState) -> None:  # T3
    boxed = state_from(
        """
        ###E#######
        #...#...#K#
        #.#.#.#.#.#
        #.#.#K#.#.#
        #.#.###.#.#
        #.#K#...#.#
        #.#######.#
        #1#2#...#3#
        ###########
        """
    )
    after, events = resolve_tick(boxed, SILENT, moves(boxed, WAIT, WAIT, WAIT))
    assert [e.bumped for e in events.runners] == [False, False, False]
    after, events = resolve_tick(after, SILENT, moves(after, E, N, WAIT))
    assert [e.bumped for e in events.runners] == [True, True, False]


def test_out_of_bounds_is_a_bump() -> None:  # step 4
    s = state_from(OPEN_ROOM)
    s = place(s, 1, (5, 0))  # standing in the exit, the grid's edge above
    after, events = resolve_tick(s, SILENT, moves(s, N, WAIT, WAIT))
    assert events.runners[0].bumped
    assert after.runner(1).pos == (5, 0)


def test_a_move_into_water_is_a_bump(room: GameState) -> None:  # step 4
    s = at(place(room, 1, (1, 6)), clock=24)  # rows 7 and 8 are flooded at clock 24
    s = place(place(s, 2, (5, 6)), 3, (9, 6))
    after, events = resolve_tick(s, SILENT, moves(s, S, E, WAIT))
    assert events.runners[0].bumped
    assert after.runner(1).pos == (1, 6)
    assert not events.runners[1].bumped


def test_runners_do_not_collide_and_may_swap(room: GameState) -> None:
    s = place(place(room, 1, (3, 5)), 2, (4, 5))
    after = tick(s, E, W, WAIT)  # swap
    assert (after.runner(1).pos, after.runner(2).pos) == ((4, 5), (3, 5))
    after = tick(after, W, WAIT, WAIT)  # share a tile
    assert after.runner(1).pos == after.runner(2).pos == (3, 5)


# --- steps 5-7: pickup, gate, exit ----------------------------------------------------


def test_key_pickup_in_seat_order(room: GameState) -> None:  # step 5
    s = place(place(room, 1, (2, 1)), 2, (2, 3))
    after, events = resolve_tick(s, SILENT, moves(s, S, N, WAIT))  # both land on (2, 2)
    assert after.runner(1).keys == ((2, 2),)
    assert after.runner(2).keys == ()
    assert after.collected == ((2, 2),)
    assert events.runners[0].picked_key == (2, 2)
    assert events.runners[1].picked_key is None


def test_pickup_gate_and_exit_in_one_tick(room: GameState) -> None:  # steps 5, 6, 7
    s = at(room, collected=((2, 2), (6, 4)))
    s = place(place(s, 1, (8, 4)), 2, (5, 1))  # runner 1 next to the last key, 2 below the exit
    after, events = resolve_tick(s, SILENT, moves(s, S, N, WAIT))
    assert events.gate_opened
    assert after.gate_opened_tick == 0
    assert after.runner(2).status is RunnerStatus.ESCAPED  # the gate opened before step 7
    assert events.runners[1].escaped
    assert after.runner(1).status is RunnerStatus.ACTIVE


def test_a_shut_gate_holds_the_runner_in_the_exit(room: GameState) -> None:  # step 7
    s = place(room, 2, (5, 1))
    after = tick(s, WAIT, N, WAIT)
    assert after.runner(2).pos == (5, 0)
    assert after.runner(2).active
    after = tick(after, WAIT, WAIT, WAIT)
    assert after.runner(2).active


def test_gate_stays_open(room: GameState) -> None:  # step 6
    s = at(room, collected=((2, 2), (6, 4)))
    s = place(s, 3, (8, 4))
    after = tick(s, WAIT, WAIT, S)
    assert after.gate_open
    after = tick(after, WAIT, WAIT, WAIT)
    assert after.gate_opened_tick == 0


# --- steps 8-10: clock, tide, drowning -------------------------------------------------


def test_drowning_follows_the_clock_step(room: GameState) -> None:  # steps 8, 9, 10
    # Row 7 (the start row) floods at clock 24.
    s = at(room, clock=23)
    after, events = resolve_tick(s, SILENT, moves(s, WAIT, N, WAIT))
    assert after.clock == 24
    assert events.water_line == 7
    assert [r.status for r in after.runners] == [
        RunnerStatus.DROWNED,
        RunnerStatus.ACTIVE,  # moved up to row 6 before the water rose
        RunnerStatus.DROWNED,
    ]
    assert [e.drowned for e in events.runners] == [True, False, True]


def test_a_transmission_can_drown_a_runner(room: GameState) -> None:  # step 8
    s = at(room, clock=22)
    silent = tick(s, WAIT, WAIT, WAIT)
    assert all(r.active for r in silent.runners)
    chatty = tick(s, WAIT, WAIT, WAIT, keeper=KeeperDecision(transmit=True, message="hi"))
    assert chatty.clock == 24
    assert not any(r.active for r in chatty.runners)


def test_keys_stay_collected_when_the_carrier_drowns(room: GameState) -> None:  # T4
    s = at(place(room, 1, (2, 1)), clock=23)
    s = tick(s, S, WAIT, WAIT)  # runner 1 takes (2, 2); runners 2 and 3 drown on row 7
    assert s.collected == ((2, 2),)
    s = at(s, clock=58)  # row 2 floods at clock 59
    s = tick(s, WAIT)
    assert s.runner(1).status is RunnerStatus.DROWNED
    assert s.collected == ((2, 2),)
    assert results(s).keys_collected == 1


def test_escaped_runners_are_not_drowned_later(room: GameState) -> None:
    s = at(room, collected=((2, 2), (6, 4), (8, 5)), gate_opened_tick=0)
    s = place(s, 1, (5, 1))
    s = tick(s, N, WAIT, WAIT)
    assert s.runner(1).status is RunnerStatus.ESCAPED
    s = at(s, clock=72)
    s = tick(s, WAIT, WAIT)
    assert s.runner(1).status is RunnerStatus.ESCAPED


# --- steps 11-12: the end check --------------------------------------------------------


def test_end_check_all_resolved_comes_first(room: GameState) -> None:  # step 12
    # Everything at once: the last runner escapes, the clock reaches floodClock and
    # the tick cap is hit. "all resolved" is checked first: complete.
    s = state_from(OPEN_ROOM, max_ticks=5)
    s = at(s, tick=4, clock=72, collected=s.board.keys, gate_opened_tick=0)
    s = place(place(place(s, 1, (5, 1)), 2, (5, 1)), 3, (5, 1))
    after, events = resolve_tick(s, SILENT, moves(s, N, N, N))
    assert after.reason is Reason.COMPLETE
    assert events.reason is Reason.COMPLETE
    res = results(after)
    assert res.escaped == 3
    assert res.time_bonus == 0.0  # clock 73 = floodClock


def test_end_check_flood_before_timeup(room: GameState) -> None:  # step 12
    s = state_from(OPEN_ROOM, max_ticks=5)
    s = place(place(place(at(s, tick=4, clock=72), 1, (5, 0)), 2, (5, 0)), 3, (5, 0))
    after = tick(s, WAIT, WAIT, WAIT)  # exit row floods at 73: all drown
    assert after.reason is Reason.COMPLETE
    s = place(place(place(at(s, clock=71), 1, (5, 0)), 2, (5, 0)), 3, (5, 0))
    after = tick(s, WAIT, WAIT, WAIT, keeper=KeeperDecision(transmit=True, message="go"))
    assert after.clock == 73
    assert after.reason is Reason.COMPLETE  # not timeup, though tick 5 = maxTicks


def test_end_check_timeup(room: GameState) -> None:  # step 12
    s = at(state_from(OPEN_ROOM, max_ticks=3), tick=2)
    after = tick(s, WAIT, WAIT, WAIT)
    assert after.tick == 3
    assert after.reason is Reason.TIMEUP
    assert after.active_seats == ()


def test_tick_and_clock_advance(room: GameState) -> None:  # step 11
    after, events = resolve_tick(room, SILENT, moves(room, WAIT, WAIT, WAIT))
    assert (after.tick, events.tick) == (1, 0)
    assert (events.clock_before, events.clock_after) == (0, 1)
    assert after.reason is None


# --- scoring (T5) ---------------------------------------------------------------------


def test_scores_all_escape_with_time_bonus(room: GameState) -> None:  # T5
    s = at(room, collected=room.board.keys, gate_opened_tick=0, clock=20)
    s = place(place(place(s, 1, (5, 1)), 2, (5, 1)), 3, (5, 1))
    s = tick(s, N, N, N)
    res = results(s)
    assert (res.keys_collected, res.escaped, res.clock, res.flood_clock) == (3, 3, 21, 73)
    assert res.time_bonus == 1 - 21 / 73  # unrounded
    assert res.team_score == 6 + 30 + 6 * (1 - 21 / 73)
    assert res.scores == (res.team_score,) * 4
    assert res.reason is Reason.COMPLETE


def test_scores_partial_escape_has_no_bonus(room: GameState) -> None:  # T5
    s = at(room, collected=((2, 2),), clock=23)
    s = place(s, 1, (5, 6))
    s = tick(s, WAIT, WAIT, WAIT)  # 2 and 3 drown on row 7
    s = at(s, collected=s.board.keys, gate_opened_tick=1)
    s = place(s, 1, (5, 1))
    s = tick(s, N)
    res = results(s)
    assert (res.keys_collected, res.escaped, res.time_bonus) == (3, 1, 0.0)
    assert res.team_score == 16.0
    assert res.key_count == 3


def test_results_need_a_finished_game(room: GameState) -> None:
    with pytest.raises(RulesError, match="not over"):
        results(room)


# --- deadline (D2 hook), notes (R4), misuse -------------------------------------------


def test_deadline_ends_at_the_last_resolved_tick(room: GameState) -> None:
    s = tick(room, N, N, N)
    ended = end_by_deadline(s)
    assert ended.reason is Reason.DEADLINE
    assert ended.tick == 1
    assert results(ended).reason is Reason.DEADLINE
    with pytest.raises(RulesError, match="already over"):
        end_by_deadline(ended)


def test_notes_present_replace_absent_keep(room: GameState) -> None:  # R4
    s, _ = resolve_tick(
        room,
        KeeperDecision(transmit=False, notes="plan A"),
        {1: RunnerDecision(WAIT, notes="left"), 2: RunnerDecision(WAIT), 3: RunnerDecision(WAIT)},
    )
    assert (s.keeper_notes, s.runner(1).notes, s.runner(2).notes) == ("plan A", "left", "")
    s, _ = resolve_tick(
        s,
        KeeperDecision(transmit=False),
        {1: RunnerDecision(WAIT), 2: RunnerDecision(WAIT, notes=""), 3: RunnerDecision(WAIT)},
    )
    assert (s.keeper_notes, s.runner(1).notes, s.runner(2).notes) == ("plan A", "left", "")


def test_move_history_keeps_the_last_six(room: GameState) -> None:  # O5
    s = room
    for m in (N, N, N, N, N, E, E, W):
        s = tick(s, m, WAIT, WAIT)
    history = s.runner(1).moves
    assert len(history) == 6
    assert [(h.move, h.bumped) for h in history] == [
        (N, False), (N, False), (N, False), (E, False), (E, False), (W, False),
    ]  # fmt: skip


def test_decisions_must_match_the_active_runners(room: GameState) -> None:
    with pytest.raises(RulesError, match="active runners"):
        resolve_tick(room, SILENT, {1: RunnerDecision(WAIT), 2: RunnerDecision(WAIT)})
    s = at(room, clock=23)
    s = place(s, 1, (1, 6))
    s = tick(s, WAIT, WAIT, WAIT)  # 2 and 3 drown
    with pytest.raises(RulesError, match="active runners"):
        resolve_tick(s, SILENT, moves(room, WAIT, WAIT, WAIT))
    done = at(s, reason=Reason.TIMEUP)
    with pytest.raises(RulesError, match="over"):
        resolve_tick(done, SILENT, moves(done, WAIT))
