"""Hourloom's report part: an episode's figures, the score against PLANNER's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.game import Column
from harness.games.hourloom.record import HourloomResults

COLUMNS: tuple[Column, ...] = (
    Column("ratio", "score / planned", "score", "planned", percent=True),
    Column("sealed", "chambers sealed", "sealed"),
    Column("laps", "laps", "laps"),
)


class HourloomReport:
    """Hourloom's figures and columns. Stateless."""

    def episode_metrics(self, lines: Sequence[Any]) -> dict[str, float]:
        r: HourloomResults = lines[-1].results
        return {
            "score": float(r.score),
            "planned": float(r.planned),
            "sealed": float(r.chambers_sealed),
            "laps": float(r.laps_completed),
            "actions": float(r.actions),
            "refusals": float(r.refusals),
            "episodes": 1.0,
        }

    def report_columns(self) -> tuple[Column, ...]:
        return COLUMNS


__all__ = ["COLUMNS", "HourloomReport"]
