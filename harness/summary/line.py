"""The models of a results line: one episode's figures, each seat's, its endpoints',
its faithfulness and its batches of requests."""

from __future__ import annotations

from pydantic import Field

from harness.models import absent_if_empty, absent_if_none
from harness.records import RecordModel


class Faithfulness(RecordModel):
    """How a model seat played an episode for itself: its own turns' replies, and why
    each answered call stopped (docs/llm.md, "Faithfulness").

    Derived from the record alone: the replies of the seat's own turns (those no
    baseline answered for), the prompt templates its header keeps (whose example
    replies a copy repeats, :mod:`harness.llm.examples`) and its calls' stop reasons.
    """

    own_turns: int = Field(description="Turns the seat's own replies decided.")
    distinct: int = Field(description="Distinct reply texts among those turns (by sha256).")
    copies: int | None = Field(
        description="Of those turns, the replies that copy an example reply of the seat's "
        "prompts; null when the record keeps no prompt texts (records written before "
        "headers kept them)."
    )
    answered: int = Field(description="Calls answered (no failure), cached ones included.")
    length_cut: int = Field(
        description="Answered calls the length limit cut (a stop reason of "
        "harness.records.LENGTH_STOP_REASONS)."
    )
    stop_reasons: dict[str, int] = Field(
        description="Answered calls by stop reason, as the API said it; calls whose stop "
        "reason is not recorded (cached answers, older records) are answered less their sum."
    )


class EndpointStats(RecordModel):
    """One endpoint's figures for a seat over an episode (a provider with several base
    URLs: see harness/llm/fleet.py)."""

    calls: int = Field(0, description="Calls it answered.")
    errors: int = Field(0, description="Attempts that failed at it.")
    request_ms: list[float] = Field(
        default_factory=list, description="The time in HTTP of each call it answered."
    )
    timed: int = absent_if_empty(
        0,
        description="Calls answered at their first attempt whose server reported its own "
        "time (serverMs); absent when none.",
    )
    timed_request_ms: float = absent_if_empty(0.0, description="Those calls' time in HTTP, summed.")
    server_ms: float = absent_if_empty(0.0, description="Those calls' server time, summed.")
    alone_ms: list[float] = absent_if_empty(
        default_factory=list,
        description="The time in HTTP of each call answered at its first attempt with no "
        "other request to the same server in flight meanwhile.",
    )
    overlapped_ms: list[float] = absent_if_empty(
        default_factory=list,
        description="The same, of the calls that shared the server with another request.",
    )


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
    reasoning_tokens: int = Field(0, description="Of outputTokens, the reasoning ones.")
    cached_input_tokens: int = absent_if_empty(
        0,
        description="Of inputTokens, those read from the provider's prompt cache (absent "
        "when none, and on older lines).",
    )
    cache_write_tokens: int = absent_if_empty(
        0,
        description="Of inputTokens, those written to the prompt cache (absent when none).",
    )
    cache_write_1h_tokens: int = absent_if_empty(
        0,
        alias="cacheWrite1hTokens",
        description="Of cacheWriteTokens, those kept for an hour (absent when none).",
    )
    unpriced: int = absent_if_empty(
        0,
        description="Calls with no price (the provider lists none for the model): their "
        "cost is not in costUsd, which reports then show as 'no price' (absent when none, "
        "and on older lines, which could not tell).",
    )
    usage_unknown: int = absent_if_empty(
        0,
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
    faithfulness: Faithfulness | None = absent_if_none(
        description="A seat with model calls: its own turns' replies and its calls' stop "
        "reasons (absent for other seats, and on lines written before it was counted).",
    )
    endpoints: dict[str, EndpointStats] = absent_if_empty(
        default_factory=dict,
        description="Per server the seat's calls went to (each endpoint of a provider "
        "with several base URLs, else the seat's base URL or provider), its figures; "
        "absent on lines of records written before calls said how they queued.",
    )


class BatchStats(RecordModel):
    """The episode's ticks whose requests could overlap: how they did.

    On a record whose ticks count their seats' first calls (``firstCalls``), these are
    the ticks where two or more seats' first calls were requests, sent together:
    ``calls`` sums those first calls, ``callMs`` their ``requestMs``, ``tickMs`` their
    spans (``firstSpanMs``), and ``firstCalls`` is true. On a record written before,
    they are the ticks that sent two or more requests of any kind, a seat's retry
    among them (``firstCalls`` false, absent): figures that cannot tell a server that
    answers one request at a time, which a report leaves out. ``callMs / tickMs`` is
    the observed concurrency (see :mod:`harness.timing`); ``calls / ticks`` the
    requests a tick sent together on average.
    """

    ticks: int = 0
    calls: int = 0
    call_ms: float = 0.0
    tick_ms: float = 0.0
    first_calls: bool = absent_if_empty(
        False,
        description="True when the figures are of the seats' first calls (the requests "
        "that could overlap); absent on lines of records written before ticks counted them.",
    )


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
