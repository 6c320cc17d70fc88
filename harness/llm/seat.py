"""The LLM seat: observation -> prompt -> provider -> parse, retry once, else fall back.

Each tick's call is stateless: the seat sends its system prompt and the rendered
observation, nothing from earlier ticks (what a seat remembers is its notes, which
the observation carries). On a parse failure the seat retries exactly once, sending
back its failed reply and a hint that names the problem (decision R5); a second
failure, or a provider that cannot answer within the seat's allowance, falls back to
the role's scripted baseline on the same observation, tagged with its source (R7).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any, Self

from harness.errors import PlayBudgetExhausted
from harness.game import GameEntry, ParseFailure
from harness.llm.calls import CallReport, Price, RetryPolicy, call_llm
from harness.llm.factory import make_provider
from harness.llm.limits import CallLimiter, LimiterRegistry, Limits
from harness.llm.options import LLMSeatOptions, ProviderOptions
from harness.llm.prompts import PromptSet, default_prompt_files
from harness.llm.secrets import redact
from harness.llm.types import CompletionRequest, Message, Provider
from harness.records import AgentInfo, CallRecord, ModelReply, Source
from harness.seats import (
    PARSE_OFF_LOOP_CHARS,
    SeatReply,
    SeatRequest,
    judge_reply_async,
    turn_source,
)
from harness.text import truncate_runes

#: A failed reply sent back with the retry hint is cut to this many runes.
RETRY_ECHO_RUNES = 4000


class LLMSeat:
    """A seat played by a model through a :class:`Provider`."""

    def __init__(
        self,
        *,
        provider: Provider,
        options: LLMSeatOptions,
        prompts: PromptSet,
        limiter: CallLimiter | None = None,
        reply_schema: dict[str, Any] | None = None,
    ) -> None:
        self.provider = provider
        self.options = options
        self.prompts = prompts
        self.limiter = limiter or CallLimiter(
            Limits(
                requests=options.provider.requests_per_period,
                period_s=options.provider.period_seconds,
                in_flight=options.provider.max_in_flight,
            )
        )
        self._schema = reply_schema if options.structured_output else None
        self._policy = RetryPolicy(call_timeout_s=options.call_timeout_seconds)
        price = options.provider.prices.get(options.model)
        self._price = Price(price.input_per_mtok, price.output_per_mtok) if price else None
        details = {"provider": options.provider.kind, "model": options.model, **prompts.hashes()}
        if options.provider.base_url:
            details["baseUrl"] = options.provider.base_url
        self._agent = AgentInfo(
            kind="llm", name=f"{options.provider.kind}:{options.model}", details=details
        )

    @property
    def agent(self) -> AgentInfo:
        return self._agent

    async def decide(self, request: SeatRequest) -> SeatReply:
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        own_deadline = loop.time() + self.options.allowance_seconds
        budget = request.deadline if request.deadline is not None else float("inf")
        deadline = min(own_deadline, budget)
        io, observation = request.io, request.observation
        messages = [
            Message("system", self.prompts.system.text),
            Message(
                "user",
                self.prompts.observation.fill(observation=io.render_observation(observation)),
            ),
        ]
        replies: list[ModelReply] = []
        calls: list[CallRecord] = []

        def finish(raw: str, decision: Any, source: Source) -> SeatReply:
            return SeatReply(
                raw, decision, source, time.perf_counter() - started, tuple(replies), tuple(calls)
            )

        problems: list[ParseFailure | None] = []
        while True:  # two calls at most: the second reply, or a failed call, ends the turn
            report = await self._call(messages, deadline)
            calls.append(_call_record(report))
            failure: str | None = None
            if report.completion is None:
                if loop.time() >= budget:  # the play budget, not the seat, ran out (D2)
                    raise PlayBudgetExhausted(f"tick {request.tick}: play budget exhausted")
                failure = report.failure.kind if report.failure is not None else "api"
            else:
                text = report.completion.text
                decision, problem, reply = await judge_reply_async(io, observation, text)
                replies.append(reply)
                problems.append(problem)
            source = turn_source(problems, failure)
            if source is None:  # the first reply failed: retry once, with a hint
                hint = problem.message if problem is not None else ""
                messages = [
                    *messages,
                    Message("assistant", truncate_runes(text, RETRY_ECHO_RUNES)),
                    Message("user", self.prompts.retry_hint.fill(problem=hint)),
                ]
            elif source in ("llm", "llm_retry"):
                return finish(text, decision, source)
            else:
                return finish(*request.baseline(), source)

    async def _call(self, messages: list[Message], deadline: float) -> CallReport:
        request = CompletionRequest(
            model=self.options.model,
            messages=tuple(messages),
            temperature=self.options.temperature,
            max_tokens=self.options.max_tokens,
            seed=self.options.seed,
            json_schema=self._schema,
            timeout_s=self.options.call_timeout_seconds,
        )
        return await call_llm(
            self.provider,
            request,
            limiter=self.limiter,
            policy=self._policy,
            deadline=deadline,
            price=self._price,
        )


def _call_record(report: CallReport) -> CallRecord:
    usage = report.usage
    return CallRecord.model_validate(
        {
            "provider": report.provider,
            "model": report.model,
            "attempts": report.attempts,
            "errors": list(report.errors),
            "failure": report.failure.kind if report.failure else None,
            "inputTokens": usage.input_tokens,
            "outputTokens": usage.output_tokens,
            "reasoningTokens": usage.reasoning_tokens,
            "costUsd": report.cost_usd,
            "wallClock": {"latencyMs": round(report.latency_s * 1000, 3)},
        }
    )


class SeatFactory:
    """Builds LLM seats, sharing one provider client and one limiter per model.

    Seats with the same provider settings share a client (and its connection pool);
    seats calling the same (provider, model) share a rate limiter and in-flight cap.
    The factory owns those clients: use it as ``async with SeatFactory() as factory:``,
    which closes every client on the way out, however the block ends.
    """

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ = environ
        self._providers: dict[tuple[str, str | None, str | None, str], Provider] = {}
        self._limiters = LimiterRegistry()
        self._models: dict[tuple[str, str | None, str], LLMSeatOptions] = {}

    def provider(self, options: ProviderOptions) -> Provider:
        """The shared provider for ``options`` (its key read from the environment)."""
        key = (options.kind, options.base_url, options.key_env, options.transport)
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
        """An LLM seat for ``role`` in ``game``; ``provider`` overrides the one built."""
        prompts = PromptSet.load(options.prompts or default_prompt_files(game.name, role))
        provider = provider or self.provider(options.provider)
        p = options.provider
        limiter = self._limiters.get(
            f"{p.kind}:{p.base_url or ''}",
            options.model,
            Limits(
                requests=p.requests_per_period, period_s=p.period_seconds, in_flight=p.max_in_flight
            ),
        )
        self._models.setdefault((p.kind, p.base_url, options.model), options)
        return LLMSeat(
            provider=provider,
            options=options,
            prompts=prompts,
            limiter=limiter,
            reply_schema=game.seat_io.reply_schema(role),
        )

    async def preflight(self) -> list[str]:
        """One tiny call per distinct (provider, model) built so far.

        Auth, not-found and bad-request errors raise :class:`FatalProviderError` now,
        before any episode starts; transient trouble comes back as warnings (redacted,
        ready to print).
        """
        warnings = []
        loop = asyncio.get_running_loop()
        for (_, _, model), options in self._models.items():
            request = CompletionRequest(
                model=model,
                messages=(Message("user", 'Reply with the JSON object {"ok": true}.'),),
                max_tokens=16,
                timeout_s=options.call_timeout_seconds,
            )
            report = await call_llm(
                self.provider(options.provider),
                request,
                limiter=CallLimiter(Limits()),
                policy=RetryPolicy(call_timeout_s=options.call_timeout_seconds),
                deadline=loop.time() + options.call_timeout_seconds,
            )
            if report.failure is not None:
                warnings.append(
                    redact(f"preflight {options.provider.kind}:{model}: {report.failure}")
                )
        return warnings

    async def aclose(self) -> None:
        """Close every provider client."""
        for provider in self._providers.values():
            await provider.aclose()
        self._providers.clear()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


__all__ = ["PARSE_OFF_LOOP_CHARS", "RETRY_ECHO_RUNES", "LLMSeat", "SeatFactory"]
