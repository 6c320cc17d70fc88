"""The hosted games by name: each game's parts, metadata and bots, wired together.

This is the one module that imports both a game (``harness/games/<game>/``) and its
bots (``baselines/<game>/``); the shared machinery asks it for a
:class:`~harness.protocol.GameEntry` and never imports a game itself. Each game is
imported only when first asked for. A new game registers here and gets the CLI,
tournaments, replay, the viewers and the conformance suite.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import TypeVar, cast

from harness.errors import ConfigError
from harness.protocol import Baseline, GameEntry, HttpApi

_Obs = TypeVar("_Obs")
_RoleObs = TypeVar("_RoleObs")


def _lighthouse() -> GameEntry:
    from baselines.lighthouse import lantern, pilot, scout, silent, wallhug
    from harness.games.lighthouse.codec import LighthouseCodec
    from harness.games.lighthouse.game import (
        KEEPER,
        MAX_SCORE,
        RUNNER,
        SEAT_GROUPS,
        LighthouseRules,
        Observation,
    )
    from harness.games.lighthouse.page import page_html
    from harness.games.lighthouse.report import LighthouseReport
    from harness.games.lighthouse.seat_io import LighthouseSeatIO
    from harness.games.lighthouse.view import LighthouseView

    def role(bot: Baseline[_RoleObs]) -> Baseline[Observation]:
        # A role's players are handed only that role's observations (a seat's role picks
        # both), so a keeper's player may take a keeper's observation alone.
        return cast("Baseline[Observation]", bot)

    return GameEntry(
        name="lighthouse",
        seat_groups=SEAT_GROUPS,
        baselines={
            KEEPER: {"lantern": role(lantern), "silent": role(silent), "pilot": role(pilot)},
            # WALLHUG first: the runners' default and a model runner's fallback
            RUNNER: {"wallhug": role(wallhug), "scout": role(scout)},
        },
        rules=LighthouseRules(),
        seat_io=LighthouseSeatIO(),
        codec=LighthouseCodec(),
        view=LighthouseView(),
        report=LighthouseReport(),
        max_score=MAX_SCORE,
        ceiling="pilot",  # PILOT keeps, WALLHUG runs: the strongest scripted team
        page=page_html,  # a person plays a seat over the step-by-step API (L4)
    ).erase()


def _relayroam() -> GameEntry:
    from baselines.relayroam import greedy, vent_aware_greedy
    from harness.games.relayroam.api import RelayroamApi
    from harness.games.relayroam.codec import RelayroamCodec
    from harness.games.relayroam.game import PLAYER, SEAT_GROUPS, RelayroamRules
    from harness.games.relayroam.report import RelayroamReport
    from harness.games.relayroam.seat_io import RelayroamSeatIO
    from harness.games.relayroam.view import RelayroamView

    return GameEntry(
        name="relayroam",
        seat_groups=SEAT_GROUPS,
        baselines={
            PLAYER: {"greedy": _as_text(greedy), "vent-aware-greedy": _as_text(vent_aware_greedy)}
        },
        rules=RelayroamRules(),
        seat_io=RelayroamSeatIO(),
        codec=RelayroamCodec(),
        view=RelayroamView(),
        report=RelayroamReport(),
        api=RelayroamApi(),
        # no ceiling: the exact optimum is in every results line (score / optimum)
    ).erase()


def _hourloom() -> GameEntry:
    from baselines.hourloom import planner, timestep, timestep_fallback
    from harness.games.hourloom.api import HourloomApi
    from harness.games.hourloom.codec import HourloomCodec
    from harness.games.hourloom.game import PLAYER, SEAT_GROUPS, HourloomRules
    from harness.games.hourloom.report import HourloomReport
    from harness.games.hourloom.seat_io import HourloomSeatIO
    from harness.games.hourloom.view import HourloomView

    rules = HourloomRules()
    return GameEntry(
        name="hourloom",
        seat_groups=SEAT_GROUPS,
        # TIMESTEP first: the default player, and (never ending the run) the fallback (H34)
        baselines={PLAYER: {"timestep": _as_text(timestep), "planner": _as_text(planner)}},
        fallbacks={PLAYER: _as_text(timestep_fallback)},
        rules=rules,
        seat_io=HourloomSeatIO(),
        codec=HourloomCodec(),
        view=HourloomView(),
        report=HourloomReport(),
        api=HourloomApi(),
        chambers=rules,
        ceiling="planner",  # H35: PLANNER replays each chamber's plan, the reference ceiling
    ).erase()


def _as_text(bot: Callable[[_Obs], object]) -> Baseline[_Obs]:
    """A bot that returns an action object, as one that replies with its JSON text."""

    def reply(observation: _Obs) -> str:
        return json.dumps(bot(observation))

    reply.__name__ = reply.__qualname__ = getattr(bot, "__name__", "baseline")
    return reply


#: name -> the function that builds the game's entry.
GAMES: dict[str, Callable[[], GameEntry]] = {
    "lighthouse": _lighthouse,
    "relayroam": _relayroam,
    "hourloom": _hourloom,
}


def game_names() -> tuple[str, ...]:
    """Every hosted game's name."""
    return tuple(GAMES)


@cache
def get_game(name: str) -> GameEntry:
    """The entry of game ``name``; :class:`ConfigError` for an unknown one."""
    build = GAMES.get(name)
    if build is None:
        raise ConfigError(f"game: unknown game {name!r}; choose one of {list(GAMES)}")
    return build()


def http_apis() -> dict[str, HttpApi]:
    """Every game served over HTTP, name -> its API part, in the registry's order."""
    return {name: api for name in GAMES if (api := get_game(name).api) is not None}


__all__ = ["GAMES", "game_names", "get_game", "http_apis"]
