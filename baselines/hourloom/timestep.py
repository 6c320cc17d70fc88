"""TIMESTEP: a search over (tile, lap turn) from the state alone (decision H35).

Each turn it forecasts the echoes by their logs as if you were absent, treats a gate
as open at turn t when echoes stand on all its plates at t, and finds the cheapest
walk in grains (a turn, a grain per jostle, 3 on lit flux) that takes the keystone
and then enters the exit before the sand runs out. It plays that walk's first
action; it WAITs when no walk exists and sends END_RUN once even the shortest walk
on the bare map needs more sand than is left. It never plans plates for later laps.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from harness.errors import RulesError
from harness.games.hourloom.grid import DIRECTIONS, Direction, Input, neighbour
from harness.games.hourloom.rules import DESCEND, END_RUN, WAIT, Action, move
from harness.games.hourloom.state import FLUX_GRAINS, JOSTLE_GRAINS, TURN_GRAINS, Chamber, State
from harness.games.hourloom.turn import bodies_of, move_block

#: The search looks at most this many turns ahead (real budgets are far shorter).
MAX_SEARCH_TURNS = 512
#: Where an action of the search leads: None is a WAIT.
Step = Direction | None
_STEPS: tuple[Step, ...] = (*DIRECTIONS, None)


@dataclass(frozen=True)
class Forecast:
    """Echo positions at the start of each turn from ``start`` on, as if you were absent,
    and how many echoes' recorded moves target each tile on each turn."""

    start: int
    occupied: tuple[frozenset[int], ...]
    targets: tuple[dict[int, int], ...]

    def at(self, turn: int) -> frozenset[int]:
        """Tiles echoes stand on at the start of ``turn`` (none once all are gone)."""
        i = turn - self.start
        return self.occupied[i] if i < len(self.occupied) else frozenset()

    def aimed(self, turn: int, tile: int) -> int:
        """How many echoes' moves on ``turn`` target ``tile``."""
        i = turn - self.start
        return self.targets[i].get(tile, 0) if i < len(self.targets) else 0


def forecast(state: State, turns: int) -> Forecast:
    """The echoes over the next ``turns`` turns, replayed by the real move rules without you."""
    chamber = state.chamber
    echoes = list(state.echoes)
    occupied: list[frozenset[int]] = []
    targets: list[dict[int, int]] = []
    for turn in range(state.turn, state.turn + turns):
        if all(e is None for e in echoes):
            break
        bodies = bodies_of(None, tuple(echoes))
        occupied.append(frozenset(bodies))
        aimed: dict[int, int] = {}
        for k, tile in enumerate(echoes, 1):
            if tile is None:
                continue
            entry = state.logs[k - 1][turn]
            if entry == "WAIT":
                continue
            block, target = move_block(chamber, tile, entry, k, bodies)
            if target is not None and block in (None, "echo_in_the_way"):
                aimed[target] = aimed.get(target, 0) + 1
            if block is None and target is not None:
                del bodies[tile]
                bodies[target] = k
                echoes[k - 1] = target
        targets.append(aimed)
        for k in range(len(echoes)):
            if echoes[k] is not None and turn == len(state.logs[k]) - 1:
                echoes[k] = None
    return Forecast(state.turn, tuple(occupied), tuple(targets))


def timestep(state: State) -> Action:
    """TIMESTEP's action in ``state``."""
    if state.phase == "over":
        raise RulesError("timestep: the run is over, so there is no action to choose")
    if state.phase == "sealed":
        return dict(DESCEND)
    first = search(state)
    if first is not None:
        return dict(WAIT) if first == "WAIT" else move(first)
    if bare_grains(state) > state.sand:
        return dict(END_RUN)
    return dict(WAIT)


def bare_grains(state: State) -> int:
    """Turns the shortest walk on the bare map takes (no echoes, every gate open):
    through the keystone unless held, then onto the exit. Large when there is none."""
    c = state.chamber
    to_exit = _distances(c, c.exit)
    if state.has_keystone:
        return to_exit[state.player]
    to_key = _distances(c, state.keystone)
    return to_key[state.player] + to_exit[state.keystone]


def search(state: State) -> Input | None:
    """The first input of the cheapest completing walk within the sand, or None.

    Layer by layer over lap turns, keeping the cheapest way to reach each (tile,
    keystone held) pair; a pair whose bare-map walk to completion needs more sand than
    is left, or more than the best completion found, is dropped. Ties keep the walk
    found first, in N, E, S, W, WAIT order.
    """
    c = state.chamber
    sand = state.sand
    echoes = forecast(state, min(sand, MAX_SEARCH_TURNS))
    to_exit = _distances(c, c.exit)
    key = state.keystone
    to_key = _distances(c, key)

    def bound(tile: int, held: bool) -> int:
        return to_exit[tile] if held else to_key[tile] + to_exit[key]

    best: tuple[int, Input] | None = None
    turn = state.turn
    frontier: dict[tuple[int, bool], tuple[int, Input | None]] = {
        (state.player, state.has_keystone): (0, None)
    }
    while frontier and turn - state.turn < MAX_SEARCH_TURNS:
        bodies = echoes.at(turn)
        layer: dict[tuple[int, bool], tuple[int, Input | None]] = {}
        for (tile, held), (spent, first) in frontier.items():
            for step in _STEPS:
                there = tile if step is None else _enter(c, tile, step, bodies)
                if there is None:
                    continue
                total = spent + TURN_GRAINS + JOSTLE_GRAINS * echoes.aimed(turn, there)
                if c.lit(there, turn):
                    total += FLUX_GRAINS
                now_held = held or (step is not None and there == key)
                lead: Input = first if first is not None else (step or "WAIT")
                if step is not None and there == c.exit and now_held:
                    if total <= sand and (best is None or total < best[0]):
                        best = (total, lead)
                    continue
                need = total + bound(there, now_held)
                if need > sand or (best is not None and need >= best[0]):
                    continue
                known = layer.get((there, now_held))
                if known is None or total < known[0]:
                    layer[(there, now_held)] = (total, lead)
        frontier = layer
        turn += 1
    return None if best is None else best[1]


def _enter(c: Chamber, tile: int, step: Direction, bodies: frozenset[int]) -> int | None:
    """Where a move ``step`` from ``tile`` leads on a turn when echoes stand on ``bodies``
    (None when a wall, the edge, an echo or a gate whose plates are not all held blocks it)."""
    there = neighbour(tile, step, c.width, c.height)
    if there is None or there in c.wall_set or there in bodies:
        return None
    gate = c.gate_at.get(there)
    if gate is not None and not all(p in bodies for p in gate.plates):
        return None
    return there


def _distances(c: Chamber, source: int) -> list[int]:
    """Steps from every tile to ``source`` over non-wall tiles (gates passable)."""
    far = c.tiles * 4
    dist = [far] * c.tiles
    dist[source] = 0
    queue = deque([source])
    while queue:
        here = queue.popleft()
        for d in DIRECTIONS:
            there = neighbour(here, d, c.width, c.height)
            if there is not None and dist[there] == far and there not in c.wall_set:
                dist[there] = dist[here] + 1
                queue.append(there)
    return dist


__all__ = ["MAX_SEARCH_TURNS", "Forecast", "bare_grains", "forecast", "search", "timestep"]
