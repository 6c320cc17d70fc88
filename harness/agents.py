"""Your own agent in a seat: a Python callable, sync or async, named by import path.

The callable gets an :class:`AgentInput` (the seat's observation, structured and as
the text a model would read) and returns the reply text, or a decision (a dict, a
pydantic model, or the game's own decision object). It is judged like a model's
reply: a reply that does not parse gets one retry with a hint, then the role's
baseline answers (``fallback_parse``); a call that raises falls back as
``fallback_error``, one that outlasts its timeout as ``fallback_timeout``. Its
decisions are tagged ``python`` (``python_retry`` after the hint), and its seat's
agent is of kind ``python`` in the record. Its turns are played by the one turn loop
every seat that answers in text plays (:func:`harness.turn.play_turn`).

A sync callable runs in a thread of its own, so a slow one never holds the event
loop; an async one is awaited on the loop (so it must not block).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import importlib
import inspect
import json
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness import defaults
from harness.errors import ConfigError
from harness.llm.prompts import PromptSet
from harness.llm.secrets import redact
from harness.protocol import GameEntry, ParseFailure
from harness.records import AGENT_SOURCES, AgentInfo
from harness.seats import SeatReply, SeatRequest
from harness.text import truncate_runes
from harness.turn import Asked, Retry, play_turn

#: An agent's error message is kept to this many runes in the record.
ERROR_RUNES = 2000


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
        raise ConfigError(f"{target}: importing {module_name} failed: {_describe(exc)}") from None
    except Exception as exc:  # the module is the user's code: whatever it raises is reported
        raise ConfigError(f"{target}: importing {module_name} failed: {_describe(exc)}") from None
    for name in attribute.split("."):
        try:
            found = getattr(found, name)
        except AttributeError:
            raise ConfigError(f"{target}: {module_name} has no {attribute!r}") from None
        except Exception as exc:  # a module's own __getattr__ may raise anything
            raise ConfigError(
                f"{target}: looking up {attribute} failed: {_describe(exc)}"
            ) from None
    if not callable(found):
        raise ConfigError(f"{target}: {attribute} is a {type(found).__name__}, not a callable")
    agent: Agent = found
    return agent


def agent_name(agent: Agent) -> str:
    """``module:qualname`` of a callable (its class's, for a callable object)."""
    named = agent if hasattr(agent, "__qualname__") else type(agent)
    return f"{getattr(named, '__module__', '?')}:{getattr(named, '__qualname__', '?')}"


class PythonSeat:
    """A seat played by a Python callable (see the module's docstring)."""

    def __init__(
        self,
        agent: Agent,
        *,
        game: GameEntry,
        prompts: PromptSet,
        name: str | None = None,
        timeout_seconds: float = defaults.AGENT_TIMEOUT_SECONDS,
    ) -> None:
        self._call_agent = agent
        self._game = game
        self._prompts = prompts
        self._timeout = timeout_seconds
        self._is_async = _is_async(agent)
        self._agent = AgentInfo(
            kind="python",
            name=name or agent_name(agent),
            details={"timeoutSeconds": f"{timeout_seconds:g}", **prompts.hashes()},
            prompt_texts=prompts.texts(),
        )

    @property
    def agent(self) -> AgentInfo:
        return self._agent

    async def decide(self, request: SeatRequest) -> SeatReply:
        loop = asyncio.get_running_loop()
        budget = request.deadline if request.deadline is not None else float("inf")
        game, io, observation = self._game, request.io, request.observation
        first = AgentInput(
            game=game.name,
            seat=request.seat.seat,
            role=request.seat.role,
            tick=request.tick,
            observation=observation,
            text=self._prompts.observation.fill(observation=io.render_observation(observation)),
            system=self._prompts.system.text,
            episode_id=request.episode_id,
        )

        async def ask(retry: Retry | None) -> Asked:
            given = first
            if retry is not None:
                problem = retry.problem.message
                given = replace(
                    first,
                    retry_of=retry.reply,
                    problem=problem,
                    hint=self._prompts.retry_hint.fill(problem=problem),
                )
            result, failure = await self._call(given, min(loop.time() + self._timeout, budget))
            if failure is not None:
                kind, message = failure
                return Asked(failure=kind, error=message)
            text = reply_text(game, result)
            if isinstance(text, ParseFailure):
                return Asked(text=_shown(result), unusable=text)
            return Asked(text=text)

        return await play_turn(request, ask, AGENT_SOURCES)

    async def _call(self, given: AgentInput, deadline: float) -> tuple[Any, tuple[str, str] | None]:
        """The agent's answer, or (``timeout`` | ``error``, a message) when there is none."""
        window = asyncio.timeout_at(deadline)
        try:
            async with window:
                if self._is_async:
                    result = await self._call_agent(given)
                else:
                    result = await _in_thread(self._call_agent, given)
                    if inspect.isawaitable(result):  # e.g. a partial of an async function
                        result = await result
        except TimeoutError as exc:
            if window.expired():
                return None, ("timeout", f"no answer within {self._timeout:g} s")
            return None, ("error", _describe(exc))
        except Exception as exc:  # the agent is the user's code: any error is a fallback
            return None, ("error", _describe(exc))
        return result, None


def reply_text(game: GameEntry, result: Any) -> str | ParseFailure:
    """An agent's answer as reply text: text as is, a decision as its JSON.

    A decision (a mapping, a pydantic model or the game's own decision object) is
    written as a JSON object with its null fields left out, then parsed like any
    reply, so it is held to exactly the rules a model's reply is.
    """
    if isinstance(result, str):
        return result
    try:
        if isinstance(result, BaseModel):
            data = result.model_dump(mode="json", by_alias=True)
        elif isinstance(result, Mapping):
            data = dict(result)
        else:
            data = game.codec.decision_model(result).model_dump(mode="json", by_alias=True)
        if isinstance(data, dict):
            data = {key: value for key, value in data.items() if value is not None}
        return json.dumps(data, ensure_ascii=False, allow_nan=False)
    except Exception:  # whatever the object does, it is not a reply: say so in the hint
        return ParseFailure(
            "not_a_reply",
            f"the agent returned {_shown(result)}: return the reply text, or a decision "
            "(a dict, a pydantic model or the game's decision object)",
        )


def _shown(result: Any) -> str:
    return f"a {type(result).__name__} object"


def _describe(exc: BaseException) -> str:
    """``Type: message``, every key hidden, cut short."""
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return truncate_runes(redact(text), ERROR_RUNES)


def _is_async(agent: Agent) -> bool:
    call = getattr(agent, "__call__", None)  # noqa: B004 - a callable object's own method
    return inspect.iscoroutinefunction(agent) or inspect.iscoroutinefunction(call)


async def _in_thread(agent: Agent, given: AgentInput) -> Any:
    """``agent(given)`` in a daemon thread of its own.

    Unlike the default executor's workers, a daemon thread never keeps the process
    alive: an agent that hangs past its timeout is abandoned, and the harness still
    exits when it is done.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():  # the call timed out and was given up
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def work() -> None:
        value, error = None, None
        try:
            value = context.run(agent, given)
        except BaseException as exc:  # handed to the awaiting task, which decides
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=work, name=f"agent-{given.seat}", daemon=True).start()
    return await future


__all__ = [
    "ERROR_RUNES",
    "Agent",
    "AgentInput",
    "PythonSeat",
    "agent_name",
    "load_agent",
    "reply_text",
]
