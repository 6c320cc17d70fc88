"""Default time bounds that fit the seats: a seat's allowance and an episode's timeout.

A tick asks every active seat at once, and a seat's turn is at most two calls (the
reply, and the retry with a hint), each bounded by ``call_timeout_seconds``. With
several model seats on one server, a call may also wait behind the others: in the
harness's limiter (``max_in_flight``), or inside a server that answers one request
at a time. So, unless a config or flag says otherwise:

- a seat's allowance per tick is ``call_timeout * (model_seats + 1)``: its own call,
  queued behind the other model seats' calls, then its retry;
- an episode's timeout is ``ticks * allowance / play_share``, where ``ticks`` is the
  most ticks the game's config allows, ``allowance`` the largest of its model seats'
  and ``play_share`` the part of the timeout the play budget gets (decision D1: 60%),
  so that the play budget covers every tick at its slowest; never less than the
  game's default (900 s), never more than a year (the most any episode timeout may
  be: :data:`~harness.defaults.MAX_EPISODE_TIMEOUT_SECONDS`). An episode without
  model seats keeps the game's default.

These are bounds, not estimates: a healthy server ends every tick long before them.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.defaults import MAX_EPISODE_TIMEOUT_SECONDS
from harness.protocol import GameConfig


def default_allowance(call_timeout_s: float, model_seats: int) -> float:
    """A seat's default allowance per tick with ``model_seats`` model seats in the episode."""
    return call_timeout_s * (max(model_seats, 1) + 1)


def default_episode_timeout(config: GameConfig, allowances: Sequence[float]) -> float | None:
    """The episode timeout that lets every tick take its slowest seat's whole allowance.

    ``config`` is the game's config with its default timeout; ``allowances`` are the
    model seats' allowances. None when there is no model seat: the game's default
    timeout stands.
    """
    if not allowances:
        return None
    cap = config.tick_cap
    timeout = float(config.episode_timeout_seconds)
    share = float(config.play_budget_seconds) / timeout
    fitted = min(cap * max(allowances) / share, MAX_EPISODE_TIMEOUT_SECONDS)
    return max(timeout, round(fitted, 3))


__all__ = ["default_allowance", "default_episode_timeout"]
