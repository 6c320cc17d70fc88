"""Relayroam's report part: an episode's figures, the score against its optimum."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.games.relayroam.record import RelayroamResults
from harness.models import JsonObject
from harness.protocol import Column, Report
from harness.protocol.report import DEADLINE_MEANING, END
from harness.records import json_number, json_object, keys

COLUMNS: tuple[Column, ...] = (
    Column(
        "ratio", "score / optimum", "score", "optimum", percent=True,
        means="the score as a share of the best score the episode's chambers allow (the "
        "sum of each chamber's optimum, found by an exact solver): Relayroam's ceiling",
    ),
    Column("cleared", "chambers cleared", "cleared", means="chambers cleared per episode"),
    Column("rescued", "helpers rescued", "rescued", means="helpers rescued per episode"),
    # the ended column counts these episodes already: CSV and JSON keep the share
    Column(
        "depleted", "depleted", "depleted", "episodes", percent=True,
        means="episodes that ended with the battery empty", tables=False,
    ),
)  # fmt: skip

#: What happened at an episode's end, in words (the names are the rules' reasons).
END_MEANINGS: dict[str, str] = {
    "banked": "the score was banked: by the player, or by the harness at the chamber cap "
    "or after 60 decisions in one chamber",
    "depleted": "the battery ran out",
    "deadline": DEADLINE_MEANING,
}
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

    def end_meanings(self) -> Mapping[str, str]:
        return END_MEANINGS


__all__ = ["COLUMNS", "RelayroamReport"]
