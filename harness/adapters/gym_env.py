"""A one-seat game (Relayroam, Hourloom) as a Gymnasium ``Env``.

The observation is the text the player reads, the action its reply text
(:mod:`harness.adapters.text_spaces`); a reply that cannot be used is sent back once
(the next observation is the retry hint, ``info["retry_of"]`` set), then the game's
baseline answers for it, as for any seat of the harness. The reward is 0 until the
last step, then the episode's score; the episode ends ``terminated``, or
``truncated`` when its play budget ran out (reason ``deadline``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium

from harness.adapters.text_spaces import action_space, info_of, observation_space, seen
from harness.api import Env, make
from harness.errors import ConfigError


class OneSeatEnv(gymnasium.Env[str, str]):
    """``game`` step by step with one seat (see the module's docstring).

    ``seed`` is the first episode's; each :meth:`reset` without one plays the next
    seed (a seed given to :meth:`reset` also seeds :attr:`np_random`, as Gymnasium's
    API asks; the game itself draws nothing from it).
    """

    metadata = {"render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        game: str = "relayroam",
        seed: int = 0,
        *,
        variant: str | None = None,
        rules: Mapping[str, Any] | None = None,
    ) -> None:
        self.env: Env = make(game, variant=variant, rules=rules)
        seats = [s for group in self.env.game.seat_groups for s in group.seats]
        if len(seats) != 1:
            raise ConfigError(f"{game} has {len(seats)} seats: OneSeatEnv plays one-seat games")
        self.seat = seats[0]
        self.observation_space = observation_space()
        self.action_space = action_space()
        self._next_seed = seed

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        chosen = self._next_seed if seed is None else seed
        self._next_seed = chosen + 1
        given = self.env.reset(chosen)[self.seat]
        return seen(given), info_of(given)

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        asked = self.env.step({self.seat: action})
        if not self.env.done:
            given = asked[self.seat]
            return seen(given), 0.0, False, False, info_of(given)
        result = self.env.result
        assert result is not None  # over: the result is in
        cut = getattr(result.results, "reason", None) == "deadline"
        info = {"asked": False, "summary": result.summary}
        return "", float(result.scores[0]), not cut, cut, info

    def close(self) -> None:
        self.env.close()


__all__ = ["OneSeatEnv"]
