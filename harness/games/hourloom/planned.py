"""The planned score: the generator's plans played under the harness's caps (H34, H35).

The seed fixes every chamber whatever the player does (H5), and each chamber was
generated around a plan that completes every lap inside its budget (H15-H18). Playing
those plans input by input from the start, DESCENDing at each seal, is exactly what
PLANNER does on its own run, and its score is the ceiling a report measures a run
against (``score / planned``). The rules core computes it from the generator itself,
so results never depend on a bot.
"""

from __future__ import annotations

from functools import lru_cache

from harness.games.hourloom.capped import MAX_ACTIONS, MAX_CHAMBERS, CappedRun, play_capped
from harness.games.hourloom.generator import Generated, generate
from harness.games.hourloom.rules import DESCEND, END_RUN, WAIT, Action, move
from harness.games.hourloom.state import State


def planned_run(
    seed: int, *, max_chambers: int = MAX_CHAMBERS, max_actions: int = MAX_ACTIONS
) -> CappedRun:
    """The capped run of ``seed`` that plays each chamber's plan (H33's caps)."""
    chambers: list[Generated] = []

    def plan_player(state: State) -> Action:
        if state.phase == "sealed":
            return dict(DESCEND)
        number = state.chamber.number
        while len(chambers) < number:  # chamber n draws from where chamber n - 1 left
            word = chambers[-1].rng_state if chambers else seed
            chambers.append(generate(len(chambers) + 1, word))
        lap_plan = chambers[number - 1].plan[state.lap - 1]
        if state.turn >= len(lap_plan):  # never on the plan's own run: the plan completes
            return dict(END_RUN)
        entry = lap_plan[state.turn]
        return dict(WAIT) if entry == "WAIT" else move(entry)

    return play_capped(seed, plan_player, max_chambers=max_chambers, max_actions=max_actions)


@lru_cache(maxsize=4096)
def planned_score(seed: int, max_chambers: int, max_actions: int) -> int:
    """The score of :func:`planned_run` (kept: every episode of a seed asks for it)."""
    return planned_run(seed, max_chambers=max_chambers, max_actions=max_actions).score


__all__ = ["planned_run", "planned_score"]
