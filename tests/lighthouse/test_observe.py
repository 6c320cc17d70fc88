"""What each seat sees: O1-O3, O4b, O5, O6 and delivery (T2)."""

from __future__ import annotations

import dataclasses

import pytest

from harness.games.lighthouse.observe import (
    KeeperObservation,
    RunnerObservation,
    keeper_grid,
    observe_keeper,
    observe_runner,
    render_keeper,
    render_runner,
    runner_window,
)
from harness.games.lighthouse.rules import resolve_tick
from harness.games.lighthouse.state import GameState, KeeperDecision, Move, RunnerDecision
from tests.conftest import OPEN_ROOM, at, place, state_from

WAITS = {1: RunnerDecision(Move.WAIT), 2: RunnerDecision(Move.WAIT), 3: RunnerDecision(Move.WAIT)}


@pytest.fixture
def room() -> GameState:
    return state_from(OPEN_ROOM)


def say(state: GameState, message: str | None) -> GameState:
    decision = KeeperDecision(transmit=message is not None, message=message or "")
    seats = {r.seat: RunnerDecision(Move.WAIT) for r in state.runners if r.active}
    return resolve_tick(state, decision, seats)[0]


def test_keeper_grid_at_the_start(room: GameState) -> None:  # O1
    assert keeper_grid(room) == (
        "#####E#####",
        "#.........#",
        "#.K.......#",
        "#.........#",
        "#.....K...#",
        "#.......K.#",
        "#.........#",
        "#1...2...3#",
        "###########",
    )


def test_keeper_grid_precedence(room: GameState) -> None:  # O1
    # runner over exit; exit over water; wall over water; water over key.
    s = at(room, clock=59, collected=((2, 2),))  # rows 2..8 flooded
    s = place(place(place(s, 1, (5, 0)), 2, (5, 0)), 3, (3, 1))
    grid = keeper_grid(s)
    assert grid[0] == "#####1#####"  # two runners on one tile: the lower seat shows
    assert grid[1] == "#..3......#"
    assert grid[2] == "#~~~~~~~~~#"  # walls stay '#'; the collected key is water
    assert grid[4] == "#~~~~~~~~~#"  # the uncollected key at (6, 4) is under water: '~'
    s = at(s, clock=73, gate_opened_tick=0)
    s = place(s, 1, (1, 1))
    s = place(s, 2, (1, 1))
    assert keeper_grid(s)[0] == "#####O#####"  # exit over water, open gate


def test_resolved_runners_are_not_drawn(room: GameState) -> None:  # O1
    s = at(room, clock=23)
    s = place(s, 2, (5, 6))
    s = resolve_tick(s, KeeperDecision(transmit=False), WAITS)[0]  # 1 and 3 drown
    grid = keeper_grid(s)
    assert "1" not in "".join(grid)
    assert "3" not in "".join(grid)
    assert grid[6][5] == "2"


def test_runner_window(room: GameState) -> None:  # O2
    assert runner_window(room, (1, 7)) == ("#..", "#@.", "###")
    s = place(room, 1, (5, 0))
    assert runner_window(s, (5, 0)) == ("###", "#@#", "...")  # off grid is '#'
    s = place(room, 2, (2, 3))  # another runner adjacent is not drawn
    assert runner_window(s, (2, 2)) == ("...", ".@.", "...")
    s = place(room, 1, (2, 1))
    assert observe_runner(s, 1).window == ("###", ".@.", ".K.")


def test_runner_window_sees_water_and_open_gate(room: GameState) -> None:  # O2
    s = place(at(room, clock=17 + 7 * 2, gate_opened_tick=0), 1, (4, 5))
    assert observe_runner(s, 1).window == ("...", ".@.", "~~~")
    s = place(s, 1, (5, 1))
    assert observe_runner(s, 1).window == ("#O#", ".@.", "...")


def test_ticks_until_next_flood_both_ways(room: GameState) -> None:  # O3
    obs = observe_keeper(at(room, clock=10))
    assert (obs.ticks_until_flood_if_silent, obs.ticks_until_flood_if_transmit) == (7, 6)
    obs = observe_keeper(at(room, clock=16))
    assert (obs.ticks_until_flood_if_silent, obs.ticks_until_flood_if_transmit) == (1, 1)
    obs = observe_keeper(at(room, clock=17))
    assert (obs.tide_rows, obs.water_line) == (1, 8)
    assert (obs.ticks_until_flood_if_silent, obs.ticks_until_flood_if_transmit) == (7, 6)


def test_keeper_transcript_holds_the_last_five(room: GameState) -> None:
    s = room
    for i in range(7):
        s = say(s, f"m{i}")
    transcript = observe_keeper(s).transcript
    assert [m.message for m in transcript] == ["m2", "m3", "m4", "m5", "m6"]
    assert [m.tick for m in transcript] == [2, 3, 4, 5, 6]


def test_keeper_sees_tide_parameters_and_previous_water_line(room: GameState) -> None:  # O4
    s = at(room, clock=16)
    s = say(s, "hello")  # clock 16 -> 18: the first row floods this tick
    obs = observe_keeper(s)
    assert (obs.clock, obs.water_line, obs.previous_water_line) == (18, 8, 9)
    assert (obs.tide_delay, obs.tide_period, obs.flood_clock) == (10, 7, 73)
    s = say(s, None)
    assert observe_keeper(s).previous_water_line == 8


def test_delivery_inbox_and_standing_order(room: GameState) -> None:  # T2, O4b
    s = say(room, "A")  # sent at tick 0
    obs = observe_runner(s, 1)  # tick 1: delivered
    assert (obs.inbox, obs.latest_message, obs.latest_message_age) == ("A", "A", 0)
    assert obs.standing_order is None
    s = say(s, "B")  # sent at tick 1
    obs = observe_runner(s, 1)  # tick 2: B in the inbox, A standing at age 1
    assert (obs.inbox, obs.latest_message_age) == ("B", 0)
    assert (obs.standing_order, obs.standing_order_age) == ("A", 1)
    s = say(s, None)  # tick 3: silence; B is 1 tick old and standing
    obs = observe_runner(s, 1)
    assert obs.inbox is None
    assert (obs.latest_message, obs.latest_message_age) == ("B", 1)
    assert (obs.standing_order, obs.standing_order_age) == ("B", 1)
    s = say(say(s, None), None)  # tick 5: B is 3 old, still standing
    obs = observe_runner(s, 1)
    assert (obs.standing_order, obs.standing_order_age) == ("B", 3)
    s = say(s, None)  # tick 6: B is 4 old: no standing order, still the latest message
    obs = observe_runner(s, 1)
    assert obs.standing_order is None
    assert (obs.latest_message, obs.latest_message_age) == ("B", 4)


def test_message_is_in_the_inbox_at_no_other_tick(room: GameState) -> None:  # T2
    s = say(room, "only once")
    s = say(s, None)
    assert observe_runner(s, 2).inbox is None


def test_runner_sees_its_last_six_moves_oldest_first(room: GameState) -> None:  # O5
    s = room
    for move in (Move.N, Move.W, Move.N, Move.N, Move.E, Move.E, Move.WAIT):
        s = resolve_tick(s, KeeperDecision(transmit=False), {**WAITS, 1: RunnerDecision(move)})[0]
    obs = observe_runner(s, 1)
    assert [(m.move, m.bumped) for m in obs.moves] == [
        (Move.W, True),
        (Move.N, False),
        (Move.N, False),
        (Move.E, False),
        (Move.E, False),
        (Move.WAIT, False),
    ]


def test_observations_are_the_single_source(room: GameState) -> None:  # O6
    runner_fields = {f.name for f in dataclasses.fields(RunnerObservation)}
    # what a runner must not see (rules, "What each seat sees")
    for hidden in ("grid", "pos", "clock", "water_line", "runners", "keeper_notes", "tide_rows"):
        assert hidden not in runner_fields
    keeper_fields = {f.name for f in dataclasses.fields(KeeperObservation)}
    assert not any("runner_notes" in f for f in keeper_fields)
    s = resolve_tick(
        room,
        KeeperDecision(transmit=False, notes="keeper secret"),
        {**WAITS, 1: RunnerDecision(Move.N, notes="runner one secret")},
    )[0]
    keeper_text = render_keeper(observe_keeper(s))
    assert "runner one secret" not in keeper_text
    assert "keeper secret" in keeper_text
    runner2 = render_runner(observe_runner(s, 2))
    assert "secret" not in runner2
    assert "runner one secret" in render_runner(observe_runner(s, 1))


def test_text_rendering_carries_the_observation(room: GameState) -> None:
    s = say(place(room, 1, (3, 3)), "Sprocket N; Gizmo hold")
    keeper_text = render_keeper(observe_keeper(s))
    for fragment in (
        "Tick 1 of 60",
        "Clock 2",
        "Keys collected: 0 of 3",
        "Gate: shut",
        "in 15 ticks if you stay silent, in 14 if you transmit now",
        "  0 #####E#####",
        "1 Sprocket: active at x=3, y=3; last move WAIT",
        "tick 0: Sprocket N; Gizmo hold",
    ):
        assert fragment in keeper_text
    runner_text = render_runner(observe_runner(s, 1))
    for fragment in ("You are Sprocket", "Inbox: Sprocket N; Gizmo hold", "  ...", "  .@.", "WAIT"):
        assert fragment in runner_text
    assert "x=" not in runner_text
    assert "Clock" not in runner_text
