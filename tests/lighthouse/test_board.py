"""Board generation (B1-B5, B7 lives in test_config) and the ASCII round trip."""

from __future__ import annotations

import random
from collections import Counter
from itertools import pairwise

import pytest

from harness.errors import BoardError
from harness.games.lighthouse.board import (
    Board,
    bfs_distances,
    generate_board,
    neighbours,
    place_keys,
)
from harness.games.lighthouse.config import LighthouseConfig

# B1: golden boards. A change here changes every published seed: do it on purpose.
GOLDEN_BOARDS = {
    0: (
        "###E#######",
        "#...#.....#",
        "#.###.#.#.#",
        "#.....#.#.#",
        "#.#####.#.#",
        "#...#K#K#K#",
        "###.#.#.#.#",
        "#1..#2..#3#",
        "###########",
    ),
    7: (
        "#########E#",
        "#.......#.#",
        "#.#####.#.#",
        "#...#K....#",
        "###.#####.#",
        "#K#...#K#.#",
        "#.###.#.#.#",
        "#1...2#..3#",
        "###########",
    ),
}


@pytest.mark.parametrize("seed", sorted(GOLDEN_BOARDS))
def test_golden_boards_are_stable(seed: int) -> None:  # B1
    assert generate_board(LighthouseConfig(), seed).to_ascii() == GOLDEN_BOARDS[seed]


def test_same_seed_same_board_and_global_rng_untouched() -> None:  # B1
    config = LighthouseConfig(width=15, height=11)
    random.seed(123)
    before = random.random()
    random.seed(123)
    a = generate_board(config, 42)
    after = random.random()
    assert before == after  # generation never draws from the global RNG
    assert a == generate_board(config, 42)
    assert a != generate_board(config, 43)


def test_variant_does_not_change_the_board() -> None:
    assert generate_board(LighthouseConfig.for_variant("spring"), 9) == generate_board(
        LighthouseConfig(), 9
    )


def _floor(board: Board) -> set[tuple[int, int]]:
    return set(board.floor_tiles())


@pytest.mark.parametrize("seed", range(20))
def test_maze_is_perfect_over_rooms(seed: int) -> None:  # B2
    board = generate_board(LighthouseConfig(width=13, height=11), seed)
    floor = _floor(board)
    rooms = {(x, y) for x in range(1, 12, 2) for y in range(1, 10, 2)}
    assert rooms <= floor  # every room is carved
    for x, y in floor - rooms - {board.exit}:
        assert (x + y) % 2 == 1  # only the wall between two rooms is ever carved
    edges = sum(1 for p in floor for q in neighbours(p) if q in floor) // 2
    assert edges == len(floor) - 1
    assert len(bfs_distances(frozenset(floor), board.exit)) == len(floor)


@pytest.mark.parametrize("seed", range(20))
def test_exit_is_an_odd_x_on_row_zero_and_the_only_gap(seed: int) -> None:  # B3
    board = generate_board(LighthouseConfig(width=15, height=9), seed)
    x, y = board.exit
    assert y == 0
    assert x % 2 == 1
    border = [
        p for p in _floor(board) if p[0] in (0, board.width - 1) or p[1] in (0, board.height - 1)
    ]
    assert border == [board.exit]


def test_default_board_has_the_only_start_triple() -> None:  # B4
    for seed in range(10):
        board = generate_board(LighthouseConfig(), seed)
        assert board.starts == ((1, 7), (5, 7), (9, 7))


def test_wider_board_draws_among_all_valid_triples_left_to_right() -> None:  # B4
    config = LighthouseConfig(width=15, height=7)
    seen = Counter(generate_board(config, seed).starts for seed in range(200))
    # x in {1,3,...,13}, pairwise >= 4 apart: (1,5,9) (1,5,11) (1,5,13) (1,7,11)
    # (1,7,13) (1,9,13) (3,7,11) (3,7,13) (3,9,13) (5,9,13): ten triples.
    assert len(seen) == 10
    for starts in seen:
        xs = [x for x, _ in starts]
        assert xs == sorted(xs)
        assert all(y == 5 for _, y in starts)
        assert min(b - a for a, b in pairwise(xs)) >= 4


def _eligible(board: Board, floor: set[tuple[int, int]]) -> list[tuple[int, int]]:
    excluded = {board.exit, *board.starts, *neighbours(board.exit)}
    return [p for p in floor if p not in excluded and p[1] <= board.height - 4]


def test_keys_prefer_dead_ends_nearest_the_exit_spread_six_apart() -> None:  # B5
    config = LighthouseConfig(width=15, height=11)
    from_dead_ends = 0
    for seed in range(40):
        board = generate_board(config, seed)
        floor = _floor(board)
        passable = frozenset(floor)
        dist = bfs_distances(passable, board.exit)
        dead_ends = [
            p
            for p in _eligible(board, floor)
            if p[0] % 2 == 1 and p[1] % 2 == 1 and sum(n in floor for n in neighbours(p)) == 1
        ]
        for a in board.keys:
            for b in board.keys:
                assert a == b or bfs_distances(passable, a)[b] >= 6
        if set(board.keys) <= set(dead_ends):
            from_dead_ends += 1
            # the greedy walk starts from the dead end nearest the exit
            assert min(dist[k] for k in board.keys) == min(dist[d] for d in dead_ends)
    assert from_dead_ends >= 10  # larger boards usually offer enough dead ends


def test_keys_fall_back_to_the_farthest_floor_when_dead_ends_are_too_few() -> None:  # B5
    # An open field has no dead ends at all: every key comes from the fallback pool,
    # taken from the farthest tiles from the exit that obey the exclusions.
    rows = ["#" * 11] + ["#" + "." * 9 + "#" for _ in range(7)] + ["#" * 11]
    floor = {(x, y) for y, r in enumerate(rows) for x, ch in enumerate(r) if ch != "#"}
    exit_pos = (5, 0)
    floor.add(exit_pos)
    starts = ((1, 7), (5, 7), (9, 7))
    keys = place_keys(floor, exit_pos, starts, 9, 3, random.Random(1))
    assert keys is not None
    dist = bfs_distances(frozenset(floor), exit_pos)
    allowed = [p for p in floor if p[1] <= 5 and p not in {exit_pos, (5, 1), *starts}]
    assert dist[keys[0]] == max(dist[p] for p in allowed)  # farthest first
    for k in keys:
        assert k[1] <= 5
        assert k not in {(4, 0), (6, 0), (5, 1)}


def test_keys_impossible_returns_none_and_generation_gives_a_clear_error() -> None:  # B5
    with pytest.raises(BoardError, match=r"11 x 7 board after 1000 mazes"):
        generate_board(LighthouseConfig(height=7, key_count=12), 3)


def test_ascii_round_trip() -> None:
    for seed in range(5):
        board = generate_board(LighthouseConfig(width=13, height=9), seed)
        assert Board.from_ascii(board.to_ascii()) == board
        assert Board.from_ascii("\n".join(board.to_ascii())) == board


@pytest.mark.parametrize(
    ("rows", "problem"),
    [
        ("#E#\n#1#\n#23\n#K", "row 3 has 2 tiles"),
        ("#E#K\n#1#2\n#3#E", "exactly one exit"),
        ("#E#K\n#1#2\n#..#", "exactly one start '3'"),
        ("#E#1\n#2#3\n#..#", "at least one key"),
        ("#E#1\n#2#3\n#.xK", "unknown glyph 'x'"),
        ("", "no rows"),
    ],
)
def test_malformed_ascii_is_refused(rows: str, problem: str) -> None:
    with pytest.raises(BoardError, match=problem):
        Board.from_ascii(rows)


def test_features_are_floor_and_keys_row_major() -> None:
    board = Board.from_ascii(["#E#K#", "#K..#", "#1#2#", "#3..#"])
    assert board.keys == ((3, 0), (1, 1))
    assert board.exit == (1, 0)
    assert all(board.is_floor(p) for p in (*board.keys, board.exit, *board.starts))
    assert not board.is_floor((0, 0))
    assert not board.is_floor((-1, 1))
