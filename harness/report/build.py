"""A tournament report, computed from its results lines alone.

Per entrant: episodes, mean score with a 95% bootstrap interval, the game's own
columns (for Lighthouse: keys, escape rate, time bonus, radio figures), reasons, and
LLM figures (fallback rate by role, tokens, cost, latency p50/p95). Against a
reference entrant: per-seed paired differences (paired on seed and variant,
repetitions averaged) with a seeded bootstrap interval and wins/ties/losses. The same
again on episodes without any LLM fallback, and a keeper leaderboard when keepers
differ (Lighthouse: a keeper leaderboard). With a ceiling (a strong baseline team's
scores by seed and variant), each entrant's mean score as a share of the ceiling's on
the same cells.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.game import Game
from harness.report.servers import agent_flags, deadline_count, fallback_flags, server_rows
from harness.report.stats import bootstrap_mean, paired_difference, percentile
from harness.tournament.summary import EpisodeSummary

#: A (seed, variant) cell of a tournament.
Cell = tuple[int, str]


@dataclass(frozen=True)
class Ceiling:
    """What a report measures each entrant against: ``name``'s mean score on each cell.

    ``hidden`` when the ceiling was played for the report rather than as an entrant.
    """

    name: str
    scores: Mapping[Cell, float]
    hidden: bool = False

    def share(self, episodes: Sequence[EpisodeSummary]) -> float | None:
        """The episodes' mean score as a share of the ceiling's mean on the same cells.

        Episodes on cells the ceiling lacks are left out; None when none is left or the
        ceiling's mean there is not positive.
        """
        pairs = [
            (ep.score, self.scores[(ep.seed, ep.variant)])
            for ep in episodes
            if (ep.seed, ep.variant) in self.scores
        ]
        ceiling = sum(c for _, c in pairs)
        return sum(s for s, _ in pairs) / ceiling if pairs and ceiling > 0 else None


def _interval(values: Sequence[float]) -> dict[str, float | int | None]:
    iv = bootstrap_mean(values)
    return {
        "mean": _num(iv.mean),
        "low": _num(iv.low),
        "high": _num(iv.high),
        "n": iv.n,
    }


def _num(value: float) -> float | None:
    return None if math.isnan(value) else value


def _entrant_row(
    game: Game[Any], name: str, episodes: list[EpisodeSummary], ceiling: Ceiling | None
) -> dict[str, Any]:
    first = episodes[0]
    seats = {
        group.key: ", ".join(
            sorted({first.seats[s].agent for s in group.seats if s in first.seats})
        )
        for group in game.seat_groups()
    }
    turns: Counter[str] = Counter()
    fallbacks: Counter[str] = Counter()
    latencies: list[float] = []
    tokens_in = tokens_out = 0
    cost = 0.0
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
            cost += seat.cost_usd
            calls += seat.calls
            rescued += seat.retries
    metrics = [ep.metrics for ep in episodes]
    return {
        "entrant": name,
        "seats": seats,
        "episodes": len(episodes),
        "score": _interval([ep.score for ep in episodes]),
        "ceilingShare": ceiling.share(episodes) if ceiling is not None else None,
        "columns": {c.key: c.value(metrics) for c in game.report_columns()},
        "reasons": dict(sorted(Counter(ep.reason for ep in episodes).items())),
        "calls": calls,
        "retries": retries,
        "rescued": rescued,
        "fallbackRate": {
            role: fallbacks[role] / turns[role] for role in sorted(turns) if turns[role]
        },
        "inputTokens": tokens_in,
        "outputTokens": tokens_out,
        "costUsd": cost,
        "latencyMs": {
            "p50": _num(percentile(latencies, 50)),
            "p95": _num(percentile(latencies, 95)),
        },
        "fallbackFreeEpisodes": sum(1 for ep in episodes if ep.fallback_free),
    }


def _paired(
    by_entrant: dict[str, list[EpisodeSummary]], reference: str | None
) -> list[dict[str, Any]]:
    if reference is None or reference not in by_entrant:
        return []
    ref = [((ep.seed, ep.variant), ep.score) for ep in by_entrant[reference]]
    rows = []
    for name, episodes in by_entrant.items():
        if name == reference:
            continue
        paired = paired_difference([((ep.seed, ep.variant), ep.score) for ep in episodes], ref)
        rows.append(
            {
                "entrant": name,
                "reference": reference,
                "pairs": paired.pairs,
                "difference": {
                    "mean": _num(paired.difference.mean),
                    "low": _num(paired.difference.low),
                    "high": _num(paired.difference.high),
                },
                "wins": paired.wins,
                "ties": paired.ties,
                "losses": paired.losses,
            }
        )
    return rows


def _group(
    summaries: Sequence[EpisodeSummary], order: Sequence[str]
) -> dict[str, list[EpisodeSummary]]:
    groups: dict[str, list[EpisodeSummary]] = defaultdict(list)
    for ep in summaries:
        groups[ep.entrant].append(ep)
    names = [n for n in order if n in groups] + sorted(n for n in groups if n not in order)
    return {name: groups[name] for name in names}


def build_report(
    game: Game[Any],
    summaries: Sequence[EpisodeSummary],
    *,
    reference: str | None = None,
    order: Sequence[str] = (),
    title: str = "",
    ceiling: Ceiling | None = None,
) -> dict[str, Any]:
    """The whole report as plain data (what ``--format json`` prints)."""
    by_entrant = _group(summaries, order)
    clean = _group([ep for ep in summaries if ep.fallback_free], order)
    groups = game.seat_groups()
    report: dict[str, Any] = {
        "title": title,
        "game": game.name,
        "seatGroups": [g.key for g in groups],
        "roles": sorted({g.role for g in groups}),
        "leader": groups[0].key,
        "episodes": len(summaries),
        "reference": reference,
        "ceiling": None
        if ceiling is None
        else {"name": ceiling.name, "hidden": ceiling.hidden, "cells": len(ceiling.scores)},
        "columns": [
            {"key": c.key, "label": c.label, "percent": c.percent, "digits": c.digits}
            for c in game.report_columns()
        ],
        "entrants": [_entrant_row(game, n, eps, ceiling) for n, eps in by_entrant.items()],
        "paired": _paired(by_entrant, reference),
        "fallbackFree": {
            "entrants": [_entrant_row(game, n, eps, ceiling) for n, eps in clean.items()],
            "paired": _paired(clean, reference),
        },
        "leaderboard": [],
        "fallbackFlags": fallback_flags(by_entrant),
        "leaderboardFlags": agent_flags(summaries, groups[0].seats[0]),
        "servers": server_rows(by_entrant),
        "deadlines": deadline_count(summaries),
    }
    # A leaderboard of the lead seat (Lighthouse: the keeper) when entrants differ in it.
    lead_seat = groups[0].seats[0]
    scores: dict[str, list[float]] = defaultdict(list)
    entrants: dict[str, set[str]] = defaultdict(set)
    for ep in summaries:
        scores[ep.seats[lead_seat].agent].append(ep.score)
        entrants[ep.seats[lead_seat].agent].add(ep.entrant)
    if len(scores) > 1:
        rows = [
            {"agent": k, "entrants": sorted(entrants[k]), "score": _interval(v)}
            for k, v in scores.items()
        ]
        report["leaderboard"] = sorted(rows, key=lambda r: -(r["score"]["mean"] or 0.0))
    return report


__all__ = ["Ceiling", "Cell", "build_report"]
