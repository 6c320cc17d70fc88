"""Relayroam's parameters in the harness (decision RR19), validated at the boundary."""

from __future__ import annotations

from pydantic import Field

from harness.protocol.conventions import DEFAULT_EPISODE_TIMEOUT, EpisodeTimeout, GameConfig

VARIANTS: tuple[str, ...] = GameConfig.VARIANTS
#: A bound, not a rule: chambers repeat every three, so later ones add nothing new.
MAX_FIRST_CHAMBER = 1_000_000


class RelayroamConfig(GameConfig):
    """A bounded Relayroam episode: the harness banks at ``chamberCap`` clears (RR19).

    ``firstChamber`` starts the episode in a later chamber, set up exactly as play
    would reach it (its layout, and from chamber 4 the seed's draws), so a tournament
    can play the chambers where two players differ: chambers 1 and 2 are fixed by the
    rules and cost GREEDY and vent-aware GREEDY the same.
    """

    first_chamber: int = Field(
        1,
        ge=1,
        le=MAX_FIRST_CHAMBER,
        description="The chamber an episode starts in (1: the game's start).",
    )
    chamber_cap: int = Field(6, ge=1, description="Clears after which the harness banks.")
    decisions_per_chamber: int = Field(
        60, ge=1, description="Guard: decisions (refusals included) per chamber, then bank."
    )
    episode_timeout_seconds: EpisodeTimeout = DEFAULT_EPISODE_TIMEOUT

    @property
    def tick_cap(self) -> int:
        """The most decisions an episode can take: the guard's count in each of the
        ``chamberCap`` chambers, and one ``next`` to leave each of the first
        ``chamberCap - 1`` (the harness banks on the last clear, RR19)."""
        return self.chamber_cap * (self.decisions_per_chamber + 1) - 1


__all__ = ["MAX_FIRST_CHAMBER", "VARIANTS", "RelayroamConfig"]
