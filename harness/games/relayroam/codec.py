"""Relayroam's record codec part: its record models, both ways (docs/records.md)."""

from __future__ import annotations

from harness.games.relayroam.config import RelayroamConfig
from harness.games.relayroam.game import Episode, RelayroamRules
from harness.games.relayroam.observe import Observation
from harness.games.relayroam.record import RELAYROAM_RECORDS
from harness.protocol.solo import SoloSeedCodec


class RelayroamCodec(SoloSeedCodec[RelayroamConfig, Episode, Observation]):
    """Relayroam's lines in and out of records: the board is the seed. Stateless."""

    def __init__(self) -> None:
        super().__init__(RelayroamRules(), RELAYROAM_RECORDS)


__all__ = ["RelayroamCodec"]
