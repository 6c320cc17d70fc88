"""Hourloom's report part: an episode's figures, the score against PLANNER's."""

from __future__ import annotations

from collections.abc import Sequence

from harness.games.hourloom.record import HourloomResults
from harness.models import JsonObject
from harness.protocol import Column, Report
from harness.protocol.report import END
from harness.records import json_number, json_object, keys

COLUMNS: tuple[Column, ...] = (
    Column("ratio", "score / planned", "score", "planned", percent=True),
    Column("sealed", "chambers sealed", "sealed"),
    Column("laps", "laps", "laps"),
)
_R = keys(HourloomResults)


class HourloomReport(Report):
    """Hourloom's figures and columns. Stateless."""

    def episode_metrics(self, docs: Sequence[JsonObject]) -> dict[str, float]:
        r = json_object(docs[-1][END.results])  # HourloomResults, dumped
        return {
            "score": json_number(r[_R.score]),
            "planned": json_number(r[_R.planned]),
            "sealed": json_number(r[_R.chambers_sealed]),
            "laps": json_number(r[_R.laps_completed]),
            "actions": json_number(r[_R.actions]),
            "refusals": json_number(r[_R.refusals]),
            "episodes": 1.0,
        }

    def report_columns(self) -> tuple[Column, ...]:
        return COLUMNS


__all__ = ["COLUMNS", "HourloomReport"]
