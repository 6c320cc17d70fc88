"""An endpoint's figures summed, and one seat's as a results line counts them."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import JsonValue

from harness.records import json_number
from harness.summary.line import EndpointStats


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
class EndpointTally(EndpointSums):
    """One endpoint's figures as :meth:`SeatTally.count_call` counts them."""

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
