"""The tide: which rows are flooded at a given clock (rules, "The tide").

tideRows(clock) = clamp((clock - tideDelay) div tidePeriod, 0, height)
waterLine       = height - tideRows        # y of the topmost flooded row
flooded(x, y)   = y >= waterLine
floodClock      = tideDelay + height * tidePeriod
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tide:
    """The tide parameters of one board."""

    tide_delay: int
    tide_period: int
    height: int

    @property
    def flood_clock(self) -> int:
        """The clock at which the last row (the exit row, y = 0) floods."""
        return self.tide_delay + self.height * self.tide_period

    def rows(self, clock: int) -> int:
        """tideRows: how many rows are flooded at ``clock``."""
        # Python's // floors, which is the rules' "div" for the negative case too
        # (it then clamps to 0 either way).
        return min(max((clock - self.tide_delay) // self.tide_period, 0), self.height)

    def water_line(self, clock: int) -> int:
        """waterLine: the y of the topmost flooded row (``height`` when none is)."""
        return self.height - self.rows(clock)

    def flooded_row(self, y: int, clock: int) -> bool:
        """Whether row ``y`` is under water at ``clock``."""
        return y >= self.water_line(clock)

    def row_flood_clock(self, y: int) -> int:
        """The clock at which row ``y`` floods: tideDelay + tidePeriod * (height - y)."""
        return self.tide_delay + self.tide_period * (self.height - y)

    def next_flood_clock(self, clock: int) -> int | None:
        """The clock at which the next still-dry row floods, or None when all are flooded."""
        rows = self.rows(clock)
        if rows >= self.height:
            return None
        return self.tide_delay + self.tide_period * (rows + 1)

    def ticks_until_next_flood(self, clock: int, *, transmit: bool) -> int | None:
        """Ticks until the next row floods, if the keeper stays silent or transmits now (O3).

        Silent: ``nextFloodClock - clock``. Transmitting this tick (and silent after):
        ``max(1, nextFloodClock - clock - 1)``. None when every row is already flooded.
        """
        nxt = self.next_flood_clock(clock)
        if nxt is None:
            return None
        return max(1, nxt - clock - 1) if transmit else nxt - clock


__all__ = ["Tide"]
