"""SCOUT, the exploring runner (decision L5): WALLHUG's eyes, with a memory in its notes.

SCOUT reads only its own :class:`RunnerObservation`, exactly what WALLHUG reads: its
3 x 3 window, its inbox and standing order, its last six moves with their bump flags
and its notes. Every tick it

1. recalls where it is and what it has seen from its notes, the moves it made since
   it wrote them and its window (:mod:`.memory`);
2. obeys an order naming it exactly as WALLHUG does (the inbox first, then the
   standing order; :func:`~baselines.lighthouse.wallhug.obey`);
3. otherwise heads for the exit, a key or the nearest tile it has not seen, by
   breadth-first search over its own chart (:mod:`.explore`);
4. writes its memory back into its notes, within the cap (:func:`.memory.fit`).

Where the cap leaves no room beside its position for the 5 x 5 tiles around it, it
keeps no memory (empty notes) and plays as WALLHUG.
"""

from __future__ import annotations

import json

from baselines.lighthouse.scout.explore import explore
from baselines.lighthouse.scout.memory import fit, recall
from baselines.lighthouse.wallhug import obey, ordered_move, wallhug_move
from harness.games.lighthouse.observe import RunnerObservation
from harness.games.lighthouse.state import Move, RunnerDecision
from harness.protocol import DecidedBaseline


def scout_turn(obs: RunnerObservation) -> tuple[Move, str]:
    """SCOUT's move for ``obs`` and the notes it writes."""
    kept = fit(recall(obs), obs.notes_cap)
    if kept is None:
        return wallhug_move(obs), ""
    memory, notes = kept
    order = ordered_move(obs)
    if order is not None:
        return obey(obs, order), notes
    return explore(memory, gate_open=obs.gate_open), notes


def scout_move(obs: RunnerObservation) -> Move:
    """SCOUT's move for ``obs``."""
    return scout_turn(obs)[0]


def scout_play(obs: RunnerObservation) -> tuple[str, RunnerDecision]:
    """SCOUT's reply to ``obs`` and its decision (what the parser makes of the reply)."""
    move, notes = scout_turn(obs)
    return json.dumps({"move": move.value, "notes": notes}), RunnerDecision(move, notes)


#: SCOUT's reply to an observation, in the shape a model's reply takes (called like a
#: function); it gives its decision too (:class:`~harness.protocol.DecidedBaseline`).
scout = DecidedBaseline(scout_play)


__all__ = ["scout", "scout_move", "scout_play", "scout_turn"]
