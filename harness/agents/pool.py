"""A Python agent in worker processes of its own: the harness's side.

An agent named by import path runs, by default, in worker processes that the
harness starts (:mod:`harness.agents.worker` is their program), one call at a time
each, so nothing the agent does can stop the run: a call that blocks in C with the
GIL held, ignores cancellation or never returns is cut off at its timeout by
killing its worker (``SIGKILL``), and ``sys.exit`` or ``KeyboardInterrupt`` in the
agent is one failed call. The harness never waits on a worker longer than the
call's timeout and the episode's play budget allow, and a Ctrl-C reaches the
harness alone (workers ignore SIGINT).

**Starting.** On Linux a pool has a fork server: one process, started at the pool's
first call, that loads the harness and the game's types once and forks each worker
(a few milliseconds; the worker then imports the agent's module). The harness
holds each forked worker by a pidfd, so a kill can never reach another process that
took a dead worker's number. Elsewhere each worker is a fresh interpreter (about
a quarter of a second of CPU). A worker's start is part of no call's timeout; it is
bounded by :data:`STARTUP_TIMEOUT_SECONDS` and the play budget.

**Leases.** Within an episode, a seat's calls all go to the same worker (while it
lives), so an agent may keep per-episode memory in its module's globals, keyed by
``episode_id``. When the episode ends its workers go back to the pool and serve
later episodes (the module is imported once per worker, not per episode). A
worker killed on a timeout, or one that died, is replaced by a fresh one at its
seat's next call: its memory is gone with it. The pool holds as many workers as
calls were ever in flight at once (at most the tournament's concurrency times the
seats the agent plays), and :meth:`WorkerPool.aclose` ends them all: their sockets
are closed, each ends on its own within :data:`CLOSE_GRACE_SECONDS`, or is killed.

**Bounds.** An answer is at most :data:`~harness.agents.frames.MAX_ANSWER_BYTES`;
the harness reads no frame past it, and kills a worker that sends one.
"""

from __future__ import annotations

import asyncio
import contextlib
import pickle
import weakref
from pathlib import Path

from harness.agents.call import AgentAnswer, AgentInput, describe
from harness.agents.forks import ForkServer
from harness.agents.frames import Hello, WorkerReady
from harness.agents.processes import (
    FrameError,
    Launcher,
    Worker,
    default_launcher,
    read_message,
    spawn_worker,
    wait_for_exit,
)
from harness.seats import EpisodeScope, episode_scope

#: The longest a worker may take to start and load the agent; past it the call fails
#: (``fallback_error``) and the next call starts another.
STARTUP_TIMEOUT_SECONDS = 120.0
#: How long closing the pool waits for its idle workers to end on their own.
CLOSE_GRACE_SECONDS = 1.0
#: How long closing waits for killed processes to end before it gives up on them.
REAP_SECONDS = 5.0

# A seat's lease: the episode it plays and its seat id.
_Key = tuple[EpisodeScope, str]


class WorkerPool:
    """The worker processes that play one agent, named by import path (see the module).

    ``target`` is ``MODULE:CALLABLE``; ``search`` folders are added to the end of a
    worker's import path, as for :func:`~harness.agents.call.load_agent`; ``game``
    names the game whose types a fork server loads before it forks; ``launcher``
    is :func:`default_launcher`'s unless given. Use it from one event loop, and close
    it with :meth:`aclose` (a pool dropped unclosed kills its processes when it is
    collected, and at the latest when the harness exits).
    """

    def __init__(
        self,
        target: str,
        search: tuple[Path, ...] = (),
        *,
        game: str = "",
        launcher: Launcher | None = None,
        startup_timeout_seconds: float = STARTUP_TIMEOUT_SECONDS,
    ) -> None:
        self.target = target
        self.search = search
        self.game = game
        self.launcher: Launcher = launcher or default_launcher()
        self.startup_timeout_s = startup_timeout_seconds
        self.started = 0
        """Workers started so far."""
        self.killed = 0
        """Workers killed on a timeout, a cancellation or a broken answer."""
        self._workers: set[Worker] = set()
        self._idle: list[Worker] = []
        self._leased: dict[_Key, Worker] = {}
        self._watched: set[_Key] = set()
        self._servers: list[ForkServer] = []
        self._broken: str | None = None
        self._closed = False
        self._finalizer = weakref.finalize(self, _kill_all, self._workers, self._servers)

    @property
    def alive(self) -> int:
        """Worker processes running now."""
        return sum(1 for worker in self._workers if not worker.process.exited())

    async def call(self, given: AgentInput, timeout_s: float, budget: float) -> AgentAnswer | None:
        """The agent's answer to ``given``, or None when none came in time.

        The call has ``timeout_s`` seconds once its worker is ready, and ends by
        ``budget`` (a ``loop.time()``) whatever happens; a worker that has not
        answered by then is killed, as is one whose call is cancelled.
        """
        self._reap()
        if self._closed:
            return AgentAnswer(error="the agent's worker processes are closed")
        if self._broken is not None:
            return AgentAnswer(error=self._broken)
        try:
            payload = pickle.dumps(given, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # a game whose observation cannot cross processes
            return AgentAnswer(error=f"the input cannot be sent to a worker: {describe(exc)}")
        scope = episode_scope()
        key = (scope, given.seat) if scope is not None else None
        worker = self._take(key)
        if worker is None:
            started = await self._start(payload, budget)
            if not isinstance(started, Worker):
                return started
            worker = started
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout_at(min(loop.time() + timeout_s, budget)):
                await worker.send(payload)
                frame = await worker.receive()
        except TimeoutError:
            self._kill(worker)
            return None
        except (OSError, FrameError) as exc:
            self._kill(worker)
            return AgentAnswer(error=f"the agent's worker process failed: {exc}")
        except BaseException:  # cancelled (the play budget, Ctrl-C): its call is abandoned
            self._kill(worker)
            raise
        if frame is None:
            how = await worker.ended()
            self._kill(worker)
            return AgentAnswer(error=f"the agent's worker process ended during the call ({how})")
        answer = read_message(AgentAnswer, frame)
        if answer is None:
            self._kill(worker)
            return AgentAnswer(error="the agent's worker process sent something that is no answer")
        self._put(key, worker)
        return answer

    async def aclose(self) -> None:
        """End every process: idle workers on their own (their sockets closed), the
        rest killed, then the fork server."""
        self._closed = True
        self._idle.clear()
        self._leased.clear()
        for worker in self._workers:
            worker.close()
        loop = asyncio.get_running_loop()
        await wait_for_exit(self._workers, loop.time() + CLOSE_GRACE_SECONDS)
        for worker in self._workers:
            if not worker.process.exited():
                self._kill(worker)
        await wait_for_exit(self._workers, loop.time() + REAP_SECONDS)
        for server in self._servers:
            server.close()  # it kills and reaps what is left of its workers
        deadline = loop.time() + REAP_SECONDS
        pause = 0.001
        while any(s.process.poll() is None for s in self._servers) and loop.time() < deadline:
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.05)
        for server in self._servers:
            if server.process.poll() is None:
                server.process.kill()
                server.process.poll()
        self._reap()
        self._finalizer.detach()

    def episode_over(self, key: _Key) -> None:
        """The lease ``key`` ended with its episode: its worker serves anyone now."""
        self._watched.discard(key)
        worker = self._leased.pop(key, None)
        if worker is not None and worker.alive() and not self._closed:
            self._idle.append(worker)

    def _take(self, key: _Key | None) -> Worker | None:
        """The seat's own worker in this episode, else an idle one, else None."""
        worker = self._leased.pop(key, None) if key is not None else None
        if worker is not None and worker.alive():
            return worker
        while self._idle:
            worker = self._idle.pop()  # the last one used: the warmest
            if worker.alive():
                return worker
        return None

    def _put(self, key: _Key | None, worker: Worker) -> None:
        """``worker`` answered: back under its lease, or idle outside an episode."""
        if self._closed:
            self._kill(worker)
        elif key is None:
            self._idle.append(worker)
        else:
            self._leased[key] = worker
            if key not in self._watched:
                self._watched.add(key)
                key[0].on_end(lambda: self.episode_over(key))

    async def _new_worker(self) -> Worker:
        """A new worker process, forked or spawned (raises OSError)."""
        if self.launcher == "spawn":
            return spawn_worker()
        servers = self._servers
        if not servers or not servers[-1].alive():
            servers.append(ForkServer(self.game))
        try:
            return await servers[-1].fork()
        except OSError:  # the server died: the next start makes another
            servers[-1].close()
            raise

    async def _start(self, sample: bytes, budget: float) -> Worker | AgentAnswer | None:
        """A new worker with the agent loaded; else the failed call's answer (None: the
        play budget ran out meanwhile)."""
        loop = asyncio.get_running_loop()
        hello = Hello(self.target, tuple(str(folder) for folder in self.search), sample)
        worker: Worker | None = None
        try:
            async with asyncio.timeout_at(min(loop.time() + self.startup_timeout_s, budget)):
                worker = await self._new_worker()
                self._workers.add(worker)
                self.started += 1
                await worker.send(pickle.dumps(hello, protocol=pickle.HIGHEST_PROTOCOL))
                frame = await worker.receive()
        except TimeoutError:
            if worker is not None:
                self._kill(worker)
            if loop.time() >= budget:
                return None
            return AgentAnswer(
                error=f"the agent's worker process did not start within "
                f"{self.startup_timeout_s:g} s"
            )
        except (OSError, FrameError) as exc:
            if worker is not None:
                self._kill(worker)
            return AgentAnswer(error=f"no worker process could be started: {exc}")
        except BaseException:
            if worker is not None:
                self._kill(worker)
            raise
        ready = read_message(WorkerReady, frame) if frame is not None else None
        if ready is None or ready.error is not None:
            why = ready.error if ready is not None else f"it ended ({await worker.ended()})"
            self._kill(worker)
            # the same module and path would fail the same way: no more tries
            self._broken = f"the agent's worker process could not load it: {why}"
            return AgentAnswer(error=self._broken)
        return worker

    def _kill(self, worker: Worker) -> None:
        if not worker.process.exited():
            self.killed += 1
        worker.kill()

    def _reap(self) -> None:
        """Forget the workers that ended (a spawned one is waited for: no zombie is left)."""
        for worker in [w for w in self._workers if w.process.exited()]:
            worker.sock.close()
            worker.process.forget()
            self._workers.discard(worker)


def _kill_all(workers: set[Worker], servers: list[ForkServer]) -> None:
    """Kill what is left of a pool nobody closed (its finalizer)."""
    for worker in list(workers):
        worker.kill()
    for server in servers:
        server.close()
        with contextlib.suppress(ProcessLookupError):
            server.process.kill()


__all__ = [
    "CLOSE_GRACE_SECONDS",
    "REAP_SECONDS",
    "STARTUP_TIMEOUT_SECONDS",
    "Launcher",
    "WorkerPool",
    "default_launcher",
]
