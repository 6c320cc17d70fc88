"""PILOT, the ceiling keeper: plans every runner's route and steers WALLHUG by radio.

A pure function of the keeper's observation (decision L1), like LANTERN; docs/rules.md
(PILOT, P1-P5) describes what it does. Modules: ``world`` (the board as the keeper
knows it), ``memory`` (the runners' recent moves, kept in PILOT's own notes),
``simulate`` (WALLHUG predicted by asking WALLHUG), ``route`` (which runner fetches
which keys, in what order) and ``keeper`` (the decision: silence, or the words).
"""

from baselines.lighthouse.pilot.keeper import decide, pilot

__all__ = ["decide", "pilot"]
