"""The report's figures per model server (endpoint): calls, errors, latency, queueing.

Every call says which server it went to (an endpoint of a provider with several base
URLs, else the seat's base URL or provider: harness/summary/endpoints.py), whether another
request to that server was in flight meanwhile, from any seat or episode, and the
server's own time where the server reports one (harness/llm/queueing.py). Per server:

- **calls, errors, request p50:** the calls it answered, the attempts that failed at
  it, the median time in HTTP of its answers;
- **queue:** the mean time a call waited beyond the server's own processing: request
  time minus server time, over the calls answered at their first attempt whose
  server reported its time; else the shared calls' median over the alone calls'
  median, per seat, averaged as the inflation is;
- **inflation:** how many times its own work a call took. From the server's times
  when it reports them (summed request time / summed server time); else from the
  calls themselves: per seat, the median request time of its calls that shared the
  server over the median of its calls made alone (each at least
  :data:`MIN_CALLS`), averaged over the seats weighted by their shared calls. A
  seat's calls alone are its own baseline, so a long prompt is never taken for a
  queue.

A server whose inflation is over :data:`QUEUE_WARN_INFLATION` (over at least
:data:`MIN_CALLS` calls), with a queue of at least :data:`MIN_QUEUE_MS`, is warned
about: its calls waited for each other, within an episode or across episodes, which
the per-entrant concurrency figure (one tick of one episode) cannot see.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from harness.report.markdown import markdown_table, warning_lines
from harness.report.model import EndpointRow, Report
from harness.report.stats import percentile
from harness.summary import EndpointSums, EpisodeSummary
from harness.text import terminal_safe

#: Calls that took more than this many times the server's own work are warned about.
QUEUE_WARN_INFLATION = 1.5
#: The fewest calls a figure is made from (timed calls; a seat's calls alone and shared).
MIN_CALLS = 3
#: ... and the least time a call waited beyond the server's work (mean, ms) that is
#: warned about: on a server that answers in a millisecond, noise is not a queue.
MIN_QUEUE_MS = 10.0


@dataclass
class _Seat:
    alone: list[float] = field(default_factory=list)
    shared: list[float] = field(default_factory=list)


@dataclass
class _Server(EndpointSums):
    seats: dict[tuple[str, str], _Seat] = field(default_factory=dict)

    def queueing(self) -> tuple[float | None, str | None, float | None]:
        """(inflation, what it is measured against, mean queue in ms), each None without
        enough calls."""
        if self.timed >= MIN_CALLS and self.server_ms > 0:
            queue = max(self.timed_request_ms - self.server_ms, 0.0) / self.timed
            return self.timed_request_ms / self.server_ms, "server time", queue
        ratios = extra = weight = 0.0
        for seat in self.seats.values():
            if len(seat.alone) >= MIN_CALLS and len(seat.shared) >= MIN_CALLS:
                alone, shared = percentile(seat.alone, 50), percentile(seat.shared, 50)
                if alone > 0:
                    ratios += len(seat.shared) * shared / alone
                    extra += len(seat.shared) * max(shared - alone, 0.0)
                    weight += len(seat.shared)
        if not weight:
            return None, None, None
        return ratios / weight, "calls alone", extra / weight


class EndpointTotals:
    """The servers' figures, folded in one results line at a time."""

    def __init__(self) -> None:
        self._servers: dict[str, _Server] = {}

    def add(self, summary: EpisodeSummary) -> None:
        """One episode's calls (its seats' ``endpoints``)."""
        for seat_id, seat in summary.seats.items():
            for label, stats in seat.endpoints.items():
                server = self._servers.setdefault(label, _Server())
                server.add_stats(stats)
                mine = server.seats.setdefault((summary.entrant, seat_id), _Seat())
                mine.alone.extend(stats.alone_ms)
                mine.shared.extend(stats.overlapped_ms)

    def rows(self) -> list[EndpointRow]:
        """One row per server, by name."""
        return [_row(label, self._servers[label]) for label in sorted(self._servers)]


def _row(label: str, server: _Server) -> EndpointRow:
    inflation, basis, queue = server.queueing()
    warning = None
    warn = inflation is not None and inflation > QUEUE_WARN_INFLATION
    if warn and queue is not None and queue >= MIN_QUEUE_MS:
        warning = (
            f"calls took {inflation:.1f}x the server's own time (measured against "
            f"{basis}; {queue:.0f} ms a call beyond it): they waited for each other in its "
            "queue, within or across episodes"
        )
    return EndpointRow(
        endpoint=label,
        calls=server.calls,
        errors=server.errors,
        request_ms_p50=percentile(server.request_ms, 50) if server.request_ms else None,
        queue_ms_mean=queue,
        inflation=inflation,
        inflation_basis=basis,
        warning=warning,
    )


def endpoint_rows(summaries: Iterable[EpisodeSummary]) -> list[EndpointRow]:
    """The servers' rows over ``summaries``."""
    totals = EndpointTotals()
    for summary in summaries:
        totals.add(summary)
    return totals.rows()


def ms_text(value: float | None) -> str:
    """A time in milliseconds as a table shows it (``-`` when there is none)."""
    return "-" if value is None else f"{value:.0f} ms"


#: A server's name is shown up to this many characters (it comes from the records).
LABEL_CHARS = 200


def shown(label: str) -> str:
    """A server's name as a table cell: one line, no control character, ``|`` and the
    characters Markdown and HTML read escaped, cut to :data:`LABEL_CHARS`."""
    text = terminal_safe(label[:LABEL_CHARS], one_line=True)
    for char in "\\|<>&*_`[]":
        text = text.replace(char, f"\\{char}")
    return text or "-"


def endpoint_lines(report: Report) -> list[str]:
    """The Markdown lines of the per-server table and its warnings (none without rows)."""
    rows = report.endpoints
    if not rows:
        return []
    out = [
        "",
        "Per server (each endpoint of a provider with several base URLs, else the seat's "
        "base URL or provider), every entrant and episode together: calls it answered, "
        "attempts that failed at it, the median time in HTTP of its answers; queue: the "
        "mean time a call waited beyond the server's own processing, where the server "
        "reports it; inflation: how many times the server's own time a call took "
        "(measured against the server's time, else against each seat's calls made while "
        "no other request was in flight).",
        "",
        markdown_table(
            ["server", "calls", "errors", "request p50", "queue", "inflation"],
            [_cells(r) for r in rows],
        ),
    ]
    return out + warning_lines(
        [(shown(r.endpoint), r.warning) for r in rows if r.warning],
        f"Past {QUEUE_WARN_INFLATION}x a server runs fewer requests at once than it is "
        'sent: give it more parallel slots (docs/llm.md, "Local servers"), lower the '
        "tournament's concurrency, or list replicas as the provider's base_url.",
    )


def _cells(r: EndpointRow) -> list[str]:
    inflation = "-" if r.inflation is None else f"{r.inflation:.2f}x ({r.inflation_basis})"
    return [
        shown(r.endpoint), str(r.calls), str(r.errors), ms_text(r.request_ms_p50),
        ms_text(r.queue_ms_mean), inflation,
    ]  # fmt: skip


__all__ = [
    "MIN_CALLS",
    "MIN_QUEUE_MS",
    "QUEUE_WARN_INFLATION",
    "EndpointTotals",
    "endpoint_lines",
    "endpoint_rows",
    "ms_text",
]
