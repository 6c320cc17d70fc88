"""The timing rule (decision H16): WAITs that let every gate open when a lap needs it.

A lap entering a gate at turn t needs each holder on its plate at turns t (you move
before echoes) and t + 1 (on later laps your echo moves after the holder's). Crossers
wait before the gate; holders wait on the plate. Plates come after the keystone and
in crosser order, so the constraints are acyclic and the fixpoint settles. This draws
nothing.
"""

from __future__ import annotations

from itertools import accumulate

from harness.games.hourloom.generator.layout import AttemptFailed, Layout
from harness.games.hourloom.generator.routes import Route
from harness.games.hourloom.grid import Input, direction_between

#: Passes of the fixpoint before the attempt is given up (it settles in a few).
MAX_PASSES = 64
#: (lap, move index) -> WAITs to add before that move.
Waits = dict[tuple[int, int], int]


def move_turns(waits: list[int]) -> list[int]:
    """The lap turn at which each move happens, given the WAITs before each move."""
    return [i + before for i, before in enumerate(accumulate(waits))]


def schedule(layout: Layout, routes: tuple[Route, ...], repairs: Waits) -> list[list[int]]:
    """The WAITs before each move of each lap: ``repairs`` plus what timing needs."""
    waits = [[repairs.get((r.lap, i), 0) for i in range(r.moves)] for r in routes]
    for _ in range(MAX_PASSES):
        if not _settle_pass(layout, routes, waits):
            return waits
    raise AttemptFailed("the timing rule did not settle")


def _settle_pass(layout: Layout, routes: tuple[Route, ...], waits: list[list[int]]) -> bool:
    changed = False
    for crosser in routes:
        for move, gate in crosser.gate_moves:
            for slot, holder in enumerate(layout.gate_holders[gate]):
                arrive = routes[holder - 1].plate_moves[(gate, slot)]
                crossing = move_turns(waits[crosser.lap - 1])[move]
                held = move_turns(waits[holder - 1])
                # On the plate from turn held[arrive] + 1 up to turn held[arrive + 1].
                late = held[arrive] + 1 - crossing
                if late > 0:
                    at = _wait_spot(routes, crosser, move)
                    waits[crosser.lap - 1][at] += late
                    crossing += late
                    changed = True
                short = crossing + 1 - held[arrive + 1]
                if short > 0:
                    waits[holder - 1][arrive + 1] += short
                    changed = True
    return changed


def _wait_spot(routes: tuple[Route, ...], crosser: Route, move: int) -> int:
    """Before which move the crosser waits for gate move ``move``: on the way in, on the
    last tile of its approach that no other route walks; else just before the gate."""
    if move != crosser.gate_moves[0][0]:
        return move
    busy = {t for r in routes if r.lap != crosser.lap for t in r.tiles}
    for i in range(move, -1, -1):
        if crosser.tiles[i] not in busy:
            return i
    return move


def inputs_of(route: Route, waits: list[int]) -> tuple[Input, ...]:
    """A lap's inputs: before each move its WAITs, then the move."""
    out: list[Input] = []
    for i in range(route.moves):
        out.extend(["WAIT"] * waits[i])
        out.append(direction_between(route.tiles[i], route.tiles[i + 1], route.width))
    return tuple(out)


__all__ = ["MAX_PASSES", "Waits", "inputs_of", "move_turns", "schedule"]
