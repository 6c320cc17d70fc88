"""When a rate limit admits each call: for the tests and benchmarks that check the limit
where it is kept (a server sees arrivals, which trail admissions by a varying delay)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from unittest import mock

from harness.llm.limits import Admission, CallLimiter


@contextlib.contextmanager
def noting_admissions(times: list[float]) -> Iterator[None]:
    """While open, each call a rate-limited :class:`CallLimiter` admits appends its
    ``time.monotonic()`` to ``times`` (the preflight's unlimited limiter's are left
    out); the real limiter still does all the admitting."""
    real_slot = CallLimiter.slot

    @contextlib.asynccontextmanager
    async def slot(self: CallLimiter, tokens: int = 0) -> AsyncIterator[Admission]:
        async with real_slot(self, tokens) as admission:
            if self.limits.requests is not None:
                times.append(time.monotonic())
            yield admission

    with mock.patch.object(CallLimiter, "slot", slot):
        yield


__all__ = ["noting_admissions"]
