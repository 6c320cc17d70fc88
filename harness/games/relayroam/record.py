"""Relayroam's parts of the episode record and its published JSON Schema."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from harness.games.relayroam.config import RelayroamConfig
from harness.models import JsonObject
from harness.protocol.codec import SeedBoard, SeedRecords, line_adapter, line_schema
from harness.protocol.conventions import GameResults
from harness.records import EndLine, HeaderLine, RecordModel, TickLine

Point = tuple[int, int]
EndCause = Literal["banked", "depleted", "chamber_cap", "decision_guard", "deadline"]


class SeedModel(SeedBoard):
    """Relayroam's "board": its layouts are fixed by the rules, so the seed says it all."""

    seed: int = Field(ge=0, description="The game seed; chamber 4 on draws from it (RR10).")


class ActionModel(RecordModel):
    """An action in the rules' grammar (``{"type": "move", "direction": "up"}`` ...)."""

    model_config = RecordModel.model_config | {"extra": "allow"}

    type: str


class RelayroamTickState(RecordModel):
    """The state after a tick, what the action did, and whether the harness banked."""

    ok: bool
    events: list[dict[str, Any]]
    auto_bank: Literal["chamber_cap", "decision_guard"] | None = Field(
        description="Set when the harness banked after this action (RR19)."
    )
    phase: Literal["playing", "chamber-clear", "ended"]
    end_reason: Literal["banked", "depleted"] | None
    chamber: int
    layout: str
    reflected: bool
    vent_offsets: list[int]
    charge: int
    turn: int
    chamber_shock_count: int
    score: int
    total_rescued: int
    cleared_chamber_count: int
    player: Point
    rng_cursor: int
    decisions_in_chamber: int
    grid: list[str]


class RelayroamResults(GameResults):
    """An episode's results: the score, the bounded optimum, and why it ended."""

    score: int
    optimum: int = Field(
        description="The best score of the episode's chambers, firstChamber onwards, "
        "chamberCap of them (RR20).",
    )
    cleared_chamber_count: int
    total_rescued: int
    chamber: int
    ticks: int
    reason: EndCause


RelayroamHeader = HeaderLine[RelayroamConfig, SeedModel]
RelayroamTick = TickLine[ActionModel, RelayroamTickState]
RelayroamEnd = EndLine[RelayroamResults]
RelayroamLine = Annotated[
    RelayroamHeader | RelayroamTick | RelayroamEnd, Field(discriminator="type")
]

#: Parses and validates any line of a Relayroam record.
RELAYROAM_RECORD = line_adapter(RelayroamLine)


def record_schema() -> JsonObject:
    """The JSON Schema of one line of a Relayroam record."""
    return line_schema(
        RELAYROAM_RECORD,
        "Relayroam episode record line",
        (
            "One line of a Relayroam episode record (JSON Lines): a header, one line per "
            "decision, then an end line. Fields named wallClock depend on the wall clock."
        ),
    )


#: Relayroam's record models, as its codec takes them.
RELAYROAM_RECORDS = SeedRecords(RELAYROAM_RECORD, record_schema, SeedModel, ActionModel)

__all__ = [
    "RELAYROAM_RECORD",
    "RELAYROAM_RECORDS",
    "ActionModel",
    "EndCause",
    "RelayroamEnd",
    "RelayroamHeader",
    "RelayroamResults",
    "RelayroamTick",
    "RelayroamTickState",
    "SeedModel",
    "record_schema",
]
