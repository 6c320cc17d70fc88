"""Relayroam's report part: an episode's figures, the score against its optimum."""

from __future__ import annotations

from collections.abc import Sequence

from harness.games.relayroam.record import RelayroamResults
from harness.models import JsonObject
from harness.protocol import Column, Report
from harness.protocol.report import END
from harness.records import json_number, json_object, keys

COLUMNS: tuple[Column, ...] = (
    Column("ratio", "score / optimum", "score", "optimum", percent=True),
    Column("cleared", "chambers cleared", "cleared"),
    Column("rescued", "helpers rescued", "rescued"),
    Column("depleted", "depleted", "depleted", "episodes", percent=True),
)
_R = keys(RelayroamResults)


class RelayroamReport(Report):
    """Relayroam's figures and columns. Stateless."""

    def episode_metrics(self, docs: Sequence[JsonObject]) -> dict[str, float]:
        r = json_object(docs[-1][END.results])  # RelayroamResults, dumped
        return {
            "score": json_number(r[_R.score]),
            "optimum": json_number(r[_R.optimum]),
            "cleared": json_number(r[_R.cleared_chamber_count]),
            "rescued": json_number(r[_R.total_rescued]),
            "depleted": float(r[_R.reason] == "depleted"),
            "episodes": 1.0,
            "ticks": json_number(r[_R.ticks]),
        }

    def report_columns(self) -> tuple[Column, ...]:
        return COLUMNS


__all__ = ["COLUMNS", "RelayroamReport"]
