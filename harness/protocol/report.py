"""The report part: a finished episode's figures and the report columns over them."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from harness.models import JsonObject
from harness.protocol.conventions import PLAY_SHARE, GameResults
from harness.records import EndLine, json_object, keys

#: The keys of an end line and of any game's results, as their models dump them.
END = keys(EndLine[GameResults])
RESULTS = keys(GameResults)
#: The ``deadline`` end in words, for a game's :meth:`Report.end_meanings`: the runner
#: ended the episode when its play budget ran out (decisions D1, D2).
DEADLINE_MEANING: Final = (
    f"the play budget ({PLAY_SHARE:.0%} of episode_timeout_seconds) ran out first"
)


@dataclass(frozen=True)
class Column:
    """A report column over an entrant's episodes.

    With no ``denominator`` it is the mean of ``numerator`` per episode; with one, it
    is sum(numerator) / sum(denominator) over the episodes (e.g. escapes per runner).
    ``key`` names it in CSV and JSON and ``label`` in tables, both as people say it
    (``keys``, not the rules' ``K``); ``means`` says what it counts, for the report's
    one-line legend. ``ceiling``: the baseline whose score the column divides by, so
    that a report measured against that baseline (``score / NAME``) leaves it out of
    its tables; ``tables`` False: a figure another column of the tables already shows
    (the episodes' ends), kept in CSV and JSON only.
    """

    key: str
    label: str
    numerator: str
    denominator: str | None = None
    digits: int = 2
    percent: bool = False
    means: str = ""
    ceiling: str = ""
    tables: bool = True

    def value(self, metrics: Sequence[Mapping[str, float]]) -> float | None:
        """The column's value over ``metrics`` (one dict per episode), or None if undefined."""
        if not metrics:
            return None
        # fsum: exact, so the episodes' order cannot change the last digit
        top = math.fsum(m.get(self.numerator, 0.0) for m in metrics)
        if self.denominator is None:
            return self.from_sums(top, None, len(metrics))
        bottom = math.fsum(m.get(self.denominator, 0.0) for m in metrics)
        return self.from_sums(top, bottom, len(metrics))

    def from_sums(self, top: float, bottom: float | None, episodes: int) -> float | None:
        """The column's value from the exact sums of its numerator and denominator over
        ``episodes`` episodes (what :meth:`value` computes, for a report that keeps
        running sums instead of every episode's metrics)."""
        if not episodes:
            return None
        if self.denominator is None:
            return top / episodes
        return top / bottom if bottom else None

    def format(self, value: float | None) -> str:
        """``value`` as the table shows it."""
        if value is None:
            return "-"
        if self.percent:
            return f"{100 * value:.{max(self.digits - 1, 0)}f}%"
        return f"{value:.{self.digits}f}"


class Report:
    """A game's own figures for results lines and reports. Pure.

    By default an episode's figures are the numbers of its results (each by its key
    in the record), and the game adds no report column.
    """

    def episode_metrics(self, docs: Sequence[JsonObject]) -> dict[str, float]:
        """A finished episode's figures (for results lines), from its record's lines as
        JSON objects in the form the record models dump them (camelCase keys, every
        field present that the models write; see :func:`harness.summary.summarize`).

        By default: every number of the end line's results but ``scores``.
        """
        results = json_object(docs[-1][END.results])
        return {
            key: float(value)
            for key, value in results.items()
            if key != RESULTS.scores and isinstance(value, int | float)
        }

    def report_columns(self) -> tuple[Column, ...]:
        """The game's own report columns over :meth:`episode_metrics` (by default none)."""
        return ()

    def end_name(self, reason: str, metrics: Mapping[str, float]) -> str:
        """What happened at an episode's end, named for a report's reader, from its
        ``results.reason`` and its :meth:`episode_metrics` (the record keeps the rules'
        reason). By default the reason with its underscores as spaces."""
        return reason.replace("_", " ")

    def end_meanings(self) -> Mapping[str, str]:
        """Each :meth:`end_name` in words, for the legend under a report's table (by
        default none: the names say it)."""
        return {}


__all__ = ["DEADLINE_MEANING", "END", "RESULTS", "Column", "Report"]
