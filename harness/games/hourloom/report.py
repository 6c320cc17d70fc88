"""Hourloom's report part: an episode's figures, the score against PLANNER's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.protocol import Column

COLUMNS: tuple[Column, ...] = (
    Column("ratio", "score / planned", "score", "planned", percent=True),
    Column("sealed", "chambers sealed", "sealed"),
    Column("laps", "laps", "laps"),
)


class HourloomReport:
    """Hourloom's figures and columns. Stateless."""

    def episode_metrics(self, docs: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        r = docs[-1]["results"]  # HourloomResults, dumped
        return {
            "score": float(r["score"]),
            "planned": float(r["planned"]),
            "sealed": float(r["chambersSealed"]),
            "laps": float(r["lapsCompleted"]),
            "actions": float(r["actions"]),
            "refusals": float(r["refusals"]),
            "episodes": 1.0,
        }

    def report_columns(self) -> tuple[Column, ...]:
        return COLUMNS


__all__ = ["COLUMNS", "HourloomReport"]
