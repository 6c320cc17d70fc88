"""Lighthouse tournament harness: exact rules, async seats, crash-safe records.

The Python API plays an episode in a few lines (see docs/agents.md)::

    import harness

    env = harness.make("lighthouse")
    result = env.play(seed=7, keeper=my_keeper)

Its names are imported on first use, so importing one of the harness's modules
does not load the model SDKs the API needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.agents import AgentInput
    from harness.api import Env, PlayResult, make, play
    from harness.notebook import Results
    from harness.seat_spec import BaselineSeatConfig, LLMSeatConfig, PythonSeatConfig

    __version__: str

#: Where each name of the API lives.
_API = {
    "AgentInput": "harness.agents",
    "BaselineSeatConfig": "harness.seat_spec",
    "Env": "harness.api",
    "LLMSeatConfig": "harness.seat_spec",
    "PlayResult": "harness.api",
    "PythonSeatConfig": "harness.seat_spec",
    "Results": "harness.notebook",
    "make": "harness.api",
    "play": "harness.api",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":  # looked up when asked for: importlib.metadata is slow to load
        from harness.version import harness_version

        return harness_version()
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "AgentInput",
    "BaselineSeatConfig",
    "Env",
    "LLMSeatConfig",
    "PlayResult",
    "PythonSeatConfig",
    "Results",
    "__version__",
    "make",
    "play",
]
