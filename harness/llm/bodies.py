"""Bounded response bodies: no answer from a server is read past :data:`MAX_BODY_BYTES`.

Both SDKs (openai 3.x and anthropic 2.x) send through an ``httpx2`` client, whichever
transport carries the bytes (httpx2's own, or aiohttp's adapter). :func:`bounded_client`
builds the SDK's client with every transport it makes, proxies' included, wrapped in
a :class:`BoundedTransport`:

- a response whose ``Content-Length`` passes the cap is refused before a byte of its
  body is read;
- any other body is read through a counter that stops at the cap, so a body that
  streams forever costs at most the cap in memory;
- a compressed body (gzip or deflate, the only encodings the request accepts) is
  decoded here, under the same cap on what it decodes to, so a few kilobytes cannot
  inflate to gigabytes; a body in an encoding the request did not accept is refused.

Refused or cut, the response is closed (its connection is dropped, never returned to
the pool, so the server's stream ends) and the call fails with a
:class:`~harness.errors.BadResponseError` of kind ``too_large`` (or ``decode``):
never retried, the seat's turn falls back (``fallback_api``). Error bodies (a 429 or
a 500) are read the same way.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import httpx2

from harness.errors import BadResponseError

#: The most bytes of one response body that are read (after decoding), 4 MiB: room
#: for a reply at the 1 MiB cap (decision R8) with JSON escapes, and its envelope.
MAX_BODY_BYTES = 4 << 20
#: The encodings a request accepts: the ones decoded here, under the cap.
ACCEPT_ENCODING = "gzip, deflate"
#: A compressed body is decoded in pieces of at most this many bytes.
PIECE = 1 << 16


def _mib(size: int) -> str:
    return f"{size / (1 << 20):g} MiB"


def too_large(cap: int, declared: int | None = None) -> BadResponseError:
    """The error of a body past ``cap`` bytes (``declared``: the Content-Length it gave)."""
    said = f"it declared {declared:,} bytes; " if declared is not None else ""
    return BadResponseError(
        "too_large",
        f"the response body passed the {_mib(cap)} cap ({said}the connection was closed)",
    )


class _Inflater:
    """One content encoding undone, never producing more than it is allowed to."""

    def __init__(self, encoding: str) -> None:
        # gzip has its header; deflate is meant to be zlib-wrapped but often is not
        self._encoding = encoding
        wbits = 16 + zlib.MAX_WBITS if encoding == "gzip" else zlib.MAX_WBITS
        self._inflate = zlib.decompressobj(wbits)
        self._started = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        """Decode ``data``, in pieces of at most :data:`PIECE` bytes.

        Small pieces keep every allocation small: a few kilobytes that inflate to
        megabytes come out a piece at a time, and the caller stops at its cap.
        """
        while True:
            out = self._decompress(data)
            data = self._inflate.unconsumed_tail
            if out:
                yield out
            if not data and len(out) < PIECE:  # input used up, nothing left pending
                return

    def _decompress(self, data: bytes) -> bytes:
        try:
            out = self._inflate.decompress(data, PIECE)
        except zlib.error:
            if self._encoding != "deflate" or self._started:
                raise
            self._inflate = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate
            out = self._inflate.decompress(data, PIECE)
        self._started = True
        return out

    def flush(self) -> Iterator[bytes]:
        """Whatever is left once the body has ended, in pieces."""
        yield from self.feed(b"")
        rest = self._inflate.flush()
        if rest:
            yield rest


def _through(stages: list[_Inflater], pieces: Iterable[bytes]) -> Iterator[bytes]:
    """``pieces`` decoded by each of ``stages`` in turn (the first undoes the last encoding)."""
    if not stages:
        yield from pieces
        return
    first, rest = stages[0], stages[1:]
    for piece in pieces:
        yield from _through(rest, first.feed(piece))


def _encodings(headers: httpx2.Headers) -> list[str]:
    """The response's content encodings in the order they were applied (identity left out)."""
    found = []
    for value in headers.get_list("content-encoding", split_commas=True):
        name = value.strip().lower()
        if name and name != "identity":
            found.append(name)
    return found


class _BoundedStream(httpx2.AsyncByteStream):
    """A response body read up to ``cap`` bytes, decoded, then refused."""

    def __init__(self, inner: httpx2.AsyncByteStream, encodings: list[str], cap: int) -> None:
        self._inner = inner
        self._encodings = encodings
        self._cap = cap

    async def __aiter__(self) -> AsyncIterator[bytes]:
        cap = self._cap
        stages = [_Inflater(name) for name in reversed(self._encodings)]
        received = produced = 0
        try:
            async for chunk in self._inner:
                received += len(chunk)
                if received > cap:
                    raise too_large(cap)
                for piece in _through(stages, (chunk,)):
                    produced += len(piece)
                    if produced > cap:
                        raise too_large(cap)
                    yield piece
            for index, stage in enumerate(stages):
                for piece in _through(stages[index + 1 :], stage.flush()):
                    produced += len(piece)
                    if produced > cap:
                        raise too_large(cap)
                    yield piece
        except zlib.error:
            encoding = ", ".join(self._encodings)
            raise BadResponseError("decode", f"the response body is not valid {encoding}") from None

    async def aclose(self) -> None:
        await self._inner.aclose()


class BoundedTransport(httpx2.AsyncBaseTransport):
    """A transport whose responses are read at most ``cap`` bytes deep (see the module)."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, cap: int = MAX_BODY_BYTES) -> None:
        self._inner = inner
        self.cap = cap

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        request.headers["accept-encoding"] = ACCEPT_ENCODING
        response = await self._inner.handle_async_request(request)
        try:
            declared = _declared_length(response.headers)
            if declared is not None and declared > self.cap:
                raise too_large(self.cap, declared)
            encodings = _encodings(response.headers)
            unknown = [name for name in encodings if name not in ("gzip", "deflate")]
            if unknown:
                raise BadResponseError(
                    "decode",
                    f"the response is in content-encoding {unknown[0][:40]!r}, which the "
                    f"request did not accept ({ACCEPT_ENCODING})",
                )
        except BaseException:
            await response.aclose()
            raise
        headers = response.headers.raw
        if encodings:
            # decoded here: the client must not decode again, nor trust the old length
            drop = (b"content-encoding", b"content-length")
            headers = [(k, v) for k, v in headers if k.lower() not in drop]
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        return httpx2.Response(
            status_code=response.status_code,
            headers=headers,
            stream=_BoundedStream(response.stream, encodings, self.cap),
            request=request,
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def _declared_length(headers: httpx2.Headers) -> int | None:
    """The Content-Length a response declares, when it is one plain number."""
    value = headers.get("content-length")
    if value is None:
        return None
    value = value.strip()
    # at most 20 digits: the number is read without converting an endless string
    if not value.isascii() or not value.isdigit() or len(value) > 20:
        return None
    return int(value)


class BoundedClient(httpx2.AsyncClient):
    """An httpx2 client whose every transport, proxies' too, is a :class:`BoundedTransport`.

    Mixed in before an SDK's own client class (see :func:`bounded_client`), so the SDK
    keeps its defaults (timeouts, connection limits, redirects, the aiohttp adapter,
    proxies from the environment); once the client is built, each transport it holds
    is wrapped. ``tests/llm/test_bodies.py`` checks that every transport of the four
    clients (two SDKs, two transports) is bounded, so a change in httpx2 shows there.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._transport = _bounded(self._transport)
        self._mounts = {
            pattern: None if transport is None else _bounded(transport)
            for pattern, transport in self._mounts.items()
        }

    def transports(self) -> list[httpx2.AsyncBaseTransport]:
        """Every transport this client sends through (for checking them)."""
        return [self._transport, *(t for t in self._mounts.values() if t is not None)]


def _bounded(transport: httpx2.AsyncBaseTransport) -> httpx2.AsyncBaseTransport:
    return transport if isinstance(transport, BoundedTransport) else BoundedTransport(transport)


_CLASSES: dict[type[httpx2.AsyncClient], type[httpx2.AsyncClient]] = {}


def bounded_client(base: type[httpx2.AsyncClient]) -> httpx2.AsyncClient:
    """An instance of the SDK client class ``base`` (e.g. ``openai.DefaultAioHttpClient``)
    that reads every body through :class:`BoundedTransport`."""
    cls = _CLASSES.get(base)
    if cls is None:
        cls = _CLASSES[base] = type(f"Bounded{base.__name__}", (BoundedClient, base), {})
    return cls()


__all__ = [
    "ACCEPT_ENCODING",
    "MAX_BODY_BYTES",
    "BoundedClient",
    "BoundedTransport",
    "bounded_client",
    "too_large",
]
