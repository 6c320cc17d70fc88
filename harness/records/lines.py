"""The three lines of a record: the header, a tick's seat turns and state, the end."""

from __future__ import annotations

from typing import Generic, Literal

from pydantic import Field

from harness.models import absent_if_empty, absent_if_none
from harness.records.base import (
    BoardT,
    ConfigT,
    DecisionT,
    RecordModel,
    ResultsT,
    StateT,
)
from harness.records.calls import CallRecord, ModelReply
from harness.records.seats import SeatInfo
from harness.records.sources import Source

#: Bumped whenever a field changes meaning or a required field is added.
RECORD_VERSION = 1


class HeaderWallClock(RecordModel):
    """Wall-clock facts of the header (never compared by determinism checks)."""

    started_at: str = Field(description="UTC start time, ISO 8601.")


class DerivedFrom(RecordModel):
    """The original of a counterfactual episode: its decisions were replayed up to a tick."""

    episode_id: str
    record: str = Field(description="The original record's file name.")
    until_tick: int = Field(description="Ticks before this one replay the original.")


class HeaderLine(RecordModel, Generic[ConfigT, BoardT]):
    """The first line: everything needed to replay the episode without regenerating."""

    type: Literal["header"] = "header"
    record_version: int = RECORD_VERSION
    harness_version: str
    game: str
    episode_id: str
    seed: int | None = None
    variant: str | None = None
    config: ConfigT
    board: BoardT
    seats: list[SeatInfo]
    prompts: dict[str, str] = absent_if_empty(
        default_factory=dict,
        description="The text of every prompt file a seat read, by its sha256 (the hashes "
        "the seats' agent details name), each once. With the states, it makes every "
        "prompt again (docs/records.md). Absent without model or agent seats, and on "
        "records written before it existed.",
    )
    derived_from: DerivedFrom | None = Field(
        None, description="Set on a counterfactual: the record it continues."
    )
    wall_clock: HeaderWallClock | None = None


class TurnWallClock(RecordModel):
    """Wall-clock facts of one seat's turn."""

    latency_ms: float


class SeatTurn(RecordModel, Generic[DecisionT]):
    """One seat's turn in one tick: the text the decision came from, the decision, its source.

    For an LLM seat ``replies`` holds every model reply of the tick and ``calls`` the
    accounting of every call (a Python agent's replies are kept the same way); on a
    fallback, ``raw`` is the baseline's reply.
    """

    raw: str = Field(description="The text the decision was parsed from, whole up to 1 MiB.")
    raw_length: int = Field(description="Length of the full text in UTF-8 bytes.")
    raw_sha256: str = Field(description="sha256 of the full text's UTF-8 bytes.")
    raw_clipped: bool = Field(False, description="True when raw was cut at 1 MiB.")
    decision: DecisionT
    source: Source
    replies: list[ModelReply] = Field(default_factory=list)
    calls: list[CallRecord] = Field(default_factory=list)
    error: str | None = absent_if_none(
        description="Why a Python agent's call failed (fallback_error, fallback_timeout): "
        "the exception's type and message. Absent otherwise.",
    )
    wall_clock: TurnWallClock | None = None


class TickWallClock(RecordModel):
    """Wall-clock facts of one tick: how long its batch of seat turns took.

    ``concurrency`` is ``callMs / tickMs``: the mean number of model requests in
    flight during the tick (requests answered from the cache left out). A batch of n
    equal requests that a server runs at once gives n; one that it answers one at a
    time gives (n + 1) / 2 (see docs/llm.md). ``firstCalls``, ``firstCallMs`` and
    ``firstSpanMs`` measure the same of the seats' first calls alone, the requests
    sent together: what a report judges a server by (harness/timing.py).
    """

    tick_ms: float = Field(description="From asking the seats to the last answer.")
    call_ms: float = Field(description="The sum of the tick's model requests' requestMs.")
    calls: int = Field(description="Model requests made (cached answers left out).")
    concurrency: float | None = Field(description="callMs / tickMs; null without requests.")
    first_calls: int | None = absent_if_none(
        description="Seats whose first model call of the tick was a request: the requests "
        "that could overlap (a seat's retry waits for its first call). Absent without "
        "requests, and on records written before it existed.",
    )
    first_call_ms: float | None = absent_if_none(
        description="The sum of those first calls' requestMs (absent as firstCalls).",
    )
    first_span_ms: float | None = absent_if_none(
        description="The longest of those first calls' latencyMs: from asking the seats "
        "to the last of them answered (absent as firstCalls).",
    )


class TickLine(RecordModel, Generic[DecisionT, StateT]):
    """One resolved tick: each active seat's turn, then the state after the tick."""

    type: Literal["tick"] = "tick"
    tick: int
    seats: dict[str, SeatTurn[DecisionT]]
    state: StateT
    wall_clock: TickWallClock | None = absent_if_none()


class EndWallClock(RecordModel):
    """Wall-clock facts of the closing line."""

    finished_at: str
    play_seconds: float


class EndLine(RecordModel, Generic[ResultsT]):
    """The closing line: the episode's results."""

    type: Literal["end"] = "end"
    results: ResultsT
    wall_clock: EndWallClock | None = None
