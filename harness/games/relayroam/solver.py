"""The exact single-chamber solver (decisions RR20-RR22).

It searches every play of one chamber over (position, charge, turn mod 3, used
objects, whether a shock has happened) and returns the most points the chamber can
yield, with an action sequence that earns them. The last component is needed on top
of RR21's list because the clear bonus depends on ``chamberShockCount == 0``.

The search is finite and acyclic: each action either spends charge or uses an
object for good, so plain memoised recursion terminates. Chambers are independent
and every chamber starts the same way whatever came before (RR11, RR20), so an
episode's optimum is the sum of its chambers' optima.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache

from harness.games.relayroam.layouts import Layout, Pos, layout_for
from harness.games.relayroam.rules import (
    DELTAS,
    DIRECTIONS,
    Action,
    clear_points,
    entry_effect,
    sparks_on,
)
from harness.games.relayroam.state import (
    CHARGE_START,
    SHOCK_COST,
    STEP_COST,
    VENT_PERIOD,
    chamber_setup,
)

# (position, charge, turn mod 3, used-object bit mask, shocked yet)
_Node = tuple[Pos, int, int, int, bool]
# One transition: the action, the points it earns, the next node (None once the
# chamber is over) and whether it clears.
_Edge = tuple[Action, int, _Node | None, bool]


@dataclass(frozen=True)
class ChamberOptimum:
    """The best score one chamber can yield and an action sequence that earns it.

    ``actions`` ends with the clearing move when the best play clears (it always
    does on the three layouts), else with ``bank`` or the depleting action.
    """

    chamber: int
    reflected: bool
    vent_offsets: tuple[int, ...]
    score: int
    actions: tuple[Action, ...]
    clears: bool


class _Chamber:
    """The chamber's rules reduced to a fast transition function over :data:`_Node`."""

    def __init__(self, layout: Layout, offsets: tuple[int, ...]) -> None:
        if len(offsets) != len(layout.vents):
            raise ValueError(
                f"layout {layout.letter} has {len(layout.vents)} vents, got {len(offsets)} offsets"
            )
        if any(not 0 <= o < VENT_PERIOD for o in offsets):
            raise ValueError(f"vent offsets must be 0, 1 or 2, got {list(offsets)}")
        self.layout = layout
        objects = layout.objects
        self.bits = {f.pos: (f.kind, 1 << i) for i, f in enumerate(objects)}
        self.relay_mask = sum(1 << i for i, f in enumerate(objects) if f.kind == "relay")
        self.vent_offset = {v.pos: offsets[v.index] for v in layout.vents}
        self.memo: dict[_Node, tuple[int, int]] = {}

    def edges(self, node: _Node) -> list[_Edge]:
        """Every legal move and the wait from ``node``, in the rules' order (RR13)."""
        pos, _, _, _, _ = node
        out: list[_Edge] = []
        for direction in DIRECTIONS:
            dx, dy = DELTAS[direction]
            dest = (pos[0] + dx, pos[1] + dy)
            if self.layout.is_floor(dest):
                out.append(self._apply(node, {"type": "move", "direction": direction}, dest))
        out.append(self._apply(node, {"type": "wait"}, None))
        return out

    def _apply(self, node: _Node, action: Action, dest: Pos | None) -> _Edge:
        # The atomic order of RR8, on the reduced node.
        pos, charge, t3, used, shocked = node
        moving = dest is not None
        where = dest if dest is not None else pos
        charge -= STEP_COST
        points = 0
        entry = self.bits.get(where) if moving else None
        if entry is not None and not used & entry[1]:
            kind, bit = entry
            used |= bit
            charge, points = entry_effect(kind, charge)
        offset = self.vent_offset.get(where)
        if offset is not None and sparks_on(t3, offset):
            charge -= SHOCK_COST
            shocked = True
        t3 = (t3 + 1) % VENT_PERIOD
        charge = max(0, charge)
        if moving and where == self.layout.exit and used & self.relay_mask == self.relay_mask:
            points += clear_points(charge, not shocked)
            return (action, points, None, True)
        if charge == 0:
            return (action, points, None, False)
        return (action, points, (where, charge, t3, used, shocked), False)

    def value(self, node: _Node) -> int:
        """The most points still to earn from ``node`` (banking at once earns 0)."""
        known = self.memo.get(node)
        if known is not None:
            return known[0]
        best, best_index = 0, -1  # -1: bank
        for i, (_, points, after, _) in enumerate(self.edges(node)):
            total = points + (self.value(after) if after is not None else 0)
            if total > best:  # strict: the first best action in RR13 order wins
                best, best_index = total, i
        self.memo[node] = (best, best_index)
        return best

    def best_index(self, node: _Node) -> int:
        """The index into :meth:`edges` of the first optimal action, -1 for bank."""
        self.value(node)
        return self.memo[node][1]


def solve_chamber(chamber: int, reflected: bool, vent_offsets: tuple[int, ...]) -> ChamberOptimum:
    """The optimum of ``chamber`` in this orientation with these offsets (RR21).

    Only the layout depends on ``chamber`` (``"ABC"[(chamber - 1) % 3]``); charge and
    hazards never escalate, so e.g. chambers 1, 4, 7 differ only by orientation and
    offsets. Ties go to the first optimal action in the rules' order (RR13).
    """
    layout = layout_for(chamber, reflected)
    model = _Chamber(layout, tuple(vent_offsets))
    start: _Node = (layout.start, CHARGE_START, 0, 0, False)
    # Depth is bounded by the charge a chamber can ever spend; leave generous room.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        score = model.value(start)
    finally:
        sys.setrecursionlimit(limit)
    actions: list[Action] = []
    node: _Node | None = start
    clears = False
    while node is not None:
        index = model.best_index(node)
        if index < 0:
            actions.append({"type": "bank"})
            break
        action, _, after, clears = model.edges(node)[index]
        actions.append(action)
        node = after
    return ChamberOptimum(chamber, reflected, tuple(vent_offsets), score, tuple(actions), clears)


def solve_seeded_chamber(seed: int, chamber: int) -> ChamberOptimum:
    """The optimum of ``chamber`` as the game of ``seed`` sets it up (RR9, RR10)."""
    setup = chamber_setup(seed, chamber)
    return solve_chamber(chamber, setup.reflected, setup.vent_offsets)


def episode_optimum(seed: int, chambers: int, *, first: int = 1) -> int:
    """The optimum of an episode of ``chambers`` chambers of the game of ``seed``,
    starting in chamber ``first`` (RR20).

    Chambers are independent, so it is the sum of the chambers' optima.
    """
    total = 0
    for chamber in range(first, first + chambers):
        setup = chamber_setup(seed, chamber)
        total += _chamber_score(_layout_chamber(chamber), setup.reflected, setup.vent_offsets)
    return total


def _layout_chamber(chamber: int) -> int:
    """The first chamber (1, 2 or 3) with ``chamber``'s layout."""
    return (chamber - 1) % 3 + 1


@lru_cache(maxsize=256)
def _chamber_score(chamber: int, reflected: bool, vent_offsets: tuple[int, ...]) -> int:
    # Three layouts, two orientations and three offsets per vent make 78 set-ups in
    # all, so every set-up is solved once per process, whatever the seeds.
    return solve_chamber(chamber, reflected, vent_offsets).score


__all__ = [
    "ChamberOptimum",
    "episode_optimum",
    "solve_chamber",
    "solve_seeded_chamber",
]
