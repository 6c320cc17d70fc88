"""Breadth-first distances, connectivity and seeded cheapest paths on a square grid.

A grid here is its side ``n`` and a list with one entry per tile (walkable or not,
or what entering it costs). Paths draw from the stream only to break a tie among
equally good steps (H15), so a path without choices draws nothing.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Sequence
from functools import lru_cache

from harness.games.hourloom.grid import DIRECTIONS, neighbour
from harness.games.hourloom.rng import Stream

UNREACHED = -1


@lru_cache(maxsize=32)
def adjacency(n: int) -> tuple[tuple[int, ...], ...]:
    """Each tile's in-grid neighbours in N, E, S, W order, for a side-``n`` grid."""
    out = []
    for tile in range(n * n):
        nbrs = (neighbour(tile, d, n, n) for d in DIRECTIONS)
        out.append(tuple(t for t in nbrs if t is not None))
    return tuple(out)


def distances(n: int, passable: Sequence[bool], source: int) -> list[int]:
    """Steps from ``source`` to every tile over ``passable`` ones (-1 if unreachable).

    ``source`` itself counts as walkable even when it is not passable.
    """
    adj = adjacency(n)
    dist = [UNREACHED] * (n * n)
    dist[source] = 0
    queue = deque([source])
    while queue:
        here = queue.popleft()
        step = dist[here] + 1
        for there in adj[here]:
            if dist[there] == UNREACHED and passable[there]:
                dist[there] = step
                queue.append(there)
    return dist


def connected(n: int, passable: Sequence[bool]) -> bool:
    """Whether the passable tiles form one 4-connected region (true when there are none)."""
    tiles = [t for t in range(n * n) if passable[t]]
    if not tiles:
        return True
    dist = distances(n, passable, tiles[0])
    return all(dist[t] != UNREACHED for t in tiles)


def cheapest_path(
    n: int, cost: Sequence[int | None], start: int, goal: int, stream: Stream
) -> list[int] | None:
    """A cheapest walk from ``start`` to ``goal`` (both ends included), or None.

    Entering tile t costs ``cost[t]`` (None: blocked); ``goal`` costs 1 whatever its
    entry says. Among equally cheap next steps (in N, E, S, W order) the stream picks
    one; a single candidate draws nothing.
    """
    enter = list(cost)
    enter[goal] = 1
    adj = adjacency(n)
    unknown = sum(c for c in enter if c is not None) + 1  # more than any walk costs
    # Cost from each tile to the goal, by Dijkstra outward from the goal.
    to_goal = [unknown] * (n * n)
    to_goal[goal] = 0
    heap = [(0, goal)]
    while heap:
        here_cost, here = heapq.heappop(heap)
        step = enter[here]
        if here_cost != to_goal[here] or step is None:
            continue  # stale, or a blocked tile: it can be left (the start), never entered
        for there in adj[here]:
            if here_cost + step < to_goal[there]:
                to_goal[there] = here_cost + step
                heapq.heappush(heap, (here_cost + step, there))
    if to_goal[start] == unknown:
        return None
    path = [start]
    here = start
    while here != goal:
        options = []
        for t in adj[here]:
            step = enter[t]
            if step is not None and step + to_goal[t] == to_goal[here]:
                options.append(t)
        here = options[0] if len(options) == 1 else stream.pick(options)
        path.append(here)
    return path


__all__ = [
    "UNREACHED",
    "adjacency",
    "cheapest_path",
    "connected",
    "distances",
]
