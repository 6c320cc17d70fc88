"""The games the harness hosts, by name. Each is imported only when asked for."""

from __future__ import annotations

import importlib
from typing import Any

from harness.errors import ConfigError
from harness.game import Game

#: name -> "module:Class" of the game's adapter.
GAMES: dict[str, str] = {
    "lighthouse": "harness.games.lighthouse.game:LighthouseGame",
    "relayroam": "harness.games.relayroam.game:RelayroamGame",
}


def game_names() -> tuple[str, ...]:
    """Every hosted game's name."""
    return tuple(GAMES)


def get_game(name: str) -> Game[Any]:
    """The adapter of game ``name``; :class:`ConfigError` for an unknown one."""
    target = GAMES.get(name)
    if target is None:
        raise ConfigError(f"game: unknown game {name!r}; choose one of {list(GAMES)}")
    module, _, cls = target.partition(":")
    game: Game[Any] = getattr(importlib.import_module(module), cls)()
    return game


__all__ = ["GAMES", "game_names", "get_game"]
