"""The tide, exactly as the rules tabulate it."""

from __future__ import annotations

import pytest

from harness.games.lighthouse.tide import Tide

DEFAULT = Tide(tide_delay=10, tide_period=7, height=9)
SPRING = Tide(tide_delay=10, tide_period=5, height=9)


#: Far past any flood clock of these tides: the search below stops there.
LAST_CLOCK = 1_000


def _first_flood_clock(tide: Tide, y: int) -> int:
    """The first clock at which row ``y`` is flooded, found by asking clock after clock."""
    for clock in range(LAST_CLOCK + 1):
        if tide.flooded_row(y, clock):
            return clock
    pytest.fail(f"row {y} is still dry at clock {LAST_CLOCK}")


def test_default_rows_flood_at_the_tabulated_clocks() -> None:
    expected = [73, 66, 59, 52, 45, 38, 31, 24, 17]  # y = 0 .. 8
    assert [_first_flood_clock(DEFAULT, y) for y in range(9)] == expected
    assert [DEFAULT.row_flood_clock(y) for y in range(9)] == expected
    assert DEFAULT.flood_clock == 73  # the exit row floods at floodClock


def test_spring_rows_flood_every_five() -> None:
    assert [_first_flood_clock(SPRING, y) for y in range(8, -1, -1)] == list(range(15, 56, 5))
    assert SPRING.flood_clock == 55


@pytest.mark.parametrize(
    ("clock", "rows", "line"),
    [
        (0, 0, 9),
        (16, 0, 9),
        (17, 1, 8),
        (23, 1, 8),
        (24, 2, 7),
        (72, 8, 1),
        (73, 9, 0),
        (500, 9, 0),
    ],
)
def test_rows_and_water_line(clock: int, rows: int, line: int) -> None:
    assert DEFAULT.rows(clock) == rows
    assert DEFAULT.water_line(clock) == line


def test_next_row_both_ways() -> None:  # O3
    assert DEFAULT.next_flood_clock(0) == 17
    assert DEFAULT.ticks_until_next_flood(0, transmit=False) == 17
    assert DEFAULT.ticks_until_next_flood(0, transmit=True) == 16
    # one clock before: silent = 1, transmitting never reports less than 1
    assert DEFAULT.ticks_until_next_flood(16, transmit=False) == 1
    assert DEFAULT.ticks_until_next_flood(16, transmit=True) == 1
    assert DEFAULT.ticks_until_next_flood(15, transmit=True) == 1
    assert DEFAULT.ticks_until_next_flood(17, transmit=False) == 7
    assert DEFAULT.ticks_until_next_flood(73, transmit=False) is None
    assert DEFAULT.ticks_until_next_flood(73, transmit=True) is None
