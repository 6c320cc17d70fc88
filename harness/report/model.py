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
from typing import Annotated, Literal

from pydantic import Field

from harness.models import JsonObject, StrictModel, absent_if_empty, absent_if_none
from harness.report.crossplay_model import Crossplay
from harness.report.faithfulness import FaithfulnessRow
from harness.report.methods import Estimate, Method, Reason
from harness.report.selection import Selected


def _num(value: float) -> float | None:
    return None if math.isnan(value) else value


class MeanInterval(StrictModel):
    """A figure over seeds (the unit every interval resamples) and its interval.

    ``low`` and ``high`` are null when there is no interval (fewer than two seeds,
    too few for the level, or unbounded); ``reason`` then says why, and it says why
    for an interval of zero width too (a constant entrant is not a certain one).
    """

    mean: float | None
    low: float | None
    high: float | None
    n: int = Field(description="The (seed, variant) cells the figure is over.")
    episodes: int = Field(description="Episodes the cells hold (0 where not counted).")
    seeds: int = Field(0, description="The seeds the figure rests on: the unit resampled.")
    level: float | None = Field(None, description="The interval's confidence level.")
    method: Method | None = Field(None, description="How the interval was made.")
    resamples: int | None = Field(
        None,
        description="Resamples behind the interval: bootstrap resamples, or sign vectors "
        "(all 2^n of them up to 16 seeds, else those drawn); null for a closed form.",
    )
    reason: Reason | None = Field(
        None, description="Why the interval is missing, unbounded or of zero width."
    )

    @classmethod
    def of(cls, estimate: Estimate, *, cells: int, episodes: int = 0) -> MeanInterval:
        """``estimate`` as the report holds it (NaN and infinite ends as null)."""
        bounded = estimate.has_interval and not (
            math.isinf(estimate.low) or math.isinf(estimate.high)
        )
        return cls(
            mean=_num(estimate.value),
            low=estimate.low if bounded else None,
            high=estimate.high if bounded else None,
            n=cells,
            episodes=episodes,
            seeds=estimate.seeds,
            level=estimate.level,
            method=estimate.method,
            resamples=estimate.resamples,
            reason=estimate.reason,
        )


class Profile(StrictModel):
    """A performance profile: at each threshold tau, the share of seeds whose seed
    score is at least tau, with a band that holds for every tau at once."""

    thresholds: list[float] = Field(description="The distinct seed scores, ascending.")
    shares: list[float] = Field(description="The share of seeds scoring at least each one.")
    low: list[float]
    high: list[float]
    level: float
    seeds: int
    method: Literal["DKW band over seeds"] = "DKW band over seeds"


class Rank(StrictModel):
    """An entrant's rank on the seeds all ranked entrants share, with its simultaneous
    interval (all ranks hold together at 95%), read off the pairwise stars."""

    rank: int
    rank_low: int
    rank_high: int
    cells: int = Field(description="The shared cells the rank is over.")
    seeds: int = Field(0, description="The shared seeds the rank is over.")


class Latency(StrictModel):
    """Percentiles of the model calls' latency, in milliseconds (null: no call)."""

    p50: float | None
    p95: float | None


class NotOwnCount(StrictModel):
    """A seat group's turns, and those its entrant did not play itself: its role's
    baseline answered because the entrant's own player (a model, a Python agent, an
    Inspect model, or a record of one) gave no usable answer."""

    turns: int
    not_own: int
    sources: dict[str, int] = Field(description="The turns not its own, by fallback source.")

    @property
    def share(self) -> float:
        """The share of turns not its own (0 without turns)."""
        return self.not_own / self.turns if self.turns else 0.0


class EntrantRow(StrictModel):
    """One entrant's figures (or its fallback-free episodes')."""

    entrant: str
    seats: dict[str, str] = Field(description="Each seat group's agents, as tables show them.")
    episodes: int
    planned: int | None = Field(description="Episodes planned; null in the fallback-free rows.")
    cells: int = Field(description="The (seed, variant) cells the entrant finished.")
    score: MeanInterval = Field(
        description="The mean over seeds of each seed's balanced mean over the variants, "
        "over the seeds the entrant finished in every variant it played."
    )
    ceiling_share: float | None = Field(
        description="The score as a share of the ceiling's over the seeds both finished."
    )
    rank: Rank | None
    columns: dict[str, float | None] = Field(description="The game's columns, by key.")
    reasons: dict[str, int] = Field(
        description="Episodes by the reason they ended, the rules' value as the record keeps it."
    )
    calls: int
    retries: int = Field(description="Model calls beyond one a turn: the retries sent.")
    rescued: int = Field(description="Turns a retry with a hint rescued.")
    fallback_rate: dict[str, float] = Field(
        description="By role: the share of model turns that fell back to the baseline."
    )
    input_tokens: int
    output_tokens: int
    cost_usd: float
    unpriced_calls: int = absent_if_empty(
        0,
        description="Calls answered with no price for their model: costUsd leaves them "
        "out, and the tables say 'no price' (absent when none, and for results lines "
        "written before they were counted).",
    )
    latency_ms: Latency
    fallback_free_episodes: int
    seeds: int = Field(0, description="The seeds the score is over.")
    per_variant: dict[str, MeanInterval] = Field(
        default_factory=dict,
        description="Each variant's mean over the same seeds as the score, by variant.",
    )
    iqm: MeanInterval | None = Field(None, description="The interquartile mean of the seed scores.")
    ceiling_ratio: MeanInterval | None = Field(
        None, description="ceilingShare with its interval over the seeds both finished."
    )
    profile: Profile | None = Field(
        None, description="The share of seeds scoring at least each threshold."
    )
    dropped: str = Field("", description="What the score left out of the entrant's cells, and why.")
    not_own: dict[str, NotOwnCount] = Field(
        default_factory=dict,
        description="By seat group: its turns, and those the entrant did not play itself "
        "(its role's baseline answered), for every kind of seat.",
    )
    ends: dict[str, int] = Field(
        default_factory=dict,
        description="Episodes by what happened at their end, in words (Lighthouse: all "
        "escaped, all drowned, escaped and drowned, flooded, tick cap, deadline); the "
        "report's legend says what each means.",
    )
    mostly_not_own: bool = Field(
        False,
        description="More than half of some seat group's turns were not the entrant's own: "
        "its score is mostly its baseline's, so it is ranked apart (rank null, listed after "
        "the ranked entrants).",
    )
    few_seeds: bool = Field(
        False,
        description="It finished fewer than half the seeds the most complete entrant "
        "finished (a person's few episodes, a late addition): ranked apart (rank null), "
        "so that its few seeds do not narrow every other entrant's ranks to them; its "
        "score is over its own seeds.",
    )


# The fields every comparison of two entrants holds (against the reference, or pairwise).
#: The seeds a comparison is over.
ComparedSeeds = Annotated[int, Field(description="The seeds compared.")]
#: The smallest p-value a comparison's test can give on its seeds.
PFloor = Annotated[
    float | None, Field(description="The smallest p-value the test can give on these seeds.")
]
#: What a comparison left out of the cells its two entrants finished.
LeftOut = Annotated[str, Field(description="What the comparison left out, and why.")]


class PairedRow(StrictModel):
    """An entrant against the reference, over the cells both finished."""

    entrant: str
    reference: str
    pairs: int = Field(description="The cells compared (both finished, on the seeds used).")
    difference: MeanInterval = Field(
        description="The mean over paired seeds of entrant - reference, not adjusted."
    )
    wins: int = Field(description="Seeds the entrant scored more on.")
    ties: int
    losses: int
    seeds: ComparedSeeds = 0
    p: float | None = Field(None, description="The paired p-value, not adjusted.")
    p_floor: PFloor = None
    improvement: MeanInterval | None = Field(
        None, description="P(entrant > reference) over the paired seeds, ties halved."
    )
    dropped: LeftOut = ""


class PairwiseRow(StrictModel):
    """Entrant minus ``versus``, Holm-adjusted."""

    entrant: str
    versus: str
    cells: int
    difference: MeanInterval = Field(
        description="The mean over paired seeds, its interval at the level Holm tests it at."
    )
    p: float | None = Field(
        description="The paired p-value (the larger of the sign-flip and the skew-corrected "
        "t tests'); null when untested."
    )
    p_holm: float | None
    significant: bool
    seeds: ComparedSeeds = 0
    p_floor: PFloor = None
    dropped: LeftOut = ""


class Pairwise(StrictModel):
    """Every two entrants compared, Holm-adjusted for the comparisons tested."""

    comparisons: int
    alpha: float
    rows: list[PairwiseRow]
    seeds_needed: int = Field(0, description="The fewest seeds on which any pair could be starred.")
    note: str = Field("", description="Why nothing can be concluded, in words (empty when it can).")
    flips: int = Field(
        0, description="Random sign vectors drawn per pair beyond 16 seeds (fewer: all 2^n)."
    )


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
    """Entrants that differ only in ``group``, ranked over the seeds all finished, their
    rank intervals from the stars of a family of their own."""

    group: str
    context: dict[str, str] = Field(description="The other seat groups' agents.")
    cells: int
    rows: list[BoardRow]
    seeds: int = Field(0, description="The seeds all of the board's entrants finished.")
    note: str = Field("", description="Why its ranks can conclude nothing, when they cannot.")
    apart: list[str] = Field(
        default_factory=list,
        description="Entrants of the board ranked apart: most of a seat group's turns were "
        "not their own (see EntrantRow.mostlyNotOwn).",
    )
    few_seeds: list[str] = Field(
        default_factory=list,
        description="Entrants of the board ranked apart for too few seeds "
        "(see EntrantRow.fewSeeds).",
    )


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


class EndpointRow(StrictModel):
    """One model server's figures, every entrant together (see
    :mod:`harness.report.endpoints`)."""

    endpoint: str = Field(description="The endpoint, base URL or provider (no credentials).")
    calls: int = Field(description="Calls it answered.")
    errors: int = Field(description="Attempts that failed at it.")
    request_ms_p50: float | None
    queue_ms_mean: float | None = Field(
        description="Mean time beyond the server's own processing, where it reports it."
    )
    inflation: float | None = Field(
        description="Request time over the server's own time (or over calls made alone)."
    )
    inflation_basis: Literal["server time", "calls alone"] | None
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
    """How the report's intervals were made (each interval names its own method too)."""

    method: str
    unit: str = Field(description="The unit resampled.")
    level: float
    resamples: int = Field(description="Bootstrap resamples of the seeds (the IQM's).")
    seed: int = Field(description="The seed of the bootstrap's generator.")
    flip_seed: int = Field(0, description="The seed of the random sign flips' generator.")
    exact_up_to: int = Field(
        0, description="Up to this many seeds every sign vector is enumerated."
    )


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
    tables: bool = Field(
        True,
        exclude_if=lambda v: v,
        description="False (absent when true) for a column the tables leave out: another "
        "column shows the same (the ceiling's share, the episodes' ends); CSV keeps it.",
    )


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
    end_legend: str = Field(
        "", description="What each end named in the entrants' ends means, in words."
    )
    max_score: float | None = Field(
        None, description="The highest score the rules allow (Lighthouse: 42), when fixed."
    )
    entrants: list[EntrantRow]
    paired: list[PairedRow]
    pairwise: Pairwise
    fallback_free: FallbackFree
    identical: list[list[str]] = Field(
        description="Groups of entrants with the same spec for every seat group."
    )
    leaderboards: list[Leaderboard]
    fallback_flags: dict[str, str] = Field(
        description="Entrants a seat group of which (of any kind of seat) fell back to its "
        "baseline on more than 10% of its turns, and their flag."
    )
    servers: list[ServerRow]
    endpoints: list[EndpointRow] = absent_if_empty(  # absent from reports without such figures
        default_factory=list,
        description="Per model server: calls, errors, latency and queueing "
        "(harness/report/endpoints.py).",
    )
    deadlines: int = Field(description="Episodes that ran out of their play budget.")
    seeds: int = Field(0, description="The seeds any entrant finished a cell of.")
    variants: list[str] = Field(default_factory=list, description="The variants, sorted.")
    crossplay: Crossplay | None = absent_if_none(  # absent from the JSON of other reports
        "A cross-play design's matrix and decomposition (harness/report/crossplay.py)."
    )
    faithfulness: list[FaithfulnessRow] = absent_if_empty(  # absent without lines measuring it
        default_factory=list,
        description="Per entrant and seat group with model calls: distinct replies, copies "
        "of the prompt's examples, replies cut by length and stop reasons, beside the "
        "fallback share (harness/report/faithfulness.py).",
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


def report_schema() -> JsonObject:
    """The JSON Schema of a report (published as docs/schemas/report.schema.json)."""
    return Report.model_json_schema(by_alias=True, mode="serialization")


__all__ = [
    "BoardRow",
    "CeilingInfo",
    "ColumnInfo",
    "CompletenessInfo",
    "EndpointRow",
    "EntrantCount",
    "EntrantRow",
    "FallbackFree",
    "IntervalMethod",
    "Latency",
    "Leaderboard",
    "MeanInterval",
    "NotOwnCount",
    "PairedRow",
    "Pairwise",
    "PairwiseRow",
    "Profile",
    "Rank",
    "Report",
    "ServerRow",
    "report_schema",
]
