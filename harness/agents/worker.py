"""A Python agent's worker process: it calls one agent, one call at a time.

The harness starts workers (:mod:`harness.agents.pool`) in one of two ways. On
Linux, a fork server per agent (:mod:`harness.agents.fork_server`, started as
``python -c FORK_SERVER FD PARENT PATH GAME``) loads the harness and the game's types
once and forks a worker for each request, in a few milliseconds; elsewhere each
worker is a fresh interpreter (``python -c BOOT FD PARENT PATH``). ``FD`` is the
process's end of a socket pair to the harness, ``PARENT`` the harness's process id
and ``PATH`` the harness's import path (JSON), so the agent imports there as it
would in the harness. What crosses the socket is in :mod:`harness.agents.frames`.

Workers ignore Ctrl-C (the harness alone decides when a run stops) and, on Linux,
die with their parent (``PR_SET_PDEATHSIG``), so a worker stuck in C code cannot
outlive a harness killed by a signal. A worker ends when its socket closes. A sync
agent is called on the worker's main thread; an async one on the worker's own event
loop, kept from call to call.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
import socket
import sys
from collections.abc import Awaitable
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.agents.call import (
    Agent,
    AgentAnswer,
    AgentInput,
    call_async,
    call_sync,
    describe,
    is_async,
    load_agent,
)
from harness.agents.frames import Hello, WorkerReady, read_frame, write_frame
from harness.errors import ConfigError

_PR_SET_PDEATHSIG = 1


def main(fd: int, parent: int) -> None:
    """Serve the harness on socket ``fd`` until it closes (a worker started alone)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    end_with(parent)
    sys.argv[:] = sys.argv[:1]
    with socket.socket(fileno=fd) as sock:
        serve(sock)


def serve(sock: socket.socket) -> None:
    """Load the agent the harness names, then answer each call, until the socket closes."""
    frame = read_frame(sock)
    if frame is None:
        return
    hello: Hello = pickle.loads(frame)
    try:
        agent = load_agent(hello.target, tuple(Path(p) for p in hello.search))
        pickle.loads(hello.sample)
    except ConfigError as exc:
        write_frame(sock, WorkerReady(error=str(exc)))
        return
    except BaseException as exc:  # the agent's module, or the game's types, failed
        write_frame(sock, WorkerReady(error=describe(exc)))
        return
    write_frame(sock, WorkerReady())
    calls = _Calls(agent)
    try:
        while (frame := read_frame(sock)) is not None:
            write_frame(sock, calls.answer(frame))
    except OSError:  # the harness closed its end mid-answer: nobody is waiting
        return


class _Calls:
    """The agent, called once per input frame."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.is_async = is_async(agent)
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The worker's own event loop, made at the first async call and kept."""
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
        return self._loop

    def answer(self, frame: bytes) -> AgentAnswer:
        """The agent's answer to the input in ``frame``."""
        try:
            given: AgentInput = pickle.loads(frame)
        except BaseException as exc:  # an input this worker cannot read is a failed call
            return AgentAnswer(error=f"the worker could not read its input: {describe(exc)}")

        def decision_model(result: Any) -> BaseModel:
            model: BaseModel = game_named(given.game).codec.decision_model(result)
            return model

        try:
            if self.is_async:
                return self.loop.run_until_complete(call_async(self.agent, given, decision_model))
            return call_sync(self.agent, given, decision_model, self._await)
        except BaseException as exc:  # e.g. SystemExit from a task the agent started
            return AgentAnswer(error=describe(exc))

    def _await(self, awaitable: Awaitable[Any]) -> Any:
        async def wait() -> Any:
            return await awaitable

        return self.loop.run_until_complete(wait())


@cache
def game_named(name: str) -> Any:
    """The game ``name``, loaded once (only for a game's own decision object)."""
    from harness.registry import get_game

    return get_game(name)


def end_with(parent: int) -> None:
    """End this process when the harness ends, even while the agent runs C code."""
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the harness ended before the line above
        os._exit(1)


__all__ = ["end_with", "game_named", "main", "serve"]
