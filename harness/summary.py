"""The results line of one finished episode, derived from its record alone.

Tournaments write these lines (``episodes.jsonl``); reports read them.

**Turns not the seat's own.** One notion for every kind of seat: a turn is *not its
own* when the role's baseline answered for it, because its own player's answer
could not be used (any ``fallback_*`` source: a model's reply that did not parse or a
call that failed, a Python agent that raised, timed out or returned junk, an Inspect
model's, or such a turn of a record replayed, which keeps its source). A baseline's
or a scripted seat's turns are always its own. :class:`TurnCount` counts them for a
seat, :func:`group_turns` per seat group of an episode and :func:`entrant_turns` per
entrant and seat group of a tournament, all from the lines' ``fallbacks`` by source,
so a line written by any earlier harness counts too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields

from pydantic import BaseModel, Field, JsonValue

from harness.llm.examples import PromptExamples
from harness.models import JsonObject, absent_if_empty, absent_if_none
from harness.protocol import GameResults, Report, SeatGroup
from harness.records import (
    FALLBACK_SOURCES,
    LENGTH_STOP_REASONS,
    RETRY_SOURCES,
    AgentInfo,
    CallRecord,
    CallWallClock,
    EndLine,
    HeaderLine,
    RecordModel,
    SeatInfo,
    SeatTurn,
    TickLine,
    TickWallClock,
    agent_label,
    json_int,
    json_list,
    json_number,
    json_object,
    json_objects,
    json_text,
    keys,
)
from harness.validation import seed_problem


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


def not_own(source: str) -> bool:
    """Whether a turn of ``source`` was not its seat's own: its role's baseline answered."""
    return source in FALLBACK_SOURCES


@dataclass(frozen=True)
class TurnCount:
    """Turns of some seats, and those that were not their own, by source (see the
    module's docstring)."""

    turns: int = 0
    not_own_by_source: Mapping[str, int] = field(default_factory=dict)
    """The turns that were not their seat's own, by their ``fallback_*`` source."""

    @classmethod
    def of_sources(cls, sources: Iterable[str]) -> TurnCount:
        """The count of turns with these sources, one each."""
        counted = Counter(sources)
        fell = {s: n for s, n in sorted(counted.items()) if not_own(s)}
        return cls(sum(counted.values()), fell)

    @classmethod
    def of_seat(cls, seat: SeatStats) -> TurnCount:
        """A results line's seat: its turns, and its fallbacks by source."""
        fell = {s: n for s, n in sorted(seat.fallbacks.items()) if not_own(s) and n}
        return cls(seat.turns, fell)

    @property
    def not_own(self) -> int:
        """How many turns were not their seat's own."""
        return sum(self.not_own_by_source.values())

    @property
    def share(self) -> float | None:
        """The share of turns not their seat's own; None without turns."""
        return self.not_own / self.turns if self.turns else None

    @property
    def mostly_not_own(self) -> bool:
        """Whether more than half the turns were not their seat's own."""
        return 2 * self.not_own > self.turns

    def __add__(self, other: TurnCount) -> TurnCount:
        merged = Counter(self.not_own_by_source)
        merged.update(other.not_own_by_source)
        return TurnCount(self.turns + other.turns, dict(sorted(merged.items())))


def group_turns(summary: EpisodeSummary, groups: Sequence[SeatGroup]) -> dict[str, TurnCount]:
    """Each seat group's turns in the episode of ``summary``, and those not its own
    (a group none of whose seats the line names is left out)."""
    out: dict[str, TurnCount] = {}
    for group in groups:
        seats = [summary.seats[s] for s in group.seats if s in summary.seats]
        if seats:
            out[group.key] = sum((TurnCount.of_seat(s) for s in seats), TurnCount())
    return out


def entrant_turns(
    summaries: Iterable[EpisodeSummary], groups: Sequence[SeatGroup]
) -> dict[str, dict[str, TurnCount]]:
    """Each entrant's turns per seat group over ``summaries`` (read one at a time), and
    those not its own: what a table that ranks an entrant says of who played it."""
    out: dict[str, dict[str, TurnCount]] = {}
    for summary in summaries:
        mine = out.setdefault(summary.entrant, {})
        for key, count in group_turns(summary, groups).items():
            mine[key] = mine.get(key, TurnCount()) + count
    return out


#: What a cost shows where a call had no price: never "$0", which reads as free.
NO_PRICE = "no price"


def cost_text(cost_usd: float, unpriced: int, digits: int = 4) -> str:
    """A recorded cost as every table shows it: ``$0.1234``; ``no price`` when calls
    without a price are all it has; ``$0.1234 + no price`` when it has both.

    ``unpriced`` is the calls answered with no price (:attr:`SeatStats.unpriced`);
    results lines written before they were counted give 0, and show as they did.
    """
    if not unpriced:
        return f"${cost_usd:.{digits}f}"
    if not cost_usd:
        return NO_PRICE
    return f"${cost_usd:.{digits}f} + {NO_PRICE}"


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


_HEADER = keys(HeaderLine)
_SEAT = keys(SeatInfo)
_AGENT = keys(AgentInfo)
_TICK = keys(TickLine)
_TICK_CLOCK = keys(TickWallClock)
_TURN = keys(SeatTurn)
_CALL = keys(CallRecord)
_CALL_CLOCK = keys(CallWallClock)
_END = keys(EndLine[GameResults])
_RESULTS = keys(GameResults)


@dataclass
class _Tally:
    """One seat's figures as :func:`summarize` counts them."""

    role: str
    agent: str
    turns: int = 0
    calls: int = 0
    attempts: int = 0
    retries: int = 0
    fallbacks: dict[str, int] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    cache_write_1h_tokens: int = 0
    unpriced: int = 0
    usage_unknown: int = 0
    cost_usd: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    cached: int = 0
    wait_ms: list[float] = field(default_factory=list)
    request_ms: list[float] = field(default_factory=list)
    faith: _FaithTally | None = None
    endpoints: dict[str, _EndpointTally] = field(default_factory=dict)
    server: str = ""
    """The server a call that names no endpoint went to: the seat's base URL or provider."""

    def stats(self) -> SeatStats:
        skip = ("faith", "endpoints", "server")
        figures = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip}
        faith = self.faith.figures() if self.faith is not None and self.calls else None
        endpoints = {label: asdict(tally) for label, tally in self.endpoints.items()}
        return SeatStats(**figures, faithfulness=faith, endpoints=endpoints)

    def count_call(self, call: JsonObject) -> None:
        c, clock_keys = _CALL, _CALL_CLOCK
        self.calls += 1
        self.attempts += json_int(call[c.attempts])
        tokens_in, tokens_out = call[c.input_tokens], call[c.output_tokens]
        if tokens_in is None or tokens_out is None:
            self.usage_unknown += 1  # the server gave no usable count: not in the sums
        self.input_tokens += json_int(tokens_in or 0)
        self.output_tokens += json_int(tokens_out or 0)
        self.reasoning_tokens += json_int(call[c.reasoning_tokens] or 0)
        # absent on calls that reported none, and on older records
        self.cached_input_tokens += json_int(call.get(c.cached_input_tokens) or 0)
        self.cache_write_tokens += json_int(call.get(c.cache_write_tokens) or 0)
        self.cache_write_1h_tokens += json_int(call.get(c.cache_write_1h_tokens) or 0)
        cost = call[c.cost_usd]
        if call[c.failure] is None and self.faith is not None:
            self.faith.count_answer(call.get(c.stop_reason))
        if cost is None and call[c.failure] is None and not call.get(c.cached):
            self.unpriced += 1  # a request answered, and no price to put on it
        self.cost_usd += json_number(cost or 0.0)
        if call.get(c.cached):
            self.cached += 1
            return
        # absent unless the provider has several base URLs (and on older records)
        failed_at = call.get(c.endpoint_errors)
        if failed_at:
            for label, count in json_object(failed_at).items():
                self._endpoint(label).errors += json_int(count)
        answered = call.get(c.endpoint)
        clock = call[c.wall_clock]
        if clock is None:
            if answered is not None:
                self._endpoint(json_text(answered)).calls += 1
            return
        clock = json_object(clock)
        self.latencies_ms.append(json_number(clock[clock_keys.latency_ms]))
        wait, request = clock.get(clock_keys.wait_ms), clock.get(clock_keys.request_ms)
        overlapped, timed = clock.get(clock_keys.overlapped), clock.get(clock_keys.server_ms)
        # a call counts for a server when it names its endpoint, or says how it queued
        # (absent on older records, whose lines stay as they were)
        endpoint = None
        if answered is not None:
            endpoint = self._endpoint(json_text(answered))
        elif overlapped is not None or timed is not None:
            endpoint = self._endpoint(self.server)
        if endpoint is not None:
            endpoint.calls += 1
        if wait is not None and request is not None:
            request_ms = json_number(request)
            self.wait_ms.append(json_number(wait))
            self.request_ms.append(request_ms)
            if endpoint is not None:
                endpoint.add(request_ms, json_int(call[c.attempts]), overlapped, timed)

    def _endpoint(self, label: str) -> _EndpointTally:
        if label not in self.endpoints:
            self.endpoints[label] = _EndpointTally()
        return self.endpoints[label]


@dataclass
class EndpointSums:
    """An endpoint's figures summed, under the names :class:`EndpointStats` gives them:
    one seat's over an episode (as :func:`summarize` counts them), or every seat's over
    every episode (a report's per-server table, harness/report/endpoints.py)."""

    calls: int = 0
    errors: int = 0
    request_ms: list[float] = field(default_factory=list)
    timed: int = 0
    timed_request_ms: float = 0.0
    server_ms: float = 0.0

    def add_stats(self, stats: EndpointStats) -> None:
        """Fold in one results line's figures of the endpoint."""
        self.calls += stats.calls
        self.errors += stats.errors
        self.request_ms.extend(stats.request_ms)
        self.timed += stats.timed
        self.timed_request_ms += stats.timed_request_ms
        self.server_ms += stats.server_ms


@dataclass
class _EndpointTally(EndpointSums):
    """One endpoint's figures as :meth:`_Tally.count_call` counts them."""

    alone_ms: list[float] = field(default_factory=list)
    overlapped_ms: list[float] = field(default_factory=list)

    def add(
        self, request_ms: float, attempts: int, overlapped: JsonValue, timed: JsonValue
    ) -> None:
        """An answered call's time; how it queued, when it was answered at once (a
        retried call's time holds its failed attempts too)."""
        self.request_ms.append(request_ms)
        if attempts != 1:
            return
        if timed is not None:
            self.timed += 1
            self.timed_request_ms += request_ms
            self.server_ms += json_number(timed)
        if overlapped is True:
            self.overlapped_ms.append(request_ms)
        elif overlapped is False:
            self.alone_ms.append(request_ms)


@dataclass
class FaithfulnessCounts:
    """The counts behind :class:`Faithfulness` that add up over seats and episodes: own
    turns, the replies among them that copy a prompt example, answered calls, those the
    length limit cut, and the answered calls by recorded stop reason. One seat's over an
    episode as :func:`summarize` counts them, or a seat group's over a report's results
    lines (harness/report/faithfulness.py)."""

    own_turns: int = 0
    copies: int = 0
    answered: int = 0
    length_cut: int = 0
    stop_reasons: Counter[str] = field(default_factory=Counter)


@dataclass(kw_only=True)
class _FaithTally(FaithfulnessCounts):
    """One seat's :class:`Faithfulness` as :func:`summarize` counts it."""

    examples: PromptExamples | None
    replies: set[str] = field(default_factory=set)

    def count_own(self, raw: str, raw_sha256: str) -> None:
        """One turn the seat's own reply decided."""
        self.own_turns += 1
        self.replies.add(raw_sha256)
        if self.examples is not None and self.examples.copied_by(raw):
            self.copies += 1

    def count_answer(self, stop: object) -> None:
        """One answered call, with its recorded stop reason (absent: not known)."""
        self.answered += 1
        if isinstance(stop, str):
            self.stop_reasons[stop] += 1
            self.length_cut += stop in LENGTH_STOP_REASONS

    def figures(self) -> Faithfulness:
        return Faithfulness(
            own_turns=self.own_turns,
            distinct=len(self.replies),
            copies=self.copies if self.examples is not None else None,
            answered=self.answered,
            length_cut=self.length_cut,
            stop_reasons=dict(sorted(self.stop_reasons.items())),
        )


#: The agent details that name a seat's system and observation templates (the ones
#: whose example replies a copy repeats; harness.llm.prompts.PromptSet.hashes).
_TEMPLATE_DETAILS = ("systemPromptSha256", "observationPromptSha256")


def _examples(agent: JsonObject, prompts: object) -> PromptExamples | None:
    """The example replies of a seat's prompts, from its header; None when the header
    keeps no text of them (an older record, or a seat without prompts)."""
    details = agent.get(_AGENT.details)
    if not isinstance(details, dict) or not isinstance(prompts, dict):
        return None
    texts = [prompts.get(details.get(key)) for key in _TEMPLATE_DETAILS]
    if not all(isinstance(t, str) for t in texts):
        return None
    return PromptExamples.of(t for t in texts if isinstance(t, str))


def summarize(
    report: Report, docs: Sequence[JsonObject], *, entrant: str, repetition: int
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
    infos = json_objects(header[_HEADER.seats])
    agents = [json_object(info[_SEAT.agent]) for info in infos]
    prompts = header.get(_HEADER.prompts)
    tallies = {
        json_text(info[_SEAT.seat]): _Tally(
            json_text(info[_SEAT.role]),
            agent_label(json_text(agent[_AGENT.kind]), json_text(agent[_AGENT.name])),
            faith=_FaithTally(examples=_examples(agent, prompts)),
            server=_server(agent),
        )
        for info, agent in zip(infos, agents, strict=True)
    }
    fallbacks = 0
    batches = _Batches()
    clock_key, seats_key = _TICK.wall_clock, _TICK.seats
    source_key, calls_key = _TURN.source, _TURN.calls
    raw_key, sha_key = _TURN.raw, _TURN.raw_sha256
    for line in docs[1:-1]:
        clock = line.get(clock_key)
        if clock is not None:
            batches.add(json_object(clock))
        for seat_id, turn in json_object(line[seats_key]).items():
            turn = json_object(turn)
            tally = tallies[seat_id]
            tally.turns += 1
            source = json_text(turn[source_key])
            if source in RETRY_SOURCES:
                tally.retries += 1
            if source in FALLBACK_SOURCES:
                fallbacks += 1
                tally.fallbacks[source] = tally.fallbacks.get(source, 0) + 1
            elif tally.faith is not None and turn[calls_key]:
                tally.faith.count_own(json_text(turn[raw_key]), json_text(turn[sha_key]))
            made_calls = turn[calls_key]
            if made_calls:
                for call in json_objects(made_calls):
                    tally.count_call(call)
    results = json_object(end[_END.results])
    scores = [json_number(score) for score in json_list(results[_RESULTS.scores])]
    seed, variant = header[_HEADER.seed], header[_HEADER.variant]
    return EpisodeSummary(
        episode_id=json_text(header[_HEADER.episode_id]),
        entrant=entrant,
        seed=json_int(seed),
        variant=json_text(variant),
        repetition=repetition,
        score=scores[0],
        scores=scores,
        reason=str(results[GameResults.REASON]),
        metrics=report.episode_metrics(docs),
        seats={seat_id: tally.stats() for seat_id, tally in tallies.items()},
        fallback_free=fallbacks == 0,
        identity=record_identity([_details(agent) for agent in agents]),
        batch=batches.stats(),
    )


@dataclass
class _Batches:
    """The requests a record's ticks sent together (see :mod:`harness.timing`), summed
    under the names :class:`BatchStats` gives them."""

    ticks: int = 0
    calls: int = 0
    call_ms: float = 0.0
    tick_ms: float = 0.0
    first_calls: bool = False

    def add(self, clock: JsonObject) -> None:
        """One tick's wall clock: its batch counts when it sent two requests or more."""
        c = _TICK_CLOCK
        first = clock.get(c.first_calls)
        # a record from before ticks counted the requests sent together gives the old
        # figures, so that its line still matches
        fields = (
            (c.calls, c.call_ms, c.tick_ms)
            if first is None
            else (c.first_calls, c.first_call_ms, c.first_span_ms)
        )
        self.first_calls |= first is not None
        made = json_int(clock[fields[0]])
        if made >= 2:
            self.ticks += 1
            self.calls += made
            self.call_ms += json_number(clock[fields[1]])
            self.tick_ms += json_number(clock[fields[2]])

    def stats(self) -> BatchStats:
        """The sums as a results line keeps them (the defaults when no tick counted)."""
        if not (self.ticks or self.first_calls):
            return BatchStats()
        return BatchStats.model_validate(asdict(self))


#: The keys of a model seat's agent details that name its server (harness/llm/seat.py).
SERVER_DETAILS = ("baseUrl", "provider")


def _server(agent: JsonObject) -> str:
    """The server a seat's calls go to, as its details name it: its base URL, else its
    provider (a model seat's details name both; other seats make no calls)."""
    details = agent.get(_AGENT.details)
    if not isinstance(details, dict):
        return ""
    named = next((details[k] for k in SERVER_DETAILS if details.get(k)), "")
    return named if isinstance(named, str) else ""


def _details(agent: JsonObject) -> dict[str, str]:
    return {key: json_text(v) for key, v in json_object(agent[_AGENT.details]).items()}


def summarize_read(
    report: Report, lines: Sequence[BaseModel], *, entrant: str, repetition: int
) -> EpisodeSummary:
    """:func:`summarize` of a record read back: its lines as the record models validated
    them, dumped again into the form :func:`summarize` reads (whatever spelling the
    file used)."""
    docs: list[JsonObject] = [line.model_dump(mode="json", by_alias=True) for line in lines]
    return summarize(report, docs, entrant=entrant, repetition=repetition)


__all__ = [
    "FALLBACK_SOURCES",
    "IDENTITY_DETAIL",
    "NO_PRICE",
    "RETRY_SOURCES",
    "BatchStats",
    "EndpointStats",
    "EndpointSums",
    "EpisodeSummary",
    "Faithfulness",
    "FaithfulnessCounts",
    "SeatStats",
    "TurnCount",
    "cost_text",
    "entrant_turns",
    "episode_id",
    "group_turns",
    "not_own",
    "record_identity",
    "split_episode_id",
    "summarize",
    "summarize_read",
]
