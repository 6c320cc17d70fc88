"""LANTERN, the scripted keeper: decisions L0, L1, L2 and O4 on hand-drawn boards.

Every board is drawn with x growing to the right and y growing DOWN (y = 0 is the
exit row). The tide at the defaults (tideDelay 10, tidePeriod 7, height 9) floods
row 8 at clock 17, row 7 at 24, row 6 at 31, row 5 at 38.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

import pytest

from baselines.lighthouse.lantern import (
    assign_targets,
    dry_floor,
    lantern,
    lantern_orders,
    predicted_tile,
    should_transmit,
    step_towards,
)
from harness.games.lighthouse.board import Pos, bfs_distances
from harness.games.lighthouse.observe import KeeperObservation, RunnerView, observe_keeper
from harness.games.lighthouse.replies import parse_keeper_reply
from harness.games.lighthouse.rules import resolve_tick, transmits
from harness.games.lighthouse.state import (
    GameState,
    KeeperDecision,
    Move,
    MoveRecord,
    RunnerDecision,
    RunnerStatus,
    Transmission,
)
from tests.conftest import OPEN_ROOM, at, place, state_from

N, E, S, W, WAIT = Move.N, Move.E, Move.S, Move.W, Move.WAIT
SILENT = KeeperDecision(transmit=False)

#: An open room with one key in the middle; the exit at (5, 0).
ONE_KEY = """
#####E#####
#.........#
#.........#
#.........#
#....K....#
#.........#
#.........#
#1...2...3#
###########
"""

#: A ring: the west column, the top row, the east column and row 6, around a solid
#: block, plus a pocket (x = 3, y = 3..5) that opens only onto row 6. Runner 1 at
#: (1, 5), runner 2 in the pocket at (3, 3), the key at (9, 4).
RING = """
#####E#####
#.........#
#.#######.#
#.#2#####.#
#.#.#####K#
#1#.#####.#
#.........#
#........3#
###########
"""


# --- helpers ----------------------------------------------------------------------------


def reply_of(obs: KeeperObservation) -> dict[str, Any]:
    """LANTERN's reply as a JSON object."""
    obj = json.loads(lantern(obs))
    assert isinstance(obj, dict)
    return obj


def orders_of(obs: KeeperObservation) -> dict[str, str]:
    """The orders LANTERN composes (whether or not it transmits), alias -> N/E/S/W/hold."""
    result: dict[str, str] = {}
    for part in lantern_orders(obs).split("; "):
        alias, order = part.split(" ")
        result[alias] = order
    return result


def decision_of(obs: KeeperObservation) -> KeeperDecision:
    decision = parse_keeper_reply(
        lantern(obs), message_cap=obs.message_cap, notes_cap=obs.notes_cap
    )
    assert isinstance(decision, KeeperDecision)
    return decision


def view(obs: KeeperObservation, seat: int) -> RunnerView:
    return obs.runners[seat - 1]


def with_status(state: GameState, seat: int, status: RunnerStatus) -> GameState:
    runners = list(state.runners)
    runners[seat - 1] = replace(runners[seat - 1], status=status)
    r1, r2, r3 = runners
    return replace(state, runners=(r1, r2, r3))


def with_moves(state: GameState, seat: int, *records: MoveRecord) -> GameState:
    runners = list(state.runners)
    runners[seat - 1] = replace(runners[seat - 1], moves=records)
    r1, r2, r3 = runners
    return replace(state, runners=(r1, r2, r3))


def sent(state: GameState, tick: int, *messages: tuple[int, str]) -> GameState:
    """``state`` at start of ``tick`` with the keeper's transmissions ``(tick, message)``."""
    return at(state, tick=tick, transmissions=tuple(Transmission(t, m) for t, m in messages))


def play(state: GameState, *moves: Move, keeper: KeeperDecision | None = None) -> GameState:
    """One tick: the keeper plays LANTERN (or ``keeper``), active runners play ``moves``."""
    decision = keeper if keeper is not None else decision_of(observe_keeper(state))
    seats = [r.seat for r in state.runners if r.active]
    runners = {seat: RunnerDecision(m) for seat, m in zip(seats, moves, strict=True)}
    return resolve_tick(state, decision, runners)[0]


# --- L0: whitespace is silence; the transcript holds only what was sent -----------------


@pytest.mark.parametrize(
    ("message", "on_air"),
    [
        ("", False),
        ("   ", False),
        ("\t\n\r ", False),
        ("\u3000\u2003", False),  # str.strip() strips Unicode whitespace too
        ("\u200b", True),  # a zero-width space is not whitespace to str.strip()
        (" Sprocket N ", True),
    ],
)
def test_whitespace_message_is_silence(message: str, on_air: bool) -> None:  # L0, T1
    assert transmits(KeeperDecision(transmit=True, message=message)) is on_air
    assert transmits(KeeperDecision(transmit=None, message=message)) is on_air
    room = state_from(OPEN_ROOM)
    after = play(room, WAIT, WAIT, WAIT, keeper=KeeperDecision(transmit=True, message=message))
    assert len(after.transmissions) == int(on_air)
    assert after.clock == 1 + int(on_air)


def test_lantern_counts_only_sent_messages_in_its_rhythm() -> None:  # L0, L2
    room = state_from(OPEN_ROOM)
    # A whitespace "transmission" at tick 0 was silence: LANTERN has not spoken yet.
    s = play(room, WAIT, WAIT, WAIT, keeper=KeeperDecision(transmit=True, message=" \t "))
    obs = observe_keeper(s)
    assert obs.transcript == ()
    assert should_transmit(obs)
    assert reply_of(obs)["transmit"] is True
    # A real transmission at tick 0 puts tick 1 off the rhythm.
    s = play(room, WAIT, WAIT, WAIT, keeper=KeeperDecision(transmit=True, message="Gizmo N"))
    assert not should_transmit(observe_keeper(s))


def test_lantern_predicts_only_from_sent_messages() -> None:  # L0, L2
    room = place(state_from(ONE_KEY), 1, (5, 5))
    order = "Sprocket W"
    # Sent: the transcript holds it and runner 1 is predicted to act on it.
    spoken = play(room, WAIT, WAIT, WAIT, keeper=KeeperDecision(transmit=True, message=order))
    obs = observe_keeper(spoken)
    assert [m.message for m in obs.transcript] == [order]
    assert predicted_tile(obs, view(obs, 1), dry_floor(obs)) == (4, 5)
    # Not sent (flag false, or whitespace): nothing to predict from.
    for unsent in (KeeperDecision(transmit=False, message=order), KeeperDecision(True, "  ")):
        obs = observe_keeper(play(room, WAIT, WAIT, WAIT, keeper=unsent))
        assert obs.transcript == ()
        assert predicted_tile(obs, view(obs, 1), dry_floor(obs)) == (5, 5)


# --- L1: a pure function of the observation, in a model's reply shape ------------------


def _observations() -> list[KeeperObservation]:
    room = state_from(OPEN_ROOM)
    later = play(room, N, E, W)  # LANTERN spoke at tick 0; runner 1 bumps nothing
    later = play(later, W, N, N)  # tick 1: runner 1 bumps the west wall
    return [observe_keeper(room), observe_keeper(later), observe_keeper(play(later, N, N, N))]


@pytest.mark.parametrize("index", [0, 1, 2])
def test_lantern_is_pure(index: int) -> None:  # L1
    obs = _observations()[index]
    before = copy.deepcopy(obs)
    first = lantern(obs)
    assert lantern(obs) == first
    assert obs == before  # the observation is unchanged
    assert lantern(_observations()[index]) == first  # an equal observation, the same reply
    decision = parse_keeper_reply(first, message_cap=obs.message_cap, notes_cap=obs.notes_cap)
    assert isinstance(decision, KeeperDecision)
    assert transmits(decision) is should_transmit(obs)
    if transmits(decision):
        assert decision.message == lantern_orders(obs)


def test_lantern_silent_reply_parses() -> None:  # L1
    s = play(state_from(OPEN_ROOM), WAIT, WAIT, WAIT)  # tick 1, spoke at tick 0
    obs = observe_keeper(s)
    assert reply_of(obs) == {"transmit": False}
    decision = decision_of(obs)
    assert decision.transmit is False
    assert not transmits(decision)


# --- L2: BFS over the dry floor --------------------------------------------------------


def test_water_makes_the_order_detour_or_hold() -> None:  # L2
    ring = with_status(state_from(RING), 3, RunnerStatus.ESCAPED)
    # Dry: runner 1's way to the key is S, along row 6 (11 steps; N is 15). Runner 2
    # ties with it at 11, loses on seat, and heads for the exit, also by row 6.
    obs = observe_keeper(ring)
    assert reply_of(obs) == {"transmit": True, "message": "Sprocket S; Gizmo S"}
    # Rows 6-8 flooded (clock 31): row 6 is gone, so runner 1 goes round by the top,
    # and runner 2, cut off in its pocket, can reach neither a key nor the exit.
    obs = observe_keeper(at(ring, clock=31))
    assert obs.water_line == 6
    assert obs.grid[6] == "#~~~~~~~~~#"
    assert reply_of(obs) == {"transmit": True, "message": "Sprocket N; Gizmo hold"}
    floor = dry_floor(obs)
    assert (1, 6) not in floor
    assert (3, 3) in floor
    assert bfs_distances(floor, (9, 4))[(1, 5)] == 15


def test_a_runner_that_cannot_reach_a_key_targets_the_exit() -> None:  # L2
    pocket = state_from(
        """
        #####E#####
        #.........#
        #.#######.#
        #1#K#####.#
        #.#.#####.#
        #.#.#####.#
        #.........#
        #.2.....3.#
        ###########
        """
    )
    pocket = place(place(pocket, 2, (5, 1)), 3, (9, 1))
    obs = observe_keeper(pocket)  # dry: the key at (3, 3) is 8 away by row 6
    assert orders_of(obs)["Sprocket"] == "S"
    obs = observe_keeper(at(pocket, clock=31))  # row 6 flooded; the key itself is dry
    assert obs.grid[3][3] == "K"
    assert obs.uncollected_keys == ((3, 3),)
    floor = dry_floor(obs)
    fields = assign_targets(obs, {r.seat: r.pos for r in obs.runners}, floor)
    exit_field = bfs_distances(floor, obs.exit)
    assert fields == {1: exit_field, 2: exit_field, 3: exit_field}
    assert orders_of(obs) == {"Sprocket": "N", "Gizmo": "N", "Ratchet": "W"}


def test_keys_under_water_are_out_of_play() -> None:  # L2
    s = state_from(
        """
        #####E#####
        #.........#
        #.........#
        #.........#
        #.........#
        #.........#
        #....1....#
        #2...K...3#
        ###########
        """
    )
    s = place(place(s, 2, (1, 6)), 3, (9, 6))
    assert orders_of(observe_keeper(s))["Sprocket"] == "S"  # dry: the key is one step S
    obs = observe_keeper(at(s, clock=24))  # row 7 floods at clock 24
    assert obs.grid[7] == "#~~~~~~~~~#"
    assert obs.uncollected_keys == ((5, 7),)  # still uncollected, but under water
    floor = dry_floor(obs)
    fields = assign_targets(obs, {1: (5, 6), 2: (1, 6), 3: (9, 6)}, floor)
    assert fields[1] == bfs_distances(floor, obs.exit)
    assert orders_of(obs) == {"Sprocket": "N", "Gizmo": "N", "Ratchet": "N"}


# --- L2: greedy assignment -------------------------------------------------------------


def test_greedy_assignment_takes_the_nearest_pair_first() -> None:  # L2
    # Runner 1 (3, 3) is 2 from key A (5, 3) and 4 from key B (3, 7); runner 2 (6, 3)
    # is 1 from A. Nearest pair first: 2 takes A, then 1 takes B; runner 3 gets none
    # (more runners than keys) and heads for the exit.
    s = state_from(
        """
        #####E#####
        #.........#
        #.........#
        #..1.K2...#
        #.........#
        #........3#
        #.........#
        #..K......#
        ###########
        """
    )
    obs = observe_keeper(s)
    floor = dry_floor(obs)
    fields = assign_targets(obs, {1: (3, 3), 2: (6, 3), 3: (9, 5)}, floor)
    assert fields[1] == bfs_distances(floor, (3, 7))
    assert fields[2] == bfs_distances(floor, (5, 3))
    assert fields[3] == bfs_distances(floor, (5, 0))
    assert reply_of(obs) == {"transmit": True, "message": "Sprocket S; Gizmo W; Ratchet N"}


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        # runner 1 west of the key, runner 2 east, both 2 away: seat 1 takes it
        ("#..1.K.2..#", {"Sprocket": "E", "Gizmo": "N", "Ratchet": "N"}),
        ("#..2.K.1..#", {"Sprocket": "W", "Gizmo": "N", "Ratchet": "N"}),
    ],
)
def test_assignment_ties_go_to_the_lower_seat(row: str, expected: dict[str, str]) -> None:
    s = state_from(
        f"""
        #####E#####
        #.........#
        #.........#
        {row}
        #.........#
        #.........#
        #.........#
        #........3#
        ###########
        """
    )
    obs = observe_keeper(s)
    assert orders_of(obs) == expected


@pytest.mark.parametrize(
    ("rows", "key", "order"),
    [
        # Same row: (3, 4) precedes (7, 4) row-major, although E comes before W.
        (("#.........#", "#..K.1.K..#", "#.........#"), (3, 4), "W"),
        # (7, 3) precedes (3, 5) row-major (top row first), although x = 3 < 7.
        (("#......K..#", "#....1....#", "#..K......#"), (7, 3), "N"),
    ],
)
def test_assignment_ties_go_to_the_first_key_row_major(
    rows: tuple[str, str, str], key: Pos, order: str
) -> None:  # L2
    r3, r4, r5 = rows
    s = state_from(
        f"""
        #####E#####
        #.........#
        #.........#
        {r3}
        {r4}
        {r5}
        #.........#
        #2.......3#
        ###########
        """
    )
    obs = observe_keeper(s)
    assert obs.uncollected_keys == tuple(sorted(obs.keys, key=lambda p: (p[1], p[0])))
    floor = dry_floor(obs)
    fields = assign_targets(obs, {1: (5, 4), 2: (1, 7), 3: (9, 7)}, floor)
    assert fields[1] == bfs_distances(floor, key)
    assert orders_of(obs)["Sprocket"] == order


def test_assignment_counts_from_the_predicted_tile() -> None:  # L2
    s = state_from(
        """
        #####E#####
        #.........#
        #.........#
        #..1.K.2..#
        #.........#
        #.........#
        #.........#
        #........3#
        ###########
        """
    )
    # Tie at 2: seat 1 wins (see above). But runner 2 was told W at tick 0, so at
    # tick 1 it is predicted at (6, 3), 1 from the key, and takes it.
    s = sent(s, 1, (0, "Gizmo W"))
    obs = observe_keeper(s)
    assert predicted_tile(obs, view(obs, 2), dry_floor(obs)) == (6, 3)
    assert orders_of(obs) == {"Sprocket": "N", "Gizmo": "W", "Ratchet": "N"}


# --- L2: the step ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "move"),
    [
        ((7, 2), N),  # N and E both shorten: N
        ((3, 2), N),  # N and W: N
        ((7, 6), E),  # E and S: E
        ((3, 6), S),  # S and W: S
        ((5, 1), N),
        ((9, 4), E),
        ((5, 7), S),
        ((1, 4), W),
        ((5, 4), WAIT),  # already there
    ],
)
def test_step_ties_break_n_e_s_w(target: Pos, move: Move) -> None:  # L2
    obs = observe_keeper(state_from(OPEN_ROOM))
    field = bfs_distances(dry_floor(obs), target)
    assert step_towards((5, 4), field) is move


def test_step_holds_when_unreachable() -> None:  # L2
    obs = observe_keeper(state_from(OPEN_ROOM))
    floor = dry_floor(obs)
    field = bfs_distances(floor - {(5, 3), (6, 4), (5, 5), (4, 4)}, (1, 1))
    assert (5, 4) not in field
    assert step_towards((5, 4), field) is WAIT
    assert step_towards((5, 4), {}) is WAIT


def test_hold_when_standing_on_the_exit_with_the_gate_shut() -> None:  # L2
    s = place(state_from(ONE_KEY), 3, (5, 0))  # 3 gets no key (1 and 2 are nearer)
    obs = observe_keeper(s)
    assert obs.grid[0] == "#####3#####"
    assert not obs.gate_open
    assert reply_of(obs) == {"transmit": True, "message": "Sprocket N; Gizmo N; Ratchet hold"}


# --- L2: the message -------------------------------------------------------------------


def test_message_lists_active_runners_in_seat_order() -> None:  # L2
    s = state_from(ONE_KEY, aliases=("Zed", "Ada", "Mo"))
    obs = observe_keeper(s)
    # Runner 2 (5, 7) is 3 from the key; 1 and 3 are 7 from it and head for the exit.
    assert lantern_orders(obs) == "Zed N; Ada N; Mo N"
    s = place(s, 2, (5, 5))
    assert lantern_orders(observe_keeper(s)) == "Zed N; Ada N; Mo N"
    s = place(s, 2, (6, 4))
    assert lantern_orders(observe_keeper(s)) == "Zed N; Ada W; Mo N"
    s = with_status(s, 2, RunnerStatus.DROWNED)
    assert lantern_orders(observe_keeper(s)) == "Zed N; Mo N"
    s = with_status(s, 1, RunnerStatus.ESCAPED)
    assert reply_of(observe_keeper(s)) == {"transmit": True, "message": "Mo N"}


# --- L2: the predicted tile ------------------------------------------------------------


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        ((), (5, 4)),
        (((5, "Sprocket N"),), (5, 3)),  # t-1
        (((2, "Sprocket N"),), (5, 3)),  # t-4, still acted on
        (((1, "Sprocket N"),), (5, 4)),  # t-5, too old
        (((0, "Sprocket E"), (1, "Sprocket N")), (5, 4)),  # both too old
        (((2, "Sprocket N"), (4, "Sprocket E")), (6, 4)),  # the latest wins
        (((4, "Sprocket E"), (5, "Gizmo N; Ratchet S")), (6, 4)),  # latest NAMING it
        (((4, "Sprocket E"), (5, "Sprocket hold")), (5, 4)),  # hold: the current tile
        (((4, "Sprocket E"), (5, "Sprocket: H")), (5, 4)),
        (((5, "Sprocket, go"),), (5, 4)),  # named without a direction
        (((5, "Gizmo N; Sprocket south"),), (5, 5)),
        (((5, "sprocket:W"),), (4, 4)),
    ],
)
def test_predicted_tile(messages: tuple[tuple[int, str], ...], expected: Pos) -> None:  # L2
    s = sent(place(state_from(OPEN_ROOM), 1, (5, 4)), 6, *messages)
    obs = observe_keeper(s)
    assert obs.tick == 6
    assert predicted_tile(obs, view(obs, 1), dry_floor(obs)) == expected


def test_predicted_step_must_be_open_and_dry() -> None:  # L2
    room = place(place(state_from(OPEN_ROOM), 2, (3, 1)), 3, (7, 1))  # off the water's way
    s = sent(place(room, 1, (1, 4)), 3, (2, "Sprocket W"))  # (0, 4) is wall
    obs = observe_keeper(s)
    assert predicted_tile(obs, view(obs, 1), dry_floor(obs)) == (1, 4)
    s = sent(place(room, 1, (5, 6)), 3, (2, "Sprocket S"))
    obs = observe_keeper(s)
    assert predicted_tile(obs, view(obs, 1), dry_floor(obs)) == (5, 7)  # dry
    obs = observe_keeper(at(s, clock=24))  # row 7 under water
    assert predicted_tile(obs, view(obs, 1), dry_floor(obs)) == (5, 6)
    s = sent(place(room, 1, (5, 1)), 3, (2, "Sprocket N"))  # into the shut exit: open
    obs = observe_keeper(s)
    assert predicted_tile(obs, view(obs, 1), dry_floor(obs)) == (5, 0)


def test_order_is_aimed_from_the_predicted_tile() -> None:  # L2
    s = place(state_from(ONE_KEY), 1, (3, 4))
    # Runner 1 is 2 W of the key (5, 4): E. Told S last tick, it will be at (3, 5),
    # 3 from the key (a tie with runner 2, which seat 1 wins): N (N and E tie, N first).
    assert orders_of(observe_keeper(s))["Sprocket"] == "E"
    obs = observe_keeper(sent(s, 1, (0, "Sprocket S")))
    assert predicted_tile(obs, view(obs, 1), dry_floor(obs)) == (3, 5)
    assert orders_of(obs)["Sprocket"] == "N"
    # Told E from (4, 4), it will stand on the key: hold.
    s = place(s, 1, (4, 4))
    assert orders_of(observe_keeper(s))["Sprocket"] == "E"
    obs = observe_keeper(sent(s, 1, (0, "Sprocket E")))
    assert predicted_tile(obs, view(obs, 1), dry_floor(obs)) == (5, 4)
    assert orders_of(obs)["Sprocket"] == "hold"
    assert reply_of(obs) == {"transmit": False}  # off the rhythm at tick 1


# --- L2: the rhythm --------------------------------------------------------------------


def test_rhythm_every_other_tick() -> None:  # L2
    s = state_from(OPEN_ROOM)  # runners on row 7, no row flooded: nobody near water
    flags = []
    for _ in range(7):
        obs = observe_keeper(s)
        flags.append(reply_of(obs)["transmit"])
        s = play(s, WAIT, WAIT, WAIT)
    assert flags == [True, False, True, False, True, False, True]
    assert [m.tick for m in s.transmissions] == [0, 2, 4, 6]


def test_rhythm_counts_from_the_last_transmission() -> None:  # L2
    room = state_from(OPEN_ROOM)
    assert should_transmit(observe_keeper(sent(room, 5, (4, "x")))) is False
    assert should_transmit(observe_keeper(sent(room, 5, (3, "x"))))
    assert should_transmit(observe_keeper(sent(room, 5, (0, "x"))))
    assert should_transmit(observe_keeper(sent(room, 5)))  # never spoke


def test_bump_breaks_the_rhythm() -> None:  # L2
    room = state_from(OPEN_ROOM)
    calm = play(room, N, N, N)
    assert reply_of(observe_keeper(calm)) == {"transmit": False}
    bumped = play(room, WAIT, S, WAIT)  # runner 2 bumps the south wall at tick 0
    obs = observe_keeper(bumped)
    assert view(obs, 2).bumped
    assert obs.transcript[-1].tick == 0
    assert reply_of(obs)["transmit"] is True


def test_a_resolved_runner_bump_does_not_break_the_rhythm() -> None:  # L2
    s = place(place(at(state_from(OPEN_ROOM), clock=22), 1, (1, 1)), 2, (5, 1))
    # tick 0: LANTERN speaks (clock 22 -> 24, row 7 floods); runner 3 bumps E and drowns
    s = play(s, WAIT, WAIT, E)
    obs = observe_keeper(s)
    assert view(obs, 3).status is RunnerStatus.DROWNED
    assert view(obs, 3).bumped
    assert obs.water_line == 7  # runners 1 and 2 on row 1: far from the water
    assert reply_of(obs) == {"transmit": False}
    # the same with runner 1 bumping N into the wall: it is active, so LANTERN speaks
    s = place(place(at(state_from(OPEN_ROOM), clock=22), 1, (1, 1)), 2, (5, 1))
    s = play(s, N, WAIT, E)
    assert reply_of(observe_keeper(s))["transmit"] is True


def _after_one_spoken_tick(clock: int, ys: tuple[int, int, int]) -> KeeperObservation:
    """Tick 1 after LANTERN spoke at tick 0 (clock + 2), runners on rows ``ys``, all WAIT."""
    s = at(state_from(OPEN_ROOM), clock=clock)
    for seat, (x, y) in zip((1, 2, 3), ((1, ys[0]), (5, ys[1]), (9, ys[2])), strict=True):
        s = place(s, seat, (x, y))
    s = play(s, WAIT, WAIT, WAIT)
    assert s.transmissions[-1].tick == 0
    return observe_keeper(s)


@pytest.mark.parametrize(
    ("clock", "ys", "lines", "speaks"),
    [
        # the first row floods (line 9 -> 8); runner 1 on row 7 is now 1 from it
        (16, (7, 1, 1), (9, 8), True),
        # line 7 -> 6: runner 2 on row 4 is now 2 from it (it was 3)
        (29, (1, 4, 1), (7, 6), True),
        # line 7 -> 6: runner 2 on row 3 is 3 from it: not near
        (29, (1, 3, 1), (7, 6), False),
        # line 7 -> 6, but runner 3 on row 5 was already 2 from line 7
        (29, (1, 1, 5), (7, 6), False),
        # line 6 -> 6: runner 2 on row 4 was already near, no change
        (31, (1, 4, 1), (6, 6), False),
        # no row flooded: a runner on row 7 is 2 rows from height, but not near water
        (0, (7, 7, 7), (9, 9), False),
    ],
)
def test_water_coming_near_breaks_the_rhythm(
    clock: int, ys: tuple[int, int, int], lines: tuple[int, int], speaks: bool
) -> None:  # L2
    obs = _after_one_spoken_tick(clock, ys)
    assert (obs.previous_water_line, obs.water_line) == lines
    assert all(r.status is RunnerStatus.ACTIVE and not r.bumped for r in obs.runners)
    assert not obs.gate_open
    assert reply_of(obs)["transmit"] is speaks


def test_a_runner_walking_towards_still_water_does_not_break_the_rhythm() -> None:  # L2
    # "Just" compares the previous and the current water line at the runner's CURRENT
    # row: runner 2 steps from row 4 to row 5 while the line stays at 7 (2 from row 5).
    s = at(state_from(OPEN_ROOM), clock=24)
    s = place(place(place(s, 1, (1, 1)), 2, (5, 4)), 3, (9, 1))
    s = play(s, WAIT, S, WAIT)  # LANTERN speaks: clock 24 -> 26
    obs = observe_keeper(s)
    assert view(obs, 2).pos == (5, 5)
    assert (obs.previous_water_line, obs.water_line) == (7, 7)
    assert reply_of(obs) == {"transmit": False}


def test_water_near_only_an_active_runner_counts() -> None:  # L2
    # line 7 -> 6 would bring runner 2 on row 4 near, but runner 2 has escaped
    s = at(state_from(OPEN_ROOM), clock=29)
    s = place(place(place(s, 1, (1, 1)), 2, (5, 4)), 3, (9, 1))
    s = with_status(s, 2, RunnerStatus.ESCAPED)
    s = play(s, WAIT, WAIT)
    obs = observe_keeper(s)
    assert (obs.previous_water_line, obs.water_line) == (7, 6)
    assert reply_of(obs) == {"transmit": False}


def test_gate_opening_breaks_the_rhythm() -> None:  # L2
    s = place(state_from(ONE_KEY), 1, (5, 3))
    s = play(s, S, WAIT, WAIT)  # tick 0: LANTERN speaks; runner 1 takes the only key
    obs = observe_keeper(s)
    assert (obs.gate_open, obs.gate_opened_tick, obs.tick) == (True, 0, 1)
    assert obs.grid[0] == "#####O#####"
    assert reply_of(obs)["transmit"] is True
    # Only the tick right after: gate opened at 1, spoke at 2, now tick 3: silent.
    s = sent(at(s, gate_opened_tick=1), 3, (2, "x"))
    assert reply_of(observe_keeper(s)) == {"transmit": False}
    s = at(s, gate_opened_tick=2)
    assert reply_of(observe_keeper(s))["transmit"] is True


# --- O4: what the keeper observation carries for LANTERN --------------------------------


def test_keeper_observation_carries_what_lantern_needs() -> None:  # O4
    s = at(state_from(OPEN_ROOM), clock=16)
    quiet = play(s, WAIT, WAIT, WAIT, keeper=SILENT)  # clock 16 -> 17
    obs = observe_keeper(quiet)
    assert (obs.clock, obs.water_line, obs.previous_water_line) == (17, 8, 9)
    spoken = play(s, WAIT, WAIT, WAIT, keeper=KeeperDecision(transmit=True, message="hi"))
    obs = observe_keeper(spoken)
    assert (obs.clock, obs.water_line, obs.previous_water_line) == (18, 8, 9)
    obs = observe_keeper(play(spoken, WAIT, WAIT, WAIT, keeper=SILENT))
    assert (obs.clock, obs.water_line, obs.previous_water_line) == (19, 8, 8)
    assert obs.gate_opened_tick is None
    s = place(at(state_from(ONE_KEY), tick=4, clock=4), 2, (5, 5))
    s = play(s, WAIT, N, WAIT, keeper=SILENT)
    obs = observe_keeper(s)
    assert (obs.tick, obs.gate_open, obs.gate_opened_tick) == (5, True, 4)
    assert obs.uncollected_keys == ()
    # the keeper sees every runner's last move and bump flag, and its own transcript
    s = with_moves(state_from(OPEN_ROOM), 1, MoveRecord(W, True))
    obs = observe_keeper(s)
    assert (view(obs, 1).last_move, view(obs, 1).bumped) == (W, True)
