"""The report as typed data: what :func:`~harness.report.build.build_report` returns.

Its JSON (:meth:`Report.to_json`) is ``lighthouse report --format json``, byte for
byte what the report printed when it was a plain dict: fields in the order they were
written, camelCase keys, NaN as null, ``json.dumps`` with an indent of 2. The JSON
Schema (:func:`report_schema`) is published as docs/schemas/report.schema.json.

Every section is a model of its own, built in one place and read by attribute by
the renderers (Markdown, CSV, the results browser) and the plot. A new figure is a
new field, and a new section a new model: add it where it should print (the JSON
keeps the field order), give it a default when older readers may lack it, and
regenerate the schema (``lighthouse schema --of report``).
"""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import Field

from harness.models import StrictModel
from harness.report.crossplay_model import Crossplay
from harness.report.selection import Selected
from harness.report.stats import Interval


def _num(value: float) -> float | None:
    return None if math.isnan(value) else value


class MeanInterval(StrictModel):
    """A mean over ``n`` (seed, variant) cells with its bootstrap interval; ``low`` and
    ``high`` are null with fewer than two cells (one cell gives no interval)."""

    mean: float | None
    low: float | None
    high: float | None
    n: int = Field(description="Cells the mean is over.")
    episodes: int = Field(description="Episodes the cells hold (0 where not counted).")

    @classmethod
    def of(cls, iv: Interval) -> MeanInterval:
        """``iv`` as the report holds it (NaN as null)."""
        return cls(
            mean=_num(iv.mean), low=_num(iv.low), high=_num(iv.high), n=iv.n, episodes=iv.episodes
        )


class LevelInterval(MeanInterval):
    """A pairwise difference's interval, at the level Holm's procedure tests it at."""

    level: float | None = Field(description="The interval's confidence level; null untested.")

    @classmethod
    def at(cls, iv: Interval, level: float | None) -> LevelInterval:
        """``iv`` at ``level`` (NaN as null)."""
        return cls(
            mean=_num(iv.mean), low=_num(iv.low), high=_num(iv.high), n=iv.n,
            episodes=iv.episodes, level=level,
        )  # fmt: skip


class Rank(StrictModel):
    """An entrant's rank on the cells all ranked entrants share, with its 95% interval."""

    rank: int
    rank_low: int
    rank_high: int
    cells: int = Field(description="The shared cells the rank is over.")


class Latency(StrictModel):
    """Percentiles of the model calls' latency, in milliseconds (null: no call)."""

    p50: float | None
    p95: float | None


class EntrantRow(StrictModel):
    """One entrant's figures (or its fallback-free episodes')."""

    entrant: str
    seats: dict[str, str] = Field(description="Each seat group's agents, as tables show them.")
    episodes: int
    planned: int | None = Field(description="Episodes planned; null in the fallback-free rows.")
    cells: int
    score: MeanInterval
    ceiling_share: float | None = Field(
        description="The mean over cells as a share of the ceiling's on the same cells."
    )
    rank: Rank | None
    columns: dict[str, float | None] = Field(description="The game's columns, by key.")
    reasons: dict[str, int] = Field(description="Episodes by the reason they ended.")
    calls: int
    retries: int = Field(description="Model calls beyond one a turn: the retries sent.")
    rescued: int = Field(description="Turns a retry with a hint rescued.")
    fallback_rate: dict[str, float] = Field(
        description="By role: the share of model turns that fell back to the baseline."
    )
    input_tokens: int
    output_tokens: int
    cost_usd: float
    unpriced_calls: int = Field(
        0,
        exclude_if=lambda v: not v,
        description="Calls answered with no price for their model: costUsd leaves them "
        "out, and the tables say 'no price' (absent when none, and for results lines "
        "written before they were counted).",
    )
    latency_ms: Latency
    fallback_free_episodes: int


class PairedRow(StrictModel):
    """An entrant against the reference, over the cells both finished."""

    entrant: str
    reference: str
    pairs: int = Field(description="The cells both finished.")
    difference: MeanInterval
    wins: int
    ties: int
    losses: int


class PairwiseRow(StrictModel):
    """Entrant minus ``versus``, Holm-adjusted."""

    entrant: str
    versus: str
    cells: int
    difference: LevelInterval
    p: float | None = Field(description="The bootstrap p-value; null when untested.")
    p_holm: float | None
    significant: bool


class Pairwise(StrictModel):
    """Every two entrants compared, Holm-adjusted for the comparisons tested."""

    comparisons: int
    alpha: float
    rows: list[PairwiseRow]


class FallbackFree(StrictModel):
    """The same tables over the episodes in which no seat fell back."""

    entrants: list[EntrantRow]
    paired: list[PairedRow]


class BoardRow(StrictModel):
    """One entrant of a seat group's leaderboard."""

    entrant: str
    agent: str
    same_as: list[str] = Field(description="Entrants of the board with the same spec.")
    rank: int
    rank_low: int
    rank_high: int
    cells: int
    score: MeanInterval


class Leaderboard(StrictModel):
    """Entrants that differ only in ``group``, ranked over the cells all finished."""

    group: str
    context: dict[str, str] = Field(description="The other seat groups' agents.")
    cells: int
    rows: list[BoardRow]


class ServerRow(StrictModel):
    """One entrant's model-server figures (see :mod:`harness.report.servers`)."""

    entrant: str
    calls: int
    cached: int
    wait_ms_p50: float | None
    request_ms_p50: float | None
    batch_ticks: int
    requests_per_tick: float | None
    concurrency: float | None
    warning: str | None


class EntrantCount(StrictModel):
    """One entrant's finished episodes against its planned ones."""

    finished: int
    planned: int


class CompletenessInfo(StrictModel):
    """Planned against finished (see :mod:`harness.report.completeness`)."""

    complete: bool
    finished: int
    planned: int
    by_entrant: dict[str, EntrantCount]
    shard: str | None = Field(description='The folder\'s shard: "I/N" or "merged".')
    missing_shards: list[str]
    summary: str


class IntervalMethod(StrictModel):
    """How every interval of the report was made."""

    method: str
    unit: str = Field(description="The unit resampled.")
    level: float
    resamples: int
    seed: int


class CeilingInfo(StrictModel):
    """What every entrant is measured against (``ceilingShare``)."""

    name: str
    hidden: bool = Field(description="Played for the report rather than as an entrant.")
    cells: int


class ColumnInfo(StrictModel):
    """One of the game's columns: its key in ``columns``, and how tables show it."""

    key: str
    label: str
    percent: bool
    digits: int
    means: str


class Report(StrictModel):
    """A tournament report, computed from its results lines alone (see build.py)."""

    title: str
    game: str
    seat_groups: list[str]
    roles: list[str]
    leader: str = Field(description="The first seat group.")
    episodes: int
    cells: int
    completeness: CompletenessInfo
    selection: Selected | None = Field(
        description="What the folder holds beyond the episodes counted, and why a run "
        "stopped early; null for a report not made from a folder."
    )
    intervals: IntervalMethod
    reference: str | None
    ceiling: CeilingInfo | None
    columns: list[ColumnInfo]
    legend: str
    entrants: list[EntrantRow]
    paired: list[PairedRow]
    pairwise: Pairwise
    fallback_free: FallbackFree
    identical: list[list[str]] = Field(
        description="Groups of entrants with the same spec for every seat group."
    )
    leaderboards: list[Leaderboard]
    fallback_flags: dict[str, str] = Field(
        description="Entrants whose model seats fell back too often, and their flag."
    )
    servers: list[ServerRow]
    deadlines: int = Field(description="Episodes that ran out of their play budget.")
    crossplay: Crossplay | None = Field(
        None,
        exclude_if=lambda value: value is None,  # absent from the JSON of other reports
        description="A cross-play design's matrix and decomposition (harness/report/crossplay.py).",
    )

    @property
    def complete(self) -> bool:
        """Whether every planned episode finished."""
        return self.completeness.complete

    def to_json(self) -> str:
        """``lighthouse report --format json``: the same bytes for the same results
        (``json.dumps`` of the camelCase fields in order, not pydantic's own JSON, whose
        float and non-ASCII forms differ)."""
        data = self.model_dump(mode="python", by_alias=True)
        return json.dumps(data, indent=2, allow_nan=False) + "\n"


def report_schema() -> dict[str, Any]:
    """The JSON Schema of a report (published as docs/schemas/report.schema.json)."""
    return Report.model_json_schema(by_alias=True, mode="serialization")


__all__ = [
    "BoardRow",
    "CeilingInfo",
    "ColumnInfo",
    "CompletenessInfo",
    "EntrantCount",
    "EntrantRow",
    "FallbackFree",
    "IntervalMethod",
    "Latency",
    "Leaderboard",
    "LevelInterval",
    "MeanInterval",
    "PairedRow",
    "Pairwise",
    "PairwiseRow",
    "Rank",
    "Report",
    "ServerRow",
    "report_schema",
]
