"""Building providers from options, with keys read (and checked) from the environment."""

from __future__ import annotations

from collections.abc import Mapping

from harness.errors import FatalProviderError
from harness.llm.anthropic_provider import AnthropicProvider
from harness.llm.keys import read_api_key
from harness.llm.openai_provider import OpenAIProvider
from harness.llm.options import ProviderOptions
from harness.llm.types import Provider


def make_provider(options: ProviderOptions, environ: Mapping[str, str] | None = None) -> Provider:
    """A provider for ``options`` (``scripted`` providers are built by their callers)."""
    if options.kind == "openai":
        return OpenAIProvider(
            api_key=read_api_key(options, environ),
            base_url=options.base_url,
            transport=options.transport,
        )
    if options.kind == "anthropic":
        return AnthropicProvider(
            api_key=read_api_key(options, environ),
            base_url=options.base_url,
            transport=options.transport,
        )
    raise FatalProviderError("bad_request", "scripted providers are given, not built from options")


__all__ = ["make_provider", "read_api_key"]
