"""The harness's side of a pool's fork server (Linux), and the workers it forks.

The server (:mod:`harness.agents.fork_server`) forks each worker, so a worker is
its child, not the harness's: the harness holds it by a pidfd, so a kill can never
reach another process that took a dead worker's number, and asks the server for
its exit status.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import json
import os
import select
import signal
import socket

from harness.agents.frames import DATAGRAM_BYTES, FORK_SERVER
from harness.agents.processes import Worker, spawn
from harness.json_reply import StrictJsonError, strict_loads


class Forked:
    """A worker forked by a fork server (its child, not ours), held by a pidfd."""

    def __init__(self, pid: int, pidfd: int, server: ForkServer) -> None:
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


class ForkServer:
    """A pool's fork server (Linux): a process with the harness and the game loaded,
    that forks a worker per request (see :func:`harness.agents.fork_server.serve_forks`)."""

    def __init__(self, game: str) -> None:
        self.process, self.control = spawn(FORK_SERVER, game, kind=socket.SOCK_SEQPACKET)
        self._lock: asyncio.Lock | None = None

    def alive(self) -> bool:
        return self.control.fileno() >= 0 and self.process.poll() is None

    async def fork(self) -> Worker:
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
        return Worker(Forked(pid, pidfd, self), ours)

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
            await send_datagram(loop, self.control, data, rights)
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


async def send_datagram(
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


__all__ = ["ForkServer", "Forked"]
