"""A seat's LLM options and its provider's, validated at the boundary.

The tournament config reuses these models. Keys are accepted in snake_case or
camelCase (``base_url`` or ``baseUrl``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from harness.llm.openai_provider import Transport
from harness.llm.shapes import StructuredOutput, candidates

ProviderKind = Literal["openai", "anthropic", "scripted"]

#: The environment variable each provider kind reads its key from, unless told otherwise.
DEFAULT_KEY_ENV: dict[ProviderKind, str | None] = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "scripted": None,
}


class _Options(BaseModel):
    model_config = ConfigDict(
        frozen=True, extra="forbid", alias_generator=to_camel, populate_by_name=True
    )


class PriceOptions(_Options):
    """US dollars per million tokens."""

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)


class ProviderOptions(_Options):
    """Where calls go, with which key, and how fast."""

    kind: ProviderKind
    base_url: str | None = Field(None, description="For OpenAI-compatible servers.")
    api_key_env: str | None = Field(
        None, description="Environment variable holding the key (never the key itself)."
    )
    transport: Transport = Field(
        "aiohttp", description="The SDKs' HTTP transport; aiohttp costs less CPU per call."
    )
    requests_per_period: int | None = Field(None, ge=1, description="Rate limit, per model.")
    period_seconds: float = Field(60.0, gt=0)
    max_in_flight: int | None = Field(32, ge=1, description="Calls in flight, per model.")
    prices: dict[str, PriceOptions] = Field(
        default_factory=dict, description="Per model name: prices for the cost column."
    )

    @property
    def key_env(self) -> str | None:
        """The environment variable the key is read from."""
        return self.api_key_env or DEFAULT_KEY_ENV[self.kind]


class PromptFiles(_Options):
    """A seat's prompt files: system prompt, per-tick observation template, retry hint."""

    system: Path
    observation: Path
    retry_hint: Path


class LLMSeatOptions(_Options):
    """Everything about one LLM seat."""

    provider: ProviderOptions
    model: str = Field(min_length=1)
    prompts: PromptFiles | None = Field(None, description="Defaults to prompts/<game>/<role>.*")
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int = Field(512, ge=1)
    seed: int | None = None
    structured_output: bool | StructuredOutput = Field(
        False,
        description="Ask for schema-constrained JSON: auto (or true) tries the shapes the "
        "server may take, in order; a shape's name forces it; false sends no schema.",
    )
    call_timeout_seconds: float = Field(60.0, gt=0, description="Bound of one attempt.")
    allowance_seconds: float | None = Field(
        None,
        gt=0,
        description="Bound of one seat's turn per tick, retries included. Default: "
        "call_timeout_seconds * (model seats in the episode + 1), see docs/llm.md.",
    )

    @model_validator(mode="after")
    def _allowance_covers_a_call(self) -> LLMSeatOptions:
        if self.allowance_seconds is not None and (
            self.allowance_seconds < self.call_timeout_seconds
        ):
            raise ValueError("allowance_seconds must be at least call_timeout_seconds")
        candidates(self.provider.kind, self.structured_output)  # a shape the kind can send
        return self


__all__ = [
    "DEFAULT_KEY_ENV",
    "LLMSeatOptions",
    "PriceOptions",
    "PromptFiles",
    "ProviderKind",
    "ProviderOptions",
]
