"""Run a command's coroutine so that Ctrl-C stops it promptly and cleanly.

``asyncio.run`` turns the first SIGINT into a cancellation through a plain
``signal.signal`` handler. Python runs such a handler only when the main thread next
executes bytecode, so while the event loop sleeps in ``select`` waiting for a model's
answer, a SIGINT the kernel hands to another thread (the default executor's, the
SDKs') waits for the next timer: seconds to minutes. The loop's own signal handling
writes the signal to a wake-up descriptor the selector watches, so the loop wakes
at once whichever thread took the signal.

The first Ctrl-C cancels the run, which closes what it was writing (a tournament
keeps every finished episode) and raises :class:`KeyboardInterrupt`; a second one
while that cleanup runs stops waiting for it. Like Python itself, this takes SIGINT
only where it has its default handler: a process started with SIGINT ignored (a
background job of a script, ``nohup``) keeps ignoring it.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_interruptible(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to its end; Ctrl-C raises :class:`KeyboardInterrupt` once it stops."""
    # asked before asyncio.run, which puts a handler of its own in the default's place
    default = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    return asyncio.run(_interruptible(main) if default else main)


async def _interruptible(main: Coroutine[Any, Any, T]) -> T:
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None  # asyncio.run runs us as a task
    presses = 0

    def on_sigint() -> None:
        nonlocal presses
        presses += 1
        if presses > 1:
            raise KeyboardInterrupt  # out of the loop: the cleanup is abandoned
        task.cancel()

    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError, ValueError):  # no loop signals here
        return await main
    try:
        return await main
    except asyncio.CancelledError:
        if presses and task.uncancel() == 0:
            raise KeyboardInterrupt from None
        raise
    finally:
        loop.remove_signal_handler(signal.SIGINT)


def serve_until_interrupted(
    serve: Callable[[], object], close: Callable[[], object], stopped: str
) -> int:
    """Run ``serve`` (a server's loop, in this thread) until Ctrl-C, then say ``stopped``
    on stderr; ``close`` frees the server however the loop ended. Returns exit status 0."""
    try:
        serve()
    except KeyboardInterrupt:
        print(stopped, file=sys.stderr)
    finally:
        close()
    return 0


__all__ = ["run_interruptible", "serve_until_interrupted"]
