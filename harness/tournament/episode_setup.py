"""What one planned episode starts from: its rules (with a fitting timeout) and state.

Shared by the event loop's episodes and the worker processes' (pool.py), so an
episode starts from the same state wherever it is played.
"""

from __future__ import annotations

from typing import Any

from harness.llm.deadlines import default_allowance, default_episode_timeout
from harness.protocol import GameEntry
from harness.seat_spec import LLMSeatConfig
from harness.tournament.config import EntrantConfig, TournamentConfig
from harness.tournament.plan import EpisodePlan


def entrant_game_config(
    config: TournamentConfig, game: GameEntry, entrant: EntrantConfig, variant: str
) -> Any:
    """The rules of ``variant`` for ``entrant``: without a configured episode timeout, one
    that fits the entrant's model seats (see :mod:`harness.llm.deadlines`)."""
    base = config.game_config(variant)
    if config.episode_timeout_seconds is not None:
        return base
    models = [
        spec for _, spec in entrant.seat_specs(game).values() if isinstance(spec, LLMSeatConfig)
    ]
    allowances = [
        m.allowance_seconds or default_allowance(m.call_timeout_seconds, len(models))
        for m in models
    ]
    timeout = default_episode_timeout(base, allowances)
    return base if timeout is None else game.rules.make_config(variant, config.rules, timeout)


def start_state(config: TournamentConfig, game: GameEntry, plan: EpisodePlan) -> Any:
    """The state ``plan``'s episode starts from."""
    rules = entrant_game_config(config, game, plan.entrant, plan.variant)
    return game.rules.new_state(rules, plan.seed)


__all__ = ["entrant_game_config", "start_state"]
