"""Rate limits and concurrency caps, one set per provider and model.

asyncio-throttle admits at most N acquisitions in any window of ``period`` seconds,
but on its own it is neither first-come first-served nor quiet: every waiter polls
every 10 ms. A FIFO lock in front of it fixes both: callers queue on the lock in
arrival order, and only the one at the head polls the throttle.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from asyncio_throttle.throttler import Throttler

from harness.defaults import RATE_PERIOD_SECONDS


@dataclass(frozen=True)
class Limits:
    """At most ``requests`` calls admitted per ``period_s`` seconds, ``in_flight`` at once."""

    requests: int | None = None
    period_s: float = RATE_PERIOD_SECONDS
    in_flight: int | None = None


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
        self.admitted = 0
        """How many calls this limiter has admitted."""

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Wait for an in-flight slot, then for the rate limit, first come first served."""
        if self._slots is not None:
            await self._slots.acquire()
        try:
            if self._throttler is not None:
                async with self._lock:
                    await self._throttler.acquire()  # type: ignore[no-untyped-call]
            self.admitted += 1
            yield
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


__all__ = ["CallLimiter", "LimiterRegistry", "Limits"]
