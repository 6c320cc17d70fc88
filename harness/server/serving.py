"""``lighthouse serve``: the app under uvicorn, with the server's limits and log setup."""

from __future__ import annotations

import asyncio
import copy
import errno
import os
import socket
import sys
from collections.abc import Callable

import uvicorn
from uvicorn.config import LOGGING_CONFIG, STARTUP_FAILURE

from harness.errors import ConfigError
from harness.server.app import create_app
from harness.server.hosts import allowed_hosts
from harness.server.limits import LOG, RESERVED_FDS, ServerLimits, quiet_accept_errors
from harness.server.protocol import protocol_class


def server_config(
    host: str = "127.0.0.1",
    port: int = 8000,
    limits: ServerLimits | None = None,
    kept_key: Callable[[], bytes] | None = None,
) -> uvicorn.Config:
    """The uvicorn ``Config`` of ``lighthouse serve``: the app, the address, the limits
    (header deadline in the protocol, body deadline in the app, keep-alive, connection
    cap) and a log setup that includes the server's own lines. ``kept_key`` gives the
    signing key kept across restarts (see :func:`create_app`)."""
    limits = ServerLimits() if limits is None else limits
    log_config = copy.deepcopy(LOGGING_CONFIG)
    log_config["loggers"][LOG.name] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return uvicorn.Config(
        create_app(body_timeout=limits.body_timeout, kept_key=kept_key, hosts=allowed_hosts(host)),
        host=host,
        port=port,
        http=protocol_class(limits.header_timeout),
        timeout_keep_alive=limits.keep_alive_timeout,  # type: ignore[arg-type]
        limit_concurrency=limits.max_connections,
        log_config=log_config,
        # plain lines: the command shows control characters as text (harness.text)
        use_colors=False,
        log_level="info",
        lifespan="off",
    )


def _check_descriptors(limits: ServerLimits) -> None:
    """One warning when the process may run out of file descriptors before the cap."""
    try:
        import resource
    except ImportError:  # Windows: no RLIMIT_NOFILE
        return
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = limits.max_connections + RESERVED_FDS
    if soft != resource.RLIM_INFINITY and soft < needed:
        LOG.warning(
            "only %d file descriptors are allowed (ulimit -n) but --max-connections %d "
            "needs about %d; connections past the limit wait until others close",
            soft,
            limits.max_connections,
            needed,
        )


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (0: any free port) for :func:`serve`.

    Bound before anything is printed, so the addresses a user is given are the ones
    served (the port a 0 picked included), and a port already taken or an address not
    this machine's is a :class:`ConfigError` that says so, not a server that starts,
    prints its addresses and then fails.
    """
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        return socket.create_server((host, port), family=family)
    except (OSError, UnicodeError) as exc:
        # the bare reason: create_server's own message repeats the address
        code = exc.errno if isinstance(exc, OSError) else None
        reason = os.strerror(code) if code else str(exc)
        if code == errno.EADDRINUSE:
            reason += " (another server listens there: stop it, or choose another --port)"
        raise ConfigError(f"cannot listen on {host}:{port}: {reason}") from None


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    limits: ServerLimits | None = None,
    kept_key: Callable[[], bytes] | None = None,
    sock: socket.socket | None = None,
) -> None:
    """Run the app with uvicorn until interrupted (``lighthouse serve``).

    The signing key comes from ``RELAYROAM_TOKEN_KEY`` (hex), else from ``kept_key()``
    (``lighthouse serve`` keeps it in a file: :mod:`harness.server.key_file`), else it
    is made at start and kept for the server's life; it is never logged. ``limits``
    (default :class:`ServerLimits`) bounds slow and excess connections. ``sock`` is
    the socket to serve on (:func:`listen`); without one, ``host:port`` is bound here.
    """
    sock = listen(host, port) if sock is None else sock
    config = server_config(host, port, limits, kept_key)
    server = uvicorn.Server(config)

    async def run() -> None:
        asyncio.get_running_loop().set_exception_handler(quiet_accept_errors)
        await server.serve(sockets=[sock])

    _check_descriptors(ServerLimits() if limits is None else limits)
    asyncio.run(run())
    if not server.started:  # uvicorn has said why
        sys.exit(STARTUP_FAILURE)


__all__ = ["listen", "serve", "server_config"]
