"""Shared helpers: hand-drawn boards and states."""

from __future__ import annotations

import os
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from harness.games.lighthouse.board import Board
from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.state import GameState, new_game
from tests.browser import MISSING, browser_available, browser_required

#: Browser test files and tests left out of this run (no browser here, none required);
#: sets, since a file may be offered to pytest_ignore_collect more than once.
_LEFT_OUT: dict[str, set[str]] = {"files": set(), "tests": set()}


def pytest_configure(config: pytest.Config) -> None:
    # The test run only compares golden files; the variable that once made it rewrite
    # them is refused so that nobody believes it still does.
    if os.environ.get("LIGHTHOUSE_UPDATE_GOLDEN"):
        raise pytest.UsageError(
            "LIGHTHOUSE_UPDATE_GOLDEN is no longer read: the tests never write golden "
            "files. Run `python -m tests.golden.update` (see tests/golden/README.md)."
        )


def _browser_notice() -> bool:
    """Whether browser tests are left out with a notice (none here, and not in CI)."""
    return not browser_available() and not browser_required()


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    # A module that needs a browser is left out whole, to be named in one line at the end.
    if not _browser_notice() or collection_path.suffix != ".py":
        return None
    if not collection_path.name.startswith("test_"):
        return None
    if "require_browser()" not in collection_path.read_text(encoding="utf-8"):
        return None
    _LEFT_OUT["files"].add(str(collection_path))
    return True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # So is every test of another module that uses a browser fixture.
    if not _browser_notice():
        return
    dropped = [item for item in items if "browser" in getattr(item, "fixturenames", ())]
    if dropped:
        _LEFT_OUT["tests"].update(item.nodeid for item in dropped)
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item not in dropped]


def pytest_sessionfinish(session: pytest.Session) -> None:
    # Under pytest-xdist the workers collect: each hands what it left out to the
    # controlling process, which writes the one line.
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["browser_left_out"] = {
            kind: sorted(names) for kind, names in _LEFT_OUT.items()
        }


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    left_out = getattr(node, "workeroutput", {}).get("browser_left_out")
    if left_out:
        # every worker collects every file: the sets keep each name once
        for kind, names in left_out.items():
            _LEFT_OUT[kind].update(names)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    files, tests = _LEFT_OUT["files"], _LEFT_OUT["tests"]
    if files or tests:
        terminalreporter.write_line(
            f"browser tests not run ({len(files)} files and {len(tests)} more tests): "
            f"{MISSING}; CI installs them, and fails without them"
        )


@pytest.fixture(scope="session")
def _state_folders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("state")


@pytest.fixture(autouse=True)
def _private_state_folder(_state_folders: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `lighthouse serve` keeps its signing key in the user's state folder: a test (and
    # the servers it starts) keeps it in a folder of its own, never in the real one.
    # Made inside one folder of the run's: a numbered folder of the run's own
    # (mktemp) scans every one made before it, every test's tmp_path's too.
    monkeypatch.setenv("XDG_STATE_HOME", tempfile.mkdtemp(dir=_state_folders))


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
