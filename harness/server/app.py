"""Every hosted game's HTTP API (its :class:`~harness.protocol.HttpApi` part) and playable page.

The server keeps no game state: the game's part answers with the state the next
request sends back, a signed token (Relayroam: decisions RR15, RR17, RR18) or the state
object itself (Hourloom: H31, H32). What the game does with an action is its own (a
refused action is an answer, HTTP 200); HTTP 400 is kept for the route boundary (a
body that is not a JSON object, a missing or extra top-level key, a state the game
cannot take, a bad seed, and whatever more the game's part refuses there).

Routes, for each game ``<game>`` the registry serves (:func:`harness.registry.http_apis`):

* ``GET /api/games/<game>/init?seed=N`` -> 200, the part's ``init`` (Relayroam:
  ``{stateToken, observation, ok, legalActions, score, phase}``; Hourloom: ``{state,
  observation, ok, legalActions, score, gameOver, events, message}``).
* ``POST /api/games/<game>/action`` with body ``{<state_key>: ..., "action": ...}``
  (Relayroam ``stateToken``, Hourloom ``state``) -> 200, the part's ``action``
  (Relayroam: ``{stateToken, observation, ok, reason, message, events, legalActions,
  score, phase, endReason, charge, turn}``; Hourloom: as ``init``, and ``reason`` on a
  refusal); on a refusal the state sent comes back as it was.
* ``GET /<game>/`` -> the game's page, if it has one; ``/<game>`` redirects there.
* ``GET /`` -> an HTML index of the games served, their pages and API routes.

Errors are ``{"error": code, "message": sentence}``: 400 ``invalid_seed``,
``invalid_json``, ``invalid_body``, and the game's own (Relayroam
``invalid_state_token``; Hourloom ``invalid_state``, ``invalid_action``); 408
``body_timeout`` (the body did not arrive within the body deadline; the connection is
closed); 413 ``body_too_large``; 404 ``not_found``; 405 ``method_not_allowed``; 421
``misdirected_host`` (the ``Host`` header is not the address served:
:mod:`harness.server.hosts`). A client that goes away before its body arrives gets
one log line, nothing else. The other bounds (header deadline, connection cap) are
in :mod:`harness.server.limits`.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import threading
from collections.abc import Awaitable, Callable, Mapping
from functools import wraps
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from harness.json_reply import StrictJsonError, strict_loads
from harness.protocol import HttpApi, RequestRefused
from harness.server.hosts import MISDIRECTED, AllowedHosts
from harness.server.index import API_ROOT, index_html
from harness.server.limits import DEFAULT_BODY_TIMEOUT, LOG, ServerLimits
from harness.server.stepped import INIT_PARAMETERS, SteppedApi, stepped_apis
from harness.text import cut_short
from harness.validation import MAX_SEED

#: The action body's key for the action; the other is the game's ``state_key``.
ACTION_KEY = "action"
#: A real action body is under 1 KiB (Relayroam) or 5 KiB (Hourloom, whose body carries
#: the whole state); anything far larger is refused unread.
MAX_BODY_BYTES = 64 * 1024
#: A stepped game's body carries its token (at most 96 KiB) and a few short replies.
STEPPED_MAX_BODY_BYTES = 256 * 1024
_SEED = re.compile(r"[0-9]+")
_API_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


class _ClientGone(Exception):
    """The client closed its connection before its request body arrived."""


class _Refused(Exception):
    """A request refused at the route boundary (turned into ``{error, message}``)."""

    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message


def _json(body: dict[str, Any], status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=_API_HEADERS)


def _error(status: int, error: str, message: str) -> JSONResponse:
    response = _json({"error": error, "message": message}, status)
    if status == 408:
        # The body is still owed and will not be read: the connection cannot carry
        # another request, so close it (and free its file descriptor) now.
        response.headers["Connection"] = "close"
    return response


def _quoted(text: str) -> str:
    """A client's text as a refusal quotes it: JSON, cut to 40 characters first."""
    return json.dumps(cut_short(text, 40))


def _parse_seed(request: Request, max_seed: int) -> int:
    values = request.query_params.getlist("seed")
    if not values:
        raise _Refused(
            400, "invalid_seed", f"seed is missing; add ?seed=N with N an integer 0..{max_seed}"
        )
    if len(values) > 1:
        raise _Refused(400, "invalid_seed", "seed is given more than once; give it exactly once")
    text = values[0]
    # Digits only, and no more than max_seed has: int() of a long string costs its square.
    digits = len(str(max_seed))
    if not _SEED.fullmatch(text) or len(text) > digits or int(text) > max_seed:
        shown = _quoted(text)
        raise _Refused(
            400,
            "invalid_seed",
            f"seed is {shown}, which is not an integer 0..{max_seed} (decimal digits only)",
        )
    return int(text)


async def _read_body(
    request: Request, timeout: float, envelope: str, limit: int = MAX_BODY_BYTES
) -> bytes:
    """The request body, read chunk by chunk within ``timeout`` seconds.

    Over ``limit`` bytes (default :data:`MAX_BODY_BYTES`) is a 413 (refused unread),
    past the deadline a 408; a client that goes away meanwhile raises :class:`_ClientGone`.
    """
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(timeout):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise _Refused(
                        413,
                        "body_too_large",
                        f"the request body is over {limit} bytes; an action body "
                        f"is one small object {envelope}",
                    )
                chunks.append(chunk)
    except TimeoutError:
        raise _Refused(
            408,
            "body_timeout",
            f"the request body did not arrive within {timeout:g} s ({size} bytes came); "
            "send the whole body at once",
        ) from None
    except ClientDisconnect:
        LOG.info(
            "client %s went away mid-request (%s %s, %d body bytes read)",
            _client(request),
            request.method,
            request.url.path,
            size,
        )
        raise _ClientGone from None
    return b"".join(chunks)


def _client(request: Request) -> str:
    return f"{request.client.host}:{request.client.port}" if request.client else "a client"


def _envelope(state_key: str) -> str:
    """The action body's shape as a message shows it."""
    return f'{{"{state_key}": ..., "{ACTION_KEY}": ...}}'


def _parse_envelope(raw: bytes, state_key: str) -> tuple[object, object]:
    """The body's state and action, or :class:`_Refused` at the route boundary."""
    body = _parse_body(raw, (state_key, ACTION_KEY))
    return body[state_key], body[ACTION_KEY]


def _parse_body(raw: bytes, keys: tuple[str, ...]) -> dict[str, object]:
    """The body, a JSON object with exactly ``keys`` (the state's first, the action's
    next, if any), or :class:`_Refused` at the route boundary."""
    shape = "{" + ", ".join(f'"{k}": ...' for k in keys) + "}"
    try:
        body = strict_loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise _Refused(400, "invalid_json", "the request body is not UTF-8 text") from None
    except StrictJsonError as exc:
        raise _Refused(400, "invalid_json", f"the request body is not strict JSON: {exc}") from None
    if not isinstance(body, dict):
        kind = "an array" if isinstance(body, list) else "not an object"
        raise _Refused(400, "invalid_body", f"the request body is {kind}; send exactly {shape}")
    missing = sorted(frozenset(keys) - body.keys())
    extra = sorted(body.keys() - frozenset(keys))
    if missing or extra:
        parts = []
        if missing:
            parts.append("missing " + ", ".join(json.dumps(k) for k in missing))
        if extra:
            shown = [_quoted(k) for k in extra[:5]]
            parts.append("unknown " + ", ".join(shown) + (", ..." if len(extra) > 5 else ""))
        named = " and ".join(f'"{k}"' for k in keys)
        inside = f' (the action itself goes inside "{ACTION_KEY}")' if ACTION_KEY in keys else ""
        exactly = "exactly the keys" if len(keys) > 1 else "exactly the key"
        raise _Refused(
            400,
            "invalid_body",
            f"the request body has {' and '.join(parts)}; it must hold {exactly} {named}" + inside,
        )
    return body


def _csp(page: str) -> str:
    """A Content-Security-Policy allowing only the page's own inline script and style
    (by hash) and requests to its own origin."""

    def hashes(tag: str) -> str:
        bodies = re.findall(rf"<{tag}>(.*?)</{tag}>", page, flags=re.DOTALL)
        return " ".join(
            "'sha256-" + base64.b64encode(hashlib.sha256(b.encode()).digest()).decode() + "'"
            for b in bodies
        )

    return (
        f"default-src 'none'; script-src {hashes('script')}; style-src {hashes('style')}; "
        "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    )


_Endpoint = Callable[[Request], Awaitable[Response]]


def _answering(handler: _Endpoint) -> _Endpoint:
    """``handler`` with its refusals answered: ``{error, message}`` with the status a
    :class:`_Refused` names, or 400 for the game's :class:`RequestRefused`; a client
    gone before its body arrived gets a 400 that nobody is left to read (never sent)."""

    @wraps(handler)
    async def answer(request: Request) -> Response:
        try:
            return await handler(request)
        except _Refused as exc:
            return _error(exc.status, exc.error, exc.message)
        except RequestRefused as exc:
            return _error(400, exc.error, exc.message)
        except _ClientGone:
            return Response(status_code=400)

    return answer


def _api_routes(name: str, api: HttpApi, key: bytes, body_timeout: float) -> list[Route]:
    """The routes of one game's API and page."""

    @_answering
    async def init(request: Request) -> Response:
        return _json(api.init(_parse_seed(request, api.max_seed), key))

    @_answering
    async def action(request: Request) -> Response:
        raw = await _read_body(request, body_timeout, _envelope(api.state_key))
        state, act = _parse_envelope(raw, api.state_key)
        # Off the event loop: an action may take a while (Hourloom's DESCEND draws
        # a chamber), and other connections' deadlines must keep running meanwhile.
        return _json(await run_in_threadpool(api.action, state, act, key))

    routes = [
        Route(f"{API_ROOT}/{name}/init", init, methods=["GET"]),
        Route(f"{API_ROOT}/{name}/action", action, methods=["POST"]),
    ]
    page = api.page()
    return routes if page is None else routes + _page_routes(name, page)


def _page_routes(name: str, page: str) -> list[Route]:
    """``GET /<game>/``, the game's page, and ``/<game>``, redirected there."""
    page_path = f"/{name}/"

    async def to_page(request: Request) -> Response:
        query = request.url.query
        return RedirectResponse(page_path + (f"?{query}" if query else ""), status_code=307)

    return [
        Route(page_path, _html_page(page), methods=["GET"]),
        Route(page_path.rstrip("/"), to_page, methods=["GET"]),
    ]


def _html_page(page: str) -> _Endpoint:
    """An endpoint answering with ``page``, confined to its own inline script and style
    (:func:`_csp`), never sniffed, cached without checking, or named as a referrer."""
    headers = {
        "Content-Security-Policy": _csp(page),
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "no-cache",
        "Referrer-Policy": "no-referrer",
    }

    async def html_page(request: Request) -> Response:
        return HTMLResponse(page, headers=headers)

    return html_page


def _one_query(request: Request, name: str) -> str | None:
    """The query parameter ``name`` given at most once (None: not given)."""
    values = request.query_params.getlist(name)
    if len(values) > 1:
        raise _Refused(400, "invalid_query", f"{name} is given more than once; give it once")
    if values and len(values[0]) > 200:
        raise _Refused(400, "invalid_query", f"{name} is over 200 characters long")
    return values[0] if values else None


def _stepped_routes(
    name: str, api: SteppedApi, key_of: Callable[[], bytes], body_timeout: float
) -> list[Route]:
    """The routes of one game played step by step (:mod:`harness.server.stepped`)."""
    state_key = api.state_key
    envelope = _envelope(state_key)

    @_answering
    async def init(request: Request) -> Response:
        unknown = sorted(set(request.query_params) - set(INIT_PARAMETERS))
        if unknown:
            shown = ", ".join(json.dumps(k[:40]) for k in unknown[:5])
            raise _Refused(
                400,
                "invalid_query",
                f"unknown query parameter {shown}; init takes " + ", ".join(INIT_PARAMETERS),
            )
        seed = _parse_seed(request, MAX_SEED)
        variant = _one_query(request, "variant")
        seats = _one_query(request, "seats")
        player = _one_query(request, "player")
        tick_seconds = _one_query(request, "tickSeconds")
        return _json(
            await run_in_threadpool(api.init, seed, variant, seats, key_of(), player, tick_seconds)
        )

    @_answering
    async def action(request: Request) -> Response:
        raw = await _read_body(request, body_timeout, envelope, STEPPED_MAX_BODY_BYTES)
        token, act = _parse_envelope(raw, state_key)
        # Off the event loop: the episode is played again from its replies.
        return _json(await run_in_threadpool(api.action, token, act, key_of()))

    @_answering
    async def record(request: Request) -> Response:
        raw = await _read_body(
            request, body_timeout, f'{{"{state_key}": ...}}', STEPPED_MAX_BODY_BYTES
        )
        token = _parse_body(raw, (state_key,))[state_key]
        return _json(await run_in_threadpool(api.record, token, key_of()))

    routes = [
        Route(f"{API_ROOT}/{name}/init", init, methods=["GET"]),
        Route(f"{API_ROOT}/{name}/action", action, methods=["POST"]),
        Route(f"{API_ROOT}/{name}/record", record, methods=["POST"]),
    ]
    page = api.page()
    return routes if page is None else routes + _page_routes(name, page)


def _index_route(apis: Mapping[str, HttpApi], stepped: Mapping[str, SteppedApi]) -> Route:
    """``GET /``: the games served and their pages (:mod:`harness.server.index`)."""
    return Route("/", _html_page(index_html(apis, stepped)), methods=["GET"])


class _CheckHost:
    """ASGI middleware: a request whose ``Host`` is not one of ``hosts`` gets a 421."""

    def __init__(self, app: ASGIApp, hosts: AllowedHosts) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refused = self.hosts.refusal(Headers(scope=scope).get("host"))
            if refused is not None:
                await _error(MISDIRECTED, "misdirected_host", refused)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _served_apis() -> dict[str, HttpApi]:
    from harness.registry import http_apis

    return http_apis()


def _stepped_apis() -> dict[str, SteppedApi]:
    """Every game of the registry without an HTTP API part of its own, played step by
    step (Lighthouse)."""
    from harness.registry import game_names, get_game

    games = [get_game(name) for name in game_names()]
    return stepped_apis([game for game in games if game.api is None])


def _lazy_key(
    key: bytes | None, api: SteppedApi, kept: Callable[[], bytes] | None
) -> Callable[[], bytes]:
    """The signing key of ``api``, looked for on its first request (once)."""
    if key is not None:
        return lambda: key
    found: list[bytes] = []
    lock = threading.Lock()

    def key_of() -> bytes:
        with lock:
            if not found:
                found.append(api.signing_key(kept))
            return found[0]

    return key_of


def create_app(
    key: bytes | None = None,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    apis: Mapping[str, HttpApi] | None = None,
    kept_key: Callable[[], bytes] | None = None,
    hosts: AllowedHosts | None = None,
    stepped: Mapping[str, SteppedApi] | None = None,
) -> Starlette:
    """The ASGI app serving ``apis``, game name -> API part (default: every game the
    registry serves, :func:`harness.registry.http_apis`), ``stepped``, game name -> a
    game played step by step (default, when ``apis`` is not given either: every other
    game of the registry, Lighthouse, :mod:`harness.server.stepped`), and an index of
    them at ``/``.

    States are signed with ``key`` (default: each game's own
    :meth:`~harness.protocol.HttpApi.signing_key`, handed ``kept_key``, the key kept across
    restarts) and a request body must arrive within ``body_timeout`` seconds. With
    ``hosts`` (``lighthouse serve`` always gives them), a request for any other host
    is refused with 421.
    """
    if key is not None and (not isinstance(key, bytes) or not key):
        raise ValueError("the state token key must be non-empty bytes")
    ServerLimits(body_timeout=body_timeout)  # the same checks as the flag's
    served = _served_apis() if apis is None else apis
    if stepped is None:
        stepped = _stepped_apis() if apis is None else {}
    routes: list[Route] = [_index_route(served, stepped)]
    for name, api in served.items():
        signing_key = key if key is not None else api.signing_key(kept_key)
        routes += _api_routes(name, api, signing_key, body_timeout)
    for name, step_api in stepped.items():
        # asked for on the first request: a server that is never asked for one of these
        # games never reads the kept key for it
        routes += _stepped_routes(name, step_api, _lazy_key(key, step_api, kept_key), body_timeout)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            return _error(404, "not_found", f"there is no route {request.url.path}")
        if exc.status_code == 405:
            return _error(
                405, "method_not_allowed", f"{request.method} is not allowed on {request.url.path}"
            )
        return _error(exc.status_code, "http_error", str(exc.detail))

    middleware = [] if hosts is None else [Middleware(_CheckHost, hosts=hosts)]
    return Starlette(
        routes=routes, exception_handlers={HTTPException: http_error}, middleware=middleware
    )


__all__ = [
    "ACTION_KEY",
    "API_ROOT",
    "MAX_BODY_BYTES",
    "STEPPED_MAX_BODY_BYTES",
    "create_app",
]
