"""Where SCOUT goes when no order names it: breadth-first search over its own chart.

SCOUT walks only over tiles its chart shows as floor or key and that are dry: above
the topmost row it has seen under water (the tide never falls, so every row from
there down stays flooded). Searching from its own tile, neighbours in N, E, S, W
order, it picks one target, first of:

1. the exit, if the gate is open and it can reach the exit;
2. the nearest key it can reach, if the gate is shut;
3. the nearest unseen tile: a tile its chart does not know, next to a tile it can
   reach (counted one step beyond it). Not the tile north of the exit, which the
   rules put off the board; not a tile under water. Once it has seen water, or once
   the gate is open, the highest unseen tile comes first (then the nearest): the
   water rises from below, and the exit is on the top row;
4. the exit, if it can reach it (there to wait for the gate);
5. none: it waits.

"Nearest" is fewest steps; ties go to the upper tile, then the left one. The move is
the step to the neighbour with the fewest steps left to the target (counted the same
way, from the target), ties N, E, S, W; on the target already (the exit, gate shut),
it waits.
"""

from __future__ import annotations

from baselines.lighthouse.scout.memory import FLOOR, KEY, UNSEEN, Memory
from harness.games.lighthouse.board import Pos, bfs_distances
from harness.games.lighthouse.state import Move

#: The order the search expands in and ties between steps break by.
STEPS: tuple[Move, Move, Move, Move] = (Move.N, Move.E, Move.S, Move.W)


def walkable(memory: Memory) -> frozenset[Pos]:
    """Every tile SCOUT may walk on: floor or key on its chart, and dry."""
    chart, water = memory.chart, memory.water
    bottom = chart.top + chart.height if water is None else min(water, chart.top + chart.height)
    return frozenset(
        (chart.left + c, y)
        for y in range(chart.top, bottom)
        for c, tile in enumerate(chart.rows[y - chart.top])
        if tile in (FLOOR, KEY)
    )


def _nearest(found: dict[Pos, int]) -> Pos | None:
    """The nearest of ``found`` (tile -> steps); ties: the upper, then the left."""
    if not found:
        return None
    return min(found, key=lambda p: (found[p], p[1], p[0]))


def target(memory: Memory, *, gate_open: bool, floor: frozenset[Pos] | None = None) -> Pos | None:
    """The tile SCOUT heads for (rules 1-5 above), or None; ``floor`` is
    :func:`walkable` of ``memory``, when worked out already."""
    floor = walkable(memory) if floor is None else floor
    reach = bfs_distances(floor, memory.pos)
    exit_ = memory.exit
    if gate_open and exit_ in reach:
        return exit_
    if not gate_open:
        key = _nearest({p: d for p, d in reach.items() if memory.chart.tile(p) == KEY})
        if key is not None:
            return key
    unseen: dict[Pos, int] = {}
    off_board = None if exit_ is None else (exit_[0], exit_[1] - 1)
    water = memory.water
    for (x, y), steps in reach.items():
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            p = (x + dx, y + dy)
            if p == off_board or (water is not None and p[1] >= water):
                continue
            if p not in unseen and memory.chart.tile(p) == UNSEEN:
                unseen[p] = steps + 1
            elif p in unseen and steps + 1 < unseen[p]:
                unseen[p] = steps + 1
    if unseen and (gate_open or water is not None):
        # Upward first: the exit is on the top row and the water rises from below.
        return min(unseen, key=lambda p: (p[1], unseen[p], p[0]))
    found = _nearest(unseen)
    if found is not None:
        return found
    if exit_ in reach:
        return exit_
    return None


def step_towards(memory: Memory, goal: Pos, floor: frozenset[Pos] | None = None) -> Move:
    """The step to the neighbour nearest ``goal`` (ties N, E, S, W); WAIT when on it."""
    here = memory.pos
    if goal == here:
        return Move.WAIT
    floor = walkable(memory) if floor is None else floor
    left = bfs_distances(floor | {goal}, goal)
    best, best_steps = Move.WAIT, None
    for move in STEPS:
        dx, dy = move.delta
        steps = left.get((here[0] + dx, here[1] + dy))
        if steps is not None and (best_steps is None or steps < best_steps):
            best, best_steps = move, steps
    return best


def explore(memory: Memory, *, gate_open: bool) -> Move:
    """SCOUT's move with no order: a step towards its target, or WAIT with none."""
    floor = walkable(memory)
    goal = target(memory, gate_open=gate_open, floor=floor)
    return Move.WAIT if goal is None else step_towards(memory, goal, floor)


__all__ = ["STEPS", "explore", "step_towards", "target", "walkable"]
