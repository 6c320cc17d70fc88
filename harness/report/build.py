"""A tournament report, computed from its results lines alone.

Per entrant: episodes (finished against planned), its score over seeds (the mean over
the seeds it finished in every variant it played of each seed's balanced mean over
the variants, repetitions averaged within a cell) with a 95% interval over seeds,
per-variant means, the interquartile mean, a performance profile, its rank with a
simultaneous interval, the game's own columns (for Lighthouse: keys, escape rate,
time bonus, radio figures), reasons, and LLM figures (fallback rate by role,
tokens, cost, latency p50/p95). Against a reference entrant: paired differences over
the seeds both finished, with P(entrant > reference) and wins/ties/losses by seed.
Between every two entrants: the paired difference, starred by Holm's procedure. The
same again on episodes without any LLM fallback, and a leaderboard per seat group
over entrants that differ only in that group. With a ceiling (a strong baseline
team's scores by cell), each entrant's score as a share of the ceiling's over the
seeds both finished, with its interval. The statistics are
:mod:`harness.report.methods`' (docs/tournaments.md gives every formula);
:mod:`harness.report.estimates` turns them into the report's models.

The same results give the same report, byte for byte, whatever order they were
written in: the episodes are folded into a :class:`~harness.report.digest.Digest`
whose sums are exact, the statistics see seeds and variants in ascending order with
exact sums and seeded generators, and whatever depends on order (the agents an
entrant's first episode names, the server figures' sums) is taken in one canonical
order (entrant, variant, seed, repetition, id).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.protocol import Column, GameEntry
from harness.report.cells import Cell, CellMeans
from harness.report.completeness import Completeness, Plan
from harness.report.crossplay import CrossplayLayout, crossplay_section
from harness.report.crossplay_model import Crossplay
from harness.report.digest import Digest, EntrantDigest, digest
from harness.report.endpoints import EndpointTotals
from harness.report.estimates import (
    EntrantStats,
    entrant_stats,
    family_of,
    paired_of,
    pairwise_of,
    ranks_of,
)
from harness.report.leaderboards import Specs, identical_entrants, leaderboards
from harness.report.methods import LEVEL, Family, SeedTable
from harness.report.methods.resample import (
    BOOTSTRAP_SEED,
    EXACT_UP_TO,
    SIGN_FLIP_SEED,
    resamples_for,
)
from harness.report.model import (
    CeilingInfo,
    ColumnInfo,
    CompletenessInfo,
    EntrantCount,
    EntrantRow,
    FallbackFree,
    IntervalMethod,
    Latency,
    NotOwnCount,
    PairedRow,
    Pairwise,
    Rank,
    Report,
    ServerRow,
)
from harness.report.seeds import seed_table
from harness.report.selection import Selected
from harness.report.servers import flags_of, mostly_not_own, server_row, worst
from harness.report.stats import percentile
from harness.summary import EpisodeSummary


@dataclass(frozen=True)
class Ceiling:
    """What a report measures each entrant against: ``name``'s mean score on each cell.

    ``hidden`` when the ceiling was played for the report rather than as an entrant.
    """

    name: str
    scores: Mapping[Cell, float]
    hidden: bool = False


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


def _num(value: float) -> float | None:
    return None if math.isnan(value) else value


def _labels(game: GameEntry, first: EpisodeSummary | None) -> dict[str, str]:
    """Each seat group's agents as the tables show them (from an episode's seats)."""
    seats = first.seats if first is not None else {}
    return {
        group.key: ", ".join(sorted({seats[s].agent for s in group.seats if s in seats}))
        for group in game.seat_groups
    }


def not_own_of(game: GameEntry, entry: EntrantDigest) -> dict[str, NotOwnCount]:
    """Each seat group's turns and those not the entrant's own, in the game's group
    order (a group the entrant's episodes name no seat of is left out)."""
    keys = [g.key for g in game.seat_groups]
    keys += sorted(k for k in entry.group_turns if k not in keys)
    out = {}
    for key in keys:
        if key not in entry.group_turns:
            continue
        sources = {s: n for (g, s), n in sorted(entry.not_own.items()) if g == key}
        out[key] = NotOwnCount(
            turns=entry.group_turns[key], not_own=sum(sources.values()), sources=sources
        )
    return out


def _entrant_row(
    game: GameEntry,
    name: str,
    entry: EntrantDigest,
    figures: EntrantStats,
    planned: int | None,
    cells: int,
) -> EntrantRow:
    turns, fallbacks = entry.turns, entry.fallbacks
    groups = not_own_of(game, entry)
    return EntrantRow(
        entrant=name,
        seats=_labels(game, entry.first),
        episodes=len(entry),
        planned=planned,
        cells=cells,
        score=figures.score,
        ceiling_share=figures.ceiling_share,
        rank=None,
        columns={
            c.key: c.from_sums(*entry.column(c.numerator, c.denominator), len(entry))
            for c in game.report.report_columns()
        },
        reasons=dict(sorted(entry.reasons.items())),
        ends=dict(sorted(entry.ends.items())),
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
        seeds=figures.score.seeds,
        per_variant=figures.per_variant,
        iqm=figures.iqm,
        ceiling_ratio=figures.ceiling_ratio,
        profile=figures.profile,
        dropped=figures.dropped,
        not_own=groups,
        mostly_not_own=mostly_not_own(groups),
    )


@dataclass(frozen=True)
class _Statistics:
    """What one table (all episodes, or those without a fallback) gives the report."""

    rows: list[EntrantRow]
    paired: list[PairedRow]
    pairwise: Pairwise
    family: Family
    """Every pair of the entrants, Holm-adjusted: the stars and the ranks' source."""


def _rows(
    game: GameEntry,
    table: SeedTable,
    entries: Mapping[str, EntrantDigest],
    planned: Mapping[str, int] | None,
    ceiling: bool,
) -> list[EntrantRow]:
    names = list(entries)
    figures = entrant_stats(table, names, ceiling=ceiling)
    held = table.finished.sum(axis=(1, 2)).tolist()
    return [
        _entrant_row(
            game,
            name,
            entry,
            figures[name],
            None if planned is None else planned.get(name),
            int(held[table.index(name)]),
        )
        for name, entry in entries.items()
    ]


def _statistics(
    game: GameEntry,
    table: SeedTable,
    entries: Mapping[str, EntrantDigest],
    reference: str | None,
    planned: Mapping[str, int],
    ceiling: bool,
) -> _Statistics:
    """The rows (ranked, in rank order), the pairwise table and the paired rows of the
    full table. Entrants mostly not their own are ranked apart: the others' ranks are
    over the others alone (a family of their own), so none shares a rank with the
    baseline that played it."""
    names = list(entries)
    rows = _rows(game, table, entries, planned, ceiling)
    few = few_seeds(rows)
    rows = [
        row.model_copy(update={"few_seeds": True}) if row.entrant in few else row for row in rows
    ]
    family = family_of(table, names)
    own = [row.entrant for row in rows if not row.mostly_not_own and not row.few_seeds]
    ranks, _ = ranks_of(table, own, family if len(own) == len(names) else None)
    rows = rank_order([_ranked(row, ranks.get(row.entrant)) for row in rows])
    paired = paired_of(table, family, names, reference)
    return _Statistics(rows, paired, pairwise_of(family), family)


def few_seeds(rows: Sequence[EntrantRow]) -> set[str]:
    """The entrants (of those playing their own turns) that finished fewer than half
    the seeds the most complete one did: ranked apart, since every rank is over the
    seeds all ranked entrants share, and one entrant's few seeds would make every
    other rank as uncertain as its own."""
    own = [row for row in rows if not row.mostly_not_own]
    most = max((row.seeds for row in own), default=0)
    return {row.entrant for row in own if 2 * row.seeds < most}


def _ranked(row: EntrantRow, rank: Rank | None) -> EntrantRow:
    return row if rank is None else row.model_copy(update={"rank": rank})


def rank_order(rows: Sequence[EntrantRow]) -> list[EntrantRow]:
    """Ranked rows by rank (ties by name), then the unranked ones by name: those
    ranked apart (mostly not their own) after those with nothing ranked."""
    return sorted(
        rows,
        key=lambda r: (
            (0, r.rank.rank) if r.rank is not None else (2 if r.mostly_not_own else 1, 0),
            r.entrant,
        ),
    )


def _fallback_free(
    game: GameEntry,
    folded: Digest,
    clean: Mapping[str, EntrantDigest],
    full: _Statistics,
    reference: str | None,
    ceiling: Ceiling | None,
) -> FallbackFree:
    """The entrant rows and paired rows of the episodes without any fallback; the full
    table's own (without a planned count or a rank) when no episode fell back."""
    whole = {row.entrant: row for row in full.rows}
    order = [n for n in whole if n in clean]  # the full table's (rank) order
    if set(clean) == set(whole) and all(len(e) == len(e.of or e) for e in clean.values()):
        rows = [whole[n].model_copy(update={"planned": None, "rank": None}) for n in order]
        return FallbackFree(entrants=rows, paired=full.paired)
    table = seed_table(clean, folded.variant_names, None if ceiling is None else ceiling.scores)
    rows = _rows(game, table, clean, None, ceiling is not None)
    rows.sort(key=lambda r: order.index(r.entrant))
    return FallbackFree(entrants=rows, paired=paired_of(table, None, list(clean), reference))


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


def _server(name: str, entry: EntrantDigest, servers: EndpointTotals) -> ServerRow | None:
    """The entrant's server figures (:func:`server_row`), when it made model calls; its
    episodes are added to ``servers`` on the way."""
    if not entry.model_seats:
        return None
    waits: list[float] = []
    requests: list[float] = []
    call_ms: float = 0
    tick_ms: float = 0
    # summed in canonical order, as a list of every episode would be: the same floats
    for ep in entry.ordered_with_calls():
        servers.add(ep)
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


def _columns(columns: Sequence[Column], ceiling: Ceiling | None) -> list[ColumnInfo]:
    """The game's columns; the tables leave out one that divides by the report's own
    ceiling (it would show score / NAME again) and one the game keeps for CSV only."""
    against = "" if ceiling is None else ceiling.name
    return [
        ColumnInfo(
            key=c.key, label=c.label, percent=c.percent, digits=c.digits, means=c.means,
            tables=c.tables and not (c.ceiling and c.ceiling == against),
        )
        for c in columns
    ]  # fmt: skip


def end_legend(game: GameEntry, rows: Sequence[EntrantRow]) -> str:
    """What each end the rows name means (``flooded: the water reached ...; ...``)."""
    meanings = game.report.end_meanings()
    named = sorted({end for r in rows for end in r.ends})
    return "; ".join(f"{end}: {meanings[end]}" for end in named if end in meanings)


#: How the intervals of a report are made (each interval names its own method too).
INTERVALS = IntervalMethod(
    method=(
        "over seeds: skew-corrected t for means; for differences, the larger p of a "
        "sign-flip and a skew-corrected t test, Holm for the stars; percentile bootstrap "
        "of the seeds for the IQM"
    ),
    unit="seed",
    level=LEVEL,
    resamples=resamples_for((1 - LEVEL) / 2),
    seed=BOOTSTRAP_SEED,
    flip_seed=SIGN_FLIP_SEED,
    exact_up_to=EXACT_UP_TO,
)


def _folded(
    game: GameEntry, summaries: Sequence[EpisodeSummary] | Digest, plan: Plan | None
) -> Digest:
    if isinstance(summaries, Digest):
        if summaries.plan is not plan:
            raise ValueError("build_report: the digest was folded against another plan")
        return summaries
    return digest(game, summaries, plan)


def _ceiling_info(ceiling: Ceiling | None) -> CeilingInfo | None:
    if ceiling is None:
        return None
    return CeilingInfo(name=ceiling.name, hidden=ceiling.hidden, cells=len(ceiling.scores))


def _counts(table: SeedTable, entrants: int) -> tuple[int, int]:
    """The (seed, variant) cells and the seeds any of the first ``entrants`` finished."""
    done = table.finished[:entrants]
    return int(done.any(axis=0).sum()), int(done.any(axis=(0, 2)).sum())


def _crossplay(
    layout: CrossplayLayout | None, folded: Digest, entries: Mapping[str, EntrantDigest]
) -> Crossplay | None:
    """The cross-play section of a design's entrants (their cell means), if any."""
    if layout is None:
        return None
    names = folded.variant_names
    return crossplay_section(
        layout, {name: CellMeans.of_entrant(entry, names) for name, entry in entries.items()}
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
    folded = _folded(game, summaries, plan)
    done = folded.completeness()
    by_entrant = _group(folded.entrants, order)
    names = list(by_entrant)
    labels = {name: _labels(game, entry.first) for name, entry in by_entrant.items()}
    known = {n: dict(specs[n]) for n in names if specs is not None and n in specs}
    identity = {n: known.get(n, labels[n]) for n in names}
    table = seed_table(
        by_entrant, folded.variant_names, None if ceiling is None else ceiling.scores
    )
    full = _statistics(game, table, by_entrant, reference, done.planned, ceiling is not None)
    apart = {r.entrant for r in full.rows if r.mostly_not_own}
    few = {r.entrant for r in full.rows if r.few_seeds}
    cells, seeds = _counts(table, len(names))
    columns = game.report.report_columns()
    endpoints = EndpointTotals()
    servers = [s for n, e in by_entrant.items() if (s := _server(n, e, endpoints)) is not None]
    infos = _columns(columns, ceiling)
    shown = {c.key for c in infos if c.tables}
    return Report(
        title=title,
        game=game.name,
        seat_groups=[g.key for g in game.seat_groups],
        roles=sorted({g.role for g in game.seat_groups}),
        leader=game.seat_groups[0].key,
        episodes=folded.episodes,
        cells=cells,
        completeness=_completeness(done, plan),
        selection=selection,
        intervals=INTERVALS,
        reference=reference,
        ceiling=_ceiling_info(ceiling),
        columns=infos,
        legend=legend([c for c in columns if c.key in shown]),
        end_legend=end_legend(game, full.rows),
        max_score=game.max_score,
        entrants=full.rows,
        paired=full.paired,
        pairwise=full.pairwise,
        fallback_free=_fallback_free(
            game, folded, _group(folded.clean, order), full, reference, ceiling
        ),
        identical=identical_entrants(names, identity),
        leaderboards=leaderboards(game, names, labels, identity, table, full.family, apart, few),
        fallback_flags=flags_of({r.entrant: worst(r.not_own) for r in full.rows}),
        servers=servers,
        endpoints=endpoints.rows(),
        deadlines=sum(e.reasons["deadline"] for e in by_entrant.values()),
        crossplay=_crossplay(crossplay, folded, by_entrant),
        faithfulness=folded.faithfulness.rows(names),
        seeds=seeds,
        variants=sorted(folded.variant_names),
    )


__all__ = [
    "INTERVALS",
    "Ceiling",
    "build_report",
    "canonical_order",
    "legend",
    "not_own_of",
    "rank_order",
]
