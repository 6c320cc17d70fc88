"""Ctrl-C stops a command's run at once, whichever thread the kernel hands SIGINT to.

Each case runs in a child process (a stray SIGINT must not reach the test session)
and waits on events, never on timers, so a run that misses the signal hangs and the
``communicate`` timeout fails the test.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

# The coroutine waits on an event nothing sets and no timer bounds: only the signal
# can end it. The SIGINT goes to a worker thread, as the kernel may do when the main
# thread sleeps in select; ``asyncio.run`` alone would not wake for it.
CHILD = textwrap.dedent(
    """
    import asyncio, signal, sys, threading
    from harness.commands.interrupt import run_interruptible

    parked = threading.Event()
    worker = threading.Thread(target=parked.wait, daemon=True)
    worker.start()
    stubborn = {stubborn}

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.call_soon(signal.pthread_kill, worker.ident, signal.SIGINT)
        try:
            await asyncio.Event().wait()
        finally:
            print("cleanup ran", flush=True)
            if stubborn:
                # a cleanup that never ends: only a second Ctrl-C gets past it
                loop.call_soon(signal.pthread_kill, worker.ident, signal.SIGINT)
                await asyncio.Event().wait()

    try:
        run_interruptible(main())
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
    """
)


def _run(stubborn: bool) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHILD.format(stubborn=stubborn)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_ctrl_c_on_another_thread_wakes_the_loop_and_runs_the_cleanup() -> None:
    done = _run(stubborn=False)
    assert done.returncode == 130, done.stderr
    assert done.stdout.splitlines() == ["cleanup ran", "interrupted"]


def test_a_second_ctrl_c_stops_a_cleanup_that_hangs() -> None:
    done = _run(stubborn=True)
    assert done.returncode == 130, done.stderr
    assert done.stdout.splitlines() == ["cleanup ran", "interrupted"]
