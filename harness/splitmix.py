"""SplitMix64's constants and output function, shared by the games that draw from it.

Relayroam (decision RR10) and Hourloom (H3) both draw their randomness from
SplitMix64; each carries the stream its own way (an output index, a 64-bit word), and
both mix a word the same way, here.
"""

from __future__ import annotations

#: SplitMix64's increment, the 64-bit golden-ratio constant.
GAMMA = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1


def mix(z: int) -> int:
    """SplitMix64's output function on a 64-bit word."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


__all__ = ["GAMMA", "MASK64", "mix"]
