"""The spaces both adapters share: a seat reads text and answers in text.

A seat's observation is the message a model would be sent (the observation prompt
filled in; on the retry after a reply that could not be used, the retry hint), and its
action is its reply text, as a model's. Both are :class:`gymnasium.spaces.Text` over
:data:`CHARSET`, printable ASCII with the line feed: every shipped prompt and every
board, tide and inbox the games render are written in it. A character outside it (in a
keeper's message given as a decision, say) is shown as ``?`` in the observation, never
changed in the record.
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces

from harness.agents import AgentInput

#: Every character an observation or an action holds.
CHARSET = frozenset(chr(code) for code in range(32, 127)) | {"\n"}
#: The longest observation, in characters (a keeper's prompt is about 1,000).
MAX_OBSERVATION = 1 << 16
#: The longest reply an action space samples, in characters (a reply is short; one up to
#: the harness's 1 MiB cap may still be given).
MAX_ACTION = 512


def observation_space() -> spaces.Text:
    """The space of a seat's observation text."""
    return spaces.Text(MAX_OBSERVATION, min_length=0, charset=CHARSET)


def action_space() -> spaces.Text:
    """The space of a seat's reply text."""
    return spaces.Text(MAX_ACTION, min_length=0, charset=CHARSET)


def seen(given: AgentInput) -> str:
    """What the seat reads now: the observation prompt, or the retry hint on a retry."""
    text = given.hint if given.hint is not None else given.text
    if all(char in CHARSET for char in text):
        return text[:MAX_OBSERVATION]
    return "".join(char if char in CHARSET else "?" for char in text)[:MAX_OBSERVATION]


def info_of(given: AgentInput) -> dict[str, Any]:
    """What a seat's ``info`` holds: the rest of its :class:`AgentInput`."""
    return {
        "asked": True,
        "tick": given.tick,
        "role": given.role,
        "system": given.system,
        "observation": given.observation,
        "retry_of": given.retry_of,
        "problem": given.problem,
    }


__all__ = [
    "CHARSET",
    "MAX_ACTION",
    "MAX_OBSERVATION",
    "action_space",
    "info_of",
    "observation_space",
    "seen",
]
