"""Relayroam's report part: an episode's figures, the score against its optimum."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.protocol import Column

COLUMNS: tuple[Column, ...] = (
    Column("ratio", "score / optimum", "score", "optimum", percent=True),
    Column("cleared", "chambers cleared", "cleared"),
    Column("rescued", "helpers rescued", "rescued"),
    Column("depleted", "depleted", "depleted", "episodes", percent=True),
)


class RelayroamReport:
    """Relayroam's figures and columns. Stateless."""

    def episode_metrics(self, docs: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        r = docs[-1]["results"]  # RelayroamResults, dumped
        return {
            "score": float(r["score"]),
            "optimum": float(r["optimum"]),
            "cleared": float(r["clearedChamberCount"]),
            "rescued": float(r["totalRescued"]),
            "depleted": float(r["reason"] == "depleted"),
            "episodes": 1.0,
            "ticks": float(r["ticks"]),
        }

    def report_columns(self) -> tuple[Column, ...]:
        return COLUMNS


__all__ = ["COLUMNS", "RelayroamReport"]
