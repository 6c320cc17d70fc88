"""Lighthouse as a PettingZoo ``ParallelEnv``: the keeper and the three runners at once.

Each step every seat the episode asks answers (``info[agent]["asked"]``); the others'
actions are not used that step: a runner that escaped or drowned, or, on the retry
after a reply that could not be used, every seat but the ones retrying (each then
reads the hint). Every seat stays among ``agents`` until the episode ends, so that each
gets the team's score: the reward is 0 until the last step, then each seat's score
(decision: scores are shared). The episode ends ``terminated``, or ``truncated`` when
its play budget ran out (reason ``deadline``). Observations and actions are text
(:mod:`harness.adapters.text_spaces`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from gymnasium import spaces
from pettingzoo import ParallelEnv

from harness.adapters.text_spaces import action_space, info_of, observation_space, seen
from harness.api import Env, make


class LighthouseParallelEnv(ParallelEnv[str, str, Any]):  # type: ignore[misc]
    """Lighthouse step by step, every seat an agent (see the module's docstring).

    ``seed`` is the first episode's; each :meth:`reset` without one plays the next
    seed. ``options={"seats": {"runners": "wallhug"}}`` at reset hands seat groups to
    other players (their seats then are not agents); other keys of ``options`` are
    not read.
    """

    metadata = {"name": "lighthouse_v0", "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        seed: int = 0,
        *,
        variant: str | None = None,
        rules: Mapping[str, Any] | None = None,
    ) -> None:
        self.env: Env = make("lighthouse", variant=variant, rules=rules)
        self.possible_agents = [s for group in self.env.game.seat_groups for s in group.seats]
        self.agents: list[str] = []
        self._next_seed = seed
        self._last: dict[str, str] = {}
        self._infos: dict[str, dict[str, Any]] = {}

    @functools.cache  # noqa: B019 -- one space object per agent, as the API asks
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return observation_space()

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Space[Any]:
        return action_space()

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
        chosen = self._next_seed if seed is None else seed
        self._next_seed = chosen + 1
        seats = dict((options or {}).get("seats") or {})
        asked = self.env.reset(chosen, seats=seats)
        given_groups = {g.key for g in self.env.game.seat_groups if g.key in seats}
        self.agents = [
            s
            for group in self.env.game.seat_groups
            if group.key not in given_groups
            for s in group.seats
        ]
        self._last, self._infos = {}, {}
        self._see(asked)
        return dict(self._last), {a: dict(self._infos[a]) for a in self.agents}

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, str],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        waiting = self.env.observations
        asked = self.env.step({seat: actions.get(seat, "") for seat in waiting})
        agents = list(self.agents)
        self._see(asked)
        rewards = dict.fromkeys(agents, 0.0)
        over = self.env.done
        terminated = dict.fromkeys(agents, False)
        truncated = dict.fromkeys(agents, False)
        if over:
            result = self.env.result
            assert result is not None  # over: the result is in
            order = [seat["seat"] for seat in result.lines[0]["seats"]]
            scores = dict(zip(order, result.scores, strict=True))
            cut = getattr(result.results, "reason", None) == "deadline"
            for agent in agents:
                rewards[agent] = float(scores[agent])
                (truncated if cut else terminated)[agent] = True
            self.agents = []
        observations = {a: self._last[a] for a in agents}
        infos = {a: dict(self._infos[a]) for a in agents}
        return observations, rewards, terminated, truncated, infos

    def close(self) -> None:
        self.env.close()

    def _see(self, asked: Mapping[str, Any]) -> None:
        """Take in the seats asked now; the others keep what they last read."""
        for agent in self.agents:
            given = asked.get(agent)
            if given is None:
                if agent not in self._last:
                    self._last[agent] = ""
                self._infos[agent] = {**self._infos.get(agent, {}), "asked": False}
            else:
                self._last[agent] = seen(given)
                self._infos[agent] = info_of(given)


__all__ = ["LighthouseParallelEnv"]
