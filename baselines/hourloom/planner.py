"""PLANNER: the plan each chamber was generated around, replayed input by input (H35).

The seed fixes every chamber whatever the player does (H5), so the plan of chamber n
is found by generating chambers 1..n from the seed (cached). PLANNER then plays the
plan's next input. When the state has left the plan (another player made the earlier
moves, or the chamber is not the one the seed draws), it hands over to TIMESTEP.
"""

from __future__ import annotations

from functools import lru_cache

from baselines.hourloom.timestep import timestep
from harness.errors import RulesError
from harness.games.hourloom.generator import Generated, generate
from harness.games.hourloom.rules import DESCEND, WAIT, Action, move
from harness.games.hourloom.state import State


@lru_cache(maxsize=128)
def _generated(number: int, rng_state: int) -> Generated:
    return generate(number, rng_state)


def chamber_plan(seed: int, number: int) -> Generated:
    """Chamber ``number`` of the run of ``seed`` with its plan (generating 1..number)."""
    word = seed
    built = _generated(1, word)
    for n in range(2, number + 1):
        built = _generated(n, built.rng_state)
    return built


def planner(state: State) -> Action:
    """PLANNER's action in ``state``: DESCEND when sealed, else the plan's next input."""
    if state.phase == "over":
        raise RulesError("planner: the run is over, so there is no action to choose")
    if state.phase == "sealed":
        return dict(DESCEND)
    built = chamber_plan(state.seed, state.chamber.number)
    plan = built.plan
    lap = state.lap
    on_plan = (
        built.chamber == state.chamber
        and state.logs == plan[: lap - 1]
        and state.log == plan[lap - 1][: state.turn]
        and state.turn < len(plan[lap - 1])
    )
    if not on_plan:
        return timestep(state)
    entry = plan[lap - 1][state.turn]
    return dict(WAIT) if entry == "WAIT" else move(entry)


__all__ = ["chamber_plan", "planner"]
