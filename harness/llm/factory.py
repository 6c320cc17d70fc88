"""Building providers from options, with keys read from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping

from harness.errors import FatalProviderError
from harness.llm.anthropic_provider import AnthropicProvider
from harness.llm.openai_provider import OpenAIProvider
from harness.llm.options import ProviderOptions
from harness.llm.types import Provider


def read_api_key(options: ProviderOptions, environ: Mapping[str, str] | None = None) -> str:
    """The provider's key from its environment variable; the message names only the variable."""
    environ = os.environ if environ is None else environ
    name = options.key_env
    if name is None:
        return ""
    key = environ.get(name, "")
    if not key.strip():
        raise FatalProviderError(
            "missing_key", f"{options.kind}: the environment variable {name} is not set"
        )
    return key


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
