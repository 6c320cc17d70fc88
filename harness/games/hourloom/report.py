"""Hourloom's report part: an episode's figures, the score against PLANNER's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.games.hourloom.record import HourloomResults
from harness.models import JsonObject
from harness.protocol import Column, Report
from harness.protocol.report import DEADLINE_MEANING, END
from harness.records import json_number, json_object, keys

COLUMNS: tuple[Column, ...] = (
    Column(
        "ratio", "score / planned", "score", "planned", percent=True,
        means="the score as a share of PLANNER's on the same chambers (the generator's "
        "plans played under the caps): Hourloom's ceiling",
        ceiling="planner",
    ),
    Column("sealed", "chambers sealed", "sealed", means="chambers sealed per episode"),
    Column("laps", "laps", "laps", means="laps completed per episode"),
)  # fmt: skip

#: What happened at an episode's end, in words.
END_MEANINGS: dict[str, str] = {
    "end run": "the player ended the run",
    "sandglass empty": "the sand ran out",
    "chamber cap": "the chamber cap (maxChambers) was sealed: the harness ended the run",
    "action cap": "the action cap (maxActions, refusals included) was reached: the "
    "harness ended the run",
    "deadline": DEADLINE_MEANING,
}
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

    def end_meanings(self) -> Mapping[str, str]:
        return END_MEANINGS


__all__ = ["COLUMNS", "HourloomReport"]
