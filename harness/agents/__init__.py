"""Your own agent in a seat: a Python callable, sync or async, named by import path.

The callable gets an :class:`AgentInput` (the seat's observation, structured and as
the text a model would read) and returns the reply text, or a decision (a dict, a
pydantic model, or the game's own decision object). It is judged like a model's
reply, in the one turn loop every seat that answers in text plays
(:func:`harness.turn.play_turn`): a reply that does not parse gets one retry with a
hint, then the role's baseline answers (``fallback_parse``); a call that raises
(``SystemExit`` and ``KeyboardInterrupt`` too) falls back as ``fallback_error``, one
that outlasts its timeout as ``fallback_timeout``. Its decisions are tagged
``python`` (``python_retry`` after the hint), and its seat's agent is of kind
``python`` in the record.

Where it runs is the seat's isolation (docs/agents.md states every bound):
``process``, the default for an agent named by import path, calls it in worker
processes of its own (:mod:`harness.agents.pool`), killed when a call outlasts its
timeout; ``none``, for a callable given directly (which cannot be sent to another
process as the same object), calls it in this process (:mod:`harness.agents.inprocess`),
never on the event loop.

The package is laid out by where each part runs: :mod:`~harness.agents.call` (one
call, wherever it runs), :mod:`~harness.agents.seat` (the seat's turns),
:mod:`~harness.agents.inprocess`; for worker processes :mod:`~harness.agents.pool`
(the harness's side) with :mod:`~harness.agents.processes` and
:mod:`~harness.agents.forks`, :mod:`~harness.agents.frames` (what crosses the
socket), and :mod:`~harness.agents.worker` and :mod:`~harness.agents.fork_server`
(the workers' programs). The seat's names are imported on first use, so a worker
process, which imports this package before its agent, loads only what a call needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from harness.agents.call import ERROR_RUNES, Agent, AgentInput, agent_name, load_agent

if TYPE_CHECKING:
    from harness.agents.seat import Isolation, PythonSeat, reply_text

#: The names imported when first asked for, from :mod:`harness.agents.seat`.
_SEAT = frozenset({"Isolation", "PythonSeat", "reply_text"})


def __getattr__(name: str) -> Any:
    if name in _SEAT:
        return getattr(importlib.import_module("harness.agents.seat"), name)
    raise AttributeError(f"module 'harness.agents' has no attribute {name!r}")


__all__ = [
    "ERROR_RUNES",
    "Agent",
    "AgentInput",
    "Isolation",
    "PythonSeat",
    "agent_name",
    "load_agent",
    "reply_text",
]
