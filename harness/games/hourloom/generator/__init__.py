"""Hourloom's chamber generator, built around a planned solution (decisions H9-H18).

One attempt draws, in H14's order, the gate assignment, holders, pockets, exit,
alcoves, open keystones, plates and routes; settles the timing rule (H16); replays the
plan through the real turn rules, repairing its earliest defect up to 30 times (H17);
then draws extra walls, flux and sparks and sets each lap's budget from the grains
the plan spends (H18). A failed attempt is followed by another on the same stream;
after 500 a :class:`GenerationError` names the chamber.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.errors import BoardError
from harness.games.hourloom.difficulty import chamber_spec
from harness.games.hourloom.generator.finish import (
    REPLAY_BUDGET,
    chamber_of,
    extra_walls,
    lap_budget,
    tolls_and_sparks,
)
from harness.games.hourloom.generator.layout import AttemptFailed, Layout, draw_layout
from harness.games.hourloom.generator.playback import Checkpoints, Plan, Replayed, replay
from harness.games.hourloom.generator.routes import Route, draw_routes
from harness.games.hourloom.generator.schedule import Waits, inputs_of, schedule
from harness.games.hourloom.rng import Stream
from harness.games.hourloom.state import Chamber

MAX_ATTEMPTS = 500
MAX_REPAIRS = 30
#: Repairs of one move after which the attempt is abandoned early (still within MAX_REPAIRS).
MAX_REPEATS = 2


class GenerationError(BoardError):
    """No playable chamber came out of MAX_ATTEMPTS attempts (never seen in the sweep)."""


@dataclass(frozen=True)
class Generated:
    """A generated chamber, the plan it was built around (one input log per lap), the
    rngState after its draws, how many attempts and repairs it took, and the gate
    assignment: each gate's lap and the lap holding each of its plates."""

    chamber: Chamber
    plan: Plan
    rng_state: int
    attempts: int
    repairs: int
    gate_laps: tuple[int, ...]
    holders: tuple[tuple[int, ...], ...]


def generate(number: int, rng_state: int) -> Generated:
    """Chamber ``number`` drawn from the stream at ``rng_state``."""
    stream = Stream(rng_state)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            chamber, plan, repairs, layout = _attempt(number, stream)
        except AttemptFailed:
            continue
        return Generated(
            chamber, plan, stream.word, attempt, repairs, layout.gate_laps, layout.gate_holders
        )
    raise GenerationError(
        f"chamber {number} (rngState {rng_state:016x}): no playable chamber after "
        f"{MAX_ATTEMPTS} attempts"
    )


def _attempt(number: int, stream: Stream) -> tuple[Chamber, Plan, int, Layout]:
    layout = draw_layout(chamber_spec(number), stream)
    routes = draw_routes(layout, stream)
    plan, repairs = settle(layout, routes)
    walls = extra_walls(layout, routes, stream)
    flux, sparks = tolls_and_sparks(layout.spec, layout, walls, stream)
    unbounded = (REPLAY_BUDGET,) * layout.spec.laps
    played = replay(chamber_of(layout, walls, flux, sparks, unbounded), plan)
    if not isinstance(played, Replayed):
        raise AttemptFailed("the finished chamber changed the plan")
    budgets = tuple(lap_budget(g) for g in played.grains)
    chamber = chamber_of(layout, walls, flux, sparks, budgets)
    if not isinstance(replay(chamber, plan), Replayed):
        raise AttemptFailed("the plan does not fit its own budgets")
    return chamber, plan, repairs, layout


def settle(layout: Layout, routes: tuple[Route, ...]) -> tuple[Plan, int]:
    """The timing rule and the replay's repairs, until the plan plays cleanly (H16, H17)."""
    draft = chamber_of(layout, layout.walls, (), (), (REPLAY_BUDGET,) * layout.spec.laps)
    repairs: Waits = {}
    seen: dict[tuple[int, int], int] = {}
    marks = Checkpoints()
    for count in range(MAX_REPAIRS + 1):
        waits = schedule(layout, routes, repairs)
        plan = tuple(inputs_of(r, w) for r, w in zip(routes, waits, strict=True))
        outcome = replay(draft, plan, marks)
        if isinstance(outcome, Replayed):
            return plan, count
        key = (outcome.lap, outcome.move)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > MAX_REPEATS:
            # The same move keeps needing WAITs: its lap drags the blocker along with it.
            raise AttemptFailed(f"lap {outcome.lap} move {outcome.move} keeps colliding")
        repairs[key] = repairs.get(key, 0) + outcome.waits
    raise AttemptFailed(f"still defective after {MAX_REPAIRS} repairs")


__all__ = ["MAX_ATTEMPTS", "MAX_REPAIRS", "Generated", "GenerationError", "generate"]
