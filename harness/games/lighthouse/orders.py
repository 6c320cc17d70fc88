"""Reading orders out of a keeper's message (decisions B7 and L3).

An order is a runner's alias as a whole word (any case), then spaces or tabs with an
optional ':', then a direction token: N/E/S/W/H or any move alias the rules list
(NORTH, UP, HOLD, STAY, WAIT, ...), ASCII letters in any case. The first mention of
the alias that is followed by a direction wins. ``hold``/``H`` means WAIT.

The grammar is WALLHUG's (and LANTERN speaks it), but it lives with the game: the
report's order-compliance figure reads the radio with it too, and a game never
imports its bots.
"""

from __future__ import annotations

import re
from functools import lru_cache

from harness.games.lighthouse.replies import MOVE_ALIASES, parse_move
from harness.games.lighthouse.state import Move


def _ascii_any_case(word: str) -> str:
    # Explicit classes rather than re.IGNORECASE, which would let "\u017f" match "s".
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in word)


_DIRECTION = "|".join(
    _ascii_any_case(token) for token in sorted(MOVE_ALIASES, key=lambda t: (-len(t), t))
)


@lru_cache(maxsize=256)
def _order_pattern(alias: str) -> re.Pattern[str]:
    return re.compile(
        rf"(?<!\w)(?i:{re.escape(alias)})(?:[ \t]+:?|[ \t]*:)[ \t]*({_DIRECTION})(?!\w)"
    )


# Kept: a message is read by each runner it reaches, tick after tick as a standing
# order, and by LANTERN predicting where its orders take them.
@lru_cache(maxsize=4096)
def find_order(message: str | None, alias: str) -> Move | None:
    """The move ``message`` orders the runner called ``alias`` to make, or None."""
    if not message:
        return None
    match = _order_pattern(alias).search(message)
    if match is None:
        return None
    return parse_move(match.group(1))


__all__ = ["find_order"]
