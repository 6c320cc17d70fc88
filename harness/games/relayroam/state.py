"""Relayroam's immutable game state, its constants and its canonical JSON (RR1, RR2, RR10).

A state holds numbers, IDs and the seed, never a map: the layout is derived from
``(chamber, reflected)`` (RR2). Its canonical JSON (sorted keys, compact separators,
ASCII) uses the rules' camelCase names (RR1) and is what a state token signs (RR17);
:func:`from_canonical_json` checks every field before it trusts one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, get_args

from harness.errors import RecordError
from harness.games.relayroam.layouts import Layout, Pos, layout_for
from harness.games.relayroam.rng import MAX_SEED, output
from harness.json_reply import StrictJsonError, a_json_type, strict_loads
from harness.models import JsonObject
from harness.text import show_value

Phase = Literal["playing", "chamber-clear", "ended"]
EndReason = Literal["banked", "depleted"]
PHASES: tuple[Phase, ...] = get_args(Phase)
END_REASONS: tuple[EndReason, ...] = get_args(EndReason)

#: Every chamber starts with this much charge (rules, "MOVE AND WAIT").
CHARGE_START = 28
#: A battery never lifts charge above this (rules; RR7).
CHARGE_CAP = 32
#: Base cost of every valid move or wait.
STEP_COST = 1
#: Extra cost of a relay's first entry (its repair).
REPAIR_COST = 2
#: Charge a battery's first entry adds, before the cap.
BATTERY_GAIN = 6
#: Extra cost of ending an action on a sparking vent.
SHOCK_COST = 3
#: Every vent sparks once every this many actions.
VENT_PERIOD = 3
RELAY_POINTS = 60
HELPER_POINTS = 80
#: A clear awards CLEAR_POINTS + CHARGE_POINTS * remainingCharge (+ NO_SHOCK_BONUS).
CLEAR_POINTS = 150
CHARGE_POINTS = 3
NO_SHOCK_BONUS = 75

#: The canonical JSON's keys, in the rules' camelCase (RR1).
STATE_KEYS = frozenset(
    {
        "seed",
        "rngCursor",
        "chamber",
        "reflected",
        "ventOffsets",
        "phase",
        "endReason",
        "charge",
        "turn",
        "chamberShockCount",
        "score",
        "totalRescued",
        "clearedChamberCount",
        "player",
        "usedRelays",
        "usedHelpers",
        "usedBatteries",
    }
)


#: messages quote values in ASCII: a state's strings may hold anything
_show = partial(show_value, ascii_only=True)


class StateError(RecordError):
    """A serialized state is malformed or impossible; the message says what is wrong."""


@dataclass(frozen=True)
class ChamberSetup:
    """How chamber ``chamber`` is set: its orientation, its vent offsets in ID order,
    and the RNG cursor once its draws are made (unchanged for chambers 1-3)."""

    chamber: int
    reflected: bool
    vent_offsets: tuple[int, ...]
    rng_cursor: int


@dataclass(frozen=True)
class State:
    """One Relayroam game state. Field names are the rules' names in snake_case.

    ``chamber`` is 1-based; ``turn``, ``charge`` and ``chamber_shock_count`` belong to
    the current chamber; ``score``, ``total_rescued`` and ``cleared_chamber_count``
    run across the whole game. The used-ID sets name the current chamber's objects.
    """

    seed: int
    rng_cursor: int
    chamber: int
    reflected: bool
    vent_offsets: tuple[int, ...]
    phase: Phase
    end_reason: EndReason | None
    charge: int
    turn: int
    chamber_shock_count: int
    score: int
    total_rescued: int
    cleared_chamber_count: int
    player: Pos
    used_relays: frozenset[str]
    used_helpers: frozenset[str]
    used_batteries: frozenset[str]

    @property
    def layout(self) -> Layout:
        """The current chamber's layout, derived from ``(chamber, reflected)`` (RR2)."""
        return layout_for(self.chamber, self.reflected)

    @property
    def exit_open(self) -> bool:
        """Whether every relay of the chamber is repaired (the exit is then open)."""
        return len(self.used_relays) == len(self.layout.relays)

    def is_used(self, feature_id: str) -> bool:
        """Whether the relay, helper or battery ``feature_id`` was used this chamber."""
        return (
            feature_id in self.used_relays
            or feature_id in self.used_helpers
            or feature_id in self.used_batteries
        )


def rr9_offsets(chamber: int, vent_count: int) -> tuple[int, ...]:
    """Vent offsets of chambers 1-3 (RR9): all 0, then ``i % 2``, then ``i % 3``."""
    if not 1 <= chamber <= 3:
        raise ValueError(f"RR9 fixes the offsets of chambers 1-3 only, not chamber {chamber}")
    return tuple(0 if chamber == 1 else i % chamber for i in range(vent_count))


def _draws_of(chamber: int) -> int:
    """How many RNG outputs entering ``chamber`` uses: one per vent plus reflection."""
    return 0 if chamber <= 3 else 1 + len(layout_for(chamber, False).vents)


def rng_cursor_before(chamber: int) -> int:
    """The RNG cursor just before entering ``chamber`` (closed form, so O(1) for any n)."""
    if chamber <= 4:
        return 0
    per_cycle = [_draws_of(c) for c in (4, 5, 6)]
    done = chamber - 4  # chambers 4 .. chamber - 1 have drawn
    full, partial = divmod(done, 3)
    return full * sum(per_cycle) + sum(per_cycle[:partial])


def chamber_setup(seed: int, chamber: int) -> ChamberSetup:
    """Orientation and vent offsets of ``chamber`` for ``seed`` (RR9, RR10).

    Chambers 1-3 are original orientation with RR9 offsets and draw nothing. From
    chamber 4 the first draw decides reflection (``u % 2 == 1``) and then each vent
    in ID order takes ``u % 3``.
    """
    vent_count = len(layout_for(chamber, False).vents)
    if chamber <= 3:
        return ChamberSetup(chamber, False, rr9_offsets(chamber, vent_count), 0)
    cursor = rng_cursor_before(chamber)
    reflected = output(seed, cursor) % 2 == 1
    offsets = tuple(output(seed, cursor + 1 + i) % VENT_PERIOD for i in range(vent_count))
    return ChamberSetup(chamber, reflected, offsets, cursor + 1 + vent_count)


def chamber_start(
    seed: int,
    chamber: int,
    *,
    score: int = 0,
    total_rescued: int = 0,
    cleared_chamber_count: int = 0,
) -> State:
    """A fresh ``playing`` state at the start of ``chamber`` (RR11), keeping the totals."""
    setup = chamber_setup(seed, chamber)
    layout = layout_for(chamber, setup.reflected)
    return State(
        seed=seed,
        rng_cursor=setup.rng_cursor,
        chamber=chamber,
        reflected=setup.reflected,
        vent_offsets=setup.vent_offsets,
        phase="playing",
        end_reason=None,
        charge=CHARGE_START,
        turn=0,
        chamber_shock_count=0,
        score=score,
        total_rescued=total_rescued,
        cleared_chamber_count=cleared_chamber_count,
        player=layout.start,
        used_relays=frozenset(),
        used_helpers=frozenset(),
        used_batteries=frozenset(),
    )


def _id_order(feature_id: str) -> tuple[str, int]:
    return (feature_id[0], int(feature_id[1:]))


def to_json_dict(state: State) -> JsonObject:
    """``state`` as a JSON object with the rules' camelCase names (RR1)."""
    return {
        "seed": state.seed,
        "rngCursor": state.rng_cursor,
        "chamber": state.chamber,
        "reflected": state.reflected,
        "ventOffsets": list(state.vent_offsets),
        "phase": state.phase,
        "endReason": state.end_reason,
        "charge": state.charge,
        "turn": state.turn,
        "chamberShockCount": state.chamber_shock_count,
        "score": state.score,
        "totalRescued": state.total_rescued,
        "clearedChamberCount": state.cleared_chamber_count,
        "player": {"x": state.player[0], "y": state.player[1]},
        "usedRelays": [*sorted(state.used_relays, key=_id_order)],
        "usedHelpers": [*sorted(state.used_helpers, key=_id_order)],
        "usedBatteries": [*sorted(state.used_batteries, key=_id_order)],
    }


def canonical_json(value: Any) -> str:
    """``value`` as canonical JSON: sorted keys, compact separators, ASCII only."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def to_canonical_json(state: State) -> str:
    """The canonical JSON of ``state`` (what a state token signs, RR17)."""
    return canonical_json(to_json_dict(state))


def from_canonical_json(text: str) -> State:
    """Parse and fully check a state's JSON; raise :class:`StateError` saying what is wrong.

    Every field is checked: its type, its range, that each used ID exists in the
    chamber's layout, that the player stands on floor, that phase and endReason
    agree, and that reflection, offsets and rngCursor are what the seed gives.
    """
    try:
        data = strict_loads(text)
    except StrictJsonError as exc:
        raise StateError(f"state: not strict JSON ({exc})") from None
    if not isinstance(data, dict):
        raise StateError(f"state: must be a JSON object, got {a_json_type(data)}")
    missing = sorted(STATE_KEYS - data.keys())
    if missing:
        raise StateError(f"state: missing field(s) {', '.join(missing)}")
    extra = sorted(data.keys() - STATE_KEYS)
    if extra:
        raise StateError(f"state: unknown field(s) {', '.join(extra)}")

    seed = _int_field(data, "seed", 0, MAX_SEED)
    chamber = _int_field(data, "chamber", 1, None)
    reflected = data["reflected"]
    if not isinstance(reflected, bool):
        raise StateError(f"state: reflected must be true or false, got {_show(reflected)}")
    phase = data["phase"]
    if phase not in PHASES:
        raise StateError(f"state: phase must be one of {', '.join(PHASES)}, got {_show(phase)}")
    end_reason = data["endReason"]
    if end_reason is not None and end_reason not in END_REASONS:
        raise StateError(
            f"state: endReason must be null, banked or depleted, got {_show(end_reason)}"
        )
    player = data["player"]
    if not isinstance(player, dict) or set(player) != {"x", "y"}:
        raise StateError(
            f'state: player must be an object {{"x": int, "y": int}}, got {_show(player)}'
        )
    px = _int_field(player, "x", 0, None, where="player.x")
    py = _int_field(player, "y", 0, None, where="player.y")
    offsets = data["ventOffsets"]
    if not isinstance(offsets, list) or not all(
        type(o) is int and 0 <= o < VENT_PERIOD for o in offsets
    ):
        raise StateError(f"state: ventOffsets must be a list of 0, 1 or 2, got {_show(offsets)}")
    state = State(
        seed=seed,
        rng_cursor=_int_field(data, "rngCursor", 0, None),
        chamber=chamber,
        reflected=reflected,
        vent_offsets=tuple(offsets),
        phase=phase,
        end_reason=end_reason,
        charge=_int_field(data, "charge", 0, CHARGE_CAP),
        turn=_int_field(data, "turn", 0, None),
        chamber_shock_count=_int_field(data, "chamberShockCount", 0, None),
        score=_int_field(data, "score", 0, None),
        total_rescued=_int_field(data, "totalRescued", 0, None),
        cleared_chamber_count=_int_field(data, "clearedChamberCount", 0, None),
        player=(px, py),
        used_relays=_id_list(data, "usedRelays"),
        used_helpers=_id_list(data, "usedHelpers"),
        used_batteries=_id_list(data, "usedBatteries"),
    )
    problem = state_problem(state)
    if problem is not None:
        raise StateError(f"state: {problem}")
    return state


def state_problem(state: State) -> str | None:
    """Why ``state`` could not arise from play (a sentence), or None if it is sound.

    Types are assumed right (the dataclass's annotations); this checks ranges and the
    consistency of fields with each other, with the layout and with the seed.
    """
    if not 0 <= state.seed <= MAX_SEED:
        return f"seed must be an integer 0..{MAX_SEED}, got {state.seed}"
    if state.chamber < 1:
        return f"chamber must be 1 or more, got {state.chamber}"
    setup = chamber_setup(state.seed, state.chamber)
    if state.reflected != setup.reflected:
        return (
            f"reflected is {_show(state.reflected)} but chamber {state.chamber} with seed "
            f"{state.seed} is {'reflected' if setup.reflected else 'not reflected'}"
        )
    if state.vent_offsets != setup.vent_offsets:
        return (
            f"ventOffsets are {list(state.vent_offsets)} but chamber {state.chamber} with seed "
            f"{state.seed} has {list(setup.vent_offsets)}"
        )
    if state.rng_cursor != setup.rng_cursor:
        return (
            f"rngCursor is {state.rng_cursor} but chamber {state.chamber} has used "
            f"{setup.rng_cursor} random draws"
        )
    layout = state.layout
    for name, ids, features in (
        ("usedRelays", state.used_relays, layout.relays),
        ("usedHelpers", state.used_helpers, layout.helpers),
        ("usedBatteries", state.used_batteries, layout.batteries),
    ):
        known = {f.id for f in features}
        unknown = sorted(ids - known)
        if unknown:
            return (
                f"{name} names {', '.join(unknown)}, which layout {layout.letter} does not "
                f"have (it has {', '.join(sorted(known, key=_id_order)) or 'none'})"
            )
    x, y = state.player
    if not layout.is_floor(state.player):
        return f"player at x={x}, y={y} is not on a floor cell of layout {layout.letter}"
    if not 0 <= state.charge <= CHARGE_CAP:
        return f"charge must be 0..{CHARGE_CAP}, got {state.charge}"
    if min(state.turn, state.chamber_shock_count, state.score, state.total_rescued) < 0:
        return "turn, chamberShockCount, score and totalRescued must not be negative"
    if state.chamber_shock_count > state.turn:
        return f"chamberShockCount {state.chamber_shock_count} exceeds turn {state.turn}"
    count = len(state.used_relays) + len(state.used_helpers) + len(state.used_batteries)
    if count > state.turn:
        return f"{count} objects are used but only {state.turn} actions were taken"
    if state.turn == 0 and (state.player != layout.start or state.charge != CHARGE_START):
        return "at turn 0 the player must be on the start with the full starting charge"
    ceiling = (
        CHARGE_START
        - state.turn * STEP_COST
        - len(state.used_relays) * REPAIR_COST
        - state.chamber_shock_count * SHOCK_COST
        + len(state.used_batteries) * BATTERY_GAIN
    )
    if state.charge > max(0, ceiling):
        return f"charge {state.charge} is more than this chamber's actions could leave"
    if len(state.used_helpers) > state.total_rescued:
        return f"totalRescued {state.total_rescued} is less than this chamber's rescues"
    earned = RELAY_POINTS * len(state.used_relays) + HELPER_POINTS * len(state.used_helpers)
    if state.score < earned:
        return f"score {state.score} is less than this chamber's {earned} object points"
    return _phase_problem(state, layout)


def _phase_problem(state: State, layout: Layout) -> str | None:
    before = state.chamber - 1  # chambers cleared before this one
    if state.phase == "ended":
        if state.end_reason is None:
            return "phase ended needs an endReason (banked or depleted)"
    elif state.end_reason is not None:
        return f"endReason must be null while the phase is {state.phase}"
    if state.phase == "playing":
        if state.charge == 0:
            return "a playing state must have charge; zero charge ends the run"
        if state.cleared_chamber_count != before:
            return f"clearedChamberCount must be {before} while chamber {state.chamber} is played"
    elif state.phase == "chamber-clear":
        if state.player != layout.exit or not state.exit_open:
            return "a chamber-clear state needs every relay repaired and the player on the exit"
        if state.cleared_chamber_count != state.chamber:
            return f"clearedChamberCount must be {state.chamber} once the chamber is clear"
    elif state.end_reason == "depleted":
        if state.charge != 0:
            return f"a depleted run has charge 0, not {state.charge}"
        if state.cleared_chamber_count != before:
            return f"clearedChamberCount must be {before} after depleting chamber {state.chamber}"
    elif state.cleared_chamber_count not in (before, state.chamber):
        return (
            f"clearedChamberCount must be {before} or {state.chamber} when banked in "
            f"chamber {state.chamber}"
        )
    if state.cleared_chamber_count == state.chamber and (
        state.player != layout.exit or not state.exit_open
    ):
        return "a cleared chamber needs every relay repaired and the player on the exit"
    return None


def _int_field(
    data: Mapping[str, object], key: str, low: int, high: int | None, *, where: str | None = None
) -> int:
    value = data[key]
    name = where or key
    # bool is an int in Python but true/false is not a JSON integer.
    if not isinstance(value, int) or isinstance(value, bool):
        raise StateError(f"state: {name} must be an integer, got {_show(value)}")
    if value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f"{low} or more"
        raise StateError(f"state: {name} must be {bound}, got {value}")
    return value


def _id_list(data: Mapping[str, object], key: str) -> frozenset[str]:
    value = data[key]
    if not isinstance(value, list) or not all(
        isinstance(v, str) and len(v) >= 2 and v[1:].isdigit() and v[1:].isascii() for v in value
    ):
        raise StateError(f'state: {key} must be a list of IDs like "R1", got {_show(value)}')
    if value != sorted(set(value), key=_id_order):
        raise StateError(f"state: {key} must list each ID once, in ID order, got {_show(value)}")
    return frozenset(value)


__all__ = [
    "BATTERY_GAIN",
    "CHARGE_CAP",
    "CHARGE_POINTS",
    "CHARGE_START",
    "CLEAR_POINTS",
    "END_REASONS",
    "HELPER_POINTS",
    "NO_SHOCK_BONUS",
    "PHASES",
    "RELAY_POINTS",
    "REPAIR_COST",
    "SHOCK_COST",
    "STATE_KEYS",
    "STEP_COST",
    "VENT_PERIOD",
    "ChamberSetup",
    "EndReason",
    "Phase",
    "State",
    "StateError",
    "canonical_json",
    "chamber_setup",
    "chamber_start",
    "from_canonical_json",
    "rng_cursor_before",
    "rr9_offsets",
    "state_problem",
    "to_canonical_json",
    "to_json_dict",
]
