"""Hourloom's scripted players (decision H35).

PLANNER replays the plan the generator built each chamber around: privileged, it
reads the plan rather than the state, and is the ceiling a report compares against.
TIMESTEP sees only the state and searches over (tile, lap turn); it is the fallback
of an LLM seat (H34) and never plans plates for later laps; as a fallback it WAITs
where it would end the run (:func:`timestep_fallback`).
"""

from baselines.hourloom.fallback import timestep_fallback
from baselines.hourloom.planner import chamber_plan, planner
from baselines.hourloom.timestep import timestep

__all__ = ["chamber_plan", "planner", "timestep", "timestep_fallback"]
