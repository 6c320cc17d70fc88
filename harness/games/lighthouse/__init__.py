"""Lighthouse: one keeper who sees the flooded maze, three runners who see 3 x 3.

The pure rules core: board generation (:mod:`.board`), the tide (:mod:`.tide`),
state (:mod:`.state`), the twelve-step tick and scoring (:mod:`.rules`), what each
seat sees (:mod:`.observe`) and reply parsing (:mod:`.replies`). Nothing here does
I/O, reads a clock or keeps global state.
"""

from harness.games.lighthouse.board import Board, generate_board
from harness.games.lighthouse.config import LighthouseConfig, load_config
from harness.games.lighthouse.observe import (
    KeeperObservation,
    RunnerObservation,
    observe_keeper,
    observe_runner,
    render_keeper,
    render_runner,
)
from harness.games.lighthouse.replies import ParseFailure, parse_keeper_reply, parse_runner_reply
from harness.games.lighthouse.rules import Results, TickEvents, resolve_tick, results, transmits
from harness.games.lighthouse.state import (
    GameState,
    KeeperDecision,
    Move,
    Reason,
    RunnerDecision,
    RunnerStatus,
    new_game,
)
from harness.games.lighthouse.tide import Tide

__all__ = [
    "Board",
    "GameState",
    "KeeperDecision",
    "KeeperObservation",
    "LighthouseConfig",
    "Move",
    "ParseFailure",
    "Reason",
    "Results",
    "RunnerDecision",
    "RunnerObservation",
    "RunnerStatus",
    "TickEvents",
    "Tide",
    "generate_board",
    "load_config",
    "new_game",
    "observe_keeper",
    "observe_runner",
    "parse_keeper_reply",
    "parse_runner_reply",
    "render_keeper",
    "render_runner",
    "resolve_tick",
    "results",
    "transmits",
]
