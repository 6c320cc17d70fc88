"""Episode records: one JSON object per line, the harness's single memory.

A record is a header line, one line per resolved tick and a closing line. The
envelope here is game-agnostic; a game fills in its own config, board, decision,
tick-state and results models (see ``harness.games.lighthouse.record``), and
publishes the JSON Schema of its lines under ``docs/schemas/``.

Everything that depends on the wall clock (start and finish times, latencies) lives
in fields named ``wallClock``, so two runs of the same episode give records that are
byte-identical once those fields are dropped.
"""

from __future__ import annotations

from harness.records.base import RecordModel
from harness.records.calls import CallRecord, CallWallClock, ModelReply, ParseErrorRecord
from harness.records.keys import Keys, keys
from harness.records.lines import (
    RECORD_VERSION,
    DerivedFrom,
    EndLine,
    EndWallClock,
    HeaderLine,
    HeaderWallClock,
    SeatTurn,
    TickLine,
    TickWallClock,
    TurnWallClock,
)
from harness.records.parsing import decode_line, validate_line
from harness.records.seats import HUMAN_MARK, AgentInfo, AgentKind, SeatInfo, agent_label
from harness.records.sources import (
    AGENT_SOURCES,
    FALLBACK_SOURCES,
    HUMAN_SOURCES,
    LENGTH_STOP_REASONS,
    MODEL_SOURCES,
    PLAIN_SOURCES,
    RETRY_SOURCES,
    SOURCES,
    Source,
    TurnSources,
)
from harness.records.values import (
    json_int,
    json_list,
    json_number,
    json_object,
    json_objects,
    json_text,
)
from harness.records.writer import RecordWriter, dump_doc, dump_line

__all__ = [
    "AGENT_SOURCES",
    "FALLBACK_SOURCES",
    "HUMAN_MARK",
    "HUMAN_SOURCES",
    "LENGTH_STOP_REASONS",
    "MODEL_SOURCES",
    "PLAIN_SOURCES",
    "RECORD_VERSION",
    "RETRY_SOURCES",
    "SOURCES",
    "AgentInfo",
    "AgentKind",
    "CallRecord",
    "CallWallClock",
    "DerivedFrom",
    "EndLine",
    "EndWallClock",
    "HeaderLine",
    "HeaderWallClock",
    "Keys",
    "ModelReply",
    "ParseErrorRecord",
    "RecordModel",
    "RecordWriter",
    "SeatInfo",
    "SeatTurn",
    "Source",
    "TickLine",
    "TickWallClock",
    "TurnSources",
    "TurnWallClock",
    "agent_label",
    "decode_line",
    "dump_doc",
    "dump_line",
    "json_int",
    "json_list",
    "json_number",
    "json_object",
    "json_objects",
    "json_text",
    "keys",
    "validate_line",
]
