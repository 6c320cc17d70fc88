"""Every default of a seat's settings, defined once.

The seat models (configs, the command line, the Python API), the LLM call wrapper
and the providers all read their defaults here, so a default changes in one place.
"""

from __future__ import annotations

from typing import Final

#: Seconds one attempt of an LLM call may take.
CALL_TIMEOUT_SECONDS: Final = 60.0
#: (A seat's allowance per tick has no fixed default: it is fitted to the episode's
#: model seats, see harness.llm.deadlines.default_allowance.)
#: The most tokens a model may write in one reply.
MAX_TOKENS: Final = 512
#: The SDKs' HTTP transport: aiohttp costs less client CPU per call than httpx
#: (docs/llm.md, "Transport and overhead").
TRANSPORT: Final = "aiohttp"
#: The period of a provider's rate limit, in seconds.
RATE_PERIOD_SECONDS: Final = 60.0
#: The most calls in flight at once per (provider, model).
MAX_IN_FLIGHT: Final = 32
#: Seconds one call of a Python agent may take before the seat falls back.
AGENT_TIMEOUT_SECONDS: Final = 60.0

__all__ = [
    "AGENT_TIMEOUT_SECONDS",
    "CALL_TIMEOUT_SECONDS",
    "MAX_IN_FLIGHT",
    "MAX_TOKENS",
    "RATE_PERIOD_SECONDS",
    "TRANSPORT",
]
