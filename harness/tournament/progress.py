"""The live progress line of a tournament: done and left, ETA, calls, fallbacks, cost."""

from __future__ import annotations

import asyncio
import sys
import time
from typing import TextIO

from harness.summary import EpisodeSummary, cost_text
from harness.text import write_control

#: Back to the start of the line and clear it: how the status line is redrawn in place.
CLEAR_LINE = "\r\x1b[2K"

#: To a pipe or a file, at most one line per this many seconds: a scripted tournament
#: finishes hundreds of episodes a second, and a log should not grow by a line for each.
PIPE_EVERY = 1.0


class Progress:
    """Counts finished episodes and prints a status line (redrawn on a terminal)."""

    def __init__(
        self, total: int, done: int, *, stream: TextIO | None = None, every: float = PIPE_EVERY
    ) -> None:
        self.total = total
        self.done = done
        self.started_with = done
        self.stream = stream if stream is not None else sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.calls = self.turns = self.fallbacks = 0
        self.input_tokens = self.output_tokens = 0
        self.cost = 0.0
        self.unpriced = 0
        self._t0 = time.monotonic()
        self._last_line = ""
        self._every = every
        self._printed_at = -float("inf")
        self._pending: asyncio.TimerHandle | None = None

    def add(self, summary: EpisodeSummary) -> None:
        """Count one finished episode."""
        self.done += 1
        for seat in summary.seats.values():
            if seat.calls:
                self.turns += seat.turns
                self.fallbacks += sum(seat.fallbacks.values())
            self.calls += seat.calls
            self.input_tokens += seat.input_tokens
            self.output_tokens += seat.output_tokens
            self.cost += seat.cost_usd
            self.unpriced += seat.unpriced
        self.show()

    def line(self) -> str:
        """The status line."""
        played = self.done - self.started_with
        elapsed = time.monotonic() - self._t0
        left = self.total - self.done
        eta = f"{left * elapsed / played:,.0f}s" if played else "?"
        fallback = f"{100 * self.fallbacks / self.turns:.1f}%" if self.turns else "-"
        return (
            f"{self.done}/{self.total} episodes, {left} left, ETA {eta} | calls {self.calls}, "
            f"fallback {fallback}, tokens {self.input_tokens:,}+{self.output_tokens:,}, "
            f"cost {cost_text(self.cost, self.unpriced)}"
        )

    def show(self, *, final: bool = False) -> None:
        """Print the line: redrawn in place on a terminal; to a pipe or a file, a line
        when it changed, at most one per ``every`` seconds.

        A line held back is printed by a timer on the running event loop once those
        seconds have passed, with whatever is new by then: a pipe or a file gets no
        redraws, so waiting for the next episode to finish (however long that takes)
        would leave a log behind. Without a running loop, or with ``final``, the line
        is printed at once.
        """
        if self.live:
            write_control(self.stream, CLEAR_LINE)
            self.stream.write(self.line() + ("\n" if final else ""))
            self.stream.flush()
            return
        wait = self._printed_at + self._every - time.monotonic()
        if final or wait <= 0:
            self._print_changed()
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # called outside a run: nothing could print it later
            self._print_changed()
            return
        if self._pending is None:
            self._pending = loop.call_later(wait, self._print_changed)

    def _print_changed(self) -> None:
        """Print the line unless it says nothing new; a held-back line is now printed."""
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        line = self.line()
        if line != self._last_line:
            self.stream.write(line + "\n")
            self.stream.flush()
            self._printed_at = time.monotonic()
        self._last_line = line


__all__ = ["CLEAR_LINE", "PIPE_EVERY", "Progress"]
