"""A recorded cost as every table shows it, with calls that had no price named."""

from __future__ import annotations

#: What a cost shows where a call had no price: never "$0", which reads as free.
NO_PRICE = "no price"


def cost_text(cost_usd: float, unpriced: int, digits: int = 4) -> str:
    """A recorded cost as every table shows it: ``$0.1234``; ``no price`` when calls
    without a price are all it has; ``$0.1234 + no price`` when it has both.

    ``unpriced`` is the calls answered with no price (:attr:`SeatStats.unpriced`);
    results lines written before they were counted give 0, and show as they did.
    """
    if not unpriced:
        return f"${cost_usd:.{digits}f}"
    if not cost_usd:
        return NO_PRICE
    return f"${cost_usd:.{digits}f} + {NO_PRICE}"
