"""Lighthouse's parts of the episode record, and its published JSON Schema.

The shared envelope (:mod:`harness.records`) is specialised here with Lighthouse's
config, board, decisions, after-tick state and results. ``LIGHTHOUSE_RECORD`` parses
and validates any line; :func:`record_schema` is what ``docs/schemas/`` publishes.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from harness.games.lighthouse.board import Board
from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.state import Move, Reason, RunnerStatus
from harness.models import JsonObject
from harness.protocol.codec import line_adapter, line_schema
from harness.protocol.conventions import GameResults
from harness.records import EndLine, HeaderLine, RecordModel, TickLine

Point = tuple[int, int]


class BoardModel(RecordModel):
    """The board written out as ASCII rows (``# . E K 1 2 3``), y = 0 first."""

    rows: list[str]

    @classmethod
    def of(cls, board: Board) -> BoardModel:
        """The record model of ``board``."""
        return cls(rows=list(board.to_ascii()))

    def to_board(self) -> Board:
        """The board these rows describe."""
        return Board.from_ascii(self.rows)


class KeeperDecisionModel(RecordModel):
    """The keeper's parsed decision. ``transmit`` null: absent from the reply (T1)."""

    transmit: bool | None
    message: str
    notes: str | None = Field(description="null keeps the previous notes (R4).")


class RunnerDecisionModel(RecordModel):
    """A runner's parsed decision."""

    move: Move
    notes: str | None = Field(description="null keeps the previous notes (R4).")


LighthouseDecision = KeeperDecisionModel | RunnerDecisionModel


class RunnerStateModel(RecordModel):
    """A runner after the tick, with what it did during it (null if it was not active)."""

    seat: int
    alias: str
    pos: Point
    status: RunnerStatus
    keys: list[Point]
    notes: str
    move: Move | None
    bumped: bool | None
    picked_key: Point | None


class LighthouseTickState(RecordModel):
    """The state after a tick, and what the tick did."""

    transmission: str | None = Field(description="The message sent this tick, or null.")
    clock: int
    water_line: int
    tide_rows: int
    gate_open: bool
    gate_opened_tick: int | None
    collected: list[Point]
    keeper_notes: str
    runners: list[RunnerStateModel]
    grid: list[str] = Field(description="The keeper's view of the board after the tick.")
    reason: Reason | None = Field(description="Set on the tick that ended the episode.")


class LighthouseResults(GameResults):
    """results (rules, "Scoring"), unrounded (T5). ``scores``: keeper, runner 1, 2, 3."""

    team_score: float
    k: int = Field(alias="K", description="Keys collected.")
    e: int = Field(alias="E", description="Runners escaped.")
    b: float = Field(alias="B", description="Time bonus.")
    clock: int
    flood_clock: int
    key_count: int
    ticks: int
    reason: Reason


LighthouseHeader = HeaderLine[LighthouseConfig, BoardModel]
LighthouseTick = TickLine[LighthouseDecision, LighthouseTickState]
LighthouseEnd = EndLine[LighthouseResults]
LighthouseLine = Annotated[
    LighthouseHeader | LighthouseTick | LighthouseEnd, Field(discriminator="type")
]

#: Parses and validates any line of a Lighthouse record.
LIGHTHOUSE_RECORD = line_adapter(LighthouseLine)


def record_schema() -> JsonObject:
    """The JSON Schema of one line of a Lighthouse record."""
    return line_schema(
        LIGHTHOUSE_RECORD,
        "Lighthouse episode record line",
        (
            "One line of a Lighthouse episode record (JSON Lines): a header, one line per "
            "resolved tick, then an end line. Fields named wallClock depend on the wall clock."
        ),
    )


__all__ = [
    "LIGHTHOUSE_RECORD",
    "BoardModel",
    "KeeperDecisionModel",
    "LighthouseDecision",
    "LighthouseEnd",
    "LighthouseHeader",
    "LighthouseResults",
    "LighthouseTick",
    "LighthouseTickState",
    "RunnerDecisionModel",
    "RunnerStateModel",
    "record_schema",
]
