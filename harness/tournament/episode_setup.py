"""What one planned episode starts from: its rules (with a fitting timeout) and state.

Shared by the event loop's episodes and the worker processes' (pool.py), so an
episode starts from the same state wherever it is played.
"""

from __future__ import annotations

from harness.protocol import GameConfig, GameEntry
from harness.seating import fitted_config
from harness.tournament.config import EntrantConfig, TournamentConfig
from harness.tournament.plan import EpisodePlan


def entrant_game_config(
    config: TournamentConfig, game: GameEntry, entrant: EntrantConfig, variant: str
) -> GameConfig:
    """The rules of ``variant`` for ``entrant``: without a configured episode timeout, one
    that fits the entrant's model seats (:mod:`harness.seating.timeout`)."""
    base = config.game_config(variant)
    if config.episode_timeout_seconds is not None:
        return base
    specs = (spec for _, spec in entrant.seat_specs(game).values())
    return fitted_config(game, variant, config.rules, specs, base=base)


def start_state(config: TournamentConfig, game: GameEntry, plan: EpisodePlan) -> object:
    """The state ``plan``'s episode starts from."""
    rules = entrant_game_config(config, game, plan.entrant, plan.variant)
    return game.rules.new_state(rules, plan.seed)


__all__ = ["entrant_game_config", "start_state"]
