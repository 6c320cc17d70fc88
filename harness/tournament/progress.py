"""The live progress line of a tournament: done and left, ETA, calls, fallbacks, cost."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from harness.summary import EpisodeSummary


class Progress:
    """Counts finished episodes and prints a status line (redrawn on a terminal)."""

    def __init__(self, total: int, done: int, *, stream: TextIO | None = None) -> None:
        self.total = total
        self.done = done
        self.started_with = done
        self.stream = stream if stream is not None else sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.calls = self.turns = self.fallbacks = 0
        self.input_tokens = self.output_tokens = 0
        self.cost = 0.0
        self._t0 = time.monotonic()
        self._last_line = ""

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
            f"cost ${self.cost:.4f}"
        )

    def show(self, *, final: bool = False) -> None:
        """Print the line: redrawn in place on a terminal; to a pipe or a file, one line
        each time it changes (at the start, and once per finished episode).

        A pipe or a file gets no redraws, so a line held back "until a few seconds have
        passed" would wait for the next episode to finish, however long that takes.
        """
        if self.live:
            self.stream.write("\r\x1b[2K" + self.line() + ("\n" if final else ""))
            self.stream.flush()
            return
        line = self.line()
        if line != self._last_line:
            self.stream.write(line + "\n")
            self.stream.flush()
        self._last_line = line


__all__ = ["Progress"]
