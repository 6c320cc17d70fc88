"""Relayroam's one deterministic transition: ``step(state, action)`` (RR7-RR15).

Every action, valid or not, goes through :func:`step`. A valid one returns the next
state and the events it caused in the rules' atomic order (RR8); an invalid one is
refused with a reason, a teaching message and the exact legal actions, and returns
the very same state object, so nothing (not even the RNG cursor) changes (RR14).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Literal, get_args

from harness.errors import ConfigError
from harness.games.relayroam.layouts import HEIGHT, NEIGHBOUR_STEPS, WIDTH, ObjectKind, Pos
from harness.games.relayroam.rng import MAX_SEED
from harness.games.relayroam.state import (
    BATTERY_GAIN,
    CHARGE_CAP,
    CHARGE_POINTS,
    CLEAR_POINTS,
    HELPER_POINTS,
    NO_SHOCK_BONUS,
    RELAY_POINTS,
    REPAIR_COST,
    SHOCK_COST,
    STEP_COST,
    VENT_PERIOD,
    EndReason,
    Phase,
    State,
    chamber_start,
)
from harness.models import JsonObject
from harness.protocol import steps
from harness.protocol.events import GameEvent, event_json
from harness.protocol.steps import Action
from harness.text import show_value

Direction = Literal["up", "right", "down", "left"]
ActionType = Literal["move", "wait", "next", "bank"]
RefusalReason = Literal[
    "malformed_action",
    "unknown_field",
    "unknown_direction",
    "game_ended",
    "wrong_phase",
    "off_grid",
    "wall",
]

#: The rules' fixed move order (RR13): up, right, down, left.
DIRECTIONS: tuple[Direction, ...] = get_args(Direction)
ACTION_TYPES: tuple[ActionType, ...] = get_args(ActionType)
#: Refusal reasons in the order they are checked; the first match wins (RR12).
REFUSAL_REASONS: tuple[RefusalReason, ...] = get_args(RefusalReason)
#: Directions are never renamed by reflection: ``left`` is always x - 1 (RR5).
DELTAS: dict[Direction, Pos] = dict(zip(DIRECTIONS, NEIGHBOUR_STEPS, strict=True))
#: The fields each action type allows (the action grammar's additionalProperties: false).
ALLOWED_FIELDS: dict[ActionType, tuple[str, ...]] = {
    "move": ("type", "direction"),
    "wait": ("type",),
    "next": ("type",),
    "bank": ("type",),
}


# Events (RR15), each a typed record whose JSON type is its class name in lowerCamel;
# ``event_json`` turns one into its JSON object.


class _AtFeature(GameEvent):
    """What an event at a feature names first: the feature's id and its tile."""

    id: str
    x: int
    y: int


class RelayRepaired(_AtFeature):
    """A relay's first entry repaired it (``cost`` extra charge, ``points`` scored)."""

    points: int = RELAY_POINTS
    cost: int = REPAIR_COST


class ExitOpened(GameEvent):
    """The last relay was repaired: the exit at (x, y) is open from now on."""

    x: int
    y: int


class HelperRescued(_AtFeature):
    """A helper's first entry rescued it."""

    points: int = HELPER_POINTS


class BatteryUsed(_AtFeature):
    """A battery's first entry; ``gained`` is the charge it actually added under the cap."""

    gained: int


class Shock(_AtFeature):
    """The action ended on vent ``id`` as it sparked."""

    cost: int = SHOCK_COST


class Cleared(GameEvent):
    """The open exit was entered: the chamber is clear and ``points`` were awarded."""

    chamber: int
    points: int
    remaining_charge: int
    no_shock_bonus: bool


class Depleted(GameEvent):
    """Charge reached zero without a clear: the run has ended."""

    chamber: int


class Banked(GameEvent):
    """The player banked: the run has ended keeping ``score``."""

    score: int


class ChamberStarted(GameEvent):
    """``next`` built chamber ``chamber`` on ``layout`` with these vent offsets."""

    chamber: int
    layout: str
    reflected: bool
    vent_offsets: tuple[int, ...]


Event = (
    RelayRepaired
    | ExitOpened
    | HelperRescued
    | BatteryUsed
    | Shock
    | Cleared
    | Depleted
    | Banked
    | ChamberStarted
)


class StepResult(steps.StepResult[State, Event, RefusalReason]):
    """What one call of :func:`step` returns (RR15), with the state after it.

    Phase, end reason, charge and turn, which RR15 publishes beside the score, are
    the state's own, read through it.
    """

    @property
    def phase(self) -> Phase:
        """The phase after the action."""
        return self.state.phase

    @property
    def end_reason(self) -> EndReason | None:
        """Why the run ended, once it has."""
        return self.state.end_reason

    @property
    def charge(self) -> int:
        """The charge after the action."""
        return self.state.charge

    @property
    def turn(self) -> int:
        """The chamber's turn after the action."""
        return self.state.turn


def result_json(result: StepResult) -> JsonObject:
    """``result`` in the RR15 JSON shape (the state itself travels as a token)."""
    return {
        "ok": result.ok,
        "reason": result.reason,
        "message": result.message,
        "events": [event_json(e) for e in result.events],
        "legalActions": [dict(a) for a in result.legal_actions],
        "score": result.score,
        "phase": result.phase,
        "endReason": result.end_reason,
        "charge": result.charge,
        "turn": result.turn,
    }


def new_game(seed: int) -> State:
    """The first state of the game of ``seed``: chamber 1, playing. It draws nothing."""
    # bool is an int subclass, but true is not a seed.
    if type(seed) is not int or not 0 <= seed <= MAX_SEED:
        raise ConfigError(f"seed must be an integer 0..{MAX_SEED}, got {seed!r}")
    return chamber_start(seed, 1)


def legal_actions(state: State) -> list[Action]:
    """The exact, ordered legal actions (RR13).

    Playing: a move onto each in-grid floor neighbour in the order up, right, down,
    left (moves that will deplete included), then wait, then bank. Chamber-clear:
    next, then bank. Ended: none.
    """
    if state.phase == "ended":
        return []
    if state.phase == "chamber-clear":
        return [{"type": "next"}, {"type": "bank"}]
    layout = state.layout
    actions: list[Action] = [
        {"type": "move", "direction": d}
        for d in DIRECTIONS
        if layout.is_floor(_neighbour(state.player, d))
    ]
    actions.append({"type": "wait"})
    actions.append({"type": "bank"})
    return actions


def step(state: State, action: object) -> StepResult:
    """Apply ``action`` (any value: it comes straight from JSON) to ``state``."""
    refusal = _refusal(state, action)
    if refusal is not None:
        reason, message = refusal
        return _result(state, (), message, reason=reason)
    assert isinstance(action, dict)  # _refusal has checked the whole grammar
    kind = action["type"]
    if kind == "bank":
        return _bank(state)
    if kind == "next":
        return _next(state)
    return _act(state, action.get("direction"))


# Longer than the harness's 80-line bound on purpose: it mirrors RR8's atomic order
# (docs/relayroam.md) line by line, which a split would scatter.
def _act(state: State, direction: Direction | None) -> StepResult:
    """A move (``direction`` set) or a wait, in the atomic order of RR8."""
    layout = state.layout
    moving = direction is not None
    dest = _neighbour(state.player, direction) if direction is not None else state.player
    charge = state.charge - STEP_COST
    score = state.score
    rescued = state.total_rescued
    used_relays, used_helpers, used_batteries = (
        state.used_relays,
        state.used_helpers,
        state.used_batteries,
    )
    events: list[Event] = []
    x, y = dest

    # One-time repair or pickup, on movement only (waiting is not an entry).
    feature = layout.object_at(dest) if moving else None
    if feature is not None and not state.is_used(feature.id):
        before = charge
        charge, points = entry_effect(feature.kind, charge)
        score += points  # a repair scores even if it empties the charge
        if feature.kind == "relay":
            used_relays = used_relays | {feature.id}
            events.append(RelayRepaired(feature.id, x, y))
            if len(used_relays) == len(layout.relays):
                ex, ey = layout.exit
                events.append(ExitOpened(ex, ey))
        elif feature.kind == "helper":
            rescued += 1
            used_helpers = used_helpers | {feature.id}
            events.append(HelperRescued(feature.id, x, y))
        else:
            events.append(BatteryUsed(feature.id, x, y, gained=charge - before))
            used_batteries = used_batteries | {feature.id}

    # Sparks are judged on the turn before the action; then the turn advances.
    vent = layout.vent_at(dest)
    sparks = vent is not None and sparks_on(state.turn, state.vent_offsets[vent.index])
    turn = state.turn + 1
    shocks = state.chamber_shock_count
    if vent is not None and sparks:
        charge -= SHOCK_COST
        shocks += 1
        events.append(Shock(vent.id, x, y))
    charge = max(0, charge)

    phase: Phase = "playing"
    end_reason: EndReason | None = None
    cleared = state.cleared_chamber_count
    exit_open = len(used_relays) == len(layout.relays)
    if moving and dest == layout.exit and exit_open:
        # Clearing is checked before depletion: exactly 0 charge still clears.
        bonus = shocks == 0
        points = clear_points(charge, bonus)
        score += points
        cleared += 1
        phase = "chamber-clear"
        events.append(Cleared(state.chamber, points, charge, bonus))
    elif charge == 0:
        phase = "ended"
        end_reason = "depleted"
        events.append(Depleted(state.chamber))

    after = replace(
        state,
        phase=phase,
        end_reason=end_reason,
        charge=charge,
        turn=turn,
        chamber_shock_count=shocks,
        score=score,
        total_rescued=rescued,
        cleared_chamber_count=cleared,
        player=dest,
        used_relays=used_relays,
        used_helpers=used_helpers,
        used_batteries=used_batteries,
    )
    did = f"moved {direction} to x={x}, y={y}" if direction is not None else "waited"
    return _result(after, tuple(events), f"{did}; {_summary(after, events)}")


def _bank(state: State) -> StepResult:
    """End the run keeping every point; turn and charge stay as they are (RR11)."""
    after = replace(state, phase="ended", end_reason="banked")
    return _result(
        after, (Banked(after.score),), f"banked: the run has ended with score {after.score}"
    )


def _next(state: State) -> StepResult:
    """Build the next chamber (RR11); from chamber 4 it draws reflection, then offsets.

    :func:`chamber_start` makes those draws from the cursor its closed form gives,
    which is the state's own ``rng_cursor`` (``state_problem`` refuses any other), so
    they are the draws RR10 makes from ``rngCursor``.
    """
    chamber = state.chamber + 1
    after = chamber_start(
        state.seed,
        chamber,
        score=state.score,
        total_rescued=state.total_rescued,
        cleared_chamber_count=state.cleared_chamber_count,
    )
    layout = after.layout
    event = ChamberStarted(chamber, layout.letter, after.reflected, after.vent_offsets)
    facing = ", reflected" if after.reflected else ""
    message = (
        f'chamber {chamber} started: layout {layout.letter} "{layout.name}"{facing}, '
        f"charge {after.charge}, vent offsets {list(after.vent_offsets)}"
    )
    return _result(after, (event,), message)


def entry_effect(kind: ObjectKind, charge: int) -> tuple[int, int]:
    """The charge after, and the points of, a first entry onto an object of ``kind``
    with ``charge`` left once the step is paid (RR7, RR8): a relay costs its repair and
    scores, a helper scores, a battery adds charge capped at that moment."""
    if kind == "relay":
        return charge - REPAIR_COST, RELAY_POINTS
    if kind == "helper":
        return charge, HELPER_POINTS
    return min(CHARGE_CAP, charge + BATTERY_GAIN), 0


def clear_points(charge: int, no_shock: bool) -> int:
    """What a clear with ``charge`` remaining awards, with the bonus of a chamber
    cleared without a shock (RR8)."""
    return CLEAR_POINTS + CHARGE_POINTS * charge + (NO_SHOCK_BONUS if no_shock else 0)


def sparks_on(turn: int, offset: int) -> bool:
    """Whether a vent with ``offset`` sparks on the action taken at ``turn`` (RR8)."""
    return (turn + 1 + offset) % VENT_PERIOD == 0


def actions_until_spark(turn: int, offset: int) -> int:
    """How many actions from ``turn`` until the vent sparks: 1 means the next one."""
    return (-(turn + offset) - 1) % VENT_PERIOD + 1


# Refusals (RR12), checked in order: the first that applies wins.


def _refusal(state: State, action: object) -> tuple[RefusalReason, str] | None:
    """The first reason of RR12 that refuses ``action`` in ``state``, with its message:
    the action's grammar, then the phase, then where a move would go."""
    # Those checks pass exactly the legal actions (RR13), so a legal one skips them and
    # the messages, whose legal-action list is the costly part of a valid step.
    if isinstance(action, dict) and action in legal_actions(state):
        return None
    fix = _fix(state)
    refused = _grammar_refusal(action, fix)
    if refused is not None or not isinstance(action, dict):
        return refused
    return _phase_refusal(state, action, fix) or _move_refusal(state, action, fix)


def _grammar_refusal(action: object, fix: str) -> tuple[RefusalReason, str] | None:
    """``malformed_action``, ``unknown_field`` or ``unknown_direction``, in that order."""
    types = ", ".join(f'"{t}"' for t in ACTION_TYPES)
    directions = ", ".join(f'"{d}"' for d in DIRECTIONS)
    if not isinstance(action, dict):
        return (
            "malformed_action",
            f"the action is {show_value(action)}, which is not a JSON object; send an object "
            f'like {{"type":"wait"}}. {fix}',
        )
    if "type" not in action:
        return (
            "malformed_action",
            f'the action {show_value(action)} has no "type" field; set "type" to one of '
            f"{types}. {fix}",
        )
    kind = action["type"]
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        return (
            "malformed_action",
            f'"type" is {show_value(kind)}, which is not an action type; set "type" to exactly one '
            f"of {types} (lower case). {fix}",
        )
    if kind == "move" and "direction" not in action:
        return (
            "malformed_action",
            f'a move needs a "direction"; add "direction" set to one of {directions}. {fix}',
        )
    if kind == "move" and not isinstance(action["direction"], str):
        return (
            "malformed_action",
            f'"direction" is {show_value(action["direction"])}, not a string; set "direction" to '
            f"one of {directions}. {fix}",
        )
    allowed = ALLOWED_FIELDS[kind]
    for key in action:
        if key not in allowed:
            shown = json.dumps(key) if isinstance(key, str) else repr(key)
            only = " and ".join(f'"{a}"' for a in allowed)
            return (
                "unknown_field",
                f"{shown} (set to {show_value(action[key])}) is not a field of a {kind} action, "
                f"which has only {only}; remove {shown}. {fix}",
            )
    if kind == "move" and action["direction"] not in DIRECTIONS:
        return (
            "unknown_direction",
            f'"direction" is {show_value(action["direction"])}, which is not a direction; use '
            f"exactly one of {directions} (lower case). {fix}",
        )
    return None


def _phase_refusal(
    state: State, action: Mapping[str, object], fix: str
) -> tuple[RefusalReason, str] | None:
    """``game_ended`` or ``wrong_phase`` for an action whose grammar is right."""
    kind = action["type"]
    if state.phase == "ended":
        return (
            "game_ended",
            f'"type" is "{kind}" but the run has already ended ({state.end_reason}) with '
            f"score {state.score}; an ended run takes no actions (legalActions is empty).",
        )
    if state.phase == "chamber-clear" and kind in ("move", "wait"):
        return (
            "wrong_phase",
            f'"type" is "{kind}" but chamber {state.chamber} is already clear, so moving and '
            'waiting are over; send {"type":"next"} to continue or {"type":"bank"} to finish.',
        )
    if state.phase == "playing" and kind == "next":
        return (
            "wrong_phase",
            f'"type" is "next" but chamber {state.chamber} is still being played; next is '
            "legal only once the chamber is clear (repair every relay, then enter the open "
            f"exit). {fix}",
        )
    return None


def _move_refusal(
    state: State, action: Mapping[str, object], fix: str
) -> tuple[RefusalReason, str] | None:
    """``off_grid`` or ``wall`` for a move in a phase that takes it."""
    if action["type"] != "move":
        return None
    # one of DIRECTIONS: the grammar was checked first
    direction = next(d for d in DIRECTIONS if d == action["direction"])
    x, y = state.player
    tx, ty = _neighbour(state.player, direction)
    if not state.layout.in_grid((tx, ty)):
        return (
            "off_grid",
            f'"direction" is "{direction}", but moving {direction} from x={x}, y={y} '
            f"would leave the {WIDTH} x {HEIGHT} grid; choose another direction. {fix}",
        )
    if not state.layout.is_floor((tx, ty)):
        return (
            "wall",
            f'"direction" is "{direction}", but x={tx}, y={ty} ({direction} of you at '
            f"x={x}, y={y}) is a wall; choose another direction. {fix}",
        )
    return None


def _fix(state: State) -> str:
    legal = legal_actions(state)
    if not legal:
        return "The run has ended: no action is legal."
    return "Legal now: " + " ".join(_compact(a) for a in legal)


# Helpers.


def _result(
    state: State,
    events: tuple[Event, ...],
    message: str,
    *,
    reason: RefusalReason | None = None,
) -> StepResult:
    return StepResult(reason is None, reason, message, events, tuple(legal_actions(state)), state)


def _summary(state: State, events: list[Event]) -> str:
    parts = []
    for e in events:
        if isinstance(e, RelayRepaired):
            parts.append(f"repaired relay {e.id} (+{e.points} points, -{e.cost} charge)")
        elif isinstance(e, ExitOpened):
            parts.append(f"every relay is repaired: the exit at x={e.x}, y={e.y} is open")
        elif isinstance(e, HelperRescued):
            parts.append(f"rescued helper {e.id} (+{e.points} points)")
        elif isinstance(e, BatteryUsed):
            parts.append(f"used battery {e.id} (+{e.gained} charge)")
        elif isinstance(e, Shock):
            parts.append(f"shocked by vent {e.id} (-{e.cost} charge)")
        elif isinstance(e, Cleared):
            parts.append(f"chamber {e.chamber} clear (+{e.points} points)")
        elif isinstance(e, Depleted):
            parts.append("charge is empty: the run has ended")
    parts.append(f"charge {state.charge}, turn {state.turn}, score {state.score}")
    return "; ".join(parts)


def _neighbour(pos: Pos, direction: Direction) -> Pos:
    dx, dy = DELTAS[direction]
    return (pos[0] + dx, pos[1] + dy)


def _compact(action: Action) -> str:
    return json.dumps(action, separators=(",", ":"))


__all__ = [
    "ACTION_TYPES",
    "ALLOWED_FIELDS",
    "DELTAS",
    "DIRECTIONS",
    "REFUSAL_REASONS",
    "Action",
    "ActionType",
    "Banked",
    "BatteryUsed",
    "ChamberStarted",
    "Cleared",
    "Depleted",
    "Direction",
    "Event",
    "ExitOpened",
    "HelperRescued",
    "RefusalReason",
    "RelayRepaired",
    "Shock",
    "StepResult",
    "actions_until_spark",
    "clear_points",
    "entry_effect",
    "event_json",
    "legal_actions",
    "new_game",
    "result_json",
    "sparks_on",
    "step",
]
