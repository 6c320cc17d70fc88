"""The LLM seat: observation -> prompt -> provider -> parse, retry once, else fall back.

By default each tick's call is stateless: the seat sends its system prompt and the
rendered observation, nothing from earlier ticks (what a seat remembers is its notes,
which the observation carries). With ``history = K`` it also sends its last K ticks
as a conversation between the two (:mod:`harness.llm.memory`). On a parse failure
the seat retries exactly once, sending back its failed reply and a hint that names
the problem (decision R5); a second failure, or a provider that cannot answer within
the seat's allowance, falls back to the role's scripted baseline on the same
observation, tagged with its source (R7).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Mapping
from typing import Self

from harness.errors import FatalProviderError, RefusedRequestError
from harness.llm.cache import CallCache, call_key, current_episode
from harness.llm.calls import CallReport, RetryPolicy, call_llm
from harness.llm.chat_template import template_warning
from harness.llm.deadlines import default_allowance
from harness.llm.factory import make_provider
from harness.llm.fleet import Fleet, endpoint_label
from harness.llm.limits import CallLimiter, LimiterRegistry, Limits
from harness.llm.memory import SeatMemory
from harness.llm.negotiate import Negotiation
from harness.llm.options import LLMSeatOptions, ProviderOptions
from harness.llm.pricing import Price
from harness.llm.prompts import (
    RETRY_ECHO_RUNES,
    Exchange,
    PromptSet,
    default_prompt_files,
    first_messages,
    retry_messages,
)
from harness.llm.schema_reply import schema_reply
from harness.llm.scripted import ScriptedProvider
from harness.llm.secrets import redact
from harness.llm.shapes import Shape, apply_shape, candidates
from harness.llm.types import CacheHint, CompletionRequest, Message, Provider
from harness.models import JsonObject
from harness.protocol import GameEntry
from harness.records import (
    LENGTH_STOP_REASONS,
    MODEL_SOURCES,
    AgentInfo,
    CallRecord,
    CallWallClock,
)
from harness.seats import PARSE_OFF_LOOP_CHARS, SeatReply, SeatRequest
from harness.turn import Asked, Retry, play_turn

#: Where a seat reports, once, the first failure of its calls (a line of text).
Notify = Callable[[str], None]


class LLMSeat:
    """A seat played by a model through a :class:`Provider`."""

    def __init__(
        self,
        *,
        provider: Provider,
        options: LLMSeatOptions,
        prompts: PromptSet,
        limiter: CallLimiter | None = None,
        reply_schema: JsonObject | None = None,
        negotiation: Negotiation | None = None,
        cache: CallCache | None = None,
        notify: Notify | None = None,
        prompt_layout: int = 1,
    ) -> None:
        self.provider = provider
        self.options = options
        self.prompts = prompts
        self.limiter = limiter or CallLimiter(
            Limits(
                requests=options.provider.requests_per_period,
                period_s=options.provider.period_seconds,
                in_flight=options.provider.max_in_flight,
                tokens_per_minute=options.provider.tokens_per_minute,
            )
        )
        self.negotiation = negotiation or Negotiation(seat_candidates(options))
        self._schema = reply_schema if self.negotiation.candidates else None
        self._cache = cache
        self._notify = notify
        self._noticed = False
        self._policy = RetryPolicy(call_timeout_s=options.call_timeout_seconds)
        self.allowance_s = options.allowance_seconds or default_allowance(
            options.call_timeout_seconds, 1
        )
        price = options.provider.prices.get(options.model)
        self._price = Price.of(price) if price else None
        details = {"provider": options.provider.kind, "model": options.model, **prompts.hashes()}
        if options.provider.base_urls:
            # as records name endpoints: credentials a URL carries never reach a record
            details["baseUrl"] = " ".join(map(endpoint_label, options.provider.base_urls))
        if prompt_layout != 1:  # which layout of the observation's text it is sent
            details["promptLayout"] = str(prompt_layout)
        if options.history:
            details["history"] = str(options.history)
        if options.prompt_cache:
            details["promptCache"] = "true"
        self._details = details
        self._memory = SeatMemory(options.history)
        self._cache_key = _prompt_cache_key(options, prompts) if options.prompt_cache else None

    @property
    def agent(self) -> AgentInfo:
        details = dict(self._details)
        if self.negotiation.candidates:
            # the shape found so far: "auto" until the preflight or a first call settles it
            details["structuredOutput"] = self.negotiation.describe()
            if self.negotiation.refusals:
                details["structuredOutputRefused"] = self.negotiation.refused()
        name = f"{self.options.provider.kind}:{self.options.model}"
        return AgentInfo(kind="llm", name=name, details=details, prompt_texts=self.prompts.texts())

    async def decide(self, request: SeatRequest) -> SeatReply:
        loop = asyncio.get_running_loop()
        budget = request.deadline if request.deadline is not None else float("inf")
        deadline = min(loop.time() + self.allowance_s, budget)
        prompts = self.prompts
        episode, seat = request.episode_id or current_episode() or "", request.seat.seat
        scope = f"{episode}/{seat}/{request.tick}"
        messages: tuple[Message, ...] = ()
        prompt = ""  # the tick's own user message, as its first request sent it
        hint: CacheHint | None = None

        async def ask(retry: Retry | None) -> Asked:
            nonlocal messages, prompt, hint
            if retry is None:
                rendered = request.io.render_observation(request.observation)
                history = self._memory.recall(episode, seat)
                messages = first_messages(
                    prompts.system.text, prompts.observation.text, rendered, history
                )
                prompt = messages[-1].content
                hint = self._cache_hint(messages, history)
            else:
                messages = retry_messages(
                    messages, retry.reply, prompts.retry_hint.text, retry.problem.message
                )
            reports = await self._call(messages, deadline, scope, hint)
            calls = tuple(_call_record(r) for r in reports)
            report = reports[-1]
            if report.failure is not None:
                self._notice(request, report)
            if report.completion is None:
                kind = report.failure.kind if report.failure is not None else "api"
                return Asked(failure=kind, calls=calls)
            # an answer from the cache past the record's cap comes in its record form
            completion = report.completion
            cut = completion.stop_reason in LENGTH_STOP_REASONS
            return Asked(
                text=completion.text,
                clipped=completion.clipped,
                calls=calls,
                cut=cut,
                reasoning=completion.reasoning,
                reasoning_clipped=completion.reasoning_clipped,
            )

        reply = await play_turn(request, ask, MODEL_SOURCES)
        if reply.replies:  # a tick the model answered: remembered as the record keeps it
            self._memory.remember(episode, seat, prompt, reply.replies[-1].raw)
        return reply

    def request(
        self,
        messages: tuple[Message, ...],
        max_tokens: int | None = None,
        cache: CacheHint | None = None,
    ) -> CompletionRequest:
        """The request this seat sends for ``messages``, before its shape is applied."""
        return CompletionRequest(
            model=self.options.model,
            messages=messages,
            temperature=self.options.temperature,
            max_tokens=max_tokens or self.options.max_tokens,
            seed=self.options.seed,
            json_schema=self._schema,
            timeout_s=self.options.call_timeout_seconds,
            cache=cache,
            reasoning_effort=self.options.reasoning_effort,
            thinking_budget=self.options.thinking_budget,
            service_tier=self.options.service_tier,
            max_tokens_field=self.options.max_tokens_field,
        )

    def preflight_request(self) -> CompletionRequest:
        """The preflight's small request: this seat's schema and parameters, its prompt
        cache's field included, as its first tick's call sends them, so that a server
        refusing any of them stops the run before an episode starts."""
        max_tokens = min(self.options.max_tokens, 64)
        return self.request(_PREFLIGHT, max_tokens, self._cache_hint(_PREFLIGHT, ()))

    def _cache_hint(
        self, messages: tuple[Message, ...], history: tuple[Exchange, ...]
    ) -> CacheHint | None:
        """The prompt cache this tick's calls ask for (None: ``prompt_cache`` is off).

        The system prompt is always sent again. While the history is still filling
        (fewer than K earlier ticks), the next tick sends this whole prompt again
        before its own, so the start runs through this tick's prompt; once it is full,
        the next tick drops its oldest tick, and only the system prompt stays the same
        (a breakpoint later would pay for cache writes never read).
        """
        if self._cache_key is None:
            return None
        growing = len(history) < self.options.history
        return CacheHint(self._cache_key, len(messages) - 1 if growing else 0)

    async def _call(
        self,
        messages: tuple[Message, ...],
        deadline: float,
        scope: str,
        cache: CacheHint | None = None,
    ) -> list[CallReport]:
        """One call (or, while the shape is being found, one per shape tried)."""
        base = self.request(messages, cache=cache)
        provider = self.options.provider

        async def send(shape: Shape | None) -> CallReport:
            shaped = apply_shape(base, shape)
            key = None
            if self._cache is not None:
                key = call_key(
                    shaped, kind=provider.kind, base_url=provider.base_url_key, scope=scope
                )
            return await call_llm(
                self.provider,
                shaped,
                limiter=self.limiter,
                policy=self._policy,
                deadline=deadline,
                price=self._price,
                cache=self._cache,
                cache_key=key,
            )

        return await self.negotiation.call(send)

    def _notice(self, request: SeatRequest, report: CallReport) -> None:
        """Report this seat's first failed call once; the rest are in the record."""
        if self._noticed or self._notify is None:
            return
        self._noticed = True
        episode = current_episode()
        where = f"{episode}: " if episode else ""
        what = report.message or str(report.failure)
        self._notify(
            redact(
                f"{where}{request.seat.seat} ({self.agent.name}), tick {request.tick}: {what}; "
                "the turn fell back (this seat's later failures are only in the record)"
            )
        )


def _prompt_cache_key(options: LLMSeatOptions, prompts: PromptSet) -> str:
    """The seat's ``prompt_cache_key``: the same for every seat sending this system
    prompt to this model (so their calls, which share that start, meet one cache), and
    saying nothing of the prompt itself."""
    text = f"{options.provider.kind}\n{options.model}\n{prompts.system.sha256}"
    return "lighthouse-" + hashlib.sha256(text.encode()).hexdigest()[:32]


def seat_candidates(options: LLMSeatOptions) -> tuple[Shape, ...]:
    """The structured-output shapes a seat tries: its setting's, less the forced tool
    for a seat that thinks (Anthropic refuses to force a tool with thinking on)."""
    shapes = candidates(options.provider.kind, options.structured_output)
    if options.thinking_budget is None:
        return shapes
    return tuple(shape for shape in shapes if shape != "tool")


def _call_record(report: CallReport) -> CallRecord:
    usage = report.usage
    return CallRecord(
        provider=report.provider,
        model=report.model,
        attempts=report.attempts,
        errors=list(report.errors),
        failure=report.failure.kind if report.failure else None,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        reasoning_tokens=usage.reasoning_tokens,
        cached_input_tokens=usage.cached_input_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        cache_write_1h_tokens=usage.cache_write_1h_tokens,
        stop_reason=report.completion.stop_reason if report.completion else None,
        service_tier=report.completion.service_tier if report.completion else None,
        cost_usd=report.cost_usd,
        cached=report.cached,
        message=report.message,
        prompt_sha256=report.prompt_sha256,
        endpoint=report.endpoint,
        endpoint_errors=dict(report.endpoint_errors),
        wall_clock=CallWallClock(
            latency_ms=round(report.latency_s * 1000, 3),
            wait_ms=round(report.wait_s * 1000, 3),
            request_ms=round(report.request_s * 1000, 3),
            server_ms=None if report.server_ms is None else round(report.server_ms, 3),
            overlapped=report.overlapped,
        ),
    )


class SeatFactory:
    """Builds LLM seats, sharing one provider client and one limiter per model.

    Seats with the same provider settings share a client (and its connection pool);
    seats calling the same (provider, model) share a rate limiter and in-flight cap,
    and, with the same structured-output setting, the shape found for it. A ``cache``
    is given to every seat; ``notify`` receives each seat's first failure, once. The
    factory owns the clients: use it as ``async with SeatFactory() as factory:``,
    which closes every client on the way out, however the block ends.
    """

    def __init__(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        cache: CallCache | None = None,
        notify: Notify | None = None,
    ) -> None:
        self._environ = environ
        self._providers: dict[tuple[str, str | None, str | None, str], Provider] = {}
        self._limiters = LimiterRegistry()
        self._negotiations: dict[tuple[str, str | None, str, str], Negotiation] = {}
        self._models: dict[tuple[str, str | None, str, str], LLMSeat] = {}
        self.cache = cache
        self.notify = notify

    def provider(self, options: ProviderOptions) -> Provider:
        """The shared provider for ``options`` (its key read from the environment)."""
        key = (options.kind, options.base_url_key, options.key_env, options.transport)
        if key not in self._providers:
            self._providers[key] = make_provider(options, self._environ)
        return self._providers[key]

    def seat(
        self,
        game: GameEntry,
        role: str,
        options: LLMSeatOptions,
        *,
        provider: Provider | None = None,
    ) -> LLMSeat:
        """An LLM seat for ``role`` in ``game``; ``provider`` overrides the one built.

        A provider of kind ``scripted`` calls no server: the seat's every call answers
        with the simplest reply the role's reply schema allows
        (:mod:`harness.llm.schema_reply`).
        """
        prompts = PromptSet.load(options.prompts or default_prompt_files(game.name, role))
        p = options.provider
        if provider is None and p.kind == "scripted":
            reply = schema_reply(game.seat_io.reply_schema(role))
            provider = ScriptedProvider(script=lambda _request: reply)
        provider = provider or self.provider(p)
        limiter = self._limiters.get(
            f"{p.kind}:{p.base_url_key or ''}",
            options.model,
            Limits(
                requests=p.requests_per_period,
                period_s=p.period_seconds,
                in_flight=p.max_in_flight,
                tokens_per_minute=p.tokens_per_minute,
            ),
        )
        thinks = "thinking" if options.thinking_budget is not None else ""
        key = (p.kind, p.base_url_key, options.model, f"{options.structured_output}{thinks}")
        negotiation = self._negotiations.setdefault(key, Negotiation(seat_candidates(options)))
        seat = LLMSeat(
            provider=provider,
            options=options,
            prompts=prompts,
            limiter=limiter,
            reply_schema=game.seat_io.reply_schema(role),
            negotiation=negotiation,
            cache=self.cache,
            notify=self.notify,
            prompt_layout=game.seat_io.prompt_layout,
        )
        self._models.setdefault(key, seat)
        return seat

    async def preflight(self) -> list[str]:
        """One small call per distinct (provider, model, structured output) built so far.

        The call has the shape the episode's calls will have (the seat's schema,
        parameters and structured-output shape); with ``structured_output = "auto"``
        it finds the shape, one call per shape tried. Auth and not-found errors, and
        a request the server refuses in every shape, raise :class:`FatalProviderError`
        now, before any episode starts; transient trouble comes back as warnings
        (redacted, ready to print), and so does a server at a ``base_url`` that serves
        its model without a chat template of its own (:mod:`harness.llm.chat_template`).
        """
        warnings = await self._template_warnings()
        loop = asyncio.get_running_loop()
        for seat in self._models.values():
            options = seat.options
            request = seat.preflight_request()
            limiter = CallLimiter(Limits())
            policy = RetryPolicy(call_timeout_s=options.call_timeout_seconds)

            async def send(
                shape: Shape | None,
                seat: LLMSeat = seat,
                request: CompletionRequest = request,
                limiter: CallLimiter = limiter,
                policy: RetryPolicy = policy,
            ) -> CallReport:
                return await call_llm(
                    seat.provider,
                    apply_shape(request, shape),
                    limiter=limiter,
                    policy=policy,
                    deadline=loop.time() + policy.call_timeout_s,
                )

            report = (await seat.negotiation.call(send))[-1]
            name = f"{options.provider.kind}:{options.model}"
            if isinstance(report.failure, RefusedRequestError):
                refused = seat.negotiation.refused()
                earlier = f" (before that: {refused})" if refused else ""
                raise FatalProviderError(
                    "bad_request",
                    redact(f"preflight {name}: refused: {report.failure}{earlier}"),
                )
            if report.failure is not None:
                warnings.append(redact(f"preflight {name}: {report.failure}"))
            if isinstance(seat.provider, Fleet):
                # the health check: every endpoint that has not answered yet, once
                shaped = apply_shape(request, seat.negotiation.shape)
                for problem in await seat.provider.check(shaped):
                    warnings.append(redact(f"preflight {name}: {problem}"))
        return warnings

    async def _template_warnings(self) -> list[str]:
        """A warning per OpenAI-compatible server at a ``base_url`` (each of a fleet's)
        whose chat template is not its model's own; never an error (see
        :mod:`harness.llm.chat_template`)."""
        warnings = []
        asked: set[str] = set()
        for seat in self._models.values():
            p = seat.options.provider
            if p.kind != "openai":
                continue
            for url in p.base_urls:
                if url in asked:
                    continue
                asked.add(url)
                name = f"{p.kind}:{seat.options.model}"
                found = await template_warning(
                    name if len(p.base_urls) == 1 else f"{name} at {endpoint_label(url)}", url
                )
                if found is not None:
                    warnings.append(redact(found))
        return warnings

    def structured_output(self) -> list[str]:
        """One line per model with structured output: the shape it takes, and what was refused."""
        lines = []
        for (kind, _, model, _), seat in self._models.items():
            negotiation = seat.negotiation
            if not negotiation.candidates:
                continue
            line = f"{kind}:{model}: structured output {negotiation.describe()}"
            if negotiation.refusals:
                line += f" (refused: {negotiation.refused()})"
            lines.append(redact(line))
        return lines

    async def aclose(self) -> None:
        """Close every provider client."""
        for provider in self._providers.values():
            await provider.aclose()
        self._providers.clear()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


#: The preflight's messages: small, and the same in every run.
_PREFLIGHT = (
    Message("system", "This is a connection check before a game."),
    Message("user", "Reply with one JSON object."),
)


__all__ = ["PARSE_OFF_LOOP_CHARS", "RETRY_ECHO_RUNES", "LLMSeat", "SeatFactory"]
