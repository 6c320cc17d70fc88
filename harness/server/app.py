"""Relayroam over HTTP (decision RR18): two JSON routes and a playable page.

The server keeps no game state. ``init`` returns a signed state token (RR17); every
``action`` call sends the token back with one action and gets the next token and the
rules' result (RR15). Anything inside ``action`` goes to :func:`~.rules.step`, which
refuses a bad action with a teaching reason and HTTP 200; HTTP 400 is kept for the
route boundary (a body that is not a JSON object, a missing or extra top-level key,
a bad token, a bad seed).

Routes:

* ``GET /api/games/relayroam/init?seed=N`` -> 200 ``{stateToken, observation, ok,
  legalActions, score, phase}``.
* ``POST /api/games/relayroam/action`` with body ``{"stateToken": ..., "action": ...}``
  -> 200 ``{stateToken, observation, ok, reason, message, events, legalActions, score,
  phase, endReason, charge, turn}``; on a refusal ``stateToken`` is the very string
  sent.
* ``GET /relayroam/`` -> the page (``relayroam.html``); ``/relayroam`` redirects there.

Errors are ``{"error": code, "message": sentence}``: 400 ``invalid_seed``,
``invalid_json``, ``invalid_body``, ``invalid_state_token``; 408 ``body_timeout`` (the
body did not arrive within the body deadline; the connection is closed); 413
``body_too_large``; 404 ``not_found``; 405 ``method_not_allowed``. A client that goes
away before its body arrives gets one log line, nothing else. The other bounds
(header deadline, connection cap) are in :mod:`harness.server.limits`.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from harness.games.relayroam.observe import observation_json, observe
from harness.games.relayroam.rng import MAX_SEED
from harness.games.relayroam.rules import new_game, result_json, step
from harness.games.relayroam.state import State
from harness.games.relayroam.token import (
    InvalidStateToken,
    decode_token,
    encode_token,
    server_key,
)
from harness.json_reply import StrictJsonError, strict_loads
from harness.server.limits import DEFAULT_BODY_TIMEOUT, LOG, ServerLimits

API = "/api/games/relayroam"
PAGE_PATH = "/relayroam/"
PAGE_FILE = Path(__file__).with_name("relayroam.html")
#: The action body's exact top-level keys (RR18).
ENVELOPE_KEYS = frozenset({"stateToken", "action"})
#: A real action body is under 1 KiB; anything far larger is refused unread.
MAX_BODY_BYTES = 64 * 1024
#: Up to 16 decimal digits: MAX_SEED (2**53 - 1) has 16.
_SEED = re.compile(r"[0-9]{1,16}")
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


def _parse_seed(request: Request) -> int:
    values = request.query_params.getlist("seed")
    if not values:
        raise _Refused(
            400, "invalid_seed", f"seed is missing; add ?seed=N with N an integer 0..{MAX_SEED}"
        )
    if len(values) > 1:
        raise _Refused(400, "invalid_seed", "seed is given more than once; give it exactly once")
    text = values[0]
    if not _SEED.fullmatch(text) or int(text) > MAX_SEED:
        shown = json.dumps(text if len(text) <= 40 else text[:37] + "...")
        raise _Refused(
            400,
            "invalid_seed",
            f"seed is {shown}, which is not an integer 0..{MAX_SEED} (decimal digits only)",
        )
    return int(text)


async def _read_body(request: Request, timeout: float) -> bytes:
    """The request body, read chunk by chunk within ``timeout`` seconds.

    Over :data:`MAX_BODY_BYTES` is a 413 (refused unread), past the deadline a 408;
    a client that goes away meanwhile raises :class:`_ClientGone`.
    """
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(timeout):
            async for chunk in request.stream():
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    raise _Refused(
                        413,
                        "body_too_large",
                        f"the request body is over {MAX_BODY_BYTES} bytes; an action body "
                        'is a small object {"stateToken": ..., "action": ...}',
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


def _parse_envelope(raw: bytes) -> tuple[str, object]:
    """The body's token and action, or :class:`_Refused` at the route boundary."""
    try:
        body = strict_loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise _Refused(400, "invalid_json", "the request body is not UTF-8 text") from None
    except StrictJsonError as exc:
        raise _Refused(400, "invalid_json", f"the request body is not strict JSON: {exc}") from None
    if not isinstance(body, dict):
        kind = "an array" if isinstance(body, list) else "not an object"
        raise _Refused(
            400,
            "invalid_body",
            f'the request body is {kind}; send exactly {{"stateToken": ..., "action": ...}}',
        )
    missing = sorted(ENVELOPE_KEYS - body.keys())
    extra = sorted(body.keys() - ENVELOPE_KEYS)
    if missing or extra:
        parts = []
        if missing:
            parts.append("missing " + ", ".join(json.dumps(k) for k in missing))
        if extra:
            shown = [json.dumps(k if len(k) <= 40 else k[:37] + "...") for k in extra[:5]]
            parts.append("unknown " + ", ".join(shown) + (", ..." if len(extra) > 5 else ""))
        raise _Refused(
            400,
            "invalid_body",
            f"the request body has {' and '.join(parts)}; it must hold exactly the keys "
            '"stateToken" and "action" (the action itself goes inside "action")',
        )
    token = body["stateToken"]
    if not isinstance(token, str):
        raise _Refused(
            400,
            "invalid_state_token",
            "invalid state token: stateToken must be the string the last response returned",
        )
    return token, body["action"]


def _decode(token: str, key: bytes) -> State:
    try:
        return decode_token(token, key)
    except InvalidStateToken as exc:
        raise _Refused(400, "invalid_state_token", str(exc)) from None


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


def create_app(key: bytes | None = None, body_timeout: float = DEFAULT_BODY_TIMEOUT) -> Starlette:
    """The Relayroam ASGI app; tokens are signed with ``key`` (default :func:`server_key`)
    and a request body must arrive within ``body_timeout`` seconds."""
    signing_key = server_key() if key is None else key
    if not isinstance(signing_key, bytes) or not signing_key:
        raise ValueError("the state token key must be non-empty bytes")
    ServerLimits(body_timeout=body_timeout)  # the same checks as the flag's
    page = PAGE_FILE.read_text(encoding="utf-8")
    page_headers = {
        "Content-Security-Policy": _csp(page),
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "no-cache",
        "Referrer-Policy": "no-referrer",
    }

    async def init(request: Request) -> Response:
        try:
            seed = _parse_seed(request)
        except _Refused as exc:
            return _error(exc.status, exc.error, exc.message)
        state = new_game(seed)
        obs = observation_json(observe(state))
        return _json(
            {
                "stateToken": encode_token(state, signing_key),
                "observation": obs,
                "ok": True,
                "legalActions": obs["legalActions"],
                "score": state.score,
                "phase": state.phase,
            }
        )

    async def action(request: Request) -> Response:
        try:
            token, act = _parse_envelope(await _read_body(request, body_timeout))
            state = _decode(token, signing_key)
        except _Refused as exc:
            return _error(exc.status, exc.error, exc.message)
        except _ClientGone:
            return Response(status_code=400)  # nobody is left to read it; never sent
        result = step(state, act)
        # A refusal leaves the state as it was (RR14): hand back the very token sent.
        new_token = token if not result.ok else encode_token(result.state, signing_key)
        return _json(
            {
                "stateToken": new_token,
                "observation": observation_json(observe(result.state)),
                **result_json(result),
            }
        )

    async def relayroam_page(request: Request) -> Response:
        return HTMLResponse(page, headers=page_headers)

    async def to_page(request: Request) -> Response:
        query = request.url.query
        return RedirectResponse(PAGE_PATH + (f"?{query}" if query else ""), status_code=307)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            return _error(404, "not_found", f"there is no route {request.url.path}")
        if exc.status_code == 405:
            return _error(
                405, "method_not_allowed", f"{request.method} is not allowed on {request.url.path}"
            )
        return _error(exc.status_code, "http_error", str(exc.detail))

    return Starlette(
        routes=[
            Route(f"{API}/init", init, methods=["GET"]),
            Route(f"{API}/action", action, methods=["POST"]),
            Route(PAGE_PATH, relayroam_page, methods=["GET"]),
            Route(PAGE_PATH.rstrip("/"), to_page, methods=["GET"]),
        ],
        exception_handlers={HTTPException: http_error},
    )


__all__ = [
    "API",
    "ENVELOPE_KEYS",
    "MAX_BODY_BYTES",
    "PAGE_PATH",
    "create_app",
]
