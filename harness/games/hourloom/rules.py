"""Hourloom's one transition, ``step(state, action)`` (decisions H5, H6, H20-H28).

Every action goes through :func:`step`. A legal one returns a new state and the
events it caused; a refused one returns the very state object passed in with a reason
(first match wins, H27), a message and the legal actions. Only init and DESCEND draw
from the stream (they build a chamber); lap turns, END_RUN and refusals never do.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Literal, get_args

from harness.errors import ConfigError
from harness.games.hourloom.events import ChamberStarted, Event, RunEnded
from harness.games.hourloom.generator import generate
from harness.games.hourloom.grid import DIRECTIONS, Direction, describe
from harness.games.hourloom.rng import MAX_SEED
from harness.games.hourloom.state import State
from harness.games.hourloom.turn import YOU, Block, bodies_of, chamber_start, move_block, play_turn
from harness.protocol import steps
from harness.protocol.steps import Action
from harness.text import show_value

ActionType = Literal["MOVE", "WAIT", "DESCEND", "END_RUN"]
RefusalReason = Literal[
    "unknown_action",
    "run_ended",
    "bad_direction",
    "lap_not_running",
    "chamber_not_sealed",
    "edge_of_chamber",
    "wall",
    "echo_in_the_way",
    "gate_shut",
]

ACTION_TYPES: tuple[ActionType, ...] = get_args(ActionType)
#: Every refusal reason, in the order H27 checks them.
REFUSAL_REASONS: tuple[RefusalReason, ...] = get_args(RefusalReason)
WAIT: Action = {"type": "WAIT"}
DESCEND: Action = {"type": "DESCEND"}
END_RUN: Action = {"type": "END_RUN"}


class StepResult(steps.StepResult[State, Event, RefusalReason]):
    """What one :func:`step` returns (H28), with the state after it."""

    @property
    def game_over(self) -> bool:
        """Whether the run is over after the action."""
        return self.state.phase == "over"


def new_game(seed: int) -> State:
    """The first state of the run of ``seed``: rngState starts at the seed (H3) and
    chamber 1 is drawn from it (H5)."""
    # bool is an int subclass, but true is not a seed.
    if type(seed) is not int or not 0 <= seed <= MAX_SEED:
        raise ConfigError(f"seed must be an integer 0..{MAX_SEED}, got {seed!r}")
    built = generate(1, seed)
    return chamber_start(seed, built.rng_state, built.chamber, 0)


def move(direction: Direction) -> Action:
    """The MOVE action toward ``direction``."""
    return {"type": "MOVE", "dir": direction}


def legal_actions(state: State) -> list[Action]:
    """H28: in a lap the legal MOVEs in N, E, S, W order, then WAIT and END_RUN;
    sealed: DESCEND and END_RUN; over: none."""
    if state.phase == "over":
        return []
    if state.phase == "sealed":
        return [dict(DESCEND), dict(END_RUN)]
    bodies = bodies_of(state.player, state.echoes)
    moves = [
        move(d)
        for d in DIRECTIONS
        if move_block(state.chamber, state.player, d, YOU, bodies)[0] is None
    ]
    return [*moves, dict(WAIT), dict(END_RUN)]


def step(state: State, action: object) -> StepResult:
    """Apply ``action`` (any value: it comes straight from JSON) to ``state``."""
    refusal = refusal_of(state, action)
    if refusal is not None:
        reason, message = refusal
        return StepResult(False, reason, message, (), tuple(legal_actions(state)), state)
    assert isinstance(action, dict)  # refusal_of has checked the grammar
    kind = action["type"]
    if kind == "END_RUN":
        after = replace(state, phase="over", end_reason="end_run")
        events: tuple[Event, ...] = (RunEnded(after.score),)
        message = f"run ended by END_RUN with score {after.score}"
    elif kind == "DESCEND":
        number = state.chamber.number + 1
        built = generate(number, state.rng_state)
        after = chamber_start(state.seed, built.rng_state, built.chamber, state.score)
        c = after.chamber
        events = (ChamberStarted(number, c.width, c.laps, c.multiplier_pct, after.sand),)
        message = (
            f"descended to chamber {number}: {c.width} x {c.height}, {c.laps} laps, "
            f"multiplier {c.multiplier_pct}%, lap 1 sand {after.sand}"
        )
    else:
        direction: Direction | None = action["dir"] if kind == "MOVE" else None
        after, events = play_turn(state, direction)
        message = _turn_message(after, direction)
    return StepResult(True, None, message, events, tuple(legal_actions(after)), after)


def refusal_of(state: State, action: object) -> tuple[RefusalReason, str] | None:
    """The first H27 refusal that applies to ``action`` with its message, or None."""
    types = ", ".join(ACTION_TYPES)
    if not isinstance(action, dict):
        return (
            "unknown_action",
            f"the action is {show_value(action)}, not a JSON object. {_fix(state)}",
        )
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        return (
            "unknown_action",
            f'"type" is {show_value(kind)}; it must be exactly one of {types}. {_fix(state)}',
        )
    direction = action.get("dir")
    if kind == "MOVE" and not isinstance(direction, str):
        return (
            "unknown_action",
            f'a MOVE needs "dir" as a string (N, E, S or W), got {show_value(direction)}. '
            f"{_fix(state)}",
        )
    if state.phase == "over":
        reason = state.end_reason or "over"
        return (
            "run_ended",
            f"the run is over ({reason}) with score {state.score}; no action is legal.",
        )
    if kind == "MOVE" and direction not in DIRECTIONS:
        return (
            "bad_direction",
            f'"dir" is {show_value(direction)}; it must be N, E, S or W (N is toward row 0). '
            f"{_fix(state)}",
        )
    if state.phase == "sealed" and kind in ("MOVE", "WAIT"):
        return (
            "lap_not_running",
            f"chamber {state.chamber.number} is sealed, so no lap is running; DESCEND to go "
            f"deeper or END_RUN to keep the score. {_fix(state)}",
        )
    if state.phase == "lap" and kind == "DESCEND":
        return (
            "chamber_not_sealed",
            f"lap {state.lap} of {state.chamber.laps} is still running; DESCEND is legal only "
            f"once the last lap is complete. {_fix(state)}",
        )
    if kind == "MOVE":
        assert direction in DIRECTIONS
        return _blocked(state, direction)
    return None


def _blocked(state: State, direction: Direction) -> tuple[RefusalReason, str] | None:
    chamber = state.chamber
    bodies = bodies_of(state.player, state.echoes)
    block, target = move_block(chamber, state.player, direction, YOU, bodies)
    if block is None:
        return None
    here = describe(state.player, chamber.width)
    what: dict[Block, str] = {
        "edge_of_chamber": f"MOVE {direction} from {here} would leave the chamber",
        "wall": f"tile {target} {direction} of you is a wall",
        "echo_in_the_way": f"an echo stands on tile {target}, {direction} of you",
        "gate_shut": (
            f"the gate on tile {target} is shut for you: every plate needs a body other than yours"
        ),
    }
    return block, f"{what[block]}; the move is refused (no sand, no turn). {_fix(state)}"


def _turn_message(state: State, direction: Direction | None) -> str:
    did = f"moved {direction}" if direction is not None else "waited"
    where = describe(state.player, state.chamber.width)
    if state.phase == "sealed":
        return f"{did}; chamber {state.chamber.number} sealed, score {state.score}"
    if state.phase == "over":
        return f"{did}; the sandglass is empty: the run is over with score {state.score}"
    return (
        f"{did}; lap {state.lap}, turn {state.turn}, you on {where}, sand {state.sand}, "
        f"score {state.score}"
    )


def _fix(state: State) -> str:
    legal = legal_actions(state)
    if not legal:
        return "The run is over: no action is legal."
    return "Legal now: " + " ".join(json.dumps(a, separators=(",", ":")) for a in legal)


__all__ = [
    "ACTION_TYPES",
    "DESCEND",
    "END_RUN",
    "REFUSAL_REASONS",
    "WAIT",
    "Action",
    "ActionType",
    "RefusalReason",
    "StepResult",
    "legal_actions",
    "move",
    "new_game",
    "refusal_of",
    "step",
]
