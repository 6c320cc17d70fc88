"""How chamber n is sized (decisions H1 and H2).

Every value is a closed formula of n that never decreases and reaches a ceiling:
size from chamber 6, laps and flux from 9, gates and two-plate gates from 8, sparks
from 10 and the multiplier from 13. No branch ends a run because n grew.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChamberSpec:
    """The counts H1 gives chamber ``number`` (the grid is ``size`` x ``size``)."""

    number: int
    size: int
    laps: int
    gates: int
    two_plate_gates: int
    flux: int
    sparks: int
    multiplier_pct: int


def chamber_spec(number: int) -> ChamberSpec:
    """H1's row for chamber ``number`` (1 or more)."""
    if number < 1:
        raise ValueError(f"chambers are numbered from 1, got {number}")
    gates = min(5, 1 + number // 2)
    return ChamberSpec(
        number=number,
        size=min(9, 7 + number // 3),
        # H2: laps plateau at 6 too (chambers 10 and 15 both have 6).
        laps=min(6, 3 + number // 3),
        gates=gates,
        two_plate_gates=max(0, gates - 2),
        flux=min(8, number - 1),
        sparks=min(6, max(3, 1 + number // 2)),
        multiplier_pct=min(400, 100 + 25 * (number - 1)),
    )


__all__ = ["ChamberSpec", "chamber_spec"]
