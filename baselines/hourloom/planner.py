"""PLANNER: the plan each chamber was generated around, replayed input by input (H35).

The seed fixes every chamber whatever the player does (H5), so the plan of chamber n
is found by generating chambers 1..n from the seed (kept per seed, so a run generates
each chamber once). PLANNER then plays the
plan's next input. When the state has left the plan (another player made the earlier
moves, or the chamber is not the one the seed draws), it hands over to TIMESTEP.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from baselines.hourloom.timestep import timestep
from harness.errors import RulesError
from harness.games.hourloom.generator import Generated, generate
from harness.games.hourloom.rules import DESCEND, WAIT, Action, move
from harness.games.hourloom.state import State

#: Deeper than this, PLANNER does not generate the run's chambers: it hands over to
#: TIMESTEP (a forged state could otherwise name chamber 10**6).
MAX_PLANNED_CHAMBER = 500


@dataclass
class _Run:
    """The chambers of one seed's run generated so far, in order."""

    seed: int
    chambers: list[Generated] = field(default_factory=list)

    def upto(self, number: int) -> Generated:
        while len(self.chambers) < number:
            word = self.chambers[-1].rng_state if self.chambers else self.seed
            self.chambers.append(generate(len(self.chambers) + 1, word))
        return self.chambers[number - 1]


@lru_cache(maxsize=32)
def _run(seed: int) -> _Run:
    return _Run(seed)


def chamber_plan(seed: int, number: int) -> Generated:
    """Chamber ``number`` of the run of ``seed`` with its plan (generating 1..number once)."""
    if not 1 <= number <= MAX_PLANNED_CHAMBER:
        raise ValueError(f"chamber_plan: chamber must be 1..{MAX_PLANNED_CHAMBER}, got {number}")
    return _run(seed).upto(number)


def planner(state: State) -> Action:
    """PLANNER's action in ``state``: DESCEND when sealed, else the plan's next input."""
    if state.phase == "over":
        raise RulesError("planner: the run is over, so there is no action to choose")
    if state.phase == "sealed":
        return dict(DESCEND)
    if state.chamber.number > MAX_PLANNED_CHAMBER:
        return timestep(state)
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


__all__ = ["MAX_PLANNED_CHAMBER", "chamber_plan", "planner"]
