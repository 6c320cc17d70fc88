"""PILOT's decision each tick: stay silent, or say the fewest words that keep the plan."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from baselines.lighthouse.pilot.memory import encode, recall
from baselines.lighthouse.pilot.route import Outlook, Plan, plan_routes
from baselines.lighthouse.pilot.simulate import Walker, advance, predict_move
from baselines.lighthouse.pilot.world import STEPS, World
from harness.games.lighthouse.board import Pos
from harness.games.lighthouse.observe import KeeperObservation
from harness.games.lighthouse.state import Move, RunnerStatus

#: How far ahead a candidate order is followed to see how long the runner keeps to plan.
HORIZON = 8
#: The rates the clock is projected to grow at, per tick: one, plus the share of ticks
#: the keeper talks on, which is not known in advance (measured: about 0.2).
CLOCK_RATES = (1.0, 1.15, 1.3)
#: Extra clock the plan keeps between a runner and the water (the rates carry the risk).
WATER_MARGIN = 0
#: What a message may tell a runner: nothing (omitted), hold, or a direction.
Entry = Move | None


@dataclass(frozen=True)
class Decision:
    """PILOT's decision for one tick, with the reasons a test may check it by."""

    message: str | None
    notes: str
    plan: Plan | None
    landing: dict[int, Walker]


def on_plan(world: World, walker: Walker, stops: tuple[Pos, ...]) -> tuple[Pos, tuple[Pos, ...]]:
    """Where the plan wants ``walker`` next, and the stops left once it gets there."""
    while len(stops) > 1 and walker.pos == stops[0]:
        stops = stops[1:]
    move = world.step(walker.pos, stops[0])
    dx, dy = move.delta
    return (walker.pos[0] + dx, walker.pos[1] + dy), stops


def keeps_to_plan(
    world: World,
    walker: Walker,
    stops: tuple[Pos, ...],
    sent: Mapping[int, str],
    tick: int,
    clock: int,
) -> int:
    """How many ticks from ``tick`` on the runner's predicted moves follow its plan."""
    for n in range(HORIZON):
        wanted, stops = on_plan(world, walker, stops)
        move = predict_move(world, walker, sent, tick + n, clock + n)
        walker = advance(world, walker, move, clock + n, clock + n + 1)
        if walker.pos != wanted or not walker.alive:
            return n
    return HORIZON


def entry_text(alias: str, entry: Move) -> str:
    """One runner's order as PILOT words it: ``<Alias> <N|E|S|W|hold>``."""
    return f"{alias} {'hold' if entry is Move.WAIT else entry.value}"


def candidates(world: World, walker: Walker, clock: int) -> list[Entry]:
    """What a message may tell ``walker``: omit it, hold, or a step that is safe on landing.

    ``clock`` is the clock when the order lands; a direction is a candidate only when
    its tile is floor, dry then, and still dry once that tick has resolved, even if
    the keeper talks again on it.
    """
    out: list[Entry] = [None, Move.WAIT]
    for move in STEPS:
        dx, dy = move.delta
        tile = (walker.pos[0] + dx, walker.pos[1] + dy)
        if world.dry(tile, clock) and world.dry(tile, clock + 2):
            out.append(move)
    return out


def decide(obs: KeeperObservation) -> Decision:
    """PILOT's decision for ``obs``: play out this tick, plan, then speak only if needed."""
    world = World(obs)
    histories = recall(obs)
    notes = encode(obs.tick, histories)
    sent = {m.tick: m.message for m in obs.transcript}
    t, clock = obs.tick, obs.clock
    walkers = [
        Walker(r.seat, r.alias, r.pos, histories[r.seat])
        for r in obs.runners
        if r.status is RunnerStatus.ACTIVE
    ]
    # This tick's moves are already settled by what was sent before it.
    moves = {w.seat: predict_move(world, w, sent, t, clock) for w in walkers}
    landing = {w.seat: advance(world, w, moves[w.seat], clock, clock + 1) for w in walkers}
    # Keys are picked up, the gate opens and runners on the exit escape before the
    # water rises (steps 5-7 before 10), so the plan starts from all of that.
    picked = {w.pos for w in landing.values() if w.pos in world.keys}
    keys_collected = obs.keys_collected + len(picked)
    gate_open = obs.gate_open or keys_collected == obs.key_count
    world.collect(picked, gate_open)
    escaping = {s for s, w in landing.items() if gate_open and w.pos == world.exit}
    alive = {s: w for s, w in landing.items() if w.alive and s not in escaping}
    if not alive:
        return Decision(None, notes, None, landing)
    outlooks = tuple(
        Outlook(
            tick=t + 1,
            clock=clock + 1,
            rate=rate,
            margin=WATER_MARGIN,
            tide=world.tide,
            max_ticks=obs.max_ticks,
            key_count=obs.key_count,
            keys_collected=keys_collected,
            escaped=len(escaping) + sum(1 for r in obs.runners if r.status is RunnerStatus.ESCAPED),
            runners=len(obs.runners),
        )
        for rate in CLOCK_RATES
    )
    plan = plan_routes(world, {s: w.pos for s, w in alive.items()}, outlooks)
    silent = {
        seat: keeps_to_plan(world, w, plan.stops[seat], sent, t + 1, clock + 1)
        for seat, w in alive.items()
    }
    needy = [seat for seat in sorted(plan.useful) if silent[seat] == 0]
    if not needy:
        return Decision(None, notes, plan, landing)
    # Talking costs a clock: it must not bring the water onto anyone this very tick.
    if any(
        not advance(world, w, moves[w.seat], clock, clock + 2).alive
        for w in walkers
        if w.seat in alive
    ):
        return Decision(None, notes, plan, landing)
    message = compose(world, alive, plan, sent, t, clock, needy)
    return Decision(message, notes, plan, landing)


def compose(
    world: World,
    alive: Mapping[int, Walker],
    plan: Plan,
    sent: Mapping[int, str],
    tick: int,
    clock: int,
    needy: list[int],
) -> str | None:
    """The message that keeps each runner on its route longest, or None when no words
    would put a ``needy`` runner back on course. ``alive`` are the runners as they will
    stand when the words land, at tick ``tick + 1``; talking makes that clock + 2."""
    chosen: dict[int, tuple[Entry, int]] = {}
    spoken: dict[int, tuple[Move, int]] = {}  # each runner's best entry that names it
    for seat, w in sorted(alive.items()):
        for entry in candidates(world, w, clock + 2):
            # Runners are planned one at a time: to a runner, a message that does not
            # name it reads the same as one that names no one.
            text = "-" if entry is None else entry_text(w.alias, entry)
            words = {**sent, tick: text}
            fit = keeps_to_plan(world, w, plan.stops[seat], words, tick + 1, clock + 2)
            if seat not in chosen or fit > chosen[seat][1]:
                chosen[seat] = (entry, fit)
            if entry is not None and (seat not in spoken or fit > spoken[seat][1]):
                spoken[seat] = (entry, fit)
    if not any(chosen[seat][1] > 0 for seat in needy):
        return None
    if all(entry is None for entry, _ in chosen.values()):
        # A message must name someone: the runner that loses least by being named.
        seat = max(spoken, key=lambda s: (spoken[s][1] - chosen[s][1], -s))
        chosen[seat] = spoken[seat]
    return "; ".join(
        entry_text(alive[seat].alias, entry)
        for seat, (entry, _) in sorted(chosen.items())
        if entry is not None
    )


def pilot(obs: KeeperObservation) -> str:
    """PILOT's reply to ``obs``, in the shape a model's reply takes."""
    decision = decide(obs)
    if decision.message is None:
        return json.dumps({"transmit": False, "notes": decision.notes})
    return json.dumps({"transmit": True, "message": decision.message, "notes": decision.notes})


__all__ = ["Decision", "candidates", "compose", "decide", "keeps_to_plan", "pilot"]
