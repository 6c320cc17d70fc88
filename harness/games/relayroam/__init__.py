"""Relayroam: repair every relay of a sky-station chamber, then enter the open exit.

The pure rules core: the three layouts and their reflection (:mod:`.layouts`), the
SplitMix64 generator of chambers 4+ (:mod:`.rng`), the state and its canonical JSON
(:mod:`.state`), the one transition ``step`` (:mod:`.rules`), what a player sees
(:mod:`.observe`), reply parsing (:mod:`.actions`) and the exact chamber solver
(:mod:`.solver`). Nothing here does I/O, reads a clock or keeps global state.
"""

from harness.games.relayroam.actions import parse_action
from harness.games.relayroam.layouts import LAYOUTS, Layout, layout_for
from harness.games.relayroam.observe import Observation, observation_json, observe, render_text
from harness.games.relayroam.rules import (
    Action,
    Event,
    StepResult,
    event_json,
    legal_actions,
    new_game,
    result_json,
    step,
)
from harness.games.relayroam.solver import ChamberOptimum, episode_optimum, solve_chamber
from harness.games.relayroam.state import (
    State,
    StateError,
    chamber_setup,
    from_canonical_json,
    to_canonical_json,
)

__all__ = [
    "LAYOUTS",
    "Action",
    "ChamberOptimum",
    "Event",
    "Layout",
    "Observation",
    "State",
    "StateError",
    "StepResult",
    "chamber_setup",
    "episode_optimum",
    "event_json",
    "from_canonical_json",
    "layout_for",
    "legal_actions",
    "new_game",
    "observation_json",
    "observe",
    "parse_action",
    "render_text",
    "result_json",
    "solve_chamber",
    "step",
    "to_canonical_json",
]
