"""Hourloom: a descent through chambers in which every finished lap returns as an echo.

The pure rules core: chamber sizes (:mod:`.difficulty`), the SplitMix64 stream
(:mod:`.rng`), the state and its JSON (:mod:`.state`, :mod:`.validate`), one lap turn
(:mod:`.turn`), the one transition ``step`` (:mod:`.rules`), what a player sees
(:mod:`.observe`) and the chamber generator built around a plan (:mod:`.generator`).
Nothing here does I/O, reads a clock or keeps global state.
"""

from harness.games.hourloom.capped import CappedRun, play_capped
from harness.games.hourloom.difficulty import ChamberSpec, chamber_spec
from harness.games.hourloom.events import Event, event_json
from harness.games.hourloom.generator import Generated, GenerationError, generate
from harness.games.hourloom.observe import Observation, observation_json, observe
from harness.games.hourloom.response import init_json, result_json
from harness.games.hourloom.rules import (
    REFUSAL_REASONS,
    Action,
    RefusalReason,
    StepResult,
    legal_actions,
    new_game,
    step,
)
from harness.games.hourloom.state import Chamber, Flux, Gate, HourloomStateError, State, state_json
from harness.games.hourloom.validate import state_from_json, state_from_text

__all__ = [
    "REFUSAL_REASONS",
    "Action",
    "CappedRun",
    "Chamber",
    "ChamberSpec",
    "Event",
    "Flux",
    "Gate",
    "Generated",
    "GenerationError",
    "HourloomStateError",
    "Observation",
    "RefusalReason",
    "State",
    "StepResult",
    "chamber_spec",
    "event_json",
    "generate",
    "init_json",
    "legal_actions",
    "new_game",
    "observation_json",
    "observe",
    "play_capped",
    "result_json",
    "state_from_json",
    "state_from_text",
    "state_json",
    "step",
]
