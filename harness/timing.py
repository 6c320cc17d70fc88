"""Tick timing: how long a tick's batch took, and how many model requests ran at once.

A tick asks every seat at once. ``concurrency = callMs / tickMs`` is the mean number
of model requests in flight during the tick, where ``callMs`` sums the requests'
time in HTTP (``requestMs``: the harness's own limiter queue left out, cached
answers left out). For a batch of n requests of equal length sent together it is n
when the server runs them at once, and (n + 1) / 2 when it answers them one at a
time (the k-th answer arrives after k request-times, so the times sum to
n (n + 1) / 2 request-times over a tick of n): :func:`serial_ceiling` is the value a
report compares against.

Only requests sent together can overlap: the seats' *first* calls of the tick. A
seat's retry with a hint is sent after its first call is answered, so one model seat
that retries makes two requests a tick that never overlap, whatever the server. The
tick's ``firstCalls`` counts the seats whose first call was a request,
``firstCallMs`` sums those requests' ``requestMs``, and ``firstSpanMs`` is the
longest of their ``latencyMs`` (they start together, when the seats are asked): a
report judges a server by ``firstCallMs / firstSpanMs`` over the ticks with two or
more first calls, never by the tick's whole ``concurrency``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from harness.models import JsonObject
from harness.records import CallRecord, TickWallClock, keys

# The keys of a tick's wallClock as its model names them, bound once: every tick has one.
_K = keys(TickWallClock)
_TICK_MS, _CALL_MS, _CALLS, _CONCURRENCY = _K.tick_ms, _K.call_ms, _K.calls, _K.concurrency
_FIRST, _FIRST_MS, _FIRST_SPAN = _K.first_calls, _K.first_call_ms, _K.first_span_ms
#: The rest of the ``wallClock`` of a tick that made no call: as below with no calls.
_NO_CALLS: JsonObject = {_CALL_MS: 0.0, _CALLS: 0, _CONCURRENCY: None}


def _requested(call: CallRecord) -> bool:
    """Whether ``call`` went to the server (not from the cache, at least one attempt)."""
    return not call.cached and call.wall_clock is not None and call.attempts > 0


def tick_wall_clock(turns: Iterable[Sequence[CallRecord]], seconds: float) -> JsonObject:
    """The ``wallClock`` of a tick over ``seconds`` whose seats made ``turns`` (each
    seat's calls, in the order it made them)."""
    turns = list(turns)
    calls = [call for made in turns for call in made]
    live = [c for c in calls if not c.cached and c.wall_clock is not None]
    if not live:  # scripted seats, or every answer cached: the tick's length alone
        return {_TICK_MS: round(float(seconds * 1000), 3), **_NO_CALLS}
    call_ms = sum((c.wall_clock.request_ms or 0.0) for c in live if c.wall_clock is not None)
    tick_ms = seconds * 1000
    made = sum(1 for c in live if c.attempts)
    # floats, as the record's model writes them (an empty sum is the int 0): the line
    # is written as this dict is
    tick_ms, call_ms = float(tick_ms), float(call_ms)
    # the requests sent together: each seat's first call, when it was a request
    first = [made[0].wall_clock for made in turns if made and _requested(made[0])]
    clocks = [clock for clock in first if clock is not None]
    return {
        _TICK_MS: round(tick_ms, 3),
        _CALL_MS: round(call_ms, 3),
        _CALLS: made,
        _CONCURRENCY: round(call_ms / tick_ms, 3) if made and tick_ms > 0 else None,
        _FIRST: len(clocks),
        _FIRST_MS: round(float(sum(c.request_ms or 0.0 for c in clocks)), 3),
        _FIRST_SPAN: round(float(max((c.latency_ms for c in clocks), default=0.0)), 3),
    }


def serial_ceiling(calls: float) -> float:
    """What ``concurrency`` a batch of ``calls`` equal requests shows when answered one at
    a time, with a margin of a third of the way to all at once (``calls``)."""
    one_at_a_time = (calls + 1) / 2
    return one_at_a_time + (calls - one_at_a_time) / 3


__all__ = ["serial_ceiling", "tick_wall_clock"]
