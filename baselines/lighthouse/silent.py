"""SILENT, the keeper that never transmits: what a team scores without its radio."""

from __future__ import annotations

import json

from harness.games.lighthouse.observe import KeeperObservation


def silent(obs: KeeperObservation) -> str:
    """SILENT's reply to ``obs``: it never transmits."""
    return json.dumps({"transmit": False})


__all__ = ["silent"]
