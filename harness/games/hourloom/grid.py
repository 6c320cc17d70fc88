"""Tiles and directions (decision H8).

A tile is one integer, ``row * width + column``, numbered row by row from the top
left; N is toward row 0, E is column plus one. The grid has no border of walls, so
stepping off it is a real refusal (``edge_of_chamber``).
"""

from __future__ import annotations

from typing import Literal, get_args

Direction = Literal["N", "E", "S", "W"]
#: What a log records for one resolved turn: a move's direction, or WAIT (H7).
Input = Literal["N", "E", "S", "W", "WAIT"]

#: The rules' fixed direction order (legal actions list moves in it, H28).
DIRECTIONS: tuple[Direction, ...] = get_args(Direction)
INPUTS: tuple[Input, ...] = get_args(Input)
#: (row, column) change of each direction.
DELTAS: dict[Direction, tuple[int, int]] = {"N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}


def neighbour(tile: int, direction: Direction, width: int, height: int) -> int | None:
    """The tile one step ``direction`` from ``tile``, or None off the grid."""
    row, col = divmod(tile, width)
    dr, dc = DELTAS[direction]
    row, col = row + dr, col + dc
    if 0 <= row < height and 0 <= col < width:
        return row * width + col
    return None


def neighbours(tile: int, width: int, height: int) -> list[tuple[Direction, int]]:
    """Each in-grid neighbour of ``tile`` with its direction, in N, E, S, W order."""
    out: list[tuple[Direction, int]] = []
    for d in DIRECTIONS:
        there = neighbour(tile, d, width, height)
        if there is not None:
            out.append((d, there))
    return out


def manhattan(a: int, b: int, width: int) -> int:
    """Manhattan distance between two tiles of a grid ``width`` wide."""
    ar, ac = divmod(a, width)
    br, bc = divmod(b, width)
    return abs(ar - br) + abs(ac - bc)


def direction_between(a: int, b: int, width: int) -> Direction:
    """The direction of the step from ``a`` to its neighbour ``b``."""
    ar, ac = divmod(a, width)
    br, bc = divmod(b, width)
    for d, (dr, dc) in DELTAS.items():
        if (ar + dr, ac + dc) == (br, bc):
            return d
    raise ValueError(f"tiles {a} and {b} are not neighbours on a grid {width} wide")


def describe(tile: int, width: int) -> str:
    """A tile as a player reads it: ``17 (r2 c3)``."""
    row, col = divmod(tile, width)
    return f"{tile} (r{row} c{col})"


__all__ = [
    "DELTAS",
    "DIRECTIONS",
    "INPUTS",
    "Direction",
    "Input",
    "describe",
    "direction_between",
    "manhattan",
    "neighbour",
    "neighbours",
]
