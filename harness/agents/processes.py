"""A Python agent's worker process, as the harness holds it: its process and socket.

A worker is either a fresh interpreter, the harness's own child (:class:`Spawned`),
or forked by a pool's fork server (:class:`~harness.agents.forks.Forked`); the
harness speaks to either through a :class:`Worker`, whose frames it reads as
untrusted bytes, never past :data:`~harness.agents.frames.MAX_ANSWER_BYTES`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterable
from typing import Literal, Protocol, TypeVar

from pydantic import ValidationError

from harness.agents.call import AgentAnswer
from harness.agents.frames import BOOT, HEADER, MAX_ANSWER_BYTES, WorkerReady
from harness.json_reply import StrictJsonError, strict_loads

#: How a pool starts its workers: forked by its fork server, or each a new interpreter.
Launcher = Literal["fork", "spawn"]

Message = TypeVar("Message", AgentAnswer, WorkerReady)


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


class FrameError(Exception):
    """A worker broke the protocol: what it sent is not a frame of it."""


class WorkerProcess(Protocol):
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


class Spawned:
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


class Worker:
    """One worker process, and the harness's end of its socket."""

    def __init__(self, process: WorkerProcess, sock: socket.socket) -> None:
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
            raise FrameError(f"a frame of {size:,} bytes, over the {MAX_ANSWER_BYTES:,} allowed")
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
        await wait_for_exit([self], asyncio.get_running_loop().time() + 1.0)
        code = await self.process.status()
        if code is None:
            return "it closed its socket"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit status {code}"


def spawn(
    program: str, *args: str, kind: socket.SocketKind = socket.SOCK_STREAM
) -> tuple[subprocess.Popen[bytes], socket.socket]:
    """A new interpreter running ``program``, and the harness's (non-blocking) end of a
    socket pair of ``kind`` whose other end it holds (raises OSError)."""
    ours, theirs = socket.socketpair(type=kind)
    fd = theirs.fileno()
    path = json.dumps([str(entry) for entry in sys.path])
    argv = [sys.executable, "-c", program, str(fd), str(os.getpid()), path, *args]
    try:
        process = subprocess.Popen(argv, pass_fds=(fd,), stdin=subprocess.DEVNULL)
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    ours.setblocking(False)
    return process, ours


def spawn_worker() -> Worker:
    """A worker started as a new interpreter (raises OSError)."""
    process, sock = spawn(BOOT)
    return Worker(Spawned(process), sock)


async def wait_for_exit(workers: Iterable[Worker], deadline: float) -> None:
    """Wait until every worker of ``workers`` has ended, or ``deadline`` (``loop.time()``)."""
    loop = asyncio.get_running_loop()
    pause = 0.001
    while any(not w.process.exited() for w in workers) and loop.time() < deadline:
        await asyncio.sleep(pause)
        pause = min(pause * 2, 0.05)


def read_message(model: type[Message], frame: bytes) -> Message | None:
    """A worker's message as ``model``; None when it is not one."""
    try:
        data = strict_loads(frame.decode("utf-8", "surrogatepass"), max_depth=2)
        return model.model_validate(data)
    except (UnicodeDecodeError, StrictJsonError, ValidationError):
        return None


__all__ = [
    "FrameError",
    "Launcher",
    "Message",
    "Spawned",
    "Worker",
    "WorkerProcess",
    "default_launcher",
    "read_message",
    "spawn",
    "spawn_worker",
    "wait_for_exit",
]
