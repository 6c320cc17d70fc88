"""A pool's fork server (Linux): one process that forks each of an agent's workers.

Started as ``python -c FORK_SERVER FD PARENT PATH GAME`` (:mod:`harness.agents.frames`),
it loads the harness's agent modules and the game's types once, so a worker costs a
fork (a few milliseconds) and the agent's own module. It ignores Ctrl-C, dies with
the harness, and, when its socket closes, kills and reaps the workers left.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import signal
import socket
import sys

from harness.agents.frames import DATAGRAM_BYTES
from harness.agents.worker import end_with, game_named, serve

#: The exit statuses of ended workers a fork server keeps for status requests.
_KEPT_STATUSES = 1024


def serve_forks(fd: int, parent: int, game: str) -> None:
    """Fork a worker for each request on socket ``fd``, until it closes (Linux).

    What every worker needs is loaded first (the harness's agent modules and
    ``game``'s types), so a worker costs a fork and the agent's own module. A worker
    is reaped by the next request after it ends, and answers a status request
    (its exit status as :attr:`subprocess.Popen.returncode` gives it, or null while
    it runs). When the socket closes, the workers left are killed and reaped.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    end_with(parent)
    sys.argv[:] = sys.argv[:1]
    import harness.agents  # noqa: F401 - what an agent module imports, loaded once for all

    if game:
        game_named(game)
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
        end_with(server)
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


__all__ = ["serve_forks"]
