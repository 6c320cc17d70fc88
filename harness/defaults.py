"""Every default of a seat's settings, and the bounds of every timeout, defined once.

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
#: The same for a seat with a ``reasoning_effort``: its reasoning counts against the
#: limit too, and 512 tokens leave a reasoning model no room to answer.
REASONING_MAX_TOKENS: Final = 4096
#: Seconds one attempt may take for a reasoning seat (``reasoning_effort`` or
#: ``thinking_budget``): such a model thinks before its first token.
REASONING_CALL_TIMEOUT_SECONDS: Final = 300.0
#: Seconds one attempt may take for a seat on OpenAI's ``flex`` tier, whose answers
#: may take many minutes (OpenAI suggests a client timeout of 15 minutes).
FLEX_CALL_TIMEOUT_SECONDS: Final = 900.0
#: The SDKs' HTTP transport: aiohttp costs less client CPU per call than httpx
#: (docs/llm.md, "Transport and overhead").
TRANSPORT: Final = "aiohttp"
#: The period of a provider's rate limit, in seconds.
RATE_PERIOD_SECONDS: Final = 60.0
#: The most calls in flight at once per (provider, model).
MAX_IN_FLIGHT: Final = 32
#: Seconds one call of a Python agent may take before the seat falls back.
AGENT_TIMEOUT_SECONDS: Final = 60.0

#: The longest any one wait may be set to, in seconds: a model call, a seat's allowance
#: per tick, a Python agent's call, a rate limit's period, the servers' deadlines, a
#: pause between ticks. A day: a timeout is a deadline, not a way to turn one off, and
#: finite, so every sum and product the harness makes of them is finite too.
MAX_TIMEOUT_SECONDS: Final = 86_400.0
#: The longest an episode's timeout (episodeTimeoutSeconds) may be: a year. The one
#: fitted to slow model seats (harness.llm.deadlines) is capped at it too.
MAX_EPISODE_TIMEOUT_SECONDS: Final = 365 * 86_400.0

__all__ = [
    "AGENT_TIMEOUT_SECONDS",
    "CALL_TIMEOUT_SECONDS",
    "FLEX_CALL_TIMEOUT_SECONDS",
    "MAX_EPISODE_TIMEOUT_SECONDS",
    "MAX_IN_FLIGHT",
    "MAX_TIMEOUT_SECONDS",
    "MAX_TOKENS",
    "RATE_PERIOD_SECONDS",
    "REASONING_CALL_TIMEOUT_SECONDS",
    "REASONING_MAX_TOKENS",
    "TRANSPORT",
]
