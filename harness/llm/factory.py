"""Building providers from options, with keys read (and checked) from the environment."""

from __future__ import annotations

from collections.abc import Mapping

from harness.errors import ConfigError, FatalProviderError
from harness.llm.fleet import Fleet, endpoint_label, register_url_secrets
from harness.llm.keys import read_api_key
from harness.llm.options import INSPECT_EXTRA, ProviderOptions
from harness.llm.types import Provider


def make_provider(options: ProviderOptions, environ: Mapping[str, str] | None = None) -> Provider:
    """A provider for ``options`` (``scripted`` providers are built by their callers).

    Each SDK is imported here, when its first provider is built, not with this module:
    importing both takes seconds, which every command would pay otherwise. So is
    Inspect AI, for kind ``inspect``; without the ``inspect`` extra that kind is a
    :class:`ConfigError` saying what to install. A list of base URLs gives a
    :class:`~harness.llm.fleet.Fleet` of one SDK provider per URL; the credentials a URL
    carries are registered with the redaction first.
    """
    urls = options.base_urls
    for url in urls:
        register_url_secrets(url)
    if options.kind in ("openai", "anthropic") and len(urls) > 1:
        key = read_api_key(options, environ)
        endpoints = [(endpoint_label(url), _sdk_provider(options, key, url)) for url in urls]
        return Fleet(options.kind, endpoints)
    if options.kind in ("openai", "anthropic"):
        base_url = urls[0] if urls else None
        return _sdk_provider(options, read_api_key(options, environ), base_url)
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
        return InspectProvider(base_url=options.base_url_key, api_key=key or None)
    raise FatalProviderError("bad_request", "scripted providers are given, not built from options")


def _sdk_provider(options: ProviderOptions, api_key: str, base_url: str | None) -> Provider:
    """The OpenAI or Anthropic provider of ``options`` at ``base_url``."""
    if options.kind == "openai":
        from harness.llm.openai_provider import OpenAIProvider

        return OpenAIProvider(api_key=api_key, base_url=base_url, transport=options.transport)
    from harness.llm.anthropic_provider import AnthropicProvider

    return AnthropicProvider(api_key=api_key, base_url=base_url, transport=options.transport)


__all__ = ["make_provider", "read_api_key"]
