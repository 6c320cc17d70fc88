"""Each lap's planned walk (decision H15), drawn in lap order.

A lap walks from its alcove to its keystone (through its pocket's gates and back out
when it has one), then onto the plates it holds in increasing order of the lap that
needs them, then to the exit. Every leg is a shortest path that treats walls, gates,
pocket keystones and the exit (except as its last tile) as blocked, and avoids other
plates, alcoves and entrances when it can.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.games.hourloom.generator.layout import AttemptFailed, Layout
from harness.games.hourloom.generator.paths import cheapest_path
from harness.games.hourloom.rng import Stream


@dataclass(frozen=True)
class Route:
    """Lap ``lap``'s tiles from its alcove to the exit; move i goes tiles[i] -> tiles[i+1].

    ``gate_moves`` pairs each move that enters a gate tile with that gate's index;
    ``plate_moves`` maps (gate, plate slot) of every plate this lap holds to the move
    that arrives on it.
    """

    lap: int
    width: int
    tiles: tuple[int, ...]
    gate_moves: tuple[tuple[int, int], ...]
    plate_moves: dict[tuple[int, int], int]

    @property
    def moves(self) -> int:
        """How many moves the route makes."""
        return len(self.tiles) - 1


def held_plates(layout: Layout, lap: int) -> list[tuple[int, int]]:
    """(gate, slot) of every plate ``lap`` holds, in increasing order of the lap needing it."""
    mine = [
        (g, s)
        for g, holders in enumerate(layout.gate_holders)
        for s, h in enumerate(holders)
        if h == lap
    ]
    return sorted(mine, key=lambda gs: layout.gate_laps[gs[0]])


def draw_routes(layout: Layout, stream: Stream) -> tuple[Route, ...]:
    """Every lap's route, in lap order (ties among shortest steps drawn from ``stream``)."""
    return tuple(_route(layout, lap, stream) for lap in range(1, layout.spec.laps + 1))


def _route(layout: Layout, lap: int, stream: Stream) -> Route:
    n = layout.n
    gates = set(layout.gate_tiles)
    pocket_keys = {p.keystone for p in layout.pockets}
    hard = layout.walls | gates | pocket_keys | {layout.exit}
    plates = {p for ps in layout.gate_plates for p in ps}
    soft = plates | set(layout.alcoves) | layout.entrances
    tiles = [layout.alcoves[lap - 1]]

    # Any number of extra steps is cheaper than one avoided tile, so a leg steps on as
    # few of them as it can, then is as short as it can be.
    penalty = n * n
    cost = [None if t in hard else 1 + (penalty if t in soft else 0) for t in range(n * n)]

    def leg(target: int) -> None:
        path = cheapest_path(n, cost, tiles[-1], target, stream)
        if path is None:
            raise AttemptFailed(f"lap {lap} cannot reach tile {target}")
        tiles.extend(path[1:])

    pocket = layout.pocket_of(lap)
    if pocket is None:
        leg(layout.keystones[lap - 1])
    else:
        leg(pocket.entrance)
        inward = (*reversed(pocket.gates), pocket.keystone)
        tiles.extend(inward)
        tiles.extend((*pocket.gates, pocket.entrance))
    plate_moves: dict[tuple[int, int], int] = {}
    for g, s in held_plates(layout, lap):
        leg(layout.gate_plates[g][s])
        plate_moves[(g, s)] = len(tiles) - 2
    leg(layout.exit)
    index = {tile: g for g, tile in enumerate(layout.gate_tiles)}
    gate_moves = tuple((i, index[t]) for i, t in enumerate(tiles[1:]) if t in index)
    return Route(lap, n, tuple(tiles), gate_moves, plate_moves)


__all__ = ["Route", "draw_routes", "held_plates"]
