"""Hourloom's parts of the episode record and its published JSON Schema."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from harness.games.hourloom.capped import CapReason
from harness.games.hourloom.config import HourloomConfig
from harness.games.hourloom.rules import RefusalReason
from harness.games.hourloom.state import EndReason, Phase
from harness.models import JsonObject
from harness.protocol.codec import SeedBoard, SeedRecords, line_adapter, line_schema
from harness.protocol.conventions import GameResults
from harness.records import EndLine, HeaderLine, RecordModel, TickLine

#: Why an episode ended: the harness's caps (H33), the rules' two ends, or the clock.
EndCause = Literal["chamber_cap", "action_cap", "end_run", "sandglass_empty", "deadline"]
#: The caps after which the harness sends END_RUN itself (H33).
AutoEnd = CapReason
#: An input as the logs and the echoes' next inputs hold it.
InputName = Literal["N", "E", "S", "W", "WAIT"]


class SeedModel(SeedBoard):
    """Hourloom's "board": the seed fixes every chamber whatever the player does (H5)."""

    seed: int = Field(ge=0, description="The run's seed; every chamber is drawn from it.")


class ActionModel(RecordModel):
    """An action in the rules' grammar: ``{"type": "MOVE", "dir": "N"}``, ``{"type":
    "WAIT"}``, ``{"type": "DESCEND"}`` or ``{"type": "END_RUN"}`` (extra keys kept)."""

    model_config = RecordModel.model_config | {"extra": "allow"}

    type: str


class HourloomTickState(RecordModel):
    """The state after a tick: what the action did, whether the harness ended the run,
    and the chamber as the player sees it (H29-H30), with the run's counts so far."""

    ok: bool = Field(description="False when the rules refused the action (a free no-op).")
    reason: RefusalReason | None = Field(description="The refusal's reason (H27), or null.")
    events: list[dict[str, Any]] = Field(
        description="What happened, in order (H28), the harness's END_RUN included."
    )
    auto_end: AutoEnd | None = Field(
        description="Set when the harness sent END_RUN after this action (H33)."
    )
    phase: Phase
    end_reason: EndReason | None
    chamber: int
    multiplier_pct: int
    lap: int
    laps: int
    turn: int
    sand: int
    lap_budget: int
    has_keystone: bool
    player: int = Field(description="Your tile (row x width + column).")
    echoes: list[int | None] = Field(description="Each finished lap's echo: its tile, or null.")
    echo_next: list[InputName | None] = Field(
        description="Each echo's next recorded input, or null once it is gone."
    )
    gates_open: list[bool] = Field(description="Each gate (A, B, ...): open for you now.")
    score: int
    rng_state: str = Field(description="The stream's word, 16 hex digits (H3).")
    actions: int = Field(description="Actions so far, refusals included (H33).")
    refusals: int = Field(description="Actions the rules refused so far.")
    chambers_sealed: int
    laps_completed: int
    grid: list[str] = Field(description="The chamber's rows as H30's glyphs, top row first.")


class HourloomResults(GameResults):
    """A run's results (H34): the score, PLANNER's on the same seed and caps, the
    chambers sealed, the laps completed, the actions and refusals, and why it ended."""

    score: int
    planned: int = Field(
        description="PLANNER's score on the same seed under the same caps: the ceiling."
    )
    chambers_sealed: int
    laps_completed: int
    chamber: int = Field(description="The chamber the run ended in.")
    actions: int
    refusals: int
    reason: EndCause


HourloomHeader = HeaderLine[HourloomConfig, SeedModel]
HourloomTick = TickLine[ActionModel, HourloomTickState]
HourloomEnd = EndLine[HourloomResults]
HourloomLine = Annotated[HourloomHeader | HourloomTick | HourloomEnd, Field(discriminator="type")]

#: Parses and validates any line of an Hourloom record.
HOURLOOM_RECORD = line_adapter(HourloomLine)


def record_schema() -> JsonObject:
    """The JSON Schema of one line of an Hourloom record."""
    return line_schema(
        HOURLOOM_RECORD,
        "Hourloom episode record line",
        (
            "One line of an Hourloom episode record (JSON Lines): a header, one line per "
            "action, then an end line. Fields named wallClock depend on the wall clock."
        ),
    )


#: Hourloom's record models, as its codec takes them.
HOURLOOM_RECORDS = SeedRecords(HOURLOOM_RECORD, record_schema, SeedModel, ActionModel)

__all__ = [
    "HOURLOOM_RECORD",
    "HOURLOOM_RECORDS",
    "ActionModel",
    "AutoEnd",
    "EndCause",
    "HourloomEnd",
    "HourloomHeader",
    "HourloomResults",
    "HourloomTick",
    "HourloomTickState",
    "InputName",
    "SeedModel",
    "record_schema",
]
