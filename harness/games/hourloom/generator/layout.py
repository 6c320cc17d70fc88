"""Where a chamber's special tiles go (decisions H9-H12, drawn in H14's order).

Gate assignment, holders, pockets, the exit, alcoves, open keystones and plates, each
drawn from the one stream. A draw with no valid tile fails the attempt (the caller
starts another on the same stream).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from harness.games.hourloom.difficulty import ChamberSpec
from harness.games.hourloom.generator.paths import UNREACHED, connected, distances
from harness.games.hourloom.grid import DIRECTIONS, Direction, manhattan, neighbour
from harness.games.hourloom.rng import Stream

#: A lap holds at most this many gates, all in its keystone's corridor (H10, H12).
MAX_GATES_PER_LAP = 2
#: A plate may add this many steps to its holder's keystone-to-exit walk and still be
#: preferred (H11).
PLATE_DETOUR = 4
_OPPOSITE: dict[Direction, Direction] = {"N": "S", "S": "N", "E": "W", "W": "E"}
T = TypeVar("T")
_SIDES: dict[Direction, tuple[Direction, Direction]] = {
    "N": ("E", "W"),
    "S": ("E", "W"),
    "E": ("N", "S"),
    "W": ("N", "S"),
}


class AttemptFailed(Exception):
    """One generation attempt cannot go on; the next attempt draws afresh."""


@dataclass(frozen=True)
class Pocket:
    """A gated lap's keystone on the rim at the dead end of its gates' straight corridor.

    ``gates`` run inward from the keystone (inner first); ``walls`` flank the keystone
    and any inner gate; ``open_sides`` flank the outer gate and stay open; the tile
    beyond the outer gate is the ``entrance``.
    """

    lap: int
    keystone: int
    gates: tuple[int, ...]
    entrance: int
    walls: tuple[int, ...]
    open_sides: tuple[int, ...]

    @property
    def footprint(self) -> frozenset[int]:
        """Every tile the pocket claims."""
        return frozenset((self.keystone, *self.gates, self.entrance, *self.walls, *self.open_sides))


@dataclass(frozen=True)
class Layout:
    """A drawn chamber before its routes: gates in gate order (two-plate gates first)."""

    spec: ChamberSpec
    gate_laps: tuple[int, ...]
    gate_holders: tuple[tuple[int, ...], ...]
    gate_tiles: tuple[int, ...]
    gate_plates: tuple[tuple[int, ...], ...]
    pockets: tuple[Pocket, ...]
    exit: int
    alcoves: tuple[int, ...]
    keystones: tuple[int, ...]
    walls: frozenset[int]

    @property
    def n(self) -> int:
        """The grid's side."""
        return self.spec.size

    def pocket_of(self, lap: int) -> Pocket | None:
        """Lap ``lap``'s pocket, or None when its keystone is open."""
        return next((p for p in self.pockets if p.lap == lap), None)

    @property
    def entrances(self) -> frozenset[int]:
        """Every pocket's entrance."""
        return frozenset(p.entrance for p in self.pockets)


def draw_layout(spec: ChamberSpec, stream: Stream) -> Layout:
    """Draw every special tile of a chamber of ``spec`` in H14's order."""
    gate_laps, plate_counts = assign_gates(spec, stream)
    holders = draw_holders(spec, gate_laps, plate_counts, stream)
    pockets = place_pockets(spec, gate_laps, stream)
    n = spec.size
    walls = frozenset(w for p in pockets for w in p.walls)
    claimed = set().union(*(p.footprint for p in pockets))
    entrances = [p.entrance for p in pockets]

    def free(tile: int) -> bool:
        return tile not in claimed and all(manhattan(tile, e, n) >= 2 for e in entrances)

    exit_ = _draw(stream, [t for t in range(n * n) if free(t)], "exit")
    claimed.add(exit_)
    alcoves: list[int] = []
    for _ in range(spec.laps):
        options = [
            t
            for t in range(n * n)
            if free(t)
            and manhattan(t, exit_, n) >= 3
            and all(manhattan(t, a, n) >= 2 for a in alcoves)
        ]
        alcoves.append(_draw(stream, options, "alcove"))
        claimed.add(alcoves[-1])
    by_lap = {p.lap: p for p in pockets}
    keystones: list[int] = []
    for lap in range(1, spec.laps + 1):
        if lap in by_lap:
            keystones.append(by_lap[lap].keystone)
            continue
        alcove = alcoves[lap - 1]
        options = [
            t
            for t in range(n * n)
            if free(t) and manhattan(t, alcove, n) >= 3 and manhattan(t, exit_, n) >= 2
        ]
        keystones.append(_draw(stream, options, "keystone"))
        claimed.add(keystones[-1])
    gate_tiles, plates = _place_plates(
        spec, gate_laps, holders, by_lap, walls, exit_, keystones, free, claimed, stream
    )
    return Layout(
        spec=spec,
        gate_laps=gate_laps,
        gate_holders=holders,
        gate_tiles=gate_tiles,
        gate_plates=plates,
        pockets=pockets,
        exit=exit_,
        alcoves=tuple(alcoves),
        keystones=tuple(keystones),
        walls=walls,
    )


def assign_gates(spec: ChamberSpec, stream: Stream) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """H12: each gate (two-plate ones first) goes to a drawn lap among the eligible with
    the fewest gates so far. Returns each gate's lap and plate count, in gate order."""
    gates_of = [0] * (spec.laps + 1)
    plates_of = [0] * (spec.laps + 1)
    laps: list[int] = []
    counts: list[int] = []
    for g in range(spec.gates):
        plates = 2 if g < spec.two_plate_gates else 1
        eligible = [
            j
            for j in range(2 if plates == 1 else 3, spec.laps + 1)
            if gates_of[j] < MAX_GATES_PER_LAP and plates_of[j] + plates <= j - 1
        ]
        if not eligible:
            raise AttemptFailed(f"no lap can take gate {g + 1}")
        fewest = min(gates_of[j] for j in eligible)
        lap = stream.pick([j for j in eligible if gates_of[j] == fewest])
        gates_of[lap] += 1
        plates_of[lap] += plates
        laps.append(lap)
        counts.append(plates)
    return tuple(laps), tuple(counts)


def draw_holders(
    spec: ChamberSpec, gate_laps: tuple[int, ...], plate_counts: tuple[int, ...], stream: Stream
) -> tuple[tuple[int, ...], ...]:
    """H12: the holders of lap j are a shuffle of 1..j-1, taken in order by its plates
    (its gates in gate order, each gate's plates in order)."""
    holders: list[list[int]] = [[] for _ in gate_laps]
    for lap in range(1, spec.laps + 1):
        mine = [g for g, gl in enumerate(gate_laps) if gl == lap]
        if not mine:
            continue
        order = iter(stream.shuffle(range(1, lap)))
        for g in mine:
            holders[g] = [next(order) for _ in range(plate_counts[g])]
    return tuple(tuple(h) for h in holders)


def pocket_at(n: int, keystone: int, inward: Direction, gates: int, lap: int) -> Pocket | None:
    """The pocket of ``gates`` gates whose keystone is ``keystone`` and whose corridor runs
    ``inward``, or None if it does not fit (the keystone must be on the rim, not a corner)."""
    if neighbour(keystone, _OPPOSITE[inward], n, n) is not None:
        return None
    corridor = [keystone]
    for _ in range(gates + 1):
        nxt = neighbour(corridor[-1], inward, n, n)
        if nxt is None:
            return None
        corridor.append(nxt)
    sides = {tile: [neighbour(tile, d, n, n) for d in _SIDES[inward]] for tile in corridor}
    if any(s is None for s in sides[keystone]):
        return None  # a corner: nothing would flank it on one side
    flanked = corridor[:gates]  # the keystone and, with two gates, the inner one
    walls = tuple(s for tile in flanked for s in sides[tile] if s is not None)
    outer = corridor[gates]
    return Pocket(
        lap=lap,
        keystone=keystone,
        gates=tuple(corridor[1 : gates + 1]),
        entrance=corridor[gates + 1],
        walls=walls,
        open_sides=tuple(s for s in sides[outer] if s is not None),
    )


def place_pockets(
    spec: ChamberSpec, gate_laps: tuple[int, ...], stream: Stream
) -> tuple[Pocket, ...]:
    """Each gated lap's pocket (lap order), uniform among valid placements in tile then
    N/E/S/W order: inside the grid, clear of earlier pockets, and the open floor one
    region even without the entrances."""
    n = spec.size
    pockets: list[Pocket] = []
    for lap in sorted(set(gate_laps)):
        k = gate_laps.count(lap)
        taken = set().union(*(p.footprint for p in pockets))
        options: list[Pocket] = []
        for tile in range(n * n):
            for inward in DIRECTIONS:
                pocket = pocket_at(n, tile, inward, k, lap)
                if pocket is None or pocket.footprint & taken:
                    continue
                if _floor_connected(n, [*pockets, pocket]):
                    options.append(pocket)
        pockets.append(_draw(stream, options, f"pocket of lap {lap}"))
    return tuple(pockets)


def _floor_connected(n: int, pockets: list[Pocket]) -> bool:
    """Whether the open floor is one region even without the entrances, so that every
    route can keep off other laps' entrances (where crossers wait for their gates)."""
    blocked = {t for p in pockets for t in (*p.walls, *p.gates, p.keystone, p.entrance)}
    return connected(n, [t not in blocked for t in range(n * n)])


def _place_plates(
    spec: ChamberSpec,
    gate_laps: tuple[int, ...],
    holders: tuple[tuple[int, ...], ...],
    by_lap: dict[int, Pocket],
    walls: frozenset[int],
    exit_: int,
    keystones: list[int],
    free: Callable[[int], bool],
    claimed: set[int],
    stream: Stream,
) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Plates in gate order, holder order (H11): free tiles >= 2 from the exit, preferring
    ones that add at most PLATE_DETOUR steps to the holder's keystone-to-exit walk."""
    n = spec.size
    # The walk a route would take (H15): walls, gates and pocket keystones block it.
    blocked = set(walls) | {t for p in by_lap.values() for t in (*p.gates, p.keystone)}
    passable = [t not in blocked for t in range(n * n)]
    from_exit = distances(n, passable, exit_)
    gate_tiles: list[int] = []
    plates: list[tuple[int, ...]] = []
    for g, lap in enumerate(gate_laps):
        pocket = by_lap[lap]
        gate_tiles.append(pocket.gates[[x for x, gl in enumerate(gate_laps) if gl == lap].index(g)])
        mine: list[int] = []
        for holder in holders[g]:
            hp = by_lap.get(holder)
            start = hp.entrance if hp is not None else keystones[holder - 1]
            from_start = distances(n, passable, start)
            base = from_start[exit_]
            options = [
                t
                for t in range(n * n)
                if free(t) and manhattan(t, exit_, n) >= 2 and from_exit[t] != UNREACHED
            ]
            near = [t for t in options if from_start[t] + from_exit[t] - base <= PLATE_DETOUR]
            mine.append(_draw(stream, near or options, f"plate of gate {g + 1}"))
            claimed.add(mine[-1])
        plates.append(tuple(mine))
    return tuple(gate_tiles), tuple(plates)


def _draw(stream: Stream, options: Sequence[T], what: str) -> T:
    if not options:
        raise AttemptFailed(f"no valid tile for the {what}")
    return stream.pick(options)
