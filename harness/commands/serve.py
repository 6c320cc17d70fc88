"""``lighthouse serve``: every game's HTTP API and playable page, with the server's limits."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

from harness.commands.parser import (
    Subcommand,
    add_address_arguments,
    at_least,
    seconds,
)

DEFAULT_PORT = 8000


def _add_arguments(serve: argparse.ArgumentParser) -> None:
    """``serve``'s flags."""
    from harness.server.limits import (
        DEFAULT_BODY_TIMEOUT,
        DEFAULT_HEADER_TIMEOUT,
        DEFAULT_KEEP_ALIVE_TIMEOUT,
        DEFAULT_MAX_CONNECTIONS,
        MAX_CONNECTIONS,
        MAX_TIMEOUT,
    )

    timeout = seconds(maximum=MAX_TIMEOUT)

    add_address_arguments(serve, DEFAULT_PORT)
    serve.add_argument(
        "--header-timeout",
        type=timeout,
        default=DEFAULT_HEADER_TIMEOUT,
        metavar="S",
        help="seconds a connection has to send a complete request head, from opening "
        f"or from its last response (default: {DEFAULT_HEADER_TIMEOUT:g})",
    )
    serve.add_argument(
        "--body-timeout",
        type=timeout,
        default=DEFAULT_BODY_TIMEOUT,
        metavar="S",
        help="seconds a request has to send its whole body; then 408 and the connection "
        f"closes (default: {DEFAULT_BODY_TIMEOUT:g})",
    )
    serve.add_argument(
        "--keep-alive-timeout",
        type=timeout,
        default=DEFAULT_KEEP_ALIVE_TIMEOUT,
        metavar="S",
        help="seconds an idle connection is kept between requests "
        f"(default: {DEFAULT_KEEP_ALIVE_TIMEOUT:g})",
    )
    serve.add_argument(
        "--max-connections",
        type=at_least(1, MAX_CONNECTIONS),
        default=DEFAULT_MAX_CONNECTIONS,
        metavar="N",
        help="a request that arrives while N connections are open (its own included) is "
        f"answered 503 (default: {DEFAULT_MAX_CONNECTIONS})",
    )
    serve.add_argument(
        "--key-file",
        type=Path,
        metavar="FILE",
        help="where the key that signs game states (Relayroam's tokens) is kept, so games "
        "in play survive a restart: made once with owner-only permissions (0600), then "
        "read at every start; RELAYROAM_TOKEN_KEY (hex, 32 digits or more) wins over it. The "
        "key is never printed (default: serve-signing.key in your state folder: "
        "~/.local/state/lighthouse/ on Linux, or $XDG_STATE_HOME/lighthouse/)",
    )


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    from harness.registry import game_names, get_game
    from harness.server.key_file import default_key_file
    from harness.server.limits import ServerLimits
    from harness.server.serving import listen, serve

    limits = ServerLimits(
        header_timeout=args.header_timeout,
        body_timeout=args.body_timeout,
        keep_alive_timeout=args.keep_alive_timeout,
        max_connections=args.max_connections,
    )
    _check_host(args.host)
    sock = listen(args.host, args.port)
    # the port bound, which --port 0 leaves to the system; an IPv6 address in brackets
    port = sock.getsockname()[1]
    base = f"http://{f'[{args.host}]' if ':' in args.host else args.host}:{port}"
    print(f"Games: {base}/", file=sys.stderr)
    for name in game_names():
        game = get_game(name)
        # a game with an API part of its own has its page there; another, on its entry
        has_page = game.api.page() is not None if game.api is not None else game.page is not None
        if has_page:
            print(f"{name.capitalize()}: {base}/{name}/", file=sys.stderr)
    print("Ctrl-C stops the server", file=sys.stderr)
    key_file = args.key_file or default_key_file()
    serve(host=args.host, port=port, limits=limits, kept_key=_kept(key_file), sock=sock)
    return 0


def _check_host(host: str) -> None:
    """``--host`` names an address this machine can listen on; else a ConfigError."""
    import socket

    from harness.errors import ConfigError

    try:
        socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"--host: {host!r} is not an address to listen on ({reason})") from None


def _kept(path: Path) -> Callable[[], bytes]:
    """The kept key, read (or made) when a game first asks for it; says where, once."""

    @cache
    def load() -> bytes:
        from harness.server.key_file import kept_key

        kept = kept_key(path)
        made = "made now and " if kept.created else ""
        print(
            f"Signing key: {made}kept in {path}; games in play survive a restart",
            file=sys.stderr,
        )
        return kept.key

    return load


COMMAND = Subcommand(
    help="serve the games' HTTP APIs and playable pages (Lighthouse, Relayroam, Hourloom)",
    description="Serve every game's JSON API and a page to play it in the browser; "
    "http://HOST:PORT/ lists them. Game states travel with each request (Lighthouse's "
    "and Relayroam's signed with a key kept across restarts, see --key-file), so the "
    "server keeps no sessions. Lighthouse's API is in docs/serve.md.",
    examples=(
        "lighthouse serve                      # then open http://127.0.0.1:8000/",
        "lighthouse serve --host 0.0.0.0 --port 8080 --max-connections 500",
        "RELAYROAM_TOKEN_KEY=$(python -c 'import secrets; print(secrets.token_hex(32))') "
        "lighthouse serve",
    ),
    add_arguments=_add_arguments,
    run=run,
)
