"""A whole run under the harness's caps (decision H33), for any player given as a function.

The descent is endless, so a run is capped: after sealing chamber ``max_chambers``
the harness sends END_RUN itself (reason ``chamber_cap``), and after ``max_actions``
actions, refusals included, too (``action_cap``). The sandglass and the player's own
END_RUN end a run as the rules say. Pure: the player is any function of the state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from harness.games.hourloom.events import ChamberSealed, LapCompleted
from harness.games.hourloom.rules import END_RUN, new_game, step
from harness.games.hourloom.state import State

#: H33's defaults: chamber 6 is the first at full size with two-plate gates.
MAX_CHAMBERS = 6
MAX_ACTIONS = 1500

RunReason = Literal["chamber_cap", "action_cap", "end_run", "sandglass_empty"]


@dataclass(frozen=True)
class CappedRun:
    """How a capped run went: its last state, the player's actions and refusals, the
    chambers sealed, the laps completed, and why it ended."""

    state: State
    actions: int
    refusals: int
    chambers_sealed: int
    laps_completed: int
    reason: RunReason

    @property
    def score(self) -> int:
        """The run's score."""
        return self.state.score


def play_capped(
    seed: int,
    player: Callable[[State], object],
    *,
    max_chambers: int = MAX_CHAMBERS,
    max_actions: int = MAX_ACTIONS,
) -> CappedRun:
    """Play the run of ``seed`` with ``player`` until it ends or a cap ends it."""
    state = new_game(seed)
    actions = refusals = sealed = laps = 0
    reason: RunReason | None = None
    while reason is None:
        if state.phase == "sealed" and state.chamber.number >= max_chambers:
            reason = "chamber_cap"
            break
        if actions >= max_actions:
            reason = "action_cap"
            break
        result = step(state, player(state))
        actions += 1
        refusals += 0 if result.ok else 1
        sealed += sum(isinstance(e, ChamberSealed) for e in result.events)
        laps += sum(isinstance(e, LapCompleted) for e in result.events)
        state = result.state
        if state.phase == "over":
            reason = "end_run" if state.end_reason == "end_run" else "sandglass_empty"
    if state.phase != "over":
        state = step(state, END_RUN).state
    return CappedRun(state, actions, refusals, sealed, laps, reason)


__all__ = ["MAX_ACTIONS", "MAX_CHAMBERS", "CappedRun", "RunReason", "play_capped"]
