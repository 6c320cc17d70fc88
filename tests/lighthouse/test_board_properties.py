"""Property tests of board generation and the tick, over many seeds and board sizes.

Every board size the config allows up to 21 x 21 (width odd 11..21, height odd
7..21) is drawn, with keyCount 3 by default and 1..3 where keys are the subject.
The games are driven by hypothesis: each runner's move is either a random move or
a "smart" step along a shortest dry path to the nearest key (then to the exit), so
that escapes, open gates and time bonuses are reached often enough to matter.
"""

from __future__ import annotations

import copy
import math
import pickle
import random
from itertools import combinations
from typing import Any

import pytest
from hypothesis import event
from hypothesis import strategies as st

from harness.games.lighthouse import (
    Board,
    GameState,
    KeeperDecision,
    LighthouseConfig,
    Move,
    Reason,
    RunnerDecision,
    RunnerStatus,
    generate_board,
    new_game,
    resolve_tick,
    results,
)
from harness.games.lighthouse.board import Pos, bfs_distances, neighbours
from tests.sweeps import fuzz

WIDTHS = tuple(range(11, 22, 2))
HEIGHTS = tuple(range(7, 22, 2))

seeds = st.integers(min_value=0, max_value=2**64 - 1)
sizes = st.tuples(st.sampled_from(WIDTHS), st.sampled_from(HEIGHTS))

#: Examples of each board property (by default, and with the slow sweeps).
BOARD_EXAMPLES = (100, 500)
#: Examples of each whole-game property (by default, and with the slow sweeps).
GAME_EXAMPLES = (15, 60)


def config_for(width: int, height: int, **overrides: Any) -> LighthouseConfig:
    return LighthouseConfig(width=width, height=height, **overrides)


def floor_set(board: Board) -> set[Pos]:
    return set(board.floor_tiles())


def maze_distances(board: Board, source: Pos) -> dict[Pos, int]:
    return bfs_distances(frozenset(board.floor_tiles()), source)


# --- (a) perfect maze -------------------------------------------------------------


@fuzz(*BOARD_EXAMPLES, size=sizes, seed=seeds)
def test_floor_is_a_perfect_maze_spanning_every_room(size: tuple[int, int], seed: int) -> None:
    width, height = size
    board = generate_board(config_for(width, height), seed)
    floor = floor_set(board)

    # Connected: one BFS from the exit reaches every floor tile.
    assert set(maze_distances(board, board.exit)) == floor
    # A tree: the number of orthogonally adjacent floor pairs is floor count - 1.
    edges = sum(1 for x, y in floor for other in ((x + 1, y), (x, y + 1)) if other in floor)
    assert edges == len(floor) - 1
    # The backtracker visits every room; tiles with even x and even y are never carved.
    rooms = {(x, y) for x in range(1, width - 1, 2) for y in range(1, height - 1, 2)}
    assert rooms <= floor
    assert not any(x % 2 == 0 and y % 2 == 0 for x, y in floor)
    # Terrain holds only walls and floor, at the configured size.
    assert (board.width, board.height) == (width, height)
    assert len(board.terrain) == height
    assert all(len(row) == width and set(row) <= {"#", "."} for row in board.terrain)


# --- (b) the exit -----------------------------------------------------------------


@fuzz(*BOARD_EXAMPLES, size=sizes, seed=seeds)
def test_exit_is_the_only_gap_in_the_border(size: tuple[int, int], seed: int) -> None:
    width, height = size
    board = generate_board(config_for(width, height), seed)
    ex, ey = board.exit
    assert ey == 0
    assert ex % 2 == 1
    assert 1 <= ex <= width - 2
    assert board.is_floor(board.exit)
    border_floor = {
        (x, y) for x, y in board.floor_tiles() if x in (0, width - 1) or y in (0, height - 1)
    }
    assert border_floor == {board.exit}
    # The exit opens onto the room below it, its only floor neighbour.
    assert [n for n in neighbours(board.exit) if board.is_floor(n)] == [(ex, 1)]


# --- (c) the starts ---------------------------------------------------------------


@fuzz(*BOARD_EXAMPLES, size=sizes, seed=seeds)
def test_three_starts_on_the_bottom_room_row(size: tuple[int, int], seed: int) -> None:
    width, height = size
    board = generate_board(config_for(width, height), seed)
    assert len(board.starts) == 3
    assert len(set(board.starts)) == 3
    for x, y in board.starts:
        assert y == height - 2
        assert (x % 2, y % 2) == (1, 1)  # a room
        assert board.is_floor((x, y))
    for (ax, _), (bx, _) in combinations(board.starts, 2):
        assert abs(ax - bx) >= 4
    xs = [x for x, _ in board.starts]
    assert xs == sorted(xs)  # seats 1, 2, 3 left to right


@pytest.mark.parametrize("height", HEIGHTS)
def test_starts_at_width_11_are_the_only_triple(height: int) -> None:
    # Decision B4: at width 11 the only triple of rooms 4 apart is x = 1, 5, 9.
    for seed in range(20):
        board = generate_board(config_for(11, height), seed)
        assert board.starts == ((1, height - 2), (5, height - 2), (9, height - 2))


# --- (d) the keys -----------------------------------------------------------------


@fuzz(*BOARD_EXAMPLES, size=sizes, seed=seeds, key_count=st.integers(min_value=1, max_value=3))
def test_keys_are_placed_by_the_rules(size: tuple[int, int], seed: int, key_count: int) -> None:
    width, height = size
    board = generate_board(config_for(width, height, key_count=key_count), seed)
    keys = board.keys
    assert len(keys) == key_count
    assert len(set(keys)) == key_count
    assert list(keys) == sorted(keys, key=lambda p: (p[1], p[0]))  # row-major
    near_exit = set(neighbours(board.exit))
    for key in keys:
        assert board.is_floor(key)
        assert key not in board.starts
        assert key != board.exit
        assert key not in near_exit
        assert key[1] <= height - 4
    for a, b in combinations(keys, 2):
        assert maze_distances(board, a)[b] >= 6


def test_keys_default_to_three() -> None:
    for width, height in ((11, 7), (11, 9), (15, 11), (21, 21)):
        for seed in range(10):
            assert len(generate_board(config_for(width, height), seed).keys) == 3


# --- (e) determinism and ASCII ----------------------------------------------------


@fuzz(*BOARD_EXAMPLES, size=sizes, seed=seeds, key_count=st.integers(min_value=1, max_value=3))
def test_generation_is_deterministic_and_round_trips(
    size: tuple[int, int], seed: int, key_count: int
) -> None:
    width, height = size
    config = config_for(width, height, key_count=key_count)
    global_state = random.getstate()
    first = generate_board(config, seed)
    assert random.getstate() == global_state  # B1: never the global RNG
    random.seed(seed ^ 0x5EED)  # disturbing the global RNG changes nothing
    second = generate_board(config, seed)
    random.setstate(global_state)
    assert first == second
    assert first.to_ascii() == second.to_ascii()
    assert Board.from_ascii(first.to_ascii()) == first
    assert Board.from_ascii("\n".join(first.to_ascii())) == first
    # A config that differs only outside the board's parameters draws the same board.
    assert generate_board(config_for(width, height, key_count=key_count, max_ticks=7), seed) == (
        first
    )


# --- random games -----------------------------------------------------------------

#: Per game, out of 10: how often a runner takes the smart step rather than a random
#: move, and how often the keeper's decision is drawn rather than silence.
DISCIPLINE = st.sampled_from([10, 9, 7, 0])
CHATTER = st.sampled_from([0, 3, 10])
tenths = st.integers(min_value=0, max_value=9)
keeper_messages = st.sampled_from(
    ["", "   ", "Sprocket N; Gizmo E; Ratchet hold", "all hold", "\t", "Gizmo:S"]
)
keeper_decisions = st.builds(
    KeeperDecision,
    transmit=st.one_of(st.none(), st.booleans()),
    message=st.one_of(keeper_messages, st.text(max_size=12)),
    notes=st.one_of(st.none(), st.text(max_size=8)),
)
game_configs = st.builds(
    LighthouseConfig.for_variant,
    variant=st.sampled_from(["default", "spring"]),
    width=st.sampled_from(WIDTHS),
    height=st.sampled_from(HEIGHTS),
    key_count=st.integers(min_value=1, max_value=3),
    # Mostly long enough for whole games; short caps exercise timeup.
    max_ticks=st.one_of(st.sampled_from([60, 150, 400]), st.integers(min_value=1, max_value=90)),
)


def dry_floor(state: GameState) -> frozenset[Pos]:
    return frozenset(p for p in state.board.floor_tiles() if not state.is_flooded(p))


def smart_moves(state: GameState) -> dict[int, Move]:
    """Each active runner's step toward its nearest reachable dry key, else the exit."""
    passable = dry_floor(state)
    targets = [k for k in state.uncollected_keys() if k in passable] or [state.board.exit]
    fields = [bfs_distances(passable, t) for t in targets]
    moves: dict[int, Move] = {}
    for runner in state.runners:
        if not runner.active:
            continue
        reachable = [f for f in fields if runner.pos in f]
        if not reachable:
            moves[runner.seat] = Move.WAIT
            continue
        field = min(reachable, key=lambda f: f[runner.pos])
        best = Move.WAIT
        for move in (Move.N, Move.E, Move.S, Move.W):
            dx, dy = move.delta
            step = (runner.pos[0] + dx, runner.pos[1] + dy)
            if field.get(step, math.inf) < field[runner.pos]:
                best = move
                break
        moves[runner.seat] = best
    return moves


def draw_tick(
    state: GameState, data: Any, style: tuple[int, int]
) -> tuple[KeeperDecision, dict[int, RunnerDecision]]:
    """One tick's keeper and runner decisions, drawn in the game's style."""
    discipline, chatter = style
    t = state.tick
    keeper = KeeperDecision(None)
    if data.draw(tenths) < chatter:
        keeper = data.draw(keeper_decisions, label=f"tick {t} keeper")
    decisions = {}
    for seat, smart_move in smart_moves(state).items():
        move = smart_move
        if data.draw(tenths) >= discipline:
            move = data.draw(st.sampled_from(list(Move)), label=f"tick {t} runner {seat}")
        decisions[seat] = RunnerDecision(move)
    return keeper, decisions


def state_fingerprint(state: GameState) -> bytes:
    return pickle.dumps(state)


def reference_water_line(config: LighthouseConfig, clock: int) -> int:
    rows = min(max((clock - config.tide_delay) // config.tide_period, 0), config.height)
    return config.height - rows


def reference_tick(
    state: GameState, keeper: KeeperDecision, runners: dict[int, RunnerDecision]
) -> dict[str, Any]:
    """Steps 3-12 read straight off the rules, to hold the engine's next state against."""
    config, board = state.config, state.board
    spoke = bool(keeper.message.strip()) and keeper.transmit is not False
    water = reference_water_line(config, state.clock)
    pos = {r.seat: r.pos for r in state.runners}
    status = {r.seat: r.status for r in state.runners}
    bumped = {}
    for seat in (1, 2, 3):
        if status[seat] is not RunnerStatus.ACTIVE:
            continue
        move = runners[seat].move
        x, y = pos[seat]
        dx, dy = move.delta
        tx, ty = x + dx, y + dy
        open_tile = 0 <= tx < board.width and 0 <= ty < board.height
        open_tile = open_tile and board.terrain[ty][tx] == "." and ty < water
        bumped[seat] = move is not Move.WAIT and not open_tile
        if open_tile:
            pos[seat] = (tx, ty)
    collected = list(state.collected)
    for seat in (1, 2, 3):
        active = status[seat] is RunnerStatus.ACTIVE
        if active and pos[seat] in board.keys and pos[seat] not in collected:
            collected.append(pos[seat])
    gate = state.gate_open or len(collected) == len(board.keys)
    for seat in (1, 2, 3):
        if status[seat] is RunnerStatus.ACTIVE and gate and pos[seat] == board.exit:
            status[seat] = RunnerStatus.ESCAPED
    clock = state.clock + 1 + spoke
    water = reference_water_line(config, clock)
    for seat in (1, 2, 3):
        if status[seat] is RunnerStatus.ACTIVE and pos[seat][1] >= water:
            status[seat] = RunnerStatus.DROWNED
    tick = state.tick + 1
    reason = None
    if all(s is not RunnerStatus.ACTIVE for s in status.values()):
        reason = Reason.COMPLETE
    elif clock >= config.tide_delay + config.height * config.tide_period:
        reason = Reason.COMPLETE
    elif tick >= config.max_ticks:
        reason = Reason.TIMEUP
    return {
        "pos": pos,
        "status": status,
        "bumped": bumped,
        "collected": collected,
        "gate": gate,
        "clock": clock,
        "water": water,
        "reason": reason,
        "spoke": spoke,
    }


@fuzz(*GAME_EXAMPLES, config=game_configs, seed=seeds, data=st.data())
def test_resolve_tick_never_mutates_its_inputs_and_follows_the_rules(
    config: LighthouseConfig, seed: int, data: Any
) -> None:
    state = new_game(config, generate_board(config, seed))
    style = data.draw(st.tuples(DISCIPLINE, CHATTER), label="discipline, chatter")
    for _ in tick_budget(state):
        if state.over:
            break
        keeper, runners = draw_tick(state, data, style)
        frozen = state_fingerprint(state)
        snapshot = copy.deepcopy(state)
        runners_before = dict(runners)
        keeper_before = copy.deepcopy(keeper)

        nxt, events = resolve_tick(state, keeper, runners)

        assert state_fingerprint(state) == frozen
        assert state == snapshot
        assert runners == runners_before
        assert keeper == keeper_before
        assert nxt is not state
        assert nxt.tick == state.tick + 1
        assert events.tick == state.tick
        assert nxt.clock - state.clock in (1, 2)

        # The engine agrees with a straight reading of the rules.
        ref = reference_tick(state, keeper, runners)
        assert {r.seat: r.pos for r in nxt.runners} == ref["pos"]
        assert {r.seat: r.status for r in nxt.runners} == ref["status"]
        assert {e.seat: e.bumped for e in events.runners} == ref["bumped"]
        assert list(nxt.collected) == ref["collected"]
        assert (nxt.gate_open, nxt.clock, nxt.water_line) == (
            ref["gate"],
            ref["clock"],
            ref["water"],
        )
        assert nxt.reason == ref["reason"]
        assert (events.transmission is not None) == ref["spoke"]
        state = nxt
    else:
        pytest.fail("the game outlasted maxTicks")
    assert state.tick <= config.max_ticks


def tick_budget(state: GameState) -> range:
    """One step more than the ticks the game can still last: bounds every play loop.

    The game ends at maxTicks at the latest, so a loop over this range that never
    sees it end has found a bug instead of hanging.
    """
    return range(state.config.max_ticks - state.tick + 1)


def check_results(state: GameState) -> None:
    res = results(state)
    config = state.config
    k = len(state.collected)
    e = sum(1 for r in state.runners if r.status is RunnerStatus.ESCAPED)
    flood_clock = config.tide_delay + config.height * config.tide_period
    b = min(max(1 - state.clock / flood_clock, 0.0), 1.0) if e == 3 else 0.0

    assert 0 <= res.team_score <= 42
    assert (res.keys_collected, res.escaped, res.clock) == (k, e, state.clock)
    assert res.flood_clock == flood_clock
    assert res.key_count == config.key_count
    assert 0 <= res.keys_collected <= res.key_count
    assert 0 <= res.escaped <= 3
    assert 0.0 <= res.time_bonus <= 1.0
    assert math.isclose(res.time_bonus, b, rel_tol=0, abs_tol=1e-12)
    if res.escaped < 3:
        assert res.time_bonus == 0.0
    expected = 6 * res.keys_collected / res.key_count + 10 * res.escaped + 6 * res.time_bonus
    assert math.isclose(res.team_score, expected, rel_tol=1e-12, abs_tol=1e-12)
    assert res.scores == (res.team_score,) * 4
    # T4: keys stay collected whoever carried them and whatever became of the carrier.
    assert k == sum(len(r.keys) for r in state.runners)
    # The end check's reasons.
    if res.reason is Reason.TIMEUP:
        assert state.tick == config.max_ticks
        assert any(r.active for r in state.runners)
    else:
        assert res.reason is Reason.COMPLETE
        assert not any(r.active for r in state.runners) or state.clock >= flood_clock


@fuzz(*GAME_EXAMPLES, config=game_configs, seed=seeds, data=st.data())
def test_team_score_of_any_finished_game(config: LighthouseConfig, seed: int, data: Any) -> None:
    state = new_game(config, generate_board(config, seed))
    style = data.draw(st.tuples(DISCIPLINE, CHATTER), label="discipline, chatter")
    for _ in tick_budget(state):
        if state.over:
            break
        keeper, runners = draw_tick(state, data, style)
        state, _ = resolve_tick(state, keeper, runners)
    else:
        pytest.fail("the game outlasted maxTicks")
    check_results(state)
    res = results(state)
    event(f"reason {res.reason.value}, escaped {res.escaped}, bonus {res.time_bonus > 0}")


def test_smart_games_reach_every_scoring_term() -> None:
    # Not a property by itself: it shows the random games above can reach the time
    # bonus, and checks the formula on many whole games across every size.
    rng = random.Random(2024)
    outcomes: set[int] = set()
    bonuses = 0
    for i in range(60):
        config = LighthouseConfig.for_variant(
            rng.choice(["default", "spring"]),
            width=rng.choice(WIDTHS),
            height=rng.choice(HEIGHTS),
            key_count=rng.randint(1, 3),
            max_ticks=400,
        )
        state = new_game(config, generate_board(config, i))
        chatty = i % 2 == 0
        for _ in tick_budget(state):
            if state.over:
                break
            moves = smart_moves(state)
            keeper = KeeperDecision(None, "Sprocket N" if chatty else "")
            state, _ = resolve_tick(
                state, keeper, {seat: RunnerDecision(m) for seat, m in moves.items()}
            )
        else:
            pytest.fail("the game outlasted maxTicks")
        check_results(state)
        outcomes.add(results(state).escaped)
        bonuses += results(state).time_bonus > 0
    assert outcomes == {0, 1, 2, 3}
    assert bonuses >= 10


def test_smart_moves_helper_walks_a_shortest_path() -> None:
    # The helper the games lean on: on a corridor it heads straight for the key.
    board = Board.from_ascii(
        """
        #####E#####
        #.........#
        #.#######.#
        #.#K....#.#
        #.#####.#.#
        #1...2..#3#
        ###########
        """
    )
    config = LighthouseConfig(width=11, height=7, key_count=1)
    state = new_game(config, board)
    moves = smart_moves(state)
    assert moves[2] == Move.E
    assert moves[3] == Move.N
    for _ in tick_budget(state):
        if state.over:
            break
        moves = smart_moves(state)
        state, _ = resolve_tick(
            state, KeeperDecision(None), {s: RunnerDecision(m) for s, m in moves.items()}
        )
    else:
        pytest.fail("the game outlasted maxTicks")
    assert state.reason is Reason.COMPLETE
    assert results(state).escaped == 3
