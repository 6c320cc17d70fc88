"""One call of a Python agent, wherever it runs: the input, the call, and its answer.

The harness calls an agent either in a worker process of its own
(:mod:`harness.agents.pool`, which runs :mod:`harness.agents.worker` there) or in
this process (:mod:`harness.agents.inprocess`). Both call it through this module, so
an agent means the same wherever it runs: whatever it raises, ``SystemExit`` and
``KeyboardInterrupt`` included, is its own error, and whatever it returns becomes
reply text here, next to the call (:func:`reply_text`), so converting a strange
object can never stall the harness. The module is kept light: a worker process
imports it before the agent.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.errors import ConfigError
from harness.llm.secrets import redact
from harness.models import StrictModel

#: An agent's error message is kept to this many runes in the record.
ERROR_RUNES = 2000
#: An error message is cut to this many runes where it is made, before keys are hidden
#: and it is cut to :data:`ERROR_RUNES`: enough that every key begun in the kept part
#: ends inside the text hidden from.
SENT_ERROR_RUNES = ERROR_RUNES + 4096


@dataclass(frozen=True)
class AgentInput:
    """What a Python agent is given each time its seat is asked for a decision.

    ``observation`` is the game's typed observation (what the seat may know);
    ``text`` is the message a model would get for it (the observation prompt filled
    in, reply shape included) and ``system`` the role's system prompt. On the retry
    after a reply that could not be used, ``retry_of`` is that reply, ``problem`` the
    parser's message and ``hint`` the retry message a model would get.
    """

    game: str
    seat: str
    role: str
    tick: int
    observation: Any = field(repr=False)
    text: str = field(repr=False)
    system: str = field(repr=False)
    episode_id: str = ""
    retry_of: str | None = field(default=None, repr=False)
    problem: str | None = None
    hint: str | None = field(default=None, repr=False)

    @property
    def messages(self) -> list[dict[str, str]]:
        """The chat messages a model would get, for an agent that wraps a model of its own."""
        messages = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.text},
        ]
        if self.retry_of is not None and self.hint is not None:
            messages += [
                {"role": "assistant", "content": self.retry_of},
                {"role": "user", "content": self.hint},
            ]
        return messages


#: An agent: a callable of an :class:`AgentInput`, returning (or awaiting to) the reply
#: text or a decision.
Agent = Callable[[AgentInput], Any]
#: The game's decision model of one of its decision objects (``codec.decision_model``).
DecisionModel = Callable[[Any], BaseModel]


class AgentAnswer(StrictModel):
    """What one call of an agent came to, as a worker process sends it back.

    Exactly one of: ``text``, the reply text; ``shown`` with ``problem``, an object
    that is no reply (what it was, and what to return instead); ``error``, what the
    call raised (``Type: message``, keys not yet hidden).
    """

    text: str | None = None
    shown: str | None = None
    problem: str | None = None
    error: str | None = None


def load_agent(target: str, search: tuple[Path, ...] = ()) -> Agent:
    """The callable ``MODULE:CALLABLE`` names; :class:`ConfigError` when there is none.

    The folders in ``search`` are added to the import path (at its end, so they never
    shadow an installed package) before the module is imported.
    """
    module_name, _, attribute = target.partition(":")
    for folder in search:
        if str(folder) not in sys.path:
            sys.path.append(str(folder))
    try:
        found: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module_name + ".").startswith(exc.name + "."):
            where = ", ".join(str(f) for f in search) or "the import path"
            raise ConfigError(f"{target}: no module {exc.name!r} (looked in {where})") from None
        raise ConfigError(f"{target}: importing {module_name} failed: {_why(exc)}") from None
    # the module is the user's code: whatever it raises is reported (a KeyboardInterrupt
    # here is the user's Ctrl-C during a slow import, and goes on)
    except (Exception, SystemExit) as exc:
        raise ConfigError(f"{target}: importing {module_name} failed: {_why(exc)}") from None
    for name in attribute.split("."):
        try:
            found = getattr(found, name)
        except AttributeError:
            raise ConfigError(f"{target}: {module_name} has no {attribute!r}") from None
        except (Exception, SystemExit) as exc:  # a module's own __getattr__ may raise anything
            raise ConfigError(f"{target}: looking up {attribute} failed: {_why(exc)}") from None
    if not callable(found):
        raise ConfigError(f"{target}: {attribute} is a {type(found).__name__}, not a callable")
    agent: Agent = found
    return agent


def agent_name(agent: Agent) -> str:
    """``module:qualname`` of a callable (its class's, for a callable object)."""
    named = agent if hasattr(agent, "__qualname__") else type(agent)
    return f"{getattr(named, '__module__', '?')}:{getattr(named, '__qualname__', '?')}"


def is_async(agent: Agent) -> bool:
    """Whether calling ``agent`` makes a coroutine (an ``async def``, or an object's)."""
    call = getattr(agent, "__call__", None)  # noqa: B004 - a callable object's own method
    return inspect.iscoroutinefunction(agent) or inspect.iscoroutinefunction(call)


def call_sync(
    agent: Agent,
    given: AgentInput,
    decision_model: DecisionModel,
    run_awaitable: Callable[[Awaitable[Any]], Any],
) -> AgentAnswer:
    """``agent(given)`` called here and now, its result (awaited by ``run_awaitable``
    if it is awaitable, e.g. a partial of an async function) as an answer."""
    try:
        result = agent(given)
        if inspect.isawaitable(result):
            result = run_awaitable(result)
    except BaseException as exc:  # the agent's error, SystemExit and KeyboardInterrupt too
        return AgentAnswer(error=describe(exc))
    return answer_of(result, decision_model)


async def call_async(agent: Agent, given: AgentInput, decision_model: DecisionModel) -> AgentAnswer:
    """``await agent(given)`` as an answer; a cancellation is the caller's, and goes on."""
    try:
        result = await agent(given)
    except asyncio.CancelledError:
        raise
    except BaseException as exc:  # the agent's error, SystemExit and KeyboardInterrupt too
        return AgentAnswer(error=describe(exc))
    return answer_of(result, decision_model)


def answer_of(result: Any, decision_model: DecisionModel) -> AgentAnswer:
    """What an agent returned, as an answer: reply text, or an object that is none."""
    text = reply_text(result, decision_model)
    if text is None:
        return AgentAnswer(
            shown=shown(result),
            problem=f"the agent returned {shown(result)}: return the reply text, or a "
            "decision (a dict, a pydantic model or the game's decision object)",
        )
    return AgentAnswer(text=text)


def reply_text(result: Any, decision_model: DecisionModel) -> str | None:
    """An agent's answer as reply text: text as is, a decision as its JSON; None for
    anything else.

    A decision (a mapping, a pydantic model or the game's own decision object, which
    ``decision_model`` turns into its model) is written as a JSON object with its
    null fields left out, then parsed like any reply, so it is held to exactly the
    rules a model's reply is.
    """
    if isinstance(result, str):
        return result
    try:
        if isinstance(result, BaseModel):
            data = result.model_dump(mode="json", by_alias=True)
        elif isinstance(result, Mapping):
            data = dict(result)
        else:
            data = decision_model(result).model_dump(mode="json", by_alias=True)
        if isinstance(data, dict):
            data = {key: value for key, value in data.items() if value is not None}
        return json.dumps(data, ensure_ascii=False, allow_nan=False)
    except BaseException:  # whatever the object does, it is not a reply: the hint says so
        return None


def shown(result: Any) -> str:
    """What the record and the hint show of an object that is no reply."""
    return f"a {type(result).__name__} object"


def describe(exc: BaseException) -> str:
    """``Type: message``, cut to :data:`SENT_ERROR_RUNES` (keys are hidden later)."""
    try:
        message = str(exc)
    except BaseException:  # an exception whose __str__ raises is still the agent's error
        message = ""
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return text[:SENT_ERROR_RUNES]


def shown_error(text: str) -> str:
    """An error message as the record and the screen show it: keys hidden, cut short."""
    return redact(text)[:ERROR_RUNES]


def _why(exc: BaseException) -> str:
    return shown_error(describe(exc))


__all__ = [
    "ERROR_RUNES",
    "SENT_ERROR_RUNES",
    "Agent",
    "AgentAnswer",
    "AgentInput",
    "DecisionModel",
    "agent_name",
    "answer_of",
    "call_async",
    "call_sync",
    "describe",
    "is_async",
    "load_agent",
    "reply_text",
    "shown",
    "shown_error",
]
