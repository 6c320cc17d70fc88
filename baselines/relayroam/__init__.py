"""Relayroam's scripted players: GREEDY and vent-aware GREEDY (decision RR21)."""

from baselines.relayroam.greedy import greedy, vent_aware_greedy

__all__ = ["greedy", "vent_aware_greedy"]
