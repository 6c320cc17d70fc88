"""The results line of one finished episode, derived from its record alone.

Tournaments write these lines (``episodes.jsonl``); reports read them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from harness.protocol import Report
from harness.records import FALLBACK_SOURCES, RETRY_SOURCES, RecordModel
from harness.validation import seed_problem


class SeatStats(RecordModel):
    """One seat's figures over an episode."""

    role: str
    agent: str
    turns: int = 0
    calls: int = 0
    attempts: int = 0
    retries: int = Field(0, description="Turns that needed the retry with a hint.")
    fallbacks: dict[str, int] = Field(default_factory=dict)
    input_tokens: int = Field(0, description="Known input tokens (see usageUnknown).")
    output_tokens: int = Field(0, description="Known output tokens (see usageUnknown).")
    reasoning_tokens: int = 0
    usage_unknown: int = Field(
        0,
        exclude_if=lambda v: not v,
        description="Calls whose server gave no usable input or output count: their "
        "unknown counts are not in the sums, and their cost is an upper bound (absent "
        "when none).",
    )
    cost_usd: float = 0.0
    latencies_ms: list[float] = Field(
        default_factory=list, description="Each call's latency; cached calls left out."
    )
    cached: int = Field(0, description="Calls answered from the call cache (no request).")
    wait_ms: list[float] = Field(
        default_factory=list, description="Each call's wait for the limiter (cached left out)."
    )
    request_ms: list[float] = Field(
        default_factory=list, description="Each call's time in HTTP (cached left out)."
    )


class BatchStats(RecordModel):
    """The episode's ticks that sent two or more model requests: how they overlapped.

    ``callMs / tickMs`` over these ticks is their observed concurrency (see
    :mod:`harness.timing`); ``calls / ticks`` the requests a tick sent on average.
    """

    ticks: int = 0
    calls: int = 0
    call_ms: float = 0.0
    tick_ms: float = 0.0


class EpisodeSummary(RecordModel):
    """One line of episodes.jsonl."""

    episode_id: str
    entrant: str
    seed: int
    variant: str
    repetition: int
    score: float = Field(description="results.scores[0]: the team score, for Lighthouse.")
    scores: list[float]
    reason: str
    metrics: dict[str, float] = Field(description="The game's figures (K, E, B, clock, ...).")
    seats: dict[str, SeatStats]
    fallback_free: bool = Field(description="No seat fell back in any tick.")
    batch: BatchStats = Field(default_factory=BatchStats)
    record_sha256: str | None = Field(
        None,
        description="sha256 of the record file's bytes; null on lines written before "
        "results lines carried it.",
    )
    identity: str | None = Field(
        None,
        description="The entrant's identity when the episode was played (its record's "
        "agent details); null on lines of records written before identities were.",
    )

    @property
    def llm(self) -> bool:
        """Whether any seat is an LLM."""
        return any(s.calls for s in self.seats.values())


def episode_id(entrant: str, variant: str, seed: int, repetition: int) -> str:
    """``<entrant>--<variant>--s<seed>--r<repetition>``: an episode's id, stable across reruns."""
    return f"{entrant}--{variant}--s{seed}--r{repetition}"


def split_episode_id(episode: str, variant: str | None, seed: int | None) -> tuple[str, int] | None:
    """The (entrant, repetition) of an episode id whose variant and seed are known, or None."""
    if variant is None or seed is None or seed_problem(seed) is not None:
        return None
    head, _, repetition = episode.rpartition("--r")
    middle = f"--{variant}--s{seed}"
    entrant = head.removesuffix(middle)
    plain = repetition.isdecimal() and repetition.isascii() and len(repetition) < 10
    if not plain or entrant == head or not entrant or str(int(repetition)) != repetition:
        return None
    return entrant, int(repetition)


#: The key of a record's agent details that holds the entrant's identity (a tournament
#: puts it in every seat's details; see harness/tournament/identity.py).
IDENTITY_DETAIL = "entrantIdentity"


def record_identity(details: Sequence[Mapping[str, str]]) -> str | None:
    """The entrant identity a record's seats carry (every seat the same), or None."""
    found = {d.get(IDENTITY_DETAIL) for d in details}
    if len(found) != 1:
        return None
    (value,) = found
    return value


def summarize(
    report: Report, docs: Sequence[Mapping[str, Any]], *, entrant: str, repetition: int
) -> EpisodeSummary:
    """The results line of a finished episode from its record's lines as JSON objects.

    ``docs`` are the lines in the form the record models dump them (camelCase keys,
    every field the models write): what a runner writes (pinned to the models in
    tests/test_record_lines.py), or a record read back, validated, and dumped again
    (:func:`summarize_read`). Plain objects, not models: this runs
    for every episode of a tournament, and validating every line would cost more than
    the summary. ``report`` is the game's report part, which gives the ``metrics``.
    """
    header, end = docs[0], docs[-1]
    acc: dict[str, dict[str, Any]] = {
        info["seat"]: {
            "role": info["role"],
            "agent": info["agent"]["name"],
            "fallbacks": {},
            "latencies_ms": [],
        }
        for info in header["seats"]
    }
    fallbacks = 0
    batch = {"ticks": 0, "calls": 0, "call_ms": 0.0, "tick_ms": 0.0}
    for line in docs[1:-1]:
        clock = line.get("wallClock")
        if clock is not None and clock["calls"] >= 2:
            _add(batch, "ticks", 1)
            _add(batch, "calls", clock["calls"])
            _add(batch, "call_ms", clock["callMs"])
            _add(batch, "tick_ms", clock["tickMs"])
        for seat_id, turn in line["seats"].items():
            stats = acc[seat_id]
            _add(stats, "turns", 1)
            source = turn["source"]
            if source in RETRY_SOURCES:
                _add(stats, "retries", 1)
            if source in FALLBACK_SOURCES:
                fallbacks += 1
                _add(stats["fallbacks"], source, 1)
            for call in turn["calls"]:
                _add(stats, "calls", 1)
                _add(stats, "attempts", call["attempts"])
                tokens_in, tokens_out = call["inputTokens"], call["outputTokens"]
                if tokens_in is None or tokens_out is None:
                    _add(stats, "usage_unknown", 1)
                _add(stats, "input_tokens", tokens_in or 0)
                _add(stats, "output_tokens", tokens_out or 0)
                _add(stats, "reasoning_tokens", call["reasoningTokens"] or 0)
                _add(stats, "cost_usd", call["costUsd"] or 0.0)
                if call.get("cached"):
                    _add(stats, "cached", 1)
                elif call["wallClock"] is not None:
                    clock = call["wallClock"]
                    stats["latencies_ms"].append(clock["latencyMs"])
                    wait, request = clock.get("waitMs"), clock.get("requestMs")
                    if wait is not None and request is not None:
                        stats.setdefault("wait_ms", []).append(wait)
                        stats.setdefault("request_ms", []).append(request)
    seats = {seat_id: SeatStats.model_validate(stats) for seat_id, stats in acc.items()}
    results = end["results"]
    return EpisodeSummary(
        episode_id=header["episodeId"],
        entrant=entrant,
        seed=header["seed"],
        variant=header["variant"],
        repetition=repetition,
        score=results["scores"][0],
        scores=list(results["scores"]),
        reason=str(results["reason"]),
        metrics=report.episode_metrics(docs),
        seats=seats,
        fallback_free=fallbacks == 0,
        identity=record_identity([info["agent"]["details"] for info in header["seats"]]),
        batch=BatchStats.model_validate(batch),
    )


def summarize_read(
    report: Report, lines: Sequence[BaseModel], *, entrant: str, repetition: int
) -> EpisodeSummary:
    """:func:`summarize` of a record read back: its lines as the record models validated
    them, dumped again into the form :func:`summarize` reads (whatever spelling the
    file used)."""
    docs = [line.model_dump(mode="json", by_alias=True) for line in lines]
    return summarize(report, docs, entrant=entrant, repetition=repetition)


def _add(counter: dict[str, Any], key: str, amount: float) -> None:
    counter[key] = counter.get(key, 0) + amount


__all__ = [
    "FALLBACK_SOURCES",
    "IDENTITY_DETAIL",
    "RETRY_SOURCES",
    "BatchStats",
    "EpisodeSummary",
    "SeatStats",
    "episode_id",
    "record_identity",
    "split_episode_id",
    "summarize",
    "summarize_read",
]
