"""A whole run under the harness's caps (decision H33), for any player given as a function.

The descent is endless, so a run is capped: after sealing chamber ``max_chambers``
the harness sends END_RUN itself (reason ``chamber_cap``), and after ``max_actions``
actions, refusals included, too (``action_cap``). The sandglass and the player's own
END_RUN end a run as the rules say. Pure: the player is any function of the state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from harness.games.hourloom.events import ChamberSealed, Event, LapCompleted
from harness.games.hourloom.rules import END_RUN, new_game, step
from harness.games.hourloom.state import State

#: H33's defaults: chamber 6 is the first at full size with two-plate gates.
MAX_CHAMBERS = 6
MAX_ACTIONS = 1500

#: The caps after which the harness sends END_RUN itself.
CapReason = Literal["chamber_cap", "action_cap"]
RunReason = CapReason | Literal["end_run", "sandglass_empty"]


def cap_reached(
    state: State, actions: int, *, max_chambers: int, max_actions: int
) -> CapReason | None:
    """The cap that ends a run still going after ``actions`` actions, if one does (H33):
    the chamber cap (chamber ``max_chambers`` sealed) first, then the action cap."""
    if state.phase == "over":
        return None
    if state.phase == "sealed" and state.chamber.number >= max_chambers:
        return "chamber_cap"
    if actions >= max_actions:
        return "action_cap"
    return None


def progress(events: Sequence[Event]) -> tuple[int, int]:
    """The chambers sealed and the laps completed in one step's events."""
    sealed = sum(isinstance(e, ChamberSealed) for e in events)
    return sealed, sum(isinstance(e, LapCompleted) for e in events)


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
        reason = cap_reached(state, actions, max_chambers=max_chambers, max_actions=max_actions)
        if reason is not None:
            break
        result = step(state, player(state))
        actions += 1
        refusals += 0 if result.ok else 1
        more_sealed, more_laps = progress(result.events)
        sealed, laps = sealed + more_sealed, laps + more_laps
        state = result.state
        if state.phase == "over":
            reason = "end_run" if state.end_reason == "end_run" else "sandglass_empty"
    if state.phase != "over":
        state = step(state, END_RUN).state
    return CappedRun(state, actions, refusals, sealed, laps, reason)


__all__ = [
    "MAX_ACTIONS",
    "MAX_CHAMBERS",
    "CapReason",
    "CappedRun",
    "RunReason",
    "cap_reached",
    "play_capped",
    "progress",
]
