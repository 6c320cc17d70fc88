"""Inspect AI's model API as a provider: any model Inspect reaches, for any model seat.

A seat's calls go through :meth:`inspect_ai.model.Model.generate`, so Inspect's
provider SDKs, keys (read by Inspect from its own environment variables), retries,
connection limits, response cache and token accounting apply, and inside an Inspect
eval each call is in the sample's transcript. The harness's own wrapper
(:mod:`harness.llm.calls`) still bounds every attempt by the seat's call timeout and
the tick's deadline: a call Inspect is still retrying when the bound runs out is
cancelled, and the turn falls back like any other.

Built for ``kind = "inspect"`` by :func:`harness.llm.factory.make_provider`, which
imports this module only then (it needs the ``inspect`` extra); the Inspect tasks
(``lighthouse_harness``) give each seat the model Inspect resolved for the task.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ResponseSchema,
    get_model,
)
from inspect_ai.util import JSONSchema

from harness.errors import (
    FatalProviderError,
    ProviderError,
    RefusedRequestError,
    TransientProviderError,
)
from harness.llm.sdk_errors import classify
from harness.llm.secrets import redact
from harness.llm.shapes import TOOL_NAME, is_strict
from harness.llm.types import Completion, CompletionRequest, Message, Usage, token_count
from harness.llm.wire import anthropic_usage, stop_reason

#: SDK exceptions that say the request never got an answer (the openai and anthropic
#: SDKs, which most of Inspect's providers use, name them so).
_TRANSPORT_ERRORS = frozenset({"APITimeoutError", "APIConnectionError"})
#: What Inspect raises when a provider answered with an error; it carries the HTTP
#: status when there was one (``status_code``) and the provider's message. Matched by
#: name, as the SDKs' are: Inspect does not export it.
_GENERATE_ERROR = "ModelGenerateError"


class InspectProvider:
    """Calls through Inspect's model API.

    With ``model`` every call goes to that model (the one an Inspect task resolved,
    with its role, config and custom arguments); without it, to the model the
    request names (``openai/gpt-4o-mini``), resolved once by :func:`get_model` with
    ``base_url`` and ``api_key`` and closed by :meth:`aclose`. With
    ``send_sampling=False`` a request's ``max_tokens``, ``temperature`` and ``seed``
    are not sent: Inspect's config decides them (``--max-tokens`` and the rest).
    """

    name = "inspect"

    def __init__(
        self,
        model: Model | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        send_sampling: bool = True,
    ) -> None:
        self._model = model
        self._send_sampling = send_sampling
        self._base_url = base_url
        self._api_key = api_key
        self._models: dict[str, Model] = {}
        self._owned = contextlib.AsyncExitStack()

    async def model_for(self, name: str) -> Model:
        """The model a request naming ``name`` goes to.

        A name Inspect cannot resolve (not ``api/model``, an unknown API, a missing
        key or package: each its own exception) is a :class:`FatalProviderError`
        with Inspect's message: no retry can fix it, and the run stops.
        """
        if self._model is not None:
            return self._model
        found = self._models.get(name)
        if found is None:
            try:
                found = get_model(
                    name, base_url=self._base_url, api_key=self._api_key, memoize=False
                )
            except Exception as exc:
                raise FatalProviderError(
                    "not_found", redact(f"inspect: no model {name!r}: {exc}")
                ) from None
            # owned, so closed with this provider (and never shared with another one)
            self._models[name] = await self._owned.enter_async_context(found)
        return found

    async def complete(self, request: CompletionRequest) -> Completion:
        model = await self.model_for(request.model)
        try:
            config = _config(request, self._send_sampling)
            output = await model.generate(_chat(request.messages), config=config)
        except Exception as exc:
            # Inspect's own control flow (sample limits, a sample being cancelled or
            # terminated) and anything unknown keeps its course; only what an SDK
            # raises for a failed request becomes the harness's provider error.
            if not _is_request_failure(exc):
                raise
            raise _provider_error(exc) from None
        if output.error is not None and not output.completion:
            # the provider answered with an error instead of a reply (e.g. a prompt
            # too long for the model): asking again gets the same answer
            raise RefusedRequestError(
                "bad_request", redact(f"inspect: {model}: {output.error}")[:1000]
            )
        usage = output.usage
        ledger = Usage.reported()  # no usage reported: every count unknown, as for the SDKs
        if usage is not None:
            # Inspect counts input as Anthropic does, without the cache's parts: read
            # the same way, into one total
            ledger = replace(
                anthropic_usage(
                    {
                        "input_tokens": usage.input_tokens,
                        "output_tokens": usage.output_tokens,
                        "cache_read_input_tokens": usage.input_tokens_cache_read,
                        "cache_creation_input_tokens": usage.input_tokens_cache_write,
                    }
                ),
                reasoning_tokens=token_count(usage.reasoning_tokens),
            )
        choices = output.choices
        return Completion(
            text=output.completion,
            usage=ledger,
            model=output.model or str(model),
            stop_reason=stop_reason(choices[0].stop_reason if choices else None),
        )

    async def aclose(self) -> None:
        """Close the models this provider resolved itself (a given model is the giver's)."""
        self._models.clear()
        await self._owned.aclose()


def _chat(messages: tuple[Message, ...]) -> list[ChatMessage]:
    chat: list[ChatMessage] = []
    for message in messages:
        if message.role == "system":
            chat.append(ChatMessageSystem(content=message.content))
        elif message.role == "user":
            chat.append(ChatMessageUser(content=message.content))
        else:  # the seat's own failed reply, echoed in its retry
            chat.append(ChatMessageAssistant(content=message.content))
    return chat


def _config(request: CompletionRequest, sampling: bool) -> GenerateConfig:
    """The request's settings (its sampling ones if ``sampling``); what it leaves unset,
    Inspect's config decides."""
    schema = None
    if request.sent_shape == "json_schema" and request.json_schema is not None:
        schema = ResponseSchema(
            name=TOOL_NAME,
            json_schema=JSONSchema.model_validate(request.json_schema),
            strict=is_strict(request.json_schema),
        )
    # the reasoning settings Inspect maps to each API itself (a thinking budget is its
    # reasoning_tokens); unset (None), Inspect's config decides them
    effort, budget = request.reasoning_effort, request.thinking_budget
    config = GenerateConfig(
        response_schema=schema, reasoning_effort=effort, reasoning_tokens=budget
    )
    if not sampling:
        return config
    sampled = GenerateConfig(
        max_tokens=request.max_tokens, temperature=request.temperature, seed=request.seed
    )
    return config.merge(sampled)


def _is_request_failure(exc: Exception) -> bool:
    """Whether ``exc`` says a request failed: an HTTP status, a timeout, a dropped
    connection, or an error the provider answered with."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    return (
        isinstance(exc, TimeoutError)
        or isinstance(status, int)
        or name in _TRANSPORT_ERRORS
        or name == _GENERATE_ERROR
    )


def _provider_error(exc: Exception) -> ProviderError:
    if isinstance(exc, TimeoutError):
        return TransientProviderError("timeout", "inspect: the request timed out")
    if type(exc).__name__ == _GENERATE_ERROR and getattr(exc, "status_code", None) is None:
        # an error the provider answered with, and no HTTP status to judge it by
        message = getattr(exc, "provider_message", None) or str(exc)
        return RefusedRequestError("bad_request", redact(f"inspect: {message}")[:1000])
    return classify(exc, "inspect")


__all__ = ["InspectProvider"]
