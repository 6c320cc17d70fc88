"""Where a decision came from: the sources a record tags each seat's turn with, the
sets derived from them, and the stop reasons that say a reply was cut."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

#: Where a decision came from (decision R7). Other games may add sources of this shape.
Source = Literal[
    "baseline",
    "llm",
    "llm_retry",
    "fallback_parse",
    "fallback_length",
    "fallback_timeout",
    "fallback_api",
    "fallback_refused",
    "scripted",
    "python",
    "python_retry",
    "fallback_error",
    "human",
    "human_retry",
]
"""Where a decision came from (decision R7). ``fallback_refused``: the rules refused the
model's action twice (games with refusals, e.g. Relayroam); ``fallback_length``: the
second reply did not parse either and was cut by the length limit (its call's
``stopReason`` one of :data:`LENGTH_STOP_REASONS`), counted apart from
``fallback_parse``, whose replies were whole; ``scripted``: given
directly, as in a hand-written record replayed; ``python`` and ``python_retry``: a
Python agent's reply (after the retry hint); ``fallback_error``: the agent raised;
``human`` and ``human_retry``: a person's reply, typed on a page (decision L4; a tick
their timer ran out on is ``fallback_timeout``).

Every source named ``fallback_*`` is the role's baseline answering for a seat whose
own answer could not be used, and every ``*_retry`` the seat's answer after the
retry with a hint: the sets below are derived from this one list by those names."""

#: The stop reasons (a call's ``stopReason``) that say the reply was cut by the length
#: limit: OpenAI's ``length``, Anthropic's ``max_tokens``, Inspect's ``model_length``
#: (the context window) as well as its ``max_tokens``.
LENGTH_STOP_REASONS: frozenset[str] = frozenset({"length", "max_tokens", "model_length"})

#: Every source, in the order of :data:`Source`.
SOURCES: tuple[Source, ...] = get_args(Source)
#: The sources of a turn where the role's baseline answered for the seat (R7).
FALLBACK_SOURCES: frozenset[Source] = frozenset(s for s in SOURCES if s.startswith("fallback_"))
#: The sources of a reply that needed the retry with a hint (a model's or a Python agent's).
RETRY_SOURCES: frozenset[Source] = frozenset(s for s in SOURCES if s.endswith("_retry"))
#: The sources of a decision the seat's own player made at the first ask: shown untagged.
PLAIN_SOURCES: frozenset[Source] = (
    frozenset(SOURCES) - FALLBACK_SOURCES - RETRY_SOURCES - {"scripted"}
)


@dataclass(frozen=True)
class TurnSources:
    """The sources a seat that answers in text tags its turns with (R5, R7).

    A reply used at the first ask is ``first``, after the retry with a hint ``retry``;
    an ask that got no answer in time is ``fallback_timeout``, one that failed
    otherwise ``failed``; two replies that could not be used are ``fallback_parse``
    (``fallback_refused`` when the rules refused the second).
    """

    first: Source
    retry: Source
    failed: Source


#: A model's turns: ``llm``, ``llm_retry``; a call that failed is ``fallback_api``.
MODEL_SOURCES = TurnSources("llm", "llm_retry", "fallback_api")
#: A Python agent's turns: ``python``, ``python_retry``; a call that raised is
#: ``fallback_error``.
AGENT_SOURCES = TurnSources("python", "python_retry", "fallback_error")
#: A person's turns (decision L4): ``human``, ``human_retry``; a tick their per-tick
#: timer ran out on is ``fallback_timeout`` (a person's turn has no other failure).
HUMAN_SOURCES = TurnSources("human", "human_retry", "fallback_timeout")
