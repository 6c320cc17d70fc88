"""Hourloom's immutable state and its JSON object (decision H7).

A state is one JSON-compatible object whose shape is a contract shared with any other
implementation of the decisions: the chamber in full (so a state is playable without
regenerating anything), the lap in progress, the logs of finished laps and where each
echo stands now. Echo tiles are stored because jostles make them depend on you.
:mod:`.validate` turns untrusted JSON back into a :class:`State`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal, get_args

from harness.errors import RecordError
from harness.games.hourloom.grid import Input
from harness.games.hourloom.rng import to_hex
from harness.models import JsonObject
from harness.protocol.fields import fields_json

Phase = Literal["lap", "sealed", "over"]
EndReason = Literal["end_run", "sandglass_empty"]
PHASES: tuple[Phase, ...] = get_args(Phase)
END_REASONS: tuple[EndReason, ...] = get_args(EndReason)

GAME = "hourloom"
VERSION = 1

SPARK_POINTS = 15
KEYSTONE_POINTS = 25
#: A lap pays LAP_POINTS + GRAIN_POINTS per grain left, as one award (H26).
LAP_POINTS = 50
GRAIN_POINTS = 3
#: Stepping onto a gate pays this per plate an echo holds (H25).
PLATE_POINTS = 25
SEAL_POINTS = 150
#: Every resolved turn costs one grain, plus a jostle grain per echo and the flux toll.
TURN_GRAINS = 1
JOSTLE_GRAINS = 1
FLUX_GRAINS = 3
#: Flux with phase p is lit on lap turn t when (t + p) % FLUX_PERIOD >= FLUX_LIT_FROM.
FLUX_PERIOD = 4
FLUX_LIT_FROM = 2


class HourloomStateError(RecordError):
    """A state given as JSON is malformed or inconsistent; the message says where."""


@dataclass(frozen=True)
class Gate:
    """A gate tile and its linked plates (1 or 2): open for a mover exactly when every
    plate carries a body other than that mover (rules, GATES AND PLATES)."""

    tile: int
    plates: tuple[int, ...]


@dataclass(frozen=True)
class Flux:
    """A flux tile and its phase 0..3."""

    tile: int
    phase: int


@dataclass(frozen=True)
class Chamber:
    """One chamber as H7 stores it; every tile is ``row * width + column``.

    ``alcoves``, ``keystones`` and ``lap_budgets`` have one entry per lap; ``gates``
    keep the generator's order, which names them A, B, ... (H30).
    """

    number: int
    width: int
    height: int
    laps: int
    multiplier_pct: int
    walls: tuple[int, ...]
    exit: int
    alcoves: tuple[int, ...]
    keystones: tuple[int, ...]
    gates: tuple[Gate, ...]
    flux: tuple[Flux, ...]
    sparks: tuple[int, ...]
    lap_budgets: tuple[int, ...]

    @property
    def tiles(self) -> int:
        """How many tiles the grid has."""
        return self.width * self.height

    @cached_property
    def wall_set(self) -> frozenset[int]:
        """The walls as a set, for lookups."""
        return frozenset(self.walls)

    @cached_property
    def gate_at(self) -> dict[int, Gate]:
        """Each gate by its tile."""
        return {g.tile: g for g in self.gates}

    @cached_property
    def flux_at(self) -> dict[int, int]:
        """Each flux tile's phase by its tile."""
        return {f.tile: f.phase for f in self.flux}

    def lit(self, tile: int, turn: int) -> bool:
        """Whether ``tile`` is flux lit on lap turn ``turn`` (rules, FLUX)."""
        phase = self.flux_at.get(tile)
        return phase is not None and (turn + phase) % FLUX_PERIOD >= FLUX_LIT_FROM


@dataclass(frozen=True)
class State:
    """One Hourloom state (H7), field names the rules' names in snake_case.

    ``turn`` restarts every lap and is the index of the log entry the next turn plays
    (H19). ``logs`` hold finished laps' inputs, ``log`` this lap's; ``echoes[k]`` is
    where the echo of lap k + 1 stands, or None once it has played its last input.
    """

    seed: int
    rng_state: int
    chamber: Chamber
    phase: Phase
    lap: int
    turn: int
    sand: int
    player: int
    has_keystone: bool
    sparks_left: tuple[int, ...]
    logs: tuple[tuple[Input, ...], ...]
    log: tuple[Input, ...]
    echoes: tuple[int | None, ...]
    score: int
    end_reason: EndReason | None

    @property
    def lap_budget(self) -> int:
        """The sandglass budget of the current lap."""
        return self.chamber.lap_budgets[self.lap - 1]

    @property
    def keystone(self) -> int:
        """The current lap's keystone tile."""
        return self.chamber.keystones[self.lap - 1]


def award(base: int, pct: int) -> int:
    """One award under the multiplier, rounded on its own, halves up (H26)."""
    return (base * pct + 50) // 100


def state_json(state: State) -> JsonObject:
    """``state`` as H7's JSON object: the game and version, then its fields, in order,
    camelCase (rngState as 16 hex digits, inputs as strings)."""
    out = fields_json(state)
    out["rngState"] = to_hex(state.rng_state)  # in its place: the key is there already
    return {"game": GAME, "version": VERSION, **out}


__all__ = [
    "END_REASONS",
    "FLUX_GRAINS",
    "FLUX_LIT_FROM",
    "FLUX_PERIOD",
    "GAME",
    "GRAIN_POINTS",
    "JOSTLE_GRAINS",
    "KEYSTONE_POINTS",
    "LAP_POINTS",
    "PHASES",
    "PLATE_POINTS",
    "SEAL_POINTS",
    "SPARK_POINTS",
    "TURN_GRAINS",
    "VERSION",
    "Chamber",
    "EndReason",
    "Flux",
    "Gate",
    "HourloomStateError",
    "Phase",
    "State",
    "award",
    "state_json",
]
