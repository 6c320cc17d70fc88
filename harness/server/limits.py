"""How long and how many: the server's bounds on slow, idle and excess connections.

uvicorn bounds the size of a request head (400 when one is still incomplete at 16 KiB),
closes a keep-alive connection idle between requests (``timeout_keep_alive``) and
answers 503 to a request that arrives while ``limit_concurrency`` connections are
open. It has no deadline for a request head or body: a client that sends half a head,
or a head and half a body, holds its connection (one file descriptor) for ever. So:

* the head deadline lives in :class:`~harness.server.protocol.HeaderDeadlineProtocol`,
  uvicorn's h11 protocol
  with one timer: from the moment a connection opens, or its last response ends, a
  complete request head must arrive within ``header_timeout`` seconds, else the
  connection is closed;
* the body deadline lives in the app (``app._read_body``), which reads the body under
  ``asyncio.timeout`` and answers 408 and closes when it runs out;
* :func:`quiet_accept_errors` turns the event loop's report that ``accept()`` ran out
  of file descriptors into one log line a second, not a traceback per attempt.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import math
import time
from dataclasses import dataclass
from typing import Any

from harness.defaults import MAX_TIMEOUT_SECONDS

#: The logger of the server's own lines (one line per event, never a traceback).
LOG = logging.getLogger("harness.server")

#: Seconds a connection has to deliver a complete request head.
DEFAULT_HEADER_TIMEOUT = 10.0
#: Seconds a request has to deliver its whole body (at most 64 KiB).
DEFAULT_BODY_TIMEOUT = 10.0
#: Seconds an idle keep-alive connection is kept between requests (uvicorn's default).
DEFAULT_KEEP_ALIVE_TIMEOUT = 5.0
#: A request that arrives while this many connections are open is answered 503.
DEFAULT_MAX_CONNECTIONS = 100
#: The largest timeout a flag accepts (a day): a deadline, not a way to turn one off.
MAX_TIMEOUT = MAX_TIMEOUT_SECONDS
#: The largest connection cap a flag accepts.
MAX_CONNECTIONS = 100_000
#: File descriptors the process needs besides its connections (listening socket,
#: event loop, standard streams, the page file, imports).
RESERVED_FDS = 32

_ACCEPT_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


@dataclass(frozen=True)
class ServerLimits:
    """The deadlines (seconds) and the connection cap of ``lighthouse serve``."""

    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    keep_alive_timeout: float = DEFAULT_KEEP_ALIVE_TIMEOUT
    max_connections: int = DEFAULT_MAX_CONNECTIONS

    def __post_init__(self) -> None:
        for name in ("header_timeout", "body_timeout", "keep_alive_timeout"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value)):
                raise ValueError(f"{name} must be a finite number of seconds")
            if not 0 < value <= MAX_TIMEOUT:
                raise ValueError(f"{name} must be over 0 and at most {MAX_TIMEOUT:g} seconds")
        if isinstance(self.max_connections, bool) or not isinstance(self.max_connections, int):
            raise ValueError("max_connections must be an integer")
        if not 1 <= self.max_connections <= MAX_CONNECTIONS:
            raise ValueError(f"max_connections must be 1..{MAX_CONNECTIONS}")


class _AcceptErrorThrottle:
    """The state of :func:`quiet_accept_errors`: when it last wrote, and what it held."""

    def __init__(self) -> None:
        self.last_line = -math.inf
        self.held = 0


_throttle = _AcceptErrorThrottle()


def quiet_accept_errors(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """An event-loop exception handler: ``accept()`` out of file descriptors (or
    memory) becomes at most one warning line a second; anything else goes to the
    loop's default handler.

    When the process runs out of descriptors, asyncio (3.11, 3.12) reports the failure
    once per pending connection on every retry, each report a full traceback: 300
    slow clients against a 256-descriptor server wrote 98 MB in 20 s.
    """
    exc = context.get("exception")
    if not (isinstance(exc, OSError) and exc.errno in _ACCEPT_ERRNOS):
        loop.default_exception_handler(context)
        return
    now = time.monotonic()
    if now - _throttle.last_line < 1.0:
        _throttle.held += 1
        return
    held, _throttle.held, _throttle.last_line = _throttle.held, 0, now
    LOG.warning(
        "cannot accept connections: %s; new connections wait until open ones close "
        "(raise `ulimit -n` or lower --max-connections)%s",
        exc.strerror or exc,
        f" [{held} more since the last line]" if held else "",
    )


__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_HEADER_TIMEOUT",
    "DEFAULT_KEEP_ALIVE_TIMEOUT",
    "DEFAULT_MAX_CONNECTIONS",
    "LOG",
    "MAX_CONNECTIONS",
    "MAX_TIMEOUT",
    "RESERVED_FDS",
    "ServerLimits",
    "quiet_accept_errors",
]
