"""PILOT's route plan: which runner fetches which keys, in what order, before the water.

Every way of sharing the keys still in play among the active runners, and every
order in which each runner fetches its share, is timed along the maze's one path
between each pair of stops: its keys, then the exit. The clock is projected forward
at a few rates (a tick costs one clock, a transmission one more, and how often the
keeper will talk is not known in advance); under each, a runner whose path reaches a
row the projected water has covered drowns there. A plan is scored by the rules' own
teamScore (keys, escapes, the time bonus when all three escape), averaged over the
rates, so that a plan which works only if the keeper hardly talks still beats one
that cannot open the gate at all, and a safe plan beats a risky one. Ties go to the
plan that finishes first, then to the one whose runners walk least.

Three keys among three runners make 60 plans. A board with so many keys that the plans
would pass :data:`MAX_PLANS` (six keys make 20,160) gets one plan instead, built
greedily: each key in turn goes to the runner that would reach it soonest from where
its walk so far ends.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from baselines.lighthouse.pilot.world import World
from harness.games.lighthouse.board import Pos
from harness.games.lighthouse.tide import Tide

#: The most plans PILOT times in one decision before it shares the keys greedily.
MAX_PLANS = 3000


@dataclass(frozen=True)
class Outlook:
    """What a plan is timed against: where the game stands, and how fast the clock runs."""

    tick: int
    clock: int
    rate: float
    margin: int
    tide: Tide
    max_ticks: int
    key_count: int
    keys_collected: int
    escaped: int
    runners: int

    def clock_after(self, steps: int) -> int:
        """The projected clock once ``steps`` more ticks have resolved."""
        return self.clock + math.ceil(steps * self.rate)

    @cached_property
    def flooded_after(self) -> dict[int, int]:
        """Row y -> the fewest steps after which the projected water (plus margin) covers it."""
        out: dict[int, int] = {}
        for y in range(self.tide.height):
            need = self.tide.row_flood_clock(y) - self.margin  # the clock that floods row y
            steps = max(0, math.floor((need - self.clock - 1) / self.rate) - 1)
            while self.clock_after(steps) < need:
                steps += 1
            out[y] = steps
        return out


@dataclass(frozen=True)
class Walk:
    """A runner's way from its tile through its keys to the exit, untimed.

    ``rows`` holds the row of the tile after each step; ``key_steps`` the step on which
    each key is reached; ``whole`` is False when some stop cannot be reached at all
    (``rows`` then ends where the way does).
    """

    stops: tuple[Pos, ...]
    rows: tuple[int, ...]
    key_steps: tuple[int, ...]
    whole: bool


@dataclass(frozen=True)
class Leg:
    """One runner's timed route: its stops, the step it takes each key, and its arrival."""

    stops: tuple[Pos, ...]
    key_steps: tuple[int, ...]
    arrival: int | None  # steps to the exit, None when it drowns on the way


@dataclass(frozen=True)
class Plan:
    """A whole plan: every active runner's stops, who matters in it, and its worth."""

    stops: dict[int, tuple[Pos, ...]]
    useful: frozenset[int]
    score: float
    finish: int


def walk(world: World, start: Pos, keys: tuple[Pos, ...]) -> Walk:
    """The way ``start`` -> ``keys`` in order -> exit along the maze's paths."""
    stops = (*keys, world.exit)
    rows: list[int] = []
    key_steps: list[int] = []
    here = start
    for stop in stops:
        tiles = world.path(here, stop)
        if here != stop and not tiles:
            return Walk(stops, tuple(rows), tuple(key_steps), False)  # no way there at all
        rows.extend(y for _, y in tiles)
        if stop != world.exit:
            key_steps.append(len(rows))
        here = stop
    return Walk(stops, tuple(rows), tuple(key_steps), True)


def time_leg(way: Walk, outlook: Outlook) -> Leg:
    """``way`` walked one tile a tick against the projected water.

    A step onto a row the water already covers is blocked and one onto a row it covers
    by the tick's end drowns the runner, either way ending the walk; a key reached on
    the very step the runner drowns is still taken (pickup comes before drowning).
    """
    flooded_after = outlook.flooded_after
    never = outlook.max_ticks + 1
    for step, y in enumerate(way.rows, start=1):
        covered = flooded_after.get(y, never)
        if step >= covered:
            keys = tuple(s for s in way.key_steps if s < step or s == step == covered)
            return Leg(way.stops, keys, None)
    return Leg(way.stops, way.key_steps, len(way.rows) if way.whole else None)


def score_plan(legs: dict[int, Leg], outlook: Outlook) -> tuple[float, int, frozenset[int]]:
    """The projected teamScore of ``legs``, the step all is over, and who matters in it."""
    keys = outlook.keys_collected + sum(len(leg.key_steps) for leg in legs.values())
    gate = max((s for leg in legs.values() for s in leg.key_steps), default=0)
    escapes: dict[int, int] = {}
    if keys == outlook.key_count:
        last_step = outlook.max_ticks - outlook.tick  # escaping on the last tick still counts
        flood_clock = outlook.tide.flood_clock
        for seat, leg in legs.items():
            if leg.arrival is None:
                continue
            out = max(leg.arrival, gate)
            if out <= last_step and outlook.clock_after(out - 1) < flood_clock:
                escapes[seat] = out
    escaped = outlook.escaped + len(escapes)
    finish = max([*escapes.values(), gate])
    score = 6 * keys / outlook.key_count + 10 * escaped
    if escaped == outlook.runners:
        score += 6 * max(0.0, 1 - outlook.clock_after(finish) / outlook.tide.flood_clock)
    useful = frozenset(seat for seat, leg in legs.items() if leg.key_steps or seat in escapes)
    return score, finish, useful


def plan_count(keys: int, runners: int) -> int:
    """How many plans share ``keys`` keys among ``runners`` runners, each list in order."""
    return math.factorial(keys) * math.comb(keys + runners - 1, runners - 1)


def key_orders(
    world: World, starts: dict[int, Pos], keys: tuple[Pos, ...]
) -> Iterator[tuple[tuple[Pos, ...], ...]]:
    """Each plan's key lists, one per runner in seat order: every plan, or a greedy one."""
    seats = sorted(starts)
    if plan_count(len(keys), len(seats)) > MAX_PLANS:
        yield greedy_orders(world, starts, keys)
        return
    for owners in itertools.product(seats, repeat=len(keys)):
        pairs = tuple(zip(keys, owners, strict=True))
        shares = {s: tuple(k for k, o in pairs if o == s) for s in seats}
        yield from itertools.product(*(itertools.permutations(shares[s]) for s in seats))


def greedy_orders(
    world: World, starts: dict[int, Pos], keys: tuple[Pos, ...]
) -> tuple[tuple[Pos, ...], ...]:
    """Each key in turn to the runner that reaches it soonest, counting the walk it has."""
    seats = sorted(starts)
    ends, walked = dict(starts), dict.fromkeys(seats, 0)
    lists: dict[int, list[Pos]] = {s: [] for s in seats}
    unreachable = 10 * world.width * world.height

    def far(a: Pos, b: Pos) -> int:
        d = world.distance(a, b)
        return unreachable if d is None else d

    left = list(keys)
    while left:
        _, seat, key = min((walked[s] + far(ends[s], k), s, k) for s in seats for k in left)
        walked[seat] += far(ends[seat], key)
        ends[seat] = key
        lists[seat].append(key)
        left.remove(key)
    return tuple(tuple(lists[s]) for s in seats)


def plan_routes(world: World, starts: dict[int, Pos], outlooks: tuple[Outlook, ...]) -> Plan:
    """The best plan for runners standing on ``starts`` (seat -> tile).

    ``outlooks`` share a start and differ in the rate the clock is projected at; the
    middle one times the chosen plan.
    """
    middle = len(outlooks) // 2
    in_play = tuple(k for k in world.keys if world.dry(k, outlooks[middle].clock))
    seats = sorted(starts)
    legs: dict[tuple[int, tuple[Pos, ...]], list[Leg]] = {}  # walks shared by many plans
    best: Plan | None = None
    best_key: tuple[float, int, int] | None = None
    for orders in key_orders(world, starts, in_play):
        timed = []
        for seat, order in zip(seats, orders, strict=True):
            if (seat, order) not in legs:
                way = walk(world, starts[seat], order)
                legs[(seat, order)] = [time_leg(way, o) for o in outlooks]
            timed.append(legs[(seat, order)])
        scores = [
            score_plan({s: t[i] for s, t in zip(seats, timed, strict=True)}, o)
            for i, o in enumerate(outlooks)
        ]
        score = sum(s for s, _, _ in scores) / len(scores)
        _, finish, useful = scores[middle]
        walked = sum(t[middle].arrival or 0 for t in timed)
        key = (-score, finish, walked)
        if best_key is None or key < best_key:
            best_key = key
            stops = {s: t[middle].stops for s, t in zip(seats, timed, strict=True)}
            best = Plan(stops, useful, score, finish)
    assert best is not None  # key_orders always yields at least one plan
    return best


__all__ = [
    "MAX_PLANS",
    "Leg",
    "Outlook",
    "Plan",
    "Walk",
    "greedy_orders",
    "key_orders",
    "plan_count",
    "plan_routes",
    "score_plan",
    "time_leg",
    "walk",
]
