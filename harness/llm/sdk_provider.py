"""What the providers that call through an official SDK (OpenAI's, Anthropic's) share.

Each builds its SDK's client the same way: the key checked first, the SDK's own
retries off (:mod:`harness.llm.calls` is the only retry layer), every body read
through :func:`~harness.llm.bodies.bounded_client` on the transport the seat asked
for. Each sends the same way too: the SDK sends the request and raises for an error
status, and the harness reads the answer's body itself (:mod:`harness.llm.wire`). A
provider supplies its :class:`Sdk` and the request it builds; this base does the rest.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import httpx2

from harness.errors import BadResponseError
from harness.llm.bodies import bounded_client
from harness.llm.keys import check_api_key
from harness.llm.sdk_errors import classify
from harness.llm.types import Completion, CompletionRequest, Transport
from harness.llm.wire import HttpResponse, Reader, read_completion_async


class SdkClient(Protocol):
    """An SDK's async client, as a provider holds it."""

    async def close(self) -> None:
        """Release its connections."""
        ...


class RawResponse(Protocol):
    """What an SDK's ``with_raw_response`` call gives: the HTTP response, unparsed."""

    @property
    def http_response(self) -> HttpResponse:
        """The response whose body the harness reads itself."""
        ...


ClientT = TypeVar("ClientT", bound=SdkClient)


@dataclass(frozen=True)
class Sdk(Generic[ClientT]):
    """One SDK's parts: its client class, its two HTTP client classes (one per
    :data:`~harness.llm.types.Transport`) and the base of the errors it raises."""

    client: Callable[..., ClientT]
    aiohttp: type[httpx2.AsyncClient]
    httpx: type[httpx2.AsyncClient]
    error: type[Exception]


class SdkProvider(Generic[ClientT]):
    """A :class:`~harness.llm.types.Provider` that sends through ``sdk``'s client."""

    name: str

    def __init__(
        self, sdk: Sdk[ClientT], *, api_key: str, base_url: str | None, transport: Transport
    ) -> None:
        # checked here too, for providers built by hand: a bad key never reaches the SDK
        check_api_key(api_key, self.name)
        self._sdk = sdk
        http_client = bounded_client(sdk.aiohttp if transport == "aiohttp" else sdk.httpx)
        self._client: ClientT = sdk.client(
            api_key=api_key, base_url=base_url, max_retries=0, http_client=http_client
        )

    async def _read(
        self, sent: Awaitable[RawResponse], reader: Reader, request: CompletionRequest
    ) -> Completion:
        """The completion of the request the SDK is sending (``sent``), read by
        ``reader``; any failure raised as the harness's provider error."""
        try:
            raw = await sent
        except (self._sdk.error, BadResponseError, UnicodeDecodeError) as exc:
            raise classify(exc, self.name) from None
        return await read_completion_async(self.name, reader, raw.http_response, request)

    async def aclose(self) -> None:
        """Release the client's connections."""
        await self._client.close()


__all__ = ["RawResponse", "Sdk", "SdkClient", "SdkProvider"]
