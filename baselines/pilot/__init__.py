"""PILOT, the strong scripted keeper: plans every runner's route and steers WALLHUG by radio."""

from baselines.pilot.keeper import decide, pilot

__all__ = ["decide", "pilot"]
