"""SILENT, the keeper that never transmits: what a team scores without its radio."""

from __future__ import annotations

import json

from harness.games.lighthouse.observe import KeeperObservation
from harness.games.lighthouse.state import KeeperDecision
from harness.protocol import DecidedBaseline

_QUIET = (json.dumps({"transmit": False}), KeeperDecision(transmit=False))


def silent_play(obs: KeeperObservation) -> tuple[str, KeeperDecision]:
    """SILENT's reply to ``obs`` and its decision: it never transmits."""
    return _QUIET


#: SILENT's reply to an observation (called like a function); it gives its decision
#: too (:class:`~harness.protocol.DecidedBaseline`).
silent = DecidedBaseline(silent_play)


__all__ = ["silent", "silent_play"]
