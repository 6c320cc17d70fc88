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

Episodes are put in one canonical order (entrant, variant, seed, repetition, id)
before anything is computed, so the same results give the same report, byte for
byte, whatever order they were written in.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.game import Column, GameEntry
from harness.report.compare import ALPHA, pair_bootstrap, pairwise
from harness.report.completeness import Completeness, Plan, completeness
from harness.report.leaderboards import (
    Specs,
    identical_entrants,
    interval_dict,
    leaderboards,
    ranked,
)
from harness.report.servers import deadline_count, fallback_flags, server_rows
from harness.report.stats import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    LEVEL,
    Cell,
    cell_means,
    draws,
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
        shared = sorted(cell for cell in cells if cell in self.scores)
        ceiling = math.fsum(self.scores[cell] for cell in shared)
        if not shared or ceiling <= 0:
            return None
        return math.fsum(cells[cell] for cell in shared) / ceiling


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


#: Draws kept for reuse within one report while they take at most this many indices
#: (80 MB); bigger sets of cells are drawn again for each statistic (same numbers).
KEEP_DRAWS = 10_000_000


class _Resampler:
    """The seeded draws over n cells, made once per n for one report."""

    def __init__(self) -> None:
        self.kept: dict[int, list[array[int]]] = {}

    def __call__(self, n: int) -> Iterable[Sequence[int]]:
        if n * BOOTSTRAP_RESAMPLES > KEEP_DRAWS:
            return draws(n)
        if n not in self.kept:
            self.kept[n] = [array("l", d) for d in draws(n)]
        return self.kept[n]


def _cells(episodes: Sequence[EpisodeSummary]) -> dict[Cell, float]:
    return cell_means(((ep.seed, ep.variant), ep.score) for ep in episodes)


def _num(value: float) -> float | None:
    return None if math.isnan(value) else value


def _labels(game: GameEntry, first: EpisodeSummary) -> dict[str, str]:
    """Each seat group's agents as the tables show them (from an episode's seats)."""
    return {
        group.key: ", ".join(
            sorted({first.seats[s].agent for s in group.seats if s in first.seats})
        )
        for group in game.seat_groups
    }


def _entrant_row(
    game: GameEntry,
    name: str,
    episodes: list[EpisodeSummary],
    planned: int | None,
    resample: _Resampler,
    ceiling: Ceiling | None = None,
) -> dict[str, Any]:
    turns: Counter[str] = Counter()
    fallbacks: Counter[str] = Counter()
    latencies: list[float] = []
    tokens_in = tokens_out = 0
    costs: list[float] = []
    calls = retries = rescued = 0
    for ep in episodes:
        for seat in ep.seats.values():
            if seat.calls:
                turns[seat.role] += seat.turns
                fallbacks[seat.role] += sum(seat.fallbacks.values())
                # a turn makes one call, and a second when it sends the retry
                retries += seat.calls - seat.turns
            latencies.extend(seat.latencies_ms)
            tokens_in += seat.input_tokens
            tokens_out += seat.output_tokens
            costs.append(seat.cost_usd)
            calls += seat.calls
            rescued += seat.retries
    metrics = [ep.metrics for ep in episodes]
    by_cell = _cells(episodes)
    values = list(by_cell.values())
    score = interval_from(values, resample(len(values)), episodes=len(episodes))
    return {
        "entrant": name,
        "seats": _labels(game, episodes[0]),
        "episodes": len(episodes),
        "planned": planned,
        "cells": len(values),
        "score": interval_dict(score),
        "ceilingShare": ceiling.share(by_cell) if ceiling is not None else None,
        "rank": None,
        "columns": {c.key: c.value(metrics) for c in game.report.report_columns()},
        "reasons": dict(sorted(Counter(ep.reason for ep in episodes).items())),
        "calls": calls,
        "retries": retries,
        "rescued": rescued,
        "fallbackRate": {
            role: fallbacks[role] / turns[role] for role in sorted(turns) if turns[role]
        },
        "inputTokens": tokens_in,
        "outputTokens": tokens_out,
        "costUsd": math.fsum(costs),
        "latencyMs": {
            "p50": _num(percentile(latencies, 50)),
            "p95": _num(percentile(latencies, 95)),
        },
        "fallbackFreeEpisodes": sum(1 for ep in episodes if ep.fallback_free),
    }


def _paired(
    by_entrant: dict[str, list[EpisodeSummary]], reference: str | None, resample: _Resampler
) -> list[dict[str, Any]]:
    if reference is None or reference not in by_entrant:
        return []
    ref = [((ep.seed, ep.variant), ep.score) for ep in by_entrant[reference]]
    rows = []
    for name, episodes in by_entrant.items():
        if name == reference:
            continue
        mine = [((ep.seed, ep.variant), ep.score) for ep in episodes]
        paired = paired_difference(mine, ref, resample=resample)
        rows.append(
            {
                "entrant": name,
                "reference": reference,
                "pairs": paired.pairs,
                "difference": interval_dict(paired.difference),
                "wins": paired.wins,
                "ties": paired.ties,
                "losses": paired.losses,
            }
        )
    return rows


def _pairwise(
    names: list[str], cells: Mapping[str, Mapping[Cell, float]], resample: _Resampler
) -> dict[str, Any]:
    diffs, stats = pair_bootstrap(names, cells, resample)
    rows = [
        {
            "entrant": c.first,
            "versus": c.second,
            "cells": c.difference.n,
            "difference": {
                **interval_dict(c.difference),
                "level": None if c.holm is None else c.holm.level,
            },
            "p": c.p,
            "pHolm": None if c.holm is None else c.holm.adjusted,
            "significant": c.significant,
        }
        for c in pairwise(names, diffs, stats)
    ]
    tested = sum(1 for r in rows if r["p"] is not None)
    return {"comparisons": tested, "alpha": ALPHA, "rows": rows}


def _group(
    summaries: Sequence[EpisodeSummary], order: Sequence[str]
) -> dict[str, list[EpisodeSummary]]:
    groups: dict[str, list[EpisodeSummary]] = defaultdict(list)
    for ep in summaries:
        groups[ep.entrant].append(ep)
    names = [n for n in order if n in groups] + sorted(n for n in groups if n not in order)
    return {name: groups[name] for name in names}


def _completeness_json(done: Completeness, plan: Plan | None) -> dict[str, Any]:
    return {
        "complete": done.complete,
        "finished": sum(done.finished.values()),
        "planned": sum(done.planned.values()),
        "byEntrant": {
            name: {"finished": done.finished.get(name, 0), "planned": count}
            for name, count in done.planned.items()
        },
        "shard": plan.shard if plan is not None else None,
        "missingShards": list(done.missing_shards),
        "summary": done.summary(),
    }


def build_report(
    game: GameEntry,
    summaries: Sequence[EpisodeSummary],
    *,
    reference: str | None = None,
    order: Sequence[str] = (),
    title: str = "",
    specs: Specs | None = None,
    plan: Plan | None = None,
    ceiling: Ceiling | None = None,
    selection: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The whole report as plain data (what ``--format json`` prints).

    ``specs`` (entrant -> seat group -> spec, see :func:`entrant_specs`) decides who
    a leaderboard may compare and which entrants are identical; without it the agents
    named in the episodes stand in. ``plan`` (see :func:`plan_of`) is what the folder
    should hold; without it the episodes present count as complete. ``selection``
    (see :func:`harness.report.selection.select`) says what the folder holds beyond
    ``summaries`` and why a run stopped early; the report repeats it.
    """
    episodes = canonical_order(summaries)
    resample = _Resampler()
    done = completeness(plan, episodes)
    by_entrant = _group(episodes, order)
    names = list(by_entrant)
    clean = _group([ep for ep in episodes if ep.fallback_free], order)
    groups = game.seat_groups
    labels = {name: _labels(game, eps[0]) for name, eps in by_entrant.items()}
    known = {n: dict(specs[n]) for n in names if specs is not None and n in specs}
    identity = {n: known.get(n, labels[n]) for n in names}
    cells = {name: _cells(eps) for name, eps in by_entrant.items()}
    rows = [
        _entrant_row(game, n, eps, done.planned.get(n), resample, ceiling)
        for n, eps in by_entrant.items()
    ]
    ranks = ranked(names, cells, resample) if len(names) > 1 else {}
    for row in rows:
        if row["entrant"] in ranks:
            figures = ranks[row["entrant"]]
            row["rank"] = {k: figures[k] for k in ("rank", "rankLow", "rankHigh", "cells")}
    return {
        "title": title,
        "game": game.name,
        "seatGroups": [g.key for g in groups],
        "roles": sorted({g.role for g in groups}),
        "leader": groups[0].key,
        "episodes": len(episodes),
        "cells": len(set().union(*cells.values())) if cells else 0,
        "completeness": _completeness_json(done, plan),
        "selection": dict(selection) if selection is not None else None,
        "intervals": {
            "method": "percentile bootstrap",
            "unit": "(seed, variant) cell",
            "level": LEVEL,
            "resamples": BOOTSTRAP_RESAMPLES,
            "seed": BOOTSTRAP_SEED,
        },
        "reference": reference,
        "ceiling": None
        if ceiling is None
        else {"name": ceiling.name, "hidden": ceiling.hidden, "cells": len(ceiling.scores)},
        "columns": [
            {
                "key": c.key,
                "label": c.label,
                "percent": c.percent,
                "digits": c.digits,
                "means": c.means,
            }
            for c in game.report.report_columns()
        ],
        "legend": legend(game.report.report_columns()),
        "entrants": rows,
        "paired": _paired(by_entrant, reference, resample),
        "pairwise": _pairwise(names, cells, resample),
        "fallbackFree": {
            # no planned count: these are a selection of the finished episodes
            "entrants": [
                _entrant_row(game, n, eps, None, resample, ceiling) for n, eps in clean.items()
            ],
            "paired": _paired(clean, reference, resample),
        },
        "identical": identical_entrants(names, identity),
        "leaderboards": leaderboards(game, names, labels, identity, cells, resample),
        "fallbackFlags": fallback_flags(by_entrant),
        "servers": server_rows(by_entrant),
        "deadlines": deadline_count(episodes),
    }


__all__ = ["Ceiling", "build_report", "canonical_order", "legend"]
