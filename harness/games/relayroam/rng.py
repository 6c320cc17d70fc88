"""SplitMix64, the seeded generator of chambers 4 and later (decision RR10).

Output ``k`` (0-based) of seed ``s`` is ``mix((s + (k + 1) * GAMMA) mod 2**64)``, so
the generator needs no hidden state: a game state carries only ``seed`` and
``rngCursor``, the number of outputs used so far, and draws output ``rngCursor``.
"""

from __future__ import annotations

from harness.splitmix import GAMMA, MASK64, mix

#: Seeds are integers 0..2**53 - 1, exactly representable as a JSON number (RR10).
MAX_SEED = (1 << 53) - 1


def output(seed: int, k: int) -> int:
    """Output ``k`` (0-based) of the SplitMix64 stream seeded with ``seed``."""
    if k < 0:
        raise ValueError(f"rng output index must be 0 or more, got {k}")
    return mix((seed + (k + 1) * GAMMA) & MASK64)


def draw(seed: int, cursor: int) -> tuple[int, int]:
    """The next output after ``cursor`` outputs used, and the advanced cursor."""
    return output(seed, cursor), cursor + 1


__all__ = ["GAMMA", "MASK64", "MAX_SEED", "draw", "mix", "output"]
