"""``lighthouse serve``: every game's HTTP API and playable page, with the server's limits."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from typing import Any

from harness.server.limits import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_KEEP_ALIVE_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
    MAX_CONNECTIONS,
    MAX_TIMEOUT,
    ServerLimits,
)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds over 0 and at most {MAX_TIMEOUT:g}"
        )
    return value


def _int_in(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        # Digits only, and few of them: int() of a 5,000-digit string is refused with
        # a traceback, not a number.
        if not (text.isascii() and text.isdigit() and len(text) <= 6) or not (
            low <= int(text) <= high
        ):
            raise argparse.ArgumentTypeError(f"{text[:20]!r} is not an integer {low}..{high}")
        return int(text)

    return parse


def add_parser(sub: Any) -> None:
    """Register ``serve``."""
    serve = sub.add_parser(
        "serve", help="serve the games' HTTP APIs and playable pages (Relayroam, Hourloom)"
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_int_in(0, 65535), default=8000)
    serve.add_argument(
        "--header-timeout",
        type=_seconds,
        default=DEFAULT_HEADER_TIMEOUT,
        metavar="S",
        help="seconds a connection has to send a complete request head, from opening "
        f"or from its last response (default {DEFAULT_HEADER_TIMEOUT:g})",
    )
    serve.add_argument(
        "--body-timeout",
        type=_seconds,
        default=DEFAULT_BODY_TIMEOUT,
        metavar="S",
        help="seconds a request has to send its whole body; then 408 and the connection "
        f"closes (default {DEFAULT_BODY_TIMEOUT:g})",
    )
    serve.add_argument(
        "--keep-alive-timeout",
        type=_seconds,
        default=DEFAULT_KEEP_ALIVE_TIMEOUT,
        metavar="S",
        help="seconds an idle connection is kept between requests "
        f"(default {DEFAULT_KEEP_ALIVE_TIMEOUT:g})",
    )
    serve.add_argument(
        "--max-connections",
        type=_int_in(1, MAX_CONNECTIONS),
        default=DEFAULT_MAX_CONNECTIONS,
        metavar="N",
        help="a request that arrives while N connections are open (its own included) is "
        f"answered 503 (default {DEFAULT_MAX_CONNECTIONS})",
    )
    serve.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    from harness.registry import http_apis
    from harness.server.serving import serve

    limits = ServerLimits(
        header_timeout=args.header_timeout,
        body_timeout=args.body_timeout,
        keep_alive_timeout=args.keep_alive_timeout,
        max_connections=args.max_connections,
    )
    for name, api in http_apis().items():
        if api.page() is not None:
            print(f"{name.capitalize()}: http://{args.host}:{args.port}/{name}/", file=sys.stderr)
    print("Ctrl-C stops the server", file=sys.stderr)
    serve(host=args.host, port=args.port, limits=limits)
    return 0
