"""Hourloom's record codec part: its record models, both ways (docs/records.md)."""

from __future__ import annotations

from harness.games.hourloom.config import HourloomConfig
from harness.games.hourloom.game import Episode, HourloomRules
from harness.games.hourloom.record import HOURLOOM_RECORDS
from harness.games.hourloom.state import State
from harness.protocol.solo import SoloSeedCodec


class HourloomCodec(SoloSeedCodec[HourloomConfig, Episode, State]):
    """Hourloom's lines in and out of records: the board is the seed. Stateless."""

    def __init__(self) -> None:
        super().__init__(HourloomRules(), HOURLOOM_RECORDS)


__all__ = ["HourloomCodec"]
