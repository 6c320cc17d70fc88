"""Lighthouse keepers that misbehave in every way a Python agent can, and a few that
tell the tests where they ran. The isolation tests name them by import path
(``tests.agents_misbehaving:NAME``), so by default each runs in a worker process.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

from harness.agents import AgentInput

REPLY = '{"transmit": true, "message": "Sprocket N"}'
#: Where :func:`announces_then_holds_the_gil` writes its process id before it blocks.
READY_FILE = "LIGHTHOUSE_TEST_AGENT_READY"


def exits(given: AgentInput) -> str:
    sys.exit(3)


def interrupts(given: AgentInput) -> str:
    raise KeyboardInterrupt


def holds_the_gil(given: AgentInput) -> str:
    """Blocks in C for 60 s with the GIL held: libc's sleep, called through PyDLL
    (which, unlike CDLL, keeps the GIL for the call)."""
    ctypes.PyDLL(None).sleep(60)
    return REPLY


def backtracks(given: AgentInput) -> str:
    """A catastrophic regex: 2**64 ways to split the a's, tried in C with the GIL held."""
    re.match(r"(a+)+$", "a" * 64 + "b")
    return REPLY


async def swallows_cancellation(given: AgentInput) -> str:
    """An async agent that never answers and ignores every cancellation."""
    while True:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(3600)


def never_returns(given: AgentInput) -> str:
    threading.Event().wait()
    return REPLY


def dies_at_tick_1(given: AgentInput) -> str:
    if given.tick == 1:
        os._exit(1)
    return REPLY


def exits_at_tick_1(given: AgentInput) -> str:
    if given.tick == 1:
        sys.exit("bye")
    return REPLY


def talks_too_much(given: AgentInput) -> str:
    return "x" * (17 * 1024 * 1024)


_calls: dict[tuple[str, str], int] = {}


def tells_where(given: AgentInput) -> dict[str, Any]:
    """Radios its process id and how many calls it had for this seat in this episode
    (kept in a global, keyed by episode and seat, as docs/agents.md suggests)."""
    key = (given.episode_id, given.seat)
    _calls[key] = _calls.get(key, 0) + 1
    return {"transmit": True, "message": f"pid {os.getpid()} call {_calls[key]}"}


async def tells_where_async(given: AgentInput) -> dict[str, Any]:
    await asyncio.sleep(0)
    return tells_where(given)


def announces_then_holds_the_gil(given: AgentInput) -> str:
    """Writes its process id to the file $LIGHTHOUSE_TEST_AGENT_READY, then holds the
    GIL in C for 10 minutes."""
    path = Path(os.environ[READY_FILE])
    partial = path.with_suffix(".part")
    partial.write_text(str(os.getpid()))
    partial.rename(path)  # whole, or not there yet
    ctypes.PyDLL(None).sleep(600)
    return REPLY


def slow_at_tick_1(given: AgentInput) -> str:
    """Takes a minute at tick 1 (in C, the GIL released)."""
    if given.tick == 1:
        time.sleep(60)
    return REPLY


def leaks_a_key(given: AgentInput) -> str:
    """Raises with the key in $LIGHTHOUSE_TEST_AGENT_KEY in its message."""
    raise PermissionError(f"bad key {os.environ['LIGHTHOUSE_TEST_AGENT_KEY']}")
