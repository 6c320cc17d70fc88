"""A provider that answers from a script: canned replies or a function of the request.

For tests, demos and offline runs; it goes through the same wrapper (retries,
limits, accounting) as a real provider.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeAlias

from harness.errors import FatalProviderError, ProviderError
from harness.llm.types import Completion, CompletionRequest, Usage

Script: TypeAlias = Callable[[CompletionRequest], "str | Completion | Awaitable[str | Completion]"]


class ScriptedProvider:
    """Replies in order from ``replies`` (cycling when ``cycle``), or from ``script``.

    A reply that is a :class:`ProviderError` instance is raised instead, so transport
    failures can be scripted too. ``latency_s`` delays every reply.
    """

    name = "scripted"

    def __init__(
        self,
        replies: Iterable[str | Completion | ProviderError] | None = None,
        *,
        script: Script | None = None,
        cycle: bool = False,
        latency_s: float = 0.0,
    ) -> None:
        if (replies is None) == (script is None):
            raise ValueError("give exactly one of replies or script")
        self._replies = list(replies or [])
        self._script = script
        self._cycle = cycle
        self._latency = latency_s
        self.requests: list[CompletionRequest] = []

    async def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        if self._latency:
            await asyncio.sleep(self._latency)
        reply: str | Completion | ProviderError
        if self._script is not None:
            produced = self._script(request)
            reply = await produced if inspect.isawaitable(produced) else produced
        else:
            index = len(self.requests) - 1
            if self._cycle:
                index %= len(self._replies)
            if index >= len(self._replies):
                raise FatalProviderError("bad_request", "scripted provider: script exhausted")
            reply = self._replies[index]
        if isinstance(reply, ProviderError):
            raise reply
        if isinstance(reply, Completion):
            return reply
        return Completion(
            text=reply,
            usage=Usage(
                input_tokens=sum(len(m.content) for m in request.messages) // 4,
                output_tokens=len(reply) // 4,
            ),
            model=request.model,
        )

    async def aclose(self) -> None:
        return None


__all__ = ["ScriptedProvider"]
