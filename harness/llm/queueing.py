"""Which requests to one server overlapped: the raw facts behind the queueing figures.

A server that runs fewer requests at once than it is sent queues the rest, and each
queued request's time in HTTP grows by the time it waited. Two facts per request let
a report see that (harness/report/endpoints.py):

- the server's own time for it, where the server reports one (llama.cpp's
  ``timings`` in the body, OpenAI's ``openai-processing-ms`` header; read by
  :mod:`harness.llm.wire`): the rest of the request's time was spent waiting, or on
  the wire;
- whether another request to the same server was in flight at any moment of it
  (:class:`InFlight`): calls made alone show what a request costs the server, calls
  that overlapped what it cost while shared.

One :class:`InFlight` per server: per endpoint of a fleet, else per provider object,
which the seat factory shares between every seat and episode that calls the same
server, so requests of different episodes overlap as they do on the server.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from weakref import WeakKeyDictionary


class Span:
    """One request in flight; ``overlapped`` turns true when another shares its time."""

    __slots__ = ("overlapped",)

    def __init__(self, overlapped: bool) -> None:
        self.overlapped = overlapped


class InFlight:
    """The requests in flight to one server."""

    def __init__(self) -> None:
        self._active: set[Span] = set()

    @property
    def count(self) -> int:
        """Requests in flight now."""
        return len(self._active)

    @contextmanager
    def span(self) -> Iterator[Span]:
        """Count one request in flight while the block runs; every request it meets is
        marked overlapped, and so is it when it meets any."""
        span = Span(overlapped=bool(self._active))
        for other in self._active:
            other.overlapped = True
        self._active.add(span)
        try:
            yield span
        finally:
            self._active.discard(span)


_SERVERS: WeakKeyDictionary[object, InFlight] = WeakKeyDictionary()


def in_flight(provider: object) -> InFlight:
    """The :class:`InFlight` of the server behind ``provider`` (one per provider object)."""
    try:
        found = _SERVERS.get(provider)
        if found is None:
            found = _SERVERS[provider] = InFlight()
        return found
    except TypeError:  # an object that cannot be weakly referenced: tracked by no one
        return InFlight()


__all__ = ["InFlight", "Span", "in_flight"]
