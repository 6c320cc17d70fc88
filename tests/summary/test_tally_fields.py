"""A seat's tally and its results-line model name the same figures.

``SeatTally.stats()`` hands its fields to ``SeatStats`` by name, so a figure added to
one and not the other would be dropped (only on the tally) or left at its default
(only on the model) without a word; this test says which.
"""

from __future__ import annotations

from dataclasses import fields

from harness.summary import SeatStats
from harness.summary.tally import SeatTally

#: The tally's working parts that ``stats()`` turns into figures of another name or
#: keeps to itself: faith becomes ``faithfulness``, server only labels endpoints.
TALLY_ONLY = {"faith", "server"}
STATS_ONLY = {"faithfulness"}


def test_every_figure_of_a_seat_is_both_counted_and_kept() -> None:
    tally = {f.name for f in fields(SeatTally)}
    stats = set(SeatStats.model_fields)
    assert tally - stats == TALLY_ONLY, "counted but not kept in the results line"
    assert stats - tally == STATS_ONLY, "kept in the results line but never counted"


def test_a_tally_reaches_its_results_line_figure_by_figure() -> None:
    tally = SeatTally(role="keeper", agent="model:x")
    numbers = [f.name for f in fields(SeatTally) if f.type in ("int", "float")]
    assert len(numbers) >= 10  # turns, calls, attempts, tokens, cost, ...
    for value, name in enumerate(numbers, start=1):
        setattr(tally, name, value)
    stats = tally.stats()
    assert {name: getattr(stats, name) for name in numbers} == {
        name: value for value, name in enumerate(numbers, start=1)
    }
