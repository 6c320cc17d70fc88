"""WALLHUG, the scripted runner (rules, "The two baselines"; decision L3).

Blind: it reads only its own :class:`RunnerObservation`. If the inbox, or failing
that the standing order (age 1 to 3), orders this runner somewhere, it goes there if
the way is open and dry, else to the open neighbour nearest the ordered compass
angle (clockwise first on a tie). With no order it follows the left-hand wall. If
every way is wall or water, it waits.
"""

from __future__ import annotations

import json

from harness.games.lighthouse.observe import RunnerObservation
from harness.games.lighthouse.orders import find_order
from harness.games.lighthouse.state import Move, RunnerDecision
from harness.protocol import DecidedBaseline

#: Clockwise compass order; index * 90 is the compass angle (N 0, E 90, S 180, W 270).
COMPASS: tuple[Move, Move, Move, Move] = (Move.N, Move.E, Move.S, Move.W)
_BLOCKED = frozenset("#~")
# (row, column) of each direction's tile in the 3 x 3 window.
_WINDOW_CELL: dict[Move, tuple[int, int]] = {
    Move.N: (0, 1),
    Move.E: (1, 2),
    Move.S: (2, 1),
    Move.W: (1, 0),
}


def _turn(move: Move, quarter_turns: int) -> Move:
    """``move`` turned clockwise by ``quarter_turns`` (negative: anticlockwise)."""
    return COMPASS[(COMPASS.index(move) + quarter_turns) % 4]


#: The four moves to try, in order, for each order (nearest compass angle first; of
#: the two at 90 degrees, clockwise first) and for each heading (the left-hand wall
#: first): worked out once rather than turned every tick.
_ORDERED_TRIES: dict[Move, tuple[Move, ...]] = {
    m: (m, _turn(m, 1), _turn(m, -1), _turn(m, 2)) for m in COMPASS
}
_HEADING_TRIES: dict[Move, tuple[Move, ...]] = {
    m: (_turn(m, -1), m, _turn(m, 1), _turn(m, 2)) for m in COMPASS
}


def is_open(obs: RunnerObservation, move: Move) -> bool:
    """Whether the tile in direction ``move`` is open and dry in the window."""
    row, col = _WINDOW_CELL[move]
    return obs.window[row][col] not in _BLOCKED


def ordered_move(obs: RunnerObservation) -> Move | None:
    """The move this runner is ordered to make: inbox first, then the standing order."""
    order = find_order(obs.inbox, obs.alias)
    if order is None:
        order = find_order(obs.standing_order, obs.alias)
    return order


def heading(obs: RunnerObservation) -> Move:
    """The direction of its last successful move among its last six; N if none."""
    for record in reversed(obs.moves):
        if record.move is not Move.WAIT and not record.bumped:
            return record.move
    return Move.N


def obey(obs: RunnerObservation, order: Move) -> Move:
    """The move a runner makes on ``order`` (decision L3): ``hold`` waits; an open and
    dry direction is taken, else the open neighbour nearest its compass angle
    (clockwise first on a tie); walled in by wall and water, it waits."""
    if order is Move.WAIT:
        return Move.WAIT
    for candidate in _ORDERED_TRIES[order]:
        if is_open(obs, candidate):
            return candidate
    return Move.WAIT


def wallhug_move(obs: RunnerObservation) -> Move:
    """WALLHUG's move for ``obs``."""
    order = ordered_move(obs)
    if order is not None:
        return obey(obs, order)
    for candidate in _HEADING_TRIES[heading(obs)]:
        if is_open(obs, candidate):
            return candidate
    return Move.WAIT


#: Each move's reply text and the decision the runner parser makes of it.
_PLAYS: dict[Move, tuple[str, RunnerDecision]] = {
    move: (json.dumps({"move": move.value}), RunnerDecision(move)) for move in Move
}


def wallhug_play(obs: RunnerObservation) -> tuple[str, RunnerDecision]:
    """WALLHUG's reply to ``obs`` and its decision (what the parser makes of the reply)."""
    return _PLAYS[wallhug_move(obs)]


#: WALLHUG's reply to an observation, in the shape a model's reply takes (called like
#: a function); it gives its decision too (:class:`~harness.protocol.DecidedBaseline`).
wallhug = DecidedBaseline(wallhug_play)


__all__ = [
    "COMPASS",
    "heading",
    "is_open",
    "obey",
    "ordered_move",
    "wallhug",
    "wallhug_move",
    "wallhug_play",
]
