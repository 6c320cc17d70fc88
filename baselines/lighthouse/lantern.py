"""LANTERN, the scripted keeper (rules, "The two baselines"; decision L2).

A pure function of the keeper's :class:`KeeperObservation`: breadth-first search
over the dry floor from the exit and from every key in play; keys assigned greedily
to the runners nearest them; every runner ordered one step along its shortest path,
counted from the tile it will stand on when the words land. It transmits on a rhythm
of every other tick and breaks it when a runner bumped, when the water has just come
within two tiles of one, or when the gate has just opened.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache

from harness.games.lighthouse.board import Pos, bfs_distances
from harness.games.lighthouse.observe import KeeperObservation, RunnerView
from harness.games.lighthouse.orders import find_order
from harness.games.lighthouse.state import KeeperDecision, Move, RunnerStatus
from harness.protocol import DecidedBaseline
from harness.text import truncate_runes

_BLOCKED = frozenset("#~")
#: N, E, S, W: the order BFS expands in and the order ties between steps break by.
_STEPS: tuple[Move, Move, Move, Move] = (Move.N, Move.E, Move.S, Move.W)
#: A runner acts on an order sent at most this many ticks ago (inbox + standing order).
_ORDER_REACH = 4
#: Water "within two tiles" of a runner (decision L2).
_NEAR_WATER = 2


# Every glyph a runner may stand on, as one: grids alike but for runners, keys and the
# gate map to one key, under which the dry floor and its distance fields are kept. A
# glyph not named here stays itself, which only makes a grid its own key.
_PASSABLE = str.maketrans(dict.fromkeys(".EOK123", "."))


def dry_floor(obs: KeeperObservation) -> frozenset[Pos]:
    """Every tile a runner could stand on now: not wall, not water.

    The floor changes only when the water rises, so it is made once per board and
    water line (and kept, with its distance fields, for the next ticks).
    """
    return _dry_floor(tuple(row.translate(_PASSABLE) for row in obs.grid))


@lru_cache(maxsize=64)
def _dry_floor(grid: tuple[str, ...]) -> frozenset[Pos]:
    return frozenset(
        (x, y) for y, row in enumerate(grid) for x, glyph in enumerate(row) if glyph not in _BLOCKED
    )


@lru_cache(maxsize=1024)
def _distances(floor: frozenset[Pos], source: Pos) -> Mapping[Pos, int]:
    """bfs_distances, kept: LANTERN asks for the same fields tick after tick. Shared, so
    read only."""
    return bfs_distances(floor, source)


def predicted_tile(obs: KeeperObservation, runner: RunnerView, floor: frozenset[Pos]) -> Pos:
    """Where ``runner`` will stand when this tick's words land.

    Its tile after obeying the order it acts on this tick: the latest of the keeper's
    transmissions sent at ticks t-4 .. t-1 that names it with a direction, if that
    step is open and dry; else its current tile.
    """
    for sent in reversed(obs.transcript):
        if not obs.tick - _ORDER_REACH <= sent.tick <= obs.tick - 1:
            continue
        order = find_order(sent.message, runner.alias)
        if order is None:
            continue
        dx, dy = order.delta
        target = (runner.pos[0] + dx, runner.pos[1] + dy)
        return target if target in floor else runner.pos
    return runner.pos


def assign_targets(
    obs: KeeperObservation, predicted: dict[int, Pos], floor: frozenset[Pos]
) -> dict[int, Mapping[Pos, int]]:
    """Each active runner's distance field to its target (a key, else the exit).

    Greedy over (runner, key) pairs by distance from the predicted tile, ties by seat
    then key in row-major order; keys under water are out of play.
    """
    key_fields = {
        key: _distances(floor, key) for key in obs.uncollected_keys if key in floor
    }  # uncollected_keys is row-major already
    pairs = sorted(
        (field[tile], seat, index, key)
        for index, (key, field) in enumerate(key_fields.items())
        for seat, tile in predicted.items()
        if tile in field
    )
    assigned: dict[int, Pos] = {}
    taken: set[Pos] = set()
    for _, seat, _, key in pairs:
        if seat not in assigned and key not in taken:
            assigned[seat] = key
            taken.add(key)
    exit_field = _distances(floor, obs.exit)
    return {
        seat: key_fields[assigned[seat]] if seat in assigned else exit_field for seat in predicted
    }


def step_towards(tile: Pos, field: Mapping[Pos, int]) -> Move:
    """The neighbour step that most shortens the distance (ties N, E, S, W), or WAIT."""
    here = field.get(tile)
    if here is None or here == 0:
        return Move.WAIT
    best, best_dist = Move.WAIT, here
    x, y = tile
    # the neighbours in _STEPS order (N, E, S, W), written out: this runs for every
    # runner every tick the keeper speaks
    for move, nxt in zip(_STEPS, ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)), strict=True):
        dist = field.get(nxt)
        if dist is not None and dist < best_dist:
            best, best_dist = move, dist
    return best


def should_transmit(obs: KeeperObservation) -> bool:
    """The rhythm: tick 0, then every other tick, broken by a bump, water or the gate."""
    t = obs.tick
    if not obs.transcript or t - obs.transcript[-1].tick >= 2:
        return True
    active = [r for r in obs.runners if r.status is RunnerStatus.ACTIVE]
    if any(r.bumped for r in active):
        return True
    if obs.gate_opened_tick is not None and obs.gate_opened_tick == t - 1:
        return True
    return any(
        _near_water(obs.water_line, r.pos[1], obs.height)
        and not _near_water(obs.previous_water_line, r.pos[1], obs.height)
        for r in active
    )


def _near_water(water_line: int, y: int, height: int) -> bool:
    return water_line < height and water_line - y <= _NEAR_WATER


def lantern_orders(obs: KeeperObservation) -> str:
    """The message LANTERN composes: ``<Alias> <N|E|S|W|hold>; ...`` in seat order."""
    floor = dry_floor(obs)
    active = [r for r in obs.runners if r.status is RunnerStatus.ACTIVE]
    predicted = {r.seat: predicted_tile(obs, r, floor) for r in active}
    fields = assign_targets(obs, predicted, floor)
    parts = []
    for r in active:
        move = step_towards(predicted[r.seat], fields[r.seat])
        parts.append(f"{r.alias} {'hold' if move is Move.WAIT else move.value}")
    return "; ".join(parts)


_QUIET = (json.dumps({"transmit": False}), KeeperDecision(transmit=False))


def lantern_play(obs: KeeperObservation) -> tuple[str, KeeperDecision]:
    """LANTERN's reply to ``obs`` and its decision (what the keeper parser makes of the
    reply: the message cut to the cap)."""
    if not should_transmit(obs):
        return _QUIET
    message = lantern_orders(obs)
    return (
        json.dumps({"transmit": True, "message": message}),
        KeeperDecision(transmit=True, message=truncate_runes(message, obs.message_cap)),
    )


#: LANTERN's reply to an observation, in the shape a model's reply takes (called like
#: a function); it gives its decision too (:class:`~harness.protocol.DecidedBaseline`).
lantern = DecidedBaseline(lantern_play)


__all__ = [
    "assign_targets",
    "dry_floor",
    "lantern",
    "lantern_orders",
    "lantern_play",
    "predicted_tile",
    "should_transmit",
    "step_towards",
]
