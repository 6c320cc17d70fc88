"""Shared helpers: hand-drawn boards and states."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

import pytest

from harness.games.lighthouse.board import Board
from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.state import GameState, new_game


def pytest_configure(config: pytest.Config) -> None:
    # The test run only compares golden files; the variable that once made it rewrite
    # them is refused so that nobody believes it still does.
    if os.environ.get("LIGHTHOUSE_UPDATE_GOLDEN"):
        raise pytest.UsageError(
            "LIGHTHOUSE_UPDATE_GOLDEN is no longer read: the tests never write golden "
            "files. Run `python -m tests.golden.update` (see tests/golden/README.md)."
        )


@pytest.fixture(autouse=True)
def _private_state_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `lighthouse serve` keeps its signing key in the user's state folder: a test (and
    # the servers it starts) keeps it in a folder of its own, never in the real one.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))


#: An open 11 x 9 room: the exit at the top, three keys, starts on row 7.
OPEN_ROOM = """
#####E#####
#.........#
#.K.......#
#.........#
#.....K...#
#.......K.#
#.........#
#1...2...3#
###########
"""


def state_from(rows: str, **config: Any) -> GameState:
    """A tick-0 state on a hand-drawn board; config defaults follow the board's shape."""
    board = Board.from_ascii(rows)
    config.setdefault("width", board.width)
    config.setdefault("height", board.height)
    config.setdefault("key_count", len(board.keys))
    return new_game(LighthouseConfig(**config), board)


def at(state: GameState, **changes: Any) -> GameState:
    """``state`` with fields replaced (a test shortcut for clock, tick, ...)."""
    return replace(state, **changes)


def place(state: GameState, seat: int, pos: tuple[int, int]) -> GameState:
    """``state`` with runner ``seat`` moved to ``pos``."""
    runners = list(state.runners)
    runners[seat - 1] = replace(runners[seat - 1], pos=pos)
    r1, r2, r3 = runners
    return replace(state, runners=(r1, r2, r3))
