"""Rate limits and concurrency caps, one set per provider and model.

asyncio-throttle admits at most N acquisitions in any window of ``period`` seconds,
but on its own it is neither first-come first-served nor quiet: every waiter polls
every 10 ms. A FIFO lock in front of it fixes both: callers queue on the lock in
arrival order, and only the one at the head polls the throttle.

A tokens-per-minute limit (:class:`TokenWindow`) sits behind the same lock: a call is
admitted when the tokens admitted in the last minute, its own bound added, stay within
the limit. The bound is what the call may cost before it is sent (its input estimated
at one token per 4 bytes, plus its ``max_tokens``); once the answer says what it did
cost, the call's entry is corrected to that (:meth:`Admission.settle`), so a call that
used less frees the rest of its bound at once. A call that got no answer keeps its
bound (the provider may have counted it). A call whose bound alone is over the limit
is admitted when the window is empty, so that no call waits forever.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from asyncio_throttle.throttler import Throttler

from harness.defaults import RATE_PERIOD_SECONDS

#: The window of a tokens-per-minute limit, in seconds.
TOKEN_PERIOD_SECONDS = 60.0


@dataclass(frozen=True)
class Limits:
    """At most ``requests`` calls admitted per ``period_s`` seconds, ``in_flight`` at once,
    and at most ``tokens_per_minute`` tokens (bounds, then real counts) a minute."""

    requests: int | None = None
    period_s: float = RATE_PERIOD_SECONDS
    in_flight: int | None = None
    tokens_per_minute: int | None = None


class Admission:
    """One admitted call's entry in a :class:`TokenWindow` (a no-op without one)."""

    def __init__(self, entry: list[float] | None = None, window: TokenWindow | None = None) -> None:
        self._entry = entry
        self._window = window

    @property
    def tokens(self) -> float:
        """The tokens this call counts for now: its bound, or what it cost once settled."""
        return self._entry[1] if self._entry is not None else 0.0

    def settle(self, tokens: int | None) -> None:
        """Count the call for ``tokens``, the real cost its answer reported (None: unknown,
        the bound stays)."""
        if self._entry is not None and tokens is not None:
            self._entry[1] = float(tokens)
            if self._window is not None:
                self._window.changed.set()  # a waiter may fit now


class TokenWindow:
    """Tokens admitted in a sliding window of ``period_s`` seconds, at most ``limit``."""

    def __init__(self, limit: int, period_s: float = TOKEN_PERIOD_SECONDS) -> None:
        self.limit = limit
        self.period_s = period_s
        self._entries: deque[list[float]] = deque()  # [admitted at, tokens], in order
        self.changed = asyncio.Event()
        """Set when an entry is settled: the call waiting looks again at once."""

    def spent(self, now: float) -> float:
        """The tokens counted in the window ending at ``now`` (older entries dropped)."""
        while self._entries and self._entries[0][0] <= now - self.period_s:
            self._entries.popleft()
        return sum(tokens for _, tokens in self._entries)

    async def admit(self, tokens: int) -> Admission:
        """Wait until ``tokens`` more fit in the window (or it is empty), then count them."""
        loop = asyncio.get_running_loop()
        while True:
            now = loop.time()
            spent = self.spent(now)  # drops the entries that left the window first
            if not self._entries or spent + tokens <= self.limit:
                entry = [now, float(tokens)]
                self._entries.append(entry)
                return Admission(entry, self)
            # look again when the oldest entry leaves the window, or a call settles
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(self._entries[0][0] + self.period_s - now, 0.0)):
                    await self.changed.wait()


class CallLimiter:
    """Admission control for one (provider, model): rate limit, FIFO, in-flight cap."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._lock = asyncio.Lock()  # asyncio.Lock wakes its waiters in FIFO order
        self._throttler = (
            Throttler(rate_limit=limits.requests, period=limits.period_s)
            if limits.requests
            else None
        )
        self._slots = asyncio.Semaphore(limits.in_flight) if limits.in_flight else None
        self.tokens = TokenWindow(limits.tokens_per_minute) if limits.tokens_per_minute else None
        """The tokens-per-minute window, when the limits have one."""
        self.admitted = 0
        """How many calls this limiter has admitted."""

    @asynccontextmanager
    async def slot(self, tokens: int = 0) -> AsyncIterator[Admission]:
        """Wait for an in-flight slot, then for the rate limit and for ``tokens`` (the
        call's bound) to fit the tokens-per-minute limit, first come first served."""
        if self._slots is not None:
            await self._slots.acquire()
        try:
            admission = Admission()
            if self._throttler is not None or self.tokens is not None:
                async with self._lock:
                    if self._throttler is not None:
                        await self._throttler.acquire()  # type: ignore[no-untyped-call]
                    if self.tokens is not None:
                        admission = await self.tokens.admit(tokens)
            self.admitted += 1
            yield admission
        finally:
            if self._slots is not None:
                self._slots.release()


class LimiterRegistry:
    """One :class:`CallLimiter` per (provider, model), shared by every seat using it."""

    def __init__(self) -> None:
        self._limiters: dict[tuple[str, str], CallLimiter] = {}

    def get(self, provider: str, model: str, limits: Limits) -> CallLimiter:
        """The limiter of ``(provider, model)``, made with ``limits`` on first use."""
        key = (provider, model)
        if key not in self._limiters:
            self._limiters[key] = CallLimiter(limits)
        return self._limiters[key]


__all__ = [
    "TOKEN_PERIOD_SECONDS",
    "Admission",
    "CallLimiter",
    "LimiterRegistry",
    "Limits",
    "TokenWindow",
]
