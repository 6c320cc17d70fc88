"""A seat's LLM settings and its provider's, validated at the boundary.

:class:`LLMSettings` holds every setting of an LLM seat but its provider, once: a
seat spec (:class:`harness.seat_spec.LLMSeatConfig`, in configs and on the command
line) names its provider, and :class:`LLMSeatOptions` is the same settings with the
provider resolved, which is what the seat runs with. Defaults come from
:mod:`harness.defaults`. Keys are accepted in snake_case or camelCase (``base_url``
or ``baseUrl``).
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import Field, model_validator

from harness import defaults
from harness.llm.fleet import endpoint_label, has_credentials
from harness.llm.shapes import StructuredOutput, candidates
from harness.llm.types import MaxTokensField, ReasoningEffort, ServiceTier, Transport
from harness.models import absent_if_empty, absent_if_none
from harness.validation import StrictModel, seconds_field

#: ``inspect``: any model Inspect AI reaches (``openai/gpt-4o-mini``, ``ollama/llama3.1``,
#: ...), through its model API; needs the ``inspect`` extra (see docs/inspect.md).
ProviderKind = Literal["openai", "anthropic", "inspect", "scripted"]

#: The environment variable each provider kind reads its key from, unless told otherwise
#: (Inspect reads its providers' keys itself).
DEFAULT_KEY_ENV: dict[ProviderKind, str | None] = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "inspect": None,
    "scripted": None,
}
#: The most earlier ticks a seat may be sent (``history``): each adds a prompt and a
#: reply (at most 4000 runes) to every call.
MAX_HISTORY = 100
#: What to install for a provider of kind ``inspect``.
INSPECT_EXTRA = "pip install 'lighthouse-harness[inspect]'"


def _rate(description: str, alias: str | None = None) -> Any:
    # absent from the dump when not given, so that a config's hash stays what it was
    return absent_if_none(description, alias=alias, ge=0)


class RateOptions(StrictModel):
    """US dollars per million tokens of each kind (see :mod:`harness.llm.pricing`)."""

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)
    cached_input_per_mtok: float | None = _rate(
        "Input read from the provider's prompt cache; default: input_per_mtok."
    )
    cache_write_per_mtok: float | None = _rate(
        "Input written to the prompt cache (for five minutes); default: input_per_mtok."
    )
    cache_write_1h_per_mtok: float | None = _rate(
        "Input written to the prompt cache for an hour; default: cache_write_per_mtok.",
        alias="cacheWrite1hPerMtok",
    )
    reasoning_per_mtok: float | None = _rate(
        "Reasoning tokens, a part of the output; default: output_per_mtok."
    )


class PriceOptions(RateOptions):
    """A model's rates, and the rates of the OpenAI service tiers priced apart."""

    # absent from the dump when not given, so that a config's hash stays what it was
    service_tiers: dict[ServiceTier, RateOptions] = absent_if_empty(
        default_factory=dict,
        description="Rates of a call served in an OpenAI service tier (flex, priority, "
        "...); a tier not named here is priced at the model's rates.",
    )


class ProviderOptions(StrictModel):
    """Where calls go, with which key, and how fast."""

    kind: ProviderKind
    base_url: str | list[str] | None = Field(
        None,
        description="For OpenAI-compatible servers; a list: a fleet of replicas, each call "
        "to the one with the fewest in flight (docs/llm.md).",
    )
    api_key_env: str | None = Field(
        None, description="Environment variable holding the key (never the key itself)."
    )
    transport: Transport = Field(
        defaults.TRANSPORT, description="The SDKs' HTTP transport; aiohttp costs less CPU per call."
    )
    requests_per_period: int | None = Field(None, ge=1, description="Rate limit, per model.")
    period_seconds: float = seconds_field(defaults.RATE_PERIOD_SECONDS)
    tokens_per_minute: int | None = absent_if_none(
        "Tokens a minute, per model: input and max_tokens before a call, "
        "corrected to the answer's usage after (docs/llm.md).",
        ge=1,
    )
    max_in_flight: int | None = Field(
        defaults.MAX_IN_FLIGHT, ge=1, description="Calls in flight, per model."
    )
    prices: dict[str, PriceOptions] = Field(
        default_factory=dict, description="Per model name: prices for the cost column."
    )

    @property
    def base_urls(self) -> tuple[str, ...]:
        """Every base URL, in order (none: the provider's own)."""
        if self.base_url is None:
            return ()
        return (self.base_url,) if isinstance(self.base_url, str) else tuple(self.base_url)

    @property
    def base_url_key(self) -> str | None:
        """The base URLs as one text (space-separated), for keys: one URL is itself."""
        return " ".join(self.base_urls) or None

    @model_validator(mode="after")
    def _urls_are_given(self) -> Self:
        if isinstance(self.base_url, list):
            if not self.base_url:
                raise ValueError("base_url: give one URL, or a list of at least one")
            if any(not url.strip() for url in self.base_url):
                raise ValueError("base_url: every URL of the list must be non-empty")
            # named as records and manifests name them (credentials and query left out)
            if len({endpoint_label(url) for url in self.base_url}) != len(self.base_url):
                raise ValueError("base_url: a URL is listed twice (credentials and query aside)")
            if self.kind not in ("openai", "anthropic"):
                raise ValueError(
                    f"base_url: a list of URLs needs kind openai or anthropic, not {self.kind}"
                )
        return self

    @model_validator(mode="after")
    def _credentials_fit_the_transport(self) -> Self:
        # aiohttp refuses a URL's user:password beside the key's Authorization header
        # (a ValueError at the first call); httpx sends them as Basic auth instead
        if self.transport == "aiohttp" and any(map(has_credentials, self.base_urls)):
            raise ValueError(
                "base_url: a URL with credentials (user:password@) needs "
                'transport = "httpx"; aiohttp will not send them beside the API key'
            )
        return self

    @property
    def key_env(self) -> str | None:
        """The environment variable the key is read from."""
        return self.api_key_env or DEFAULT_KEY_ENV[self.kind]

    @model_validator(mode="after")
    def _inspect_is_installed(self) -> Self:
        # find_spec looks for the package without importing it (which takes seconds)
        if self.kind == "inspect" and find_spec("inspect_ai") is None:
            raise ValueError(
                f"kind 'inspect' calls models through Inspect AI, which is not installed: "
                f"{INSPECT_EXTRA}"
            )
        return self


def default_structured_output(provider: ProviderOptions) -> bool | StructuredOutput:
    """What ``structured_output`` is when a seat spec does not say: ``"auto"`` for a
    server at a ``base_url`` (a local or self-hosted server, whose shape the preflight
    finds: without a schema a small model's replies rarely parse), ``false`` for a
    provider's own API. A seat spec that names a setting keeps it."""
    return "auto" if provider.base_url else False


class PromptFiles(StrictModel):
    """A seat's prompt files: system prompt, per-tick observation template, retry hint."""

    system: Path
    observation: Path
    retry_hint: Path

    @classmethod
    def in_folder(cls, folder: Path, role: str) -> PromptFiles:
        """The prompt files of ``role`` in ``folder``: the one layout every prompt folder has.

        ``<role>.system.md``, ``<role>.observation.md`` and ``retry-hint.md``.
        """
        return cls(
            system=folder / f"{role}.system.md",
            observation=folder / f"{role}.observation.md",
            retry_hint=folder / "retry-hint.md",
        )


def _option(description: str, *, ge: int | None = None) -> Any:
    # absent from the dump when not given, so that a config's hash (and an entrant's
    # identity) stays what it was before the option existed
    return absent_if_none(description, ge=ge)


#: The seat options only some provider kinds take, and which: the one list the check
#: of a seat's options reads, and docs/llm.md's table of options states. A ``scripted``
#: provider calls no server and takes every option (so a config can be tried on it).
PROVIDER_ONLY: dict[str, frozenset[ProviderKind]] = {
    "reasoning_effort": frozenset({"openai", "inspect", "scripted"}),
    "thinking_budget": frozenset({"anthropic", "inspect", "scripted"}),
    "service_tier": frozenset({"openai", "scripted"}),
    "max_tokens_field": frozenset({"openai", "scripted"}),
}
#: What to set instead of an option a provider kind does not take.
_INSTEAD: dict[tuple[str, ProviderKind], str] = {
    ("reasoning_effort", "anthropic"): "; for Claude's extended thinking set thinking_budget",
    ("thinking_budget", "openai"): "; for an OpenAI reasoning model set reasoning_effort",
}
#: Anthropic's smallest thinking budget, in tokens.
MIN_THINKING_BUDGET = 1024


class LLMSettings(StrictModel):
    """Every setting of an LLM seat but its provider.

    A reasoning seat (``reasoning_effort`` or ``thinking_budget``) gets defaults of its
    own where the config leaves them out (docs/llm.md, "Reasoning models"):
    ``max_tokens`` is ``thinking_budget`` + :data:`~harness.defaults.MAX_TOKENS`, or
    :data:`~harness.defaults.REASONING_MAX_TOKENS` with a ``reasoning_effort``;
    ``call_timeout_seconds`` is :data:`~harness.defaults.REASONING_CALL_TIMEOUT_SECONDS`,
    or :data:`~harness.defaults.FLEX_CALL_TIMEOUT_SECONDS` for any seat on the ``flex``
    service tier.
    """

    model: str = Field(min_length=1)
    prompts: PromptFiles | None = Field(None, description="Defaults to prompts/<game>/<role>.*")
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int = Field(defaults.MAX_TOKENS, ge=1)
    seed: int | None = None
    structured_output: bool | StructuredOutput = Field(
        False,
        description="Ask for schema-constrained JSON: auto (or true) tries the shapes the "
        "server may take, in order; a shape's name forces it; false sends no schema. "
        "Unset in a seat spec: auto for a provider with a base_url, else false.",
    )
    call_timeout_seconds: float = seconds_field(
        defaults.CALL_TIMEOUT_SECONDS, description="Bound of one attempt; at most a day."
    )
    allowance_seconds: float | None = seconds_field(
        None,
        description="Bound of one seat's turn per tick, retries included; at most a day. "
        "Default: call_timeout_seconds * (model seats in the episode + 1), see docs/llm.md.",
    )
    history: int = Field(
        0,
        ge=0,
        le=MAX_HISTORY,
        exclude_if=lambda v: v == 0,
        description="Earlier ticks sent as a conversation: the seat's last K prompts and "
        "replies before this tick's; 0 (the default) sends each tick alone.",
    )
    prompt_cache: bool = absent_if_empty(
        False,
        description="Ask the provider to cache the prompt's stable start: Anthropic "
        "cache_control breakpoints, OpenAI prompt_cache_key. Changes what a call costs, "
        "never its answer.",
    )
    reasoning_effort: ReasoningEffort | None = _option(
        "OpenAI reasoning models (o-series, GPT-5 family): how hard the model thinks."
    )
    thinking_budget: int | None = _option(
        "Anthropic extended thinking: the most tokens the model may think in, at least "
        f"{MIN_THINKING_BUDGET} and less than max_tokens; temperature must be unset or 1.",
        ge=MIN_THINKING_BUDGET,
    )
    service_tier: ServiceTier | None = _option(
        "OpenAI's service tier: flex is cheaper and slower, priority dearer and faster."
    )
    max_tokens_field: MaxTokensField | None = _option(
        "The field max_tokens is sent in (OpenAI): default max_completion_tokens to "
        "OpenAI itself or with reasoning_effort, else max_tokens."
    )

    @model_validator(mode="after")
    def _reasoning_defaults(self) -> Self:
        given = self.model_fields_set
        # set once, while the model is being made (it is frozen after)
        if "max_tokens" not in given:
            if self.thinking_budget is not None:
                object.__setattr__(self, "max_tokens", self.thinking_budget + defaults.MAX_TOKENS)
            elif self.reasoning_effort is not None:
                object.__setattr__(self, "max_tokens", defaults.REASONING_MAX_TOKENS)
        if "call_timeout_seconds" not in given:
            if self.service_tier == "flex":
                object.__setattr__(self, "call_timeout_seconds", defaults.FLEX_CALL_TIMEOUT_SECONDS)
            elif self.reasoning_effort is not None or self.thinking_budget is not None:
                timeout = defaults.REASONING_CALL_TIMEOUT_SECONDS
                object.__setattr__(self, "call_timeout_seconds", timeout)
        return self

    @model_validator(mode="after")
    def _thinking_as_anthropic_allows(self) -> Self:
        budget = self.thinking_budget
        if budget is None:
            return self
        if self.max_tokens <= budget:
            raise ValueError(
                f"max_tokens ({self.max_tokens}) must be more than thinking_budget ({budget}): "
                "the thinking counts against max_tokens (leave max_tokens out for "
                f"thinking_budget + {defaults.MAX_TOKENS})"
            )
        if self.temperature is not None and self.temperature != 1:
            raise ValueError(
                f"temperature {self.temperature:g} cannot go with thinking_budget: Anthropic "
                "takes thinking only with temperature unset (or 1)"
            )
        if self.structured_output == "tool":
            raise ValueError(
                'structured_output "tool" cannot go with thinking_budget: Anthropic does not '
                'force a tool while the model thinks; use "json_schema", "prompt" or "auto"'
            )
        return self

    @model_validator(mode="after")
    def _allowance_covers_a_call(self) -> Self:
        if self.allowance_seconds is not None and (
            self.allowance_seconds < self.call_timeout_seconds
        ):
            raise ValueError("allowance_seconds must be at least call_timeout_seconds")
        return self


class LLMSeatOptions(LLMSettings):
    """An LLM seat's settings with its provider resolved: what the seat runs with."""

    provider: ProviderOptions

    @model_validator(mode="after")
    def _a_shape_the_provider_can_send(self) -> Self:
        candidates(self.provider.kind, self.structured_output)
        return self

    @model_validator(mode="after")
    def _options_the_provider_takes(self) -> Self:
        kind = self.provider.kind
        for name, kinds in PROVIDER_ONLY.items():
            if getattr(self, name) is None or kind in kinds:
                continue
            takers = " and ".join(sorted(kinds - {"scripted"}))
            raise ValueError(
                f"{name} is an option of {takers} seats; a provider of kind {kind!r} does "
                f"not take it{_INSTEAD.get((name, kind), '')}"
            )
        return self


__all__ = [
    "DEFAULT_KEY_ENV",
    "INSPECT_EXTRA",
    "MAX_HISTORY",
    "MIN_THINKING_BUDGET",
    "PROVIDER_ONLY",
    "LLMSeatOptions",
    "LLMSettings",
    "PriceOptions",
    "PromptFiles",
    "ProviderKind",
    "ProviderOptions",
    "RateOptions",
    "default_structured_output",
]
