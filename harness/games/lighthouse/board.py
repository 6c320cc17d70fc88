"""The Lighthouse board: terrain, exit, runner starts and keys; generation and ASCII.

Coordinates are ``(x, y)`` with x growing to the right and y growing DOWN (y = 0 is
the top row, where the exit is). Generation follows the rules' "The board" and
decisions B1-B5 exactly; every random draw comes from one ``random.Random(seed)``.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import combinations

from harness.errors import BoardError
from harness.games.lighthouse.config import LighthouseConfig

Pos = tuple[int, int]

WALL = "#"
FLOOR = "."
EXIT = "E"
KEY = "K"
START_GLYPHS = ("1", "2", "3")

#: Neighbour order used everywhere a fixed order is needed: N, E, S, W.
NEIGHBOUR_STEPS: tuple[Pos, ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))

#: How many fresh mazes generation tries before it gives up (decision B5).
MAX_MAZE_ATTEMPTS = 1000
#: Keys must be at least this far apart by maze distance (rules, "The board" 5).
MIN_KEY_SEPARATION = 6
#: Runner starts must be at least this far apart in x (rules, "The board" 4).
MIN_START_SEPARATION = 4


@dataclass(frozen=True)
class Board:
    """An immutable board. ``terrain`` holds only ``#`` and ``.``; features live beside it.

    ``keys`` are kept in row-major order (by y, then x), the order LANTERN breaks
    ties by (decision L2).
    """

    width: int
    height: int
    terrain: tuple[str, ...]
    exit: Pos
    starts: tuple[Pos, Pos, Pos]
    keys: tuple[Pos, ...]

    def in_bounds(self, pos: Pos) -> bool:
        """Whether ``pos`` lies on the grid."""
        x, y = pos
        return 0 <= x < self.width and 0 <= y < self.height

    def is_floor(self, pos: Pos) -> bool:
        """Whether ``pos`` is on the grid and not a wall."""
        x, y = pos
        return 0 <= x < self.width and 0 <= y < self.height and self.terrain[y][x] == FLOOR

    def floor_tiles(self) -> Iterator[Pos]:
        """Every floor tile, row-major."""
        for y, row in enumerate(self.terrain):
            for x, ch in enumerate(row):
                if ch == FLOOR:
                    yield (x, y)

    def to_ascii(self) -> tuple[str, ...]:
        """The board as rows of ``# . E K 1 2 3`` (the inverse of :meth:`from_ascii`)."""
        rows = [list(row) for row in self.terrain]
        for x, y in self.keys:
            rows[y][x] = KEY
        for glyph, (x, y) in zip(START_GLYPHS, self.starts, strict=True):
            rows[y][x] = glyph
        ex, ey = self.exit
        rows[ey][ex] = EXIT
        return tuple("".join(row) for row in rows)

    @classmethod
    def from_ascii(cls, rows: Iterable[str] | str) -> Board:
        """Parse a board drawn as text, e.g. in a test or a record.

        Accepts a sequence of rows or one string (blank lines and surrounding
        whitespace are ignored). Glyphs: ``#`` wall, ``.`` floor, ``E`` the exit,
        ``K`` a key, ``1`` ``2`` ``3`` the runner starts; all but ``#`` are floor.
        """
        if isinstance(rows, str):
            rows = [line.strip() for line in rows.strip().splitlines() if line.strip()]
        lines = list(rows)
        if not lines:
            raise BoardError("board: no rows")
        width = len(lines[0])
        terrain: list[str] = []
        exits: list[Pos] = []
        keys: list[Pos] = []
        starts: dict[str, list[Pos]] = {glyph: [] for glyph in START_GLYPHS}
        for y, line in enumerate(lines):
            if len(line) != width:
                raise BoardError(
                    f"board: row {y} has {len(line)} tiles, row 0 has {width}; rows must be equal"
                )
            for x, ch in enumerate(line):
                if ch == EXIT:
                    exits.append((x, y))
                elif ch == KEY:
                    keys.append((x, y))
                elif ch in starts:
                    starts[ch].append((x, y))
                elif ch not in (WALL, FLOOR):
                    raise BoardError(f"board: unknown glyph {ch!r} at x={x}, y={y}")
            terrain.append("".join(WALL if ch == WALL else FLOOR for ch in line))
        if len(exits) != 1:
            raise BoardError(f"board: needs exactly one exit 'E', found {len(exits)}")
        for glyph, found in starts.items():
            if len(found) != 1:
                raise BoardError(f"board: needs exactly one start {glyph!r}, found {len(found)}")
        if not keys:
            raise BoardError("board: needs at least one key 'K'")
        return cls(
            width=width,
            height=len(lines),
            terrain=tuple(terrain),
            exit=exits[0],
            starts=(starts["1"][0], starts["2"][0], starts["3"][0]),
            keys=tuple(sorted(keys, key=row_major)),
        )


def row_major(pos: Pos) -> tuple[int, int]:
    """Sort key for row-major order (top row first, then left to right)."""
    return (pos[1], pos[0])


def neighbours(pos: Pos) -> Iterator[Pos]:
    """The four orthogonal neighbours of ``pos`` in N, E, S, W order (may be off grid)."""
    x, y = pos
    for dx, dy in NEIGHBOUR_STEPS:
        yield (x + dx, y + dy)


def bfs_distances(passable: frozenset[Pos] | set[Pos], source: Pos) -> dict[Pos, int]:
    """Breadth-first distances from ``source`` over ``passable`` tiles (N, E, S, W order)."""
    if source not in passable:
        return {}
    dist = {source: 0}
    queue = deque([source])
    while queue:
        here = queue.popleft()
        step = dist[here] + 1
        x, y = here
        # neighbours(here) written out (N, E, S, W): this loop is LANTERN's hottest
        for nxt in ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)):
            if nxt in passable and nxt not in dist:
                dist[nxt] = step
                queue.append(nxt)
    return dist


def generate_board(config: LighthouseConfig, seed: int) -> Board:
    """Generate the board of ``seed`` under ``config`` (rules "The board"; B1-B5).

    The same ``(seed, config)`` gives the same board on every run and platform.
    Raises :class:`BoardError` if no maze out of :data:`MAX_MAZE_ATTEMPTS` admits
    ``config.key_count`` keys.
    """
    rng = random.Random(seed)
    for _ in range(MAX_MAZE_ATTEMPTS):
        board = _try_board(config, rng)
        if board is not None:
            return board
    raise BoardError(
        f"board: could not place {config.key_count} keys at least {MIN_KEY_SEPARATION} apart "
        f"on a {config.width} x {config.height} board after {MAX_MAZE_ATTEMPTS} mazes "
        f"(seed {seed})"
    )


def _try_board(config: LighthouseConfig, rng: random.Random) -> Board | None:
    width, height = config.width, config.height
    floor = _carve_maze(width, height, rng)
    exit_pos = (rng.choice(range(1, width - 1, 2)), 0)  # B3
    floor.add(exit_pos)
    starts = _draw_starts(width, height, rng)  # B4
    keys = place_keys(floor, exit_pos, starts, height, config.key_count, rng)  # B5
    if keys is None:
        return None
    terrain = tuple(
        "".join(FLOOR if (x, y) in floor else WALL for x in range(width)) for y in range(height)
    )
    return Board(width, height, terrain, exit_pos, starts, tuple(sorted(keys, key=row_major)))


def _carve_maze(width: int, height: int, rng: random.Random) -> set[Pos]:
    """Recursive backtracker over the rooms (odd x, odd y), iteratively (decision B2)."""
    rooms = [(x, y) for y in range(1, height - 1, 2) for x in range(1, width - 1, 2)]
    room_set = set(rooms)

    def shuffled_room_neighbours(room: Pos) -> Iterator[Pos]:
        x, y = room
        options = [(x + 2 * dx, y + 2 * dy) for dx, dy in NEIGHBOUR_STEPS]
        options = [r for r in options if r in room_set]
        rng.shuffle(options)
        return iter(options)

    start = rng.choice(rooms)
    floor = {start}
    stack = [(start, shuffled_room_neighbours(start))]
    while stack:
        room, pending = stack[-1]
        for nxt in pending:
            if nxt not in floor:
                floor.add(((room[0] + nxt[0]) // 2, (room[1] + nxt[1]) // 2))
                floor.add(nxt)
                stack.append((nxt, shuffled_room_neighbours(nxt)))
                break
        else:
            stack.pop()
    return floor


def _draw_starts(width: int, height: int, rng: random.Random) -> tuple[Pos, Pos, Pos]:
    """Uniformly one of the valid start triples on the bottom room row (decision B4)."""
    y = height - 2
    xs = range(1, width - 1, 2)
    triples = [
        t
        for t in combinations(xs, 3)
        if all(abs(a - b) >= MIN_START_SEPARATION for a, b in combinations(t, 2))
    ]
    a, b, c = rng.choice(triples)  # combinations are ascending: seats go left to right
    return ((a, y), (b, y), (c, y))


def place_keys(
    floor: set[Pos],
    exit_pos: Pos,
    starts: tuple[Pos, Pos, Pos],
    height: int,
    key_count: int,
    rng: random.Random,
) -> list[Pos] | None:
    """Choose ``key_count`` key tiles on a carved maze, or None when it admits too few.

    Dead-end rooms nearest the exit first; failing that, the fallback pool of all
    floor tiles farthest from it; each key at least 6 from the others (decision B5).
    """
    passable = frozenset(floor)
    exit_dist = bfs_distances(passable, exit_pos)
    excluded = {exit_pos, *starts, *neighbours(exit_pos)}

    def allowed(pos: Pos) -> bool:
        return pos not in excluded and pos[1] <= height - 4 and pos in exit_dist

    def is_room(pos: Pos) -> bool:
        return pos[0] % 2 == 1 and pos[1] % 2 == 1

    candidates = sorted((p for p in floor if allowed(p)), key=row_major)
    dead_ends = [p for p in candidates if is_room(p) and _open_neighbours(p, floor) == 1]

    rng.shuffle(dead_ends)
    dead_ends.sort(key=lambda p: exit_dist[p])
    keys = _greedy_spread(dead_ends, passable, key_count)
    if keys is not None:
        return keys
    pool = list(candidates)
    rng.shuffle(pool)
    pool.sort(key=lambda p: -exit_dist[p])
    return _greedy_spread(pool, passable, key_count)


def _open_neighbours(pos: Pos, floor: set[Pos]) -> int:
    return sum(1 for n in neighbours(pos) if n in floor)


def _greedy_spread(ordered: list[Pos], passable: frozenset[Pos], count: int) -> list[Pos] | None:
    """Take each candidate in order that is far enough from every key taken so far."""
    taken: list[Pos] = []
    taken_dists: list[dict[Pos, int]] = []
    for pos in ordered:
        if all(d.get(pos, MIN_KEY_SEPARATION) >= MIN_KEY_SEPARATION for d in taken_dists):
            taken.append(pos)
            if len(taken) == count:
                return taken
            taken_dists.append(bfs_distances(passable, pos))
    return None


__all__ = [
    "EXIT",
    "FLOOR",
    "KEY",
    "MAX_MAZE_ATTEMPTS",
    "MIN_KEY_SEPARATION",
    "MIN_START_SEPARATION",
    "NEIGHBOUR_STEPS",
    "START_GLYPHS",
    "WALL",
    "Board",
    "Pos",
    "bfs_distances",
    "generate_board",
    "neighbours",
    "place_keys",
    "row_major",
]
