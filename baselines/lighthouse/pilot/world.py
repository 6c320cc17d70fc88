"""PILOT's picture of the board, built from the keeper's observation alone.

The maze (every tile that is not wall), the exit, the keys still in play and the
tide; from it, the 3 x 3 window a runner will see at any clock, and the path between
two tiles (the one path of the tree-shaped maze; on a hand-drawn board with loops, a
shortest one, ties broken N, E, S, W). Everything derived is cached: a World serves
one decision.
"""

from __future__ import annotations

from harness.games.lighthouse.board import Pos, bfs_distances, neighbours
from harness.games.lighthouse.observe import KeeperObservation
from harness.games.lighthouse.state import Move
from harness.games.lighthouse.tide import Tide

#: N, E, S, W: the fixed order every tie breaks by.
STEPS: tuple[Move, Move, Move, Move] = (Move.N, Move.E, Move.S, Move.W)


class World:
    """The board as the keeper knows it, with the tide to say which tiles are dry when."""

    def __init__(self, obs: KeeperObservation) -> None:
        self.width = obs.width
        self.height = obs.height
        # Walls render '#' even under water, and nothing else does: every other
        # glyph (floor, water, key, exit, runner) stands on floor.
        self.floor = frozenset(
            (x, y) for y, row in enumerate(obs.grid) for x, glyph in enumerate(row) if glyph != "#"
        )
        self.exit = obs.exit
        self.keys = obs.uncollected_keys
        self.gate_open = obs.gate_open
        self.tide = Tide(obs.tide_delay, obs.tide_period, obs.height)
        self._fields: dict[Pos, dict[Pos, int]] = {}
        self._toward: dict[Pos, dict[Pos, Move]] = {}
        self._paths: dict[tuple[Pos, Pos], tuple[Pos, ...]] = {}
        self._windows: dict[tuple[Pos, int], tuple[str, str, str]] = {}

    def collect(self, picked: set[Pos], gate_open: bool) -> None:
        """Take ``picked`` off the board and set the gate: the board once this tick resolves."""
        self.keys = tuple(k for k in self.keys if k not in picked)
        self.gate_open = gate_open
        self._windows.clear()

    def dry(self, pos: Pos, clock: int) -> bool:
        """Whether ``pos`` is floor and above the water at ``clock``."""
        return pos in self.floor and pos[1] < self.tide.water_line(clock)

    def glyph(self, pos: Pos, clock: int) -> str:
        """The tile as a runner's window draws it at ``clock``: exit > wall > water > key."""
        if pos == self.exit:
            return "O" if self.gate_open else "E"
        if pos not in self.floor:
            return "#"
        if pos[1] >= self.tide.water_line(clock):
            return "~"
        return "K" if pos in self.keys else "."

    def window(self, pos: Pos, clock: int) -> tuple[str, str, str]:
        """The 3 x 3 window around ``pos`` at ``clock``, north row first, '@' in the centre."""
        key = (pos, self.tide.water_line(clock))
        found = self._windows.get(key)
        if found is None:
            x0, y0 = pos
            rows = [
                "".join(
                    "@" if dx == dy == 0 else self.glyph((x0 + dx, y0 + dy), clock)
                    for dx in (-1, 0, 1)
                )
                for dy in (-1, 0, 1)
            ]
            found = self._windows[key] = (rows[0], rows[1], rows[2])
        return found

    def field(self, target: Pos) -> dict[Pos, int]:
        """Maze distances to ``target`` over the whole floor, water ignored."""
        found = self._fields.get(target)
        if found is None:
            found = self._fields[target] = bfs_distances(self.floor, target)
        return found

    def distance(self, a: Pos, b: Pos) -> int | None:
        """The maze distance from ``a`` to ``b``, or None when no path joins them."""
        return self.field(b).get(a)

    def step(self, pos: Pos, target: Pos) -> Move:
        """The first move of the path from ``pos`` to ``target`` (WAIT when there or cut off)."""
        toward = self._toward.get(target)
        if toward is None:
            field = self.field(target)
            toward = self._toward[target] = {}
            for tile, here in field.items():
                for move, nxt in zip(STEPS, neighbours(tile), strict=True):
                    if here and field.get(nxt) == here - 1:
                        toward[tile] = move
                        break
        return toward.get(pos, Move.WAIT)

    def path(self, a: Pos, b: Pos) -> tuple[Pos, ...]:
        """The tiles of the path from ``a`` to ``b``, ``a`` excluded (empty when a == b)."""
        found = self._paths.get((a, b))
        if found is None:
            tiles: list[Pos] = []
            here = a
            move = self.step(here, b)
            while move is not Move.WAIT:
                dx, dy = move.delta
                here = (here[0] + dx, here[1] + dy)
                tiles.append(here)
                move = self.step(here, b)
            found = self._paths[(a, b)] = tuple(tiles)
        return found


__all__ = ["STEPS", "World"]
