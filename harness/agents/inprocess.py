"""A Python agent in the harness's own process: ``isolation = "none"``.

A callable given directly to the Python API (a lambda, a closure, a bound method)
cannot be sent to another process as the same object, so it runs here; an agent
named by import path runs here only when its seat asks for it. Here the event loop
never runs the agent's code: a sync agent is called in a thread of its own per call,
an async one on an event loop of its own, in one thread per seat. So a slow agent,
or one that ignores cancellation, never holds up the other seats, the episode's
deadlines or Ctrl-C; and whatever it raises (``SystemExit`` and
``KeyboardInterrupt`` too) is its own failed call.

What this cannot do is stop a call. One that outlasts its timeout is abandoned:
its thread (a daemon thread, which never keeps the process from exiting) or its
task runs on, and its answer, if it ever comes, is dropped. A call that holds the
GIL in C stops every thread of the process, the harness's included, until it
returns; only a worker process (``isolation = "process"``) bounds that. So that
abandoned calls cannot pile up, once :data:`ABANDONED_CALLS` calls of one agent are
still running past their timeout, its next calls fail at once (``fallback_error``)
until one of them ends.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from harness.agents.call import (
    Agent,
    AgentAnswer,
    AgentInput,
    DecisionModel,
    call_async,
    call_sync,
    is_async,
)

#: Calls of one agent that may run on past their timeout at once; past this many, the
#: agent is not called until one ends.
ABANDONED_CALLS = 4
#: How long closing waits for the agent's event loop to wind down.
CLOSE_GRACE_SECONDS = 1.0


class InProcessAgent:
    """One agent called in this process (see the module's docstring)."""

    def __init__(self, agent: Agent, decision_model: DecisionModel) -> None:
        self.agent = agent
        self.is_async = is_async(agent)
        self._decision_model = decision_model
        self._lock = threading.Lock()
        self._abandoned = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def abandoned(self) -> int:
        """Calls that outlasted their timeout and are still running."""
        with self._lock:
            return self._abandoned

    async def call(self, given: AgentInput, timeout_s: float, budget: float) -> AgentAnswer | None:
        """The agent's answer to ``given``, or None when none came within ``timeout_s``
        seconds (and by ``budget``, a ``loop.time()``)."""
        running = self.abandoned
        if running >= ABANDONED_CALLS:
            return AgentAnswer(
                error=f"not called: {running} earlier calls are still running past their "
                "timeout (a call in the harness's process cannot be stopped; with "
                'isolation = "process" it runs in a worker process, killed on a timeout)'
            )
        loop = asyncio.get_running_loop()
        started, cancel = self._start(given)
        try:
            async with asyncio.timeout_at(min(loop.time() + timeout_s, budget)):
                return await asyncio.wrap_future(started)
        except TimeoutError:
            self._abandon(started, cancel)
            return None
        except BaseException:  # cancelled (the play budget, Ctrl-C): the call is abandoned
            self._abandon(started, cancel)
            raise

    async def aclose(self) -> None:
        """Wind down the agent's event loop, if it has one: its tasks are cancelled,
        then it stops. A loop the agent blocks is left to its daemon thread."""
        loop, thread = self._loop, self._thread
        self._loop = self._thread = None
        if loop is None or thread is None:
            return
        try:
            stopping = asyncio.run_coroutine_threadsafe(_wind_down(), loop)
        except RuntimeError:  # already closed
            return
        with contextlib.suppress(TimeoutError, concurrent.futures.CancelledError):
            await asyncio.wait_for(asyncio.wrap_future(stopping), CLOSE_GRACE_SECONDS + 1)
        for _ in range(100):
            if not thread.is_alive():
                loop.close()
                return
            await asyncio.sleep(0.01)

    def _start(
        self, given: AgentInput
    ) -> tuple[concurrent.futures.Future[AgentAnswer], Callable[[], None]]:
        """Start the call: its answer to come, and how to ask it to stop."""
        future: concurrent.futures.Future[AgentAnswer] = concurrent.futures.Future()
        future.set_running_or_notify_cancel()  # running: a cancelled wait leaves it be
        if self.is_async:
            return future, self._start_async(given, future)
        context = contextvars.copy_context()

        def work() -> None:
            answer = context.run(call_sync, self.agent, given, self._decision_model, _run)
            future.set_result(answer)

        threading.Thread(target=work, name=f"agent-{given.seat}", daemon=True).start()
        return future, _nothing

    def _start_async(
        self, given: AgentInput, future: concurrent.futures.Future[AgentAnswer]
    ) -> Callable[[], None]:
        loop = self._agent_loop()
        tasks: list[asyncio.Task[AgentAnswer]] = []

        def settle(task: asyncio.Task[AgentAnswer]) -> None:
            # Cancelled by the harness, nobody waits any more; by itself, it failed.
            if task.cancelled():
                future.set_result(AgentAnswer(error="CancelledError: the call was cancelled"))
            else:
                future.set_result(task.result())  # call_async lets nothing else through

        def start() -> None:
            task = loop.create_task(call_async(self.agent, given, self._decision_model))
            task.add_done_callback(settle)
            tasks.append(task)

        def cancel() -> None:
            for task in tasks:
                task.cancel()

        loop.call_soon_threadsafe(start)
        return lambda: _soon(loop, cancel)

    def _agent_loop(self) -> asyncio.AbstractEventLoop:
        """The agent's event loop, in its thread; made at the first async call."""
        if self._loop is None or self._thread is None or not self._thread.is_alive():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=_serve, args=(loop,), name="agent-loop", daemon=True)
            thread.start()
            self._loop, self._thread = loop, thread
        return self._loop

    def _abandon(
        self, future: concurrent.futures.Future[AgentAnswer], cancel: Callable[[], None]
    ) -> None:
        cancel()
        with self._lock:
            if future.done():
                return
            self._abandoned += 1
        future.add_done_callback(self._ended)

    def _ended(self, future: concurrent.futures.Future[AgentAnswer]) -> None:
        with self._lock:
            self._abandoned -= 1


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    """Run the agent's loop until it is stopped; a task of the agent's that raises
    SystemExit or KeyboardInterrupt out of the loop does not end it."""
    asyncio.set_event_loop(loop)
    while True:
        try:
            loop.run_forever()
            return
        except BaseException:
            continue


async def _wind_down() -> None:
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=CLOSE_GRACE_SECONDS)
    asyncio.get_running_loop().stop()


def _run(awaitable: Awaitable[Any]) -> Any:
    """What a sync agent's awaitable result comes to, on an event loop of the call's own."""

    async def wait() -> Any:
        return await awaitable

    return asyncio.run(wait())


def _soon(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    with contextlib.suppress(RuntimeError):  # the loop is closed: nothing runs there
        loop.call_soon_threadsafe(callback)


def _nothing() -> None:
    """A thread cannot be asked to stop."""


__all__ = ["ABANDONED_CALLS", "CLOSE_GRACE_SECONDS", "InProcessAgent"]
