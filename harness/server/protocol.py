"""The request-head deadline: uvicorn's h11 protocol with one more timer.

uvicorn bounds a head's size and the idle time between requests but not the time a
head may take to arrive (see :mod:`harness.server.limits`); this protocol adds it.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from harness.server.limits import DEFAULT_HEADER_TIMEOUT, LOG


def _peer(client: tuple[str, int] | None) -> str:
    return f"{client[0]}:{client[1]}" if client else "a client"


class HeaderDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request head.

    The timer starts when the connection opens and again when a response ends (the
    next request's head is due); it stops when a head is complete. When it fires the
    connection is closed: silently when nothing arrived (an idle connection, as
    uvicorn closes idle keep-alive ones), with one log line when part of a head (or a
    body the app never read) did. Use :func:`protocol_class` to set the deadline.
    """

    header_timeout: ClassVar[float] = DEFAULT_HEADER_TIMEOUT

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._header_timer: asyncio.TimerHandle | None = None
        self._bytes_while_waiting = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start_header_timer()

    def data_received(self, data: bytes) -> None:
        if self._header_timer is not None:
            self._bytes_while_waiting += len(data)
        waiting_cycle = self.cycle
        super().data_received(data)
        if self.cycle is not waiting_cycle:  # a request head was parsed: a new cycle
            self._stop_header_timer()

    def on_response_complete(self) -> None:
        served = self.cycle
        super().on_response_complete()
        # A pipelined request may already have started a new cycle; if not, the next
        # head is due now.
        if self.cycle is served and not self.transport.is_closing():
            self._start_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_header_timer()
        super().connection_lost(exc)

    def _start_header_timer(self) -> None:
        self._stop_header_timer()
        self._bytes_while_waiting = 0
        self._header_timer = self.loop.call_later(self.header_timeout, self._header_overdue)

    def _stop_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_overdue(self) -> None:
        self._header_timer = None
        if self.transport.is_closing():
            return
        # Bytes of a head may have come since the timer started, or before it, still
        # waiting in h11's buffer behind a pipelined request.
        received = self._bytes_while_waiting or len(self.conn.trailing_data[0])
        if received:
            LOG.info(
                "closed the connection of %s: no complete request head within %gs "
                "(%d bytes received)",
                _peer(self.client),
                self.header_timeout,
                received,
            )
        self.transport.close()


def protocol_class(header_timeout: float) -> type[HeaderDeadlineProtocol]:
    """A :class:`HeaderDeadlineProtocol` whose head deadline is ``header_timeout`` seconds
    (uvicorn builds the protocol itself, so the setting travels on the class)."""

    class Protocol(HeaderDeadlineProtocol):
        pass

    Protocol.header_timeout = header_timeout
    return Protocol


__all__ = ["HeaderDeadlineProtocol", "protocol_class"]
