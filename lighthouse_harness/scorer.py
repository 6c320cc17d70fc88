"""The scorer and metrics: the game's score, its figures, and how often models fell back.

A sample's score is the episode's ``results.scores[0]`` (Lighthouse's team score,
Relayroam's and Hourloom's score), read from the record the solver kept, exactly as
a tournament's results line has it. Its metadata holds the game's own figures (the
results line's ``metrics``: Lighthouse's ``K``, ``E``, ``B``; Relayroam's
``optimum``; Hourloom's ``planned`` and ``sealed``), the score over the best score
where the game names one (``of_best``), and the model seats' turns and fallbacks.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from harness.records import FALLBACK_SOURCES
from harness.summary import summarize_read
from lighthouse_harness.record import RECORD_KEY, ParsedRecord, parse_record

#: The game's figure a score is measured against, where it has one.
BEST_FIGURES = ("optimum", "planned")


@metric(scores="unreduced")
def fallback_rate() -> Metric:
    """The share of model seats' turns, over every sample and epoch, that fell back."""

    def rate(scores: list[SampleScore]) -> float:
        turns = fallbacks = 0
        for sample in scores:
            meta = sample.score.metadata or {}
            turns += int(meta.get("model_turns", 0))
            fallbacks += int(meta.get("fallbacks", 0))
        return fallbacks / turns if turns else 0.0

    return rate


@scorer(metrics=[mean(), stderr(), fallback_rate()])
def game_score() -> Scorer:
    """The episode's score, with the game's figures and the fallback share as metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        text = state.store.get(RECORD_KEY)
        if not isinstance(text, str):
            return Score.unscored(reason="no episode record: the episode did not finish")
        return score_record(parse_record(text, f"sample {state.sample_id}"))

    return score


def score_record(record: ParsedRecord) -> Score:
    """The :class:`Score` of a finished episode's record."""
    header = record.lines[0]
    summary = summarize_read(record.game.report, record.lines, entrant="inspect", repetition=0)
    models = {info.seat for info in header.seats if info.agent.kind == "llm"}
    turns = sum(stats.turns for seat, stats in summary.seats.items() if seat in models)
    sources: dict[str, int] = {}
    for seat, stats in summary.seats.items():
        if seat in models:
            for source, count in stats.fallbacks.items():
                sources[source] = sources.get(source, 0) + count
    fallbacks = sum(count for source, count in sources.items() if source in FALLBACK_SOURCES)
    metadata: dict[str, object] = {
        "game": record.game.name,
        "seed": summary.seed,
        "variant": summary.variant,
        "reason": summary.reason,
        "scores": summary.scores,
        **summary.metrics,
        "model_turns": turns,
        "fallbacks": fallbacks,
        "fallback_share": fallbacks / turns if turns else 0.0,
        "fallback_sources": sources,
        "retries": sum(s.retries for seat, s in summary.seats.items() if seat in models),
    }
    best = next((summary.metrics[k] for k in BEST_FIGURES if k in summary.metrics), None)
    if best is not None and best > 0 and math.isfinite(best):
        metadata["of_best"] = summary.score / best
    return Score(
        value=summary.score,
        answer=summary.reason,
        explanation=record.game.view.render_results(record.lines[-1].results),
        metadata=metadata,
    )


__all__ = ["BEST_FIGURES", "fallback_rate", "game_score", "score_record"]
