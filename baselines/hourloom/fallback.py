"""TIMESTEP as the fallback of an LLM seat (decision H34).

A failed or missing reply is answered with TIMESTEP's action (DESCEND when sealed), but
a fallback never ends the run: where TIMESTEP would send END_RUN (its sand can no
longer reach the exit), the fallback WAITs, and the run goes on to the model's next
reply. The score cannot differ: a WAIT earns nothing and an ending forfeits nothing.
"""

from __future__ import annotations

from baselines.hourloom.timestep import timestep
from harness.games.hourloom.rules import WAIT, Action
from harness.games.hourloom.state import State


def timestep_fallback(state: State) -> Action:
    """TIMESTEP's action in ``state``, with WAIT in place of END_RUN."""
    action = timestep(state)
    return dict(WAIT) if action["type"] == "END_RUN" else action


__all__ = ["timestep_fallback"]
