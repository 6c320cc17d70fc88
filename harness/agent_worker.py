"""A Python agent's worker process: it calls one agent, one call at a time.

The harness starts workers (:mod:`harness.agent_process`) in one of two ways. On
Linux, a fork server per agent (:func:`serve_forks`, started as ``python -c
FORK_SERVER FD PARENT PATH GAME``) loads the harness and the game's types once and
forks a worker for each request, in a few milliseconds; elsewhere each worker is a
fresh interpreter (``python -c BOOT FD PARENT PATH``). ``FD`` is the process's end
of a socket pair to the harness, ``PARENT`` the harness's process id and ``PATH``
the harness's import path (JSON), so the agent imports there as it would in the
harness.

On a worker's socket, each message is a frame: a 4-byte big-endian length, then the
bytes. The harness sends pickles (a :class:`Hello`, then one
:class:`~harness.agent_call.AgentInput` per call); the worker answers in JSON, UTF-8
(a :class:`WorkerReady`, then one :class:`~harness.agent_call.AgentAnswer` per
call), which the harness reads as untrusted text. A fork server's socket carries
one datagram per message: a fork request with the new worker's socket attached, a
status request, and their JSON answers.

Workers and fork servers ignore Ctrl-C (the harness alone decides when a run
stops) and, on Linux, die with their parent (``PR_SET_PDEATHSIG``), so a worker
stuck in C code cannot outlive a harness killed by a signal; a fork server that ends
kills its workers. A worker ends when its socket closes. A sync agent is called on
the worker's main thread; an async one on the worker's own event loop, kept from
call to call.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import pickle
import signal
import socket
import struct
import sys
from collections.abc import Awaitable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.agent_call import (
    Agent,
    AgentAnswer,
    AgentInput,
    call_async,
    call_sync,
    describe,
    is_async,
    load_agent,
)
from harness.errors import ConfigError
from harness.models import StrictModel

#: A frame's header: the length of its bytes.
HEADER = struct.Struct(">I")
#: The largest answer a worker sends (16 MiB of JSON); a larger one is sent as the
#: agent's error instead, and the harness refuses any frame past it.
MAX_ANSWER_BYTES = 16 * 1024 * 1024

#: A worker's program, as the harness starts it: SIGINT ignored first, then the
#: harness's import path.
BOOT = (
    "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    "import json, sys; sys.path[:] = json.loads(sys.argv[3])\n"
    "from harness.agent_worker import main; main(int(sys.argv[1]), int(sys.argv[2]))\n"
)
#: A fork server's program (Linux), likewise.
FORK_SERVER = (
    "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    "import json, sys; sys.path[:] = json.loads(sys.argv[3])\n"
    "from harness.agent_worker import serve_forks\n"
    "serve_forks(int(sys.argv[1]), int(sys.argv[2]), sys.argv[4])\n"
)
#: The largest datagram on a fork server's socket.
DATAGRAM_BYTES = 4096
#: The exit statuses of ended workers a fork server keeps for status requests.
_KEPT_STATUSES = 1024

_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Hello:
    """The harness's first message: the agent to load, and a sample input.

    ``sample`` is an input pickled: loading it imports the game's types now, so the
    first call's time is the agent's alone.
    """

    target: str
    search: tuple[str, ...]
    sample: bytes


class WorkerReady(StrictModel):
    """The worker's first message: ready to call the agent, or why it cannot."""

    error: str | None = None


def main(fd: int, parent: int) -> None:
    """Serve the harness on socket ``fd`` until it closes (a worker started alone)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _end_with(parent)
    sys.argv[:] = sys.argv[:1]
    with socket.socket(fileno=fd) as sock:
        serve(sock)


def serve(sock: socket.socket) -> None:
    """Load the agent the harness names, then answer each call, until the socket closes."""
    frame = _read(sock)
    if frame is None:
        return
    hello: Hello = pickle.loads(frame)
    try:
        agent = load_agent(hello.target, tuple(Path(p) for p in hello.search))
        pickle.loads(hello.sample)
    except ConfigError as exc:
        _write(sock, WorkerReady(error=str(exc)))
        return
    except BaseException as exc:  # the agent's module, or the game's types, failed
        _write(sock, WorkerReady(error=describe(exc)))
        return
    _write(sock, WorkerReady())
    calls = _Calls(agent)
    try:
        while (frame := _read(sock)) is not None:
            _write(sock, calls.answer(frame))
    except OSError:  # the harness closed its end mid-answer: nobody is waiting
        return


def serve_forks(fd: int, parent: int, game: str) -> None:
    """Fork a worker for each request on socket ``fd``, until it closes (Linux).

    What every worker needs is loaded first (the harness's agent modules and
    ``game``'s types), so a worker costs a fork and the agent's own module. A worker
    is reaped by the next request after it ends, and answers a status request
    (its exit status as :attr:`subprocess.Popen.returncode` gives it, or null while
    it runs). When the socket closes, the workers left are killed and reaped.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _end_with(parent)
    sys.argv[:] = sys.argv[:1]
    import harness.agents  # noqa: F401 - what an agent module imports, loaded once for all

    if game:
        _game(game)
    gc.freeze()  # what is loaded now is shared with every worker: never walked there
    server = os.getpid()
    running: set[int] = set()
    ended: dict[int, int] = {}
    with socket.socket(fileno=fd) as control:
        try:
            while True:
                data, fds, _, _ = socket.recv_fds(control, DATAGRAM_BYTES, 1)
                if not data:
                    return
                _reap(running, ended)
                request = json.loads(data)
                if request.get("op") == "fork" and len(fds) == 1:
                    pid = os.fork()
                    if pid == 0:  # the worker: it never returns to this loop
                        _worker_after_fork(control, fds[0], server)
                    os.close(fds[0])
                    running.add(pid)
                    control.send(json.dumps({"pid": pid}).encode())
                elif request.get("op") == "status":
                    pid = request.get("pid")
                    control.send(json.dumps({"status": ended.get(pid)}).encode())
                else:
                    for extra in fds:
                        os.close(extra)
                    control.send(b"{}")
        except OSError:  # the harness is gone
            return
        finally:
            for pid in running:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            for pid in running:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)


def _worker_after_fork(control: socket.socket, fd: int, server: int) -> None:
    """A forked worker: serve on ``fd``, then end the process (never the server's loop)."""
    code = 0
    try:
        control.close()
        _end_with(server)
        with socket.socket(fileno=fd) as sock:
            serve(sock)
    except BaseException:
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _reap(running: set[int], ended: dict[int, int]) -> None:
    """Wait for the workers that ended (without blocking), keeping their exit status."""
    while running:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        running.discard(pid)
        ended[pid] = os.waitstatus_to_exitcode(status)
        if len(ended) > _KEPT_STATUSES:  # the oldest is long forgotten by the harness
            del ended[next(iter(ended))]


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
        try:
            given: AgentInput = pickle.loads(frame)
        except BaseException as exc:  # an input this worker cannot read is a failed call
            return AgentAnswer(error=f"the worker could not read its input: {describe(exc)}")

        def decision_model(result: Any) -> BaseModel:
            model: BaseModel = _game(given.game).codec.decision_model(result)
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
def _game(name: str) -> Any:
    from harness.registry import get_game  # only for a game's own decision object

    return get_game(name)


def _end_with(parent: int) -> None:
    """End this process when the harness ends, even while the agent runs C code."""
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the harness ended before the line above
        os._exit(1)


def _read(sock: socket.socket) -> bytes | None:
    """The next frame, or None at the end of the stream."""
    header = _read_exactly(sock, HEADER.size)
    if header is None:
        return None
    (size,) = HEADER.unpack(header)
    return _read_exactly(sock, size)


def _read_exactly(sock: socket.socket, size: int) -> bytes | None:
    data = bytearray(size)
    view, got = memoryview(data), 0
    while got < size:
        n = sock.recv_into(view[got:])
        if n == 0:
            return None
        got += n
    return bytes(data)


def encode(message: StrictModel) -> bytes:
    """A message as a frame's bytes: JSON in UTF-8 (a lone surrogate passed through)."""
    text = json.dumps(message.model_dump(exclude_none=True), ensure_ascii=False)
    return text.encode("utf-8", "surrogatepass")


def _write(sock: socket.socket, message: StrictModel) -> None:
    payload = encode(message)
    if len(payload) > MAX_ANSWER_BYTES:
        payload = encode(
            AgentAnswer(
                error=f"the agent's answer takes {len(payload):,} bytes; an answer may "
                f"take at most {MAX_ANSWER_BYTES:,} (16 MiB)"
            )
        )
    sock.sendall(HEADER.pack(len(payload)) + payload)


__all__ = [
    "BOOT",
    "DATAGRAM_BYTES",
    "FORK_SERVER",
    "HEADER",
    "MAX_ANSWER_BYTES",
    "Hello",
    "WorkerReady",
    "encode",
    "main",
    "serve",
    "serve_forks",
]
