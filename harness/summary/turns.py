"""Turns not the seat's own (see :mod:`harness.summary`), counted for a seat, per seat
group of an episode and per entrant and seat group of a tournament."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from harness.protocol import SeatGroup
from harness.records import FALLBACK_SOURCES
from harness.summary.line import EpisodeSummary, SeatStats


def not_own(source: str) -> bool:
    """Whether a turn of ``source`` was not its seat's own: its role's baseline answered."""
    return source in FALLBACK_SOURCES


@dataclass(frozen=True)
class TurnCount:
    """Turns of some seats, and those that were not their own, by source (see the
    module's docstring)."""

    turns: int = 0
    not_own_by_source: Mapping[str, int] = field(default_factory=dict)
    """The turns that were not their seat's own, by their ``fallback_*`` source."""

    @classmethod
    def of_sources(cls, sources: Iterable[str]) -> TurnCount:
        """The count of turns with these sources, one each."""
        counted = Counter(sources)
        fell = {s: n for s, n in sorted(counted.items()) if not_own(s)}
        return cls(sum(counted.values()), fell)

    @classmethod
    def of_seat(cls, seat: SeatStats) -> TurnCount:
        """A results line's seat: its turns, and its fallbacks by source."""
        fell = {s: n for s, n in sorted(seat.fallbacks.items()) if not_own(s) and n}
        return cls(seat.turns, fell)

    @property
    def not_own(self) -> int:
        """How many turns were not their seat's own."""
        return sum(self.not_own_by_source.values())

    @property
    def share(self) -> float | None:
        """The share of turns not their seat's own; None without turns."""
        return self.not_own / self.turns if self.turns else None

    @property
    def mostly_not_own(self) -> bool:
        """Whether more than half the turns were not their seat's own."""
        return 2 * self.not_own > self.turns

    def __add__(self, other: TurnCount) -> TurnCount:
        merged = Counter(self.not_own_by_source)
        merged.update(other.not_own_by_source)
        return TurnCount(self.turns + other.turns, dict(sorted(merged.items())))


def group_turns(summary: EpisodeSummary, groups: Sequence[SeatGroup]) -> dict[str, TurnCount]:
    """Each seat group's turns in the episode of ``summary``, and those not its own
    (a group none of whose seats the line names is left out)."""
    out: dict[str, TurnCount] = {}
    for group in groups:
        seats = [summary.seats[s] for s in group.seats if s in summary.seats]
        if seats:
            out[group.key] = sum((TurnCount.of_seat(s) for s in seats), TurnCount())
    return out


def entrant_turns(
    summaries: Iterable[EpisodeSummary], groups: Sequence[SeatGroup]
) -> dict[str, dict[str, TurnCount]]:
    """Each entrant's turns per seat group over ``summaries`` (read one at a time), and
    those not its own: what a table that ranks an entrant says of who played it."""
    out: dict[str, dict[str, TurnCount]] = {}
    for summary in summaries:
        mine = out.setdefault(summary.entrant, {})
        for key, count in group_turns(summary, groups).items():
            mine[key] = mine.get(key, TurnCount()) + count
    return out
