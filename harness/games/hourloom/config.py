"""Hourloom's parameters in the harness (decision H33), validated at the boundary."""

from __future__ import annotations

from pydantic import Field

from harness.games.hourloom.capped import MAX_ACTIONS, MAX_CHAMBERS
from harness.protocol.conventions import DEFAULT_EPISODE_TIMEOUT, EpisodeTimeout, GameConfig

VARIANTS: tuple[str, ...] = GameConfig.VARIANTS

#: The deepest cap a config may name: PLANNER's plans (and so the planned score) reach
#: this far, and generating a chamber takes tens of milliseconds.
CHAMBER_CAP_LIMIT = 500
#: The largest action cap a config may name (a tournament's budgets scale with it).
ACTION_CAP_LIMIT = 100_000


class HourloomConfig(GameConfig):
    """A capped Hourloom run: the harness sends END_RUN after sealing chamber
    ``maxChambers`` or after ``maxActions`` actions (H33)."""

    max_chambers: int = Field(
        MAX_CHAMBERS,
        ge=1,
        le=CHAMBER_CAP_LIMIT,
        description="The harness ends the run after sealing this chamber (chamber_cap).",
    )
    max_actions: int = Field(
        MAX_ACTIONS,
        ge=1,
        le=ACTION_CAP_LIMIT,
        description="The harness ends the run after this many actions (action_cap).",
    )
    episode_timeout_seconds: EpisodeTimeout = DEFAULT_EPISODE_TIMEOUT

    @property
    def tick_cap(self) -> int:
        """The most decisions an episode can ask for: one per action up to the cap."""
        return self.max_actions


__all__ = ["ACTION_CAP_LIMIT", "CHAMBER_CAP_LIMIT", "VARIANTS", "HourloomConfig"]
