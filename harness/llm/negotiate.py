"""Finding the structured-output shape a server takes, once per (provider, model).

The shapes of :mod:`harness.llm.shapes` are tried in order; the first the server
answers is kept for every later call. A shape is *refused* when the server calls the
request itself invalid (:class:`~harness.errors.RefusedRequestError`: a 4xx, or a 5xx
whose body says so, as llama-cpp-python's 500 "Input should be 'text' or
'json_object'"); a refusal is never retried, so trying a shape costs one request.

The preflight negotiates before any episode, with a request of the same shape the
episode will send (the seat's schema, parameters and shape). If it cannot (the
server timed out, say), the first call of an episode negotiates instead: its answer
is the turn's answer, so nothing is spent twice. Calls wait on one lock while a
negotiation is under way, so concurrent seats never try shapes twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from harness.errors import RefusedRequestError
from harness.llm.calls import CallReport
from harness.llm.shapes import Shape

#: A refusal's message is kept up to this many characters in the header.
REFUSAL_CHARS = 300

Send = Callable[[Shape | None], Awaitable[CallReport]]


class Negotiation:
    """The shape one (provider, base URL, model, setting) takes; found by trying, once.

    With no candidates (structured output off) or one (a shape named in the config),
    there is nothing to find: that shape is sent, and a refusal is the call's failure.
    """

    def __init__(self, candidates: tuple[Shape, ...]) -> None:
        self.candidates = candidates
        self.settled = len(candidates) <= 1
        """Whether the shape is known (every call sends :attr:`shape`)."""
        self.shape: Shape | None = candidates[0] if candidates else None
        """The shape sent (while not settled: the next one to try)."""
        self.refusals: list[tuple[Shape, str]] = []
        """Each shape the server refused, with its message."""
        self._lock = asyncio.Lock()

    @property
    def auto(self) -> bool:
        """Whether the shape is chosen by trying (``structured_output = "auto"``)."""
        return len(self.candidates) > 1

    def describe(self) -> str:
        """The shape for a header or a line of output: ``json_object_schema``, ``auto``..."""
        if not self.candidates:
            return "off"
        return (self.shape or "off") if self.settled else "auto"

    def refused(self) -> str:
        """The refusals, one per shape, for a header (empty when none)."""
        # one line: a server's message may span several (pydantic's do)
        return "; ".join(
            f"{shape}: {' '.join(message.split())[:REFUSAL_CHARS]}"
            for shape, message in self.refusals
        )

    async def call(self, send: Send) -> list[CallReport]:
        """Send one call in the settled shape, or negotiate with it.

        Returns every call made, the last being the one whose answer counts: while
        negotiating, each refused shape is one call more.
        """
        if not self.settled:
            async with self._lock:
                if not self.settled:
                    return await self._negotiate(send)
        return [await send(self.shape)]

    async def _negotiate(self, send: Send) -> list[CallReport]:
        reports = []
        index = self.candidates.index(self.shape) if self.shape is not None else 0
        while True:
            shape = self.candidates[index]
            self.shape = shape
            report = await send(shape)
            reports.append(report)
            refused = isinstance(report.failure, RefusedRequestError)
            if refused and index + 1 < len(self.candidates):
                self.refusals.append((shape, report.message or str(report.failure)))
                index += 1
                continue
            # an answer settles it; so does a refusal of the last shape (plain text,
            # which every server takes: that request was refused for what it said)
            self.settled = report.completion is not None or refused
            return reports


__all__ = ["REFUSAL_CHARS", "Negotiation", "Send"]
