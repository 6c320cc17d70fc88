"""Response bodies are read at most MAX_BODY_BYTES deep, on both SDKs and both transports.

A body past the cap (streamed forever, declared 10 GiB, or a small gzip that inflates
to gigabytes) ends the attempt as a ``too_large`` BadResponseError and closes the
connection; compressed bodies within the cap read as usual. Memory is measured by
``python -m benchmarks.endless_body``.
"""

from __future__ import annotations

import asyncio
import gzip
import zlib
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest

from harness.errors import BadResponseError
from harness.llm.anthropic_provider import AnthropicProvider
from harness.llm.bodies import ACCEPT_ENCODING, BoundedClient, BoundedTransport
from harness.llm.openai_provider import OpenAIProvider
from harness.llm.types import CompletionRequest, Message, Provider
from harness.testing.llm_server import (
    Action,
    Endless,
    Raw,
    Reply,
    ScriptedLLMServer,
    completion_body,
)
from tests.llm.conftest import FAKE_KEY

SDKS = ["openai", "anthropic"]
TRANSPORTS = ["httpx", "aiohttp"]
REQUEST = CompletionRequest(model="m", messages=(Message("user", "hi"),), timeout_s=20.0)
PATHS = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}


def provider(sdk: str, transport: str, server: ScriptedLLMServer) -> Provider:
    if sdk == "openai":
        return OpenAIProvider(api_key=FAKE_KEY, base_url=server.openai_url, transport=transport)  # type: ignore[arg-type]
    return AnthropicProvider(api_key=FAKE_KEY, base_url=server.anthropic_url, transport=transport)  # type: ignore[arg-type]


def outcome(sdk: str, transport: str, server: ScriptedLLMServer, action: Action) -> Any:
    """What one call gets for ``action``: the completion, or the provider error."""
    server.push(action)

    async def go() -> Any:
        p = provider(sdk, transport, server)
        try:
            return await p.complete(REQUEST)
        except BadResponseError as exc:
            return exc
        finally:
            await p.aclose()

    return asyncio.run(go())


def good_body(sdk: str, text: str = '{"move": "N"}') -> bytes:
    return completion_body(PATHS[sdk], {"model": "m"}, Reply(text))


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(
    "action",
    [
        pytest.param(Endless(), id="chunked-forever"),
        pytest.param(Endless(declared=10 << 30), id="content-length-10GiB"),
        pytest.param(Endless(status=500), id="an-error-body-forever"),
        pytest.param(
            Raw(gzip.compress(b" " * (64 << 20)), headers={"content-encoding": "gzip"}),
            id="gzip-of-64MiB",
        ),
    ],
)
def test_a_body_past_the_cap_is_refused_and_its_connection_closed(
    server: ScriptedLLMServer, sdk: str, transport: str, action: Action
) -> None:
    exc = outcome(sdk, transport, server, action)
    assert isinstance(exc, BadResponseError)
    assert exc.kind == "too_large"
    assert str(exc).startswith(f"{sdk}: the response body passed the 4 MiB cap")
    if isinstance(action, Endless):
        # the server's endless write failed: the client closed the connection
        for _ in range(100):
            if server.hung_up:
                break
            asyncio.run(asyncio.sleep(0.05))
        assert server.hung_up == 1


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("encoding", ["gzip", "deflate", "raw-deflate"])
def test_a_compressed_body_within_the_cap_reads_as_usual(
    server: ScriptedLLMServer, sdk: str, transport: str, encoding: str
) -> None:
    text = '{"move": "N", "notes": "' + "n" * 100_000 + '"}'
    body = good_body(sdk, text)
    if encoding == "gzip":
        packed = gzip.compress(body)
    elif encoding == "deflate":
        packed = zlib.compress(body)
    else:  # deflate without its zlib wrapper, as some servers send it
        squash = zlib.compressobj(wbits=-zlib.MAX_WBITS)
        packed = squash.compress(body) + squash.flush()
    name = "gzip" if encoding == "gzip" else "deflate"
    completion = outcome(sdk, transport, server, Raw(packed, headers={"content-encoding": name}))
    assert completion.text == text
    assert server.requests[-1].headers["accept-encoding"] == ACCEPT_ENCODING


@pytest.mark.parametrize("sdk", SDKS)
def test_an_encoding_not_asked_for_or_not_decodable_is_refused(
    server: ScriptedLLMServer, sdk: str
) -> None:
    exc = outcome(sdk, "aiohttp", server, Raw(b"xx", headers={"content-encoding": "br"}))
    assert isinstance(exc, BadResponseError)
    assert (exc.kind, "content-encoding 'br'" in str(exc)) == ("decode", True)
    exc = outcome(sdk, "httpx", server, Raw(b"not gzip", headers={"content-encoding": "gzip"}))
    assert isinstance(exc, BadResponseError)
    assert (exc.kind, "not valid gzip" in str(exc)) == ("decode", True)


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_every_transport_of_every_client_is_bounded_proxies_too(
    monkeypatch: pytest.MonkeyPatch, sdk: str, transport: str
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")

    async def go() -> list[httpx2.AsyncBaseTransport]:
        with ScriptedLLMServer() as srv:
            p = provider(sdk, transport, srv)
            try:
                client = p._client._client  # type: ignore[attr-defined]
                assert isinstance(client, BoundedClient)
                return client.transports()
            finally:
                await p.aclose()

    transports = asyncio.run(go())
    assert len(transports) >= 3  # the default one and a proxy's per scheme
    assert all(isinstance(t, BoundedTransport) for t in transports)


class _Forever(httpx2.AsyncByteStream):
    """A body that never ends, counting what was taken from it."""

    def __init__(self) -> None:
        self.pulled = 0
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            self.pulled += 1 << 16
            yield b"x" * (1 << 16)

    async def aclose(self) -> None:
        self.closed = True


def test_the_transport_stops_pulling_at_the_cap_and_closes_the_body() -> None:
    body = _Forever()

    async def respond(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, stream=body)

    async def go() -> BaseException:
        transport = BoundedTransport(httpx2.MockTransport(respond), cap=1 << 20)
        async with httpx2.AsyncClient(transport=transport) as client:
            try:
                await client.get("http://test/")
            except BadResponseError as exc:
                return exc
        raise AssertionError("an endless body was read to its end")

    exc = asyncio.run(go())
    assert "passed the 1 MiB cap" in str(exc)
    assert body.pulled <= (1 << 20) + (1 << 16)  # never a chunk past the cap
    assert body.closed
