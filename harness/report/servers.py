"""What a report says about the model servers and the fallbacks, apart from the scores.

- **Fallback flags.** An entrant a seat group of which fell back to its role's baseline
  on more than :data:`FLAG_SHARE` of its turns (any kind of seat: a model, a Python
  agent, an Inspect model, a record of one; :func:`harness.summary.not_own`) is
  flagged wherever it is ranked, so that a player that never answered usably does not
  pass for its baseline: "all turns fell back" when every turn of that group did, else
  the share. An entrant with more than half of a group's turns not its own is
  *mostly not its own* and ranked apart (:func:`mostly_not_own`). The "without LLM
  fallbacks" section names the entrants it has no episode of, instead of dropping them.
- **Server figures.** Per entrant: the calls answered from the cache, the median wait
  for the harness's limiter and the median time in HTTP, the observed concurrency of
  the requests that could overlap (the first calls of different seats in one tick;
  a seat's retry waits for its first call, so it is never one of them), and a
  warning when those ran no better than one request at a time (see
  :mod:`harness.timing`): by the server, or by the harness's own ``max_in_flight``
  when the limiter wait says so. Lines of records from before ticks counted their
  first calls give no such figure (harness/report/digest.py leaves them out).
- **Deadlines.** How many episodes ran out of their play budget, and what to raise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.report.endpoints import endpoint_lines, ms_text
from harness.report.markdown import markdown_table, warning_lines
from harness.report.model import NotOwnCount, Report, ServerRow
from harness.report.stats import percentile
from harness.summary import EpisodeSummary, TurnCount
from harness.timing import serial_ceiling

#: An entrant whose model seats fell back on more than this share of turns is flagged.
FLAG_SHARE = 0.10
ALL_FELL_BACK = "all turns fell back"


def _flag(turns: int, fallbacks: int) -> str | None:
    if not turns or fallbacks / turns <= FLAG_SHARE:
        return None
    if fallbacks == turns:
        return ALL_FELL_BACK
    return f"fallback {100 * fallbacks / turns:.0f}% of turns"


def worst(groups: Mapping[str, NotOwnCount]) -> tuple[int, int]:
    """(turns, not own) of the seat group with the largest share not its own."""
    best = max(groups.values(), key=lambda g: (g.share, g.not_own), default=None)
    return (0, 0) if best is None else (best.turns, best.not_own)


def mostly_not_own(groups: Mapping[str, NotOwnCount]) -> bool:
    """Whether more than half of some seat group's turns were not the entrant's own."""
    return any(2 * g.not_own > g.turns for g in groups.values())


def fallback_flags(by_entrant: Mapping[str, Sequence[EpisodeSummary]]) -> dict[str, str]:
    """Entrant -> its flag, for entrants a role of which fell back too often (every
    kind of seat; the seats of a role counted together, as a seat group's are)."""
    counts = {}
    for name, episodes in by_entrant.items():
        roles: dict[str, TurnCount] = {}
        for ep in episodes:
            for seat in ep.seats.values():
                roles[seat.role] = roles.get(seat.role, TurnCount()) + TurnCount.of_seat(seat)
        counts[name] = worst(
            {
                role: NotOwnCount(turns=c.turns, not_own=c.not_own, sources={})
                for role, c in roles.items()
            }
        )
    return flags_of(counts)


def flags_of(counts: Mapping[str, tuple[int, int]]) -> dict[str, str]:
    """Entrant -> its flag, from each entrant's (turns, not own) of its worst seat group."""
    flags = {}
    for name, (turns, fallbacks) in counts.items():
        flag = _flag(turns, fallbacks)
        if flag is not None:
            flags[name] = flag
    return flags


def flagged(name: str, flags: Mapping[str, str]) -> str:
    """``name`` as a table shows it: with its flag, when it has one."""
    flag = flags.get(name)
    return f"{name} ⚠ {flag}" if flag else name


def _median(values: list[float]) -> float | None:
    return percentile(values, 50) if values else None


def server_row(
    name: str,
    *,
    calls: int,
    cached: int,
    waits: list[float],
    requests: list[float],
    ticks: int,
    batch_calls: int,
    call_ms: float,
    tick_ms: float,
) -> ServerRow:
    """One entrant's server figures from its totals: the model seats' calls and cached
    calls, every wait and request time (in the report's order), and the batch ticks'
    counts and times."""
    concurrency = call_ms / tick_ms if ticks and tick_ms > 0 else None
    per_tick = batch_calls / ticks if ticks else None
    warning = None
    serial = (
        concurrency is not None
        and per_tick is not None
        and per_tick >= 2
        and concurrency <= serial_ceiling(per_tick)
    )
    if serial and concurrency is not None and per_tick is not None:
        held = sum(waits) > 0.25 * sum(requests)
        who = "the harness's max_in_flight held the calls back" if held else (
            "the server answered one request at a time"
        )  # fmt: skip
        warning = (
            f"{who}: the first calls of different seats in a tick, sent together "
            f"({per_tick:.1f} a tick), ran with observed concurrency {concurrency:.2f} "
            f"(all at once would give {per_tick:.1f}, one at a time "
            f"{(per_tick + 1) / 2:.1f})"
        )
    return ServerRow(
        entrant=name,
        calls=calls,
        cached=cached,
        wait_ms_p50=_median(waits),
        request_ms_p50=_median(requests),
        batch_ticks=ticks,
        requests_per_tick=per_tick,
        concurrency=concurrency,
        warning=warning,
    )


#: The heads of the per-entrant table of :func:`server_section`.
_HEADS = (
    "entrant", "calls", "cached", "wait p50", "request p50", "requests per tick", "concurrency",
)  # fmt: skip


def _cells(r: ServerRow) -> list[str]:
    per_tick = "-" if r.requests_per_tick is None else f"{r.requests_per_tick:.1f}"
    conc = "-" if r.concurrency is None else f"{r.concurrency:.2f}"
    return [
        r.entrant, str(r.calls), str(r.cached), ms_text(r.wait_ms_p50),
        ms_text(r.request_ms_p50), per_tick, conc,
    ]  # fmt: skip


def server_section(report: Report) -> list[str]:
    """The report's Markdown lines about servers and deadlines (none when nothing to say)."""
    out: list[str] = []
    rows = report.servers
    if rows:
        out += [
            "",
            "## Model servers",
            "",
            "wait: time waiting for the harness's limiter; request: time in HTTP, queue "
            "inside the server included. Requests per tick and concurrency are of the "
            "requests that could overlap: the first calls of different seats in one tick, "
            "sent together (a seat's retry waits for its first call, so it is never one). "
            "Concurrency: those requests in flight on average, over the ticks with two or "
            "more (n sent together give n when the server runs them at once, (n + 1) / 2 "
            "when it answers one at a time). Cached calls (answers replayed from "
            "calls.sqlite) are left out of every time.",
            "",
            markdown_table(_HEADS, [_cells(r) for r in rows]),
        ]
        out += warning_lines(
            [(r.entrant, r.warning) for r in rows if r.warning],
            "A server that answers one request at a time makes every tick as slow as its "
            "seats together: docs/llm.md gives each local server's setting for parallel "
            "slots.",
        )
        out += endpoint_lines(report)
    deadlines = report.deadlines
    if deadlines:
        out += [
            "",
            f"⚠ {deadlines} episode(s) ended by deadline: the play budget (60% of "
            "episode_timeout_seconds) ran out before the game ended. Raise "
            "episode_timeout_seconds in the config (lighthouse play: --episode-timeout), "
            "or make the server answer the seats at once.",
        ]
    return out


def unshown_line(report: Report, clean_names: Sequence[str]) -> str | None:
    """For "without LLM fallbacks": the entrants it has no episode of, and why."""
    flags = report.fallback_flags
    missing = [r.entrant for r in report.entrants if r.entrant not in clean_names]
    if not missing:
        return None
    named = ", ".join(f"{n} ({flags.get(n, 'a fallback in every episode')})" for n in missing)
    return f"Not shown, no episode without a fallback: {named}."


__all__ = [
    "ALL_FELL_BACK",
    "FLAG_SHARE",
    "fallback_flags",
    "flagged",
    "flags_of",
    "mostly_not_own",
    "server_row",
    "server_section",
    "unshown_line",
    "worst",
]
