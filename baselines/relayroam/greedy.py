"""GREEDY and vent-aware GREEDY, Relayroam's scripted baselines (decision RR21).

Both are pure functions of the player's :class:`Observation`. GREEDY heads for the
nearest unused relay or helper by breadth-first distance over floor (ties: relays
before helpers, each in ID order), and once none is left, for the exit. It takes
the first shortest step in the rules' order up, right, down, left. In chamber-clear
it plays ``next``. Vent-aware GREEDY is the same, except that it waits rather than
step onto a vent that sparks on that very action.
"""

from __future__ import annotations

from collections import deque

from harness.errors import RulesError
from harness.games.relayroam.layouts import WALL, Pos
from harness.games.relayroam.observe import Observation
from harness.games.relayroam.rules import DELTAS, DIRECTIONS, Action

WAIT: Action = {"type": "wait"}
NEXT: Action = {"type": "next"}


def floor_cells(obs: Observation) -> frozenset[Pos]:
    """Every enterable cell of the grid (all but walls; the player stands on floor)."""
    return frozenset(
        (x, y) for y, row in enumerate(obs.grid) for x, glyph in enumerate(row) if glyph != WALL
    )


def distances(floor: frozenset[Pos], source: Pos) -> dict[Pos, int]:
    """Breadth-first distances from ``source`` over ``floor``."""
    dist = {source: 0}
    queue = deque([source])
    while queue:
        here = queue.popleft()
        for dx, dy in DELTAS.values():
            there = (here[0] + dx, here[1] + dy)
            if there in floor and there not in dist:
                dist[there] = dist[here] + 1
                queue.append(there)
    return dist


def target(obs: Observation, floor: frozenset[Pos]) -> Pos:
    """GREEDY's goal: the nearest unused relay or helper (relays first, ID order), else
    the exit."""
    dist = distances(floor, obs.player)
    # Relays come before helpers and each list is in ID order, so a stable min on
    # distance alone breaks ties exactly as RR21 asks.
    candidates = [(v.x, v.y) for v in (*obs.relays, *obs.helpers) if not v.used]
    reachable = [p for p in candidates if p in dist]
    if reachable:
        return min(reachable, key=lambda p: dist[p])
    return (obs.exit.x, obs.exit.y)


def first_step(obs: Observation, floor: frozenset[Pos], goal: Pos) -> Action:
    """The first move in the order up, right, down, left that shortens the way to ``goal``."""
    to_goal = distances(floor, goal)
    here = to_goal.get(obs.player)
    if here is None or here == 0:
        return WAIT
    px, py = obs.player
    for direction in DIRECTIONS:
        dx, dy = DELTAS[direction]
        if to_goal.get((px + dx, py + dy)) == here - 1:
            return {"type": "move", "direction": direction}
    return WAIT  # unreachable on a checked layout: some neighbour is one step closer


def greedy(obs: Observation) -> Action:
    """GREEDY's action for ``obs``."""
    if obs.phase == "ended":
        raise RulesError("greedy: the run has ended, so there is no action to choose")
    if obs.phase == "chamber-clear":
        return dict(NEXT)
    floor = floor_cells(obs)
    return dict(first_step(obs, floor, target(obs, floor)))


def vent_aware_greedy(obs: Observation) -> Action:
    """Vent-aware GREEDY: GREEDY, but wait instead of stepping onto a vent as it sparks."""
    action = greedy(obs)
    if action.get("type") != "move":
        return action
    dx, dy = DELTAS[action["direction"]]  # type: ignore[index]
    dest = (obs.player[0] + dx, obs.player[1] + dy)
    if any((v.x, v.y) == dest and v.actions_until_spark == 1 for v in obs.vents):
        return dict(WAIT)
    return action


__all__ = [
    "NEXT",
    "WAIT",
    "distances",
    "first_step",
    "floor_cells",
    "greedy",
    "target",
    "vent_aware_greedy",
]
