"""The episode timeout fitted to an episode's model seats, computed in one place.

A game's config carries a default episode timeout (900 s). An episode with model
seats gets, unless its timeout was set, one long enough that the play budget covers
every tick at its slowest seat's whole allowance (:mod:`harness.llm.deadlines`). The
Python API and tournaments both start their episodes from :func:`fitted_config`, so
an episode gets the same timeout wherever it is played.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from harness.llm.deadlines import default_allowance, default_episode_timeout
from harness.protocol import GameConfig, GameEntry
from harness.seat_spec import LLMSeatConfig


def fitted_timeout(config: GameConfig, specs: Iterable[object]) -> float | None:
    """The episode timeout that fits the model seats among ``specs`` under ``config``
    (the game's config with its default timeout); None without a model seat."""
    models = [spec for spec in specs if isinstance(spec, LLMSeatConfig)]
    allowances = [
        m.allowance_seconds or default_allowance(m.call_timeout_seconds, len(models))
        for m in models
    ]
    return default_episode_timeout(config, allowances)


def fitted_config(
    game: GameEntry,
    variant: str,
    rules: Mapping[str, object],
    specs: Iterable[object],
    *,
    base: GameConfig,
) -> GameConfig:
    """``base`` (the rules of ``variant`` with ``rules`` overridden), its episode timeout
    fitted to the model seats of ``specs``; ``base`` itself when none is a model seat."""
    timeout = fitted_timeout(base, specs)
    return base if timeout is None else game.rules.make_config(variant, rules, timeout)


__all__ = ["fitted_config", "fitted_timeout"]
