"""SplitMix64, Hourloom's one random stream (decision H3).

The stream is one 64-bit word, carried in a state as ``rngState`` (16 lowercase hex
digits, since a JSON number would lose bits in JavaScript). Each draw adds the
golden-ratio increment to the word and returns the mixed word. Only chamber
generation draws (H5), so the stream is a value passed in and handed back: nothing
here keeps global state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from harness.splitmix import GAMMA, MASK64, mix

T = TypeVar("T")

#: Seeds are integers 0..2**53 - 1, exactly representable as a JSON number (H4).
MAX_SEED = (1 << 53) - 1


def to_hex(word: int) -> str:
    """``word`` as rngState: exactly 16 lowercase hex digits."""
    return f"{word & MASK64:016x}"


def from_hex(text: str) -> int:
    """The word an rngState string holds (the caller has checked its shape)."""
    return int(text, 16)


class Stream:
    """A SplitMix64 stream being drawn from during one chamber's generation.

    Mutable on purpose, but never shared: generation makes one from a state's
    rngState, draws, and hands back :attr:`word` as the next rngState.
    """

    def __init__(self, word: int) -> None:
        self.word = word & MASK64

    def next(self) -> int:
        """The next 64-bit output."""
        self.word = (self.word + GAMMA) & MASK64
        return mix(self.word)

    def below(self, n: int) -> int:
        """A uniform integer in ``0..n-1`` by rejection on 64-bit outputs (unbiased)."""
        if n < 1:
            raise ValueError(f"below needs n >= 1, got {n}")
        # Outputs at or above the largest multiple of n would favour small values.
        limit = (1 << 64) - (1 << 64) % n
        while True:
            value = self.next()
            if value < limit:
                return value % n

    def pick(self, seq: Sequence[T]) -> T:
        """``seq[below(len(seq))]``."""
        return seq[self.below(len(seq))]

    def shuffle(self, seq: Sequence[T]) -> list[T]:
        """A Fisher-Yates shuffle of ``seq`` from the last index down (a new list)."""
        out = list(seq)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


__all__ = ["GAMMA", "MASK64", "MAX_SEED", "Stream", "from_hex", "mix", "to_hex"]
