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

from tests.ctrl_c import FOREGROUND

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
        **FOREGROUND,
    )


def test_ctrl_c_on_another_thread_wakes_the_loop_and_runs_the_cleanup() -> None:
    done = _run(stubborn=False)
    assert done.returncode == 130, done.stderr
    assert done.stdout.splitlines() == ["cleanup ran", "interrupted"]


def test_a_second_ctrl_c_stops_a_cleanup_that_hangs() -> None:
    done = _run(stubborn=True)
    assert done.returncode == 130, done.stderr
    assert done.stdout.splitlines() == ["cleanup ran", "interrupted"]


# SIGINT ignored when the process starts (a script's background job, nohup): it stays
# ignored, as Python leaves it. The run sends itself SIGINT and then ends on its own a
# moment later; taking the signal would have cancelled it first (the signal's callback
# runs in the loop iteration that sees it, before any timer due then).
IGNORED = textwrap.dedent(
    """
    import asyncio, os, signal
    from harness.commands.interrupt import run_interruptible

    async def main() -> str:
        os.kill(os.getpid(), signal.SIGINT)
        done = asyncio.Event()
        asyncio.get_running_loop().call_later(0.2, done.set)
        await done.wait()
        return "finished"

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        print(run_interruptible(main()), flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    """
)


def test_a_sigint_ignored_from_the_start_stays_ignored() -> None:
    done = subprocess.run(
        [sys.executable, "-c", IGNORED], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["finished"]
