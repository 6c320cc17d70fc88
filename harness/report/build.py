"""A tournament report, computed from its results lines alone.

Per entrant: episodes (finished against planned), (seed, variant) cells, mean score
over cells with a 95% bootstrap interval over cells, its rank with a 95% rank
interval, the game's own columns (for Lighthouse: keys, escape rate, time bonus,
radio figures), reasons, and LLM figures (fallback rate by role, tokens, cost,
latency p50/p95). Against a reference entrant: paired differences over shared
cells with wins/ties/losses. Between every two entrants: the paired difference,
Holm-adjusted. The same again on episodes without any LLM fallback, and a
leaderboard per seat group over entrants that differ only in that group. With a
ceiling (a strong baseline team's scores by cell), each entrant's mean over cells as
a share of the ceiling's mean over the same cells.

The same results give the same report, byte for byte, whatever order they were
written in: the episodes are folded into a :class:`~harness.report.digest.Digest`
whose sums are exact, and whatever depends on order (the agents an entrant's first
episode names, the server figures' sums) is taken in one canonical order (entrant,
variant, seed, repetition, id).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from harness.protocol import Column, GameEntry
from harness.report.cells import Cell, CellMeans
from harness.report.compare import ALPHA, pair_bootstrap, pairwise
from harness.report.completeness import Completeness, Plan
from harness.report.crossplay import CrossplayLayout, crossplay_section
from harness.report.digest import Digest, EntrantDigest, digest
from harness.report.leaderboards import Specs, identical_entrants, leaderboards, ranked
from harness.report.model import (
    CeilingInfo,
    ColumnInfo,
    CompletenessInfo,
    EntrantCount,
    EntrantRow,
    FallbackFree,
    IntervalMethod,
    Latency,
    LevelInterval,
    MeanInterval,
    PairedRow,
    Pairwise,
    PairwiseRow,
    Report,
    ServerRow,
)
from harness.report.selection import Selected
from harness.report.servers import flags_of, server_row
from harness.report.stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    LEVEL,
    Interval,
    compact_draws,
    interval_from,
    paired_difference,
    percentile,
)
from harness.summary import EpisodeSummary


@dataclass(frozen=True)
class Ceiling:
    """What a report measures each entrant against: ``name``'s mean score on each cell.

    ``hidden`` when the ceiling was played for the report rather than as an entrant.
    """

    name: str
    scores: Mapping[Cell, float]
    hidden: bool = False

    def share(self, cells: Mapping[Cell, float]) -> float | None:
        """The mean over ``cells`` (cell means) as a share of the ceiling's on the same cells.

        Cells the ceiling lacks are left out; None when none is left or the ceiling's
        mean there is not positive.
        """
        scores = CellMeans.of(self.scores)
        shared = CellMeans.common([CellMeans.of(cells), scores])
        ceiling = math.fsum(scores.on(shared))
        if not shared or ceiling <= 0:
            return None
        return math.fsum(shared.means) / ceiling


def legend(columns: Sequence[Column]) -> str:
    """The one-line legend of a game's columns: ``label: what it counts; ...``."""
    return "; ".join(f"{c.label}: {c.means}" for c in columns if c.means)


def canonical_order(summaries: Sequence[EpisodeSummary]) -> list[EpisodeSummary]:
    """Episodes by (entrant, variant, seed, repetition, id); equal keys by their JSON."""
    return sorted(
        summaries,
        key=lambda s: (s.entrant, s.variant, s.seed, s.repetition, s.episode_id,
                       s.model_dump_json()),
    )  # fmt: skip


#: Draws kept for reuse within one report while they take at most this many indices in
#: all (4 MB, two bytes an index); beyond it, cells are drawn again for each statistic
#: (the same numbers). Kept small so that a report's memory stays flat in the size of
#: its tournament: a bigger cap was most of a mid-sized report's peak.
KEEP_DRAWS = 2_000_000


class _Resampler:
    """The seeded draws over n cells, made once per n for one report (while they fit),
    and the score interval of each table of cell means."""

    def __init__(self) -> None:
        self.kept: dict[int, list[array[int]]] = {}
        self.held = 0
        self.scores: dict[tuple[int, int], tuple[CellMeans, Interval]] = {}

    def score(self, table: CellMeans, episodes: int) -> Interval:
        """The mean of ``table`` with its interval: worked out once per table, which an
        entrant's fallback-free row shares when none of its episodes fell back."""
        key = (id(table), episodes)  # the table is kept with it: its id stays its own
        if key not in self.scores:
            values = table.means
            self.scores[key] = table, interval_from(values, self(len(values)), episodes=episodes)
        return self.scores[key][1]

    def __call__(self, n: int) -> Iterable[Sequence[int]]:
        if n in self.kept:
            return self.kept[n]
        if self.held + n * BOOTSTRAP_RESAMPLES > KEEP_DRAWS:
            return compact_draws(n)
        self.held += n * BOOTSTRAP_RESAMPLES
        self.kept[n] = list(compact_draws(n))
        return self.kept[n]


def _clean_cells(
    clean: Mapping[str, EntrantDigest], cells: Mapping[str, CellMeans], variants: Sequence[str]
) -> dict[str, CellMeans]:
    """The fallback-free episodes' cell means; an entrant none of whose episodes fell
    back has the table of all its episodes (the same episodes: the same table)."""
    return {
        name: cells[name]
        if entry.of is not None and len(entry) == len(entry.of) and name in cells
        else CellMeans.of_entrant(entry, variants)
        for name, entry in clean.items()
    }


def _num(value: float) -> float | None:
    return None if math.isnan(value) else value


def _labels(game: GameEntry, first: EpisodeSummary | None) -> dict[str, str]:
    """Each seat group's agents as the tables show them (from an episode's seats)."""
    seats = first.seats if first is not None else {}
    return {
        group.key: ", ".join(sorted({seats[s].agent for s in group.seats if s in seats}))
        for group in game.seat_groups
    }


def _entrant_row(
    game: GameEntry,
    name: str,
    entry: EntrantDigest,
    by_cell: CellMeans,
    planned: int | None,
    resample: _Resampler,
    ceiling: Ceiling | None = None,
) -> EntrantRow:
    score = resample.score(by_cell, len(entry))
    turns, fallbacks = entry.turns, entry.fallbacks
    return EntrantRow(
        entrant=name,
        seats=_labels(game, entry.first),
        episodes=len(entry),
        planned=planned,
        cells=len(by_cell),
        score=MeanInterval.of(score),
        ceiling_share=ceiling.share(by_cell) if ceiling is not None else None,
        rank=None,
        columns={
            c.key: c.from_sums(*entry.column(c.numerator, c.denominator), len(entry))
            for c in game.report.report_columns()
        },
        reasons=dict(sorted(entry.reasons.items())),
        calls=entry.calls,
        retries=entry.retries,
        rescued=entry.rescued,
        fallback_rate={
            role: fallbacks[role] / turns[role] for role in sorted(turns) if turns[role]
        },
        input_tokens=entry.input_tokens,
        output_tokens=entry.output_tokens,
        cost_usd=entry.cost.value(),
        unpriced_calls=entry.unpriced,
        latency_ms=Latency(
            p50=_num(percentile(entry.latencies, 50)), p95=_num(percentile(entry.latencies, 95))
        ),
        fallback_free_episodes=entry.fallback_free,
    )


def _paired(
    cells: Mapping[str, CellMeans], reference: str | None, resample: _Resampler
) -> list[PairedRow]:
    if reference is None or reference not in cells:
        return []
    ref = cells[reference]
    rows = []
    for name, table in cells.items():
        if name == reference:
            continue
        paired = paired_difference(table, ref, resample=resample)
        rows.append(
            PairedRow(
                entrant=name,
                reference=reference,
                pairs=paired.pairs,
                difference=MeanInterval.of(paired.difference),
                wins=paired.wins,
                ties=paired.ties,
                losses=paired.losses,
            )
        )
    return rows


def _pairwise(
    names: list[str], cells: Mapping[str, Mapping[Cell, float]], resample: _Resampler
) -> Pairwise:
    diffs, stats = pair_bootstrap(names, cells, resample)
    rows = [
        PairwiseRow(
            entrant=c.first,
            versus=c.second,
            cells=c.difference.n,
            difference=LevelInterval.at(c.difference, None if c.holm is None else c.holm.level),
            p=c.p,
            p_holm=None if c.holm is None else c.holm.adjusted,
            significant=c.significant,
        )
        for c in pairwise(names, diffs, stats)
    ]
    tested = sum(1 for r in rows if r.p is not None)
    return Pairwise(comparisons=tested, alpha=ALPHA, rows=rows)


def _group(table: Mapping[str, EntrantDigest], order: Sequence[str]) -> dict[str, EntrantDigest]:
    names = [n for n in order if n in table] + sorted(n for n in table if n not in order)
    return {name: table[name] for name in names}


def _completeness(done: Completeness, plan: Plan | None) -> CompletenessInfo:
    return CompletenessInfo(
        complete=done.complete,
        finished=sum(done.finished.values()),
        planned=sum(done.planned.values()),
        by_entrant={
            name: EntrantCount(finished=done.finished.get(name, 0), planned=count)
            for name, count in done.planned.items()
        },
        shard=plan.shard if plan is not None else None,
        missing_shards=list(done.missing_shards),
        summary=done.summary(),
    )


def _server(name: str, entry: EntrantDigest) -> ServerRow | None:
    """The entrant's server figures (:func:`server_row`), when it made model calls."""
    if not entry.model_seats:
        return None
    waits: list[float] = []
    requests: list[float] = []
    call_ms: float = 0
    tick_ms: float = 0
    # summed in canonical order, as a list of every episode would be: the same floats
    for ep in entry.ordered_with_calls():
        for seat in ep.seats.values():
            if seat.calls:
                waits.extend(seat.wait_ms)
                requests.extend(seat.request_ms)
        call_ms += ep.batch.call_ms
        tick_ms += ep.batch.tick_ms
    return server_row(
        name,
        calls=entry.calls,
        cached=entry.cached,
        waits=waits,
        requests=requests,
        ticks=entry.batch_ticks,
        batch_calls=entry.batch_calls,
        call_ms=call_ms,
        tick_ms=tick_ms,
    )


def _columns(columns: Sequence[Column]) -> list[ColumnInfo]:
    return [
        ColumnInfo(key=c.key, label=c.label, percent=c.percent, digits=c.digits, means=c.means)
        for c in columns
    ]


#: How every interval of a report is made.
INTERVALS = IntervalMethod(
    method="percentile bootstrap",
    unit="(seed, variant) cell",
    level=LEVEL,
    resamples=BOOTSTRAP_RESAMPLES,
    seed=BOOTSTRAP_SEED,
)


def build_report(
    game: GameEntry,
    summaries: Sequence[EpisodeSummary] | Digest,
    *,
    reference: str | None = None,
    order: Sequence[str] = (),
    title: str = "",
    specs: Specs | None = None,
    plan: Plan | None = None,
    ceiling: Ceiling | None = None,
    selection: Selected | None = None,
    crossplay: CrossplayLayout | None = None,
) -> Report:
    """The whole report (whose JSON ``--format json`` prints: :meth:`Report.to_json`).

    ``specs`` (entrant -> seat group -> spec, see
    :func:`harness.results.specs.entrant_specs`) decides who a leaderboard may compare
    and which entrants are identical; without it the agents named in the episodes
    stand in. ``plan`` is what the folder should hold; without it the episodes present
    count as complete. ``selection`` says what the folder holds beyond ``summaries``
    and why a run stopped early; the report repeats it. A folder's report is read with
    all of these by :func:`harness.results.read_results`. ``crossplay`` lays a
    cross-play design's entrants out as a matrix (:mod:`harness.report.crossplay`).
    """
    if isinstance(summaries, Digest):
        if summaries.plan is not plan:
            raise ValueError("build_report: the digest was folded against another plan")
        folded = summaries
    else:
        folded = digest(game, summaries, plan)
    variants = folded.variant_names
    resample = _Resampler()
    done = folded.completeness()
    by_entrant = _group(folded.entrants, order)
    names = list(by_entrant)
    clean = _group(folded.clean, order)
    groups = game.seat_groups
    labels = {name: _labels(game, entry.first) for name, entry in by_entrant.items()}
    known = {n: dict(specs[n]) for n in names if specs is not None and n in specs}
    identity = {n: known.get(n, labels[n]) for n in names}
    cells = {name: CellMeans.of_entrant(entry, variants) for name, entry in by_entrant.items()}
    rows = [
        _entrant_row(game, n, entry, cells[n], done.planned.get(n), resample, ceiling)
        for n, entry in by_entrant.items()
    ]
    ranks = ranked(names, cells, resample) if len(names) > 1 else {}
    clean_cells = _clean_cells(clean, cells, variants)
    rows = [
        row.model_copy(update={"rank": ranks[row.entrant].figures()})
        if row.entrant in ranks
        else row
        for row in rows
    ]
    columns = game.report.report_columns()
    return Report(
        title=title,
        game=game.name,
        seat_groups=[g.key for g in groups],
        roles=sorted({g.role for g in groups}),
        leader=groups[0].key,
        episodes=folded.episodes,
        cells=CellMeans.union_size(list(cells.values())),
        completeness=_completeness(done, plan),
        selection=selection,
        intervals=INTERVALS,
        reference=reference,
        ceiling=None
        if ceiling is None
        else CeilingInfo(name=ceiling.name, hidden=ceiling.hidden, cells=len(ceiling.scores)),
        columns=_columns(columns),
        legend=legend(columns),
        entrants=rows,
        paired=_paired(cells, reference, resample),
        pairwise=_pairwise(names, cells, resample),
        fallback_free=FallbackFree(
            # no planned count: these are a selection of the finished episodes
            entrants=[
                _entrant_row(game, n, entry, clean_cells[n], None, resample, ceiling)
                for n, entry in clean.items()
            ],
            paired=_paired(clean_cells, reference, resample),
        ),
        identical=identical_entrants(names, identity),
        leaderboards=leaderboards(game, names, labels, identity, cells, resample),
        fallback_flags=flags_of(
            {n: (sum(e.turns.values()), sum(e.fallbacks.values())) for n, e in by_entrant.items()}
        ),
        servers=[s for n, e in by_entrant.items() if (s := _server(n, e)) is not None],
        deadlines=sum(e.reasons["deadline"] for e in by_entrant.values()),
        crossplay=None if crossplay is None else crossplay_section(crossplay, cells),
    )


__all__ = ["INTERVALS", "Ceiling", "build_report", "canonical_order", "legend"]
