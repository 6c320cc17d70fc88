"""The results line of one finished episode, derived from its record alone.

Tournaments write these lines (``episodes.jsonl``); reports read them.

**Turns not the seat's own.** One notion for every kind of seat: a turn is *not its
own* when the role's baseline answered for it, because its own player's answer
could not be used (any ``fallback_*`` source: a model's reply that did not parse or a
call that failed, a Python agent that raised, timed out or returned junk, an Inspect
model's, or such a turn of a record replayed, which keeps its source). A baseline's
or a scripted seat's turns are always its own. :class:`TurnCount` counts them for a
seat, :func:`group_turns` per seat group of an episode and :func:`entrant_turns` per
entrant and seat group of a tournament, all from the lines' ``fallbacks`` by source,
so a line written by any earlier harness counts too.
"""

from __future__ import annotations

from harness.records import FALLBACK_SOURCES, RETRY_SOURCES
from harness.summary.cost import NO_PRICE, cost_text
from harness.summary.endpoints import EndpointSums
from harness.summary.faithfulness import FaithfulnessCounts
from harness.summary.from_record import summarize, summarize_read
from harness.summary.ids import IDENTITY_DETAIL, episode_id, record_identity, split_episode_id
from harness.summary.line import (
    BatchStats,
    EndpointStats,
    EpisodeSummary,
    Faithfulness,
    SeatStats,
)
from harness.summary.turns import TurnCount, entrant_turns, group_turns, not_own

__all__ = [
    "FALLBACK_SOURCES",
    "IDENTITY_DETAIL",
    "NO_PRICE",
    "RETRY_SOURCES",
    "BatchStats",
    "EndpointStats",
    "EndpointSums",
    "EpisodeSummary",
    "Faithfulness",
    "FaithfulnessCounts",
    "SeatStats",
    "TurnCount",
    "cost_text",
    "entrant_turns",
    "episode_id",
    "group_turns",
    "not_own",
    "record_identity",
    "split_episode_id",
    "summarize",
    "summarize_read",
]
