"""One seat's figures and the ticks' batches of requests, counted from a record's
lines as :func:`~harness.summary.summarize` reads them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from harness.models import JsonObject
from harness.records import (
    CallRecord,
    CallWallClock,
    TickWallClock,
    json_int,
    json_number,
    json_object,
    json_text,
    keys,
)
from harness.summary.endpoints import EndpointTally
from harness.summary.faithfulness import FaithTally
from harness.summary.line import BatchStats, SeatStats

_TICK_CLOCK = keys(TickWallClock)
_CALL = keys(CallRecord)
_CALL_CLOCK = keys(CallWallClock)


@dataclass
class SeatTally:
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
    faith: FaithTally | None = None
    endpoints: dict[str, EndpointTally] = field(default_factory=dict)
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

    def _endpoint(self, label: str) -> EndpointTally:
        if label not in self.endpoints:
            self.endpoints[label] = EndpointTally()
        return self.endpoints[label]


@dataclass
class BatchTally:
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
