"""A Python agent in worker processes of its own: the harness's side.

An agent named by import path runs, by default, in worker processes that the
harness starts (:mod:`harness.agent_worker` is their program), one call at a time
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

**Bounds.** An answer is at most :data:`~harness.agent_worker.MAX_ANSWER_BYTES`;
the harness reads no frame past it, and kills a worker that sends one.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import json
import os
import pickle
import select
import signal
import socket
import subprocess
import sys
import weakref
from pathlib import Path
from typing import Literal, Protocol, TypeVar

from pydantic import ValidationError

from harness.agent_call import AgentAnswer, AgentInput, describe
from harness.agent_worker import (
    BOOT,
    DATAGRAM_BYTES,
    FORK_SERVER,
    HEADER,
    MAX_ANSWER_BYTES,
    Hello,
    WorkerReady,
)
from harness.json_reply import StrictJsonError, strict_loads
from harness.seats import EpisodeScope, episode_scope

#: The longest a worker may take to start and load the agent; past it the call fails
#: (``fallback_error``) and the next call starts another.
STARTUP_TIMEOUT_SECONDS = 120.0
#: How long closing the pool waits for its idle workers to end on their own.
CLOSE_GRACE_SECONDS = 1.0
#: How long closing waits for killed processes to end before it gives up on them.
REAP_SECONDS = 5.0

#: How a pool starts its workers: forked by its fork server, or each a new interpreter.
Launcher = Literal["fork", "spawn"]

# A seat's lease: the episode it plays and its seat id.
_Key = tuple[EpisodeScope, str]
_Message = TypeVar("_Message", AgentAnswer, WorkerReady)


def default_launcher() -> Launcher:
    """``fork`` where the system has what a fork server needs (Linux), else ``spawn``."""
    needs = (
        hasattr(os, "fork"),
        hasattr(os, "pidfd_open"),
        hasattr(signal, "pidfd_send_signal"),
        hasattr(socket, "SOCK_SEQPACKET"),
        hasattr(socket, "recv_fds"),
    )
    return "fork" if sys.platform.startswith("linux") and all(needs) else "spawn"


class _Broken(Exception):
    """A worker broke the protocol: what it sent is not a frame of it."""


class _Process(Protocol):
    """A worker's process, as the harness may signal and wait for it."""

    def exited(self) -> bool:
        """Whether it has ended (without waiting)."""
        ...

    def kill(self) -> None:
        """``SIGKILL`` it, if it still runs."""
        ...

    async def status(self) -> int | None:
        """Its exit status (negative: the signal that ended it), None while it runs."""
        ...

    def forget(self) -> None:
        """It ended: let go of what held it."""
        ...


class _Spawned:
    """A worker started as a new interpreter, our own child."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    def exited(self) -> bool:
        return self.process.poll() is not None

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        self.process.poll()

    async def status(self) -> int | None:
        return self.process.poll()

    def forget(self) -> None:
        self.process.poll()


class _Forked:
    """A worker forked by a fork server (its child, not ours), held by a pidfd."""

    def __init__(self, pid: int, pidfd: int, server: _ForkServer) -> None:
        self.pid = pid
        self.pidfd = pidfd
        self.server = server

    def exited(self) -> bool:
        if self.pidfd < 0:
            return True
        poller = select.poll()  # not select.select: a descriptor may be past FD_SETSIZE
        poller.register(self.pidfd, select.POLLIN)
        return bool(poller.poll(0))

    def kill(self) -> None:
        if self.pidfd >= 0:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)

    async def status(self) -> int | None:
        return await self.server.status(self.pid) if self.exited() else None

    def forget(self) -> None:
        if self.pidfd >= 0:
            os.close(self.pidfd)
            self.pidfd = -1


class _Worker:
    """One worker process, and the harness's end of its socket."""

    def __init__(self, process: _Process, sock: socket.socket) -> None:
        self.process = process
        self.sock = sock

    def alive(self) -> bool:
        return self.sock.fileno() >= 0 and not self.process.exited()

    async def send(self, payload: bytes) -> None:
        loop = asyncio.get_running_loop()
        await loop.sock_sendall(self.sock, HEADER.pack(len(payload)) + payload)

    async def receive(self) -> bytes | None:
        """The worker's next frame; None when it closed its end (it ended)."""
        header = await self._exactly(HEADER.size)
        if header is None:
            return None
        (size,) = HEADER.unpack(header)
        if size > MAX_ANSWER_BYTES:
            raise _Broken(f"a frame of {size:,} bytes, over the {MAX_ANSWER_BYTES:,} allowed")
        return await self._exactly(size)

    async def _exactly(self, size: int) -> bytes | None:
        loop = asyncio.get_running_loop()
        data = bytearray(size)
        view, got = memoryview(data), 0
        while got < size:
            n = await loop.sock_recv_into(self.sock, view[got:])
            if n == 0:
                return None
            got += n
        return bytes(data)

    def close(self) -> None:
        """Close the socket: an idle worker then ends on its own."""
        self.sock.close()

    def kill(self) -> None:
        self.sock.close()
        self.process.kill()

    async def ended(self) -> str:
        """How the process ended, in words (it is given a moment to end)."""
        await _wait_for_exit([self], asyncio.get_running_loop().time() + 1.0)
        code = await self.process.status()
        if code is None:
            return "it closed its socket"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit status {code}"


def _spawn(program: str, fd: int, *args: str) -> subprocess.Popen[bytes]:
    """A new interpreter running ``program`` with socket ``fd`` (raises OSError)."""
    path = json.dumps([str(entry) for entry in sys.path])
    argv = [sys.executable, "-c", program, str(fd), str(os.getpid()), path, *args]
    return subprocess.Popen(argv, pass_fds=(fd,), stdin=subprocess.DEVNULL)


def _spawn_worker() -> _Worker:
    ours, theirs = socket.socketpair()
    try:
        process = _spawn(BOOT, theirs.fileno())
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    ours.setblocking(False)
    return _Worker(_Spawned(process), ours)


class _ForkServer:
    """A pool's fork server (Linux): a process with the harness and the game loaded,
    that forks a worker per request (see :func:`harness.agent_worker.serve_forks`)."""

    def __init__(self, game: str) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = _spawn(FORK_SERVER, theirs.fileno(), game)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.setblocking(False)
        self.control = ours
        self._lock: asyncio.Lock | None = None

    def alive(self) -> bool:
        return self.control.fileno() >= 0 and self.process.poll() is None

    async def fork(self) -> _Worker:
        """A new worker (raises OSError when the server cannot make one)."""
        ours, theirs = socket.socketpair()
        try:
            reply = await self._ask({"op": "fork"}, theirs.fileno())
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        pid = reply.get("pid")
        if not isinstance(pid, int):
            ours.close()
            raise OSError("the fork server did not fork")
        try:
            pidfd = os.pidfd_open(pid)  # before it is reaped: it is this very process
        except OSError:  # it ended already (and may be reaped): nothing to hold
            pidfd = -1
        ours.setblocking(False)
        return _Worker(_Forked(pid, pidfd, self), ours)

    async def status(self, pid: int) -> int | None:
        """The exit status of worker ``pid``, None while it runs (or when unknown)."""
        try:
            reply = await self._ask({"op": "status", "pid": pid})
        except OSError:
            return None
        status = reply.get("status")
        return status if isinstance(status, int) else None

    async def _ask(self, request: dict[str, object], fd: int | None = None) -> dict[str, object]:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:  # one request at a time: each answer is the last request's
            loop = asyncio.get_running_loop()
            data = json.dumps(request).encode()
            rights = (
                []
                if fd is None
                else [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))]
            )
            await _send_datagram(loop, self.control, data, rights)
            reply = await loop.sock_recv(self.control, DATAGRAM_BYTES)
        if not reply:
            raise OSError("the fork server ended")
        try:
            answer = strict_loads(reply.decode("utf-8"), max_depth=2)
        except (UnicodeDecodeError, StrictJsonError):
            raise OSError("the fork server sent something that is no answer") from None
        if not isinstance(answer, dict):
            raise OSError("the fork server sent something that is no answer")
        return answer

    def close(self) -> None:
        """Close the socket: the server kills what workers are left, and ends."""
        self.control.close()


async def _send_datagram(
    loop: asyncio.AbstractEventLoop,
    sock: socket.socket,
    data: bytes,
    ancillary: list[tuple[int, int, array.array[int]]],
) -> None:
    """One datagram, with its file descriptors, on a non-blocking socket."""
    while True:
        try:
            sock.sendmsg([data], ancillary)
            return
        except BlockingIOError:  # the server is behind: wait until it reads
            writable = loop.create_future()
            loop.add_writer(sock, writable.set_result, None)
            try:
                await writable
            finally:
                loop.remove_writer(sock)


class WorkerPool:
    """The worker processes that play one agent, named by import path (see the module).

    ``target`` is ``MODULE:CALLABLE``; ``search`` folders are added to the end of a
    worker's import path, as for :func:`~harness.agent_call.load_agent`; ``game``
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
        self._workers: set[_Worker] = set()
        self._idle: list[_Worker] = []
        self._leased: dict[_Key, _Worker] = {}
        self._watched: set[_Key] = set()
        self._servers: list[_ForkServer] = []
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
            if not isinstance(started, _Worker):
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
        except (OSError, _Broken) as exc:
            self._kill(worker)
            return AgentAnswer(error=f"the agent's worker process failed: {exc}")
        except BaseException:  # cancelled (the play budget, Ctrl-C): its call is abandoned
            self._kill(worker)
            raise
        if frame is None:
            how = await worker.ended()
            self._kill(worker)
            return AgentAnswer(error=f"the agent's worker process ended during the call ({how})")
        answer = _read(AgentAnswer, frame)
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
        await _wait_for_exit(self._workers, loop.time() + CLOSE_GRACE_SECONDS)
        for worker in self._workers:
            if not worker.process.exited():
                self._kill(worker)
        await _wait_for_exit(self._workers, loop.time() + REAP_SECONDS)
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

    def _take(self, key: _Key | None) -> _Worker | None:
        """The seat's own worker in this episode, else an idle one, else None."""
        worker = self._leased.pop(key, None) if key is not None else None
        if worker is not None and worker.alive():
            return worker
        while self._idle:
            worker = self._idle.pop()  # the last one used: the warmest
            if worker.alive():
                return worker
        return None

    def _put(self, key: _Key | None, worker: _Worker) -> None:
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

    async def _new_worker(self) -> _Worker:
        """A new worker process, forked or spawned (raises OSError)."""
        if self.launcher == "spawn":
            return _spawn_worker()
        servers = self._servers
        if not servers or not servers[-1].alive():
            servers.append(_ForkServer(self.game))
        try:
            return await servers[-1].fork()
        except OSError:  # the server died: the next start makes another
            servers[-1].close()
            raise

    async def _start(self, sample: bytes, budget: float) -> _Worker | AgentAnswer | None:
        """A new worker with the agent loaded; else the failed call's answer (None: the
        play budget ran out meanwhile)."""
        loop = asyncio.get_running_loop()
        hello = Hello(self.target, tuple(str(folder) for folder in self.search), sample)
        worker: _Worker | None = None
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
        except (OSError, _Broken) as exc:
            if worker is not None:
                self._kill(worker)
            return AgentAnswer(error=f"no worker process could be started: {exc}")
        except BaseException:
            if worker is not None:
                self._kill(worker)
            raise
        ready = _read(WorkerReady, frame) if frame is not None else None
        if ready is None or ready.error is not None:
            why = ready.error if ready is not None else f"it ended ({await worker.ended()})"
            self._kill(worker)
            # the same module and path would fail the same way: no more tries
            self._broken = f"the agent's worker process could not load it: {why}"
            return AgentAnswer(error=self._broken)
        return worker

    def _kill(self, worker: _Worker) -> None:
        if not worker.process.exited():
            self.killed += 1
        worker.kill()

    def _reap(self) -> None:
        """Forget the workers that ended (a spawned one is waited for: no zombie is left)."""
        for worker in [w for w in self._workers if w.process.exited()]:
            worker.sock.close()
            worker.process.forget()
            self._workers.discard(worker)


async def _wait_for_exit(workers: set[_Worker] | list[_Worker], deadline: float) -> None:
    loop = asyncio.get_running_loop()
    pause = 0.001
    while any(not w.process.exited() for w in workers) and loop.time() < deadline:
        await asyncio.sleep(pause)
        pause = min(pause * 2, 0.05)


def _kill_all(workers: set[_Worker], servers: list[_ForkServer]) -> None:
    """Kill what is left of a pool nobody closed (its finalizer)."""
    for worker in list(workers):
        worker.kill()
    for server in servers:
        server.close()
        with contextlib.suppress(ProcessLookupError):
            server.process.kill()


def _read(model: type[_Message], frame: bytes) -> _Message | None:
    """A worker's message as ``model``; None when it is not one."""
    try:
        data = strict_loads(frame.decode("utf-8", "surrogatepass"), max_depth=2)
        return model.model_validate(data)
    except (UnicodeDecodeError, StrictJsonError, ValidationError):
        return None


__all__ = [
    "CLOSE_GRACE_SECONDS",
    "REAP_SECONDS",
    "STARTUP_TIMEOUT_SECONDS",
    "Launcher",
    "WorkerPool",
    "default_launcher",
]
