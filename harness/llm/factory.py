"""Building providers from options, with keys read (and checked) from the environment."""

from __future__ import annotations

from collections.abc import Mapping

from harness.errors import ConfigError, FatalProviderError
from harness.llm.keys import read_api_key
from harness.llm.options import INSPECT_EXTRA, ProviderOptions
from harness.llm.types import Provider


def make_provider(options: ProviderOptions, environ: Mapping[str, str] | None = None) -> Provider:
    """A provider for ``options`` (``scripted`` providers are built by their callers).

    Each SDK is imported here, when its first provider is built, not with this module:
    importing both takes seconds, which every command would pay otherwise. So is
    Inspect AI, for kind ``inspect``; without the ``inspect`` extra that kind is a
    :class:`ConfigError` saying what to install.
    """
    if options.kind == "openai":
        from harness.llm.openai_provider import OpenAIProvider

        return OpenAIProvider(
            api_key=read_api_key(options, environ),
            base_url=options.base_url,
            transport=options.transport,
        )
    if options.kind == "anthropic":
        from harness.llm.anthropic_provider import AnthropicProvider

        return AnthropicProvider(
            api_key=read_api_key(options, environ),
            base_url=options.base_url,
            transport=options.transport,
        )
    if options.kind == "inspect":
        try:
            from harness.llm.inspect_provider import InspectProvider
        except ModuleNotFoundError as exc:
            if (exc.name or "").partition(".")[0] != "inspect_ai":
                raise
            raise ConfigError(
                f"provider kind 'inspect' needs Inspect AI, which is not installed: {INSPECT_EXTRA}"
            ) from None
        key = read_api_key(options, environ)
        return InspectProvider(base_url=options.base_url, api_key=key or None)
    raise FatalProviderError("bad_request", "scripted providers are given, not built from options")


__all__ = ["make_provider", "read_api_key"]
